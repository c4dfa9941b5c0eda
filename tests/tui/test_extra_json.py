"""The Extra DeepSpeed JSON after an import (issue 21, item 12): the keys that have a field are in their fields, the
rest shows from its first line, is edited over several lines, and an edit that drops what the imported file said is
applied only after a diff and a yes."""
from __future__ import annotations

import json

import pytest
from helpers import focused_on, main_of, press

from wizard.tui.app import create_app
from wizard.tui.shared.session import from_accelerate_config

SIZE = (80, 24)
OPTIMIZER = {"type": "AdamW", "params": {"lr": 3e-05, "weight_decay": 0.01}}
DS_JSON = {"train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
           "bf16": {"enabled": True}, "optimizer": OPTIMIZER,
           "zero_optimization": {"stage": 2, "overlap_comm": True, "contiguous_gradients": True,
                                 "reduce_bucket_size": 5e8, "allgather_bucket_size": 5e8,
                                 "round_robin_gradients": True}}
ACCELERATE_YAML = """compute_environment: LOCAL_MACHINE
distributed_type: DEEPSPEED
deepspeed_config:
  deepspeed_config_file: ds.json
  zero3_init_flag: false
num_machines: 1
num_processes: 2
machine_rank: 0
"""
LEFT = {"zero_optimization": {"round_robin_gradients": True}}


def imported(folder):
    (folder / "ds.json").write_text(json.dumps(DS_JSON, indent=2))
    (folder / "accelerate.yaml").write_text(ACCELERATE_YAML)
    return from_accelerate_config(folder / "accelerate.yaml")


def on(app, screen: str) -> bool:
    """The screen on top is ``screen`` (by class name: JsonEditor, DropConfirm)."""
    return type(app.screen).__name__ == screen


async def open_editor(pilot):
    from textual.widgets import TextArea

    field = await focused_on(pilot, "deepspeed.extra")
    await press(pilot, "enter")
    assert on(pilot.app, "JsonEditor"), f"Enter on the field opened no editor: {pilot.app.screen}"
    return field, pilot.app.screen.query_one(TextArea)


@pytest.mark.asyncio
async def test_imported_extra_json_keeps_known_keys_in_their_fields_and_asks_before_dropping_the_optimizer(in_tmp):
    app = create_app(imported(in_tmp), out=str(in_tmp / "out"))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await pilot.pause()
        a = main.answers
        assert (a["deepspeed.overlap_comm"], a["deepspeed.contiguous_gradients"], a["deepspeed.reduce_bucket_size"],
                a["deepspeed.allgather_bucket_size"]) == (True, True, 500_000_000, 500_000_000)
        assert a["deepspeed.extra"] == {"optimizer": OPTIMIZER, **LEFT}
        field, area = await open_editor(pilot)
        shown = str(field.control.render())
        assert shown.startswith("{") and '"optimizer"' in shown  # from the first line, not the tail
        assert json.loads(area.text) == {"optimizer": OPTIMIZER, **LEFT}  # several lines, indented
        assert len(area.text.splitlines()) > 5
        area.load_text(json.dumps(LEFT))  # what a user does by deleting the optimizer block
        await press(pilot, "ctrl+s")
        assert on(app, "DropConfirm")
        message = str(app.screen.query_one("#drop-message").render())
        assert "optimizer" in message
        assert '-  "optimizer": {' in app.screen.diff_text
        await press(pilot, "n")  # back to the editor, nothing applied
        assert on(app, "JsonEditor") and json.loads(area.text) == LEFT
        assert main.answers["deepspeed.extra"] == {"optimizer": OPTIMIZER, **LEFT}
        await press(pilot, "ctrl+s", "y")
        assert app.screen is main
        assert main.answers["deepspeed.extra"] == LEFT
        assert "optimizer" not in str(field.control.render())


