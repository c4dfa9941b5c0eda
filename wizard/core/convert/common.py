"""What the conversion steps share: the answers being built (:class:`Out`), the value spellings of the messages, and
the target choices of ``--to``."""
from __future__ import annotations

import json
from typing import Any

from ..answers import Answers
from ..catalog import DEEPSPEED, FSDP1, FSDP2, SETTING_BY_ID
from ..findings import Finding
from ..recordclass import field, record

TARGET_CHOICES = ("deepspeed", "fsdp")
"""What ``--to`` takes; ``fsdp`` with an FSDP version (default 2)."""


def target_for(to: str, fsdp_version: int | None = None) -> str:
    """``--to deepspeed|fsdp`` (+ ``--fsdp-version``, default 2) -> a target id."""
    if to == "deepspeed":
        return DEEPSPEED
    return FSDP1 if fsdp_version == 1 else FSDP2


def show_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


@record
class Out:
    """The converted values and the findings about them, built up by the conversion steps."""

    values: dict[str, Any]
    explicit: set[str]
    findings: list[Finding] = field(default_factory=list)

    def emit(self, rule: str, keys: tuple[str, ...] | list[str], message: str, fix: str = "") -> None:
        from ..rules import RULES

        info = RULES[rule]
        self.findings.append(Finding(info.severity, rule, tuple(keys), message, fix or info.fix,
                                     "fsdpds-wizard convert"))

    def set(self, sid: str, value: Any) -> None:
        self.values[sid] = value
        self.explicit.add(sid)

    def reset(self, sid: str) -> None:
        self.values[sid] = SETTING_BY_ID[sid].default
        self.explicit.discard(sid)

    def answers(self) -> Answers:
        return Answers(self.values, frozenset(self.explicit))


def nonhybrid(strategy: str) -> str:
    return {"hybrid_full": "full", "hybrid_grads_optimizer": "grads_optimizer"}.get(strategy, strategy)


def prefetch_name(value: str) -> str:
    return {"pre": "BACKWARD_PRE", "post": "BACKWARD_POST", "none": "NO_PREFETCH"}.get(value, value)


def native(sid: str, target: str | None = None) -> str:
    """The config key a setting is written to (for ``target``, else its first), for messages."""
    s = SETTING_BY_ID[sid]
    targets = [target] if target else [t for t in (DEEPSPEED, FSDP1, FSDP2) if t in s.writes]
    for t in targets:
        for w in s.writes.get(t, ()):
            return w.key.rsplit(".", 1)[-1] if w.key.startswith(("deepspeed_config.", "fsdp_config.")) else w.key
    return sid


def leaf_keys(tree: dict, prefix: str = "") -> list[str]:
    out: list[str] = []
    for k, val in tree.items():
        if isinstance(val, dict) and val:
            out.extend(leaf_keys(val, f"{prefix}{k}."))
        else:
            out.append(f"{prefix}{k}")
    return out
