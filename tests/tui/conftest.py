"""Fixtures for the TUI tests (their helpers are in tests/helpers.py)."""
from __future__ import annotations

import pytest


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run in an empty folder, so the default output folders (configs-<target>) land there."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
