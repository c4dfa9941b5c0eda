"""Fixtures for real launches: DeepSpeed's JIT ops built once, and one cached wizard run per config.

Every DeepSpeed run JIT-compiles two C++ ops on first use (60-100 s each on 2 cores). They are built
once per machine into TORCH_EXTENSIONS_DIR (default here: ~/.cache/fsdpds-wizard/torch_extensions,
the path CI caches) by the session fixture ``deepspeed_ops``, in one process, before any rank needs them.
"""
from __future__ import annotations

import subprocess
import time

import pytest
from e2e_support import CASES, RUN_TIMEOUT, STEPS, LaunchedRun, wizard_argv, write_answers
from helpers import ROOT


@pytest.fixture(scope="session")
def deepspeed_ops():
    """Build DeepSpeed's CPU ops once (a no-op when TORCH_EXTENSIONS_DIR already has them)."""
    from wizard.run.rehearse import prewarm_deepspeed_ops

    t0 = time.monotonic()
    proc = prewarm_deepspeed_ops(timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return time.monotonic() - t0


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
