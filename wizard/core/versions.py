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
    """The installed version of the distribution ``name``, None when it is not installed: what
    ``importlib.metadata.version`` says. Where every folder on ``sys.path`` is a plain folder and the distribution
    has one ``.dist-info`` there, its METADATA is read directly (importlib.metadata costs `check` about 20 ms of
    start-up: its email parser, issue 26); an ``.egg-info``, an egg, a zip on ``sys.path`` or an unusual METADATA go
    through importlib.metadata."""
    found = _dist_info_version(name)
    if found is not _UNSURE:
        return found
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


_UNSURE = object()
"""``_dist_info_version``'s answer where importlib.metadata must decide."""
_NAME_SEPARATORS = re.compile(r"[-_.]+")


def _normalized(name: str) -> str:
    """A distribution name as importlib.metadata matches it against folder names."""
    return _NAME_SEPARATORS.sub("_", name).lower()


def _dist_info_version(name: str):
    """The version in the METADATA of the first ``.dist-info`` of ``name`` along ``sys.path`` (as importlib.metadata
    searches it), None when no folder on ``sys.path`` holds one, or ``_UNSURE``."""
    import os
    import sys

    wanted = _normalized(name)
    for entry in sys.path:
        folder = entry or "."
        try:
            children = _listing(folder)
        except NotADirectoryError:
            return _UNSURE  # a zip (or egg) on sys.path: importlib.metadata reads inside it
        except OSError:
            continue  # missing or unreadable: importlib.metadata finds nothing there either
        matches = []
        for child in children:
            low = child.lower()
            stem, dot, suffix = low.rpartition(".")
            if dot and suffix in ("dist-info", "egg-info", "egg") and _normalized(stem.partition("-")[0]) == wanted:
                matches.append((suffix, child))
        if not matches:
            continue
        if len(matches) != 1 or matches[0][0] != "dist-info":
            return _UNSURE
        return _metadata_version(os.path.join(folder, matches[0][1], "METADATA"))
    return None


_LISTINGS: dict[tuple[str, int], list[str]] = {}
"""(folder, its modification time) -> its entries: site-packages is listed once for all the libraries asked."""


def _listing(folder: str) -> list[str]:
    import os

    key = (folder, os.stat(folder).st_mtime_ns)
    if key not in _LISTINGS:
        _LISTINGS[key] = os.listdir(folder)
    return _LISTINGS[key]


def _metadata_version(path: str):
    """The ``Version:`` header of a METADATA file, or ``_UNSURE`` where it has none or cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    break  # the headers end at the first empty line
                key, colon, value = line.partition(":")
                if colon and key.strip().lower() == "version" and value.strip():
                    return value.strip()
    except (OSError, UnicodeDecodeError):
        return _UNSURE  # importlib.metadata decides (and says why it cannot)
    return _UNSURE


def version_text() -> str:
    """``--version``: this wizard's version, and per library the version its knowledge was verified against and the
    one installed here; the words in the language (``lines`` ``version_*``), the names and versions as they are,
    the columns aligned by cells."""
    from .i18n.cells import ljust, width
    from .i18n.lines import line

    missing = line("version_not_installed")
    rows = [(name, verified, installed_version(name) or missing) for name, verified in VERIFIED_AGAINST.items()]
    heads = (line("version_library"), line("version_verified"), line("version_installed"))
    w0 = max(width(heads[0]), *(width(r[0]) for r in rows))
    w1 = max(width(heads[1]), *(width(r[1]) for r in rows))
    lines = [f"fsdpds-wizard {wizard_version()}", "", f"{ljust(heads[0], w0)}  {ljust(heads[1], w1)}  {heads[2]}"]
    lines += [f"{ljust(name, w0)}  {ljust(verified, w1)}  {have}" for name, verified, have in rows]
    lines += ["", line("version_others")]
    return "\n".join(lines)
