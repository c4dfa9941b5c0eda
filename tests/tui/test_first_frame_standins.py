"""The first frame painted by one widget (issue 26): the main screen's first frame is painted by ``FirstFrame``, which
draws what the real widgets draw (the status line, the groups, the memory bar, the first form, the explanation's frame,
the findings) from the same texts and styles, and the real widgets take its place right after the first paint. The
first frame is compared with the screen after the replacement, cell by cell, in each language (CJK labels are two
cells wide), for starts whose first screen differs. Two parts differ on purpose: the explanation's text (built after
the first paint: the frame shows the pane's border and title) and the footer's keys (mounted after the first paint:
the frame keeps their row). The full check is held back in these tests, so that both frames show the same state.
Where ``FirstFrame`` does not paint the frame (a first group that is not all choices, a terminal too small for the
layout), the real widgets are there from the first frame, with the explanation pane as its empty frame.
"""
from __future__ import annotations

import pytest
from helpers import ROOT, main_of, until
from rich.cells import cell_len
from textual.widgets import ContentSwitcher

from wizard.core import i18n
from wizard.core.answers import default_answers
from wizard.tui.app import WizardApp, create_app
from wizard.tui.screens.main import MainScreen
from wizard.tui.shared.session import Start
from wizard.tui.widgets.explanation import ExplanationPane
from wizard.tui.widgets.findings import FindingsList
from wizard.tui.widgets.first_frame import FirstFrame
from wizard.tui.widgets.group_form import GroupForm
from wizard.tui.widgets.sidebar import GroupList

SIZE = (80, 24)


def _cells(screen) -> list[list[tuple[str, str]]]:
    """Every cell of the screen as (character, what shows of its style): a space shows only its background."""
    rows = []
    for strips in screen._compositor.render_full_update().strips:
        row = []
        for strip in strips:
            for segment in strip:
                style = segment.style
                for ch in segment.text:
                    shown = str(style.bgcolor) if ch == " " and style is not None else str(style)
                    row.append((ch, shown))
                    row += [("", shown)] * (cell_len(ch) - 1)  # a wide character's second cell
        rows.append(row)
    return rows


async def _frames(monkeypatch, lang: str = "en", *, start=None, size=SIZE):
    """The first frame's cells and nodes, the cells once the real widgets are there (the full check held back), and
    the explanation pane's region and the footer's row then (what differs on purpose)."""
    monkeypatch.setattr(MainScreen, "_full_check", lambda self: setattr(self, "ready", True))
    i18n.set_language(lang)
    app = create_app(start) if start is not None else create_app()
    captured: dict[str, object] = {}
    display = app._display

    def first_frame(screen, renderable):
        if renderable is not None and isinstance(screen, MainScreen) and "cells" not in captured:
            captured["cells"] = _cells(screen)
            captured["nodes"] = [type(n).__name__ for n in screen.walk_children()]
        return display(screen, renderable)

    app._display = first_frame
    try:
        async with app.run_test(size=size) as pilot:
            main = main_of(app)
            await until(pilot, lambda: main.ready, what="the real widgets")
            await pilot.pause(0.2)
            after = _cells(main)
            captured["kinds"] = {type(n).__name__ for n in main.walk_children()}
            captured["explanation"] = main.query_one(ExplanationPane).region
            captured["keys"] = main.query_one("#keys").region.y
            captured["findings_scrollbar"] = main.query_one(FindingsList).show_vertical_scrollbar
    finally:
        i18n.reset()
    return captured, after


def main_scrollbar(captured) -> bool:
    return bool(captured["findings_scrollbar"])


def _differences(first, after, *, skip=lambda x, y: False) -> list[str]:
    out = []
    for y, (a, b) in enumerate(zip(first, after, strict=True)):
        for x, (p, q) in enumerate(zip(a, b, strict=True)):
            if p != q and not skip(x, y):
                out.append(f"row {y} column {x}: first frame {''.join(c for c, _ in a)!r} {p}, "
                           f"then {''.join(c for c, _ in b)!r} {q}")
                break
    return out


TARGETS = {"fsdp2": {}, "fsdp1": {"fsdp_version": 1}, "deepspeed": {"backend": "deepspeed"},
           "multinode-error": {"launch.num_machines": 2},
           "errors-scroll": {"launch.num_machines": 2, "precision.mixed_precision": "fp8"}}
