"""Computed English phrases inside a translated sentence, in the language.

A sentence of wizard/run (``said(...)``) is translated by its template; its computed parts go in as they are. A few
of those parts are not keys or values but English phrases of the wizard's own or the operating system's: a
checkpoint format's name (``consolidate.FORMATS``), how a checkpoint was found (``Checkpoint.found_via``), the tool
``consolidate`` ran, and an OS error's words (``Permission denied``). :func:`phrase` gives such a part in the
language: the run screen's words (part ``screen-run``, keys ``format.*``, ``found.*``, ``tool.*``, ``os.*``); an OS
error of another errno keeps the operating system's text. :func:`.messages.translated` puts each computed part
through it, so every sentence that carries one shows it translated; English never reaches here.
"""
from __future__ import annotations

from functools import cache

PREFIXES = ("format.", "found.", "tool.")
"""The run screen's keys whose English is a phrase that code computes (looked up by that English)."""
MOVED = " (the run folder has moved)"
"""What ``consolidate`` adds to how a checkpoint was found when the run record names it under another folder."""
ERRNOS = ("ENOENT", "EACCES", "EPERM", "EISDIR", "ENOTDIR", "EEXIST", "ENOSPC", "EROFS")
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
    return os_error(english, lang)


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
