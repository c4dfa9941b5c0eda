"""Who states each claim: the texts, settings, rules and tables that cite it (what to revisit when it fails).

Imports the texts, the catalogue and every rule module (stdlib only, but more than a claim lookup needs), so it is
its own module."""
from __future__ import annotations

from functools import lru_cache

from .registry import CLAIMS


@lru_cache(maxsize=1)
def citations() -> dict[str, tuple[str, ...]]:
    """Claim id -> who cites it, as ``text precision.mixed_precision``, ``group text offload``, ``setting
    offload.params``, ``rule ds-json-overrides-mixed-precision``, ``dtype table``, ``meaning change ...``; also
    ids cited but never
    registered (the tests report those)."""
    from ..catalog import SETTINGS
    from ..docs import rules as rules_doc  # noqa: F401 - imports every rule module, so the registry is complete
    from ..rules import RULES
    from ..texts import GROUP_TEXTS, TEXTS
    from ..texts.dtype_table import TABLE_CLAIMS
    from ..texts.switching import MEANING_CHANGES

    out: dict[str, list[str]] = {cid: [] for cid in CLAIMS}
    cited: list[tuple[str, tuple[str, ...]]] = []
    cited += [(f"text {sid}", t.claims) for sid, t in TEXTS.items()]
    cited += [(f"group text {gid}", g.claims) for gid, g in GROUP_TEXTS.items()]
    cited += [(f"setting {s.id}", s.claims) for s in SETTINGS]
    cited += [(f"rule {name}", info.claims) for name, info in RULES.items()]
    cited += [("dtype table", TABLE_CLAIMS)]
    cited += [(meaning_change_name(m), m.claims) for m in MEANING_CHANGES]
    for who, ids in cited:
        for cid in ids:
            out.setdefault(cid, []).append(who)
    # sorted: the registry's order depends on which rule module was imported first
    return {cid: tuple(sorted(whos)) for cid, whos in out.items()}


def meaning_change_name(m) -> str:
    """``meaning change offload.optimizer deepspeed->fsdp1/fsdp2``: how a switch note is named in the lists."""
    return f"meaning change {m.setting_id} {'/'.join(m.before)}->{'/'.join(m.after)}"


def used_by(claim_id: str) -> tuple[str, ...]:
    return citations().get(claim_id, ())


def revisit(claim_id: str) -> str:
    """The message a failing claim test adds: the claim, and what states it."""
    c = CLAIMS.get(claim_id)
    if c is None:
        return f"claim {claim_id!r} is not registered in wizard/core/claims/"
    whos = used_by(claim_id)
    return (f"Claim {claim_id} no longer holds on the installed libraries: {c.says}\n"
            f"Revisit what states it: {', '.join(whos) or '(nothing cites it)'}; and docs/library-behaviour.md#"
            f"{c.doc} ({c.code}).")
