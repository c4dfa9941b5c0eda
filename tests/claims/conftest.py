"""Claim tests: each demonstrates one claim of wizard/core/claims/ with the installed libraries, on CPU.

Mark a test ``@pytest.mark.claim("claim-id")``. When it fails, the report says which claim no longer holds and
which texts, settings and rules state it (the hook in tests/claims_plugin.py, loaded by tests/conftest.py), so a
library upgrade that changes a behaviour points straight at the explanations to correct.
"""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _accelerate_state_left_clean():
    """A claim test may build accelerate's process state in this process (AcceleratorState, an Accelerator); it is
    reset afterwards, so no later test (tests/verify checks the singletons are untouched) inherits it."""
    yield
    import sys

    if "accelerate.state" in sys.modules:
        from accelerate.state import AcceleratorState, GradientState, PartialState

        AcceleratorState._reset_state(True)
        GradientState._reset_state()
        PartialState._reset_state()
