"""The run's checklist (effective setup against the config) and the diagnosis of a failed run.

Both take plain values from :mod:`wizard.run` (``CheckItem``, ``Diagnosis``: anything with the same
attributes) and render them; severities become classes and colours, never stored state. Their words are English
(the records keep them so) and shown in the wizard's language (:func:`wizard.run.checklist.in_language`,
:func:`wizard.core.localized.said`): keys, values and names as written.
"""
from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from ...core import localized

MARKS = {"ok": ("✔", "bold green"), "fail": ("✖", "bold red"), "warn": ("▲", "bold yellow"),
         "info": ("ℹ", "cyan"), "unknown": ("?", "dim"), "not_rehearsed": ("⊘", "bold yellow")}
REHEARSED_OK = ("≈", "green")
"""A row that held at the value the rehearsal ran instead of the config's ("World size 2 (rehearsed; config: 8)"):
not a ✔, so the ✔ rows are exactly the settings the verdict counts as taken effect."""


def mark_of(item) -> tuple[str, str]:
    if item.status == "ok" and getattr(item, "rehearsed", False):
        return REHEARSED_OK
    return MARKS.get(item.status, ("·", ""))


def checklist_renderable(items: Sequence, *, details: bool, waiting: str) -> Group:
    if not items:
        return Group(Text(waiting, style="dim italic"))
    from ...run.checklist import in_language

    lines = []
    for item in items:
        mark, style = mark_of(item)
        detail = in_language(item.detail)
        line = Text()  # a long row wraps (cut with "…" it lost the part that says what was checked)
        line.append(f"{mark} ", style=style)
        line.append(in_language(item.label), style="bold" if item.status == "fail" else "")
        if item.status == "unknown" and detail and not details:
            line.append(f": {detail}", style="dim")  # why it is unknown is the whole point of the row
        if details and detail:
            line.append(f" — {detail}", style="dim")
        lines.append(line)
    return Group(*lines)


class ChecklistView(Static):
    """One line per check; details are shown when the screen is wide (``details``)."""

    DEFAULT_CSS = """
    ChecklistView { height: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list = []
        self.details = False
        self.waiting = localized.screen("run", "setup_waiting")

    def show(self, items: Sequence, *, details: bool | None = None, waiting: str | None = None) -> None:
        self.items = list(items)
        if details is not None:
            self.details = details
        if waiting is not None:
            self.waiting = waiting
        self.set_class(any(i.status == "fail" for i in self.items), "-fail")
        self.update(checklist_renderable(self.items, details=self.details, waiting=self.waiting))

    @property
    def statuses(self) -> dict[str, str]:
        """label -> status (for tests and scripts)."""
        return {i.label: i.status for i in self.items}


def diagnosis_renderable(diagnoses: Sequence) -> Group:
    return Group(*_diagnosis_lines(diagnoses))


def _diagnosis_lines(diagnoses: Sequence) -> list[Text]:
    lines = []
    for d in diagnoses:
        title = Text()
        title.append("✖ ", style="bold red")
        title.append(localized.said(d.title), style="bold")
        lines.append(title)
        lines.append(Text.assemble((_label("diagnosis_why"), "bold"), localized.said(d.detail)))
        lines.append(Text.assemble((_label("diagnosis_fix"), "bold green"), localized.said(d.fix)))
        if d.evidence:
            lines.append(Text.assemble((_label("diagnosis_seen"), "dim"), (d.evidence[0][:300], "dim")))
    return lines


def _label(key: str) -> str:
    """``  why: `` (indented, a space after an ASCII colon) in the wizard's language (part ``screen-run``)."""
    return "  " + localized.labelled(localized.screen("run", key), "")


class DiagnosisView(Static):
    """Hidden until a run ends with a recognised failure; then the failure, why, and the fix."""

    DEFAULT_CSS = """
    DiagnosisView { display: none; height: auto; }
    DiagnosisView.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.diagnoses: list = []

    def show(self, diagnoses: Sequence) -> None:
        self.diagnoses = list(diagnoses)
        self.set_class(bool(self.diagnoses), "-shown")
        self.update(diagnosis_renderable(self.diagnoses))

    @property
    def text(self) -> str:
        return "\n".join(t.plain for t in _diagnosis_lines(self.diagnoses))
