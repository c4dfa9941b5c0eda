"""The effective model: one answer to "what really runs" that every part reads (docs/architecture.md).

``effective(accelerate_yaml, ds_json, situation)`` -> :class:`Effective` ``{key: Used(value, why, by, keys)}``;
``of_answers(answers)`` goes through the renderer; :func:`layout` turns a model into the memory estimate's layout.
Pure: no torch, accelerate or deepspeed.
"""
from __future__ import annotations

from .builder import Failure
from .layout import Layout, layout
from .model import RUNS, Effective, effective
from .of_answers import of_answers, situation_of
from .situation import Situation
from .used import AUTO, CHANGED, DEFAULT, DERIVED, IGNORED, OVERRIDDEN, WHYS, WRITTEN, Used

__all__ = ["AUTO", "CHANGED", "DEFAULT", "DERIVED", "Effective", "Failure", "IGNORED", "Layout", "OVERRIDDEN",
           "RUNS", "Situation", "Used", "WHYS", "WRITTEN", "effective", "layout", "of_answers", "situation_of"]
