"""What a wizard session starts from and where it writes. No Textual here.

A session starts from the catalogue defaults, a preset under ``templates/``, an ``answers.yaml`` or an
existing accelerate config (imported and linted). Findings about the file as loaded are kept apart
from the live findings, which are about the answers being edited.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core.answers import Answers, default_answers, load_answers_file
from ..core.findings import ERROR, Finding


class StartError(Exception):
    """The start file cannot be used at all (printed, exit 2; in the open dialogs, shown in the dialog).

    A file that cannot be read gives the one line of ``wizard.core.loading.InputError`` (``PATH: WHAT; FIX``),
    the same words as ``--headless`` and ``check``; answers with wrong settings give ``findings``.
    """

    def __init__(self, message: str, findings: list[Finding] | None = None):
        super().__init__(message)
        self.findings = findings or []


_ANSWERS_NOT_FOUND = ("check the path (a preset opens with --preset NAME, or \"Load preset\" in the command "
                      "palette; `fsdpds-wizard presets` lists them)")


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
    bare_ds: bool = False
    """The import was a DeepSpeed JSON alone (``files`` is that JSON): the review diffs it with ds_config.json."""


def from_scratch() -> Start:
    return Start(default_answers(), "")


def from_answers_file(path: str | Path, label: str | None = None) -> Start:
    p = Path(path).expanduser()
    from ..core.loading import InputError

    try:
        answers, findings = load_answers_file(p, _ANSWERS_NOT_FOUND)
    except InputError as exc:
        raise StartError(str(exc)) from None
    if answers is None:
        raise StartError(f"{path}: invalid answers", findings)
    return Start(answers, label or p.name, findings)


def preset_names() -> list[str]:
    from ..presets import preset_paths

    return list(preset_paths())


def from_preset(name: str) -> Start:
    from ..presets import preset_hint, preset_paths

    presets = preset_paths()
    stem = Path(name).stem if name.endswith((".yaml", ".yml")) else name
    if stem not in presets:
        from ..core.loading import ANSWERS, not_found

        raise StartError(str(not_found(name, ANSWERS, preset_hint(stem, list(presets)))))
    return from_answers_file(presets[stem], f"preset {stem}")


def from_accelerate_config(path: str | Path) -> Start:
    from ..core.answers.imported import import_and_check
    from ..core.loading import InputError

    try:
        imported = import_and_check(path)
    except InputError as exc:
        raise StartError(str(exc)) from None
    if imported.answers is None:
        errors = [f for f in imported.findings if f.severity == ERROR] or imported.findings
        raise StartError(f"{path}: cannot import this accelerate config", errors)
    # the notes check adds about what it judged for (the loop is not known from a file; the installed versions),
    # so the start shows exactly check's findings about the file
    from ..core.answers.imported import context_findings
    from ..core.context import make_context

    is_ds = imported.answers.backend == "deepspeed"
    context_notes = context_findings(make_context(None), deepspeed=is_ds)
    return Start(imported.answers, f"imported {Path(path).name}", imported.findings + context_notes + imported.notes,
                 imported.files, bare_ds=imported.bare_ds)


def start_from_args(args) -> Start:
    """``--answers``, ``--preset`` and ``--config`` (at most one) or the defaults."""
    given = [(k, v) for k in ("answers", "preset", "config") if (v := getattr(args, k, None))]
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
