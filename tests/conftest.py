import os
import sys
import time
from pathlib import Path

import pytest

pytest_plugins = ["claims_plugin"]  # tests/claims_plugin.py: a failing claim test names what to revisit

STALE_LOCK_S = 30 * 60
"""torch's extension builder waits for ever on a ``lock`` file left by a build that was killed; a real build of a
DeepSpeed op takes 60-100 s here, so a lock older than this is stale."""


def pytest_sessionstart(session):
    """Remove stale build locks in the DeepSpeed ops cache (a killed run leaves them; every test that loads an op
    would then hang), saying which."""
    root = Path(os.environ.get("TORCH_EXTENSIONS_DIR")
                or Path.home() / ".cache" / "fsdpds-wizard" / "torch_extensions")
    now = time.time()
    for lock in root.glob("*/lock") if root.is_dir() else ():
        try:
            age = now - lock.stat().st_mtime
        except FileNotFoundError:
            continue
        if age > STALE_LOCK_S:
            lock.unlink(missing_ok=True)
            print(f"tests: removed a stale build lock ({age / 60:.0f} min old): {lock}", file=sys.stderr)


@pytest.fixture(autouse=True)
def _no_debug_env(monkeypatch):
    monkeypatch.delenv("FSDPDS_DEBUG", raising=False)
