from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "templates"


def preset_files():
    return sorted(TEMPLATES.glob("*.yaml"))


@pytest.fixture
def presets():
    return {p.stem: p for p in preset_files()}


@pytest.fixture(autouse=True)
def _no_debug_env(monkeypatch):
    monkeypatch.delenv("FSDPDS_DEBUG", raising=False)
