"""The words of the findings pane around the findings themselves (see :mod:`wizard.core.localized.screens`)."""
from __future__ import annotations

WORDS: dict[str, str] = {
    "errors_one": "{n} error",
    "errors_many": "{n} errors",
    "warnings_one": "{n} warning",
    "warnings_many": "{n} warnings",
    "notes_one": "{n} note",
    "notes_many": "{n} notes",
    # the severity words beside each finding's icon in the wizard, shown in capitals (ERROR, WARN, NOTE); written here
    # as words, not as names in capitals (which a translation keeps). `check` prints its own, English: scripts read them
    "severity_error": "Error",
    "severity_warning": "Warn",
    "severity_info": "Note",
    "no_findings": "the answers have no findings: ready to write (ctrl+r)",
    "as_loaded": "In {label} as loaded (as `fsdpds-wizard check` reports it):",
    "imported": "How {label} was imported:",
}
"""Key -> the English words (``_one`` for a count of 1, ``_many`` for every other count)."""
