"""Memory per rank of a running launch: host RSS from psutil, GPU memory from NVML when there is one.

:class:`MemorySampler` walks the launcher's process tree (the ranks run in sessions of their own, but
they are still its descendants), names each process by the ``RANK`` in its environment, and reads its
resident memory; with ``pynvml`` importable and a GPU present it adds each rank's GPU memory. A sample
costs a few system calls per process and never raises.
"""
from __future__ import annotations

from typing import Any

from ...core.recordclass import record


@record
class RankMemory:
    label: str
    rss: int
    gpu: int | None = None


def human_bytes(n: float | None) -> str:
    if n is None:
        return "?"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit in ("B", "KiB", "MiB") else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


class _Nvml:
    """Per-process GPU memory through NVML; silently unavailable without pynvml or a GPU."""

    def __init__(self) -> None:
        self.ok: bool | None = None
        self.nvml: Any = None  # the pynvml module once loaded

    def usage(self) -> dict[int, int]:
        if self.ok is False:
            return {}
        try:
            if self.ok is None:
                import pynvml  # nvidia-ml-py, present with CUDA builds of torch; optional

                pynvml.nvmlInit()
                self.nvml, self.ok = pynvml, True
            nv = self.nvml
            out: dict[int, int] = {}
            for i in range(nv.nvmlDeviceGetCount()):
                handle = nv.nvmlDeviceGetHandleByIndex(i)
                for proc in nv.nvmlDeviceGetComputeRunningProcesses(handle):
                    used = getattr(proc, "usedGpuMemory", None)
                    if used is not None:
                        out[proc.pid] = out.get(proc.pid, 0) + int(used)
            return out
        except Exception:  # noqa: BLE001 - no library, no driver, no GPU: host memory only
            self.ok = False
            return {}


BUILD_TOOLS = frozenset({"cc1", "cc1plus", "c++", "g++", "gcc", "cc", "clang", "clang++", "ld", "ld.gold", "as",
                         "collect2", "ninja", "nvcc", "cicc", "ptxas"})
"""Compilers and linkers a rank starts when DeepSpeed or torch JIT-build an op: they inherit the rank's environment
but are not the training's memory (a first rehearsal showed 3-4 GiB per rank for 0.4 GiB of ranks)."""


class MemorySampler:
    """Samples the process tree under one pid; remembers every descendant it saw (to clean up)."""

    def __init__(self, root_pid: int, max_processes: int = 256) -> None:
        self.root_pid = root_pid
        self.max_processes = max_processes
        self.seen: dict[int, float] = {}
        """pid -> create time of every descendant seen."""
        self._ranks: dict[int, str | None] = {}
        self.peak: dict[str, int] = {}
        """label -> the highest RSS seen."""
        self.peak_gpu: dict[str, int] = {}
        self._nvml = _Nvml()

    def sample(self) -> list[RankMemory]:
        try:
            import psutil
        except ImportError:
            return []
        try:
            root = psutil.Process(self.root_pid)
            procs = [root] + root.children(recursive=True)[: self.max_processes]
        except psutil.Error:
            return []
        gpu = self._nvml.usage()
        ranks: dict[str, RankMemory] = {}
        total = 0
        for p in procs:
            try:
                if p.pid != self.root_pid:
                    self.seen.setdefault(p.pid, p.create_time())
                if p.name() in BUILD_TOOLS:
                    continue
                rss = p.memory_info().rss
            except psutil.Error:
                continue
            total += rss
            if p.pid not in self._ranks:
                try:
                    env = p.environ()
                    rank = env.get("RANK") if "LOCAL_RANK" in env or "RANK" in env else None
                except psutil.Error:
                    rank = None
                self._ranks[p.pid] = rank
            rank = self._ranks[p.pid]
            if rank is not None and p.pid != self.root_pid:
                label = f"rank {rank}"
                if label in ranks:  # a rank's own helper process: count it with the rank
                    ranks[label].rss += rss
                else:
                    ranks[label] = RankMemory(label, rss, gpu.get(p.pid))
        out = sorted(ranks.values(), key=lambda r: int(r.label.split()[-1]) if r.label.split()[-1].isdigit() else 0)
        if not out:
            out = [RankMemory("process", total, sum(gpu.get(p.pid, 0) for p in procs) or None)]
        for r in out:
            self.peak[r.label] = max(self.peak.get(r.label, 0), r.rss)
            if r.gpu:
                self.peak_gpu[r.label] = max(self.peak_gpu.get(r.label, 0), r.gpu)
        return out