"""Starts whose first screen differs: FSDP1's version note, DeepSpeed's heading hint and its "not used" line under FSDP
version (in Turkish taller than the form's place: its scrollbar, the text wrapped beside it), an error found by the
quick check (its badge, the findings' counts and the layout that gives the findings more rows), and an error and two
warnings whose lines outgrow the findings pane (its scrollbar, the text wrapped beside it; so do DeepSpeed's in
Traditional Chinese)."""


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "tr", "zh-TW"])
@pytest.mark.parametrize("target", list(TARGETS))
async def test_the_first_frame_paints_what_the_real_widgets_then_paint(monkeypatch, lang, target):
    start = Start(default_answers().replace(TARGETS[target]))
    captured, after = await _frames(monkeypatch, lang, start=start)
    first, pane, keys = captured["cells"], captured["explanation"], captured["keys"]
    assert {"GroupForm", "ExplanationPane", "FindingsList", "GroupList"} <= captured["kinds"]
    assert "FirstFrame" not in captured["kinds"]
    assert captured["nodes"] == ["FirstFrame"], "the whole first frame is one widget"

    def on_purpose(x: int, y: int) -> bool:
        inside = pane.x < x < pane.right - 1 and pane.y < y < pane.bottom - 1  # the explanation's text
        return inside or y == keys  # the footer's keys

    assert not _differences(first, after, skip=on_purpose)
    if target == "errors-scroll":
        assert main_scrollbar(captured), "the findings outgrow their pane"
    # what differs on purpose does differ: the comparison above is not empty
    assert any(first[y] != after[y] for y in range(pane.y + 1, pane.bottom - 1))


def _equal_but_on_purpose(captured, after) -> list[str]:
    """The differences of the first frame from the real widgets', but the explanation's text and the footer's keys."""
    pane, keys = captured["explanation"], captured["keys"]

    def on_purpose(x: int, y: int) -> bool:
        return y == keys or (pane.x < x < pane.right - 1 and pane.y < y < pane.bottom - 1)

    return _differences(captured["cells"], after, skip=on_purpose)


@pytest.mark.asyncio
@pytest.mark.parametrize(("target", "lang", "size"), [
    ("fsdp2", "en", (160, 50)), ("deepspeed", "en", (160, 50)), ("multinode-error", "zh-TW", (160, 50)),
    ("fsdp1", "tr", (121, 30)), ("deepspeed", "en", (121, 30))])
async def test_the_wide_layout_is_painted_as_the_real_widgets_paint_it(monkeypatch, target, lang, size):
    """From 120 columns on the form, the explanation and the findings have a column each, each label beside its
    choice and where its value is written under it; an odd width gives the form the narrower column."""
    captured, after = await _frames(monkeypatch, lang, start=Start(default_answers().replace(TARGETS[target])),
                                    size=size)
    assert captured["nodes"] == ["FirstFrame"]
    assert not _equal_but_on_purpose(captured, after)


@pytest.mark.asyncio
async def test_a_first_form_the_preview_cannot_draw_has_the_real_widgets_from_the_first_frame(monkeypatch):
    """A first group that is not all choices is not previewed: the real widgets paint the first frame, the
    explanation pane as its empty frame (its border and title as the real pane's)."""
    from wizard.tui.widgets.group_form import FormPreview

    monkeypatch.setattr(FormPreview, "fits", staticmethod(lambda group_id: False))
    captured, after = await _frames(monkeypatch)
    assert "FirstFrame" not in captured["nodes"] and {"GroupList", "GroupForm", "FindingsList"} <= set(
        captured["nodes"])
    pane = captured["explanation"]
    assert not _differences(captured["cells"][:pane.y + 1], after[:pane.y + 1])


def _hold_the_real_widgets(monkeypatch):
    """The work after the first paint (the real widgets, the full check) waits for the test, and the pilot does not
    wait for it: returns that work, for the test to run when it is ready."""
    monkeypatch.setattr(MainScreen, "_full_check", lambda self: setattr(self, "ready", True))
    monkeypatch.setattr(WizardApp, "PILOT_WAITS_FOR_WIDGETS", False)
    after_first_paint = MainScreen._after_first_paint

    async def held(self):
        return None

    monkeypatch.setattr(MainScreen, "_after_first_paint", held)
    return after_first_paint


