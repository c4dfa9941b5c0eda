"""The answers.yaml schema, derived from the catalogue: JSON Schema and a Markdown reference."""
from __future__ import annotations

from typing import Any

from ..catalog import GROUPS, SETTINGS, TARGET_LABELS, TARGETS, Setting, settings_in
from .model import SCHEMA_VERSION, range_text


def _value_schema(s: Setting) -> dict[str, Any]:
    if s.kind == "choice":
        base: dict[str, Any] = {"enum": list(s.choices)}
    elif s.kind == "bool":
        base = {"type": "boolean"}
    elif s.kind in ("int", "float"):
        base = {"type": "integer" if s.kind == "int" else "number"}
        if s.minimum is not None:
            base["minimum"] = s.minimum
        if s.maximum is not None:
            base["maximum"] = s.maximum
    elif s.kind == "str":
        base = {"type": "string", "minLength": 1}
    elif s.kind == "list":
        base = {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]}
    else:
        base = {"type": "object"}
    alts = [base]
    if s.allow_auto:
        alts.append({"const": "auto"})
    if s.nullable:
        alts.append({"type": "null"})
    chosen: dict[str, Any] = alts[0] if len(alts) == 1 else {"anyOf": alts}
    out = dict(chosen)
    out["title"] = s.label
    out["default"] = s.default
    return out


def json_schema() -> dict[str, Any]:
    props: dict[str, Any] = {"schema_version": {"const": SCHEMA_VERSION, "default": SCHEMA_VERSION}}
    for s in SETTINGS:
        if len(s.path) == 1:
            props[s.id] = _value_schema(s)
    for g in GROUPS:
        members = settings_in(g.id)
        if g.id == "backend" or not members:
            continue
        props[g.id] = {
            "type": "object", "title": g.label, "additionalProperties": False,
            "properties": {s.path[1]: _value_schema(s) for s in members},
        }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"fsdpds-wizard answers, schema {SCHEMA_VERSION}",
        "type": "object", "additionalProperties": False, "properties": props,
    }


def markdown_reference() -> str:
    lines = [f"# answers.yaml reference (schema {SCHEMA_VERSION})", "",
             "Generated from the catalogue by `fsdpds-wizard schema --format markdown`; do not edit by hand.",
             "Keys of the `backend` group sit at the top level; every other key sits under its group.",
             "Anything left out takes the default. `null` means: not written, the library default applies.", ""]
    for g in GROUPS:
        members = settings_in(g.id)
        if not members:
            continue
        lines += [f"## {g.label} (`{g.id}`)", "",
                  "| key | type | default | " + " | ".join(TARGET_LABELS[t] for t in TARGETS) + " |",
                  "|---|---|---|" + "---|" * len(TARGETS)]
        for s in members:
            kind = s.kind if s.kind != "choice" else " / ".join(str(c) for c in s.choices)
            if s.kind in ("int", "float"):
                kind += range_text(s)
            if s.allow_auto:
                kind += " / auto"
            if s.nullable:
                kind += " / null"
            cells = []
            for t in TARGETS:
                cells.append(f"`{s.where[t]}`" if s.applies_to(t) else "n/a: " + s.not_applicable.get(t, ""))
            key = s.id if len(s.path) == 1 else f"{g.id}.{s.path[1]}"
            lines.append(f"| `{key}` | {kind} | `{s.default!r}` | "
                         + " | ".join(c.replace("|", "/") for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)
