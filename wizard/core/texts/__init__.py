"""Explanations for every setting and group of :mod:`wizard.core.catalog`, the dtype table, and what changes meaning
when the backend changes.

One module per catalogue group (``offload``, ``precision``, ...) holds that group's setting texts (``TEXTS``) and
its overview (``GROUP``); :mod:`.dtype_table` the precision table; :mod:`.switching` the meaning changes. Pure data
and small helpers, stdlib only (the wizard's start path must not import torch, accelerate or deepspeed).

Every claim was checked against the installed accelerate 1.15.0, DeepSpeed 0.19.8 and torch sources
(docs/library-behaviour.md gives the file:line evidence, section by section). The prose is our own; where the
Accelerate concept guide "FSDP vs DeepSpeed" predates FSDP2 or disagrees with what the code does, the texts follow
the code and say so in ``versions``.
"""
from __future__ import annotations

from .. import lazy_names
from . import (
    backend,
    checkpoint,
    deepspeed,
    launch,
    loading,
    offload,
    parallelism,
    precision,
    prefetch,
    sharding,
    summoning,
    sync,
    training,
    wrapping,
)
from .model import GroupText, Text

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (issue 26)
if TYPE_CHECKING:
    from .dtype_table import MIXED_PRECISIONS, MODEL_DTYPES, PrecisionRow, precision_notes, precision_table
    from .switching import MEANING_CHANGES, MeaningChange, meaning_changes

_LATER = {"dtype_table": ("MIXED_PRECISIONS", "MODEL_DTYPES", "PrecisionRow", "precision_notes", "precision_table"),
          "switching": ("MEANING_CHANGES", "MeaningChange", "meaning_changes")}
"""The dtype table and the meaning changes, imported when first asked for: the TUI's first screen shows neither
(issue 26)."""
__getattr__ = lazy_names(__name__, _LATER)


_GROUPS = (backend, launch, sharding, parallelism, offload, loading, checkpoint, prefetch, wrapping, summoning, sync,
           training, precision, deepspeed)

TEXTS: dict[str, Text] = {sid: text for module in _GROUPS for sid, text in module.TEXTS.items()}
"""Setting id -> its explanation."""
GROUP_TEXTS: dict[str, GroupText] = {module.__name__.rsplit(".", 1)[1]: module.GROUP for module in _GROUPS}
"""Group id -> its overview."""

__all__ = ["GROUP_TEXTS", "MEANING_CHANGES", "MIXED_PRECISIONS", "MODEL_DTYPES", "TEXTS", "GroupText",
           "MeaningChange", "PrecisionRow", "Text", "meaning_changes", "precision_notes", "precision_table"]
