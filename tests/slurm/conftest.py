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
EXT_DIR = Path.home() / ".cache" / "fsdpds-wizard" / "torch_extensions"
os.environ.setdefault("TORCH_EXTENSIONS_DIR", str(EXT_DIR))


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


def _free_port_run(n: int = 3) -> int:
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + n > 65535:
            continue
        ok = True
        for p in range(port, port + n):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", p))
                except OSError:
                    ok = False
                    break
        if ok:
            return port
    raise RuntimeError("no three free consecutive ports")


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    why = _missing()
    if why:
        pytest.skip(why)
    base = tmp_path_factory.mktemp("slurm")
    env = dict(os.environ, SLURM_LOCAL_PORT=str(_free_port_run()), SLURM_CONF=str(base / "etc" / "slurm.conf"))
    try:
        up = subprocess.run(["bash", str(SCRIPT), "start", str(base)], env=env, capture_output=True, text=True,
                            timeout=60)
        assert up.returncode == 0, up.stdout + up.stderr
        yield Cluster(base, base / "etc" / "slurm.conf", env)
    finally:
        down = subprocess.run(["bash", str(SCRIPT), "stop", str(base)], env=env, capture_output=True, text=True,
                              timeout=60)
        print(down.stdout + down.stderr)
        for name in ("slurmctld", f"slurmd.{socket.gethostname().split('.')[0]}", "slurmd.localhost", "munged"):
            pid_file = base / "run" / f"{name}.pid"
            if pid_file.is_file():
                pid = int(pid_file.read_text().strip() or 0)
                assert pid and not _alive(pid), f"{name} (pid {pid}) still running after stop"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:
        return "Z" not in Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0]
    except OSError:
        return False
