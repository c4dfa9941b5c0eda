"""ctrl+z / ctrl+y take back and redo changes of the answers (a field, a suggestion applied, a switch of target, a
load); ctrl+q asks first when changed answers are not written."""
from __future__ import annotations

import pytest
from helpers import focused_on, main_of, press
from helpers import main_ready as ready

from wizard.core.answers import default_answers
from wizard.tui.app import QUIT_DIALOG, create_app
from wizard.tui.screens.confirm import ConfirmScreen
from wizard.tui.screens.help import binding_rows
from wizard.tui.screens.main import MainScreen
from wizard.tui.shared.history import History
from wizard.tui.shared.session import MemoryContext, Start, memory_fields

SIZE = (80, 24)


async def close_switch_report(pilot):
    for _ in range(20):
        if type(pilot.app.screen).__name__ != "SwitchReportScreen":
            return
        await press(pilot, "escape")


def messages(app) -> list[str]:
    return [n.message for n in app._notifications]


# ---------------------------------------------------------------- the history itself


def test_edits_of_one_field_are_one_step_and_a_new_change_drops_the_redo():
    h: History[int] = History()
    h.record(0, "edit a", "a")
    h.record(1, "edit a", "a")  # typed digit by digit: joins the step
    h.record(12, "edit b", "b")
    assert h.undo(13).state == 12 and h.undo(12).state == 0
    assert h.undo(0) is None
    assert h.redo(0).state == 12
    h.record(12, "edit c", "c")
    assert not h.can_redo
    h.record(7, "edit c", "c")  # joins "edit c"
    assert h.undo(8).state == 12


# ---------------------------------------------------------------- the wizard


@pytest.mark.asyncio
async def test_undo_and_redo_a_typed_field(in_tmp):
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        main = main_of(app)
        before = main.answers
        await focused_on(pilot, "training.gradient_accumulation_steps")
        await press(pilot, "ctrl+shift+a", "backspace", "1", "6")
        assert main.answers["training.gradient_accumulation_steps"] == 16
        await press(pilot, "ctrl+z")  # the typing is one step
        assert main.answers == before
        assert any("Undone: the edit of training.gradient_accumulation_steps" in m for m in messages(app))
        await press(pilot, "ctrl+y")
        assert main.answers["training.gradient_accumulation_steps"] == 16
        await press(pilot, "ctrl+z", "ctrl+shift+z")
        assert main.answers["training.gradient_accumulation_steps"] == 16
        await press(pilot, "ctrl+z", "ctrl+z")
        assert main.answers == before and any("Nothing to undo" in m for m in messages(app))


@pytest.mark.asyncio
async def test_undo_a_switch_of_target_restores_every_answer(in_tmp):
    start = default_answers().replace({"offload.optimizer": "cpu", "launch.num_processes": 8})
    app = create_app(Start(start))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        main = main_of(app)
        await press(pilot, "ctrl+t")  # FSDP2 -> DeepSpeed
        await close_switch_report(pilot)
        assert main.answers.target == "deepspeed"
        await press(pilot, "ctrl+z")
        assert app.screen is main  # no switch report for an undo
        assert main.answers == start and main.answers.target == "fsdp2"
        assert "FSDP2" in str(main.query_one("#status").render())
        assert main.out == "configs-fsdp2"
        await press(pilot, "ctrl+y")
        assert main.answers.target == "deepspeed" and main.out == "configs-deepspeed"


@pytest.mark.asyncio
async def test_undo_an_applied_suggestion(in_tmp):
    answers = default_answers().replace({"sharding.strategy": "none", "launch.num_processes": 8})
    memory, errors = memory_fields({"model": "llama-3.1-8b", "gpu_memory": "40"})
    assert errors == {}
    app = create_app(Start(answers), memory=memory)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await press(pilot, "f3", "f4")
        assert app.screen.recommendation.chosen is not None
        await press(pilot, "enter")
        await close_switch_report(pilot)
        main = main_of(app)
        assert app.screen is main and main.answers != answers
        await press(pilot, "ctrl+z")
        assert main.answers == answers


