"""The run screen's checklist: a row that held only at the value the rehearsal ran ("World size 2 (rehearsed;
config: 8)") is not drawn with ✔, so the ✔ rows are exactly the settings the verdict counts as taken effect
(issue 21 item 13, found again when the journeys were re-walked)."""
from __future__ import annotations

from wizard.run.checklist import NOT_REHEARSED, OK, CheckItem, verdict
from wizard.tui.widgets.checklist import checklist_renderable


def test_the_ticks_are_the_settings_that_took_effect():
    items = [CheckItem(OK, "World size 2 (rehearsed; config: 8)", key="world_size", rehearsed=True),
             CheckItem(OK, "ZeRO stage 2", key="zero_stage"),
             CheckItem(OK, "Mixed precision bf16", key="mixed_precision"),
             CheckItem(NOT_REHEARSED, "Not rehearsed: processes 8 (ran 2)", key="launch.num_processes")]
    lines = [t.plain for t in checklist_renderable(items, details=False, waiting="").renderables]
    ticks = [ln for ln in lines if ln.startswith("✔")]
    assert "took effect: 2 settings" in verdict(items) and len(ticks) == 2
    assert lines[0].startswith("≈ World size 2 (rehearsed; config: 8)")
    assert items[0].render().startswith("[~ok]")
