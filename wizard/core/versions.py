"""The wizard's version and the library versions its knowledge holds for (``fsdpds-wizard --version``).

Stdlib only and nothing imported: the installed library versions are read from their package metadata
(``importlib.metadata``), never by importing torch, accelerate, deepspeed or transformers.
"""
from __future__ import annotations

import re
from pathlib import Path

DIST = "fsdpds-wizard"

VERIFIED_AGAINST: dict[str, str] = {
    "accelerate": "1.15.0",
    "deepspeed": "0.19.8",
    "torch": "2.13.0",
    "transformers": "5.24.0",
}
"""The one place that says which versions every rule, text and rehearsal was checked against."""

NOT_INSTALLED = "not installed"


def wizard_version() -> str:
    """The installed distribution's version; in a source checkout without an install, pyproject's."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DIST)
    except PackageNotFoundError:
        found = _pyproject_version(Path(__file__).resolve().parents[2] / "pyproject.toml")
        return found or "unknown (neither installed nor in a source checkout)"


def _pyproject_version(path: Path) -> str | None:
    """``version`` of the ``[project]`` table (no tomllib before Python 3.11: one regular expression)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    project = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if not project or not re.search(rf'^name\s*=\s*"{DIST}"', project.group(1), re.M):
        return None
    m = re.search(r'^version\s*=\s*"([^"]+)"', project.group(1), re.M)
    return m.group(1) if m else None


def installed_version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


def version_text() -> str:
    rows = [(name, verified, installed_version(name) or NOT_INSTALLED) for name, verified in VERIFIED_AGAINST.items()]
    w0 = max(len("library"), *(len(r[0]) for r in rows))
    w1 = max(len("verified against"), *(len(r[1]) for r in rows))
    lines = [f"fsdpds-wizard {wizard_version()}", "",
             f"{'library':<{w0}}  {'verified against':<{w1}}  installed here"]
    lines += [f"{name:<{w0}}  {verified:<{w1}}  {have}" for name, verified, have in rows]
    lines += ["", "Other versions in the [run] extra's ranges are accepted; --verify replays a config through the "
                  "installed ones."]
    return "\n".join(lines)
