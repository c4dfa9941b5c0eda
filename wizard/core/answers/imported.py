"""An existing accelerate config, imported *and* checked: what the TUI shows for a ``--config`` start.

The findings about the file are exactly those of ``fsdpds-wizard check`` on it (same rules, same
severities, same GPU count), so the wizard and ``check`` never disagree about a file. What the importer
says about its own translation (a value it could not carry, a key kept in ``deepspeed.extra``) is a
separate list of notes: facts about the import, not about the file's faults, which ``check`` reports.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..context import Context
from ..findings import INFO, Finding, dedupe, sort_findings
from ..lint.checked import check_findings, context_findings  # noqa: F401 (context_findings: the TUI imports it from here)
from .model import Answers


@dataclass
class ImportedConfig:
    answers: Answers | None
    """None when the file cannot be imported at all."""
    findings: list[Finding]
    """What ``fsdpds-wizard check`` reports on the file."""
    notes: list[Finding] = field(default_factory=list)
    """How the importer translated the file (severity info, rule ``import``)."""
    files: tuple[Path, ...] = ()
    """The files read: the accelerate YAML, then the DeepSpeed JSON it names (when one was read); for a DeepSpeed
    JSON alone (:attr:`bare_ds`), that file only."""
    bare_ds: bool = False
    """A DeepSpeed JSON on its own was imported: no accelerate config, so the launch answers are defaults."""
    loaded: tuple[dict, dict | None] | None = None
    """The accelerate YAML and DeepSpeed JSON as read (a switch report's "before" column quotes them)."""


def import_and_check(path: str | Path, gpus_per_node: int | None = None, *,
                     context: Context | None = None) -> ImportedConfig:
    """Raises :class:`~wizard.core.inputs.InputError` when the file cannot be read at all. ``context``: what the
    file is judged for, as in :func:`check_findings`."""
    from ..lint import load_config_files
    from .importer import import_mapping

    loaded = load_config_files(Path(path).expanduser())
    findings = check_findings(loaded, gpus_per_node, context=context)
    answers, translation = import_mapping(loaded.yaml, loaded.ds, bare_ds=loaded.bare_ds)
    if answers is None:
        return ImportedConfig(None, sort_findings(dedupe(findings + translation)))
    notes = translation  # the importer's notes: rule ``import``, severity info
    if loaded.bare_ds:
        return ImportedConfig(answers, findings, dedupe(bare_json_notes(answers) + notes), (loaded.yaml_path,),
                              bare_ds=True, loaded=(loaded.yaml, loaded.ds))
    files = (loaded.yaml_path,) + ((loaded.ds_path,) if loaded.ds_path is not None else ())
    return ImportedConfig(answers, findings, dedupe(notes), files, loaded=(loaded.yaml, loaded.ds))


_LAUNCH_DEFAULTS = ("launch.num_processes", "launch.num_machines", "launch.training_loop")


def bare_json_notes(answers: Answers) -> list[Finding]:
    """What importing a DeepSpeed JSON alone cannot know: the launch answers (no accelerate config holds them) and
    the training loop (a JSON does not say who drives training)."""
    from ..wizard_rules import IMPORT_NOTE

    processes, machines = answers["launch.num_processes"], answers["launch.num_machines"]
    loop = answers["launch.training_loop"]
    on = f"{processes} processes on {'one machine' if machines == 1 else f'{machines} machines'}"
    if any(sid in answers.explicit for sid in _LAUNCH_DEFAULTS[:2]):  # the JSON's accelerate keys (their own notes)
        kept = (f"the launch answers come from the accelerate keys the JSON holds ({on}), the training loop keeps "
                f"its default '{loop}'")
    else:
        kept = f"the launch answers keep their defaults ({on}, training loop '{loop}')"
    return [Finding(INFO, IMPORT_NOTE, _LAUNCH_DEFAULTS,
                    "a DeepSpeed JSON alone was imported: no accelerate config says how it is launched, so " + kept,
                    "set launch.num_processes (and the machines) for your cluster, and launch.training_loop trainer "
                    "if the Hugging Face Trainer (TRL, LLaMA-Factory, axolotl) uses this JSON", "wizard importer")]
