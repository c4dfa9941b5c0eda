"""`estimate` of answers and of the config written from them are one estimate (issue 20): the same figures, text and
JSON, for every preset and for answers whose written config differs from what was answered; `estimate` and
`recommend --base` take an accelerate config (with its JSON) or a DeepSpeed JSON alone."""
from __future__ import annotations

import json

import pytest
import yaml
from helpers import write_preset

from wizard.cli import main
from wizard.core.answers import default_answers, load_answers_file
from wizard.core.presets import preset_paths

SPECIAL = {
    # answered NVMe, written cpu: ZeRO-2 offloads the optimizer to the CPU whatever the device
    "zero2-nvme-optimizer": {"backend": "deepspeed", "sharding.strategy": "grads_optimizer",
                             "offload.optimizer": "nvme", "offload.nvme_path": "/nvme"},
    # answered none, written reshard_after_forward: false (FSDP2 has no NO_SHARD)
    "fsdp2-none": {"backend": "fsdp", "fsdp_version": 2, "sharding.strategy": "none"},
    # answered optimizer offload only, written FSDP's one switch (parameters too)
    "fsdp1-sgo-offload": {"backend": "fsdp", "fsdp_version": 1, "sharding.strategy": "grads_optimizer",
                          "offload.optimizer": "cpu"},
}


def _run(capsys, argv):
    capsys.readouterr()
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def _answers_file(tmp_path, name):
    if name in SPECIAL:
        a = default_answers().replace(SPECIAL[name])
        path = tmp_path / f"{name}.yaml"
        values = {}
        for sid, value in SPECIAL[name].items():
            node = values
            *parts, leaf = sid.split(".")
            for part in parts:
                node = node.setdefault(part, {})
            node[leaf] = value
        path.write_text(yaml.safe_dump({"schema_version": 1, **values}))
        return path, a
    path = preset_paths()[name]
    return path, load_answers_file(path)[0]


def _config_flags(a) -> list[str]:
    """What the answers say that no config key holds."""
    flags = ["--model-dtype", a["precision.model_dtype"]]
    ga = a["training.gradient_accumulation_steps"]
    if isinstance(ga, int):
        flags += ["--gradient-accumulation-steps", str(ga)]
    if a.backend == "deepspeed" and a["training.activation_checkpointing"]:
        flags.append("--activation-checkpointing")
    return flags


