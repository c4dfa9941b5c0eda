"""The SLURM batch script for a multi-machine run: one launcher per node, rank and address from SLURM.

Pure and stdlib only (the review screen shows the script; :mod:`wizard.run.slurm` submits it). What the
script does depends on how the target starts on several machines:

* FSDP (1 and 2) and DeepSpeed's ``standard`` launcher: ``accelerate launch`` on every node, started by
  ``srun --ntasks-per-node=1``. Each node's launcher is torchrun with ``--machine_rank $SLURM_NODEID``; the main
  address is the first host of ``$SLURM_JOB_NODELIST`` (``scontrol show hostnames``), the port the answers'
  ``launch.main_process_port`` (29500 when unset). These flags on the command line win over the values in the
  config file (accelerate/commands/launch.py:1278-1283 fills only arguments left unset).
* DeepSpeed ``nossh``: also one launcher per node under ``srun`` (``deepspeed --no_ssh --node_rank``), and the
  DeepSpeed runner needs a hostfile: the batch step writes it from the allocation before ``srun``.
* DeepSpeed ``pdsh``, ``openmpi``, ``mvapich``, ``mpich`` and ``slurm``: the DeepSpeed runner starts every node
  itself, so ``accelerate launch`` runs once, on the first node (the batch step), with a hostfile written from the
  allocation (accelerate/utils/launch.py:452-487). pdsh needs passwordless ssh between the nodes, the MPI
  launchers their ``mpirun``; ``slurm`` runs ``srun`` inside this allocation.

Every node's output goes to its own file in ``log_dir``: ``node-<task>-<hostname>.log`` (``%t``/``%N``), the batch
step's to ``batch-<jobid>.log``. ``log_dir`` must be on a filesystem all nodes share (as the config file is).

What reaches an ``#SBATCH`` line is never pasted raw: sbatch reads those lines itself (words split at blanks, a
newline ends the directive and starts a shell line). The partition and the time limit must have SLURM's own shapes
(:func:`check_slurm_options`, exit 2 naming the flag); the log paths are written in double quotes with ``%`` doubled
(sbatch and srun expand ``%j``, ``%t``, ``%N`` in them), and a folder holding a control character or a backslash
(sbatch turns off its ``%`` patterns for a path with one) is refused (:func:`sbatch_path_problem`).
"""
from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..catalog import DEEPSPEED
from ..exits import UsageError
from .model import Answers
from .multinode import (
    DEFAULT_PORT,
    PER_NODE_LAUNCHERS,
    ds_launcher,
    main_port,
    needs_hostfile,
    runner_starts_every_machine,
)
from .render import processes_per_node

NODE_LOG = "node-%t-%N.log"
BATCH_LOG = "batch-%j.log"


_PARTITION = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*(,[A-Za-z0-9_][A-Za-z0-9_.-]*)*")
"""A SLURM partition name, or several comma-separated (sbatch --partition=a,b)."""
_TIME_LIMIT = re.compile(r"([0-9]+-[0-9]+(:[0-9]+){0,2}|[0-9]+(:[0-9]+){0,2}|(?i:unlimited|infinite))")
"""sbatch --time: MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS, DAYS-HOURS, DAYS-HOURS:MINUTES,
DAYS-HOURS:MINUTES:SECONDS, or UNLIMITED/INFINITE."""
_JOB_NAME = re.compile(r"[A-Za-z0-9_.+-]+")


def check_slurm_options(partition: str | None = None, time: str | None = None) -> None:
    """Raise :class:`UsageError` (exit 2) naming ``--partition`` or ``--time`` when it is not SLURM's shape: both
    are written into ``#SBATCH`` lines, where a blank would add an sbatch option and a newline a shell command."""
    if partition is not None and not _PARTITION.fullmatch(partition):
        raise UsageError(f"--partition {partition!r}: not a SLURM partition name (letters, digits, '_', '.' and "
                         "'-', not starting with '-'; several comma-separated, no blanks); use a name sinfo lists, "
                         "e.g. --partition gpu")
    if time is not None and not _TIME_LIMIT.fullmatch(time):
        raise UsageError(f"--time {time!r}: not a SLURM time limit; write MINUTES, MINUTES:SECONDS, "
                         "HOURS:MINUTES:SECONDS, DAYS-HOURS, DAYS-HOURS:MINUTES or DAYS-HOURS:MINUTES:SECONDS "
                         "(e.g. --time 01:30:00), or UNLIMITED")


