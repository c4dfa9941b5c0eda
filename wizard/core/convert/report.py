"""The switch report: what a change of target (backend or FSDP version) did to each stated intent, shown by the TUI
after ctrl+t and by ``fsdpds-wizard convert`` (both through :func:`wizard.core.convert.switch`). Each line is
classified by the counterparts table, :mod:`wizard.core.texts.switching`."""
from __future__ import annotations

from typing import Any

from ..answers import Answers
from ..answers.render import Rendered
from ..catalog import FSDP1, FSDP2, JSON, SETTING_BY_ID, SETTINGS, TARGET_LABELS, YAML
from ..findings import ERROR, WARNING, Finding
from ..i18n import said
from ..recordclass import record
from ..texts.switching import KEPT, NONE, OTHER, SAME, SAME_FSDP_KEYS
from ..texts.switching import classify as counterparts
from .common import _MISSING, show_value, written_for

_ALWAYS_SHOWN = ("sharding.strategy", "offload.optimizer", "offload.params", "loading.ram_efficient",
                 "checkpoint.format", "precision.mixed_precision")
"""Shown in a switch report's "carried" list whenever their written form changes, stated or not."""


# ------------------------------------------------------------------------------------------------ the switch report
@record(frozen=True)
class CarryLine:
    setting_id: str
    label: str
    value: str
    before: str
    after: str
    reason: str = ""


    def to_dict(self) -> dict:
        return {"setting": self.setting_id, "value": self.value, "before": self.before, "after": self.after,
                "reason": self.reason}


@record(frozen=True)
class MeaningLine:
    setting_id: str
    value: str
    text: str
    before: str = ""
    """How the source wrote it."""
    after: str = ""
    """How the new target writes it."""

    def to_dict(self) -> dict:
        return {"setting": self.setting_id, "value": self.value, "before": self.before, "after": self.after,
                "text": self.text}


@record(frozen=True)
class SwitchReport:
    before: str
    after: str
    carried: tuple[CarryLine, ...]
    dropped: tuple[CarryLine, ...]
    new_findings: tuple[Finding, ...]
    changed_meaning: tuple[MeaningLine, ...] = ()
    """Answers that carried over but behave differently on the new target (a loss to report, too)."""
    changed: tuple[MeaningLine, ...] = ()
    """Answers that whatever made the new answers changed itself (``changed_by``: a suggestion), with the keys that
    setting wrote before and writes now; not carried over, not lost."""
    changed_by: str = ""
    """Who made the new answers, when not a switch ("the suggestion"); empty for a switch."""

    @property
    def empty(self) -> bool:
        return not (self.carried or self.dropped or self.new_findings or self.changed_meaning or self.changed)

    @property
    def lossless(self) -> bool:
        """Nothing dropped, nothing new to fix, nothing that means something else now."""
        return not (self.dropped or self.new_findings or self.changed_meaning)

    def to_dict(self) -> dict:
        """The report as ``fsdpds-wizard convert --format json`` prints it (the TUI shows the same lines)."""
        out = {"before": self.before, "after": self.after,
               SAME: [c.to_dict() for c in self.carried],
               OTHER: [m.to_dict() for m in self.changed_meaning],
               NONE: [d.to_dict() for d in self.dropped],
               "new_findings": [f.to_dict() for f in self.new_findings],
               "lossless": self.lossless}
        if self.changed_by:
            out[f"changed by {self.changed_by}"] = [m.to_dict() for m in self.changed]
        return out


def _keys_text(items: list[tuple[str, str, Any]]) -> str:
    return ", ".join(f"{path.rsplit('.', 1)[-1] if file == 'yaml' else path}: {show_value(v)}"
                     for file, path, v in items[:2])


def _unwritten_text(sid: str, target: str) -> str:
    """A setting this config has no key written for: "(not written)" where the target has keys for it (the
    library's default runs), or where its value lives instead (the script, the command line)."""
    s = SETTING_BY_ID[sid]
    if not s.applies_to(target):
        return "(not written)"
    if s.writes.get(target) and target not in s.where_text:
        return "(not written)"
    where = s.where[target]
    return where if where.startswith("(") else f"({where})"


