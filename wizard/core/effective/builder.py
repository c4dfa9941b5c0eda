"""The effective model as it is built: the values so far and what failed (shared by the accelerate, FSDP and
DeepSpeed parts)."""
from __future__ import annotations

from ..recordclass import field, record
from .used import DEFAULT, WRITTEN, Used

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class Failure:
    """The libraries stop here: the run does not start (the launcher or a plugin raises)."""

    keys: tuple[str, ...]
    message: str
    by: str


@record
class Builder:
    values: dict[str, Used] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)

    def put(self, key: str, value: Any, why: str, by: str, keys: tuple[str, ...] | list[str] = (), note: str = "") \
            -> None:
        self.values[key] = Used(value, why, by, tuple(keys), note)

    def written_or_default(self, key: str, value: Any, written_key: str | None, by: str, note: str = "") -> None:
        """``value`` for ``key``: written when the config has ``written_key``, else the default."""
        if written_key is not None:
            self.put(key, value, WRITTEN, by, (written_key,), note)
        else:
            self.put(key, value, DEFAULT, by, (), note)

    def fail(self, keys: tuple[str, ...] | list[str], message: str, by: str) -> None:
        self.failures.append(Failure(tuple(keys), message, by))

    def value(self, key: str, default: Any = None) -> Any:
        u = self.values.get(key)
        return default if u is None else u.value


__all__ = ["Builder", "Failure"]
