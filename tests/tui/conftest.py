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


async def press(pilot, *keys):
    """Press keys one by one, letting the app settle after each."""
    for key in keys:
        await pilot.press(key)
        await pilot.pause()


def main_of(app):
    """The wizard's main screen, wherever it sits in the screen stack."""
    from wizard.tui.screens.main import MainScreen

    return next(s for s in app.screen_stack if isinstance(s, MainScreen))
