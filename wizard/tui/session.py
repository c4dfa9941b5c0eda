"""What a wizard session starts from and where it writes. No Textual here.

A session starts from the catalogue defaults, a preset under ``templates/``, an ``answers.yaml`` or an
existing accelerate config (imported and linted). Findings about the file as loaded are kept apart
from the live findings, which are about the answers being edited.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core.answers import Answers, default_answers, parse_answers_text
from ..core.findings import ERROR, Finding


class StartError(Exception):
    """The start file cannot be used at all (printed, exit 2)."""

    def __init__(self, message: str, findings: list[Finding] | None = None):
        super().__init__(message)
        self.findings = findings or []


@dataclass
class Start:
    answers: Answers
    source: str = ""
    """A short label: ``preset zero3-cpu-offload``, ``answers.yaml``, ``imported accelerate.yaml``."""
    findings: list[Finding] = field(default_factory=list)
    """Findings about the file as loaded: for an imported config, what ``check`` says about it, then the
    importer's notes (rule ``import``); for an answers file, its warnings."""
    files: tuple[Path, ...] = ()
    """An imported config's files (YAML, then the DeepSpeed JSON): the review can diff against them."""


def from_scratch() -> Start:
    return Start(default_answers(), "")


def from_answers_file(path: str | Path, label: str | None = None) -> Start:
    p = Path(path).expanduser()
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise StartError(f"cannot read {path}: {exc}") from None
    answers, findings = parse_answers_text(text)
    if answers is None:
        raise StartError(f"{path}: invalid answers", findings)
    return Start(answers, label or p.name, findings)


def preset_names() -> list[str]:
    from ..presets import preset_paths

    return list(preset_paths())


def from_preset(name: str) -> Start:
    from ..presets import preset_paths

    presets = preset_paths()
    stem = Path(name).stem if name.endswith((".yaml", ".yml")) else name
    if stem not in presets:
        import difflib

        close = difflib.get_close_matches(stem, list(presets), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else "; presets: " + ", ".join(presets)
        raise StartError(f"no preset named {name!r}{hint}")
    return from_answers_file(presets[stem], f"preset {stem}")


def from_accelerate_config(path: str | Path) -> Start:
    from ..core.imported import import_and_check

    imported = import_and_check(path)
    if imported.answers is None:
        errors = [f for f in imported.findings if f.severity == ERROR] or imported.findings
        raise StartError(f"{path}: cannot import this accelerate config", errors)
    return Start(imported.answers, f"imported {Path(path).name}", imported.findings + imported.notes,
                 imported.files)


def start_from_args(args) -> Start:
    """``--answers``, ``--preset`` and ``--config`` (at most one) or the defaults."""
    given = [(k, getattr(args, k, None)) for k in ("answers", "preset", "config")]
    given = [(k, v) for k, v in given if v]
    if len(given) > 1:
        raise StartError("give at most one of --answers, --preset and --config")
    if not given:
        return from_scratch()
    kind, value = given[0]
    if kind == "answers":
        return from_answers_file(value)
    if kind == "preset":
        return from_preset(value)
    return from_accelerate_config(value)


def default_out(answers: Answers) -> str:
    """Where files go when --out is not given: one folder per target, so both configs can coexist."""
    return f"configs-{answers.target}"
