"""The first frame's stand-ins (issue 26): the main screen paints its first frame with the fewest widgets that show
it (the first group's form drawn by one widget, the explanation and findings panes as their empty frames) and puts
the real widgets in their place right after. What the stand-ins paint must be what the real widgets paint: the first
frame is compared with the screen after the replacement, cell by cell, in each language (CJK labels are two cells
wide). The full check is held back in these tests, so that both frames show the same answers' state.
"""
from __future__ import annotations

import pytest
from helpers import main_of, until
from rich.cells import cell_len
from textual.widgets import ContentSwitcher

from wizard.core import i18n
from wizard.core.answers import default_answers
from wizard.tui.app import create_app
from wizard.tui.screens.main import MainScreen
from wizard.tui.shared.session import Start
from wizard.tui.widgets.explanation import ExplanationPane
from wizard.tui.widgets.findings import FindingsList
from wizard.tui.widgets.group_form import FormPreview, GroupForm

SIZE = (80, 24)
LEFT = 28
"""The side column's width at 80 columns (wizard.tcss): the stand-ins are all right of it."""


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


async def _frames(monkeypatch, lang: str = "en", *, start=None):
    """The first frame's cells and the cells once the stand-ins are replaced (the full check held back)."""
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
        async with app.run_test(size=SIZE) as pilot:
            main = main_of(app)
            await until(pilot, lambda: main.ready, what="the stand-ins replaced")
            await pilot.pause(0.2)
            after = _cells(main)
            kinds = {type(n).__name__ for n in main.walk_children()}
    finally:
        i18n.reset()
    return captured, after, kinds


def _differences(first, after, rows: range, columns: slice) -> list[str]:
    out = []
    for y in rows:
        a, b = first[y][columns], after[y][columns]
        if a != b:
            x = next((i for i, (p, q) in enumerate(zip(a, b, strict=False)) if p != q), min(len(a), len(b)))
            out.append(f"row {y} from column {x + (columns.start or 0)}: first frame "
                       f"{''.join(c for c, _ in a)!r} {a[x:x + 1]}, then {''.join(c for c, _ in b)!r} {b[x:x + 1]}")
    return out


TARGETS = {"fsdp2": {}, "fsdp1": {"fsdp_version": 1}, "deepspeed": {"backend": "deepspeed"},
           "multinode-error": {"launch.num_machines": 2}}
"""Starts whose first form differs: FSDP1's version note, DeepSpeed's heading hint and its "not used" line under FSDP
version, an error found by the quick check (its badge and the findings' counts)."""


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "tr", "zh-TW"])
@pytest.mark.parametrize("target", list(TARGETS))
async def test_the_first_frame_paints_what_the_real_widgets_then_paint(monkeypatch, lang, target):
    start = Start(default_answers().replace(TARGETS[target]))
    captured, after, kinds = await _frames(monkeypatch, lang, start=start)
    first = captured["cells"]
    # the stand-ins were there on the first frame, and the real widgets are there now
    # the form is previewed unless it is taller than its place (DeepSpeed's Turkish hint and not-used line: the real
    # form, which scrolls, is there from the first frame)
    assert ("FormPreview" in captured["nodes"]) != ("GroupForm" in captured["nodes"])
    if target in ("fsdp2", "fsdp1") or lang == "en":
        assert "FormPreview" in captured["nodes"]
    assert "ExplanationPane" not in captured["nodes"]
    assert {"GroupForm", "ExplanationPane", "FindingsList"} <= kinds and "FormPreview" not in kinds
    right = slice(LEFT, None)
    assert not _differences(first, after, range(0, 1), slice(None))  # the status bar
    # the form (rows 1-9 at 80x24), cell by cell: the preview draws what the form's widgets draw (a real form taller
    # than its place gets its scrollbar, and rewraps, from its second layout on: Textual's, as before the stand-ins)
    if "FormPreview" in captured["nodes"]:
        assert not _differences(first, after, range(1, 10), right)
    # the explanation's frame (its border and title; its text comes after the first paint) and the findings pane
    assert not _differences(first, after, range(10, 11), right)
    # the findings list is the real one on both frames; Textual draws a list's scrollbar from its second layout on
    # (so did the first frame before the stand-ins): those two cells left of the border are left out
    def without_bar(rows):
        return [row[:SIZE[0] - 4] + row[SIZE[0] - 2:] for row in rows]

    assert not _differences(without_bar(first), without_bar(after), range(17, 23), right)
    for y in range(11, 17):
        assert first[y][LEFT] == after[y][LEFT] and first[y][-1] == after[y][-1]


@pytest.mark.asyncio
async def test_a_form_the_preview_cannot_draw_is_the_real_form_from_the_first_frame(monkeypatch):
    # a first group whose settings are not all choices is never previewed
    monkeypatch.setattr(FormPreview, "fits", staticmethod(lambda group_id: False))
    captured, after, kinds = await _frames(monkeypatch)
    assert "FormPreview" not in captured["nodes"] and "GroupForm" in captured["nodes"]
    assert not _differences(captured["cells"], after, range(1, 10), slice(LEFT, None))


@pytest.mark.asyncio
async def test_keys_typed_before_the_replacement_reach_the_real_widgets(monkeypatch):
    """A key pressed while the stand-ins are up (typed ahead of the first paint) is not lost: the highlighted group's
    form is the one shown, and a binding that needs the findings list gets it."""
    monkeypatch.setattr(MainScreen, "_full_check", lambda self: setattr(self, "ready", True))
    after_first_paint = MainScreen._after_first_paint

    async def held(self):  # the work after the first paint waits for the test (the keys come first)
        return None

    monkeypatch.setattr(MainScreen, "_after_first_paint", held)
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        assert main._stand_ins == ["forms", "explanation"]
        await pilot.press("down")  # Launch basics, while the first group's preview is shown
        assert main._stand_ins, "a highlight alone does not replace the stand-ins"
        await pilot.press("ctrl+f")  # the findings list and its explanation: replaced now
        await pilot.pause(0.1)
        assert not main._stand_ins
        assert isinstance(app.focused, FindingsList)
        switcher = main.query_one("#forms", ContentSwitcher)
        assert switcher.current == "form-launch"
        assert isinstance(main.query_one("#form-launch"), GroupForm)
        await after_first_paint(main)
        await until(pilot, lambda: main.ready, what="the full check")
        assert len(main.query(ExplanationPane)) == 1 and len(main.query(FindingsList)) == 1
