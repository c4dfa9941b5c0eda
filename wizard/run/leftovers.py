"""No run outlives its wizard: the launcher dies with it, and what a killed wizard left running is stopped later.

Two parts (issue 22 item 15):

* :func:`die_with_parent` is the child set-up of the launch (``preexec_fn``): on Linux it asks the kernel, through
  ``prctl(PR_SET_PDEATHSIG)``, to send the launcher SIGTERM when the wizard dies, even of SIGKILL. The launcher runs
  in a session of its own (so a terminal's Ctrl-C reaches the wizard only), which the parent-death signal does not
  care about. The signal reaches the launcher alone: torchrun (``accelerate launch``) and DeepSpeed's launcher stop
  their ranks on SIGTERM; a process they leave running is for the sweep.
* :data:`PROCESSES` in the run folder records the wizard (pid, start time) and every process of the run's tree seen
  (pid, start time, command line), rewritten as the tree grows. :func:`sweep` runs at the next start of a launch
  into the same ``runs/`` folder: for a run without ``summary.json`` whose wizard is gone, every recorded process
  still alive with the same start time and command line (and what it started since) is stopped, SIGTERM then
  SIGKILL, and one line says so. A process whose start time or command line differs is another program that was
  given a recycled pid: it is never signalled.
"""
from __future__ import annotations

import hashlib
import json
import os
import shlex
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.i18n import said

PROCESSES = "processes.json"
PR_SET_PDEATHSIG = 1  # linux/prctl.h
SAME_START_S = 0.01
"""Two start times this close are the same process (psutil reads them in clock ticks)."""


def die_with_parent(sig: int = signal.SIGTERM) -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child receive ``sig`` when this process dies; None where the kernel has no
    parent-death signal (not Linux) or libc's ``prctl`` cannot be reached. Everything is looked up here, in the
    parent: the child, between fork and exec, only calls ``prctl`` and compares two numbers."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    parent = os.getpid()
    number = int(sig)

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, number, 0, 0, 0)
        if os.getppid() != parent:  # the wizard died between the fork and the prctl: nobody would signal us
            os.kill(os.getpid(), number)

    return preexec


def process_record(pid: int, started: float, cmdline: list[str], redactor: Any = None) -> dict[str, Any]:
    """A process as :data:`PROCESSES` records it: pid, start time, and its command line as a digest (the sweep
    compares it exactly) plus a redacted copy for people. The command line itself is never stored: a runner's
    holds the exported environment, secrets included (``pdsh ... export HF_TOKEN=...``)."""
    shown = shlex.join(cmdline)
    if redactor is not None:
        shown = redactor.text(shown)
    return {"pid": pid, "started": started, "cmdline_sha256": cmdline_digest(cmdline), "command": shown[:500]}


def cmdline_digest(cmdline: list[str]) -> str:
    return hashlib.sha256("\0".join(cmdline).encode("utf-8", "surrogateescape")).hexdigest()


def wizard_identity() -> dict[str, Any]:
    """This process as :data:`PROCESSES` records it (pid, start time)."""
    import psutil

    try:
        started = psutil.Process(os.getpid()).create_time()
    except psutil.Error:
        started = None
    return {"pid": os.getpid(), "started": started}


def write_processes(run_path: Path, wizard: dict[str, Any], pgid: int | None, processes: list[dict[str, Any]]) -> None:
    """Record the run's processes in ``run_path/processes.json`` (temporary file + rename)."""
    target = Path(run_path) / PROCESSES
    tmp = target.with_name(PROCESSES + ".tmp")
    tmp.write_text(json.dumps({"wizard": wizard, "pgid": pgid, "processes": processes}, indent=1) + "\n",
                   encoding="utf-8")
    os.replace(tmp, target)


def _same(recorded: dict[str, Any]) -> Any:
    """The live psutil process that is the recorded one (same pid, start time and command line), else None."""
    import psutil

    try:
        pid, started = int(recorded["pid"]), float(recorded["started"])
        p = psutil.Process(pid)
        with p.oneshot():
            if abs(p.create_time() - started) >= SAME_START_S or p.status() == psutil.STATUS_ZOMBIE:
                return None
            if "cmdline_sha256" in recorded and cmdline_digest(p.cmdline()) != recorded["cmdline_sha256"]:
                return None
        return p
    except (psutil.Error, KeyError, TypeError, ValueError):
        return None


def _alive(p: Any) -> bool:
    import psutil

    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def leftovers(run_path: Path) -> list[Any]:
    """The processes a run left running after its wizard died (psutil processes); empty when the run ended (it has
    ``summary.json``), its wizard still runs, or nothing recorded is alive as recorded."""
    run_path = Path(run_path)
    if (run_path / "summary.json").exists():
        return []
    try:
        record = json.loads((run_path / PROCESSES).read_text(encoding="utf-8"))
        wizard, recorded = record["wizard"], list(record["processes"])
    except (OSError, ValueError, KeyError, TypeError):
        return []
    if not isinstance(wizard, dict) or wizard.get("started") is None or _same(wizard) is not None:
        return []  # its wizard still runs (or cannot be told apart from a recycled pid): not ours to stop
    import psutil

    found: dict[int, Any] = {}
    for rec in recorded:
        if not isinstance(rec, dict) or "cmdline_sha256" not in rec:  # a process is stopped only by its full record
            continue
        p = _same(rec)
        if p is None:
            continue
        found[p.pid] = p
        try:
            for child in p.children(recursive=True):
                found.setdefault(child.pid, child)
        except psutil.Error:  # it left while we looked: what was found stays
            continue
    return list(found.values())


def _stop(processes: list[Any], term_s: float = 3.0, kill_s: float = 2.0) -> list[int]:
    """SIGTERM, then SIGKILL what is still alive; the pids still alive after both (normally none)."""
    import psutil

    for sig, wait_s in ((signal.SIGTERM, term_s), (signal.SIGKILL, kill_s)):
        for p in processes:
            if _alive(p):
                try:
                    p.send_signal(sig)  # psutil checks the pid still is this process (its start time) first
                except psutil.Error:  # it just left, or this user may not signal it: reported as still alive
                    continue
        deadline = time.monotonic() + wait_s
        while any(_alive(p) for p in processes) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not any(_alive(p) for p in processes):
            return []
    return [p.pid for p in processes if _alive(p)]


def sweep(runs_folder: Path) -> list[str]:
    """Stop what earlier runs in ``runs_folder`` left running after their wizard died; one line per such run."""
    lines: list[str] = []
    folder = Path(runs_folder)
    if not folder.is_dir():
        return lines
    for run_path in sorted(p.parent for p in folder.glob(f"*/{PROCESSES}")):
        found = leftovers(run_path)
        if not found:
            continue
        pids = sorted(p.pid for p in found)
        stuck = _stop(found)
        listed, alive = ", ".join(map(str, pids)), ", ".join(map(str, stuck))
        lines.append(said(f"stopped {len(pids)} process(es) left running by run {run_path.name}, whose wizard was "
                          f"killed: pids {listed} (still alive after SIGKILL: {alive})" if stuck else
                          f"stopped {len(pids)} process(es) left running by run {run_path.name}, whose wizard was "
                          f"killed: pids {listed}"))
    return lines


__all__ = ["PROCESSES", "die_with_parent", "leftovers", "process_record", "sweep", "wizard_identity",
           "write_processes"]
