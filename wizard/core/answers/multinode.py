"""What a multi-node launch needs besides the config: the command each machine runs and DeepSpeed's hostfile.

Pure (stdlib and the core only). Which machines run a command follows accelerate 1.15's own launch code
(accelerate/utils/launch.py:216-224, 446-498; docs/multinode.md):

* FSDP, and DeepSpeed's ``standard`` launcher: torchrun on every machine, so every machine runs
  ``accelerate launch`` with its own ``--machine_rank`` (0 on the main machine) and the main address and port.
* DeepSpeed's ``nossh`` launcher: the DeepSpeed runner on every machine (``--no_ssh --node_rank machine_rank``),
  so also one command per machine, each with its rank, plus a hostfile.
* DeepSpeed's ``pdsh``, ``openmpi``, ``mvapich``, ``mpich`` and ``slurm`` launchers: the runner on the first host of
  the hostfile starts every machine itself; ``machine_rank`` is not passed on, so there is one command, run once,
  and the hostfile (``hostname slots=N`` per machine) says where the processes go.
"""
from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path

from ..catalog import DEEPSPEED
from ..hosts import is_shell_word
from ..i18n import said
from ..recordclass import record
from .model import Answers
from .render import processes_per_node

DEFAULT_PORT = 29500
"""The main process port when launch.main_process_port is not answered (accelerate's and torchrun's default)."""

PER_NODE_LAUNCHERS = ("standard", "nossh")
"""DeepSpeed launchers started on every machine (torchrun, or the runner with --no_ssh); the others start every
machine from the first host."""

HOSTFILE = "hostfile"
"""The file name generate writes the DeepSpeed hostfile under, in the output folder."""

MAIN_ADDRESS_PLACEHOLDER = "MAIN-MACHINE-ADDRESS"
"""Stands for machine 0's address in the commands when launch.main_process_ip is not answered."""

HOST_PLACEHOLDER = "CHANGE-ME-host-{rank}"
"""A hostfile line's host name when no host names are given (replace it with the machine's name)."""



@record(frozen=True)
class NodeCommand:
    """One command line to run: on machine ``machine`` (its rank), or, with ``machine`` None, once on the first
    host of the hostfile (the DeepSpeed runner starts the others)."""

    machine: int | None
    argv: tuple[str, ...]
    where: str
    """Where to run it, in words: 'machine 0 (main)', 'machine 1', 'the first host of the hostfile'."""

    @property
    def text(self) -> str:
        return shlex.join(self.argv)


def is_multinode(a: Answers) -> bool:
    return a["launch.num_machines"] > 1


def ds_launcher(a: Answers) -> str | None:
    """The DeepSpeed multi-node launcher that applies (None: FSDP, or one machine)."""
    if a.target != DEEPSPEED or not is_multinode(a):
        return None
    return str(a["launch.ds_multinode_launcher"])


def needs_hostfile(a: Answers) -> bool:
    """A hostfile is read: DeepSpeed on several machines with a launcher other than ``standard``."""
    launcher = ds_launcher(a)
    return launcher is not None and launcher != "standard"


def runner_starts_every_machine(a: Answers) -> bool:
    """One command on the first host: the runner reaches the other machines itself (pdsh, MPI, slurm)."""
    launcher = ds_launcher(a)
    return launcher is not None and launcher not in PER_NODE_LAUNCHERS


DEEPSPEED_ENV = ".deepspeed_env"
"""The file accelerate appends the environment to for DeepSpeed's runner (``DS_ENV_FILE`` renames it)."""


def writes_env_file(a: Answers) -> bool:
    """accelerate appends its whole environment to ``.deepspeed_env`` in the folder it is started from: DeepSpeed on
    several machines with any launcher but ``standard`` (accelerate/commands/launch.py:1060-1064)."""
    return needs_hostfile(a)


def env_file_note(a: Answers, launch_dir: str | Path | None = None, env: Mapping[str, str] | None = None
                  ) -> str | None:
    """What a launch of ``a`` from ``launch_dir`` leaves in ``.deepspeed_env``, in words (None when it writes none):
    said before such a launch (``--headless``, ``--launch``, the TUI's launch confirmation)."""
    if not writes_env_file(a):
        return None
    name = (env or {}).get("DS_ENV_FILE") or DEEPSPEED_ENV
    where = str(Path(launch_dir) / name) if launch_dir is not None else said(f"{name} in the folder it starts from")
    return said(f"with the {ds_launcher(a)} launcher accelerate launch appends its whole environment (every "
                f"variable, tokens and keys included) to {where}, a plain file readable under the usual umask, and "
                "DeepSpeed's runner exports every line of it on the machines, printing them in its 'cmd = ...' log "
                "line (the run records keep that line redacted). Launch without secrets in the environment, or "
                "delete the file after the run")


