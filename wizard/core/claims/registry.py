"""The claim registry: :data:`CLAIMS` and :func:`claim`, which the area modules call."""
from __future__ import annotations

from .model import Claim

CLAIMS: dict[str, Claim] = {}
"""Claim id -> claim, in registration order."""


def claim(id: str, says: str, *, doc: str, code: str, demo: str = "", why_not_demo: str = "",
          scope: tuple[str, ...] = ()) -> str:
    """Register a claim; returns its id for the modules that cite it. ``scope``: the cases ``says`` covers
    (:attr:`Claim.scope`)."""
    if id in CLAIMS:
        raise ValueError(f"claim {id!r} registered twice")
    if bool(demo) == bool(why_not_demo):
        raise ValueError(f"claim {id!r}: give either the demonstrating test (demo=) or why there is none")
    if len(set(scope)) != len(scope) or any(not case or " " in case for case in scope):
        raise ValueError(f"claim {id!r}: a scope is distinct case ids without spaces, got {scope!r}")
    CLAIMS[id] = Claim(id, says, doc, code, demo, why_not_demo, tuple(scope))
    return id
