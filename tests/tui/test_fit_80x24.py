"""At 80x24 (and 140x45) nothing important is cut off: the key bars, the review's tabs and findings, the checklist's
rows, the run log's lines."""
from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from helpers import ROOT, main_of, open_review, press, settle
from rich.console import Console
from textual.app import App
from textual.widgets import Tabs
from textual.widgets._footer import FooterKey

from wizard.tui.app import create_app
from wizard.tui.shared.session import from_accelerate_config
from wizard.tui.widgets.checklist import checklist_renderable
from wizard.tui.widgets.logtail import LogTail

CORPUS = ROOT / "tests" / "data" / "check_corpus"


def keys_in_view(screen, width: int) -> dict[str, bool]:
    """action -> whether its key in the key bar is shown whole."""
    return {k.action: k.region.width > 0 and k.region.right <= width
            for k in screen.query(FooterKey) if "-command-palette" not in k.classes}


@pytest.mark.asyncio
async def test_the_key_bars_show_their_important_keys_whole_at_80_columns(in_tmp):
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        main = main_of(app)
        shown = keys_in_view(main, 80)
        important = ["app.help", "review", "rehearse", "launch", "next_problem", "zoom_explanation", "memory"]
        assert [a for a in important if not shown.get(a)] == []
        assert all(shown.values()), shown  # no key half drawn
        review = await open_review(app, pilot)
        await settle(pilot)
        shown = keys_in_view(review, 80)
        assert [a for a in ("back", "write", "rehearse", "launch", "fix_error", "app.help") if not shown.get(a)] == []
        assert all(shown.values()), shown
    app = create_app()
    async with app.run_test(size=(140, 45)) as pilot:  # wide enough: every key
        await settle(pilot)
        assert {"cycle_target", "out_folder"} <= {a for a, whole in keys_in_view(main_of(app), 140).items() if whole}


@pytest.mark.asyncio
async def test_the_review_lists_the_findings_at_80_columns(in_tmp):
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        findings = main_of(app).findings
        assert findings
        review = await open_review(app, pilot)
        from wizard.tui.screens.review import FINDINGS_TAB

        tabs = review.query_one(Tabs)
        tab = next(t for t in tabs.query("Tab") if t.id and t.id.endswith(FINDINGS_TAB))
        assert tab.display and tab.region.right <= 80 and f"Findings ({len(findings)})" in str(tab.label)
        await press(pilot, "left")  # the Findings tab is the first
        await settle(pilot)
        text = " ".join(app.export_screenshot().replace("&#160;", " ").split())
        assert all(" ".join(f.message[:30].split()) in text for f in findings)


@pytest.mark.asyncio
async def test_every_review_tab_is_in_view_at_140x45_after_an_import(in_tmp):
    start = from_accelerate_config(CORPUS / "56_ds_json_llamafactory_z3_offload" / "accelerate_config.yaml")
    app = create_app(start)
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        review = await open_review(app, pilot)
        await settle(pilot)
        tabs = review.query_one(Tabs)
        labels = {str(t.label): t.region for t in tabs.query("Tab") if t.display}
        assert any(label.startswith("Diff (import: changed") for label in labels), labels
        assert {label: r for label, r in labels.items() if r.right > tabs.region.right} == {}


def test_checklist_rows_wrap_instead_of_ending_in_an_ellipsis():
    label = "World size 2 (rehearsed; config: 8) and a label long enough to need a second row at 50 columns"
    item = SimpleNamespace(status="not_rehearsed", label=label, detail="")
    console = Console(file=io.StringIO(), width=50, color_system=None)
    console.print(checklist_renderable([item], details=False, waiting=""))
    out = console.file.getvalue()
    assert "…" not in out
    assert " ".join(out.split()) == f"⊘ {label}"


class _LogApp(App):
    def compose(self):
        yield LogTail(id="tail")


@pytest.mark.asyncio
async def test_long_log_lines_wrap_to_the_width():
    app = _LogApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        tail = app.query_one(LogTail)
        long = "[rank0]: " + " ".join(f"word{i}" for i in range(40))
        tail.add(["short line", long])
        tail.flush()
        await pilot.pause()
        width = tail.log_view.scrollable_content_region.width
        rows = [str(r) for r in tail.log_view.lines]
        assert rows[0] == "short line"
        assert len(rows) > 2 and all(len(r) <= width for r in rows)
        assert " ".join(" ".join(rows[1:]).split()) == long
        assert list(tail.lines)[-1] == long  # search looks through the whole line
