"""What every test folder shares: the DeepSpeed ops cache and the fixtures several folders use.

Fixtures used by one folder stay in that folder's conftest; helpers that are not fixtures are in tests/helpers.py.
"""
import os

import pytest
from helpers import EXTENSIONS

pytest_plugins = ["claims_plugin", "tiers"]  # tests/claims_plugin.py: a failing claim names what to revisit;
# tests/tiers.py: the fast tier, and which tests run apart under pytest-xdist

os.environ.setdefault("TORCH_EXTENSIONS_DIR", EXTENSIONS)  # every child process (ranks, runs) shares one ops cache
for _name in ("LC_ALL", "LC_MESSAGES"):  # the wizard speaks the locale's language: tests run in English unless
    os.environ.pop(_name, None)          # they ask for another (tests/unit/test_i18n.py)
os.environ["LANG"] = "C.UTF-8"


@pytest.fixture(autouse=True)
def _no_debug_env(monkeypatch):
    monkeypatch.delenv("FSDPDS_DEBUG", raising=False)


@pytest.fixture(autouse=True)
def _english_again():
    """A test that chose a language (``--lang``, the TUI's switch) leaves the next one in the locale's."""
    yield
    import sys

    i18n = sys.modules.get("wizard.core.i18n")
    if i18n is not None:
        i18n.reset()


@pytest.fixture(scope="session")
def deepspeed_ops():
    """DeepSpeed's CPU ops (shared-memory comm, CPU Adam), built once into TORCH_EXTENSIONS_DIR in one process before
    any rank needs them (60-100 s each on 2 cores when missing; a file check when present). Returns the seconds it
    took (tests/tiers.py usually built them before the session)."""
    from tiers import ensure_deepspeed_ops  # imported here, after pytest registered (and rewrote) the plugin

    return ensure_deepspeed_ops()


@pytest.fixture
def clean_env(monkeypatch):
    """accelerate's launcher variables (ACCELERATE_*, FSDP_*, PARALLELISM_CONFIG_*) removed from this process's
    environment for the test; returns ``monkeypatch`` to set others."""
    for key in list(os.environ):
        if key.startswith(("ACCELERATE_", "FSDP_", "PARALLELISM_CONFIG_")):
            monkeypatch.delenv(key)
    return monkeypatch


@pytest.fixture
def fresh_state(clean_env):
    """A clean environment (``clean_env``) and accelerate's process state reset before and after the test; returns
    ``monkeypatch``."""
    from accelerate.state import AcceleratorState, PartialState

    AcceleratorState._reset_state(True)
    PartialState._reset_state()
    yield clean_env
    AcceleratorState._reset_state(True)
    PartialState._reset_state()


@pytest.fixture
def victim(tmp_path):
    """A file of someone else, outside the output folder: no write may touch it."""
    p = tmp_path / "elsewhere" / "victim.txt"
    p.parent.mkdir()
    p.write_text("the victim's own words\n")
    return p
