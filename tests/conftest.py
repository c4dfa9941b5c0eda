import pytest


@pytest.fixture(autouse=True)
def _no_debug_env(monkeypatch):
    monkeypatch.delenv("FSDPDS_DEBUG", raising=False)