@pytest.mark.parametrize("name", [*sorted(preset_paths()), *SPECIAL])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_answers_and_their_config_print_the_same_estimate(name, fmt, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path, a = _answers_file(tmp_path, name)
    if name in preset_paths():
        write_preset(name, tmp_path / "out")  # a preset the installed versions block: its golden files
        capsys.readouterr()
    else:
        _run(capsys, ["--headless", str(path), "--out", "out"])
    model = ["--model", "llama-3.1-8b", "--gpu-memory", "80", "--format", fmt]
    from_answers = _run(capsys, ["estimate", str(path), *model])
    from_config = _run(capsys, ["estimate", "out/accelerate_config.yaml", *model, *_config_flags(a)])
    assert from_config == from_answers


def test_zero2_nvme_answers_are_estimated_as_the_cpu_offload_that_runs(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path, _ = _answers_file(tmp_path, "zero2-nvme-optimizer")
    cpu = tmp_path / "cpu.yaml"
    cpu.write_text(yaml.safe_dump({"schema_version": 1, "backend": "deepspeed",
                                   "sharding": {"strategy": "grads_optimizer"}, "offload": {"optimizer": "cpu"}}))
    argv = ["--model", "llama-3.1-8b", "--format", "json"]
    nvme = json.loads(_run(capsys, ["estimate", str(path), *argv]))
    as_cpu = json.loads(_run(capsys, ["estimate", str(cpu), *argv]))
    assert nvme["host_breakdown"] == as_cpu["host_breakdown"] and nvme["per_rank"] == as_cpu["per_rank"]
    assert nvme["host_breakdown"]["pinned_buffers"] == 0 and nvme["host_breakdown"]["offloaded_optimizer_states"] > 0
    # a config that says nvme at ZeRO-2 is estimated the same, with a note of what runs instead
    cfg = tmp_path / "accelerate_config.yaml"
    cfg.write_text(yaml.safe_dump({"distributed_type": "DEEPSPEED", "num_processes": 2, "mixed_precision": "bf16",
                                   "deepspeed_config": {"zero_stage": 2, "offload_optimizer_device": "nvme"}}))
    written = json.loads(_run(capsys, ["estimate", str(cfg), *argv, "--gradient-accumulation-steps", "1"]))
    assert written["host_breakdown"]["pinned_buffers"] == 0 and written["host_breakdown"]["offloaded_optimizer_states"]
    assert any("CPU whatever the device" in n for n in written["notes"])


def test_a_deepspeed_json_alone_needs_the_rank_count(tmp_path, capsys):
    ds = tmp_path / "ds.json"
    ds.write_text(json.dumps({"zero_optimization": {"stage": 3}, "bf16": {"enabled": True},
                              "train_micro_batch_size_per_gpu": 1}))
    capsys.readouterr()
    assert main(["estimate", str(ds), "--model", "llama-3.1-8b"]) == 2
    assert "--num-processes" in capsys.readouterr().err
    out = json.loads(_run(capsys, ["estimate", str(ds), "--model", "llama-3.1-8b", "--num-processes", "8",
                                   "--format", "json"]))
    assert out["layout"] == "DeepSpeed ZeRO-3 over 8 ranks" and out["ranks"] == 8


def test_config_flags_are_refused_with_answers(capsys):
    capsys.readouterr()
    assert main(["estimate", "zero2", "--model", "llama-3.1-8b", "--gradient-accumulation-steps", "4"]) == 2
    assert "--gradient-accumulation-steps go with an accelerate config" in capsys.readouterr().err


def test_a_config_that_does_not_start_is_refused_with_its_reason(tmp_path, capsys):
    cfg = tmp_path / "accelerate_config.yaml"
    cfg.write_text(yaml.safe_dump({"distributed_type": "FSDP", "num_processes": 2,
                                   "fsdp_config": {"fsdp_version": 1, "fsdp_sync_module_states": False}}))
    capsys.readouterr()
    assert main(["estimate", str(cfg), "--model", "llama-3.1-8b"]) == 2
    err = capsys.readouterr().err
    assert "does not start" in err and "fsdp_sync_module_states" in err


def test_recommend_takes_a_config_as_its_base(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run(capsys, ["--headless", "zero3-cpu-offload", "--out", "out"])
    argv = ["recommend", "--model", "llama-3.1-8b", "--gpus-per-node", "8", "--gpu-memory", "80", "--format", "json"]
    capsys.readouterr()
    code_a = main([*argv, "--base", "zero3-cpu-offload"])
    from_answers = json.loads(capsys.readouterr().out)
    code_c = main([*argv, "--base", "out/accelerate_config.yaml"])
    from_config = json.loads(capsys.readouterr().out)
    assert code_a == code_c == 0
    assert [(c["label"], c["estimate"]) for c in from_config["candidates"]] == [
        (c["label"], c["estimate"]) for c in from_answers["candidates"]]


@pytest.mark.parametrize("name", sorted(preset_paths()))
def test_the_tui_on_a_config_estimates_what_estimate_of_the_config_says(name, tmp_path, capsys, monkeypatch):
    """`fsdpds-wizard --config accelerate_config.yaml` (the TUI's start from a config) holds imported answers; the
    memory bar and the Memory screen estimate them (wizard.tui.shared.session.MemoryContext.estimate); that is the
    estimate `estimate accelerate_config.yaml` prints."""
    from wizard.core.memory.estimate import estimate
    from wizard.core.memory.shapes import shape_by_name
    from wizard.tui.shared.session import from_accelerate_config

    monkeypatch.chdir(tmp_path)
    write_preset(name, tmp_path / "out")
    capsys.readouterr()
    start = from_accelerate_config("out/accelerate_config.yaml")
    a = start.answers
    tui = estimate(a, shape=shape_by_name("llama-3.1-8b"), gpu_memory_gib=80).to_json()
    flags = ["--model-dtype", a["precision.model_dtype"]]
    ga = a["training.gradient_accumulation_steps"]
    if isinstance(ga, int):
        flags += ["--gradient-accumulation-steps", str(ga)]
    cli = json.loads(_run(capsys, ["estimate", "out/accelerate_config.yaml", "--model", "llama-3.1-8b",
                                   "--gpu-memory", "80", "--format", "json", *flags]))
    assert cli == tui
