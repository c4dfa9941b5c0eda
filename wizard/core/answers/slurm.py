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
"""
from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..catalog import DEEPSPEED
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
    """
    machines = max(1, int(answers["launch.num_machines"] or 1))
    per_node = processes_per_node(answers)
    port = main_port(answers)
    config = Path(config_path)
    logs = Path(log_dir) if log_dir is not None else (config.parent if str(config.parent) not in ("", ".") else None)
    log_prefix = f"{logs}/" if logs is not None else ""
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
    lines.append(f"#SBATCH --output={log_prefix}{BATCH_LOG}")
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
            f"  --output={_q(log_prefix + NODE_LOG)} bash -c node_launch",
        ]
    else:
        lines += [
            "",
            "# the DeepSpeed runner starts every node from the hostfile; its output is this node's log",
            f"exec {command} \\",
            f"  > {_q(log_prefix + 'node-0-')}\"$(hostname -s)\".log 2>&1",
        ]
    return "\n".join(lines) + "\n"


__all__ = ["BATCH_LOG", "DEFAULT_PORT", "NODE_LOG", "PER_NODE_LAUNCHERS", "batch_script"]
