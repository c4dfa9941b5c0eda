"""The run screen: one launch or CPU rehearsal, live, from start to diagnosis.

The screen subscribes to a :class:`wizard.run.launcher.Run`. The subscriber (:meth:`RunScreen.feed`)
only records what each event says, in bounded structures; a 10 Hz timer draws whatever changed. So a
run that prints 100,000 lines a second costs a few deque appends per chunk, and the screen redraws at
most ten times a second, whatever the rate. The same :meth:`feed` replays recorded events (snapshots).

What is shown: status, progress bar, elapsed time and ETA; loss plot; step time, throughput and
memory per rank (psutil, NVML with a GPU); the checklist comparing the effective setup with the config;
the diagnosis of a known failure with its fix; a searchable tail of the log.

Stopping: ctrl+c sends SIGINT to every process of the run; pressing it again moves on to SIGTERM, then
SIGKILL. Escape while the run is live stops it and returns when it has ended; quitting the app stops it
the same way, faster. If the screen goes away anyway, whatever is left of the run is killed.
"""
from __future__ import annotations

import asyncio
import os
import signal
import time
from collections import deque
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from ...core import i18n, localized
from ...core.i18n import cells
from ..widgets.checklist import ChecklistView, DiagnosisView
from ..widgets.keybar import KeyBar
from ..widgets.logtail import LogTail
from ..widgets.memory import MemorySampler, RankMemory, human_bytes
from ..widgets.plot import SeriesPlot

WIDE_AT = 120
REFRESH_S = 0.1
SAMPLE_S = 1.0
MAX_POINTS = 20000
CONSOLIDATED = "consolidated"
"""The folder of the run record that ``c`` writes model.safetensors into (as ``consolidate RUN_DIR`` does)."""
STOP_GRACE_ON_EXIT = 4.0
"""Seconds each signal gets when the app is closing (SIGINT, then SIGTERM, then SIGKILL)."""

LIVE = ("starting", "running", "stopping")
STATE_WORDS = {
    "starting": ("◌", "starting", "bold"),
    "running": ("▶", "running", "bold cyan"),
    "stopping": ("■", "stopping", "bold yellow"),
    "completed": ("✔", "completed", "bold green"),
    "failed": ("✖", "failed", "bold red"),
    "stopped": ("■", "stopped", "bold yellow"),
    "error": ("✖", "could not start", "bold red"),
}
"""state -> (icon, its English word, style); the word is shown in the wizard's language (:func:`state_word`)."""


def words(key: str, **values: object) -> str:
    """The run screen's words (part ``screen-run``) in the wizard's language."""
    return localized.screen("run", key, None, **values)


def _loud(word: str) -> str:
    """``word`` in capitals, the emphasis of "settings NOT in effect" (Turkish dotted i as İ)."""
    from ...core.i18n import language

    return (word.replace("i", "İ") if language() == "tr" else word).upper()


def state_word(state: str) -> str:
    """The word of a run's state in the wizard's language (a state without one as it is)."""
    return words(f"state.{state}") if state in STATE_WORDS else state


def clock(seconds: float | None) -> str:
    if seconds is None or seconds != seconds or seconds < 0:
        return "--:--"
    s = int(round(seconds))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def bar(fraction: float | None, width: int) -> Text:
    width = max(width, 4)
    text = Text()
    if fraction is None:
        text.append("░" * width, style="dim")
        return text
    fraction = min(max(fraction, 0.0), 1.0)
    full = int(fraction * width)
    text.append("█" * full, style="bold green" if fraction >= 1 else "bold cyan")
    text.append("░" * (width - full), style="dim")
    return text


