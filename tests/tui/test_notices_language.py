"""Issue 27: the settings screen's notifications (undo, redo, ctrl+n, the output folder), the output folder dialog and
the launch flow's notices and dialogs speak the chosen language; setting ids, paths and counts stay as computed."""
from __future__ import annotations

import pytest
from helpers import focused_on, main_ready, press, wizard_in
from textual.widgets import Button, Input, Label, Static

from wizard.core import i18n, localized
from wizard.core.answers import default_answers
from wizard.core.answers.generate import Generated, generate
from wizard.core.findings import Finding
from wizard.tui.app import create_app
from wizard.tui.screens.confirm import ConfirmScreen
from wizard.tui.screens.flows import _write_and_launch, launch_answers, rehearse_answers
from wizard.tui.screens.out_folder import OutFolderScreen, folder_problem
from wizard.tui.shared.session import Start

SIZE = (80, 24)
LANGS = ("tr", "zh-TW")


def messages(app) -> list[str]:
    return [n.message for n in app._notifications]


def test_the_new_words_are_translated_and_keep_their_placeholders():
    from wizard.core.localized.ui import UI

    keys = [k for k in UI if k.startswith(("notice_", "step_", "out_", "open_", "confirm_")) or
            k in ("the_defaults", "the_whole_config", "the_suggestion")]
    run_keys = ["flow.errors_rehearsal", "flow.errors_launch", "flow.nothing_launched_f5", "flow.nothing_launched",
                "flow.nothing_written", "flow.not_a_folder", "flow.cannot_write", "flow.no_gpu_title",
                "flow.no_gpu_message", "flow.launch_anyway", "flow.launch_title", "flow.write_title",
                "flow.write_files", "flow.write_question", "flow.write_question_bak", "flow.write_yes"]
    assert len(keys) >= 25
    for lang in LANGS:
        for key in keys:
            assert localized.ui(key, lang) != UI[key], (lang, key)
        for key in run_keys:
            assert localized.screen("run", key, lang) != localized.screen("run", key, "en"), (lang, key)
    assert localized.ui("notice_undone", "tr", what="x.y") == "Geri alındı: x.y (ctrl+y yineler)"
    assert localized.ui("notice_undone", "zh-TW", what="x.y") == "已復原：x.y（ctrl+y 可重做）"