def remote_shell_unsafe(a: Answers, script: str | None = None, args: list[str] | None = None) -> list[str]:
    """The script and arguments a remote shell would read as more than themselves, on a launch that passes them
    through one (DeepSpeed's runner launchers); [] otherwise. ``script``/``args`` default to the answers'."""
    if not runner_starts_every_machine(a):
        return []
    script = script if script is not None else a["launch.script"]
    args = args if args is not None else [str(t) for t in a["launch.script_args"]]
    return [t for t in ([script] if script else []) + list(args) if not is_shell_word(t)]


def hosts(a: Answers) -> list[str] | None:
    """The answers' host names, one per machine, or None when not given (or not one per machine, which the
    ``hosts-count`` rule reports)."""
    names = [str(h) for h in a["launch.hosts"]]
    return names if names and len(names) == a["launch.num_machines"] else None


def main_address(a: Answers) -> str:
    """``main_process_ip``, else machine 0's host name, else a placeholder."""
    names = hosts(a)
    return a["launch.main_process_ip"] or (names[0] if names else MAIN_ADDRESS_PLACEHOLDER)


def main_port(a: Answers) -> int:
    return a["launch.main_process_port"] or DEFAULT_PORT


def node_commands(a: Answers, config_path: str, *, script: str | None = None,
                  script_args: list[str] | None = None) -> list[NodeCommand]:
    """The ``accelerate launch`` command lines of a multi-node launch ([] on one machine).

    ``script``/``script_args`` default to the answers' (``train.py`` when none). The rank given on the command line
    overrides the config's ``machine_rank`` (accelerate copies a config value only onto an unset argument)."""
    if not is_multinode(a):
        return []
    tail = [script or a["launch.script"] or "train.py",
            *(script_args if script_args is not None else list(a["launch.script_args"]))]
    base = ["accelerate", "launch", "--config_file", str(config_path)]
    if runner_starts_every_machine(a):
        names = hosts(a)
        first = f"{names[0]}, the first host of the hostfile" if names else "the first host of the hostfile"
        return [NodeCommand(None, tuple(base + tail), f"{first} (it starts every machine)")]
    out = []
    for rank in range(a["launch.num_machines"]):
        argv = base + ["--machine_rank", str(rank), "--main_process_ip", main_address(a),
                       "--main_process_port", str(main_port(a))] + tail
        names = hosts(a)
        where = "machine 0 (main)" if rank == 0 else f"machine {rank}"
        out.append(NodeCommand(rank, tuple(argv), f"{names[rank]}, {where}" if names else where))
    return out


def commands_text(a: Answers, config_path: str, *, script: str | None = None,
                  script_args: list[str] | None = None) -> str:
    """The per-node commands as text, one ``# where`` comment line before each ("" on one machine)."""
    cmds = node_commands(a, config_path, script=script, script_args=script_args)
    if not cmds:
        return ""
    lines = []
    if main_address(a) == MAIN_ADDRESS_PLACEHOLDER and any(c.machine is not None for c in cmds):
        lines.append("# " + said(f"{MAIN_ADDRESS_PLACEHOLDER}: replace it with machine 0's address "
                                 "(launch.main_process_ip)"))
    names = hosts(a)
    for c in cmds:
        lines.append("# " + _on(c.machine, names))
        lines.append(c.text)
    return "\n".join(lines) + "\n"


def _on(machine: int | None, names: list[str] | None) -> str:
    """The comment before a command: ``on WHERE:`` (WHERE as :attr:`NodeCommand.where` words it), one whole
    ``said(...)`` sentence per case so that the command line can show it in the language."""
    if machine is None:
        return (said(f"on {names[0]}, the first host of the hostfile (it starts every machine):") if names
                else said("on the first host of the hostfile (it starts every machine):"))
    if machine == 0:
        return said(f"on {names[0]}, machine 0 (main):") if names else said("on machine 0 (main):")
    return said(f"on {names[machine]}, machine {machine}:") if names else said(f"on machine {machine}:")


def hostfile_text(a: Answers, hostnames: list[str] | None = None) -> str | None:
    """DeepSpeed's hostfile, ``hostname slots=N`` per machine (N = processes per machine), or None when the
    launch reads none. Without ``hostnames`` (one per machine) the names are placeholders marked CHANGE-ME; the
    first line is the host the runner starts from. ``hostnames`` defaults to the answers' ``launch.hosts``."""
    if not needs_hostfile(a):
        return None
    machines = a["launch.num_machines"]
    if hostnames is None:
        hostnames = hosts(a)
    if hostnames is not None and len(hostnames) != machines:
        raise ValueError(f"hostfile_text: {len(hostnames)} host name(s) for {machines} machines")
    slots = processes_per_node(a)
    lines = ["# DeepSpeed hostfile (fsdpds-wizard): one line per machine, 'hostname slots=GPUs used on it'."]
    if hostnames is None:
        lines.append("# The names below are placeholders: replace each CHANGE-ME-host-N with a machine's hostname "
                     "(the first line is the machine you launch from).")
        hostnames = [HOST_PLACEHOLDER.format(rank=i) for i in range(machines)]
    lines += [f"{host} slots={slots}" for host in hostnames]
    return "\n".join(lines) + "\n"
