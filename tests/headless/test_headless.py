"""`fsdpds-wizard --headless`: files, exit codes, never clobbering, presets, bad input."""
import json
from pathlib import Path

import pytest
import yaml
from helpers import ROOT

from wizard.cli import main


def write(tmp_path, text, name="answers.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_fsdp_preset_writes_yaml_and_answers_only(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["--headless", "fsdp2-full-shard-bf16", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["accelerate_config.yaml", "answers.yaml"]
    cfg = yaml.safe_load((out / "accelerate_config.yaml").read_text())
    assert cfg["distributed_type"] == "FSDP" and cfg["fsdp_config"]["fsdp_version"] == 2
    stdout = capsys.readouterr().out
    assert "accelerate launch --config_file" in stdout


def test_nvme_preset_writes_ds_json_with_absolute_reference(tmp_path):
    out = tmp_path / "out"
    assert main(["--headless", str(ROOT / "templates" / "zero3-nvme-offload.yaml"), "--out", str(out)]) == 0
    cfg = yaml.safe_load((out / "accelerate_config.yaml").read_text())
    ref = Path(cfg["deepspeed_config"]["deepspeed_config_file"])
    assert ref.is_absolute() and ref == (out / "ds_config.json").resolve()
    ds = json.loads(ref.read_text())
    assert ds["zero_optimization"]["offload_param"]["device"] == "nvme"


def test_rerun_is_unchanged_and_a_different_file_is_never_replaced(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["--headless", "zero2", "--out", str(out)]) == 0
    assert main(["--headless", "zero2", "--out", str(out)]) == 0
    assert "unchanged" in capsys.readouterr().out
    (out / "accelerate_config.yaml").write_text("# my edits\n")
    assert main(["--headless", "zero2", "--out", str(out)]) == 2
    assert (out / "accelerate_config.yaml").read_text() == "# my edits\n"
    assert "--force" in capsys.readouterr().err
    assert main(["--headless", "zero2", "--out", str(out), "--force"]) == 0
    assert (out / "accelerate_config.yaml.bak").read_text() == "# my edits\n"
    assert "zero_stage: 2" in (out / "accelerate_config.yaml").read_text()


def test_invalid_answers_exit_2_and_write_nothing(tmp_path, capsys):
    p = write(tmp_path, "backend: deepspeed\noffload:\n  optimiser: cpu\n")
    out = tmp_path / "out"
    assert main(["--headless", str(p), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "offload.optimiser" in err and "optimizer" in err
    assert not out.exists()


def test_rule_error_blocks_writing(tmp_path, capsys):
    p = write(tmp_path, "backend: deepspeed\noffload:\n  optimizer: nvme\n  params: nvme\n")  # no nvme_path
    out = tmp_path / "out"
    assert main(["--headless", str(p), "--out", str(out)]) == 2
    assert "offload.nvme_path" in capsys.readouterr().err
    assert not out.exists()


def test_backend_switch_gives_closest_equivalent(tmp_path, capsys):
    text = (ROOT / "templates" / "zero3-cpu-offload.yaml").read_text().replace("backend: deepspeed", "backend: fsdp")
    p = write(tmp_path, text)
    out = tmp_path / "out"
    assert main(["--headless", str(p), "--out", str(out)]) == 0
    f = yaml.safe_load((out / "accelerate_config.yaml").read_text())["fsdp_config"]
    assert f["fsdp_offload_params"] is True and f["fsdp_reshard_after_forward"] is True
    assert f["fsdp_state_dict_type"] == "FULL_STATE_DICT"


@pytest.mark.parametrize("argv,needle", [
    (["--headless", "does-not-exist.yaml", "--out", "x"], "not found"),
    (["--headless", "zero2"], "--out"),
    (["--force"], "--headless"),
    (["--launch"], "--headless"),
    (["--headless", "zero2", "--out", "x", "--rehearse"], "--rehearse needs --launch"),
    (["--bogus"], "unrecognized"),
    (["check"], "required"),
    (["explain", "nope"], "neither a group, a setting nor a config key"),
    (["explain", "offload.param"], "did you mean 'offload.params'"),
])
def test_bad_command_lines_exit_2_with_a_message(argv, needle, capsys):
    assert main(argv) == 2
    assert needle in capsys.readouterr().err


def test_answers_that_are_not_yaml(tmp_path, capsys):
    p = tmp_path / "bin.yaml"
    p.write_bytes(b"\x00\xff\xfe garbage")
    assert main(["--headless", str(p), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.strip()


def test_out_is_a_file(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["--headless", "zero2", "--out", str(f)]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_normalised_answers_regenerate_identical_files(tmp_path):
    out1, out2 = tmp_path / "a", tmp_path / "b"
    assert main(["--headless", "fsdp1-shard-grad-op-compile", "--out", str(out1)]) == 0
    assert main(["--headless", str(out1 / "answers.yaml"), "--out", str(out2)]) == 0
    for name in ("accelerate_config.yaml", "answers.yaml"):
        assert (out1 / name).read_text() == (out2 / name).read_text()


def test_explain_one_setting_shows_only_that_setting_with_its_keys_and_versions(capsys):
    assert main(["explain", "wrapping.ignored_modules", "--width", "160"]) == 0
    out = capsys.readouterr().out
    assert "[wrapping.ignored_modules]" in out and "(needs torch>=2.7)" in out
    assert "Versions: FSDP2 needs torch >= 2.7" in out
    assert "[wrapping.min_num_params]" not in out and "[wrapping.policy]" not in out
    assert main(["explain", "wrapping", "--width", "100"]) == 0
    group = capsys.readouterr().out
    assert "[wrapping.min_num_params]" in group and "[wrapping.ignored_modules]" in group


@pytest.mark.parametrize("name,setting,head", [
    ("zero3_init_flag", "loading.ram_efficient",
     "zero3_init_flag (deepspeed_config.zero3_init_flag) is written by the setting loading.ram_efficient"),
    ("zero_optimization.stage", "sharding.strategy", "zero_optimization.stage is written by the setting "
                                                     "sharding.strategy"),
    ("fsdp_config.min_num_params", "wrapping.min_num_params", "fsdp_config.min_num_params is written by the setting "
                                                              "wrapping.min_num_params"),
    ("reshard_after_forward", "sharding.strategy", "reshard_after_forward (fsdp_config.fsdp_reshard_after_forward) is "
                                                   "written by the setting sharding.strategy"),
])
def test_explain_takes_a_native_key_and_names_its_setting(capsys, name, setting, head):
    """Issue 21: `explain zero3_init_flag` said "neither a group nor a setting" though the palette finds it."""
    assert main(["explain", name, "--width", "400"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(head) and f"[{setting}]" in out
    assert main(["explain", setting, "--width", "400"]) == 0
    assert capsys.readouterr().out.rstrip() in out  # then that setting, as `explain SETTING` shows it


def test_explain_takes_a_word_as_the_palette_does(capsys):
    """`explain dynamo`: the settings whose ids, titles or keys mention it, each named and explained; a typo gets a
    did-you-mean naming the setting behind the key; a word in too many settings lists them."""
    from wizard.core.catalog import SETTINGS

    dynamo = [s.id for s in SETTINGS if s.id.startswith("launch.dynamo_")]
    assert main(["explain", "dynamo", "--width", "400"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == ("dynamo: no group, setting or config key has this name; the settings that mention "
                                   "it: " + ", ".join(dynamo))
    assert all(f"[{sid}]" in out for sid in dynamo) and "[launch.num_processes]" not in out
    assert main(["explain", "zero3_init_flg"]) == 2
    assert "did you mean 'zero3_init_flag' (a key of loading.ram_efficient)?" in capsys.readouterr().err
    assert main(["explain", "zero"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fsdpds-wizard: 'zero' is in ")
    assert "sharding.strategy, parallelism.ds_quantized_weights" in err and "offload.optimizer" in err


def test_explain_one_setting_names_the_claims_behind_it_and_their_evidence(capsys):
    from wizard.core.claims import CLAIMS
    from wizard.core.texts import TEXTS

    assert main(["explain", "deepspeed.reduce_bucket_size", "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert "Evidence (docs/claims.md):" in out
    for cid in TEXTS["deepspeed.reduce_bucket_size"].claims:
        assert f"{cid} ({CLAIMS[cid].evidence})" in out


@pytest.mark.parametrize("preset", ["fsdp2-full-shard-bf16", "zero3-cpu-offload"])
def test_plain_launch_without_a_gpu_refuses_and_points_to_the_rehearsal(tmp_path, capsys, monkeypatch, preset):
    """Issue 21, item 5: a plain --launch where no GPU is found said nothing and ran every rank on the CPU. It is
    refused before anything is written (exit 2), saying why and what to run instead. CUDA_VISIBLE_DEVICES="" hides
    every GPU the way CUDA reads it, so the test holds on a machine with GPUs too."""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    out = tmp_path / "out"
    assert main(["--headless", preset, "--out", str(out), "--launch", "--", "--steps", "2"]) == 2
    err = capsys.readouterr().err
    assert "no GPU found on this machine" in err and "8 processes" in err
    assert "add --rehearse" in err and "add --allow-no-gpu" in err
    assert not out.exists()  # nothing written, no run folder
    assert main(["--headless", preset, "--out", str(out), "--allow-no-gpu"]) == 2
    assert "--allow-no-gpu goes with --launch" in capsys.readouterr().err
    assert main(["check", "x.yaml", "--allow-no-gpu"]) == 2  # the wizard's own flag, not a command's
