"""``fsdpds-wizard convert``: imported answers converted to another target, the files rendered, and the round trip
back compared (:func:`round_trip`)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ..answers import Answers
from ..answers.render import render
from ..catalog import DEEPSPEED, FSDP1, FSDP2, SETTINGS
from ..findings import ERROR, Finding, dedupe, sort_findings
from ..recordclass import record
from .effect import in_effect
from .groups import target_answers
from .report import CarryLine, SwitchReport
from .switcher import switch

_SCRIPT_SIDE = frozenset(s.id for s in SETTINGS if not any(t in s.writes for t in (FSDP1, FSDP2)))
"""Settings no FSDP config file holds (training values, the script, the loop): on FSDP they live in answers.yaml only
(and the script)."""


def intent_ids(a: str, b: str) -> tuple[str, ...]:
    """The settings both targets' config files hold: the intent a conversion there and back keeps. Settings that
    only answers.yaml (and the script) hold on one side, such as gradient accumulation on FSDP, are not in it."""
    out = []
    for s in SETTINGS:
        if s.group == "backend" or not (s.applies_to(a) and s.applies_to(b)):
            continue
        if s.id in _SCRIPT_SIDE and DEEPSPEED in (a, b) and a != b:
            continue
        if not (a in s.writes and b in s.writes):
            continue
        out.append(s.id)
    return tuple(out)


def intent(answers: Answers, other: str) -> dict[str, Any]:
    """The answers restricted to :func:`intent_ids` of their target and ``other``."""
    return {sid: answers[sid] for sid in intent_ids(answers.target, other)}


@record(frozen=True)
class Difference:
    setting_id: str
    before: Any
    after: Any

    def to_dict(self) -> dict:
        return {"setting": self.setting_id, "before": self.before, "after": self.after}


@record
class Conversion:
    source: Answers
    """The answers imported from the original config."""
    answers: Answers
    """The converted answers (written as answers.yaml)."""
    report: SwitchReport
    findings: list[Finding]
    """The conversion's findings (``convert-*``) and the import notes, then the converted answers' own findings."""
    generated: Any
    """The :class:`~wizard.core.answers.generate.Generated` files for the output folder."""
    differences: tuple[Difference, ...] = ()
    """What converting the written config back changes in the intent of the original as it ran
    (:func:`round_trip`)."""

    @property
    def carried(self) -> tuple[CarryLine, ...]:
        """The switch report's "same intent" lines (written another way on the new target)."""
        return self.report.carried

    @property
    def round_trip_stable(self) -> bool:
        return not self.differences

    @property
    def ok(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)


def meaning_findings(report: SwitchReport, handled: set[str]) -> list[Finding]:
    """The switch report's "carried over with another meaning" lines as findings (rule ``convert-meaning-changed``),
    except for settings a specific ``convert-*`` finding explains already."""
    from ..rules import RULES
    from ..wizard_rules import CONVERT_MEANING

    info = RULES[CONVERT_MEANING]
    return [Finding(info.severity, CONVERT_MEANING, (m.setting_id,), f"{m.setting_id} = {m.value}: {m.text}",
                    info.fix, "fsdpds-wizard convert")
            for m in report.changed_meaning if m.setting_id not in handled]


def convert_answers(source: Answers, to: str, out_dir: Path | None = None, *, source_ds: dict | None = None,
                    notes: list[Finding] | None = None, ds_path: str = "auto",
                    launch_dir: str | Path | None = None,
                    source_files: tuple[dict, dict | None] | None = None) -> Conversion:
    """Convert imported answers to target ``to`` and render the files for ``out_dir`` (see the module doc)."""
    from ..answers.generate import generate

    switched = switch(source, to, source_ds=source_ds, source_files=source_files)
    answers, conv, report = switched.answers, list(switched.findings), switched.report
    g1 = generate(answers, out_dir, ds_path=ds_path, launch_dir=launch_dir)
    handled = {k for f in conv for k in f.keys if f.rule != "convert-meaning-changed"}
    findings = list(notes or []) + conv + meaning_findings(report, handled) + g1.findings
    conversion = Conversion(source, answers, report, sort_findings(dedupe(findings)), g1)
    conversion.differences = round_trip(source, answers)
    return conversion


def round_trip(source: Answers, converted: Answers) -> tuple[Difference, ...]:
    """Convert the config written for ``converted`` back to ``source``'s target (rendered, re-imported, converted)
    and compare the intent (:func:`intent_ids`) with the source's as it ran (:func:`in_effect`): the differences, in
    catalogue order."""
    from ..answers.importer import import_mapping

    rendered = render(converted)
    back, _ = import_mapping(rendered.accelerate, rendered.deepspeed)
    if back is None:  # cannot happen for a rendered config; say everything differs rather than hide it
        return tuple(Difference(sid, source[sid], None) for sid in intent_ids(source.target, converted.target))
    again, _ = target_answers(back, source.target, source_ds=rendered.deepspeed, quiet=True)
    ran, _ = in_effect(source, quiet=True, keep_intents=False)  # what ran: the files cannot keep an intent
    ids = intent_ids(source.target, converted.target)
    return tuple(Difference(sid, ran[sid], again[sid]) for sid in ids
                 if effective_value(ran, sid) != effective_value(again, sid))


def effective_value(a: Answers, sid: str) -> Any:
    """An answer as it runs, for the round-trip comparison: a missing port with several machines is 29500."""
    if sid == "launch.main_process_port" and a[sid] is None and a["launch.num_machines"] > 1:
        return 29500
    return a[sid]


