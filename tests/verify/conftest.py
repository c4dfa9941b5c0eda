"""Fixtures for the round-trip tests: data folder and a process-state guard around every test."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture
def data_dir() -> Path:
    return DATA


def _accelerate_states() -> list[dict] | None:
    mod = sys.modules.get("accelerate.state")
    if mod is None:
        return None
    return [dict(getattr(mod, n)._shared_state) for n in ("PartialState", "AcceleratorState", "GradientState")]


def _environ() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTEST_CURRENT_TEST", None)  # pytest itself changes it between setup and teardown
    return env


@pytest.fixture
def process_state_unchanged():
    """Asserts after the test that os.environ, sys.argv, cwd and accelerate's singletons are as before.

    Used by test_verify.py for every test (``pytest.mark.usefixtures``)."""
    env = _environ()
    argv = list(sys.argv)
    cwd = os.getcwd()
    states = _accelerate_states()
    yield
    assert _environ() == env, "os.environ was modified"
    assert sys.argv == argv, "sys.argv was modified"
    assert os.getcwd() == cwd, "cwd was modified"
    after = _accelerate_states()
    if states is not None or after is not None:
        assert after == (states or [{}, {}, {}]), "accelerate singleton state was modified"
