"""Start a training run, watch it, stop it cleanly: the asyncio core shared by headless and the TUI.

A :class:`Run` starts one command (an argument list, never a shell string) in its own session and
process group, reads its merged stdout/stderr in chunks, writes every byte to the run's ``log.txt``,
feeds the :class:`~wizard.run.monitor.Monitor` and publishes typed events:

=====================  =============================================================================
event                  when
=====================  =============================================================================
:class:`Started`       the process exists (pid, argv, run directory)
:class:`Output`        a batch of cleaned lines (one per chunk read; droppable under back-pressure)
:class:`Metrics`       parsed step records (also appended to ``metrics.jsonl``)
:class:`SetupReported` a rank reported its effective setup; carries the merged setup and the checklist
:class:`ProgressUpdate` step / total / loss / lr / speed, at most ten per second (droppable)
:class:`Stopping`      a stop signal was sent (SIGINT, then SIGTERM, then SIGKILL)
:class:`Finished`      the run is over; carries the :class:`RunResult` (``summary.json`` is written)
=====================  =============================================================================

Consume them either with callbacks (``run.subscribe(fn)``, called in the event loop) or by iterating
``run.events()`` (create the iterator before ``await run.start()`` to see every event). Events a slow
consumer cannot keep up with are dropped only for :class:`Output` and :class:`ProgressUpdate`, and the
next :class:`Output` says how many lines were skipped; memory stays bounded however much a run prints.

Stopping: when the spec names a ``stop_file`` (the script reads it through :mod:`wizard.runtime`, as the bundled
script does) and the run reports steps, :meth:`Run.stop` first creates that file: the script ends by itself after
the step it is in (every rank at the same step), with no signal. When it has not ended within a few step times
(or at once, before the first step or on a second stop), :meth:`Run.stop` sends SIGINT to the process group and to
every descendant seen (torchrun
puts each rank in a session of its own, so signalling the group alone would miss them), waits
``grace_int`` seconds, then SIGTERM, waits ``grace_term``, then SIGKILL. A second :meth:`Run.stop` call
skips to the next signal at once. After the main process exits, any descendant still alive is
terminated, then killed: no process is left behind. The exit code of the run becomes
:attr:`RunResult.exit_code` (``128 + N`` when it died of signal N).

When the wizard itself is killed (SIGKILL: nothing of it runs any more), the launcher receives SIGTERM from the
kernel (its parent-death signal) and stops its ranks; every process seen is recorded in the run folder's
``processes.json`` so that the next launch into the same folder stops what is still left (:mod:`.leftovers`).
"""
from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any

from ..core.redact import Redactor
from .checklist import CheckItem, checklist_ok, compare, verdict
from .diagnose import Diagnosis, diagnose
from .leftovers import die_with_parent, process_record, wizard_identity, write_processes
from .monitor import Monitor, Progress
from .records import RunDir

READ_CHUNK = 1 << 16


_log = logging.getLogger(__name__)

class LaunchError(Exception):
    """The command could not be started at all."""


@dataclass
class LaunchSpec:
    argv: list[str]
    env: dict[str, str] | None = None
    """The child's complete environment (None: inherit this process's)."""
    env_overrides: dict[str, str] = field(default_factory=dict)
    """What ``env`` changes relative to ours; recorded in ``command.json``."""
    cwd: str | None = None
    run_dir: RunDir | None = None
    expected: dict | None = None
    """What the config asks for (:func:`wizard.run.checklist.expected_from_config`)."""
    grace_int: float = 10.0
    grace_term: float = 10.0
    grace_kill: float = 5.0
    summary_extra: dict = field(default_factory=dict)
    """Merged into ``summary.json`` (e.g. the rehearsal's adjustments)."""
    not_rehearsed: list[dict] = field(default_factory=list)
    """A rehearsal's changes (``Adjustment.to_dict()``): "not rehearsed" rows of every checklist."""
    stop_file: str | None = None
    """Created to ask the script to stop after its current step (``FSDPDS_STOP_FILE`` in its environment); None:
    stopping sends signals only."""


# ----------------------------------------------------------------------------- events
@dataclass(frozen=True)
class Started:
    run_id: str | None
    pid: int
    argv: tuple[str, ...]
    run_dir: str | None


