"""From answers to a ready-to-start :class:`~wizard.run.launcher.LaunchSpec` (headless and TUI alike).

:func:`plan_launch` creates ``OUT/runs/<id>/``, renders the configs the run will use into it (the
rehearsal's CPU version when rehearsing), and builds the argument list::

    <accelerate> launch --config_file OUT/runs/<id>/accelerate_config.yaml [cpu_fsdp_compat.py] SCRIPT [ARGS...]

``<accelerate>`` is the ``accelerate`` next to this Python (so the run uses the same environment),
else ``python -m accelerate.commands.accelerate_cli``. The script is ``launch.script`` from the
answers, or the bundled ``templates/train_gpt.py``; its arguments are ``launch.script_args`` followed
by the ones given after ``--``, each a separate argv token (no shell, no splitting here). A rehearsal runs
the bundled script and keeps the arguments it understands (see :func:`~wizard.run.rehearse.rehearsal_answers`);
every change it makes is a "not rehearsed" row of the checklist and of ``summary.json``. Every launch gets
``PYTHONUNBUFFERED=1`` so output arrives live. The run starts in ``cwd`` (default: the current folder), the
folder a relative ``deepspeed_config_file`` in the run's config is written against (accelerate opens it from
its working folder), so the JSON is found wherever the output folder has been moved.
"""
from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..core.answers import Answers
from ..core.answers.generate import Generated, generate
from ..core.answers.multinode import remote_shell_unsafe
from ..core.answers.of_answers import situation_of
from ..core.answers.render import ACCELERATE_YAML, TRAINING_ARGUMENTS_JSON
from ..core.catalog import FSDP1, FSDP2
from ..core.findings import Finding
from ..core.gpus import detect_gpus_per_node
from ..core.i18n import said
from ..core.presets import bundled_script, bundled_trainer_script
from ..core.recordclass import replace
from ..runtime import STOP_FILE_ENV
from .checklist import expected_from_config
from .launcher import LaunchSpec
from .records import RunDir
from .rehearse import COMPAT_SHIM, Adjustment, rehearsal_answers, rehearsal_env, trainer_rehearsal


class PlanError(Exception):
    def __init__(self, message: str, findings: list[Finding] | None = None) -> None:
        super().__init__(message)
        self.findings = findings or []


@dataclass
class LaunchPlan:
    spec: LaunchSpec
    run_dir: RunDir
    generated: Generated
    script: str
    rehearsal: bool
    adjustments: list[Adjustment] = field(default_factory=list)
    swept: list[str] = field(default_factory=list)
    """What earlier runs in the same ``runs/`` left running after their wizard was killed, stopped now: one line
    per run (:func:`wizard.run.leftovers.sweep`)."""

    @property
    def world_size(self) -> int | None:
        """The number of processes the config asks for (the checklist's expectation)."""
        return (self.spec.expected or {}).get("world_size")


STOP_FILE = "stop"
"""In the run folder: created when the run is stopped, to ask the script to end after its step."""
ALLOW_NO_GPU = "--allow-no-gpu"
"""The headless flag that starts a plain launch on a machine where no GPU was found (the TUI asks instead)."""
_BACKEND_WORDS = {FSDP1: "FSDP1", FSDP2: "FSDP2", "deepspeed": "DeepSpeed"}


def no_gpu_problem(answers: Answers) -> str | None:
    """Why a plain launch of ``answers`` should not start here: no GPU was found on this machine (None when one
    was). The caller adds what to do instead (the rehearsal) and how to start it anyway. A SLURM launch runs on the
    cluster's nodes, not here: its callers do not ask."""
    if detect_gpus_per_node() is not None:
        return None
    procs = answers["launch.num_processes"]
    machines = max(int(answers["launch.num_machines"] or 1), 1)
    here = procs // machines if procs else procs
    backend = _BACKEND_WORDS.get(answers.target, answers.target)
    fsdp = " (FSDP falls back to no distribution: each process trains a copy of its own)" \
        if answers.target in (FSDP1, FSDP2) else ""
    return said(f"no GPU found on this machine (no NVIDIA driver lists one, or CUDA_VISIBLE_DEVICES hides them), and "
                f"the config starts {here} process{'es' if here != 1 else ''} here for {backend}, one per GPU: "
                f"without GPUs they run on the CPU, not as the config describes{fsdp}")


def accelerate_argv(python: str | None = None) -> list[str]:
    python = python or sys.executable
    exe = Path(python).parent / "accelerate"
    if exe.is_file() and os.access(exe, os.X_OK):
        return [str(exe)]
    return [python, "-m", "accelerate.commands.accelerate_cli"]


def _tokens(value, what: str) -> list[str]:
    """Script arguments are a list of separate argv tokens (``['--steps', '3000']``), never one string."""
    if isinstance(value, str):
        raise PlanError(said(f"{what} must be a list of separate arguments, not one string: {value!r}"))
    return [str(t) for t in value]