@pytest.mark.asyncio
async def test_keys_typed_before_the_real_widgets_reach_them(monkeypatch):
    """A key pressed while the first frame's widget is up (typed ahead of the first paint) is not lost: it goes to the
    real widgets once they are there, bindings included, in the order typed."""
    after_first_paint = _hold_the_real_widgets(monkeypatch)
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await pilot.pause()
        assert main._stand_ins == ["frame"] and isinstance(app.focused, FirstFrame)
        await pilot.press("down")  # Launch basics
        await pilot.press("ctrl+f")  # the findings list (a binding of the screen)
        await pilot.pause(0.1)
        assert main._stand_ins == ["frame"], "the keys alone do not mount the widgets"
        assert not main.query(GroupList)
        await after_first_paint(main)
        await until(pilot, lambda: main.ready, what="the full check")
        await pilot.pause(0.2)
        assert not main._stand_ins and main.widgets_ready.is_set()
        assert isinstance(app.focused, FindingsList)
        assert main.query_one(GroupList).group_id == "launch"
        switcher = main.query_one("#forms", ContentSwitcher)
        assert switcher.current == "form-launch"
        assert isinstance(main.query_one("#form-launch"), GroupForm)
        assert len(main.query(ExplanationPane)) == 1 and len(main.query(FindingsList)) == 1


@pytest.mark.asyncio
async def test_the_findings_are_measured_at_the_width_they_are_drawn_at():
    """Findings that outgrow their pane after the full check get a scrollbar, which narrows their text: each finding's
    lines are counted at that width (measured at the width before, the last line of a long finding was cut off)."""
    from textual.content import Content

    app = create_app(Start(default_answers().replace({"launch.num_machines": 2, "launch.num_processes": 3})))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await until(pilot, lambda: main.ready, what="the full check")
        await pilot.pause(0.3)
        findings = main.query_one(FindingsList)
        assert findings.show_vertical_scrollbar, "this start's findings outgrow their pane"
        width = findings.scrollable_content_region.width
        wrapped = [len(Content.from_rich_text(o.prompt).wrap(width)) for o in findings.options]
        assert [findings._line_cache.heights[i] for i in range(findings.option_count)] == wrapped
        assert findings.virtual_size.height == sum(wrapped)


@pytest.mark.asyncio
async def test_a_terminal_made_too_small_before_the_real_widgets_is_painted_blank(monkeypatch):
    """The first frame's widget paints the narrow layout; a terminal made smaller than that before the real widgets
    come gets a blank screen (not a failure), and the real widgets then lay themselves out at that size."""
    after_first_paint = _hold_the_real_widgets(monkeypatch)
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await pilot.pause()
        assert main._stand_ins == ["frame"]
        await pilot.resize_terminal(40, 12)
        await pilot.pause(0.1)
        assert {c for row in _cells(main) for c, _ in row} == {" "}
        await after_first_paint(main)
        await until(pilot, lambda: main.ready, what="the real widgets")
        assert not main.query(FirstFrame) and main.query_one(GroupList).region.width > 0


CORPUS = ROOT / "tests" / "data" / "check_corpus"
CONFIGS = ["09_fsdp2_multinode_no_parallelism", "10_fsdp1_accelerate_template", "43_mixed_precision_unquoted_no",
           "81_ds_json_param_offload_stage2", "95_ds_inline_clipping_disabled"]
"""Accelerate configs opened with --config: the findings list starts with a heading about the file (a disabled
option) and scrolls to its first finding, and a DeepSpeed config with errors has a form taller than its place."""


@pytest.mark.asyncio
@pytest.mark.parametrize("name", CONFIGS)
async def test_an_opened_config_is_painted_as_the_real_widgets_paint_it(monkeypatch, name):
    from wizard.tui.shared.session import from_accelerate_config

    captured, after = await _frames(monkeypatch, start=from_accelerate_config(CORPUS / name / "accelerate_config.yaml"))
    pane, keys = captured["explanation"], captured["keys"]
    assert captured["nodes"] == ["FirstFrame"]
    assert not _differences(captured["cells"], after, skip=lambda x, y: y == keys or (
        pane.x < x < pane.right - 1 and pane.y < y < pane.bottom - 1))
