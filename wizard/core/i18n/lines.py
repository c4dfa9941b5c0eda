"""The commands' own lines (what ``check``, ``--headless`` and ``convert`` print around the findings) in the
language: the English here is the one source, each translated in the ``lines`` part like every other text.

Kept light (a dict and a lookup): the hot commands import it at start, and in English it reads no file.
"""
from __future__ import annotations

from . import filled, translate

LINES: dict[str, str] = {
    "summary": "{errors} error(s), {warnings} warning(s), {notes} note(s)",
    "judged_for": "judged for {what}",
    "ds_json_alone": "(DeepSpeed JSON alone)",
    "as_verified": "(not installed: as verified)",
    "nothing_written": "{path}: {summary}; nothing written.",
    "invalid_answers": "{path}: invalid answers; nothing written.",
    "verify_failed": "verification against accelerate/deepspeed failed; nothing written.",
    "verified": "verified: accelerate and deepspeed read every value as answered.",
    "wrote": "wrote {path}",
    "unchanged": "unchanged {path}",
    "kept_previous": "kept the previous version as {path}",
    "launch_from": "launch from {folder}: {command}",
    "launch_with": "launch with: {command}",
    "carried_over": "carried over (the same intent, written the new way):",
    "round_trip_same": "round trip: converting the result back to {target} gives the same intent",
    "round_trip_changes": "round trip: converting the result back to {target} changes {diff} (the findings above say "
                          "why)",
    "relative_ds_path": "(deepspeed_config_file: {ref} is relative to that folder, as accelerate resolves it, so the "
                        "configs work wherever that folder is cloned or moved; --ds-config-path absolute writes an "
                        "absolute path)",
}
"""Each line's English, by key; ``{name}`` placeholders are filled in (paths, counts, commands stay as they are)."""


def loop_words(loop: str | None, english: str) -> str:
    """A training loop's label (``wizard.core.context.LOOP_LABELS``: ``english``) in the current language."""
    return translate("lines", f"loop.{loop}", english)


def line(key: str, **values: object) -> str:
    """The line ``key`` in the current language, filled in (:func:`wizard.core.i18n.filled`)."""
    return filled("lines", key, LINES[key], None, **values)