@dataclass(frozen=True)
class Output:
    lines: tuple[str, ...]
    skipped_before: int = 0
    """Lines a slow consumer did not get before these (they are still in ``log.txt``)."""


@dataclass(frozen=True)
class Metrics:
    records: tuple[dict, ...]


@dataclass(frozen=True)
class SetupReported:
    rank: int
    record: dict
    effective: dict
    checklist: tuple[CheckItem, ...]


@dataclass(frozen=True)
class ProgressUpdate:
    progress: Progress
    elapsed_s: float


STOP_REQUEST = "stop request"
""":attr:`Stopping.signal` when the script was asked to stop after its step (no signal sent)."""


@dataclass(frozen=True)
class Stopping:
    signal: str
    """The signal sent (``SIGINT``, ...) or :data:`STOP_REQUEST`."""
    reason: str


@dataclass
class RunResult:
    run_id: str | None
    run_dir: str | None
    status: str
    """completed (exit 0), failed (non-zero), stopped (a stop was requested)."""
    exit_code: int
    returncode: int | None
    duration_s: float
    effective_setup: dict | None
    checklist: list[CheckItem]
    diagnosis: list[Diagnosis]
    summary: dict


@dataclass(frozen=True)
class Finished:
    result: RunResult


Event = Started | Output | Metrics | SetupReported | ProgressUpdate | Stopping | Finished
_DROPPABLE = (Output, ProgressUpdate)


class _EventQueue:
    def __init__(self, maxsize: int) -> None:
        self._items: deque = deque()
        self._maxsize = maxsize
        self._ready = asyncio.Event()
        self.closed = False
        self._skipped_lines = 0

    def put(self, ev: Any) -> None:
        if isinstance(ev, _DROPPABLE) and len(self._items) >= self._maxsize:
            if isinstance(ev, Output):
                self._skipped_lines += len(ev.lines)
            return
        if isinstance(ev, Output) and self._skipped_lines:
            ev = replace(ev, skipped_before=ev.skipped_before + self._skipped_lines)
            self._skipped_lines = 0
        self._items.append(ev)
        self._ready.set()

    def close(self) -> None:
        self.closed = True
        self._ready.set()

    def __aiter__(self) -> _EventQueue:
        return self

    async def __anext__(self) -> Any:
        while not self._items:
            if self.closed:
                raise StopAsyncIteration
            self._ready.clear()
            await self._ready.wait()
        return self._items.popleft()


def exit_code_of(returncode: int | None) -> int:
    if returncode is None:
        return 1
    return returncode if returncode >= 0 else 128 + (-returncode)