def sbatch_path_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be a folder of the batch script's log files (None: it can): a control character (a
    newline would end the ``#SBATCH`` line) or a backslash (sbatch then leaves ``%j`` unexpanded)."""
    text = str(path)
    bad = next((c for c in text if ord(c) < 0x20 or ord(c) == 0x7F or c == "\\"), None)
    if bad is None:
        return None
    what = "a backslash" if bad == "\\" else f"the control character {bad!r}"
    return (f"the folder {text!r} holds {what}: SLURM cannot write the job's logs there as written; choose an --out "
            "folder without it (blanks, quotes and '%' are fine)")


def _sbatch_pattern(prefix: str, name: str) -> str:
    """A log path for sbatch/srun: ``%`` of the folder doubled (they expand ``%j``...), ``name``'s kept."""
    return prefix.replace("%", "%%") + name


def _sbatch_quoted(text: str) -> str:
    """``text`` in double quotes as sbatch reads an ``#SBATCH`` line (a blank or ``#`` inside is kept)."""
    return '"' + text.replace('"', '\\"') + '"'


def _q(value: str | Path) -> str:
    return shlex.quote(str(value))


def batch_script(answers: Answers, config_path: str | Path, *, script: str | None = None,
                 script_args: list[str] | None = None, partition: str | None = None, time: str | None = None,
                 job_name: str = "fsdpds-wizard", log_dir: str | Path | None = None,
                 launcher: Sequence[str] | None = None, cpu: bool = False, cwd: str | Path | None = None,
                 env: Mapping[str, str] | None = None) -> str:
    """The sbatch script that starts one launcher per node (accelerate launch, or what the DeepSpeed launcher
    choice needs) with the machine rank and main address taken from SLURM's environment.

    ``script``: the training script (default ``launch.script``, else ``train.py``); ``script_args``: its
    arguments (default ``launch.script_args``). ``launcher``: the command that is ``accelerate`` (default
    ``accelerate`` on the nodes' PATH). ``cpu``: a CPU run (no GPUs requested). ``cwd``: the folder the nodes
    start in (default: where sbatch was called). ``env``: variables exported to every node. ``log_dir``: where the
    per-node logs go (default: the config file's folder).

    Raises :class:`UsageError` for a partition or time limit not in SLURM's shape, a job name that is not one
    plain word, or a log folder sbatch cannot take (:func:`sbatch_path_problem`).
    """
    check_slurm_options(partition or None, time or None)
    if not _JOB_NAME.fullmatch(job_name):
        raise UsageError(f"job name {job_name!r}: letters, digits and _ . + - only")
    machines = max(1, int(answers["launch.num_machines"] or 1))
    per_node = processes_per_node(answers)
    port = main_port(answers)
    config = Path(config_path)
    logs = Path(log_dir) if log_dir is not None else (config.parent if str(config.parent) not in ("", ".") else None)
    log_prefix = f"{logs}/" if logs is not None else ""
    problem = sbatch_path_problem(log_prefix)
    if problem:
        raise UsageError(problem)
    script = script or answers["launch.script"] or "train.py"
    args = [str(a) for a in (answers["launch.script_args"] if script_args is None else script_args)]
    accelerate = list(launcher) if launcher else ["accelerate"]
    ds = ds_launcher(answers)  # None: FSDP, or DeepSpeed on one machine (torchrun there, no runner)
    per_node_start = not runner_starts_every_machine(answers)
    rdzv = answers["launch.rdzv_backend"] or "static"

    how = (f"{'FSDP' if answers.target != DEEPSPEED else 'DeepSpeed'}: accelerate launch (torchrun) on every node"
           if ds is None else
           f"DeepSpeed '{ds}' launcher: " + ("accelerate launch on every node" if per_node_start else
                                             "accelerate launch once, on the first node; the DeepSpeed runner "
                                             "starts the other nodes from the hostfile"))
    lines = [
        "#!/bin/bash",
        f"# Written by fsdpds-wizard: {answers.target} on {machines} machine(s) x {per_node} process(es).",
        f"# {how}.",
        "# Machine rank from SLURM_NODEID, main address = the first host of SLURM_JOB_NODELIST.",
    ]
    if ds == "pdsh":
        lines.append("# pdsh reaches the other nodes over ssh: it needs pdsh and passwordless ssh between them.")
    elif ds in ("openmpi", "mvapich", "mpich"):
        lines.append(f"# The {ds} launcher starts the nodes with its mpirun: it must be on the first node's PATH.")
    elif ds == "slurm":
        lines.append("# DeepSpeed's slurm launcher calls srun itself, inside this allocation.")
    lines += [
        f"#SBATCH --job-name={job_name}",
        f"#SBATCH --nodes={machines}",
        "#SBATCH --ntasks-per-node=1",
    ]
    if not cpu:
        lines.append(f"#SBATCH --gpus-per-node={per_node}")
    if partition:
        lines.append(f"#SBATCH --partition={partition}")
    if time:
        lines.append(f"#SBATCH --time={time}")
    lines.append(f"#SBATCH --output={_sbatch_quoted(_sbatch_pattern(log_prefix, BATCH_LOG))}")
    lines += ["", "set -euo pipefail"]
    if cwd is not None:
        lines.append(f"cd {_q(cwd)}")
    for key, value in (env or {}).items():
        lines.append(f"export {key}={_q(value)}")
    lines += [
        # sed reads the whole list: head would exit early, and under pipefail scontrol's SIGPIPE fails the job
        'MAIN_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | sed -n 1p)',
        f"MAIN_PORT={int(port)}",
        "export MAIN_ADDR MAIN_PORT",
    ]
    hostfile = needs_hostfile(answers)
    if hostfile:
        lines += [
            f'HOSTFILE={_q(log_prefix + "hostfile-")}"$SLURM_JOB_ID"',
            f'scontrol show hostnames "$SLURM_JOB_NODELIST" | sed "s/$/ slots={per_node}/" > "$HOSTFILE"',
            "export HOSTFILE",
        ]
    rank = '"$SLURM_NODEID"' if per_node_start else "0"
    flags = [*(_q(a) for a in accelerate), "launch", "--config_file", _q(config),
             "--num_machines", '"$SLURM_NNODES"', "--num_processes", str(machines * per_node),
             "--machine_rank", rank, "--main_process_ip", '"$MAIN_ADDR"', "--main_process_port", '"$MAIN_PORT"']
    if rdzv != "static" and per_node_start:
        flags += ["--rdzv_backend", _q(rdzv)]
    if hostfile:
        flags += ["--deepspeed_hostfile", '"$HOSTFILE"']
    command = " ".join(flags) + " \\\n    " + " ".join(_q(t) for t in [script, *args])
    if per_node_start:
        lines += [
            "",
            "# one launcher per node; each node's output in its own file",
            "node_launch() {",
            f"  exec {command}",
            "}",
            "export -f node_launch",
            f"srun --nodes={machines} --ntasks-per-node=1 --kill-on-bad-exit=1 \\",
            f"  --output={_q(_sbatch_pattern(log_prefix, NODE_LOG))} bash -c node_launch",
        ]
    else:
        lines += [
            "",
            "# the DeepSpeed runner starts every node from the hostfile; its output is this node's log",
            f"exec {command} \\",
            f"  > {_q(log_prefix + 'node-0-')}\"$(hostname -s)\".log 2>&1",
        ]
    return "\n".join(lines) + "\n"


__all__ = ["BATCH_LOG", "DEFAULT_PORT", "NODE_LOG", "PER_NODE_LAUNCHERS", "batch_script", "check_slurm_options",
           "sbatch_path_problem"]