def _written_text(rendered: Rendered, sid: str, target: str) -> str:
    items = written_for(rendered, sid)
    return _keys_text(items) if items else _unwritten_text(sid, target)


def _own_text(rendered: Rendered, sid: str, target: str) -> str:
    """How one setting is written, for a line about that setting alone: a key it shares with other settings says so
    (FSDP's fsdp_offload_params is the one switch for the optimizer and the parameters)."""
    if not SETTING_BY_ID[sid].applies_to(target):
        return "(not written)"
    text = _written_text(rendered, sid, target)
    shared = [ids for path, ids in rendered.shared.items()
              if sid in ids and len(ids) > 1 and any(p == path for _, p, _ in written_for(rendered, sid))]
    return text + "".join(f" (one key for {' and '.join(ids)})" for ids in shared)


def _lookup(data: Any, path: str, fsdp_names: bool) -> Any:
    node = data
    for i, part in enumerate(path.split(".")):
        if not isinstance(node, dict):
            return _MISSING
        if part in node:
            node = node[part]
            continue
        if fsdp_names and i == 1 and path.startswith("fsdp_config."):  # the launcher adds fsdp_ to a bare name
            match = [k for k in node if isinstance(k, str) and "fsdp_" + k == part]
            if match:
                node = node[match[-1]]
                continue
        return _MISSING
    return node


def _quoted_text(files: tuple[Any, Any], sid: str, target: str) -> str:
    """What the source files say for a setting, as written there (the keys the catalogue declares for the source's
    target, in the accelerate YAML or the DeepSpeed JSON)."""
    acc, ds = files
    items: list[tuple[str, str, Any]] = []
    for w in SETTING_BY_ID[sid].writes.get(target, ()):
        data = ds if w.file == JSON else acc
        value = _lookup(data, w.key, fsdp_names=True)
        if value is not _MISSING and not isinstance(value, dict) and (w.file, w.key, value) not in items:
            items.append(("yaml" if w.file == YAML else "json", w.key, value))
    return _keys_text(items) if items else _unwritten_text(sid, target)


def classify(setting_id: str, value: Any, t0: str, t1: str, becomes: Any) -> tuple[str, tuple[str, ...]]:
    """(class, reasons) of a report line, from the counterparts table (:mod:`wizard.core.texts.switching`); a
    setting the new target has no place for and no entry: no counterpart, for the catalogue's reason. ``LookupError``
    for a setting the table misses (tests/unit/test_convert_switch.py keeps the table complete)."""
    found = counterparts(setting_id, value, t0, t1, becomes)
    if found:
        return found[0].kind, tuple(c.text for c in found)
    s = SETTING_BY_ID[setting_id]
    if s.applies_to(t0) and not s.applies_to(t1):
        return NONE, (s.not_applicable.get(t1, ""),)
    if not s.applies_to(t0) and s.applies_to(t1):
        return SAME, (KEPT,)
    keys = {t: [w.key for w in s.writes.get(t, ())] for t in (FSDP1, FSDP2)}
    if {t0, t1} == {FSDP1, FSDP2} and keys[FSDP1] and keys[FSDP1] == keys[FSDP2]:
        return SAME, (SAME_FSDP_KEYS,)
    raise LookupError(f"the counterparts table (wizard/core/texts/switching.py) does not classify {setting_id} = "
                      f"{value!r} from {t0} to {t1} (converted: {becomes!r})")


def _declared_becomes(setting_id: str, value: Any, t0: str, t1: str, becomes: Any) -> bool:
    """The counterparts table says this value becomes that one on the new target (hybrid on one machine -> plain)."""
    return any(c.becomes is not None for c in counterparts(setting_id, value, t0, t1, becomes))


