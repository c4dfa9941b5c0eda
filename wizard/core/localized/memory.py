"""What :mod:`wizard.core.memory` computes, in the chosen language: the estimate's parts, the verdict (and its short
forms for the memory bar), a candidate's label and reason, the notes.

The core builds English ``said`` sentences (templates of part ``messages-memory``); a candidate keeps the pieces of its
label (``Candidate.label_parts``) and the clauses of its reason (``Candidate.reasons``), so each is translated on its
own and put together here as the English is. In English every function gives the core's text as it is.
"""
from __future__ import annotations

from ..i18n import ENGLISH, cells, translate
from . import _lang, said, screen

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from ..memory.fit import Fit
    from ..memory.recommend import Candidate, Recommendation


def part(key: str, lang: str | None = None) -> str:
    """A part of the estimate's breakdowns (``parameters``, ``model_load``, ...: ``report.LABELS``) in words."""
    return screen("memory", f"part.{key}", lang)


def verdict(fit: Fit, width: int | None = None, lang: str | None = None) -> str:
    """:func:`wizard.core.memory.fit.verdict` in the language: with ``width``, the longest translated short form that
    fits in that many cells (the last one otherwise)."""
    from ..memory.fit import verdict as english_verdict
    from ..memory.fit import verdict_forms

    lang = _lang(lang)
    if lang == ENGLISH:
        return english_verdict(fit, width)
    full, short_forms = verdict_forms(fit)
    if width is None:
        return said(full, lang)
    forms = [said(v, lang) for v in short_forms]
    return next((v for v in forms if cells.width(v) <= width), forms[-1])


def label(parts: tuple[str, ...], english: str, lang: str | None = None) -> str:
    """A candidate's label (its pieces, ``Candidate.label_parts``) in the language; ``english`` without pieces."""
    lang = _lang(lang)
    if lang == ENGLISH or not parts:
        return english
    out = []
    for p in parts:
        words = said(p, lang)
        if words == p and p.startswith(", ") and lang == "zh-TW":  # the precision: a value, after a full-width comma
            words = "，" + p[2:]
        out.append(words)
    return "".join(out)


def candidate_label(c: Candidate, lang: str | None = None) -> str:
    return label(c.label_parts, c.label, lang)


def _capitalized(text: str, lang: str) -> str:
    if not text:
        return text
    first = text[0]
    if lang == "tr":
        first = {"i": "İ", "ı": "I"}.get(first, first.upper())
    else:
        first = first.upper()
    return first + text[1:]


def reason(c: Candidate, lang: str | None = None) -> str:
    """A candidate's reason in the language: its clauses translated one by one, joined as the English joins them (a
    full-width semicolon and full stop where the language writes them)."""
    lang = _lang(lang)
    if lang == ENGLISH or not c.reasons:
        return c.reason
    from ..memory.recommend import _gib

    head = said(c.reasons[0], lang)
    wide = cells.has_wide(head)
    if c.host_parts:
        host = ("、" if wide else ", ").join(screen("memory", f"host.{k}", lang) + " " + _gib(v)
                                             for k, v in c.host_parts)
        head += f"（{host}）" if wide else f" ({host})"
    sentence = ("；" if wide else "; ").join([head, *(said(p, lang) for p in c.reasons[1:])])
    return _capitalized(sentence, lang) + ("。" if wide else ".")


LEFT_OUT = "left out {0}: {1}"
RULES_ERROR = "our rules find an error ({0}: {1})"
"""The templates of a left-out candidate's note and reason (``recommend``'s ``_try``), filled here piece by piece: a
finding's message inside one is a whole sentence of its own, and matched as a whole the note could be taken for a
longer template that happens to end the same way."""


def _filled(template: str, lang: str, *values: str) -> str:
    """The translation of the ``messages-memory`` template ``template`` with ``values`` put in (the English where it
    has none)."""
    from .messages import Template

    return Template(template, translate("messages-memory", template, template, lang)).fill(
        {f"p{i}": value for i, value in enumerate(values)})


def _why(why: str, lang: str) -> str:
    """Why a candidate was left out (``our rules find an error (RULE: MESSAGE)``), the finding's message translated."""
    head, tail = RULES_ERROR.split("{0}")[0], ")"
    if why.startswith(head) and why.endswith(tail) and ": " in why:
        rule, _, message = why[len(head):-len(tail)].partition(": ")
        return _filled(RULES_ERROR, lang, rule, said(message, lang))
    return said(why, lang)


def left_out(rec: Recommendation, lang: str | None = None) -> list[tuple[str, str]]:
    """(label, why) of every candidate a recommendation left out, in the language."""
    lang = _lang(lang)
    if lang == ENGLISH:
        return list(rec.left_out)
    parts = dict(getattr(rec, "left_out_labels", ()))
    return [(label(parts.get(name, ()), name, lang), _why(why, lang)) for name, why in rec.left_out]


def note(text: str, rec: Recommendation | None = None, lang: str | None = None) -> str:
    """A note of the estimate or of a recommendation in the language; a left-out candidate's note (``rec``) put
    together from its translated label and reason."""
    lang = _lang(lang)
    if lang == ENGLISH:
        return text
    if rec is not None:
        for (name, why), (shown, shown_why) in zip(rec.left_out, left_out(rec, lang), strict=True):
            if text == _filled(LEFT_OUT, ENGLISH, name, why):
                return _filled(LEFT_OUT, lang, shown, shown_why)
    shown = said(text, lang)
    if shown == text and ": " in text:  # the effective model's note: "KEYS: WHY" (the keys as written, then a said())
        keys, _, why = text.partition(": ")
        why = said(why, lang)
        return f"{keys}{'：' if cells.has_wide(why) else ': '}{why}"
    return shown
