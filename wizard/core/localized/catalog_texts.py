"""The catalogue's sentences about a setting that other sentences carry in whole (why it has no effect on a target,
its counterpart on the other backend), in the language: read by the package (:mod:`wizard.core.localized`) and by
the findings' translator (:mod:`.messages`, which puts them in place inside a ``convert`` finding) from here, one
lookup each."""
from __future__ import annotations

from ..catalog import SETTING_BY_ID
from ..i18n import language, translate


def counterpart(setting_id: str, lang: str | None = None) -> str:
    """The setting's counterpart line in the language."""
    s = SETTING_BY_ID[setting_id]
    return translate(s.group, f"{setting_id}.counterpart", s.counterpart, lang or language())


def empty(setting_id: str, lang: str | None = None) -> str:
    """What an empty value of the setting means (its ``empty``: "one per machine"; "" when the library's default
    applies) in the language."""
    s = SETTING_BY_ID[setting_id]
    return translate(s.group, f"{setting_id}.empty", s.empty, lang or language())


def not_applicable(setting_id: str, target: str, lang: str | None = None) -> str:
    """Why the setting has no effect on ``target`` ("" when it has one)."""
    s = SETTING_BY_ID[setting_id]
    return translate(s.group, f"{setting_id}.not_applicable.{target}", s.not_applicable.get(target, ""),
                     lang or language())
