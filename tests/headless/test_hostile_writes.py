"""The commands that write (--headless, convert, recommend --write) against a hostile output folder (issue 22,
items 5, 12 and 13): a link planted at NAME.bak is never written through, a second --force keeps the first
backup, a full disk leaves nothing behind. docs/security.md (section i22-files) names these tests."""
from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from wizard.cli import main

L8 = ["--model", "llama-3.1-8b", "--gpus-per-node", "8", "--gpu-memory", "80"]


def _plant(bak: Path, victim: Path, how: str) -> None:
    if how == "symlink":
        bak.symlink_to(victim)
    else:
        os.link(victim, bak)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp") or ".bak" in p.name)


@pytest.mark.parametrize("how", ["symlink", "hard link"])
def test_headless_force_never_writes_through_a_planted_backup(tmp_path, capsys, victim, how):
    out = tmp_path / "out"
    out.mkdir()
    (out / "accelerate_config.yaml").write_text("# my edits\n")
    _plant(out / "accelerate_config.yaml.bak", victim, how)
    assert main(["--headless", "zero2", "--out", str(out), "--force"]) == 0
    assert victim.read_text() == "the victim's own words\n"
    assert (out / "accelerate_config.yaml.1.bak").read_text() == "# my edits\n"
    assert f"kept the previous version as {out / 'accelerate_config.yaml.1.bak'}" in capsys.readouterr().out


@pytest.mark.parametrize("how", ["symlink", "hard link"])
def test_convert_force_never_writes_through_a_planted_backup(tmp_path, capsys, victim, how):
    assert main(["--headless", "zero2", "--out", str(tmp_path / "src")]) == 0
    out = tmp_path / "out"
    out.mkdir()
    (out / "accelerate_config.yaml").write_text("mine: true\n")
    _plant(out / "accelerate_config.yaml.bak", victim, how)
    src = tmp_path / "src" / "accelerate_config.yaml"
    assert main(["convert", str(src), "--to", "fsdp", "--out", str(out), "--force"]) == 0
    assert victim.read_text() == "the victim's own words\n"
    assert (out / "accelerate_config.yaml.1.bak").read_text() == "mine: true\n"
    assert "accelerate_config.yaml.1.bak" in capsys.readouterr().out


@pytest.mark.parametrize("how", ["symlink", "hard link"])
def test_recommend_write_force_never_writes_through_a_planted_backup(tmp_path, capsys, victim, how):
    target = tmp_path / "mine.yaml"
    target.write_text("backend: fsdp\n")
    _plant(tmp_path / "mine.yaml.bak", victim, how)
    assert main(["recommend", *L8, "--write", str(target), "--force"]) == 0
    assert victim.read_text() == "the victim's own words\n"
    assert (tmp_path / "mine.yaml.1.bak").read_text() == "backend: fsdp\n"
    assert f"kept the previous version as {tmp_path / 'mine.yaml.1.bak'}" in capsys.readouterr().out


def test_a_second_force_keeps_the_hand_written_original(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    cfg = out / "accelerate_config.yaml"
    cfg.write_text("# written by hand\n")
    assert main(["--headless", "zero2", "--out", str(out), "--force"]) == 0
    cfg.write_text("# edited after the first --force\n")
    assert main(["--headless", "zero3-nvme-offload", "--out", str(out), "--force"]) == 0
    assert (out / "accelerate_config.yaml.bak").read_text() == "# written by hand\n"
    assert (out / "accelerate_config.yaml.1.bak").read_text() == "# edited after the first --force\n"
    assert f"kept the previous version as {out / 'accelerate_config.yaml.1.bak'}" in capsys.readouterr().out


def test_a_full_disk_during_the_backup_is_one_line_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    (out / "accelerate_config.yaml").write_text("# my edits\n")

    def link(src, dst, *a, **kw):  # the folder cannot grow: no new name fits
        raise OSError(errno.ENOSPC, "No space left on device", str(dst))

    monkeypatch.setattr(os, "link", link)
    assert main(["--headless", "zero2", "--out", str(out), "--force"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "cannot write to" in err and "No space left on device" in err
    assert _leftovers(out) == [] and sorted(p.name for p in out.iterdir()) == ["accelerate_config.yaml"]
    assert (out / "accelerate_config.yaml").read_text() == "# my edits\n"
