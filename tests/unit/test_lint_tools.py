"""ruff over the package, the tests, the benchmarks and the scripts; mypy over the package; as the test command runs
them.

Both read their configuration from ``pyproject.toml`` (``[tool.ruff]``, ``[tool.mypy]``): ruff's rule set, mypy's
``None`` checks, no module excluded. mypy keeps its cache in ``.mypy_cache`` (about 5 s cold, well under a second
warm).
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

CLEAN = ["wizard"]
"""Every module of the package: ruff and mypy are clean on all of it (issue 8)."""
RUFF_CLEAN = [*CLEAN, "tests", "benchmarks", "scripts"]
"""ruff also holds the tests, the benchmarks and the scripts to the same rules (issue 19)."""


def _check(tool: str, args: list[str], cwd: Path) -> None:
    """Run ``python -m TOOL ARGS`` in the repository; fail with its output unless it exits 0."""
    if importlib.util.find_spec(tool) is None:
        pytest.skip(f"{tool} is not installed (it comes with the test extra: pip install -e '.[test]')")
    proc = subprocess.run([sys.executable, "-m", tool, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0:
        pytest.fail(f"{tool} {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}", pytrace=False)


def test_ruff_clean(pytestconfig: pytest.Config) -> None:
    _check("ruff", ["check", "--no-fix", "--output-format", "concise", *RUFF_CLEAN], pytestconfig.rootpath)


def test_mypy_clean(pytestconfig: pytest.Config) -> None:
    _check("mypy", CLEAN, pytestconfig.rootpath)
