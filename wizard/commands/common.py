"""Helpers shared by the commands: presets (from :mod:`wizard.core.presets`), reading answers, printing findings."""
from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

from ..core.findings import Finding
from ..core.presets import preset_hint, preset_paths

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import TextIO


def resolve_answers_path(name: str) -> Path:
    """A path, or the name of a preset under templates/. Raises ``InputError`` (not found, a folder)."""
    from ..core.inputs import ANSWERS, InputError, not_found

    path = Path(name).expanduser()
    if path.exists():
        if path.is_dir():
            raise InputError(name, "a folder, not a file", "give the path of the answers YAML itself", "folder")
        return path
    presets = preset_paths()
    stem = path.stem if path.suffix in (".yaml", ".yml") else name
    if stem in presets and os.sep not in name:
        return presets[stem]
    raise not_found(name, ANSWERS, preset_hint(stem, list(presets)))


def print_findings(findings: Iterable[Finding], stream: TextIO | None = None) -> None:
    for f in findings:
        print(finding_text(f), file=stream or sys.stderr)


def finding_text(f: Finding) -> str:
    """A finding as the commands print it: ``Finding.render`` in English; in another language (``--lang``, the
    locale) its message and fix in that language, this config's keys and values as written
    (:func:`wizard.core.localized.finding_text`; where a message has no translation, the rule's summary in the
    language stands under it)."""
    from ..core.i18n import ENGLISH, language

    text = f.render()
    if language() == ENGLISH:
        return text
    from ..core import localized

    return localized.finding_text(f, text)


def summary_line(findings: list[Finding]) -> str:
    from ..core.i18n.lines import line

    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
    return line("summary", errors=counts["error"], warnings=counts["warning"], notes=counts["info"])


def judged_context(args, *, installed: bool = False):
    """The library versions a config is judged for, from the ``--accelerate-version``, ``--deepspeed-version`` and
    ``--transformers-version`` flags (``--headless`` and the wizard read them alike): a ``Context`` whose sources say
    ``flag`` for those given and, for the rest, ``installed`` (with ``installed``: a launch on this machine, which
    uses them) or ``assumed`` (the versions the wizard was verified against). None where no flag is given and
    ``installed`` is False. A flag that is not a version: UsageError, naming it."""
    from ..core.context import LIBRARIES, VersionError, make_context, parse_version
    from ..core.exits import UsageError

    flags = {lib: getattr(args, f"headless_{lib}_version", None) for lib in LIBRARIES}
    for lib, given in flags.items():
        if given:
            try:
                parse_version(given)
            except VersionError as exc:
                raise UsageError(f"--{lib}-version {given!r}: {exc}") from exc
    if not any(flags.values()) and not installed:
        return None
    return make_context(flags=flags, installed=None if installed else {})
