"""The words of the findings pane around the findings themselves (see :mod:`wizard.core.localized.screens`)."""
from __future__ import annotations

WORDS: dict[str, str] = {
    "errors_one": "{n} error",
    "errors_many": "{n} errors",
    "warnings_one": "{n} warning",
    "warnings_many": "{n} warnings",
    "notes_one": "{n} note",
    "notes_many": "{n} notes",
}
"""Key -> the English words (``_one`` for a count of 1, ``_many`` for every other count)."""
