"""The languages of the wizard's words: English (the reference), Turkish and Traditional Chinese.

The English texts stay where they are written (:mod:`wizard.core.texts`, the catalogue, :mod:`.ui`); each translation
is keyed to its English text by a key and a fingerprint of that text, in ``wizard/core/i18n/<lang>/<part>.json``
(``{"key": {"fp": "...", "text": "..."}}``), one file per part (a catalogue group, ``ui``, ``dtype``) so a command
reads only the parts it shows. A translation whose fingerprint no longer matches its English (the English changed)
is not shown: the English is, and the tests fail until the translation follows. Config keys, values, library and
class names, code and file names are never translated (:mod:`.protect` checks that a translation keeps them).

The language: ``--lang`` (every command and the TUI), else the locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``, the first
that is set: ``tr_TR.UTF-8`` -> ``tr``, ``zh_TW`` / ``zh_Hant`` -> ``zh-TW``), else English. Stdlib only and
nothing of the wizard: every part may import it.
"""
from __future__ import annotations

import os

ENGLISH = "en"
LANGUAGES = ("en", "tr", "zh-TW")
"""The languages, English first (the reference)."""
NAMES = {"en": "English", "tr": "Türkçe", "zh-TW": "繁體中文"}
"""Each language in its own words (the palette, ``--help``)."""
HERE = os.path.dirname(os.path.abspath(__file__))
"""Where the translations and glossaries are (package data)."""

_current: str | None = None
_parts: dict[tuple[str, str], dict[str, dict[str, str]]] = {}


def from_locale(environ: dict[str, str] | None = None) -> str:
    """The language the locale asks for, as POSIX reads it: ``LC_ALL``, then ``LC_MESSAGES``, then ``LANG`` (the
    first that is set and not empty); English for any other language, ``C`` and ``POSIX``."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            return _language_of(value)
    return ENGLISH


def _language_of(locale_name: str) -> str:
    name = locale_name.split(".", 1)[0].split("@", 1)[0].replace("-", "_").lower()
    if name == "tr" or name.startswith("tr_"):
        return "tr"
    if name in ("zh_tw", "zh_hant") or name.startswith(("zh_hant_", "zh_tw_")):
        return "zh-TW"
    return ENGLISH


def known(lang: str) -> str | None:
    """The language ``lang`` names (``tr``, ``tr_TR``, ``zh-TW``, ``zh_Hant``, ...), or None."""
    wanted = lang.strip().replace("_", "-").lower()
    if wanted in ("en", "tr"):
        return wanted
    if wanted in ("tr-tr", "en-us", "en-gb"):
        return wanted[:2]
    if wanted in ("zh-tw", "zh-hant", "zh-hant-tw"):
        return "zh-TW"
    return None


def resolve(lang: str | None) -> str:
    """``--lang``'s value as a language (``zh_TW``, ``zh-tw`` and ``tr_TR`` are accepted too), or the locale's when
    None. ValueError naming the languages for any other value."""
    if lang is None:
        return from_locale()
    found = known(lang)
    if found is not None:
        return found
    raise ValueError(f"--lang {lang!r}: not a language of the wizard; use one of {', '.join(LANGUAGES)} "
                     f"({', '.join(f'{c}: {NAMES[c]}' for c in LANGUAGES)})")


def set_language(lang: str | None) -> str:
    """Make ``lang`` (resolved as :func:`resolve` does; None: the locale's) the language of every later text."""
    global _current
    _current = resolve(lang)
    return _current


def reset() -> None:
    """Back to the locale's language (what a start without ``--lang`` has)."""
    global _current
    _current = None


def language() -> str:
    """The language texts are shown in: the one set, else the locale's."""
    return _current if _current is not None else from_locale()


def fingerprint(english: str) -> str:
    """What a translation stores of its English text: a change of the English shows as a stale translation."""
    import hashlib

    return hashlib.sha1(english.encode("utf-8")).hexdigest()[:10]


def part_path(lang: str, part: str) -> str:
    return os.path.join(HERE, lang, f"{part}.json")


def entries(lang: str, part: str) -> dict[str, dict[str, str]]:
    """The translations of one part in one language, as stored (read once)."""
    found = _parts.get((lang, part))
    if found is None:
        import json

        path = part_path(lang, part)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                found = json.load(f)
        else:
            found = {}
        _parts[lang, part] = found
    return found


def translate(part: str, key: str, english: str, lang: str | None = None) -> str:
    """``english`` in the language (the current one when None): its translation when one is stored for ``key``
    and made from this very English text, else the English."""
    lang = language() if lang is None else lang
    if lang == ENGLISH or not english:
        return english
    entry = entries(lang, part).get(key)
    if entry is None or entry.get("fp") != fingerprint(english):
        return english
    return entry["text"]


def filled(part: str, key: str, english: str, lang: str | None = None, /, **values: object) -> str:
    """A keyed English text in the language (the current one when None: :func:`translate`, which falls back to the
    English), its ``{name}`` placeholders then filled from ``values`` (none given: the text as it is, braces and
    all). The one lookup behind the wizard's keyed words: :func:`wizard.core.localized.ui`,
    :func:`wizard.core.localized.screen` and the commands' lines (:func:`.lines.line`)."""
    words = translate(part, key, english, lang)
    return words.format(**values) if values else words


def forget() -> None:
    """Drop the translations read so far (after a catalogue file changed: the tool that writes them)."""
    _parts.clear()


def said(english: str) -> str:
    """``english`` as it is. Marks a sentence built from computed parts (an f-string) that is shown to the user
    outside a finding: its template is read off the code and translated like a finding's message
    (:mod:`wizard.core.localized.messages`); the screen that shows it looks the translation up
    (``localized.said``)."""
    return english
