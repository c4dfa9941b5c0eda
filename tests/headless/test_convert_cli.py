"""`fsdpds-wizard convert CONFIG --to deepspeed|fsdp [--fsdp-version 1|2] --out DIR [--force] [--format text|json]`
(issue 10): what it writes, its JSON, and how it refuses bad input and existing files."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from wizard.cli import main


def _src(tmp_path: Path, preset: str) -> Path:
    assert main(["--headless", preset, "--out", str(tmp_path / "src")]) == 0
    return tmp_path / "src" / "accelerate_config.yaml"


def _json(capsys) -> dict:
    return json.loads(capsys.readouterr().out)


def test_deepspeed_config_to_fsdp2_writes_yaml_and_answers_and_reports_json(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src = _src(tmp_path, "zero3-nvme-offload")
    capsys.readouterr()
    assert main(["convert", str(src), "--to", "fsdp", "--out", "out", "--format", "json"]) == 0
    report = _json(capsys)
    assert set(report) >= {"source", "from", "to", "written", "findings", "round_trip_stable"}
    assert (report["from"], report["to"]) == ("deepspeed", "fsdp2")
    assert sorted(Path(p).name for p in report["written"]) == ["accelerate_config.yaml", "answers.yaml"]
    assert not (tmp_path / "out" / "ds_config.json").exists()
    cfg = yaml.safe_load((tmp_path / "out" / "accelerate_config.yaml").read_text())
    assert cfg["distributed_type"] == "FSDP" and cfg["fsdp_config"]["fsdp_version"] == 2
    assert cfg["fsdp_config"]["fsdp_offload_params"] is True
    rules = {f["rule"] for f in report["findings"]}
    assert {"convert-nvme-no-fsdp-twin", "convert-cpu-optimizer", "convert-precision-upcast"} <= rules
    # NVMe cannot come back: the round trip is not stable, and the differences say where
    assert report["round_trip_stable"] is False
    assert {d["setting"] for d in report["round_trip_differences"]} == {"offload.optimizer", "offload.params"}
    answers = yaml.safe_load((tmp_path / "out" / "answers.yaml").read_text())
    assert answers["backend"] == "fsdp" and answers["offload"]["optimizer"] == "cpu"


def test_fsdp_config_to_deepspeed_and_back_is_stable(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src = _src(tmp_path, "fsdp2-full-shard-bf16")
    assert main(["convert", str(src), "--to", "deepspeed", "--out", "ds"]) == 0
    out = capsys.readouterr().out
    assert "FSDP2 -> DeepSpeed" in out and "gives the same intent" in out and "wrote ds/accelerate_config.yaml" in out
    assert main(["convert", "ds/accelerate_config.yaml", "--to", "fsdp", "--out", "back", "--format", "json"]) == 0
    assert _json(capsys)["round_trip_stable"] is True
    before = yaml.safe_load(src.read_text())["fsdp_config"]
    after = yaml.safe_load((tmp_path / "back" / "accelerate_config.yaml").read_text())["fsdp_config"]
    for key in ("fsdp_reshard_after_forward", "fsdp_offload_params", "fsdp_cpu_ram_efficient_loading",
                "fsdp_state_dict_type", "fsdp_version"):
        assert before[key] == after[key], key


def test_fsdp1_to_fsdp2_converts_between_versions(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src = _src(tmp_path, "fsdp1-shard-grad-op-compile")
    capsys.readouterr()
    assert main(["convert", str(src), "--to", "fsdp", "--fsdp-version", "2", "--out", "v2", "--format", "json"]) == 0
    assert _json(capsys)["to"] == "fsdp2"
    cfg = yaml.safe_load((tmp_path / "v2" / "accelerate_config.yaml").read_text())
    assert cfg["fsdp_config"]["fsdp_reshard_after_forward"] is False
    assert "fsdp_sharding_strategy" not in cfg["fsdp_config"]


def test_a_deepspeed_json_alone_converts_with_a_note_about_the_launch_defaults(tmp_path, capsys):
    ds = tmp_path / "ds_config.json"
    ds.write_text(json.dumps({"zero_optimization": {"stage": 1}, "bf16": {"enabled": True},
                              "train_micro_batch_size_per_gpu": 2}))
    assert main(["convert", str(ds), "--to", "fsdp", "--fsdp-version", "1", "--out", str(tmp_path / "o"),
                 "--format", "json"]) == 0
    report = _json(capsys)
    assert report["from"] == "deepspeed"
    rules = [f["rule"] for f in report["findings"]]
    assert "convert-zero1-no-fsdp-twin" in rules and "import" in rules
    cfg = yaml.safe_load((tmp_path / "o" / "accelerate_config.yaml").read_text())
    assert cfg["fsdp_config"]["fsdp_sharding_strategy"] == "SHARD_GRAD_OP"


def test_existing_files_are_not_replaced_without_force(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src = _src(tmp_path, "zero2")
    out = tmp_path / "out"
    out.mkdir()
    (out / "accelerate_config.yaml").write_text("mine: true\n")
    assert main(["convert", str(src), "--to", "fsdp", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "refusing to replace" in err and "--force" in err
    assert (out / "accelerate_config.yaml").read_text() == "mine: true\n"
    assert not (out / "answers.yaml").exists()
    assert main(["convert", str(src), "--to", "fsdp", "--out", str(out), "--force"]) == 0
    assert (out / "accelerate_config.yaml.bak").read_text() == "mine: true\n"
    assert "distributed_type: FSDP" in (out / "accelerate_config.yaml").read_text()
    # again: the same bytes, nothing replaced
    capsys.readouterr()
    assert main(["convert", str(src), "--to", "fsdp", "--out", str(out)]) == 0
    assert "unchanged" in capsys.readouterr().out


def test_a_converted_config_with_an_error_writes_nothing(tmp_path, capsys):
    # DeepSpeed's pdsh runner finds the main address itself; torchrun (FSDP) needs main_process_ip on 2 machines
    (tmp_path / "ds_config.json").write_text(json.dumps({"zero_optimization": {"stage": 3}, "bf16": {"enabled": True},
                                                          "train_micro_batch_size_per_gpu": "auto"}))
    cfg = {"distributed_type": "DEEPSPEED", "num_processes": 16, "num_machines": 2,
           "deepspeed_config": {"deepspeed_config_file": str(tmp_path / "ds_config.json"),
                                "deepspeed_multinode_launcher": "pdsh", "deepspeed_hostfile": "/job/hostfile"}}
    (tmp_path / "acc.yaml").write_text(yaml.safe_dump(cfg))
    assert main(["convert", str(tmp_path / "acc.yaml"), "--to", "fsdp", "--out", str(tmp_path / "o"),
                 "--format", "json"]) == 2
    report = _json(capsys)
    assert report["written"] == [] and "nothing written" in report["error"]
    assert any(f["severity"] == "error" and f["rule"] == "multinode-needs-main-ip" for f in report["findings"])
    assert not (tmp_path / "o").exists()


def test_a_source_with_errors_is_refused_as_check_refuses_it(tmp_path, capsys):
    """A JSON that enables fp16 and bf16 (DeepSpeed refuses it; check calls it an error) is not converted: exit 2,
    the source's errors listed, nothing written (it was converted to bf16, exit 0, with no note)."""
    src = tmp_path / "both.json"
    src.write_text(json.dumps({"train_batch_size": 100, "train_micro_batch_size_per_gpu": 50,
                               "gradient_accumulation_steps": 1, "fp16": {"enabled": True},
                               "bf16": {"enabled": True}, "zero_optimization": {"stage": 2}}))
    assert main(["convert", str(src), "--to", "fsdp", "--out", str(tmp_path / "o"), "--format", "json"]) == 2
    report = _json(capsys)
    assert report["written"] == [] and "nothing written" in report["error"] and "check" in report["error"]
    assert [f["rule"] for f in report["findings"]] == ["ds-json-fp16-and-bf16"]
    assert not (tmp_path / "o").exists()
    assert main(["convert", str(src), "--to", "fsdp", "--out", str(tmp_path / "o")]) == 2
    out, err = capsys.readouterr()
    assert "not converted" in out and "ds-json-fp16-and-bf16" in out and "nothing written" in err


