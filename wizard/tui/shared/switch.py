"""What a switch of target (backend or FSDP version) does to each stated intent: the switch report's data.

The report itself is the core's (:mod:`wizard.core.answers.convert`), shared with ``fsdpds-wizard convert``; this
module is where the TUI's switch screen takes it from. Kept apart from :mod:`wizard.tui.shared.present` because only a
switch needs it (the first paint does not).
"""
from __future__ import annotations

from ...core.answers.convert import CarryLine, MeaningLine, SwitchReport, switch_report

__all__ = ["CarryLine", "MeaningLine", "SwitchReport", "switch_report"]