@pytest.mark.asyncio
async def test_undo_a_load_restores_the_answers_and_the_start_file(in_tmp):
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        main = main_of(app)
        before, start = main.answers, main.start
        from wizard.tui.shared.session import from_preset

        main.load(from_preset("zero3-cpu-offload"))
        await pilot.pause()
        assert main.answers.target == "deepspeed"
        await press(pilot, "ctrl+z")
        assert main.answers == before and main.start is start


@pytest.mark.asyncio
async def test_quit_with_unwritten_changes_asks_first(in_tmp):
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        main = main_of(app)
        await focused_on(pilot, "training.gradient_accumulation_steps")
        await press(pilot, "ctrl+shift+a", "backspace", "4")
        await press(pilot, "ctrl+q")
        assert isinstance(app.screen, ConfirmScreen) and app.screen.id == QUIT_DIALOG
        assert "accelerate_config.yaml (new)" in str(app.screen.message)
        await press(pilot, "n")  # stay
        assert app.screen is main and app.is_running
        await press(pilot, "ctrl+q", "y")
        assert not app.is_running
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:  # ctrl+q twice quits too
        await ready(pilot)
        await press(pilot, "ctrl+t")
        await close_switch_report(pilot)
        await press(pilot, "ctrl+q", "ctrl+q")
        assert not app.is_running


@pytest.mark.asyncio
async def test_quit_asks_nothing_when_nothing_is_lost(in_tmp):
    app = create_app()  # unchanged answers
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await press(pilot, "ctrl+q")
        assert not app.is_running
    app = create_app()  # changed, then written
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await focused_on(pilot, "training.gradient_accumulation_steps")
        await press(pilot, "ctrl+shift+a", "backspace", "4")
        await press(pilot, "ctrl+r", "ctrl+s")
        assert (in_tmp / "configs-fsdp2" / "accelerate_config.yaml").exists()
        await press(pilot, "escape", "ctrl+q")
        assert not app.is_running
    app = create_app()  # changed, then undone
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await focused_on(pilot, "training.gradient_accumulation_steps")
        await press(pilot, "ctrl+shift+a", "backspace", "4", "ctrl+z", "ctrl+q")
        assert not app.is_running


def test_help_lists_undo_redo_and_what_quit_does():
    from wizard.tui.app import WizardApp

    rows = {(where, keys): what for where, keys, what in binding_rows(WizardApp)}
    assert "Undo" in rows[("Settings", "ctrl+z")] and "switch of target" in rows[("Settings", "ctrl+z")]
    assert "Redo" in rows[("Settings", "ctrl+y / ctrl+shift+z")]
    assert "asks first" in rows[("Everywhere", "ctrl+q")]
    assert MainScreen.BINDINGS  # the rows come from the bindings: the help cannot drift from them
    assert MemoryContext  # imported for the suggestion test's context


def test_ctrl_y_is_redo_on_every_screen_and_nothing_else():
    """N12: the review screen bound ctrl+y to "copy the launch command", while ctrl+y is redo; every row of F1's
    list with ctrl+y is redo, and the copy has a key of its own there."""
    from wizard.tui.app import WizardApp

    rows = binding_rows(WizardApp)
    with_y = [(where, what) for where, keys, what in rows if "ctrl+y" in keys.split(" / ")]
    assert with_y and all("Redo" in what for _, what in with_y), with_y
    (copy,) = [(where, keys) for where, keys, what in rows if "launch command" in what and "Copy" in what]
    assert copy[0] == "Review" and copy[1] != "ctrl+y"


@pytest.mark.asyncio
async def test_the_review_screens_copy_key_copies_the_launch_command(in_tmp):
    from wizard.tui.screens.review import ReviewScreen

    copy_key = next(b.key for b in ReviewScreen.BINDINGS if b.action == "copy_command")
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await press(pilot, "ctrl+r")
        assert isinstance(app.screen, ReviewScreen)
        await press(pilot, "ctrl+y")
        assert app.clipboard == ""  # ctrl+y copies nothing here
        await press(pilot, copy_key)
        assert app.clipboard == app.screen.command_line() and app.clipboard.startswith("accelerate launch")
