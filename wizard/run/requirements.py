"""Are the run libraries here? What ``--verify``, ``--launch``, ``--rehearse`` and the TUI's F5 / ctrl+l need.

The base install (``pip install fsdpds-wizard``) writes, checks and explains configs; the ``run`` extra
(``pip install "fsdpds-wizard[run]"``) adds torch, accelerate, deepspeed and transformers. Each entry point
calls :func:`require` (command line: raises :class:`wizard.core.exits.UsageError`, exit 2) or :func:`problem`
(TUI: the message to show) before it starts; both look with :func:`importlib.util.find_spec` and import
nothing.

What each action needs: a launch or rehearsal needs torch and accelerate, and for DeepSpeed also deepspeed
and transformers (accelerate reads the transformers version whenever a DeepSpeed plugin is selected).
Verification imports deepspeed whatever the backend. When the backend is not known yet, all four.
"""
from __future__ import annotations

import importlib.util

from ..core.exits import UsageError

RUN_LIBRARIES = ("torch", "accelerate", "deepspeed", "transformers")
INSTALL = 'pip install "fsdpds-wizard[run]"'


def needed(target: str | None = None, *, verify: bool = False) -> tuple[str, ...]:
    """The run libraries an action needs; ``target``: the backend ("fsdp1", "fsdp2", "deepspeed", ...) or None."""
    if target is None:
        return RUN_LIBRARIES
    libs = ["torch", "accelerate"]
    if verify or target == "deepspeed":
        libs.append("deepspeed")
    if target == "deepspeed":
        libs.append("transformers")
    return tuple(libs)


def config_target(config) -> str | None:
    """The backend an accelerate config mapping names ("deepspeed", "fsdp", ...), None when it names none."""
    kind = config.get("distributed_type") if isinstance(config, dict) else None
    return kind.lower() if isinstance(kind, str) and kind else None


def missing(target: str | None = None, *, verify: bool = False) -> list[str]:
    """The needed run libraries this Python cannot import (found with find_spec: nothing is imported)."""
    return [name for name in needed(target, verify=verify) if importlib.util.find_spec(name) is None]


def problem(action: str, target: str | None = None, *, verify: bool = False) -> str | None:
    """None when ``action`` can run here, else what is missing and the command that installs it."""
    gone = missing(target, verify=verify)
    if not gone:
        return None
    names = ", ".join(gone)
    return (f"{action} needs {names}, which {'is' if len(gone) == 1 else 'are'} not installed in this Python "
            f"environment; install the run libraries with: {INSTALL}")


def require(action: str, target: str | None = None, *, verify: bool = False) -> None:
    """Raise :class:`wizard.core.exits.UsageError` (exit 2, one line) when ``action`` cannot run here."""
    message = problem(action, target, verify=verify)
    if message is not None:
        raise UsageError(message)


def require_for_args(args, target: str | None = None) -> None:
    """The headless command's check: ``--verify`` and/or ``--launch [--rehearse]`` from parsed ``args``."""
    if getattr(args, "verify", False):
        require("--verify", target, verify=True)
    if getattr(args, "launch", False):
        require("--launch --rehearse" if getattr(args, "rehearse", False) else "--launch", target)


__all__ = ["INSTALL", "RUN_LIBRARIES", "config_target", "missing", "needed", "problem", "require", "require_for_args"]
