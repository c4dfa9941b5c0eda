"""A real single-host SLURM cluster with two slurmd "nodes" for the session (scripts/slurm_local.sh).

Brought up once (about 0.1 s), stopped at the end of the session also when tests fail: every job cancelled, every
daemon it started gone. Skips, with the reason, when this is not root or SLURM's daemons are not installed
(``make test`` installs them when it can: the Makefile's slurm-deps target).
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import ROOT

SCRIPT = ROOT / "scripts" / "slurm_local.sh"


@dataclass
class Cluster:
    base: Path
    conf: Path
    env: dict[str, str]

    def run(self, *cmd: str, timeout: float = 30) -> subprocess.CompletedProcess:
        return subprocess.run(list(cmd), env=self.env, capture_output=True, text=True, timeout=timeout)

    def queue(self) -> str:
        return self.run("squeue", "-h").stdout.strip()


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "the local SLURM cluster runs its daemons as root; this is not root"
    gone = [t for t in ("slurmctld", "slurmd", "munged", "sbatch", "scontrol") if shutil.which(t) is None]
    if gone:
        return f"SLURM is not installed ({', '.join(gone)} missing): make slurm-deps installs it (root, apt-get)"
    return None


ATTEMPTS = 4
"""Cluster starts tried when a daemon finds its port taken (and only then)."""


def _port_run(n: int = 3) -> int:
    """The first of ``n`` consecutive free ports below the kernel's ephemeral range (the rehearsal's choice, so no
    connection or bind to port 0 on this machine is given one of them before the daemons listen); a daemon that
    still finds its port taken makes :func:`slurm_cluster` start again on others."""
    from wizard.run.rehearse import free_ports_below_ephemeral

    first = free_ports_below_ephemeral(n)
    if first is None:
        raise RuntimeError(f"no {n} free consecutive ports below the ephemeral range")
    return first


def _port_taken(base: Path) -> bool:
    """Whether a daemon of the cluster in ``base`` could not listen on its port."""
    return any("Address already in use" in log.read_text(errors="replace") for log in (base / "log").glob("*.log"))


def _stop(base: Path, env: dict[str, str]) -> str:
    down = subprocess.run(["bash", str(SCRIPT), "stop", str(base)], env=env, capture_output=True, text=True,
                          timeout=60)
    for name in ("slurmctld", f"slurmd.{socket.gethostname().split('.')[0]}", "slurmd.localhost", "munged"):
        pid_file = base / "run" / f"{name}.pid"
        if pid_file.is_file():
            pid = int(pid_file.read_text().strip() or 0)
            assert pid and not _alive(pid), f"{name} (pid {pid}) still running after stop"
    return down.stdout + down.stderr


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    why = _missing()
    if why:
        pytest.skip(why)
    for attempt in range(1, ATTEMPTS + 1):
        base = tmp_path_factory.mktemp("slurm")
        env = dict(os.environ, SLURM_LOCAL_PORT=str(_port_run()), SLURM_CONF=str(base / "etc" / "slurm.conf"))
        up = subprocess.run(["bash", str(SCRIPT), "start", str(base)], env=env, capture_output=True, text=True,
                            timeout=60)
        if up.returncode == 0:
            break
        taken = _port_taken(base)
        print(_stop(base, env))
        assert taken and attempt < ATTEMPTS, up.stdout + up.stderr
        print(f"slurm cluster: a daemon's port {env['SLURM_LOCAL_PORT']}+ was taken; starting again on others")
    try:
        yield Cluster(base, base / "etc" / "slurm.conf", env)
    finally:
        print(_stop(base, env))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:
        return "Z" not in Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0]
    except OSError:
        return False
