"""The stored labels of the real-world corpus are the replay's, with the installed libraries (never hand-written).

Runs tests/data/real_corpus/_label.py --check in one subprocess (it imports transformers, accelerate, deepspeed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LABELLER = Path(__file__).resolve().parents[1] / "data" / "real_corpus" / "_label.py"


def test_stored_labels_equal_the_replay():
    out = subprocess.run([sys.executable, str(LABELLER), "--check"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, (out.stdout[-4000:] + out.stderr[-2000:])
    assert "0 differ from the replay" in out.stdout
