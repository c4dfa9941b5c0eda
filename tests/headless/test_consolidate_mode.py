"""``consolidate`` writes ``model.safetensors`` with the mode every other output gets (issue 21, item 27).

safetensors writes its files 0600 whatever the umask; the configs, answers and run records follow the umask
(``wizard.core.files``). A full FSDP state dict (``pytorch_model_fsdp.bin``) goes through safetensors'
``save_file``, so it is the case that showed the difference.
"""
from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest
from helpers import ROOT

pytestmark = pytest.mark.real  # torch.save and safetensors for real (tests/tiers.py)


def _checkpoint(folder):
    import torch

    folder.mkdir()
    torch.save({"w": torch.arange(6, dtype=torch.float32).reshape(2, 3)}, folder / "pytorch_model_fsdp.bin")
    return folder


def _consolidate(umask: int, *args) -> subprocess.CompletedProcess:
    def child() -> None:
        os.umask(umask)

    return subprocess.run([sys.executable, "-m", "wizard", "consolidate", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, preexec_fn=child)


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_consolidated_file_follows_the_umask(tmp_path, umask):
    ckpt = _checkpoint(tmp_path / "step-000002")
    out = tmp_path / "consolidated"
    proc = _consolidate(umask, ckpt, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert _mode(out / "model.safetensors") == 0o666 & ~umask
    assert _mode(out) == 0o777 & ~umask


def test_replaced_file_keeps_its_mode(tmp_path):
    ckpt = _checkpoint(tmp_path / "step-000002")
    out = tmp_path / "consolidated"
    assert _consolidate(0o022, ckpt, "--out", out).returncode == 0
    (out / "model.safetensors").chmod(0o640)
    proc = _consolidate(0o022, ckpt, "--out", out, "--force")
    assert proc.returncode == 0, proc.stderr
    assert _mode(out / "model.safetensors") == 0o640
