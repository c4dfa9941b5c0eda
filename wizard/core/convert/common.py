"""What the conversion steps share: the answers being built (:class:`Out`), the value spellings of the messages, and
the target choices of ``--to``."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..answers import Answers
from ..catalog import DEEPSPEED, FSDP1, FSDP2, SETTING_BY_ID
from ..catalog.writes import keys_of
from ..findings import Finding
from ..recordclass import field, record

if TYPE_CHECKING:
    from ..answers.render import Rendered

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
        import json  # most values shown are scalars: json stays off the TUI's first frame (issue 26)

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


_MISSING = object()
"""No value at a path of the rendered files."""


def rendered_value(rendered: Rendered, path: str) -> tuple[str, Any] | None:
    """(file, value) for a provenance path of the rendered accelerate YAML (``yaml``) or DeepSpeed JSON (``json``)."""
    for name, data in (("yaml", rendered.accelerate), ("json", rendered.deepspeed)):
        node: Any = data
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                node = _MISSING
                break
            node = node[part]
        if node is not _MISSING and not isinstance(node, dict):
            return name, node
    return None


def written_for(rendered: Rendered, setting_id: str) -> list[tuple[str, str, Any]]:
    """Every (file, key, value) the setting produced in this render: the keys the catalogue declares for it, in
    that order, where this render wrote them for it (a setting without declared keys, ``deepspeed.extra``: every key
    it wrote)."""
    declared = keys_of(setting_id)
    paths = [key for _, key in declared] if declared else list(rendered.provenance)
    out = []
    for path in paths:
        sid = rendered.provenance.get(path)
        if sid != setting_id and setting_id not in rendered.shared.get(path, ()):
            continue
        found = rendered_value(rendered, path)
        if found is not None:
            out.append((found[0], path, found[1]))
    return out