def plan_launch(answers: Answers, out_dir: Path, *, rehearse: bool = False, script_args: list[str] | None = None,
                cwd: str | None = None, base_env: dict[str, str] | None = None,
                adjust: Callable[[Answers, list[Adjustment]], tuple[Answers, list[Adjustment]]] | None = None,
                training_arguments: tuple[str, dict] | None = None) -> LaunchPlan:
    """Prepare a run (creates its directory and files); raise :class:`PlanError` when it cannot start.
    ``adjust(answers, adjustments)`` may change the answers the run uses, and the rehearsal's adjustments,
    before the configs are written (a SLURM run: :func:`wizard.run.slurm.plan_slurm_launch`)."""
    extra_args = _tokens(script_args or [], "script arguments")
    adjustments: list[Adjustment] = []
    where = Path(cwd) if cwd else Path.cwd()
    if rehearse:
        used, adjustments, args = rehearsal_answers(answers, extra_args=extra_args, cwd=where)
        script = str(bundled_script())
    else:
        used = answers
        script = answers["launch.script"] or str(bundled_script())
        args = _tokens(answers["launch.script_args"], "launch.script_args") + extra_args
    if adjust is not None:
        used, adjustments = adjust(used, adjustments)
    hf_trainer = rehearse and trainer_rehearsal(used)
    if hf_trainer:  # the Hugging Face Trainer drives it, with the TrainingArguments written
        script = str(bundled_trainer_script())
    elif training_arguments is not None:  # refused before a run folder exists
        raise PlanError(said("--training-file goes with a rehearsal through the Hugging Face Trainer (answers with "
                             "launch.training_loop trainer, or --trainer hf, and no tp/cp/sp)"))
    if script.startswith("-"):  # the answers' rule says it too; the bundled script never does
        raise PlanError(said(f"the training script {script!r} starts with '-': accelerate launch would read it as "
                             f"an option; give its path as './{script}'"))
    unsafe = remote_shell_unsafe(used, script, args)
    if unsafe:  # the answers' own are refused by the script-args-remote-shell rule; this covers those after --
        raise PlanError(said(f"{', '.join(repr(t) for t in unsafe)}: the {used['launch.ds_multinode_launcher']} "
                             "launcher passes the script and its arguments through a remote shell, unquoted; use plain "
                             "words (letters, digits and _ @ + = : , . / -)"))
    script_path = Path(script) if Path(script).is_absolute() else where / script
    if not script_path.is_file():
        raise PlanError(said(f"training script not found: {script} (set launch.script in the answers, or run "
                             "with --rehearse to use the bundled script)"))
    from .leftovers import sweep

    swept = sweep(Path(out_dir).expanduser().resolve() / "runs")  # before this run's folder and processes exist
    run_dir = RunDir(Path(out_dir).expanduser().resolve())
    from ..core.context import installed_versions

    # a relative deepspeed_config_file is from `where`; the run uses the libraries installed here: judged for them
    gen = generate(used, run_dir.path, launch_dir=where, versions=installed_versions())
    if not gen.ok:
        raise PlanError(said("the " + ("rehearsal " if rehearse else "") + "config has errors; nothing launched"),
                        [f for f in gen.findings if f.severity == "error"])
    run_dir.write_files(gen.files)
    situation = situation_of(used) if hf_trainer else None
    if training_arguments is not None and situation is not None:  # the user's file: its arguments, not the answers'
        fields = training_arguments[1]
        (run_dir.path / TRAINING_ARGUMENTS_JSON).write_text(json.dumps(fields, indent=2, sort_keys=True) + "\n")
        situation = replace(situation, trainer_arguments=dict(fields))
    if hf_trainer:
        args = ["--training-args", str(run_dir.path / TRAINING_ARGUMENTS_JSON), *args]
    argv = accelerate_argv() + ["launch", "--config_file", str(run_dir.path / ACCELERATE_YAML)]
    target = used.target
    if rehearse and target in (FSDP1, FSDP2):
        argv.append(str(COMPAT_SHIM))
    argv += [script, *args]
    base = dict(os.environ if base_env is None else base_env)
    stop_file = run_dir.path / STOP_FILE
    overrides = {"PYTHONUNBUFFERED": "1", "FSDPDS_RUN_DIR": str(run_dir.path),  # the script saves checkpoints there
                 STOP_FILE_ENV: str(stop_file)}  # created to ask the script to stop after its step (wizard.runtime)
    if rehearse:
        overrides.update(rehearsal_env(target, base, machines=used["launch.num_machines"]))
    env = dict(base, **overrides)
    expected = expected_from_config(gen.rendered.accelerate, gen.rendered.deepspeed, situation)
    if training_arguments is not None and "trainer" in expected:
        expected["trainer"]["from"] = training_arguments[0]
    summary_extra = {
        "rehearsal": rehearse,
        "target": target,
        "script": script,
        "script_args": args,
        "adjustments": [a.to_dict() for a in adjustments],
        "not_rehearsed": [a.to_dict() for a in adjustments],
        "compat_layer_used": bool(rehearse and target in (FSDP1, FSDP2)),
    }
    if rehearse:  # which loop drove the rehearsal: the bundled own Accelerator loop or the Hugging Face Trainer
        summary_extra["loop"] = "hf-trainer" if hf_trainer else "accelerate"
        if training_arguments is not None:
            summary_extra["training_arguments_from"] = training_arguments[0]
    spec = LaunchSpec(argv=argv, env=env, env_overrides=overrides, cwd=str(where), run_dir=run_dir,
                      expected=expected, summary_extra=summary_extra,
                      not_rehearsed=[a.to_dict() for a in adjustments], stop_file=str(stop_file))
    return LaunchPlan(spec, run_dir, gen, script, rehearse, adjustments, swept)


__all__ = ["ALLOW_NO_GPU", "LaunchPlan", "PlanError", "accelerate_argv", "no_gpu_problem", "plan_launch"]