def test_english_stays_as_it_was():
    assert localized.ui("notice_undone", "en", what="the edit of a.b") == "Undone: the edit of a.b (ctrl+y redoes it)"
    assert localized.ui("notice_problem_no_setting", "en", index=1, count=2, rule="r", keys="k") == (
        "1 of 2: 'r' is about k: no setting of the wizard writes that key; the explanation says what to do")
    assert localized.screen("run", "flow.errors_launch", "en", count=2) == (
        "2 error(s) block launching (ctrl+n goes to the first).")
    assert folder_problem("") == "give a folder"


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", LANGS)
async def test_undo_redo_and_ctrl_n_notices_in_the_language(in_tmp, lang):
    async with wizard_in(lang, size=SIZE) as (app, pilot, main):
        await press(pilot, "ctrl+z")
        assert localized.ui("notice_nothing_to_undo") in messages(app)
        await press(pilot, "ctrl+y")
        assert localized.ui("notice_nothing_to_redo") in messages(app)
        assert not main.problems  # the defaults: nothing for ctrl+n to visit
        await press(pilot, "ctrl+n")
        assert localized.ui("notice_no_problems") in messages(app)
        await focused_on(pilot, "training.gradient_accumulation_steps")
        await press(pilot, "ctrl+shift+a", "backspace", "1", "6")
        await press(pilot, "ctrl+z")
        step = localized.ui("step_edit", setting="training.gradient_accumulation_steps")
        assert "training.gradient_accumulation_steps" in step and "the edit of" not in step
        assert localized.ui("notice_undone", what=step) in messages(app)
        await press(pilot, "ctrl+y")
        assert main.answers["training.gradient_accumulation_steps"] == 16
        assert localized.ui("notice_redone", what=step) in messages(app)
        assert not any(m.startswith(("Undone", "Redone", "Nothing to", "No errors")) for m in messages(app))


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", LANGS)
async def test_the_output_folder_dialog_and_its_notice_in_the_language(in_tmp, lang):
    async with wizard_in(lang, size=SIZE) as (app, pilot, main):
        before = main.out
        await press(pilot, "ctrl+o")
        dialog = app.screen
        assert isinstance(dialog, OutFolderScreen)
        assert str(dialog.query_one(Label).content) == localized.ui("out_label") != "Folder"
        hints = [str(s.content) for s in dialog.query(Static)]
        assert localized.ui("out_hint", folder=before) in hints and before in localized.ui("out_hint", folder=before)
        (in_tmp / "afile").write_text("x")
        dialog.query_one("#out-folder", Input).value = str(in_tmp / "afile")
        await press(pilot, "enter")
        problem = str(dialog.query_one("#out-folder-problem", Static).content)
        assert problem == localized.ui("out_not_folder", folder=str(in_tmp / "afile"))
        assert str(in_tmp / "afile") in problem and "is not a folder" not in problem
        dialog.query_one("#out-folder", Input).value = str(in_tmp / "elsewhere")
        await press(pilot, "enter")
        assert main.out == str(in_tmp / "elsewhere")
        assert localized.ui("notice_files_go_to", folder=str(in_tmp / "elsewhere")) in messages(app)


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", LANGS)
async def test_the_launch_flow_speaks_the_language(in_tmp, lang):
    i18n.set_language(lang)
    answers = default_answers()
    app = create_app(Start(answers))
    async with app.run_test(size=SIZE) as pilot:
        await main_ready(pilot)
        error = Finding("error", "some-rule", ("a.b",), "broken")
        assert rehearse_answers(app, answers, str(in_tmp / "out"), [error, error]) is None
        await pilot.pause()
        assert "✖ " + localized.screen("run", "flow.errors_rehearsal", count=2) in messages(app)
        generated = generate(answers, in_tmp / "out")
        broken = Generated(generated.answers, generated.rendered, [error], generated.files)
        launch_answers(app, answers, str(in_tmp / "out"), broken)
        await pilot.pause()
        assert "✖ " + localized.screen("run", "flow.errors_launch", count=1) in messages(app)
        # the files are not written yet: the question before writing them, in the language; "n" writes nothing
        _write_and_launch(app, answers, str(in_tmp / "out"), generated)
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert dialog.title_text == localized.screen("run", "flow.write_title")
        assert str(in_tmp / "out") in dialog.message and "accelerate_config.yaml" in dialog.message
        assert localized.screen("review", "state_new") in dialog.message
        assert "These are not written yet" not in dialog.message
        assert str(dialog.query_one("#yes", Button).label) == localized.screen("run", "flow.write_yes")
        await press(pilot, "n")
        assert localized.screen("run", "flow.nothing_written") in messages(app)
        assert not (in_tmp / "out").exists()
        # a file where the folder should be
        (in_tmp / "afile").write_text("x")
        _write_and_launch(app, answers, str(in_tmp / "afile"), generate(answers, in_tmp / "afile"))
        await pilot.pause()
        assert "✖ " + localized.screen("run", "flow.not_a_folder", out=str(in_tmp / "afile")) in messages(app)


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", LANGS)
async def test_the_quit_question_in_the_language(in_tmp, lang):
    async with wizard_in(lang, size=SIZE) as (app, pilot, main):
        await focused_on(pilot, "training.gradient_accumulation_steps")
        await press(pilot, "ctrl+shift+a", "backspace", "1", "6")
        await press(pilot, "ctrl+q")
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert dialog.title_text == localized.ui("quit_title") != "Quit without writing?"
        assert main.out in dialog.message and "accelerate_config.yaml" in dialog.message
        assert "The answers changed" not in dialog.message
        assert str(dialog.query_one("#no", Button).label) == localized.ui("quit_no")
        await press(pilot, "n")
        assert not isinstance(app.screen, ConfirmScreen)
