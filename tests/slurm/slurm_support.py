"""Shared by the SLURM tests: the answers of the two-node jobs, the processes a cluster's jobs left behind, and the
one failure a test starts again: the first node finding the main port taken."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

ATTEMPTS = 3

ZERO2 = {"schema_version": 1, "backend": "deepspeed", "sharding": {"strategy": "grads_optimizer"},
         "precision": {"mixed_precision": "no"}}
FSDP2 = {"schema_version": 1, "backend": "fsdp", "fsdp_version": 2, "sharding": {"strategy": "full"},
         "wrapping": {"policy": "transformer", "layer_classes": ["LlamaDecoderLayer"]},
         "precision": {"mixed_precision": "no"}}


def our_processes(conf: Path) -> list[str]:
    """Processes started by this cluster's jobs (their environment names its SLURM_CONF) running train_gpt."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            env = (proc / "environ").read_bytes()
        except OSError:
            continue
        if "train_gpt" in cmd and f"SLURM_CONF={conf}".encode() in env and b"SLURM_JOB_ID=" in env:
            found.append(f"{proc.name} {cmd}")
    return found



def port_taken(diagnosis) -> bool:
    """Whether a run's diagnosis (summary.json's dicts or a RunResult's items) is the main port being taken when the
    first node listened on it: not the config's fault, and the next rehearsal picks another port."""
    return any((d.get("code") if isinstance(d, dict) else d.code) == "port-taken" for d in diagnosis or ())


def run_job(argv: list[str], out: Path, **kw) -> subprocess.CompletedProcess:
    """``subprocess.run(argv, **kw)`` of a wizard SLURM launch writing under ``out``; started again (``out`` emptied)
    when it failed only because the main port was taken, at most ATTEMPTS times."""
    for attempt in range(1, ATTEMPTS):
        proc = subprocess.run(argv, **kw)
        summaries = sorted(out.glob("runs/*/summary.json"))
        if proc.returncode == 0 or not summaries or \
                not port_taken(json.loads(summaries[-1].read_text()).get("diagnosis")):
            return proc
        print(f"the job's main port was taken (attempt {attempt}); starting it again on another")
        shutil.rmtree(out)
    return subprocess.run(argv, **kw)
