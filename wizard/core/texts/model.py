"""The shapes of the explanations: one :class:`Text` per setting, one :class:`GroupText` per group (records, not
dataclasses: they are built on the TUI's start path, issue 26)."""
from __future__ import annotations

from ..recordclass import record


@record(frozen=True)
class Text:
    what: str
    """What the setting does and why a user cares (memory/speed cost, which value when)."""
    fsdp: str
    """Meaning on FSDP, with FSDP1/FSDP2 differences."""
    deepspeed: str
    """Meaning on DeepSpeed, or why there is no such setting and what happens instead."""
    versions: str = ""
    """Version notes and pitfalls."""
    tips: str = ""
    """Optional recommendation."""
    claims: tuple[str, ...] = ()
    """The claims (:mod:`wizard.core.claims`) these lines state about the libraries."""


@record(frozen=True)
class GroupText:
    summary: str
    """The side-by-side idea of the group."""
    fsdp: str
    """The FSDP keys, one short line each."""
    deepspeed: str
    """The DeepSpeed keys, one short line each."""
    no_counterpart: str
    """What cannot carry over between the backends in this group."""
    claims: tuple[str, ...] = ()
    """The claims (:mod:`wizard.core.claims`) these lines state about the libraries."""
