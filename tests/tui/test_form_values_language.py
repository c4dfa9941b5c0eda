"""The forms' words around the values in the language (issue 27): a choice's words after its value ("keep on GPU",
"no FSDP twin"), a text field's placeholder, the line under a field whose value is not accepted, the note after
Enter on a finding that names several keys, and a live switch that redraws an open form's choices and placeholder.
Values, keys and names (none, cpu, FULL_SHARD, ZeRO-3, FSDP1, GPU) stay as written; the English stays as it was."""
from __future__ import annotations

import pytest
from helpers import field_of, focused_on, main_of, notes_of, until
from textual.widgets import Input

from wizard.core import i18n, localized
from wizard.core.answers import default_answers
from wizard.core.catalog import SETTING_BY_ID
from wizard.core.findings import ERROR, Finding
from wizard.tui.app import create_app
from wizard.tui.shared.present import choice_options, jump_note, placeholder, text_to_value
from wizard.tui.shared.session import Start
from wizard.tui.widgets.fields import Choice

SIZE = (80, 24)
LANGUAGES = ["tr", "zh-TW"]
STEPS = "training.gradient_accumulation_steps"



def _labels(setting_id: str) -> list[str]:
    return [label for label, _ in choice_options(SETTING_BY_ID[setting_id])]


def test_the_english_is_as_it_was():
    i18n.set_language("en")
    assert _labels("offload.params") == ["none — keep on GPU", "cpu — CPU RAM", "nvme — NVMe (DeepSpeed)"]
    assert _labels("fsdp_version") == ["1 — FSDP1 (flat parameters)", "2 — FSDP2 (fully_shard)"]
    assert "optimizer — no FSDP twin · ZeRO-1" in _labels("sharding.strategy")
    assert placeholder(SETTING_BY_ID[STEPS]) == "a whole number from 1 to 100,000 or auto"
    assert placeholder(SETTING_BY_ID["parallelism.dp_replicate_size"]) == "(one per machine)"
    assert placeholder(SETTING_BY_ID["deepspeed.reduce_bucket_size"]) == "(library default)"
    assert text_to_value(SETTING_BY_ID[STEPS], "x")[1] == "not a whole number: a whole number from 1 to 100,000 or auto"
    assert text_to_value(SETTING_BY_ID[STEPS], "0")[1] == \
        "too small: expected an integer from 1 to 100,000, or 'auto'"
    assert text_to_value(SETTING_BY_ID["launch.script_args"], '"a')[1] == \
        "No closing quotation (quote an argument with spaces as 'like this')"
    finding = Finding(ERROR, "some-rule", ("fsdp_config.fsdp_offload_params", "offload.params", "x.y"), "m", "f")
    assert jump_note(finding) == ("Went to offload.params (for fsdp_config.fsdp_offload_params); the finding also "
                                  "names offload.params, x.y.")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_choices_and_placeholders_are_in_the_language(lang):
    i18n.set_language(lang)
    offload = _labels("offload.params")
    assert offload[0] == "none — " + localized.ui("choice_keep_on_gpu", lang)
    assert "keep on GPU" not in offload[0] and "GPU" in offload[0]
    assert offload[1].startswith("cpu — CPU") and offload[1] != "cpu — CPU RAM"
    assert _labels("fsdp_version")[0].startswith("1 — FSDP1") and "flat parameters" not in _labels("fsdp_version")[0]
    sharding = _labels("sharding.strategy")
    assert "full — FULL_SHARD · ZeRO-3" in sharding
    assert f"optimizer — {localized.ui('choice_no_fsdp_twin', lang)} · ZeRO-1" in sharding
    assert not any("no FSDP twin" in label for label in sharding)
    steps = placeholder(SETTING_BY_ID[STEPS])
    assert localized.ui("value_whole_number", lang) in steps and "100,000" in steps and "auto" in steps
    assert "whole number" not in steps and "or auto" not in steps
    replicas = placeholder(SETTING_BY_ID["parallelism.dp_replicate_size"])
    assert localized.empty("parallelism.dp_replicate_size", lang) in replicas and "one per machine" not in replicas
    assert placeholder(SETTING_BY_ID["deepspeed.reduce_bucket_size"]) == localized.ui("library_default", lang)
    commands = placeholder(SETTING_BY_ID["launch.script_args"])
    assert "--steps 3000 --name 'my run'" in commands and "arguments as on" not in commands


