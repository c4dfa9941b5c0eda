"""The translations' tool: what is missing or stale per language, worksheets for translators, and merging them.

    python -m wizard.core.localized status [LANG]          counts per part; exit 1 when anything is missing/stale
    python -m wizard.core.localized problems LANG [PART]   each translation that loses a kept span or a glossary word
    python -m wizard.core.localized worksheet LANG PART    JSON to fill in: key -> {fp, en, text} (text: "" if missing)
    python -m wizard.core.localized merge LANG FILE        a filled worksheet into wizard/core/i18n/LANG/PART.json
    python -m wizard.core.localized glossary               the glossaries as Markdown (docs/translations.md)

A worksheet holds one part (FILE's name is the part: ``offload.json``, or give ``--part``). Merging keeps entries
whose ``fp`` is the current English's (a worksheet made before the English changed is refused entry by entry), writes
the part in the catalogue's order, and reports the problems left (``problems``).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..i18n import LANGUAGES, entries, fingerprint, forget, part_path
from . import sources
from .check import problems


def _by_part() -> dict[str, list[tuple[str, str]]]:
    parts: dict[str, list[tuple[str, str]]] = {}
    for part, key, english in sources():
        parts.setdefault(part, []).append((key, english))
    return parts


def status(lang: str) -> dict[str, dict[str, int]]:
    """Per part: how many texts, translated, missing, stale (English changed since), orphaned (no English)."""
    out = {}
    for part, items in _by_part().items():
        have = entries(lang, part)
        keys = {k for k, _ in items}
        row = {"texts": len(items), "translated": 0, "missing": 0, "stale": 0,
               "orphaned": len(set(have) - keys)}
        for key, english in items:
            entry = have.get(key)
            if entry is None:
                row["missing"] += 1
            elif entry.get("fp") != fingerprint(english):
                row["stale"] += 1
            else:
                row["translated"] += 1
        out[part] = row
    return out


def problems_of(lang: str, part: str | None = None) -> list[str]:
    """``PART/KEY: problem`` for every current translation (of one part, or all) that loses a kept span, a line or
    a glossary word (:func:`.check.problems`)."""
    from .check import glossary

    terms = glossary(lang)
    out = []
    for name, items in _by_part().items():
        if part and name != part:
            continue
        have = entries(lang, name)
        for key, english in items:
            entry = have.get(key)
            if entry and entry.get("fp") == fingerprint(english):
                out += [f"{name}/{key}: {problem}" for problem in problems(english, entry["text"], lang, terms)]
    return out


def worksheet(lang: str, part: str) -> dict[str, dict[str, str]]:
    have = entries(lang, part)
    sheet = {}
    for key, english in _by_part()[part]:
        entry = have.get(key, {})
        current = entry.get("text", "") if entry.get("fp") == fingerprint(english) else ""
        sheet[key] = {"fp": fingerprint(english), "en": english, "text": current}
    return sheet


def merge(lang: str, part: str, sheet: dict[str, dict[str, str]]) -> list[str]:
    """Write a worksheet's filled entries into the part's file (keeping what it does not touch); the messages."""
    items = _by_part().get(part)
    if items is None:
        return [f"no part {part!r}: one of {', '.join(_by_part())}"]
    english = dict(items)
    stored = dict(entries(lang, part))
    messages = []
    for key, entry in sheet.items():
        if key not in english:
            messages.append(f"{key}: no such text in {part} (left out)")
            continue
        text = entry.get("text") or ""
        if not text.strip():
            continue
        if entry.get("fp") != fingerprint(english[key]):
            messages.append(f"{key}: the English changed since the worksheet was made (left out; make a new one)")
            continue
        stored[key] = {"fp": fingerprint(english[key]), "text": text}
        messages += [f"{key}: {p}" for p in problems(english[key], text, lang)]
    ordered = {key: stored[key] for key, _ in items if key in stored}
    path = Path(part_path(lang, part))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(ordered, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    forget()
    return messages


def glossary_markdown() -> str:
    """The glossaries of every language as Markdown tables: the English term, our word, the guide's, why."""
    from .check import glossary

    lines = []
    for lang in LANGUAGES[1:]:
        lines += [f"### {lang}", "", "| English (pattern) | we write | the guide writes | decision |",
                  "| --- | --- | --- | --- |"]
        for t in glossary(lang):
            pattern = t["en"].replace("|", "\\|")
            guide = t["guide"] or "(not in the guide)"
            lines.append(f"| `{pattern}` | {' / '.join(t['use'])} | {guide} | {t['note']} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wizard.core.localized", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("status")
    p.add_argument("lang", nargs="?", choices=LANGUAGES[1:])
    p = sub.add_parser("problems")
    p.add_argument("lang", choices=LANGUAGES[1:])
    p.add_argument("part", nargs="?")
    p = sub.add_parser("worksheet")
    p.add_argument("lang", choices=LANGUAGES[1:])
    p.add_argument("part")
    sub.add_parser("glossary")
    p = sub.add_parser("merge")
    p.add_argument("lang", choices=LANGUAGES[1:])
    p.add_argument("file")
    p.add_argument("--part", help="the part, when FILE's name is not PART.json")
    args = ap.parse_args(argv)
    if args.cmd == "status":
        bad = 0
        for lang in [args.lang] if args.lang else LANGUAGES[1:]:
            for part, row in status(lang).items():
                bad += row["missing"] + row["stale"] + row["orphaned"]
                print(f"{lang:6} {part:12} " + "  ".join(f"{k} {v}" for k, v in row.items()))
        return 1 if bad else 0
    if args.cmd == "problems":
        found = problems_of(args.lang, args.part)
        for line in found:
            print(line)
        return 1 if found else 0
    if args.cmd == "glossary":
        print(glossary_markdown(), end="")
        return 0
    if args.cmd == "worksheet":
        if args.part not in _by_part():
            ap.error(f"no part {args.part!r}: one of {', '.join(_by_part())}")
        json.dump(worksheet(args.lang, args.part), sys.stdout, ensure_ascii=False, indent=1)
        print()
        return 0
    path = Path(args.file)
    sheet = json.loads(path.read_text(encoding="utf-8"))
    messages = merge(args.lang, args.part or path.stem, sheet)
    for m in messages:
        print(m)
    return 1 if messages else 0


if __name__ == "__main__":
    sys.exit(main())
