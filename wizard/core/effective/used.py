"""One value of the effective model: what a library uses for a key, and why.

A :class:`Used` says the value and where it came from, in one of a few words (:data:`WHYS`): written in the config as
it is used, a library default, filled from "auto" (and by whom), overridden by another key or the context, ignored
(the key was written but nothing reads it here), changed (read, but the library runs something else), derived (no
key of its own: computed from others). ``keys`` names the written keys it comes from, so a rule stated on the model
can be reported against whatever the user wrote.
"""
from __future__ import annotations

from ..recordclass import record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

WRITTEN = "written"
"""The config says it and the library uses it as written (spelled its own way, perhaps)."""
DEFAULT = "default"
"""Nothing written (or written as null): the library's own default."""
AUTO = "auto"
"""Written as "auto": filled in by ``by`` (accelerate's prepare, the HF Trainer)."""
OVERRIDDEN = "overridden"
"""Another key, or the context, decides it (``by`` says which)."""
IGNORED = "ignored"
"""Written, but nothing reads it in this configuration: the value shown is what runs instead."""
CHANGED = "changed"
"""Read, but the library runs something else (``note`` says what and why)."""
DERIVED = "derived"
"""No key of its own: computed from other values (the run's world size, a batch identity)."""
WHYS = (WRITTEN, DEFAULT, AUTO, OVERRIDDEN, IGNORED, CHANGED, DERIVED)


@record(frozen=True)
class Used:
    value: Any
    why: str
    by: str = ""
    """Who decided the value: ``accelerate launch``, ``FullyShardedDataParallelPlugin``, ``DeepSpeedPlugin``,
    ``Accelerator.prepare``, ``the HF Trainer``, ``DeepSpeedConfig``, ``the DeepSpeed engine``, ``the script``."""
    keys: tuple[str, ...] = ()
    """The written keys (accelerate YAML dotted paths, DeepSpeed JSON paths) the value comes from."""
    note: str = ""
    """Why, in a few words, when ``why`` is not ``written`` or ``default``."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value, "why": self.why}
        if self.by:
            out["by"] = self.by
        if self.keys:
            out["keys"] = list(self.keys)
        if self.note:
            out["note"] = self.note
        return out


__all__ = ["AUTO", "CHANGED", "DEFAULT", "DERIVED", "IGNORED", "OVERRIDDEN", "Used", "WHYS", "WRITTEN"]
