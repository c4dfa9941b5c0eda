"""Shared by the SLURM tests: the answers of the two-node jobs, the processes a cluster's jobs left behind."""
from __future__ import annotations

import os
from pathlib import Path

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

