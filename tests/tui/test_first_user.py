"""Pilot tests for the rough edges a first user hit in the TUI (issue 7): each failed before its fix."""
from __future__ import annotations

import pytest
from textual.widgets import Input

from wizard.core.answers import default_answers
from wizard.core.catalog import SETTING_BY_ID
from wizard.tui.app import create_app
from wizard.tui.present import text_to_value, value_to_text
from wizard.tui.session import Start
from wizard.tui.widgets.fields import SettingField, field_id

from .conftest import main_of, press

SIZE = (80, 24)


def field_of(main, setting_id: str) -> SettingField:
    return main.query_one(f"#{field_id(setting_id)}", SettingField)


# ---------------------------------------------------------------- script arguments as a command line


def test_script_arguments_round_trip_with_shell_quoting():
    s = SETTING_BY_ID["launch.script_args"]
    assert text_to_value(s, "--steps 3000 --name 'my run'") == (["--steps", "3000", "--name", "my run"], None)
    assert value_to_text(s, ["--steps", "3000", "--name", "my run"]) == "--steps 3000 --name 'my run'"
    value, problem = text_to_value(s, "--name 'unclosed")
    assert value is None and "quotation" in problem
    assert text_to_value(s, "") == ([], None)


@pytest.mark.asyncio
async def test_script_arguments_field_gives_separate_tokens():
    app = create_app(Start(default_answers()))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await main.jump_to("launch.script_args")
        await pilot.pause()
        field = field_of(main, "launch.script_args")
        control = field.control
        assert isinstance(control, Input) and "separated by commas" not in control.placeholder
        control.value = "--steps 3000 --name 'my run'"
        await pilot.pause()
        assert main.answers["launch.script_args"] == ["--steps", "3000", "--name", "my run"]
        control.value = "--steps 3000 --name 'oops"
        await pilot.pause()
        assert field.has_class("-invalid")  # shown in the field, no crash, answers keep the last good value
        assert "quotation" in str(field.query_one(".invalid").render())
        assert main.answers["launch.script_args"] == ["--steps", "3000", "--name", "my run"]


# ---------------------------------------------------------------- fast typing


def burst(app, *keys: str) -> None:
    """Queue key events all at once, the way a terminal read hands over a fast burst of typing."""
    from textual import events

    for key in keys:
        event = events.Key(key, key if len(key) == 1 else None)
        event.set_sender(app)
        app._driver.send_message(event)


@pytest.mark.asyncio
async def test_fast_typing_in_a_number_field_loses_no_keystroke():
    app = create_app(Start(default_answers()))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await press(pilot, "down", "enter")  # Launch basics -> processes
        assert isinstance(app.focused, Input)
        # one burst, as a terminal delivers fast typing: every key is queued before the first is handled
        # (pilot.press waits for idle after each key, which hides the race)
        burst(app, "1", "6", "0", "backspace", "backspace", "backspace", "8")
        await pilot.pause()
        await pilot.pause()
        assert app.focused.value == "8"
        assert main.answers["launch.num_processes"] == 8


# ---------------------------------------------------------------- the palette finds settings


def focused_setting(app) -> str | None:
    node = app.focused
    field = next((n for n in node.ancestors_with_self if isinstance(n, SettingField)), None) if node else None
    return field.setting.id if field else None


def test_palette_search_finds_settings_by_native_names():
    from wizard.tui.commands import search_settings

    assert search_settings("dynamo")[0][1].setting_id.startswith("launch.dynamo_")
    assert search_settings("torch.compile")[0][1].setting_id == "launch.dynamo_backend"
    assert search_settings("fsdp_offload_params")[0][1].setting_id in ("offload.optimizer", "offload.params")
    assert search_settings("stage3_prefetch_bucket_size")[0][1].setting_id == "prefetch.ds_bucket_size"
    assert {e.setting_id for _, e in search_settings("zero3_init_flag")} == {"loading.ram_efficient"}
    assert not search_settings("no such thing at all")


@pytest.mark.asyncio
async def test_palette_jumps_to_a_setting():
    app = create_app(Start(default_answers()))
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "ctrl+p")
        await press(pilot, *"dynamo")
        await pilot.pause(0.5)
        await press(pilot, "enter")
        await pilot.pause(0.2)
        assert focused_setting(app) == "launch.dynamo_backend"
