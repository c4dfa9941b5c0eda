"""Computed English phrases inside a translated sentence, in the language.

A sentence of wizard/run (``said(...)``) is translated by its template; its computed parts go in as they are. A few
of those parts are not keys or values but English phrases of the wizard's own or the operating system's: a
checkpoint format's name (``consolidate.FORMATS``), how a checkpoint was found (``Checkpoint.found_via``), the tool
``consolidate`` ran, an OS error's words (``Permission denied``), the json module's message in a file that is not
valid JSON (``Expecting ',' delimiter``: part ``screen-json``), and what a DeepSpeed JSON's value must be
(``an integer``: part ``screen-values``). :func:`phrase` gives such a part in the language: the run screen's words
(part ``screen-run``, keys ``format.*``, ``found.*``, ``tool.*``, ``os.*``); an OS error of another errno keeps the
operating system's text. :func:`.messages.translated` puts each computed part through it, so every sentence that
carries one shows it translated; English never reaches here.
"""
from __future__ import annotations

import re
from functools import cache

PREFIXES = ("format.", "found.", "tool.")
"""The run screen's keys whose English is a phrase that code computes (looked up by that English)."""
MOVED = " (the run folder has moved)"
"""What ``consolidate`` adds to how a checkpoint was found when the run record names it under another folder."""
ERRNOS = ("ENOENT", "EACCES", "EPERM", "EISDIR", "ENOTDIR", "EEXIST", "ENOSPC", "EROFS", "EDQUOT", "ENAMETOOLONG",
          "EMFILE", "ENFILE", "ELOOP", "EBUSY", "ETXTBSY", "EXDEV", "ENOTEMPTY", "EIO", "EFBIG", "ESTALE", "ENXIO",
          "EINVAL")
"""The OS errors whose words are translated (``os.<NAME>``); the others keep the operating system's text."""


def screen(name: str, key: str, lang: str, **values: object) -> str:
    """:func:`wizard.core.localized.screen` (this module is imported by :mod:`.messages`, which the package imports:
    the same lookup, without importing the package back)."""
    from ..i18n import filled
    from .screens import words

    return filled(f"screen-{name}", key, words(name)[key], lang, **values)


@cache
def _by_english() -> dict[str, str]:
    from .screens import words

    return {english: key for key, english in words("run").items() if key.startswith(PREFIXES)}


def phrase(english: str, lang: str) -> str | None:
    """``english`` in the language when it is one of the phrases above (None for any other text, and for English):
    a format's name, how a checkpoint was found (also with :data:`MOVED`), a tool, an OS error's words."""
    from ..i18n import ENGLISH

    if lang == ENGLISH or not english:
        return None
    key = _by_english().get(english)
    if key is not None:
        return screen("run", key, lang)
    if english.endswith(MOVED):
        via = phrase(english[:-len(MOVED)], lang)
        return screen("run", "found_moved", lang, via=via) if via is not None else None
    from .parsers import json_message

    return expected(english, lang) or os_error(english, lang) or json_message(english, lang)


WRAPPED = "expected"
"""The placeholder of a values' word that holds another of them (``{expected}, or null``)."""


@cache
def _expected_forms() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(key, its English split at its placeholders: literal, name, literal, ...) of the values' words: those that
    wrap another first (``{expected}, or null`` before ``a number {sign} {bound}``, which would take ``from 0 to 1,
    or null`` for its bound), then the longest first (``one of {options} (exact spelling)`` before ``one of
    {options}``)."""
    from .screens import words

    ordered = sorted(words("values").items(), key=lambda kv: (not kv[1].startswith("{" + WRAPPED + "}"),
                                                                -len(kv[1])))
    return tuple((key, tuple(re.split(r"\{(\w+)\}", english))) for key, english in ordered)


def _values_of(parts: tuple[str, ...], text: str) -> dict[str, str] | None:
    """The placeholders' values when ``text`` is ``parts`` filled in (each value not empty; a literal between two
    placeholders is found where it first follows), else None: one pass left to right, whatever the text."""
    literals, names = parts[0::2], parts[1::2]
    if not names:
        return {} if text == literals[0] else None
    if not text.startswith(literals[0]) or not text.endswith(literals[-1]) \
            or len(text) < len(literals[0]) + len(literals[-1]):
        return None
    pos, end = len(literals[0]), len(text) - len(literals[-1])
    values: dict[str, str] = {}
    for i, name in enumerate(names):
        if i == len(names) - 1:
            value, pos = text[pos:end], end
        else:
            cut = text.find(literals[i + 1], pos + 1, end)
            if cut < 0:
                return None
            value, pos = text[pos:cut], cut + len(literals[i + 1])
        if not value:
            return None
        values[name] = value
    return values


def expected(english: str, lang: str) -> str | None:
    """What a value must be (``an integer``, ``one of 1, 2, 3``: :data:`wizard.core.ds_schema.EXPECTED`, and an
    answer's: ``an integer from 1 to 8, or null``, :data:`wizard.core.answers.model.EXPECTED`) in the language, its
    options and bounds as they were; None for any other text, and for English."""
    from ..i18n import ENGLISH

    if lang == ENGLISH:
        return None
    for key, parts in _expected_forms():
        values = _values_of(parts, english)
        if values is not None and WRAPPED in values:
            inner = expected(values[WRAPPED], lang)  # what the wrapped words say, in the language too
            if inner is None:
                continue
            values[WRAPPED] = inner
        if values is not None:
            return screen("values", key, lang, **values)
    return None


def shown(english: str, lang: str | None = None) -> str:
    """``english`` in the language (the current one when None) when it is one of the phrases, else as it is."""
    from ..i18n import language

    return phrase(english, language() if lang is None else lang) or english


@cache
def _errors() -> tuple[tuple[str, int, str], ...]:
    """(name, number, the operating system's words) of each of :data:`ERRNOS` this system has."""
    import errno
    import os

    return tuple((name, getattr(errno, name), os.strerror(getattr(errno, name))) for name in ERRNOS
                 if hasattr(errno, name))


def os_error(text: str, lang: str) -> str | None:
    """An OS error's words in the language: its ``strerror`` (``Permission denied``) or an ``OSError`` as ``str``
    gives it (``[Errno 13] Permission denied: 'x'``: the number and the file name as they are), for the errno values
    of :data:`ERRNOS`; None for any other text or errno."""
    from ..i18n import ENGLISH

    if lang == ENGLISH:
        return None
    for name, code, words in _errors():
        if text == words:
            return screen("run", f"os.{name}", lang)
        head = f"[Errno {code}] {words}"
        if text == head or text.startswith(head + ": "):
            return f"[Errno {code}] {screen('run', f'os.{name}', lang)}{text[len(head):]}"
    return None


def os_words(value: object, lang: str | None = None) -> object:
    """``value`` as a line puts it in: an ``OSError`` as its text in the language (the current one when None) where
    its errno's words are translated (:func:`os_error`: ``[Errno 28]`` and the file name as they are), anything else
    as it is."""
    return shown(str(value), lang) if isinstance(value, OSError) else value
