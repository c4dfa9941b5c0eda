"""``estimate CONFIG --model llama-3.1-8b --seq 16384`` with tensor and context parallelism, and ``recommend`` for a
long sequence (issue 24 point 3, its done-when commands)."""
from __future__ import annotations

import json

import yaml

from wizard.cli import main


def _fsdp2(tmp_path, name: str, **sizes) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump({
        "compute_environment": "LOCAL_MACHINE", "distributed_type": "FSDP", "num_processes": 8, "num_machines": 1,
        "mixed_precision": "bf16",
        "fsdp_config": {"fsdp_version": 2, "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
                        "fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer", "fsdp_reshard_after_forward": True,
                        "fsdp_state_dict_type": "SHARDED_STATE_DICT"},
        "parallelism_config": {f"parallelism_config_{k}_size": v for k, v in sizes.items()}}))
    return str(path)


def _estimate(capsys, config: str) -> dict:
    assert main(["estimate", config, "--model", "llama-3.1-8b", "--seq", "16384", "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_tp_2_and_cp_2_take_less_per_gpu_than_dp_shard_8(tmp_path, capsys):
    plain = _estimate(capsys, _fsdp2(tmp_path, "plain", dp_shard=8))
    tp = _estimate(capsys, _fsdp2(tmp_path, "tp", dp_shard=4, tp=2))
    cp = _estimate(capsys, _fsdp2(tmp_path, "cp", dp_shard=4, cp=2))
    assert tp["per_rank"]["gpu_bytes"] < plain["per_rank"]["gpu_bytes"]
    assert cp["per_rank"]["gpu_bytes"] < plain["per_rank"]["gpu_bytes"]
    assert tp["layout"].endswith("over 4 ranks, tensor parallel 2") and tp["shard_degree"] == 4
    assert cp["layout"].endswith("over 8 ranks, context parallel 2") and cp["shard_degree"] == 8


def test_the_text_report_says_what_tp_splits_and_what_it_does_not(tmp_path, capsys):
    assert main(["estimate", _fsdp2(tmp_path, "tp", dp_shard=4, tp=2), "--model", "llama-3.1-8b", "--seq",
                 "16384"]) == 0
    out = capsys.readouterr().out
    assert "tensor parallel 2: transformers' TP plan splits the attention and MLP projections" in out
    assert "the norms stay whole" in out


def test_recommend_proposes_context_or_sequence_parallelism_for_128k_tokens(capsys):
    code = main(["recommend", "--model", "llama-3.1-8b", "--gpus-per-node", "8", "--gpu-memory", "80", "--seq",
                 "131072", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    chosen = next(c for c in data["candidates"] if c["label"] == data["chosen"])
    sizes = chosen["parallelism_config"]
    assert {"parallelism_config_cp_size", "parallelism_config_sp_size", "parallelism_config_tp_size"} & set(sizes)
    assert "fits only with" in chosen["reason"] and "sequence" in chosen["reason"]
    plain = [c for c in data["candidates"] if not c["parallelism_config"]]
    assert plain and not any(c["fits"] for c in plain)  # why: plain sharding does not fit 131072 tokens


def test_recommend_says_why_fsdp2_tp_is_left_out(capsys):
    main(["recommend", "--model", "llama-3.1-8b", "--gpus-per-node", "8", "--gpu-memory", "80", "--seq", "131072"])
    out = capsys.readouterr().out
    assert "note: left out FSDP2 full shard + tensor parallel 2, bf16: our rules find an error " \
           "(parallelism-fsdp2-tp-transformers" in out


def test_recommend_write_puts_the_parallel_sizes_in_the_answers(tmp_path, capsys):
    from wizard.core.answers import load_answers_file

    target = tmp_path / "answers.yaml"
    code = main(["recommend", "--model", "llama-3.1-8b", "--gpus-per-node", "8", "--gpu-memory", "80", "--seq",
                 "131072", "--write", str(target)])
    out = capsys.readouterr().out
    assert code == 0 and target.exists()
    answers = load_answers_file(target)[0]
    assert answers["fsdp_version"] == 2 and answers["parallelism.cp_size"] == 8
    assert "its parallelism_config: parallelism_config_dp_shard_size: 1, parallelism_config_cp_size: 8" in out
    # the configs written from those answers hold the same sizes
    assert main(["--headless", str(target), "--out", str(tmp_path / "out")]) == 0
    written = (tmp_path / "out" / "accelerate_config.yaml").read_text()
    assert "parallelism_config_cp_size: 8" in written and "parallelism_config_dp_shard_size: 1" in written