def switch_report(before: Answers, after: Answers, r_before: Rendered, r_after: Rendered,
                  f_before: list[Finding], f_after: list[Finding],
                  source_files: tuple[Any, Any] | None = None, changed_by: str = "") -> SwitchReport:
    """What a change of target did to each stated intent: ``before`` (the source answers, taken as their target ran
    them) against ``after`` (the converted answers, :func:`wizard.core.convert.target_answers`), with their rendered
    files and findings. Each line is classified by the counterparts table (:func:`classify`): the same intent
    (carried, listed when its written form changed), another meaning, or no counterpart (dropped: listed when the
    answer was stated). ``source_files`` (the accelerate YAML and DeepSpeed JSON the source answers were imported
    from): the "before" column quotes them instead of the source answers' rendering. ``changed_by``: the new
    answers are not a switch but were made by that (a suggestion of the Memory screen): the answers it changed itself
    are listed apart (:attr:`SwitchReport.changed`), each with the keys that setting wrote before and writes now."""
    from .effect import in_effect, not_in_effect, unplaced

    ran, _ = in_effect(before, quiet=True)
    unapplied = not_in_effect(after)
    t0, t1 = before.target, after.target
    no_place, kept_before, unapplied_before = unplaced(after), unplaced(before), not_in_effect(before)
    carried: list[CarryLine] = []
    dropped: list[CarryLine] = []
    meaning: list[MeaningLine] = []
    changed: list[MeaningLine] = []
    for s in SETTINGS:
        if s.group == "backend" or not (s.applies_to(t0) or s.applies_to(t1)):
            continue
        if changed_by and after[s.id] != before[s.id]:  # not carried over: the suggestion chose the new value
            changed.append(MeaningLine(s.id, show_value(after[s.id]), said(f"changed by {changed_by}: "
                                       f"{show_value(before[s.id])} -> {show_value(after[s.id])}"),
                                       _own_text(r_before, s.id, t0), _own_text(r_after, s.id, t1)))
            continue
        if not (before.is_set(s.id) or s.id in _ALWAYS_SHOWN):
            continue
        value = show_value(ran[s.id])
        kind, reasons = classify(s.id, ran[s.id], t0, t1, after[s.id])
        if s.id in no_place and ran[s.id] != no_place[s.id][0]:
            # the new target writes the setting, its ZeRO stage has no place for this answer: not in effect there
            kind, reasons = NONE, (said(f"not in effect on {TARGET_LABELS[t1]}: {no_place[s.id][1]}"),)
        elif (s.id in kept_before and s.id in unapplied_before and s.id in before.explicit and s.applies_to(t1)
              and after[s.id] == ran[s.id]):
            # an intent the source's ZeRO stage had no place for (kept from an earlier switch): in effect again
            kind, reasons = OTHER, (said(f"kept on {TARGET_LABELS[t0]}, where it was not in effect: "
                                         f"{kept_before[s.id][1]}; {TARGET_LABELS[t1]} applies it as answered"),)
        elif kind == SAME and s.id in unapplied:
            kind, reasons = OTHER, (said(f"{TARGET_LABELS[t1]} does not apply it {unapplied[s.id][1]}: it runs "
                                         f"{show_value(unapplied[s.id][0])}"),)
        elif kind == SAME and after[s.id] != ran[s.id] and not _declared_becomes(s.id, ran[s.id], t0, t1, after[s.id]):
            kind, reasons = OTHER, (said(f"changed with the switch: {value} -> {show_value(after[s.id])} (not "
                                         "only written the new way)"),)
        b = _quoted_text(source_files, s.id, t0) if source_files else _written_text(r_before, s.id, t0)
        if kind == NONE:
            if s.id in no_place:  # written all the same (zero3_init_flag: false): say how
                dropped.append(CarryLine(s.id, s.label, value, b, _written_text(r_after, s.id, t1), reasons[0]))
            elif before.is_set(s.id):
                dropped.append(CarryLine(s.id, s.label, value, b, "(not written)", reasons[0]))
            continue
        a = _written_text(r_after, s.id, t1)
        if kind == OTHER:
            meaning.extend(MeaningLine(s.id, value, text, b, a) for text in reasons)
        elif b != a:
            carried.append(CarryLine(s.id, s.label, value, b, a, reasons[0]))
    old = {(f.rule, f.keys) for f in f_before}
    new = tuple(f for f in f_after if (f.rule, f.keys) not in old and f.severity in (ERROR, WARNING))
    return SwitchReport(TARGET_LABELS[t0], TARGET_LABELS[t1], tuple(carried), tuple(dropped), new, tuple(meaning),
                        tuple(changed), changed_by)
