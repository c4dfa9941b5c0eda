"""The forms' own words in the language (issue 27): a group's heading hint ("1 of 2 settings used by this target"),
the line under a field the target does not use ("not used by DeepSpeed: <why>") and a choice's "(library default)";
on the first frame's preview, on the real form, and redrawn by a live language switch. Keys, values and the target's
name stay as written."""
from __future__ import annotations

import pytest
from helpers import focused_on, main_of, notes_of, until

from wizard.core import i18n, localized
from wizard.core.answers import default_answers
from wizard.tui.app import create_app
from wizard.tui.shared.session import Start
from wizard.tui.widgets.fields import Choice, SettingField, field_id
from wizard.tui.widgets.group_form import GroupForm

SIZE = (80, 24)
DEEPSPEED = Start(default_answers().replace({"backend": "deepspeed"}))


def _heading(main) -> str:
    form = main.query_one("#form-backend", GroupForm)
    return str(form.query_one(".heading").render())



@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
async def test_the_forms_own_words_are_in_the_language(lang):
    i18n.set_language(lang)
    app = create_app(DEEPSPEED)
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await until(pilot, lambda: main.ready, what="the full check")
        hint = localized.ui("form_hint", lang, applies=1, count=2)
        assert hint != localized.ui("form_hint", "en", applies=1, count=2)
        assert hint.replace(" ", "") in _heading(main).replace(" ", "").replace("\n", "")
        notes = notes_of(main.query_one(f"#{field_id('fsdp_version')}", SettingField))
        why = localized.not_applicable("fsdp_version", "deepspeed", lang)
        expected = localized.ui("field_not_used", lang, target="DeepSpeed", why=why)
        assert expected.replace(" ", "") in notes.replace(" ", "").replace("\n", "")
        assert "not used by" not in notes
        choice = (await focused_on(pilot, "deepspeed.overlap_comm")).control
        assert isinstance(choice, Choice)
        assert choice.options[0] == (localized.ui("library_default", lang), None)
        assert localized.ui("library_default", lang) != "(library default)"


@pytest.mark.asyncio
async def test_a_language_switch_redraws_the_forms_words():
    app = create_app(DEEPSPEED)
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await until(pilot, lambda: main.ready, what="the full check")
        field = main.query_one(f"#{field_id('fsdp_version')}", SettingField)
        assert "not used by DeepSpeed" in notes_of(field)
        choice = (await focused_on(pilot, "deepspeed.overlap_comm")).control
        assert choice.options[0] == ("(library default)", None)
        app.switch_language("zh-TW")
        await pilot.pause(0.2)
        assert "not used by" not in notes_of(field)
        assert localized.ui("field_not_used", "zh-TW", target="DeepSpeed",
                            why=localized.not_applicable("fsdp_version", "deepspeed", "zh-TW")).replace(" ", "") \
            in notes_of(field).replace(" ", "").replace("\n", "")
        assert choice.options[0] == (localized.ui("library_default", "zh-TW"), None)
        assert localized.ui("form_hint", "zh-TW", applies=1, count=2) in _heading(main).replace("\n", "")
