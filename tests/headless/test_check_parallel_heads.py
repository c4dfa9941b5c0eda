"""``check --model``: tensor and sequence parallel sizes against the model's attention heads (issue 24).

The rules state claims tp-whole-heads-per-rank and ds-ulysses-heads-divide (tests/claims/test_parallelism.py shows
them with the real transformers and DeepSpeed code)."""
from __future__ import annotations

import json

import pytest
import yaml

from wizard.cli import main
from wizard.core.lint.general import sp_sizes_for, tp_sizes_for

VERSIONS = ["--accelerate-version", "1.15.0", "--deepspeed-version", "0.19.8"]
TRANSFORMERS = "5.0.0"
"""transformers 5.0: the last release whose tensor-parallel classes accelerate's FSDP2 + TP prepare() can import
(test_fsdp2_tp_with_transformers_5_1_or_later_is_an_error shows the others)."""


def _fsdp2(procs: int, **sizes) -> dict:
    return {"compute_environment": "LOCAL_MACHINE", "distributed_type": "FSDP", "num_processes": procs,
            "num_machines": 1, "mixed_precision": "bf16",
            "fsdp_config": {"fsdp_version": 2, "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
                            "fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer",
                            "fsdp_reshard_after_forward": True, "fsdp_state_dict_type": "SHARDED_STATE_DICT",
                            # on (the launch default) beside tp, prepare() fails: parallelism-fsdp2-tp-ram-efficient-...
                            "fsdp_cpu_ram_efficient_loading": False},
            "parallelism_config": {f"parallelism_config_{k}_size": v for k, v in sizes.items()}}


