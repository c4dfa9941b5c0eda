"""The effective model: one answer to "what really runs" that every part reads (docs/architecture.md).

``effective(accelerate_yaml, ds_json, situation)`` -> :class:`Effective` ``{key: Used(value, why, by, keys)}``;
:func:`layout` turns a model into the memory estimate's layout. Answers reach it through the renderer:
:func:`wizard.core.answers.of_answers.of_answers`, beside the answer rules that read it.
Pure: no torch, accelerate or deepspeed.
"""
from __future__ import annotations

from .builder import Failure
from .layout import Layout, layout
from .model import RUNS, Effective, effective
from .situation import Situation
from .used import AUTO, CHANGED, DEFAULT, DERIVED, IGNORED, OVERRIDDEN, WHYS, WRITTEN, Used

__all__ = ["AUTO", "CHANGED", "DEFAULT", "DERIVED", "Effective", "Failure", "IGNORED", "Layout", "OVERRIDDEN",
           "RUNS", "Situation", "Used", "WHYS", "WRITTEN", "effective", "layout"]
