"""Shared fixtures for the TUI tests."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run in an empty folder, so the default output folders (configs-<target>) land there."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
