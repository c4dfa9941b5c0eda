"""What a translation must keep of its English, and the words it must use (the glossary of its language).

Kept verbatim: ``{placeholders}``, code spans in backticks, config keys and other names with ``_`` or ``.`` in them
(``fsdp_offload_params``, ``zero_optimization.offload_param.device``, ``torch.compile``), command-line flags,
numbers and versions, and names written in capitals or CamelCase (``FULL_SHARD``, ``FSDP2``, ``DeepSpeed``,
``CPUOffloadPolicy``): the libraries spell them so. The glossary (``wizard/core/i18n/glossary-<lang>.json``) gives,
for an English term, the words a translation of a text that uses the term must contain, following the guide's own
translation where it has one; each entry says where the guide's word came from or why another was chosen.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from ..i18n import HERE

_PROTECTED = re.compile(
    r"\{[A-Za-z_0-9]*\}"                                # placeholders
    r"|`[^`]+`"                                          # code spans
    r"|(?<![\w}-])--?[a-z][\w-]*[a-z0-9]"                 # flags (not a placeholder's suffix: {digits}-digit)
    r"|[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+(?:\(\))?"    # dotted names
    r"|[A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]"             # names with underscores
    r"|\d+(?:[.,]\d+)*"                                  # numbers and versions
    r"|\b[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*"                 # CamelCase
    r"|\b[A-Z][A-Z0-9]+[a-z]?\b"                         # capitals (FSDP, FSDP2, NVMe-like)
)
_PROSE_DOTS = {"e.g", "i.e", "etc"}


def protected(english: str) -> set[str]:
    """The spans of ``english`` a translation must contain as written."""
    found = set()
    for m in _PROTECTED.finditer(english):
        token = m.group(0)
        if token.lower() in _PROSE_DOTS or ("." in token and all(len(p) <= 1 for p in token.split("."))):
            continue
        if re.fullmatch(r"[A-Z][A-Z0-9]+s", token):  # a plural (GPUs): the name is the part before the s
            token = token[:-1]
        found.add(token)
    return found


def _words(english: str) -> list[str]:
    """The words of ``english`` outside what is kept as written (a list of keys has none)."""
    rest = _PROTECTED.sub(" ", english)
    return [w for w in re.findall(r"[A-Za-z]{2,}", rest)]


def glossary(lang: str) -> list[dict]:
    """The glossary entries of a language: ``en`` (a regular expression on the English, case-insensitive),
    ``use`` (the accepted words: one must appear), ``guide`` (the guide's own word) and ``note`` (the decision)."""
    path = Path(HERE) / f"glossary-{lang}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []


def _edges(text: str) -> tuple[str, str]:
    return text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):]


def _in_prose(pattern: str) -> str:
    """A glossary pattern that matches the term in running text only: not inside a key, a dotted name or a flag
    (``sharding.strategy``, ``launch.script``, ``--num-processes`` keep their spelling; the word is not the term)."""
    return rf"(?<![.\-_])(?:{pattern})(?![.\-_]\w)"


def _fold(text: str, lang: str) -> str:
    return text.replace("I", "ı").replace("İ", "i").lower() if lang == "tr" else text.lower()


def problems(english: str, translation: str, lang: str, terms: list[dict] | None = None) -> list[str]:
    """What is wrong with ``translation`` of ``english`` in ``lang``: kept spans it lost, glossary words it does not
    use, English left untranslated. [] when nothing."""
    out = []
    if not translation.strip():
        return ["empty translation"]
    lost = sorted(t for t in protected(english) if t not in translation)
    if lost:
        out.append("lost (keep as written): " + ", ".join(lost))
    if _edges(english) != _edges(translation):
        out.append(f"spaces at the ends: {_edges(english)!r} in the English, {_edges(translation)!r} here (keep them: "
                   "the text is joined to others)")
    if english.count("\n") != translation.count("\n"):
        out.append(f"lines: {english.count(chr(10)) + 1} in the English, {translation.count(chr(10)) + 1} here "
                   "(keep one line per line: they are lists)")
    folded = _fold(translation, lang)
    for term in glossary(lang) if terms is None else terms:
        if re.search(_in_prose(term["en"]), english, re.IGNORECASE) and not any(_fold(w, lang) in folded
                                                                                 for w in term["use"]):
            out.append(f"glossary: {term['en']!r} is written {' / '.join(term['use'])} in {lang}")
    if translation == english and len(_words(english)) > 2:
        out.append("not translated (same as the English)")
    return out
