"""Issue 27: what ctrl+z / ctrl+y say they undid or redid is said in the language shown when they are pressed, not
the one the change was made in (the palette switches the language between a change and its undo)."""
from __future__ import annotations

import pytest
from helpers import focused_on, palette, press, wizard_in

from wizard.core import i18n, localized
from wizard.core.catalog import TARGET_LABELS
from wizard.tui.shared.history import History

SIZE = (80, 24)



def messages(app) -> list[str]:
    return [n.message for n in app._notifications]


def test_a_step_says_its_words_when_it_is_shown():
    h: History[int] = History()
    h.record(0, lambda: localized.ui("step_edit", setting="training.gradient_accumulation_steps"))
    h.record(1, "plain words")  # a text is shown as it is
    i18n.set_language("tr")
    assert h.undo(2).words == "plain words"
    step = h.undo(1)
    assert step.words == localized.ui("step_edit", "tr", setting="training.gradient_accumulation_steps")
    assert "training.gradient_accumulation_steps" in step.words and "the edit of" not in step.words
    i18n.set_language("zh-TW")
    redone = h.redo(0)  # the redo keeps the function: said in the language of the moment again
    assert redone.words == localized.ui("step_edit", "zh-TW", setting="training.gradient_accumulation_steps")


@pytest.mark.asyncio
async def test_undo_and_redo_of_an_english_edit_are_said_in_the_language_switched_to(in_tmp):
    async with wizard_in("en", size=SIZE) as (app, pilot, main):
        before = main.answers
        await focused_on(pilot, "training.gradient_accumulation_steps")
        await press(pilot, "ctrl+shift+a", "backspace", "8")
        assert main.answers["training.gradient_accumulation_steps"] == 8
        await palette(app, pilot, "language t")  # "Language (Dil, 語言): Türkçe"
        assert i18n.language() == "tr"
        await press(pilot, "ctrl+z")
        assert main.answers == before
        what = localized.ui("step_edit", "tr", setting="training.gradient_accumulation_steps")
        assert localized.ui("notice_undone", "tr", what=what) in messages(app)
        assert not any("the edit of" in m for m in messages(app))
        await press(pilot, "ctrl+y")
        assert main.answers["training.gradient_accumulation_steps"] == 8
        assert localized.ui("notice_redone", "tr", what=what) in messages(app)


@pytest.mark.asyncio
async def test_undo_of_a_switch_and_a_load_in_the_language_switched_to(in_tmp):
    async with wizard_in("en", size=SIZE) as (app, pilot, main):
        before = main.answers
        from wizard.tui.shared.session import from_preset

        start = from_preset("zero3-cpu-offload")
        main.load(start)  # loaded in English
        await pilot.pause()
        assert main.answers.target == "deepspeed"
        await press(pilot, "ctrl+t")  # DeepSpeed -> FSDP1 (FSDP2 after it): a switch, in English
        for _ in range(20):
            if type(app.screen).__name__ != "SwitchReportScreen":
                break
            await press(pilot, "escape")
        switched_to = main.answers.target
        assert switched_to != "deepspeed"
        app.switch_language("zh-TW")  # what the palette's "Language (Dil, 語言): 繁體中文" runs
        await pilot.pause()
        await press(pilot, "ctrl+z")
        assert main.answers.target == "deepspeed"
        switch = localized.ui("step_switch", "zh-TW", target=TARGET_LABELS[switched_to])
        assert messages(app)[-1] == localized.ui("notice_undone", "zh-TW", what=switch)
        await press(pilot, "ctrl+z")
        assert main.answers == before
        load = localized.ui("step_load", "zh-TW", source=start.source)
        assert messages(app)[-1] == localized.ui("notice_undone", "zh-TW", what=load)
        assert start.source in load and "loading" not in load
