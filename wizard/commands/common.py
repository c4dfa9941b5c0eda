"""Helpers shared by the commands: presets (from :mod:`wizard.presets`), reading answers, printing findings."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterable, TextIO

from ..core.findings import Finding
from ..presets import preset_paths


def resolve_answers_path(name: str) -> Path:
    """A path, or the name of a preset under templates/."""
    from ..cli import UsageError

    path = Path(name).expanduser()
    if path.exists():
        if path.is_dir():
            raise UsageError(f"{name} is a folder; give an answers YAML file")
        return path
    presets = preset_paths()
    stem = path.stem if path.suffix in (".yaml", ".yml") else name
    if stem in presets and os.sep not in name:
        return presets[stem]
    hint = ""
    if presets:
        import difflib

        close = difflib.get_close_matches(stem, list(presets), n=1)
        hint = f"; did you mean the preset '{close[0]}'?" if close else "; presets: " + ", ".join(presets)
    raise UsageError(f"answers file not found: {name}{hint}")


def print_findings(findings: Iterable[Finding], stream: TextIO | None = None) -> None:
    for f in findings:
        print(f.render(), file=stream or sys.stderr)


def summary_line(findings: list[Finding]) -> str:
    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
    return f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} note(s)"
