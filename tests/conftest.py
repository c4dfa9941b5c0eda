import pytest

pytest_plugins = ["claims_plugin"]  # tests/claims_plugin.py: a failing claim test names what to revisit


@pytest.fixture(autouse=True)
def _no_debug_env(monkeypatch):
    monkeypatch.delenv("FSDPDS_DEBUG", raising=False)
