"""What a switch of target (backend or FSDP version) does to each stated intent: the switch report's data.

Kept apart from :mod:`wizard.tui.present` because only a switch needs it (the first paint does not).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core.answers import Answers
from ..core.catalog import SETTING_BY_ID, SETTINGS, TARGET_LABELS
from ..core.findings import ERROR, WARNING, Finding
from ..core.render import Rendered
from .present import show_value, written_for

_ALWAYS_SHOWN = ("sharding.strategy", "offload.optimizer", "offload.params", "loading.ram_efficient",
                 "checkpoint.format", "precision.mixed_precision")


@dataclass(frozen=True)
class CarryLine:
    setting_id: str
    label: str
    value: str
    before: str
    after: str
    reason: str = ""


@dataclass(frozen=True)
class MeaningLine:
    setting_id: str
    value: str
    text: str


@dataclass(frozen=True)
class SwitchReport:
    before: str
    after: str
    carried: tuple[CarryLine, ...]
    dropped: tuple[CarryLine, ...]
    new_findings: tuple[Finding, ...]
    changed_meaning: tuple[MeaningLine, ...] = ()
    """Answers that carried over but behave differently on the new target (a loss to report, too)."""

    @property
    def empty(self) -> bool:
        return not (self.carried or self.dropped or self.new_findings or self.changed_meaning)

    @property
    def lossless(self) -> bool:
        """Nothing dropped, nothing new to fix, nothing that means something else now."""
        return not (self.dropped or self.new_findings or self.changed_meaning)


def _written_text(rendered: Rendered, sid: str, target: str) -> str:
    items = written_for(rendered, sid)
    if not items:
        s = SETTING_BY_ID[sid]
        if s.applies_to(target):
            return f"(via {s.where[target].split('.', 1)[-1]})"
        return "(not written)"
    return ", ".join(f"{path.rsplit('.', 1)[-1] if file == 'yaml' else path}: {show_value(v)}"
                     for file, path, v in items[:2])


def switch_report(before: Answers, after: Answers, r_before: Rendered, r_after: Rendered,
                  f_before: list[Finding], f_after: list[Finding]) -> SwitchReport:
    """What a change of backend or FSDP version did to each stated intent."""
    from ..core.texts import meaning_changes

    t0, t1 = before.target, after.target
    carried: list[CarryLine] = []
    dropped: list[CarryLine] = []
    meaning: list[MeaningLine] = []
    for s in SETTINGS:
        if s.group == "backend":
            continue
        stated = before.is_set(s.id) or s.id in _ALWAYS_SHOWN
        if not stated:
            continue
        value = show_value(before[s.id])
        if s.applies_to(t0) and not s.applies_to(t1):
            if before.is_set(s.id):
                dropped.append(CarryLine(s.id, s.label, value, _written_text(r_before, s.id, t0), "(not written)",
                                         s.not_applicable.get(t1, "")))
            continue
        if s.applies_to(t1):
            b, a = _written_text(r_before, s.id, t0), _written_text(r_after, s.id, t1)
            if b != a:
                carried.append(CarryLine(s.id, s.label, value, b, a))
            if s.applies_to(t0):
                meaning.extend(MeaningLine(s.id, value, text) for text in meaning_changes(s.id, before[s.id], t0, t1))
    old = {(f.rule, f.keys) for f in f_before}
    new = tuple(f for f in f_after if (f.rule, f.keys) not in old and f.severity in (ERROR, WARNING))
    return SwitchReport(TARGET_LABELS[t0], TARGET_LABELS[t1], tuple(carried), tuple(dropped), new, tuple(meaning))
