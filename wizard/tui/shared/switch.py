"""What a switch of target (backend or FSDP version) does to each stated intent: the switch report's data.

The switch itself is the core's (:func:`wizard.core.convert.switch`), the same one ``fsdpds-wizard convert`` makes;
this module is where the TUI's switch screen takes it from. Kept apart from :mod:`wizard.tui.present` because only a
switch needs it (the first paint does not).
"""
from __future__ import annotations

from ...core.convert import CarryLine, MeaningLine, Switch, SwitchReport, keep_unplaced, switch, switch_report

__all__ = ["CarryLine", "MeaningLine", "Switch", "SwitchReport", "keep_unplaced", "switch", "switch_report"]
