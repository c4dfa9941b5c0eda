"""A transformers that accelerate 1.15's FSDP2 + tensor-parallel path runs with, for the rehearsal tests.

The project's environment has transformers 5.24 (constraints/verified.txt), with which accelerate's FSDP2 + TP
prepare() stops at an ImportError (rule parallelism-fsdp2-tp-transformers). The fix that rule gives a user is to train
with transformers 5.0.x; these tests follow it: :func:`tp_overlay` installs the pins of
constraints/transformers-tp.txt with ``pip --no-deps --target`` into a cache folder (once, about 10 s), and a test
puts that folder first on ``PYTHONPATH`` of the processes it starts. Nothing in the project's own environment
changes. It fails, never skips, when pip cannot install them (the machine must reach PyPI, as ``make`` does)."""
from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
from pathlib import Path

from helpers import ROOT

PINS = ROOT / "constraints" / "transformers-tp.txt"


def _folder() -> Path:
    digest = hashlib.sha256(PINS.read_bytes()).hexdigest()[:12]
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fsdpds-wizard" / "overlays"
    return base / f"transformers-tp-{digest}"


def tp_overlay() -> Path:
    """The overlay folder, installed if missing (safe under several test workers: a file lock)."""
    folder = _folder()
    done = folder / ".complete"
    if done.exists():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / (folder.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(folder),
                                   "-r", str(PINS)], capture_output=True, text=True, timeout=600)
            assert proc.returncode == 0, ("could not install the FSDP2 + TP overlay (constraints/transformers-tp.txt)",
                                          proc.stdout[-2000:], proc.stderr[-2000:])
            done.write_text("ok\n")
    return folder


def overlay_env(base: dict | None = None) -> dict:
    """``base`` (default: this process's environment) with the overlay first on PYTHONPATH."""
    env = dict(os.environ if base is None else base)
    parts = [str(tp_overlay())] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(parts)
    return env
