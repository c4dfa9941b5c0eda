"""How many GPUs this machine has, without importing torch (the ``check`` command must start fast)."""
from __future__ import annotations

import os
from pathlib import Path

_PROC_GPUS = Path("/proc/driver/nvidia/gpus")


def _visible_limit() -> int | None:
    """Number of devices CUDA_VISIBLE_DEVICES allows (None when unset)."""
    value = os.environ.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return None
    value = value.strip()
    if value in ("", "-1", "NoDevFiles"):
        return 0
    count = 0
    for item in value.split(","):
        item = item.strip()
        if not item:
            break
        if item.lstrip("-").isdigit() and int(item) < 0:  # CUDA stops at the first invalid/negative id
            break
        count += 1
    return count


def _count_proc() -> int | None:
    try:
        entries = [p for p in _PROC_GPUS.iterdir() if p.is_dir()]
    except OSError:
        return None
    return len(entries) or None


def _which(name: str) -> str | None:
    """The program ``name`` on PATH, as a shell finds it (shutil.which without importing shutil and its archive
    modules, for check's start on a machine without /proc/driver/nvidia: issue 26)."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _count_nvidia_smi(timeout: float = 2.0) -> int | None:
    exe = _which("nvidia-smi")
    if exe is None:
        return None
    import subprocess  # here, not at the top: only where nvidia-smi is asked (issue 26: check's start)

    try:
        out = subprocess.run([exe, "-L"], capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    n = sum(1 for line in out.stdout.splitlines() if line.strip().startswith("GPU "))
    return n or None


def detect_gpus_per_node() -> int | None:
    """NVIDIA GPUs usable by a process started here, or None when that cannot be told."""
    found = _count_proc()
    if found is None:
        found = _count_nvidia_smi()
    if found is None:
        return None
    limit = _visible_limit()
    if limit is not None:
        found = min(found, limit)
    return found if found > 0 else None
