"""Fixtures for real launches: one cached wizard run per config.

Every DeepSpeed run loads two C++ ops that are JIT-compiled on first use (60-100 s each on 2 cores); they are built
once per machine into TORCH_EXTENSIONS_DIR (default here: ~/.cache/fsdpds-wizard/torch_extensions, the path CI
caches) before any test runs (tests/tiers.py) and by the root conftest's ``deepspeed_ops`` fixture otherwise.
"""
from __future__ import annotations

import subprocess
import time

import pytest
from e2e_support import CASES, RUN_TIMEOUT, STEPS, LaunchedRun, wizard_argv, write_answers
from helpers import ROOT


@pytest.fixture(scope="session")
def rehearsed(tmp_path_factory, request):
    """``rehearsed(case)`` -> the LaunchedRun of that config, launched once per session."""
    cache: dict[str, LaunchedRun] = {}
    folder = tmp_path_factory.mktemp("rehearsals")

    def get(case: str) -> LaunchedRun:
        if case not in cache:
            if CASES[case]["backend"] == "deepspeed":
                request.getfixturevalue("deepspeed_ops")
            answers = write_answers(folder, case, CASES[case])
            out = folder / f"out_{case}"
            t0 = time.monotonic()
            proc = subprocess.run(wizard_argv(answers, out, "--steps", str(STEPS)), cwd=ROOT, capture_output=True,
                                  text=True, timeout=RUN_TIMEOUT)
            cache[case] = LaunchedRun(proc, out, time.monotonic() - t0)
        return cache[case]

    return get