class RunScreen(Screen[None]):
    """One run. ``spec`` None: nothing is started, events are given to :meth:`feed` (replays, tests)."""

    CSS = """
    /* status, loss plot, checklist, diagnosis, log tail */
    #run-status { height: auto; padding: 0 1; background: $panel; }
    #run-top { height: 9; }
    RunScreen.-wide #run-top { height: 16; }
    #run-plot { width: 1fr; height: 1fr; border: round $primary 50%; border-title-align: left; }
    #run-checks { width: 1fr; height: 1fr; border: round $success 60%; border-title-align: left; padding: 0 1; }
    #run-checks.-fail { border: round $error; }
    RunScreen.-wide #run-checks { width: 2fr; }
    #run-diagnosis { max-height: 10; border: round $error; border-title-align: left; padding: 0 1; overflow-y: auto; }
    #run-log { border: round $primary 50%; border-title-align: left; border-subtitle-align: right; }
    #run-log:focus-within { border: round $accent; }
    #run-log { min-height: 6; }
    RunScreen.-diagnosed #run-top { height: 6; }
    RunScreen.-diagnosed #run-diagnosis { max-height: 8; }
    RunScreen.-wide.-diagnosed #run-top { height: 12; }
    """
    """Loaded when the screen is first shown, not at start-up."""
    BINDINGS = [
        Binding("ctrl+c", "stop", "Stop", id="run-stop", priority=True,
                tooltip="Stop the run: SIGINT to every rank; again: SIGTERM, then SIGKILL"),
        Binding("slash", "search", "Search log", id="run-search", tooltip="Search the log tail (Escape clears)"),
        Binding("escape", "back", "Back", id="run-back",
                tooltip="Back to the wizard (a live run is stopped first)"),
        Binding("c", "consolidate", "Consolidate", id="run-consolidate",
                tooltip="Merge the run's checkpoint into one model.safetensors (fsdpds-wizard consolidate)"),
        Binding("f1", "app.help", "Help", id="run-help"),
    ]

    def __init__(self, spec: Any = None, *, heading: str | None = None, notes: list[str] | None = None,
                 run_factory: Any = None) -> None:
        super().__init__(id="run")
        self.spec = spec
        self.heading = words("heading") if heading is None else heading
        self.notes = list(notes or [])
        self._run_factory = run_factory
        self.run: Any = None
        """The :class:`wizard.run.launcher.Run` (None until started, and in replays)."""
        self.state = "starting" if spec is not None else "running"
        self.result: Any = None
        self.pid: int | None = None
        self.run_dir: str | None = None
        self.losses: deque[float] = deque(maxlen=MAX_POINTS)
        self.step_times: deque[float] = deque(maxlen=20)
        self.last_metric: dict = {}
        self.progress: Any = None
        self.elapsed: float | None = None
        self.checklist: list = []
        self.effective: dict | None = None
        self.memory: list[RankMemory] = []
        self.stop_signal: str | None = None
        self.stop_presses = 0
        self.leave_when_done = False
        self.error: str | None = None
        self.consolidated: str | None = None
        """After ``c``: what was written (``Wrote consolidated/model.safetensors: 1.2 MiB, ...``), kept shown."""
        self.slurm_report: list[str] = []
        """For a SLURM job, after it ended: the job's state and one line per node (wizard.run.slurm.report_lines)."""
        self._t0: float | None = None
        self._dirty = True
        self._sampler: MemorySampler | None = None
        self.events_seen = 0
        self._tail: LogTail | None = None

    # ---------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield Static(id="run-status")
        with Horizontal(id="run-top"):
            plot = SeriesPlot(id="run-plot")
            plot.border_title = words("title_loss")
            yield plot
            with VerticalScroll(id="run-checks", can_focus=False) as checks:
                checks.border_title = words("title_checks")
                yield ChecklistView(id="run-checklist")
        diag = DiagnosisView(id="run-diagnosis")
        diag.border_title = words("title_diagnosis")
        yield diag
        tail = LogTail(id="run-log")
        tail.border_title = words("title_log")
        yield tail
        yield KeyBar(compact=True)

    def on_mount(self) -> None:
        self._apply_width(self.app.size.width)
        self.set_interval(REFRESH_S, self._tick)
        self.set_interval(SAMPLE_S, self._sample)
        if self.notes:
            self.log_tail.add([f"[wizard] {n}" for n in self.notes])
        if self.spec is not None:
            self.run_worker(self._start(), name="run", group="run", exit_on_error=False)
        self._draw()

    def relanguage(self) -> None:
        """After the language changed: the panels' titles and the search box now, the rest at the next tick."""
        self.query_one("#run-checks").border_title = words("title_checks")
        self.query_one(DiagnosisView).border_title = words("title_diagnosis")
        self.log_tail.border_title = words("title_log")
        self.log_tail.relanguage()
        self.query_one(ChecklistView).waiting = words("setup_waiting")
        self.query_one(DiagnosisView).show(self.query_one(DiagnosisView).diagnoses)
        self._dirty = True

    def on_resize(self, event) -> None:
        self._apply_width(event.size.width)
        self._dirty = True

    def _apply_width(self, width: int) -> None:
        self.set_class(width >= WIDE_AT, "-wide")

    @property
    def log_tail(self) -> LogTail:
        if self._tail is None:
            self._tail = self.query_one(LogTail)
        return self._tail

    @property
    def live(self) -> bool:
        return self.state in LIVE and self.spec is not None and self.result is None

    # ---------------------------------------------------------------- the run
    async def _start(self) -> None:
        from ...run.launcher import LaunchError, Run

        run = (self._run_factory or Run)(self.spec)
        self.run = run
        run.subscribe(self.feed)
        try:
            await run.start()
        except LaunchError as exc:
            self.error = str(exc)
            self.state = "error"
            self._dirty = True

    def feed(self, ev: Any) -> None:
        """Record one run event (called in the event loop for every event; cheap on purpose)."""
        from ...run.launcher import Finished, Metrics, Output, ProgressUpdate, SetupReported, Started, Stopping

        self.events_seen += 1
        if isinstance(ev, Output):
            self.log_tail.add(ev.lines, ev.skipped_before)
            return
        if isinstance(ev, Metrics):
            for rec in ev.records:
                if rec.get("kind") == "eval":
                    continue
                loss = rec.get("loss")
                if isinstance(loss, (int, float)):
                    self.losses.append(float(loss))
                st = rec.get("step_time")
                if isinstance(st, (int, float)) and st > 0:
                    self.step_times.append(float(st))
                self.last_metric = rec
        elif isinstance(ev, ProgressUpdate):
            self.progress, self.elapsed = ev.progress, ev.elapsed_s
        elif isinstance(ev, SetupReported):
            self.checklist, self.effective = list(ev.checklist), ev.effective
        elif isinstance(ev, Started):
            self.state, self.pid, self.run_dir = "running", ev.pid, ev.run_dir
            self._t0 = time.monotonic()
            self._sampler = MemorySampler(ev.pid)
            self.call_later(self._sample)
        elif isinstance(ev, Stopping):
            self.state, self.stop_signal = "stopping", ev.signal
        elif isinstance(ev, Finished):
            self._finished(ev.result)
        self._dirty = True

    def _finished(self, result: Any) -> None:
        self.result = result
        self.state = result.status
        self.elapsed = result.duration_s
        self.checklist = list(result.checklist) or self.checklist
        if result.effective_setup is not None:
            self.effective = result.effective_setup
        if self._sampler is not None and self._sampler.peak:
            peak = dict(self._sampler.peak)
            if len(peak) > 1:
                peak.pop("process", None)  # the launcher alone, sampled after the ranks had gone
            self.memory = [RankMemory(label, rss, self._sampler.peak_gpu.get(label)) for label, rss in peak.items()]
        if self.spec is not None and "slurm" in (getattr(self.spec, "summary_extra", None) or {}) and self.run_dir:
            from ...run.slurm import finish_summary, report_lines

            self.slurm_report = report_lines(finish_summary(Path(self.run_dir)))
            self.log_tail.add(self.slurm_report, 0)
        if self.is_attached:
            self.refresh_bindings()  # Stop goes, Consolidate comes when there is a checkpoint
        offer = self._checkpoint_offer()
        if offer and self.is_attached:
            self.notify(words("press_c", offer=offer), timeout=10)
        if self.leave_when_done and self.is_attached:
            self.call_later(self._leave)

    def _leave(self) -> None:
        if self.app.screen is self:
            self.dismiss(None)

    # ---------------------------------------------------------------- drawing
    def _tick(self) -> None:
        self.log_tail.flush()
        if self._dirty:
            self._dirty = False
            self._draw()

    def _sample(self) -> None:
        if self._sampler is not None and self.live:
            self.memory = self._sampler.sample()
            self._dirty = True  # the elapsed time moves too

    def _draw(self) -> None:
        wide = self.has_class("-wide")
        self.query_one("#run-status", Static).update(self._status())
        plot = self.query_one(SeriesPlot)
        plot.show(self.losses, empty=self._empty_plot_text())
        if self.losses:
            first, last = self.losses[0], self.losses[-1]
            plot.border_title = words("title_loss_range", first=f"{first:.4g}", last=f"{last:.4g}")
        else:
            plot.border_title = words("title_loss")
        if self.result is None:
            waiting = words("setup_waiting")
        elif self.result.status == "stopped":
            waiting = words("setup_unknown_stopped")
        elif self.result.status in ("failed", "error"):
            waiting = words("setup_unknown_ended")
        else:
            waiting = words("setup_none")
        self.query_one(ChecklistView).show(self.checklist, details=wide, waiting=waiting)
        diag = self.query_one(DiagnosisView)
        diag.show(self.result.diagnosis if self.result is not None else [])
        self.set_class(bool(diag.diagnoses), "-diagnosed")
        self.query_one("#run-checks").set_class(any(i.status == "fail" for i in self.checklist), "-fail")

    def _empty_plot_text(self) -> str:
        r = self.result
        if r is None:
            return words("plot_waiting")
        if r.status == "stopped":
            return words("plot_stopped")
        if r.status in ("failed", "error"):
            return words("plot_ended")
        return words("plot_no_loss")

    def _eta(self) -> float | None:
        p = self.progress
        if p is None or not p.total or p.step is None or self.state != "running":
            return None
        left = max(p.total - p.step, 0)
        if self.step_times:
            return left * sum(self.step_times) / len(self.step_times)
        if self.elapsed and p.step:
            return left * self.elapsed / p.step
        return None

    def _status(self) -> Text:
        width = max(self.size.width, 40)
        icon, _, style = STATE_WORDS.get(self.state, ("·", self.state, "bold"))
        word = state_word(self.state)
        line1 = Text()
        line1.append(f"{icon} {word} ", style=style)
        line1.append(f"│ {self.heading}", style="bold")
        r = self.result
        verdict_line: Text | None = None
        if r is not None:
            from ...run.launcher import stop_text

            summary = r.summary or {}
            if r.status == "stopped":
                line1.append(" │ " + stop_text(summary), style="yellow")
            elif r.exit_code != 0:
                line1.append(" │ " + words("exit", code=r.exit_code))
            ok = summary.get("checklist_ok")
            verdict = summary.get("verdict")
            shown = verdict
            if self.checklist:
                from ...run.checklist import verdict as verdict_of

                verdict = verdict_of(self.checklist) if verdict is None else verdict
                lang = i18n.language()
                shown = verdict if lang == i18n.ENGLISH else verdict_of(self.checklist, lang)
            failed = ok is False or any(i.status == "fail" for i in self.checklist)
            if failed:
                line1.append(" │ " + words("not_in_effect", not_=_loud(words("not"))), style="bold red")
            if verdict:
                style = "bold red" if failed else ("yellow" if "not rehearsed" in verdict or "unknown" in verdict
                                                   else "green")
                verdict_line = Text(shown or verdict, style=style)
        elif self.state == "stopping":
            from ...run.launcher import STOP_REQUEST

            line1.append(" │ " + (words("ends_after_step") if self.stop_signal == STOP_REQUEST
                                  else words("signal_sent", signal=self.stop_signal)), style="yellow")
        elif self.state == "running" and self.spec is not None:
            line1.append(" │ " + words("ctrl_c_stops"), style="dim")
        if self.error:
            line1.append(f" │ {self.error}", style="red")

        p = self.progress
        step = p.step if p is not None else None
        total = p.total if p is not None else None
        elapsed = self.elapsed
        if self.result is None and self._t0 is not None:
            elapsed = time.monotonic() - self._t0
        tail = " " + words("steps", step=step if step is not None else '-', total=total if total else '?')
        tail += f" │ {clock(elapsed)}"
        if self.result is None:
            eta = self._eta()
            tail += " │ " + words("eta", eta=clock(eta)) if eta is not None else ""
        line2 = bar(step / total if step is not None and total else (1.0 if r is not None and r.status == "completed"
                                                                       else None), width - cells.width(tail) - 2)
        line2.append(tail)

        m = self.last_metric
        parts: list[Text] = []
        loss = p.loss if p is not None and p.loss is not None else m.get("loss")
        if loss is not None:
            parts.append(Text.assemble((words("loss") + " ", "dim"), (f"{loss:.4g}", "bold")))
        st = m.get("step_time") or (p.step_time if p is not None else None)
        if st:
            parts.append(Text(words("step_time", seconds=f"{st:.3g}")))
        tps = m.get("tokens_per_s") or (p.tokens_per_s if p is not None else None)
        if tps:
            parts.append(Text(words("tokens_per_s", tokens=f"{tps:,.0f}")))
        if not parts:
            parts.append(Text(words("no_step_yet"), style="dim"))
        mem = self._memory_text()
        if mem:
            parts.append(Text(mem))
        line3 = Text(" │ ", style="dim").join(parts)
        lines = [line1, line2, line3]
        if verdict_line is not None:
            lines.append(verdict_line)
        if self.run_dir:
            lines.append(Text(words("records", path=_short(self.run_dir)), style="dim"))
        if self.consolidated:
            lines.append(Text(self.consolidated, style="green"))
        return Text("\n").join(lines)

    def _memory_text(self) -> str:
        ranks = self.last_metric.get("rank_peak_mem_bytes" if self.result is not None else "rank_mem_bytes")
        remote = "slurm" in (getattr(self.spec, "summary_extra", None) or {})
        if remote and isinstance(ranks, list) and ranks:
            # a SLURM job's ranks run on other hosts: what they report, not this host's process tree
            ranks_text = ", ".join(f"r{i} {human_bytes(v)}" for i, v in enumerate(ranks))
            return words("memory_by_ranks_peak" if self.result is not None else "memory_by_ranks", ranks=ranks_text)
        if self.memory:
            parts = []
            short = not self.has_class("-wide")
            for mem in self.memory:
                label = (words("rss_process") if mem.label == "process"  # the launcher's processes, before any rank
                         else mem.label.replace("rank ", "r") if short else mem.label)
                part = f"{label} {human_bytes(mem.rss)}"
                if mem.gpu:
                    part += f" (GPU {human_bytes(mem.gpu)})"
                parts.append(part)
            return words("rss_peak" if self.result is not None else "rss", ranks=", ".join(parts))
        reported = self.last_metric.get("mem_bytes")
        if isinstance(reported, (int, float)):
            return words("memory_rank0", size=human_bytes(reported))
        return ""

    # ---------------------------------------------------------------- actions
    def _checkpoint_offer(self) -> str | None:
        """After the run: the checkpoint it saved and the consolidate command (None while live or without one)."""
        if self.result is None or not self.run_dir:
            return None
        from ...run.consolidate import offer

        return offer(self.run_dir)  # in the wizard's language

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "consolidate":  # shown only once a finished run has a checkpoint
            return self.consolidating is False and self._checkpoint_offer() is not None
        if action == "stop":  # shown while there is a run to stop (again: the next, harder signal)
            return self.live
        return True

    consolidating = False

    @property
    def consolidated_file(self) -> Path | None:
        """Where ``c`` writes the run's one safetensors file (``RUN_DIR/consolidated/model.safetensors``)."""
        from ...run.consolidate import OUT_NAME

        return Path(self.run_dir) / CONSOLIDATED / OUT_NAME if self.run_dir else None

    def action_consolidate(self) -> None:
        if not self._checkpoint_offer():
            self.notify(words("no_checkpoint"), timeout=3)
            return
        target = self.consolidated_file
        if target is not None and target.exists():
            from .confirm import ConfirmScreen

            def answered(yes: bool | None) -> None:
                if yes:
                    self._start_consolidate(replace=True)
                else:
                    self.notify(words("kept", path=_short(str(target))), timeout=3)

            self.app.push_screen(ConfirmScreen(
                words("again_title"), words("again_body", path=_short(str(target))), yes=words("again_yes"),
                no=words("again_no")), answered)
            return
        self._start_consolidate(replace=False)

    def _start_consolidate(self, *, replace: bool) -> None:
        self.consolidating = True
        self.refresh_bindings()
        self.notify(words("consolidating"), timeout=4)
        self.run_worker(self._consolidate(str(self.run_dir), replace=replace), exclusive=True, group="consolidate")

    async def _consolidate(self, run_dir: str, *, replace: bool = False) -> None:
        """``fsdpds-wizard consolidate RUN_DIR --out RUN_DIR/consolidated`` in a subprocess: the libraries' output
        stays off the screen; what it wrote stays on it (the status and the log)."""
        import json
        import sys

        out_dir = Path(run_dir) / CONSOLIDATED
        argv = [sys.executable, "-m", "wizard", "consolidate", run_dir, "--out", str(out_dir), "--format", "json"] \
            + (["--force"] if replace else [])
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            out, err = await proc.communicate()
        finally:
            self.consolidating = False
            self.refresh_bindings()
        if proc.returncode == 0:
            from ...core.localized.phrases import shown

            try:
                res = json.loads(out)
                text = words("wrote", path=_short(res['out']), size=human_bytes(res['size_bytes']),
                             parameters=f"{res['parameters']:,}", tool=shown(res['tool']))
            except (ValueError, KeyError, TypeError):
                text = words("consolidated", output=out.decode(errors="replace")[-300:])
            self.consolidated = text
            self.log_tail.add([f"[wizard] {text}"])
            self._dirty = True
            self.notify(text, timeout=10)
            return
        lines = [ln for ln in err.decode(errors="replace").splitlines() if ln.startswith("fsdpds-wizard:")]
        text = lines[-1] if lines else words("consolidate_failed", code=proc.returncode)
        self.log_tail.add([f"[wizard] {text}"])
        self.notify(text, severity="error", timeout=10)

    def action_search(self) -> None:
        self.log_tail.focus_search()

    def action_stop(self) -> None:
        if self.run is None or not self.live:
            self.notify(words("not_running") if self.result is not None else words("nothing_to_stop"), timeout=3)
            return
        self.stop_presses += 1
        self.run.request_stop("stopped from the wizard (ctrl+c)")
        self.state = "stopping"
        self._dirty = True

    def action_back(self) -> None:
        if not self.live:
            self.dismiss(None)
            return
        self.leave_when_done = True
        self.notify(words("stopping_back"), timeout=4)
        self.action_stop()

    async def stop_before_exit(self) -> None:
        """Stop a live run quickly (the app is closing): each signal gets a few seconds."""
        run = self.run
        if run is None or not self.live:
            return
        self.notify(words("stopping_quit"), timeout=3)
        for _ in range(3):
            task = asyncio.ensure_future(run.stop("the wizard is closing"))
            done, _ = await asyncio.wait({task}, timeout=STOP_GRACE_ON_EXIT)
            if done:
                break
        try:
            await asyncio.wait_for(run.wait(), 10.0)
        except (asyncio.TimeoutError, RuntimeError):
            pass
        self.kill_leftovers()

    def kill_leftovers(self) -> None:
        """Last resort: SIGKILL the run's process group and every descendant seen (never raises)."""
        run = self.run
        pid = getattr(run, "pid", None)
        if pid is None:
            return
        pids: set[int] = set(self._sampler.seen) if self._sampler is not None else set()
        pids |= set(getattr(run, "_known", {}) or {})
        import psutil

        try:
            pids |= {c.pid for c in psutil.Process(pid).children(recursive=True)}
        except psutil.Error:  # the launcher is already gone: the pids seen so far remain
            pass
        if run.proc is not None and run.proc.returncode is None:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for child in pids:
            try:
                created = (self._sampler.seen.get(child) if self._sampler else None) or \
                    (getattr(run, "_known", {}) or {}).get(child)
                proc = psutil.Process(child)
                if created is not None and abs(proc.create_time() - created) > 0.01:
                    continue  # the pid was reused by something else
                proc.kill()
            except psutil.Error:  # already gone, or not ours to kill
                pass

    def on_unmount(self) -> None:
        if self.live:
            self.kill_leftovers()


def _short(path: str) -> str:
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path
