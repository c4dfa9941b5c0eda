"""Configs that travel (issue 13): --headless writes the DeepSpeed JSON's path relative to the launch folder, says
where to launch from, replays byte-identically after the folder moved, and check tells the truth about it."""
import shutil
from pathlib import Path

import yaml

from wizard.cli import main

NVME = "zero3-nvme-offload"  # a preset that writes a DeepSpeed JSON


def ds_ref(out: Path) -> str:
    return yaml.safe_load((out / "accelerate_config.yaml").read_text())["deepspeed_config"]["deepspeed_config_file"]


def test_output_inside_the_current_folder_is_written_relative_and_says_launch_from(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["--headless", NVME, "--out", "out"]) == 0
    assert ds_ref(tmp_path / "out") == "out/ds_config.json"
    out = capsys.readouterr().out
    assert f"launch from {tmp_path}: accelerate launch --config_file out/accelerate_config.yaml train.py\n" in out
    assert "--ds-config-path absolute" in out
    assert "launch with:" not in out


def test_ds_config_path_absolute(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["--headless", NVME, "--out", "out", "--ds-config-path", "absolute"]) == 0
    assert ds_ref(tmp_path / "out") == str(tmp_path / "out" / "ds_config.json")
    out = capsys.readouterr().out
    assert f"launch with: accelerate launch --config_file {tmp_path / 'out' / 'accelerate_config.yaml'}" in out
    assert "launch from" not in out


def test_output_outside_the_current_folder_stays_absolute(tmp_path, monkeypatch, capsys):
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    assert main(["--headless", NVME, "--out", str(tmp_path / "there")]) == 0
    assert ds_ref(tmp_path / "there") == str(tmp_path / "there" / "ds_config.json")
    assert "launch from" not in capsys.readouterr().out


def test_a_moved_folder_replays_byte_identically_and_checks_clean_from_its_root(tmp_path, monkeypatch, capsys):
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.chdir(repo)
    assert main(["--headless", NVME, "--out", "configs/z3"]) == 0
    written = {p.name: p.read_bytes() for p in (repo / "configs" / "z3").iterdir()}
    clone = tmp_path / "elsewhere" / "clone"
    shutil.copytree(repo, clone)
    shutil.rmtree(repo)
    monkeypatch.chdir(clone)
    capsys.readouterr()
    assert main(["--headless", "configs/z3/answers.yaml", "--out", "configs/z3"]) == 0
    out = capsys.readouterr().out
    assert out.count("unchanged ") == 3 and "wrote " not in out, out
    assert {p.name: p.read_bytes() for p in (clone / "configs" / "z3").iterdir()} == written
    assert main(["check", "configs/z3/accelerate_config.yaml", "--gpus-per-node", "8"]) == 0
    assert "0 error(s), 0 warning(s)" in capsys.readouterr().out


def test_check_from_another_folder_names_the_folder_to_launch_from(tmp_path, monkeypatch, capsys):
    (tmp_path / "repo").mkdir()
    monkeypatch.chdir(tmp_path / "repo")
    assert main(["--headless", NVME, "--out", "out"]) == 0
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["check", "repo/out/accelerate_config.yaml", "--gpus-per-node", "8"]) == 0  # a warning, not an error
    out = capsys.readouterr().out
    assert "WARNING [ds-config-file-not-from-here]" in out and f"Launch from {tmp_path / 'repo'}" in out


def test_ds_config_path_refuses_other_values(capsys):
    assert main(["--headless", NVME, "--out", "o", "--ds-config-path", "relative"]) == 2
    assert "invalid choice: 'relative'" in capsys.readouterr().err