# ----------------------------------------------------------------------------- the run
class Run:
    """One launched command. Create, subscribe or iterate events, ``await start()``, ``await wait()``."""

    def __init__(self, spec: LaunchSpec, *, queue_size: int = 2000, progress_interval: float = 0.1) -> None:
        self.spec = spec
        self.monitor = Monitor()
        self.redactor = Redactor(os.environ, extra_env=[spec.env] if spec.env is not None else [])
        """What the log, the records and the :class:`Output` lines are redacted with: the secrets of our environment
        and the child's (docs/security.md, i22-secrets)."""
        self.proc: asyncio.subprocess.Process | None = None
        self.result: RunResult | None = None
        self.status = "pending"
        self._queue_size = queue_size
        self._queues: list[_EventQueue] = []
        self._callbacks: list[Callable[[Any], None]] = []
        self._known: dict[int, float] = {}
        self._records: dict[int, dict[str, Any]] = {}
        """What ``processes.json`` holds: pid, start time and command line of every process of the tree seen."""
        self._wizard: dict[str, Any] | None = None
        self._exited = asyncio.Event()
        self._hurry = asyncio.Event()
        self._stop_task: asyncio.Task | None = None
        self._stop_reason: str | None = None
        self._signals_sent: list[str] = []
        self._leftovers: list[int] = []
        self._progress_interval = progress_interval
        self._last_progress = 0.0
        self._progress_pending = False
        self._t0 = 0.0
        self._cpu0 = 0.0
        self._internal_errors = 0
        self._started_at: str | None = None
        self._tasks: list[asyncio.Task] = []
        self._done: asyncio.Task | None = None

    # ---------------------------------------------------------------- consumers
    def subscribe(self, callback: Callable[[Any], None]) -> None:
        """``callback(event)`` runs in the event loop for every event; keep it quick."""
        self._callbacks.append(callback)

    def events(self) -> AsyncIterator[Any]:
        """An async iterator over this run's events, ending after :class:`Finished`."""
        q = _EventQueue(self._queue_size)
        if self.result is not None:
            q.close()
        self._queues.append(q)
        return q

    def _emit(self, ev: Any) -> None:
        for cb in list(self._callbacks):
            try:
                cb(ev)
            except Exception:  # noqa: BLE001 - a broken subscriber must not break the run; say so
                _log.exception("run event subscriber %r failed on %s", cb, type(ev).__name__)
        for q in self._queues:
            q.put(ev)

    # ---------------------------------------------------------------- lifecycle
    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    @property
    def run_id(self) -> str | None:
        return self.spec.run_dir.run_id if self.spec.run_dir else None

    @property
    def seen_pids(self) -> frozenset[int]:
        """The processes of the run's tree seen so far (ranks live in sessions of their own): what a stop signals
        and what is swept up after the main process exits."""
        return frozenset(self._known)

    async def start(self) -> None:
        spec = self.spec
        if self.proc is not None:
            raise RuntimeError("run already started")
        if spec.run_dir is not None:
            spec.run_dir.redactor = self.redactor
            spec.run_dir.open()
            spec.run_dir.write_command(list(spec.argv), spec.cwd or os.getcwd(), spec.env_overrides)
        self._t0 = time.monotonic()
        self._cpu0 = time.process_time()
        self._started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *spec.argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT, cwd=spec.cwd, env=spec.env, start_new_session=True,
                preexec_fn=die_with_parent())  # SIGTERM to the launcher when the wizard dies, even of SIGKILL
        except OSError as exc:
            if spec.run_dir is not None:
                spec.run_dir.log_bytes(f"fsdpds-wizard: cannot start {spec.argv[0]}: {exc}\n".encode())
            self.status = "error"
            self._exited.set()
            self._finalize(returncode=None, error=f"cannot start {spec.argv[0]}: {exc}")
            raise LaunchError(f"cannot start {spec.argv[0]}: {exc}") from exc
        self.status = "running"
        self._refresh_tree()  # the launcher itself in processes.json at once
        self._emit(Started(self.run_id, self.proc.pid, tuple(spec.argv),
                           str(spec.run_dir.path) if spec.run_dir else None))
        pump = asyncio.create_task(self._pump())
        watch = asyncio.create_task(self._watch_tree())
        waiter = asyncio.create_task(self._wait_exit())
        self._tasks = [pump, watch, waiter]
        self._done = asyncio.create_task(self._finish(pump, watch))

    async def wait(self) -> RunResult:
        if self._done is None:
            if self.result is not None:
                return self.result
            raise RuntimeError("run not started")
        await asyncio.shield(self._done)
        assert self.result is not None
        return self.result

    async def stop(self, reason: str = "stopped by user") -> None:
        """Stop the run (idempotent); a second call skips to the next, harder signal."""
        if self.proc is None or self._exited.is_set():
            return
        if self._stop_task is None:
            self._stop_reason = reason
            self.status = "stopping"
            self._stop_task = asyncio.create_task(self._escalate())
        else:
            self._hurry.set()
        await asyncio.shield(self._stop_task)

    def request_stop(self, reason: str = "stopped by user") -> None:
        """Synchronous form for signal handlers and UI callbacks."""
        asyncio.get_running_loop().create_task(self.stop(reason))

    # ---------------------------------------------------------------- internals
    async def _pump(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        reader = self.proc.stdout
        while True:
            data = await reader.read(READ_CHUNK)
            if not data:
                break
            if self.spec.run_dir is not None:
                try:
                    self.spec.run_dir.log_bytes(data)
                except OSError:
                    self._internal_errors += 1  # disk full: keep draining the pipe, or the run would block
            try:
                self._dispatch(self.monitor.feed(data))
            except Exception:  # noqa: BLE001 - a parser bug must never stall the run
                self._internal_errors += 1
        try:
            self._dispatch(self.monitor.finish(), final=True)
        except Exception:  # noqa: BLE001
            self._internal_errors += 1

    def _dispatch(self, res: Any, final: bool = False) -> None:
        if res.lines:
            self._emit(Output(tuple(self.redactor.text("\n".join(res.lines)).split("\n"))))
        if res.metrics:
            train = [r for r in res.metrics if r.get("kind") != "eval"]
            if self.spec.run_dir is not None:
                self.spec.run_dir.add_metrics(train)
            self._emit(Metrics(tuple(res.metrics)))
        if res.setups:
            eff = self.monitor.effective_setup or {}
            items = tuple(compare(eff, self.spec.expected, not_rehearsed=self.spec.not_rehearsed)) \
                if self.spec.expected else ()
            for rec in res.setups:
                self._emit(SetupReported(int(rec.get("rank", 0) or 0), dict(rec), eff, items))
        if res.progress:
            self._progress_pending = True
        now = time.monotonic()
        if self._progress_pending and (final or now - self._last_progress >= self._progress_interval):
            self._last_progress = now
            self._progress_pending = False
            self._emit(ProgressUpdate(replace(self.monitor.progress), round(now - self._t0, 3)))

    async def _wait_exit(self) -> None:
        # Not proc.wait(): on Python < 3.12 it also waits until every copy of the output pipe is closed,
        # i.e. forever when a rank orphaned by a crash still holds it. The return code is set as soon
        # as the process exits.
        assert self.proc is not None
        while self.proc.returncode is None:
            await asyncio.sleep(0.05)
        self._exited.set()

    async def _watch_tree(self) -> None:
        """Remember every descendant (pid, start time): ranks live in sessions of their own."""
        n = 0
        while not self._exited.is_set():
            self._refresh_tree()
            n += 1
            delay = 0.2 if n < 40 else 1.0
            try:
                await asyncio.wait_for(self._exited.wait(), delay)
            except asyncio.TimeoutError:
                pass

    def _refresh_tree(self) -> None:
        if self.proc is None:
            return
        import psutil

        changed = False
        try:
            launcher = psutil.Process(self.proc.pid)
            for p in [launcher, *launcher.children(recursive=True)]:
                try:
                    with p.oneshot():
                        created, cmdline = p.create_time(), p.cmdline()
                except psutil.Error:  # that child just left
                    continue
                if p.pid != self.proc.pid:
                    self._known.setdefault(p.pid, created)
                rec = process_record(p.pid, created, cmdline, self.redactor)
                if self._records.get(p.pid) != rec:  # new, or it exec'd since it was seen
                    self._records[p.pid] = rec
                    changed = True
        except psutil.Error:  # the launcher process just left
            pass
        if changed:
            self._record_processes()

    def _record_processes(self) -> None:
        run_dir = self.spec.run_dir
        if run_dir is None or self.proc is None:
            return
        if self._wizard is None:
            self._wizard = wizard_identity()
        try:
            write_processes(run_dir.path, self._wizard, self.proc.pid, list(self._records.values()))
        except OSError:  # disk full: the run goes on; only the sweep after a killed wizard loses this record
            self._internal_errors += 1

    def _alive_known(self) -> list[int]:
        alive = []
        try:
            import psutil
        except ImportError:
            for pid in self._known:
                try:
                    os.kill(pid, 0)
                    alive.append(pid)
                except OSError:
                    pass
            return alive
        for pid, created in self._known.items():
            try:
                p = psutil.Process(pid)
                if abs(p.create_time() - created) < 0.01 and p.status() != psutil.STATUS_ZOMBIE:
                    alive.append(pid)
            except psutil.Error:
                pass
        return alive

    def _signal_all(self, sig: signal.Signals) -> None:
        assert self.proc is not None
        self._signals_sent.append(sig.name)
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        for pid in self._alive_known():
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def _cooperative_grace(self) -> float | None:
        """Seconds to wait for the script to stop by itself after the stop file is created: a few of its step times;
        None when it cannot be asked (no stop file, or no step reported yet: the script is not in its loop)."""
        p = self.monitor.progress
        if not self.spec.stop_file or p.step is None:
            return None
        return max(5.0, 3.0 * float(p.step_time or 0.0) + 2.0)

    async def _ask_to_stop(self) -> None:
        grace = self._cooperative_grace()
        if grace is None:
            return
        try:
            with open(self.spec.stop_file, "w", encoding="utf-8") as f:  # type: ignore[arg-type]
                f.write((self._stop_reason or "stop") + "\n")
        except OSError as exc:  # cannot ask: signals then
            _log.warning("cannot create the stop file %s: %s", self.spec.stop_file, exc)
            return
        self._emit(Stopping(STOP_REQUEST, self._stop_reason or ""))
        self._hurry.clear()
        exited = asyncio.create_task(self._exited.wait())
        hurry = asyncio.create_task(self._hurry.wait())
        await asyncio.wait({exited, hurry}, timeout=grace, return_when=asyncio.FIRST_COMPLETED)
        if not exited.done() and not hurry.done() and self.monitor.end_record is not None:
            # the script said it ended and is tearing down (the process group, the libraries): let it, a while
            await asyncio.wait({exited, hurry}, timeout=self.spec.grace_int, return_when=asyncio.FIRST_COMPLETED)
        for t in (exited, hurry):
            t.cancel()

    async def _escalate(self) -> None:
        await self._ask_to_stop()
        steps = ((signal.SIGINT, self.spec.grace_int), (signal.SIGTERM, self.spec.grace_term),
                 (signal.SIGKILL, self.spec.grace_kill))
        for sig, grace in steps:
            if self._exited.is_set():
                return
            self._refresh_tree()
            self._signal_all(sig)
            self._emit(Stopping(sig.name, self._stop_reason or ""))
            self._hurry.clear()
            exited = asyncio.create_task(self._exited.wait())
            hurry = asyncio.create_task(self._hurry.wait())
            await asyncio.wait({exited, hurry}, timeout=grace, return_when=asyncio.FIRST_COMPLETED)
            for t in (exited, hurry):
                t.cancel()

    async def _sweep(self) -> None:
        """After the main process exited: terminate, then kill, whatever it left behind."""
        left = self._alive_known()
        if left:
            self._leftovers = list(left)
            for sig, wait_s in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 2.0)):
                for pid in self._alive_known():
                    try:
                        os.kill(pid, sig)
                    except (ProcessLookupError, PermissionError):
                        pass
                deadline = time.monotonic() + wait_s
                while self._alive_known() and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                if not self._alive_known():
                    break
        try:
            assert self.proc is not None
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    async def _finish(self, pump: asyncio.Task, watch: asyncio.Task) -> None:
        await self._exited.wait()
        self._refresh_tree()
        await self._sweep()
        try:  # the pipe closes once every writer is gone; never wait forever for it
            await asyncio.wait_for(asyncio.shield(pump), 10.0)
        except asyncio.TimeoutError:
            pump.cancel()
        except Exception:  # noqa: BLE001 - reading failed; the result is still written
            self._internal_errors += 1
        watch.cancel()
        assert self.proc is not None
        self._finalize(self.proc.returncode)

    def _finalize(self, returncode: int | None, error: str | None = None) -> None:
        mon = self.monitor
        stopped = self._stop_reason is not None
        if error is not None:
            status = "error"
        elif stopped:
            status = "stopped"
        elif returncode == 0:
            status = "completed"
        else:
            status = "failed"
        exit_code = 127 if error is not None else exit_code_of(returncode)
        if stopped and returncode == 0:  # the script stopped when asked: a stopped run, as after Ctrl-C
            exit_code = 128 + signal.SIGINT
        eff = mon.effective_setup
        after = mon.progress.step
        if status == "stopped":
            unknown_why = "the run was stopped before the script reported its setup"
        elif status in ("failed", "error"):
            unknown_why = "the run ended before the script reported its setup"
        else:
            unknown_why = None
        items = compare(eff, self.spec.expected, not_rehearsed=self.spec.not_rehearsed,
                        unknown_why=unknown_why) if self.spec.expected is not None else []
        lines = [ln for _, ln in mon.first_errors] + [ln for _, ln in mon.error_lines] + list(mon.tail)
        lines = [self.redactor.text(ln) for ln in lines]  # the diagnosis quotes them
        diag = diagnose(lines, returncode, end_record=mon.end_record,
                        expected_world=(self.spec.expected or {}).get("world_size"), stopped=stopped)
        duration = round(time.monotonic() - self._t0, 3) if self._t0 else 0.0
        summary: dict[str, Any] = {
            "run_id": self.run_id,
            "run_dir": str(self.spec.run_dir.path) if self.spec.run_dir else None,
            "status": status,
            "exit_code": exit_code,
            "returncode": returncode,
            "signal": (signal.Signals(-returncode).name if returncode is not None and returncode < 0
                       and -returncode in signal.Signals._value2member_map_ else None),
            "error": error,
            "started_at": self._started_at,
            "ended_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "duration_s": duration,
            "wizard_cpu_s": round(time.process_time() - self._cpu0, 3),
            "pid": self.proc.pid if self.proc else None,
            "argv": list(self.spec.argv),
            "cwd": self.spec.cwd or os.getcwd(),
            "stop": {"requested": stopped, "reason": self._stop_reason, "signals_sent": self._signals_sent,
                     "after_step": after if stopped else None, "total_steps": mon.progress.total if stopped else None},
            "effective_setup": eff,
            "expected": self.spec.expected,
            "checklist": [i.to_dict() for i in items],
            "checklist_ok": checklist_ok(items) if items and eff is not None else None,
            "verdict": verdict(items),
            "diagnosis": [d.to_dict() for d in diag],
            "metrics": mon.metric_summary(),
            "script_end": mon.end_record,
            "output": dict(mon.stats(), internal_errors=self._internal_errors),
            "processes_seen": [{"pid": pid, "started": created} for pid, created in sorted(self._known.items())],
            "leftover_processes_killed": self._leftovers,
        }
        summary.update(self.spec.summary_extra)
        summary = self.redactor.value(summary)
        run_dir = self.spec.run_dir
        if run_dir is not None:
            run_dir.write_summary(summary)
            run_dir.close()
        self.status = status
        self.result = RunResult(self.run_id, str(run_dir.path) if run_dir else None, status, exit_code, returncode,
                                duration, eff, items, diag, summary)
        self._emit(Finished(self.result))
        for q in self._queues:
            q.close()


