"""Converting between targets (FSDP1, FSDP2, DeepSpeed): the switch report both the TUI and ``fsdpds-wizard
convert`` show, and the conversion of an imported config into answers for another target, with a finding for
everything whose meaning changes or that cannot carry over (docs/convert.md).

- :mod:`.effect`: :func:`in_effect`, the answers as their own target runs them (what every conversion starts from);
- :mod:`.groups`: :func:`target_answers`, one step per settings group;
- :mod:`.report`: :func:`switch_report`, what carried over (and how it is written now), what was dropped and what
  carried with another meaning;
- :mod:`.switcher`: :func:`switch`, the one function both the TUI's ctrl+t and ``convert`` call: (source answers,
  target) -> the converted answers, their findings and the switch report;
- :mod:`.conversion`: :func:`convert_answers` (the command) and :func:`round_trip`.

The report's lines are classified by the counterparts table, :mod:`wizard.core.texts.switching`.

A conversion keeps the answers' intent and writes what the new target really does: where the new target has no exact
twin (ZeRO-1 on FSDP, partial offload on FSDP, NVMe on FSDP, HYBRID_SHARD_ZERO2 on DeepSpeed, ...), the converted
answers hold the closest value the new config writes, so ``answers.yaml`` and the written config say the same thing,
and a finding names the change. Settings the new target has no place for are reset to their defaults and listed.

Pure and light: stdlib plus the wizard's core (no torch, accelerate, deepspeed or transformers).
"""
from __future__ import annotations

from .. import lazy_names

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (issue 26)
if TYPE_CHECKING:
    from .common import TARGET_CHOICES, rendered_value, show_value, target_for, written_for
    from .conversion import (
        Conversion,
        Difference,
        convert_answers,
        effective_value,
        intent,
        intent_ids,
        meaning_findings,
        round_trip,
    )
    from .effect import in_effect, keep_unplaced, unplaced
    from .groups import target_answers
    from .report import CarryLine, MeaningLine, SwitchReport, classify, switch_report
    from .switcher import Switch, switch

_WHERE = {
    "common": ("TARGET_CHOICES", "rendered_value", "show_value", "target_for", "written_for"),
    "conversion": ("Conversion", "Difference", "convert_answers", "effective_value", "intent", "intent_ids",
                   "meaning_findings", "round_trip"),
    "effect": ("in_effect", "keep_unplaced", "unplaced"),
    "groups": ("target_answers",),
    "report": ("CarryLine", "MeaningLine", "SwitchReport", "classify", "switch_report"),
    "switcher": ("Switch", "switch"),
}
"""Each module of the package -> the names it defines. The modules are imported when a name is first asked for:
the TUI's first screen needs only :mod:`.common`'s (issue 26), ``convert`` and ctrl+t need them all."""
__getattr__ = lazy_names(__name__, _WHERE)


__all__ = ["CarryLine", "Conversion", "Difference", "MeaningLine", "Switch", "SwitchReport", "TARGET_CHOICES",
           "classify", "convert_answers", "effective_value", "in_effect", "intent", "intent_ids", "keep_unplaced",
           "meaning_findings", "rendered_value", "round_trip", "show_value", "switch", "switch_report",
           "target_answers", "target_for", "unplaced", "written_for"]
