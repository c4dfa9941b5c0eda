"""ruff and mypy, as the test command runs them, over the parts of ``wizard/`` that are clean.

Both read their configuration from ``pyproject.toml`` (``[tool.ruff]``, ``[tool.mypy]``): ruff's rule set, mypy's
``None`` checks. Of ``wizard/core``, the modules being restructured are not clean yet (ds_schema, lint.base,
lint.fsdp, lint.keys; the mypy override in ``pyproject.toml`` names them); once they are, :data:`CLEAN` becomes
``["wizard"]`` and that override goes. mypy keeps its cache in
``.mypy_cache`` (about 5 s cold, well under a second warm).
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

CLEAN = [
    "wizard/tui",
    "wizard/run",
    "wizard/commands",
    "wizard/cli.py",
    "wizard/exits.py",
    "wizard/presets.py",
    "wizard/versions.py",
    "wizard/runtime.py",
    "wizard/__main__.py",
    # wizard/core, but for the modules the mypy override in pyproject.toml still excludes
    "wizard/core/__init__.py",
    "wizard/core/answers.py",
    "wizard/core/answer_rules.py",
    "wizard/core/findings.py",
    "wizard/core/rules.py",
    "wizard/core/wizard_rules.py",
    "wizard/core/texts.py",
    "wizard/core/loading.py",
    "wizard/core/files.py",
    "wizard/core/gpus.py",
    "wizard/core/imported.py",
    "wizard/core/keymap.py",
    "wizard/core/rules_doc.py",
    "wizard/core/schema.py",
    "wizard/core/verify.py",
    "wizard/core/verify_keys.py",
    "wizard/core/lint/__init__.py",
    "wizard/core/lint/linter.py",
    "wizard/core/lint/general.py",
    "wizard/core/lint/ds.py",
    "wizard/core/lint/dsjson.py",
    "wizard/core/lint/dszero.py",
    "wizard/core/lint/configfile.py",
    "wizard/core/vocab.py",
    "wizard/core/catalog",
    "wizard/core/render.py",
    "wizard/core/importer.py",
    "wizard/core/verify_answers.py",
    "wizard/core/generate.py",
]


def _check(tool: str, args: list[str], cwd: Path) -> None:
    """Run ``python -m TOOL ARGS`` in the repository; fail with its output unless it exits 0."""
    if importlib.util.find_spec(tool) is None:
        pytest.skip(f"{tool} is not installed (it comes with the test extra: pip install -e '.[test]')")
    proc = subprocess.run([sys.executable, "-m", tool, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0:
        pytest.fail(f"{tool} {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}", pytrace=False)


def test_ruff_clean(pytestconfig: pytest.Config) -> None:
    _check("ruff", ["check", "--no-fix", "--output-format", "concise", *CLEAN], pytestconfig.rootpath)


def test_mypy_clean(pytestconfig: pytest.Config) -> None:
    _check("mypy", CLEAN, pytestconfig.rootpath)
