"""The words of the switch report (after ctrl+t, or a suggestion of the memory screen applied: see
:mod:`wizard.core.localized.screens`): its title, headings, the table's columns and its button. The report's lines
are the core's (:func:`wizard.core.convert.switch_report`): their sentences are translated as the switch report's
messages (part ``messages-switch``); settings, values and targets stay as written."""
from __future__ import annotations

WORDS: dict[str, str] = {
    "title": "Switched {before} → {after}",
    "changed": "Changed by {by} (not carried over: chosen anew):",
    "carried": "Carried over (the same intent, written the {target} way):",
    "answer": "answer",
    "was": "was ({target})",
    "now": "now ({target})",
    "meaning": "Carried over with another meaning (the same answer, a different run):",
    "dropped": "Did not carry over (kept in the answers, not written):",
    "new_findings": "New findings after the switch (see Findings):",
    "lossless": "Nothing was lost in the switch.",
    "ok": "OK (Enter)",
}
"""Key -> the English words."""
