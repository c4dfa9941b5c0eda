"""One switch of target, for the TUI's ctrl+t and for ``fsdpds-wizard convert`` alike: :func:`switch` builds the
converted answers and the switch report from (the source answers, the target), so the two cannot disagree."""
from __future__ import annotations

from ..answers import Answers
from ..catalog import SETTINGS
from ..findings import Finding
from ..recordclass import record
from .effect import keep_unplaced
from .groups import target_answers
from .report import SwitchReport, switch_report


@record(frozen=True)
class Switch:
    source: Answers
    """The answers switched from."""
    answers: Answers
    """The converted answers: the closest values the new config writes (:func:`target_answers`)."""
    findings: tuple[Finding, ...]
    """The conversion's own findings (rules ``convert-*``)."""
    report: SwitchReport

    @property
    def kept(self) -> Answers:
        """The converted answers plus the source's stated answers the new target has no place for (not written; the
        TUI keeps them, marked "not applicable", so that switching back restores them), and the source's answers its
        ZeRO stage has no place for (:func:`~.effect.unplaced`: ram-efficient loading or the full save below ZeRO-3),
        kept as stated answers for the same reason."""
        to = self.answers.target
        keep = {s.id: self.source[s.id] for s in SETTINGS
                if s.group != "backend" and self.source.is_set(s.id) and not s.applies_to(to)}
        return keep_unplaced(self.source, self.answers.replace(keep) if keep else self.answers)


def switch(source: Answers, to: str, *, source_ds: dict | None = None,
           source_files: tuple[dict, dict | None] | None = None) -> Switch:
    """``source`` switched to target ``to``: the converted answers, the conversion's findings and the switch report
    (both answers rendered without an output folder, so where the files go changes nothing in it). ``source_ds``:
    the original DeepSpeed JSON, when there was one; ``source_files``: the accelerate YAML and DeepSpeed JSON as
    loaded, when the source was imported from files (the report's "before" column quotes them)."""
    from ..answers.generate import generate

    answers, findings = target_answers(source, to, source_ds=source_ds)
    g0, g1 = generate(source, None), generate(answers, None)
    report = switch_report(source, answers, g0.rendered, g1.rendered, g0.findings, g1.findings, source_files)
    return Switch(source, answers, tuple(findings), report)