def test_the_before_column_quotes_the_source_file(tmp_path, capsys):
    """"before" is what the file says (train_batch_size 100, not the 'auto' the wizard would write; a key the file
    does not have is "(not written)", not a key of the accelerate YAML the JSON has no place for)."""
    src = tmp_path / "good.json"
    src.write_text(json.dumps({"train_batch_size": 100, "train_micro_batch_size_per_gpu": 50,
                               "gradient_accumulation_steps": 1, "bf16": {"enabled": True},
                               "zero_optimization": {"stage": 2}}))
    assert main(["convert", str(src), "--to", "fsdp", "--out", str(tmp_path / "o"), "--format", "json"]) == 0
    lines = {c["setting"]: c for c in _json(capsys)["report"]["same intent"]}
    assert lines["training.micro_batch_size"]["before"] == "train_batch_size: 100, train_micro_batch_size_per_gpu: 50"
    assert lines["training.micro_batch_size"]["after"] == "(the DataLoader's batch_size in the script)"
    assert lines["loading.ram_efficient"]["before"] == "(not written)"
    assert lines["sharding.strategy"]["before"] == "zero_optimization.stage: 2"


@pytest.mark.parametrize("argv,needle", [
    (["convert", "missing.yaml", "--to", "fsdp", "--out", "o"], "missing.yaml"),
    (["convert", "CFG", "--out", "o"], "--to"),
    (["convert", "CFG", "--to", "fsdp"], "--out DIR"),
    (["convert", "CFG", "--to", "zero"], "invalid choice"),
    (["convert", "CFG", "--to", "deepspeed", "--fsdp-version", "1", "--out", "o"],
     "--fsdp-version goes with --to fsdp"),
    (["convert", "CFG", "--to", "fsdp", "--out", "o"], "FSDP2 config already"),
    (["convert", "CFG", "--to", "fsdp", "--fsdp-version", "2", "--out", "o"], "--fsdp-version 1"),
])
def test_bad_input_exits_2_and_says_what_to_do(argv, needle, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src = _src(tmp_path, "fsdp2-full-shard-bf16")
    capsys.readouterr()
    argv = [str(src) if a == "CFG" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err
    assert not (tmp_path / "o").exists()


def test_deepspeed_to_deepspeed_and_unreadable_input_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src = _src(tmp_path, "zero2")
    capsys.readouterr()
    assert main(["convert", str(src), "--to", "deepspeed", "--out", "o"]) == 2
    assert "DeepSpeed config already; to convert it to FSDP use --to fsdp" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("distributed_type: [FSDP\n")
    assert main(["convert", str(bad), "--to", "deepspeed", "--out", "o"]) == 2
    assert "bad.yaml" in capsys.readouterr().err
    lost = tmp_path / "lost.yaml"
    lost.write_text(yaml.safe_dump({"distributed_type": "DEEPSPEED",
                                    "deepspeed_config": {"deepspeed_config_file": "nowhere.json"}}))
    assert main(["convert", str(lost), "--to", "fsdp", "--out", "o"]) == 2
    assert "cannot be read" in capsys.readouterr().err
    multi = tmp_path / "multi.yaml"
    multi.write_text(yaml.safe_dump({"distributed_type": "MULTI_GPU", "num_processes": 2}))
    assert main(["convert", str(multi), "--to", "fsdp", "--out", "o"]) == 2
    assert "only FSDP and DEEPSPEED" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("preset,to", [("zero3-cpu-offload", "fsdp"), ("fsdp2-full-shard-bf16", "deepspeed")])
def test_verify_replays_the_converted_config_through_the_real_libraries(preset, to, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "ext"))
    monkeypatch.chdir(tmp_path)
    src = _src(tmp_path, preset)
    capsys.readouterr()
    assert main(["convert", str(src), "--to", to, "--out", "out", "--verify", "--format", "json"]) == 0
    report = _json(capsys)
    assert report["verified"] is True and report["written"]
    assert not [f for f in report["findings"] if f["rule"].startswith("verify-")]


def test_the_text_report_ends_with_the_summary_on_a_line_of_its_own(tmp_path):
    """Issue 21, item 19: the summary went to stderr while the report went to stdout, so where both reach one pipe
    or file (stdout buffered) it landed first, or glued to the report's last line (`... train.py0 error(s)`)."""
    import os
    import subprocess
    import sys

    from helpers import ROOT

    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # stdout buffered, as in a pipe
    env["PYTHONPATH"] = str(ROOT)
    src = tmp_path / "src"
    assert subprocess.run([sys.executable, "-m", "wizard", "--headless", "fsdp2-full-shard-bf16", "--out", str(src)],
                          env=env, capture_output=True).returncode == 0
    proc = subprocess.run([sys.executable, "-m", "wizard", "convert", str(src / "accelerate_config.yaml"), "--to",
                           "deepspeed", "--out", str(tmp_path / "ds")], env=env, cwd=tmp_path,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.returncode == 0, proc.stdout
    lines = proc.stdout.splitlines()
    assert lines[0].endswith("FSDP2 -> DeepSpeed")
    assert lines[-2].startswith("launch with: accelerate launch") and lines[-2].endswith("train.py")
    assert re.fullmatch(r"\d+ error\(s\), \d+ warning\(s\), \d+ note\(s\)", lines[-1])


def test_a_refused_write_says_why_after_the_summary(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src = _src(tmp_path, "fsdp2-full-shard-bf16")
    assert main(["convert", str(src), "--to", "deepspeed", "--out", "ds"]) == 0
    (tmp_path / "ds" / "accelerate_config.yaml").write_text("# mine\n")
    capsys.readouterr()
    assert main(["convert", str(src), "--to", "deepspeed", "--out", "ds"]) == 2
    captured = capsys.readouterr()
    assert re.fullmatch(r"\d+ error\(s\), \d+ warning\(s\), \d+ note\(s\)", captured.out.splitlines()[-1])
    assert "launch with" not in captured.out and captured.err.startswith("fsdpds-wizard: ")


def test_a_bare_json_with_accelerate_launch_keys_converts_with_their_launch_answers(tmp_path, capsys):
    """An axolotl-style DeepSpeed JSON (top-level num_processes/num_machines): the keys are launch answers, so the
    converted accelerate config launches 8 processes, and each key has an import note."""
    src = tmp_path / "zero2.json"
    src.write_text(json.dumps({"num_machines": 1, "num_processes": 8, "bf16": {"enabled": True},
                               "train_micro_batch_size_per_gpu": 2,
                               "zero_optimization": {"stage": 2}}))
    assert main(["convert", str(src), "--to", "fsdp", "--out", str(tmp_path / "out"), "--format", "json"]) == 0
    report = _json(capsys)
    cfg = yaml.safe_load((tmp_path / "out" / "accelerate_config.yaml").read_text())
    assert (cfg["num_processes"], cfg["num_machines"]) == (8, 1)
    notes = {f["keys"][0]: f for f in report["findings"] if f["rule"] == "import" and len(f["keys"]) == 2}
    assert "imported into launch.num_processes" in notes["num_processes"]["message"]
    assert "imported into launch.num_machines" in notes["num_machines"]["message"]


def test_a_dropped_settings_counterpart_names_the_backend_once(tmp_path, capsys, monkeypatch):
    """N9: `convert` said "DeepSpeed's counterpart: DeepSpeed: transparent." for an FSDP-only setting it dropped;
    the part of the catalogue's line for the new backend is said once, without its name again."""
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "accelerate_config.yaml"
    src.write_text(yaml.safe_dump({
        "distributed_type": "FSDP", "num_processes": 8, "num_machines": 1, "mixed_precision": "bf16",
        "fsdp_config": {"fsdp_version": 1, "fsdp_sharding_strategy": "FULL_SHARD", "fsdp_use_orig_params": False,
                        "fsdp_sync_module_states": True, "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
                        "fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer"}}))
    assert main(["convert", str(src), "--to", "deepspeed", "--out", "out", "--format", "json"]) == 0
    dropped = {f["keys"][0]: " ".join(f["message"].split()) for f in _json(capsys)["findings"]
               if f["rule"] == "convert-dropped"}
    assert "wrapping.layer_classes" in dropped and "summoning.use_orig_params" in dropped
    for message in dropped.values():
        assert "counterpart: DeepSpeed:" not in message, message
    assert "DeepSpeed's counterpart: transparent." in dropped["wrapping.layer_classes"]
    # a line with a part for each backend: only DeepSpeed's part is said as DeepSpeed's
    assert "DeepSpeed's counterpart: transparent. Not written" in dropped["summoning.use_orig_params"]
