"""The open dialogs and the start flags speak with the shared voice of wizard.core.inputs."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from helpers import ANSWERS_MAPPING_FIX, BINARY_FIX, CONFIG_MAPPING_FIX, deep_yaml, main_of, press
from textual.widgets import Input, Static

from wizard.tui import app as app_module
from wizard.tui.app import create_app
from wizard.tui.screens.main import MainScreen
from wizard.tui.screens.open_file import OpenFileScreen

SIZE = (80, 24)


def bad_files(tmp_path):
    png = tmp_path / "picture.yaml"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    lst = tmp_path / "list.yaml"
    lst.write_text("- backend: fsdp\n")
    deep = tmp_path / "deep.yaml"
    deep.write_text(deep_yaml(100))
    return {
        "binary": (png, f"{png}: not UTF-8 text (byte 0 is 0x89); {BINARY_FIX}", None),
        "missing": (tmp_path / "missing.yaml", f"{tmp_path / 'missing.yaml'}: not found; ", None),
        "list": (lst, f"{lst}: the top level is a list, not a mapping of keys; ",
                 (ANSWERS_MAPPING_FIX, CONFIG_MAPPING_FIX)),
        "deep": (deep, f"{deep}: nested more than 64 levels deep (line 65); a config is at most a few levels deep",
                 None),
    }


async def open_dialog(app, pilot, kind):
    app._open(kind)
    await pilot.pause()
    assert isinstance(app.screen, OpenFileScreen)
    return app.screen


async def submit(pilot, screen, path):
    screen.query_one("#path", Input).value = str(path)
    screen.query_one("#path", Input).focus()
    await press(pilot, "enter")


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["answers", "config"])
@pytest.mark.parametrize("case", ["binary", "missing", "list", "deep"])
async def test_open_dialog_shows_the_shared_message_and_stays_open(tmp_path, kind, case):
    path, expected, fixes = bad_files(tmp_path)[case]
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        before = main_of(app).answers
        screen = await open_dialog(app, pilot, kind)
        await submit(pilot, screen, path)
        assert app.screen is screen, "the dialog stays open so the path can be fixed"
        assert screen.error.startswith(expected)
        if fixes:
            assert screen.error.endswith(fixes[0] if kind == "answers" else fixes[1])
        assert "codec" not in screen.error and "templates/" not in screen.error
        box = screen.query_one("#open-error", Static)
        assert box.display and box.region.height >= 1, "the message is visible at 80x24"
        assert main_of(app).answers == before
        await press(pilot, "escape")
        assert isinstance(app.screen, MainScreen)


@pytest.mark.asyncio
async def test_open_dialog_lists_the_findings_of_wrong_answers_then_loads_a_good_file(tmp_path):
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text("backend: deepspeed\nsharding:\n  stratgy: full\n")
    good = tmp_path / "good.yaml"
    good.write_text("backend: deepspeed\nsharding:\n  strategy: full\n")
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_dialog(app, pilot, "answers")
        await submit(pilot, screen, wrong)
        assert app.screen is screen
        assert screen.error == f"{wrong}: invalid answers\n• unknown key 'sharding.stratgy' — did you mean 'strategy'?"
        await submit(pilot, screen, good)
        assert isinstance(app.screen, MainScreen)
        assert main_of(app).answers.backend == "deepspeed" and main_of(app).start.source == "good.yaml"


@pytest.mark.asyncio
async def test_open_dialog_through_the_palette(tmp_path):
    path, expected, _ = bad_files(tmp_path)["binary"]
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "ctrl+p")
        await pilot.pause(0.2)
        for ch in "Open answers":
            await pilot.press("space" if ch == " " else ch)
        await pilot.pause(0.5)
        await press(pilot, "enter")
        await pilot.pause(0.2)
        assert isinstance(app.screen, OpenFileScreen)
        for ch in str(path):
            await pilot.press(ch)
        await press(pilot, "enter")
        assert isinstance(app.screen, OpenFileScreen) and app.screen.error == expected


@pytest.mark.parametrize("flag", ["answers", "config"])
@pytest.mark.parametrize("case", ["binary", "missing", "list", "deep"])
def test_start_flags_print_the_same_line_and_exit_2(tmp_path, capsys, monkeypatch, flag, case):
    path, expected, _ = bad_files(tmp_path)[case]
    monkeypatch.setattr(app_module.WizardApp, "run", lambda self, *a, **k: pytest.fail("the wizard opened"))
    args = SimpleNamespace(**{"answers": None, "preset": None, "config": None, "out": None, flag: str(path)})
    assert app_module.run_app(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fsdpds-wizard: {expected}") and err.count("\n") == 1


def test_unknown_preset_is_worded_like_headless(capsys, monkeypatch):
    monkeypatch.setattr(app_module.WizardApp, "run", lambda self, *a, **k: pytest.fail("the wizard opened"))
    args = SimpleNamespace(answers=None, preset="zero-2", config=None, out=None)
    assert app_module.run_app(args) == 2
    assert capsys.readouterr().err == ("fsdpds-wizard: zero-2: not found; did you mean the preset 'zero2'? "
                                       "(`fsdpds-wizard presets` lists them)\n")


def test_a_missing_answers_file_points_to_presets_the_way_the_wizard_opens_them(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(app_module.WizardApp, "run", lambda self, *a, **k: pytest.fail("the wizard opened"))
    missing = tmp_path / "missing.yaml"
    args = SimpleNamespace(answers=str(missing), preset=None, config=None, out=None)
    assert app_module.run_app(args) == 2
    assert capsys.readouterr().err == (f"fsdpds-wizard: {missing}: not found; check the path (a preset opens with "
                                       "--preset NAME, or \"Load preset\" in the command palette; "
                                       "`fsdpds-wizard presets` lists them)\n")
