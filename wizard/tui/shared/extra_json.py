"""The Extra DeepSpeed JSON (``deepspeed.extra``) as the editor shows it, and what an edit of it would drop.

No Textual here: the editor (widgets/json_editor.py) and its tests use these.
"""
from __future__ import annotations

import difflib
import json
from typing import Any


def pretty(value: Any) -> str:
    """The value as the editor shows it: indented, keys sorted; ``{}`` when empty."""
    return json.dumps(value or {}, indent=2, sort_keys=True, ensure_ascii=False)


def leaf_paths(value: Any, prefix: str = "") -> list[str]:
    """The dotted paths of the values in a JSON object (an empty object counts as a value)."""
    if not isinstance(value, dict) or (not value and prefix):
        return [prefix] if prefix else []
    out: list[str] = []
    for key, sub in value.items():
        out += leaf_paths(sub, f"{prefix}.{key}" if prefix else str(key))
    return out


def _present(value: Any, path: str) -> bool:
    node = value
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def dropped(old: Any, new: Any) -> list[str]:
    """The paths of ``old`` that ``new`` no longer has (a changed value is not dropped); a block dropped whole is
    named once, not key by key."""
    out: list[str] = []
    for path in leaf_paths(old):
        if _present(new, path):
            continue
        parts = path.split(".")
        cut = next(i for i in range(1, len(parts) + 1) if not _present(new, ".".join(parts[:i])))
        name = ".".join(parts[:cut])
        if name not in out:
            out.append(name)
    return out


def diff(old: Any, new: Any) -> str:
    """A unified diff from the current value to the edited one, as the editor shows them."""
    from ...core.i18n.lines import line  # the headers' words in the language, the name as it is

    return "".join(difflib.unified_diff((pretty(old) + "\n").splitlines(keepends=True),
                                        (pretty(new) + "\n").splitlines(keepends=True),
                                        fromfile=line("diff_now", name="deepspeed.extra"),
                                        tofile=line("diff_edited", name="deepspeed.extra"), n=2))