@pytest.mark.parametrize("lang", LANGUAGES)
def test_what_a_field_says_of_a_value_it_does_not_accept(lang):
    i18n.set_language(lang)
    assert text_to_value(SETTING_BY_ID["launch.num_processes"], "")[1].startswith(
        localized.ui("field_required", lang, what=""))
    quoted = text_to_value(SETTING_BY_ID["launch.script_args"], '"a')[1]
    assert quoted == localized.ui("field_quote_hint", lang, problem=localized.ui("shlex_no_closing_quotation", lang))
    json_problem = text_to_value(SETTING_BY_ID["deepspeed.extra"], "{")[1]
    assert json_problem.startswith(localized.said("not valid JSON (line 1, column 2): Expecting property name "
                                                  "enclosed in double quotes", lang))
    assert json_problem.endswith('{"steps_per_print": 100}') and "e.g." not in json_problem
    deep = text_to_value(SETTING_BY_ID["deepspeed.extra"], "[" * 100 + "]" * 100)[1]
    assert "nest a few levels" not in deep and '{"steps_per_print": 100}' in deep
    too_large = text_to_value(SETTING_BY_ID["launch.main_process_port"], "70000")[1]
    assert "65,535" in too_large and "too large" not in too_large and "expected" not in too_large
    finding = Finding(ERROR, "some-rule", ("fsdp_config.fsdp_offload_params", "offload.params", "x.y"), "m", "f")
    assert jump_note(finding) == localized.ui("jump_note_for", lang, setting="offload.params",
                                              name="fsdp_config.fsdp_offload_params", others="offload.params, x.y")
    assert "Went to" not in jump_note(finding)


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", LANGUAGES)
async def test_the_real_field_says_it_in_the_language(lang):
    i18n.set_language(lang)
    app = create_app(Start(default_answers()))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await until(pilot, lambda: main.ready, what="the full check")
        field = await focused_on(pilot, STEPS)
        control = field.control
        assert isinstance(control, Input) and control.placeholder == placeholder(SETTING_BY_ID[STEPS])
        await pilot.press("end", "backspace", "x")  # the 1 replaced by a letter
        await until(pilot, lambda: "✖" in notes_of(field), what="the line under the field")
        problem = text_to_value(SETTING_BY_ID[STEPS], "x")[1]
        assert problem == localized.ui("field_not_whole_number", lang, what=placeholder(SETTING_BY_ID[STEPS]))
        expected = "✖ " + localized.ui("field_not_accepted", lang, problem=problem)
        assert expected.replace(" ", "") in notes_of(field).replace(" ", "").replace("\n", "")
        assert "not accepted" not in notes_of(field) and "whole number" not in notes_of(field)
        offload = await focused_on(pilot, "offload.params")
        assert isinstance(offload.control, Choice)
        assert [label for label, _ in offload.control.options] == _labels("offload.params")
        finding = Finding(ERROR, "some-rule", ("fsdp_config.fsdp_offload_params", "offload.params"), "m", "f")
        app._notifications.clear()
        await main.jump_to_finding(finding)
        await pilot.pause()
        notes = [str(n.message) for n in app._notifications]
        assert localized.ui("jump_note_for", lang, setting="offload.params", name="fsdp_config.fsdp_offload_params",
                            others="offload.params") in notes


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", LANGUAGES)
async def test_a_live_switch_relabels_an_open_form(lang):
    i18n.set_language("en")
    app = create_app(Start(default_answers()))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await until(pilot, lambda: main.ready, what="the full check")
        field = await focused_on(pilot, STEPS)
        await pilot.press("end", "backspace", "x")
        await until(pilot, lambda: "not accepted" in notes_of(field), what="the English line under the field")
        offload = await focused_on(pilot, "offload.params")
        assert offload.control.options[0] == ("none — keep on GPU", "none")
        chosen = offload.control.value
        app.switch_language(lang)
        await pilot.pause(0.2)
        assert [label for label, _ in offload.control.options] == _labels("offload.params")
        assert offload.control.options[0] == ("none — " + localized.ui("choice_keep_on_gpu", lang), "none")
        assert offload.control.value == chosen
        await main.jump_to(STEPS)
        await pilot.pause(0.2)
        field = field_of(main, STEPS)
        assert field.control.placeholder == placeholder(SETTING_BY_ID[STEPS])
        assert "whole number" not in field.control.placeholder
        assert field.control.value == "x"
        assert "not accepted" not in notes_of(field)
        assert localized.ui("field_not_accepted", lang, problem="").strip().replace(" ", "") \
            in notes_of(field).replace(" ", "")
