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


def check_findings(loaded, gpus_per_node: int | None = None, *, context: Context | None = None,
                   num_processes: int | None = None, this_machine: bool = True, model=None) -> list[Finding]:
    """The findings ``check`` gives for a loaded config (``gpus_per_node`` None: this machine's count, unless
    ``this_machine`` is False: then the GPU count is unknown, as for a config judged away from where it runs) in
    ``context`` (the training loop and library versions; None: unknown loop, installed versions). A bare DeepSpeed
    JSON (``loaded.bare_ds``) is linted alone, its batch arithmetic over ``num_processes`` when given. ``model``: the
    model's shape when the user named it (rules that need its heads use it)."""
    from ..gpus import detect_gpus_per_node
    from ..lint import lint, lint_ds_json

    findings = list(loaded.findings)
    if loaded.bare_ds:
        findings += lint_ds_json(loaded.ds, num_processes=num_processes, context=context)
        return sort_findings(dedupe(findings))
    gpus = gpus_per_node if gpus_per_node is not None or not this_machine else detect_gpus_per_node()
    findings += lint(loaded.yaml, loaded.ds, gpus_per_node=gpus, ds_path_known=loaded.ds_path is not None,
                     context=context, hostfile=getattr(loaded, "hostfile", None), model=model)
    return sort_findings(dedupe(findings))


def context_findings(ctx: Context, *, deepspeed: bool) -> list[Finding]:
    """The notes ``check`` adds about what it judged for: versions that differ from those the knowledge was
    verified against, and (for DeepSpeed) an unknown training loop."""
    from ..context import LIBRARIES, SOURCE_ASSUMED, parse_version
    from ..findings import INFO
    from ..versions import VERIFIED_AGAINST
    from ..wizard_rules import CONTEXT_LOOP_UNKNOWN, CONTEXT_VERSIONS

    out = []
    differ = []
    for lib in LIBRARIES:
        judged = ctx.versions.get(lib)
        if judged and ctx.version_sources.get(lib) != SOURCE_ASSUMED and lib in VERIFIED_AGAINST \
                and parse_version(judged) != parse_version(VERIFIED_AGAINST[lib]):
            differ.append(lib)
    if differ:
        judged = ", ".join(f"{lib} {ctx.versions[lib]} ({ctx.version_sources[lib]})" for lib in differ)
        verified = ", ".join(f"{lib} {VERIFIED_AGAINST[lib]}" for lib in differ)
        out.append(Finding(INFO, CONTEXT_VERSIONS, tuple(differ),
                           f"Judged for {judged}; the wizard's knowledge was verified against {verified}. Rules "
                           "known to hold only for some versions follow their ranges; everything else is as "
                           "verified.", "`fsdpds-wizard check --verify` replays the config through the installed "
                           "libraries."))
    if deepspeed and ctx.loop is None:
        why = f" ({ctx.loop_source.removeprefix('--script: ')})" if ctx.loop_source else ""
        out.append(Finding(INFO, CONTEXT_LOOP_UNKNOWN, ("--trainer",), "Who drives training is not known" + why
                           + ": findings that depend on it (\"auto\" values, the Trainer's checks) are warnings "
                           "that say what happens under the Hugging Face Trainer and in an own Accelerator loop.",
                           "Pass --trainer hf or --trainer accelerate, or --script train.py."))
    return out


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