def end_text(summary: dict, lang: str | None = None) -> str:
    """How a run ended, in words: ``completed``, ``failed (exit 3)``, ``stopped by you (SIGINT) after step 5
    of 40`` (``before the first step`` when none was reported), ``could not start``; in the language (the wizard's
    unless ``lang``: the run screen's words, part ``screen-run``), signals and the stop's own reason as written."""
    from ..core.localized import screen

    status = summary.get("status")
    code = summary.get("exit_code")
    if status == "stopped":
        return screen("run", "end.stopped", lang, how=stop_text(summary, lang))
    if status == "completed":
        return screen("run", "end.completed", lang)
    if status == "error":
        return screen("run", "end.could_not_start", lang)
    if status == "failed":
        return screen("run", "end.failed", lang, code=code)
    return f"{status} (exit {code})"


def stop_text(summary: dict, lang: str | None = None) -> str:
    """How a stopped run was stopped: ``by you (SIGINT) after step 5 of 40`` (what :func:`end_text` says after
    "stopped")."""
    from ..core.localized import screen

    stop = summary.get("stop") or {}
    sent = stop.get("signals_sent") or []
    reason = str(stop.get("reason") or "")
    how = "/".join(sent) if sent else screen("run", "end.no_signal", lang)
    step, total = stop.get("after_step"), stop.get("total_steps")
    when = (screen("run", "end.after_step_of", lang, step=step, total=total) if total else
            screen("run", "end.after_step", lang, step=step)) if step else screen("run", "end.before_first_step", lang)
    if "ctrl+c" in reason.lower() or "SIGINT received" in reason or "stopped by user" in reason or "closing" in reason:
        return screen("run", "end.by_you", lang, signals=how, when=when)
    if reason:
        return screen("run", "end.reason", lang, reason=reason, signals=how, when=when)
    return screen("run", "end.plain", lang, signals=how, when=when)


def run_sync(spec: LaunchSpec, on_event: Callable[[Any], None] | None = None, *,
             handle_signals: bool = True) -> RunResult:
    """Run to the end in a fresh event loop (headless). SIGINT/SIGTERM/SIGHUP to this process stop the
    run (a second Ctrl-C skips to the next signal); the result carries the run's exit code."""

    async def main() -> RunResult:
        run = Run(spec)
        if on_event is not None:
            run.subscribe(on_event)
        await run.start()
        loop = asyncio.get_running_loop()
        installed = []
        if handle_signals:
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                try:
                    loop.add_signal_handler(sig, run.request_stop, f"{sig.name} received by fsdpds-wizard")
                    installed.append(sig)
                except (NotImplementedError, RuntimeError, ValueError):
                    pass
        try:
            return await run.wait()
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)

    return asyncio.run(main())
