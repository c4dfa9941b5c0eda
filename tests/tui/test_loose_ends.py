"""Pilot tests for the loose ends of issue 7: each failed before its fix."""
from __future__ import annotations

import pytest
from helpers import focused_on, main_of

from wizard.core.answers import default_answers
from wizard.tui.app import create_app
from wizard.tui.shared.session import Start
from wizard.tui.widgets.fields import SettingField

SIZE = (80, 24)


def visible_rows(widget) -> int:
    """How many rows of a widget are on screen: its region clipped by every container around it."""
    region = widget.region
    for ancestor in widget.ancestors:
        if hasattr(ancestor, "region") and ancestor is not widget.screen:
            region = region.intersection(ancestor.region)
    return region.height


async def typed(pilot, main, setting_id: str, text: str) -> SettingField:
    field = await focused_on(pilot, setting_id)
    field.control.value = text
    await pilot.pause()
    return field


# ---------------------------------------------------------------- the DeepSpeed-extras editor parses within bounds


@pytest.mark.asyncio
@pytest.mark.parametrize("text,words", [
    ("[" * 5000 + "]" * 5000, "nested more than 64 levels deep"),  # json.loads: RecursionError, the TUI crashed
    ('{"a": ' + "9" * 5000 + "}", "more than 4300 digits"),
    ('{"steps_per_print": 100,}', "not valid JSON (line 1, column 25)"),
], ids=["nested-5000-deep", "5000-digit-number", "trailing-comma"])
async def test_deepspeed_extra_editor_refuses_bad_json_with_a_message(text, words):
    """The Extra DeepSpeed JSON is edited in its own editor (issue 21, item 12): a bad text is refused there, with
    the message in view, and the last good value is kept."""
    from textual.widgets import TextArea

    app = create_app(Start(default_answers().replace({"backend": "deepspeed"})))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await focused_on(pilot, "deepspeed.extra")
        await pilot.press("enter")
        await pilot.pause()
        app.screen.query_one(TextArea).load_text('{"wall_clock_breakdown": true}')
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is main and main.answers["deepspeed.extra"] == {"wall_clock_breakdown": True}
        await main.jump_to("deepspeed.sub_group_size")  # then Tab into the field, as a user does
        await pilot.pause()
        await pilot.press("tab")
        await pilot.pause()
        field = main.query_one("#f-deepspeed--extra", SettingField)
        assert app.focused is field.control
        await pilot.press("enter")
        await pilot.pause()
        app.screen.query_one(TextArea).load_text(text)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.is_running  # no crash
        assert type(app.screen).__name__ == "JsonEditor"  # the editor stays open on the text
        error = app.screen.query_one("#json-error")
        shown = str(error.render())
        assert "not applied" in shown and words in shown and '{"steps_per_print": 100}' in shown
        assert main.answers["deepspeed.extra"] == {"wall_clock_breakdown": True}  # the last good value is kept
        assert visible_rows(error) >= 2, "the message in the editor is out of view at 80x24"


# ---------------------------------------------------------------- integer settings have an upper bound


@pytest.mark.asyncio
async def test_a_huge_process_count_is_refused_in_the_field():
    app = create_app(Start(default_answers()))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        field = await typed(pilot, main, "launch.num_processes", "8")
        assert main.answers["launch.num_processes"] == 8
        field = await typed(pilot, main, "launch.num_processes", "9" * 2770)
        assert field.has_class("-invalid")
        shown = str(field.query_one(".notes").render())
        assert "not accepted: too large: expected an integer from 1 to 1,048,576" in shown
        assert main.answers["launch.num_processes"] == 8
        field = await typed(pilot, main, "launch.num_processes", "1048576")
        assert not field.has_class("-invalid") and main.answers["launch.num_processes"] == 1048576


# ---------------------------------------------------------------- the switch report at 80x24


@pytest.mark.asyncio
async def test_switch_report_scrolls_inside_and_keeps_ok_in_view_at_80x24():
    from textual.containers import VerticalScroll
    from textual.widgets import Button

    from wizard.tui.screens.switch_report import SwitchReportScreen

    answers = default_answers().replace({"backend": "deepspeed", "offload.optimizer": "nvme",
                                         "offload.nvme_path": "/nvme", "offload.params": "cpu"})
    app = create_app(Start(answers))
    async with app.run_test(size=SIZE) as pilot:
        main_of(app)
        await pilot.pause()
        await pilot.press("ctrl+t")  # DeepSpeed -> FSDP1: a long report
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SwitchReportScreen)
        ok = screen.query_one("#ok", Button)
        assert visible_rows(ok) == 1 and ok.region.bottom <= SIZE[1], "the OK button is below the fold"
        scroll = screen.query_one(VerticalScroll)
        assert scroll.max_scroll_y > 0, "a long report scrolls inside the box"
        assert visible_rows(scroll) > 8
        scroll.scroll_end(animate=False)
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y  # the end of the report can be reached
        assert visible_rows(ok) == 1
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, SwitchReportScreen)


# ---------------------------------------------------------------- findings get room when there are errors


ERRORS = {"launch.num_machines": 2, "launch.num_processes": 3, "launch.gpu_ids": "0,1",
          "sharding.strategy": "hybrid_full"}


async def pane_heights(answers, size):
    from wizard.tui.widgets.explanation import ExplanationPane
    from wizard.tui.widgets.findings import FindingsList

    app = create_app(Start(answers))
    async with app.run_test(size=size) as pilot:
        main = main_of(app)
        for _ in range(100):
            await pilot.pause(0.01)
            if main.ready:
                break
        await pilot.pause()
        findings = main.query_one(FindingsList)
        errors = sum(f.severity == "error" for f in findings.findings)
        return (visible_rows(main.query_one(ExplanationPane)), visible_rows(findings), errors,
                main.query_one("#forms").region.height)


@pytest.mark.asyncio
async def test_findings_get_more_room_when_there_are_errors_at_80x24():
    clean = await pane_heights(default_answers(), SIZE)
    broken = await pane_heights(default_answers().replace(ERRORS), SIZE)
    assert clean[2] == 0 and broken[2] >= 3
    assert broken[1] >= 9, f"the findings pane shows {broken[1] - 2} lines with {broken[2]} errors"
    assert broken[0] < clean[0] and broken[1] > clean[1]  # the explanation gives way
    assert broken[3] >= 8  # the form keeps room to fix things


@pytest.mark.asyncio
async def test_the_wide_layout_is_the_same_with_or_without_errors():
    clean = await pane_heights(default_answers(), (160, 50))
    broken = await pane_heights(default_answers().replace(ERRORS), (160, 50))
    assert broken[2] >= 3
    assert (clean[0], clean[1], clean[3]) == (broken[0], broken[1], broken[3])