def _ds_sp(procs: int, sp: int) -> dict:
    return {"compute_environment": "LOCAL_MACHINE", "distributed_type": "DEEPSPEED", "num_processes": procs,
            "num_machines": 1, "mixed_precision": "bf16",
            "deepspeed_config": {"zero_stage": 3, "gradient_accumulation_steps": 1, "gradient_clipping": 1.0},
            # dp_shard x sp = the processes, or DeepSpeed's batch check fails (parallelism-ds-sp-total-mismatch)
            "parallelism_config": {"parallelism_config_sp_size": sp, "parallelism_config_sp_backend": "deepspeed",
                                   "parallelism_config_dp_shard_size": procs // sp}}


def _check(tmp_path, capsys, config: dict, *extra: str, transformers: str = TRANSFORMERS) -> tuple[int, list[dict]]:
    path = tmp_path / "accelerate_config.yaml"
    path.write_text(yaml.safe_dump(config))
    rc = main(["check", str(path), "--gpus-per-node", "16", "--trainer", "accelerate", *VERSIONS,
               "--transformers-version", transformers, "--format", "json", *extra])
    return rc, json.loads(capsys.readouterr().out)["findings"]


def _model_json(tmp_path, model_type: str, heads: int, kv: int, hidden: int, **keys) -> str:
    """A transformers config.json of ``model_type`` with these head counts (2 layers unless ``keys`` say)."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": model_type, "vocab_size": 1000, "hidden_size": hidden,
                                "num_hidden_layers": 2, "num_attention_heads": heads, "num_key_value_heads": kv,
                                "intermediate_size": 2 * hidden, **keys}))
    return str(path)


def _rules(findings) -> dict[str, dict]:
    """The parallelism findings but the mesh note (test_the_mesh_note_lists_the_groups covers it)."""
    return {f["rule"]: f for f in findings if f["rule"].startswith("parallelism")
            and f["rule"] != "parallelism-mesh-layout"}


def test_fsdp2_dp_shard_4_by_tp_2_passes_for_llama_3_1_8b(tmp_path, capsys):
    rc, findings = _check(tmp_path, capsys, _fsdp2(8, dp_shard=4, tp=2), "--model", "llama-3.1-8b")
    assert rc == 0 and _rules(findings) == {}


def test_tp_3_is_an_error_naming_tp_size_and_the_heads(tmp_path, capsys):
    rc, findings = _check(tmp_path, capsys, _fsdp2(12, dp_shard=4, tp=3), "--model", "llama-3.1-8b")
    found = _rules(findings)
    assert rc == 2 and set(found) == {"parallelism-tp-heads"}
    f = found["parallelism-tp-heads"]
    assert f["severity"] == "error" and f["keys"] == ["parallelism_config.parallelism_config_tp_size"]
    assert "32 attention heads and 8 key-value heads of llama-3.1-8b" in f["message"]
    assert "(1, 2, 4 or 8)" in f["fix"]


@pytest.mark.parametrize("sp,error", [(3, True), (2, False), (16, False)])
def test_deepspeed_sp_size_against_the_heads(tmp_path, capsys, sp, error):
    rc, findings = _check(tmp_path, capsys, _ds_sp(min(sp * 2, 16), sp), "--model", "llama-3.1-8b")
    found = _rules(findings)
    if error:
        assert rc == 2 and set(found) == {"parallelism-sp-heads"}
        assert found["parallelism-sp-heads"]["keys"] == ["parallelism_config.parallelism_config_sp_size"]
        assert "1, 2, 4, 8, 16 or 32" in found["parallelism-sp-heads"]["fix"]
    else:  # 16 ranks over 8 KV heads: each rank gets a replicated KV head, which DeepSpeed accepts
        assert rc == 0 and found == {}


def test_a_config_json_with_its_own_heads(tmp_path, capsys):
    model = _model_json(tmp_path, "llama", 12, 4, 768)
    rc, findings = _check(tmp_path, capsys, _fsdp2(6, dp_shard=2, tp=3), "--model", str(model))
    assert rc == 2 and "12 attention heads and 4 key-value heads" in _rules(findings)["parallelism-tp-heads"]["message"]
    rc, findings = _check(tmp_path, capsys, _fsdp2(8, dp_shard=4, tp=2), "--model", str(model))
    assert rc == 0 and _rules(findings) == {}


@pytest.mark.parametrize("config", [_fsdp2(8, dp_shard=4, tp=2), _ds_sp(6, 3)], ids=["tp", "sp"])
def test_without_the_model_it_says_what_it_did_not_check(tmp_path, capsys, config):
    rc, findings = _check(tmp_path, capsys, config)
    found = _rules(findings)
    assert rc == 0 and set(found) == {"parallelism-heads-unchecked"}
    assert found["parallelism-heads-unchecked"]["severity"] == "info" and "--model" in found[
        "parallelism-heads-unchecked"]["fix"]


def test_a_model_type_without_a_tensor_parallel_plan(tmp_path, capsys):
    rc, findings = _check(tmp_path, capsys, _fsdp2(8, dp_shard=4, tp=2), "--model", "gpt2")
    found = _rules(findings)
    assert rc == 2 and set(found) == {"parallelism-tp-no-plan"}  # 12 heads: tp 2 divides them
    assert "gpt2 model, which has no tensor-parallel plan" in found["parallelism-tp-no-plan"]["message"]


def test_a_model_type_the_wizard_does_not_know(tmp_path, capsys):
    model = _model_json(tmp_path, "newarch", 8, 8, 512)
    rc, findings = _check(tmp_path, capsys, _fsdp2(8, dp_shard=4, tp=2), "--model", str(model))
    found = _rules(findings)
    assert rc == 0 and set(found) == {"parallelism-tp-plan-unknown"}
    assert "'newarch'" in found["parallelism-tp-plan-unknown"]["message"]


def test_no_heads_finding_without_tp_or_sp(tmp_path, capsys):
    rc, findings = _check(tmp_path, capsys, _fsdp2(8, dp_shard=8))
    assert rc == 0 and _rules(findings) == {}


def test_an_unknown_model_is_a_usage_error_without_the_estimate_options(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(_fsdp2(8, dp_shard=4, tp=2)))
    assert main(["check", str(path), "--model", "no-such-model"]) == 2
    err = capsys.readouterr().err
    assert "--model no-such-model: unknown model" in err and "--params" not in err


def test_the_sizes_that_fit():
    assert tp_sizes_for(32, 8) == [1, 2, 4, 8]
    assert tp_sizes_for(12, 4) == [1, 2, 4]
    assert sp_sizes_for(32, 8) == [1, 2, 4, 8, 16, 32]
    assert sp_sizes_for(6, 2) == [1, 2, 6]


@pytest.mark.parametrize("transformers,error", [("5.24.0", True), ("5.1.0", True), ("5.0.0", False)])
def test_fsdp2_tp_with_transformers_5_1_or_later_is_an_error(tmp_path, capsys, transformers, error):
    rc, findings = _check(tmp_path, capsys, _fsdp2(8, dp_shard=4, tp=2), "--model", "llama-3.1-8b",
                          transformers=transformers)
    found = _rules(findings)
    if error:
        assert rc == 2 and set(found) == {"parallelism-fsdp2-tp-transformers"}
        f = found["parallelism-fsdp2-tp-transformers"]
        assert f["keys"] == ["parallelism_config.parallelism_config_tp_size"]
        assert f"transformers {transformers} no longer has" in f["message"] and "ImportError" in f["message"]
    else:
        assert rc == 0 and found == {}


def test_dp_shard_only_is_not_touched_by_the_transformers_release(tmp_path, capsys):
    rc, findings = _check(tmp_path, capsys, _fsdp2(8, dp_shard=8), transformers="5.24.0")
    assert rc == 0 and _rules(findings) == {}


@pytest.mark.parametrize("model,error", [("mistral-7b-v0.1", True), ("llama-3.1-8b", False), ("qwen2.5-7b", False)])
def test_context_parallel_against_the_models_attention(tmp_path, capsys, model, error):
    rc, findings = _check(tmp_path, capsys, _fsdp2(8, dp_shard=4, cp=2), "--model", model)
    found = _rules(findings)
    assert "parallelism-cp-drops-attention-mask" in found  # whatever the model: masks are dropped
    assert ("parallelism-cp-windowed-attention" in found) is error and (rc == 2) is error
    if error:
        assert "sliding_attention" in found["parallelism-cp-windowed-attention"]["message"]


def test_a_config_json_with_sliding_window_layers(tmp_path, capsys):
    model = _model_json(tmp_path, "qwen2", 8, 8, 512, num_hidden_layers=4, use_sliding_window=True,
                        sliding_window=256, max_window_layers=2)
    rc, findings = _check(tmp_path, capsys, _fsdp2(8, dp_shard=4, cp=2), "--model", str(model))
    assert rc == 2 and "parallelism-cp-windowed-attention" in _rules(findings)


def test_the_mesh_note_lists_the_groups(tmp_path, capsys):
    rc, findings = _check(tmp_path, capsys, _fsdp2(16, dp_shard=4, cp=2, tp=2), "--model", "llama-3.1-8b")
    (note,) = [f for f in findings if f["rule"] == "parallelism-mesh-layout"]
    assert note["severity"] == "info"
    assert "dp_shard 4 x cp 2 x tp 2" in note["message"]
    assert "tp groups: [0,1] [2,3] [4,5] [6,7] ... (8 groups)" in note["message"]
    assert "cp groups: [0,2] [1,3] [4,6] [5,7] ... (8 groups)" in note["message"]
    assert "dp_shard groups: [0,4,8,12] [1,5,9,13] [2,6,10,14] [3,7,11,15];" in note["message"]


@pytest.mark.parametrize("tp,spans", [(8, False), (16, True)])
def test_tensor_parallel_groups_that_cross_machines(tmp_path, capsys, tp, spans):
    config = _fsdp2(32, dp_shard=32 // tp, tp=tp)
    config.update(num_machines=4, main_process_ip="10.0.0.1")
    rc, findings = _check(tmp_path, capsys, config, "--model", "llama-3.1-70b")
    found = _rules(findings)
    assert ("parallelism-group-spans-machines" in found) is spans
    if spans:
        assert "With 8 processes per machine, 2 of the 2 tp groups span machines" in found[
            "parallelism-group-spans-machines"]["message"]
