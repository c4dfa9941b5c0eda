"""The words of the run screen (see :mod:`wizard.core.localized.screens`)."""
from __future__ import annotations

WORDS: dict[str, str] = {
}
"""Key -> the English words."""