@pytest.mark.asyncio
async def test_an_edit_that_drops_nothing_applies_at_once_and_escape_cancels(in_tmp):
    app = create_app(imported(in_tmp), out=str(in_tmp / "out"))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await pilot.pause()
        _field, area = await open_editor(pilot)
        grown = {"optimizer": {**OPTIMIZER, "params": {**OPTIMIZER["params"], "lr": 1e-4}}, **LEFT,
                 "wall_clock_breakdown": True}
        area.load_text(json.dumps(grown, indent=4))
        await press(pilot, "ctrl+s")
        assert app.screen is main and main.answers["deepspeed.extra"] == grown  # a value changed, none dropped
        _field, area = await open_editor(pilot)
        area.load_text("{}")
        await press(pilot, "escape")
        assert app.screen is main and main.answers["deepspeed.extra"] == grown


@pytest.mark.asyncio
async def test_a_key_with_its_own_setting_typed_into_the_editor_goes_to_that_setting(in_tmp):
    from helpers import field_of

    app = create_app(imported(in_tmp), out=str(in_tmp / "out"))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await pilot.pause()
        field, area = await open_editor(pilot)
        typed = {"optimizer": OPTIMIZER, "zero_optimization": {"overlap_comm": False, "round_robin_gradients": True}}
        area.load_text(json.dumps(typed))
        await press(pilot, "ctrl+s")
        assert app.screen is main
        assert main.answers["deepspeed.overlap_comm"] is False  # in its field, not left to override it unseen
        assert main.answers["deepspeed.extra"] == {"optimizer": OPTIMIZER, **LEFT}
        assert field_of(main, "deepspeed.overlap_comm").control.value is False
        assert "overlap_comm" not in str(field.control.render())


@pytest.mark.asyncio
async def test_launch_keys_typed_into_the_editor_go_to_the_launch_answers(in_tmp):
    """Pasting an axolotl-style JSON (top-level num_processes) into the editor: the key is a launch answer, as on
    the import of a DeepSpeed JSON alone, not a DeepSpeed key the written JSON would carry."""
    app = create_app(imported(in_tmp), out=str(in_tmp / "out"))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await pilot.pause()
        _field, area = await open_editor(pilot)
        area.load_text(json.dumps({"optimizer": OPTIMIZER, **LEFT, "num_processes": 8}))
        await press(pilot, "ctrl+s")
        assert app.screen is main
        assert main.answers["launch.num_processes"] == 8
        assert main.answers["deepspeed.extra"] == {"optimizer": OPTIMIZER, **LEFT}
        assert "num_processes" not in main.generated.files["ds_config.json"]
        assert "num_processes: 8" in main.generated.files["accelerate_config.yaml"]


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
async def test_the_editor_and_the_drop_question_in_the_language(in_tmp, lang):
    """Issue 27: the field's "more lines", the editor's help and buttons, a value it cannot apply, and the question
    before an edit drops keys, in the wizard's language; the keys and the JSON as written."""
    from textual.widgets import Button

    from wizard.core import i18n
    from wizard.core.localized import ui

    i18n.set_language(lang)
    try:
        app = create_app(imported(in_tmp), out=str(in_tmp / "out"))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            field, area = await open_editor(pilot)
            more = str(field.control.render()).splitlines()[-1]  # 12 lines shown from the first 5
            assert more == ui("json_more", count=7) and "more lines" not in more
            editor = app.screen
            assert str(editor.query_one("#json-help").render()) == ui("json_help")
            assert str(editor.query_one("#json-apply", Button).label) == ui("json_apply")
            area.load_text("{not json")
            await press(pilot, "ctrl+s")
            problem = str(editor.query_one("#json-error").render())
            assert problem.startswith("✖ " + ui("json_not_applied", problem="")) and "not applied" not in problem
            area.load_text(json.dumps(LEFT))
            await press(pilot, "ctrl+s")
            assert on(app, "DropConfirm")
            message = str(app.screen.query_one("#drop-message").render())
            assert message == ui("drop_message", keys="optimizer") and "Applying this edit" not in message
            assert app.screen.query_one(Button).label  # the buttons' words
            assert {str(b.label) for b in app.screen.query(Button)} == {ui("drop_yes"), ui("drop_no")}
            await press(pilot, "n", "escape")
    finally:
        i18n.reset()
