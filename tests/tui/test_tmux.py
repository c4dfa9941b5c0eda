"""The wizard driven through tmux as a new user would (benchmarks/tui_tmux.py), at 80x24."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from helpers import ROOT


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_tmux_session_makes_both_configs(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "tui_tmux.py"), "--size", "80x24",
                           "--save", str(tmp_path)], capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS" in proc.stdout
    screens = sorted(p.name for p in (tmp_path / "80x24").iterdir())
    assert any("switch_report_to_FSDP2" in s for s in screens)
