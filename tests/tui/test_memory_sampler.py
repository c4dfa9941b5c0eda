"""The run screen's per-rank memory: a compiler a rank starts to JIT-build an op (it inherits the rank's RANK) is
not counted as the rank's memory (journeys re-walk, N11: the first rehearsal showed 3-4 GiB per rank for ranks of
0.4 GiB, because cc1plus was summed in)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import psutil

from wizard.tui.widgets.memory import MemorySampler

RANK = """import subprocess, sys, time
tool = subprocess.Popen([sys.argv[1], "30"])
held = bytearray(64 << 20)  # the rank's own 64 MiB
time.sleep(30)
"""
LAUNCHER = """import subprocess, sys
subprocess.Popen([sys.executable, sys.argv[1], sys.argv[2]]).wait()
"""


def test_a_compiler_started_by_a_rank_is_not_the_ranks_memory(tmp_path):
    tool = tmp_path / "cc1plus"  # a stand-in that shows up under the compiler's name
    shutil.copy(shutil.which("sleep"), tool)
    (tmp_path / "rank.py").write_text(RANK)
    (tmp_path / "launcher.py").write_text(LAUNCHER)
    env = dict(os.environ, RANK="0", LOCAL_RANK="0")
    launcher = subprocess.Popen([sys.executable, str(tmp_path / "launcher.py"), str(tmp_path / "rank.py"), str(tool)],
                                env=env)
    try:
        deadline = time.time() + 20
        while time.time() < deadline:
            names = {p.name() for p in psutil.Process(launcher.pid).children(recursive=True)}
            if "cc1plus" in names:
                break
            time.sleep(0.1)
        time.sleep(1.0)  # the rank has its 64 MiB
        tree = psutil.Process(launcher.pid).children(recursive=True)
        ranks = [p for p in tree if p.name() != "cc1plus"]
        compilers = [p for p in tree if p.name() == "cc1plus"]
        assert ranks and compilers
        [rank] = MemorySampler(launcher.pid).sample()
        own = sum(p.memory_info().rss for p in ranks)
        assert rank.label == "rank 0"
        assert abs(rank.rss - own) < (8 << 20)  # the rank's python, not the compiler's
        assert rank.rss < own + sum(p.memory_info().rss for p in compilers)
    finally:
        for p in psutil.Process(launcher.pid).children(recursive=True):
            p.kill()
        launcher.kill()
        launcher.wait()
