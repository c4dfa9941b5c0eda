"""``--headless ANSWERS --out DIR --launch [--rehearse] [-- SCRIPT ARGS...]``: run, watch, check, diagnose.

Prints to stderr: the run directory, the rehearsal's adjustments, the command, a live progress line
(redrawn in place on a terminal, one line every few seconds otherwise), then the effective-setup
checklist, the diagnosis of a failure and a one-line result. The exit code is the run's own
(``128 + N`` when it died of signal N); Ctrl-C stops the run (SIGINT, SIGTERM, SIGKILL; press it again
to skip ahead). ``FSDPDS_ECHO=1`` also copies the run's output to stdout.
"""
from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

from ..core.answers.generate import Generated
from ..core.exits import EXIT_INVALID, UsageError
from .common import print_findings


def words(key: str, **values: object) -> str:
    """The run's words (part ``screen-run``, keys ``cli.*``) in the wizard's language, ``{name}`` filled in."""
    from ..core.localized import screen

    return screen("run", key, None, **values)


def _lang() -> str | None:
    """The wizard's language for what wizard.run computed (its rows, diagnoses, verdict); None in English."""
    from ..core import i18n

    lang = i18n.language()
    return None if lang == i18n.ENGLISH else lang


def shown(text: str) -> str:
    """A sentence wizard.run built (``said(...)``: a plan's refusal, a swept run's line) in the wizard's language."""
    if _lang() is None:
        return text
    from ..core import localized

    return localized.said(text)


def progress_text(p, elapsed: float) -> str:
    parts = []
    if p.step is not None:
        parts.append(words("cli.progress_step", step=f"{p.step}" + (f"/{p.total}" if p.total else "")))
    if p.loss is not None:
        parts.append(words("cli.progress_loss", loss=f"{p.loss:.4f}"))
    if p.lr is not None:
        parts.append(f"lr {p.lr:.2e}")
    if p.tokens_per_s:
        rate = p.tokens_per_s
        parts.append(f"{rate / 1000:.1f}k tok/s" if rate >= 1000 else f"{rate:.0f} tok/s")
    if p.step_time:
        parts.append(f"{p.step_time:.3f} s/step")
    elif p.rate:
        parts.append(p.rate)
    parts.append(f"{elapsed:.0f}s")
    return "  ".join(parts)


class _Printer:
    def __init__(self, stream=sys.stderr, echo: bool = False) -> None:
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.echo = echo
        self.last_plain = 0.0
        self.pending = ""
        self.drawn = False

    def __call__(self, ev) -> None:
        from ..run.launcher import STOP_REQUEST, Output, ProgressUpdate, Stopping

        if isinstance(ev, ProgressUpdate):
            text = "[run] " + progress_text(ev.progress, ev.elapsed_s)
            if self.tty:
                self.stream.write("\r\x1b[K" + text[:200])
                self.stream.flush()
                self.drawn = True
            else:
                self.pending = text
                now = time.monotonic()
                if now - self.last_plain >= 5.0:
                    self.last_plain = now
                    self.stream.write(text + "\n")
                    self.pending = ""
        elif isinstance(ev, Stopping):
            self.clear()
            if ev.signal == STOP_REQUEST:
                self.stream.write(words("cli.stopping_after_step", reason=ev.reason) + "\n")
            else:
                self.stream.write(words("cli.stopping_signal", signal=ev.signal, reason=ev.reason) + "\n")
        elif isinstance(ev, Output) and self.echo:
            self.clear()
            if ev.skipped_before:
                sys.stdout.write(words("cli.skipped", count=ev.skipped_before) + "\n")
            sys.stdout.write("\n".join(ev.lines) + "\n")
            sys.stdout.flush()

    def clear(self) -> None:
        if self.tty and self.drawn:
            self.stream.write("\r\x1b[K")
            self.drawn = False

    def final(self) -> None:
        if self.tty and self.drawn:
            self.stream.write("\n")
            self.drawn = False
        elif self.pending:
            self.stream.write(self.pending + "\n")
            self.pending = ""


def require_gpu_for_args(args, answers) -> None:
    """A plain ``--launch`` on a machine where no GPU was found: raise :class:`UsageError` (exit 2) saying so,
    with the rehearsal to run instead and the flag that starts it anyway. A rehearsal runs on the CPU on purpose,
    a SLURM launch on the cluster's nodes: neither is asked about."""
    if not getattr(args, "launch", False) or getattr(args, "rehearse", False) or getattr(args, "slurm", False) \
            or getattr(args, "allow_no_gpu", False):
        return
    from ..run.plan import ALLOW_NO_GPU, no_gpu_problem

    problem = no_gpu_problem(answers)
    if problem is not None:
        raise UsageError(f"--launch: {problem}; nothing written, nothing launched. To try the config on this "
                         "machine's CPU, rehearse it: add --rehearse (two processes, the bundled script, and a "
                         f"checklist of what took effect); to start it here anyway, add {ALLOW_NO_GPU}")


def run_launch(gen: Generated, out_dir: Path, args) -> int:
    from ..run.launcher import LaunchError, run_sync
    from ..run.plan import PlanError, plan_launch
    from ..run.requirements import require_for_args

    require_for_args(args, gen.answers.target)
    require_gpu_for_args(args, gen.answers)
    err = sys.stderr
    slurm = bool(getattr(args, "slurm", False))
    if slurm:
        from ..run.slurm import require_slurm

        require_slurm()
    try:
        if slurm:
            from ..run.slurm import plan_slurm_launch

            plan = plan_slurm_launch(gen.answers, out_dir, rehearse=bool(getattr(args, "rehearse", False)),
                                     script_args=list(getattr(args, "script_args", []) or []),
                                     partition=getattr(args, "partition", None), time_limit=getattr(args, "time", None))
        else:
            plan = plan_launch(gen.answers, out_dir, rehearse=bool(getattr(args, "rehearse", False)),
                               script_args=list(getattr(args, "script_args", []) or []),
                               training_arguments=getattr(args, "training_arguments_read", None))
    except PlanError as exc:
        print_findings(exc.findings)
        print(f"fsdpds-wizard: {shown(str(exc))}", file=err)
        return EXIT_INVALID
    run_dir = plan.run_dir.path
    redactor = plan.run_dir.redactor
    for line in plan.swept:  # what an earlier, killed wizard left running in this folder
        print(shown(line), file=err)
    print(f"run {plan.run_dir.run_id}: {run_dir}", file=err)
    if plan.rehearsal:
        print(words("cli.rehearsal_compat" if plan.spec.summary_extra.get("compat_layer_used") else "cli.rehearsal",
                    processes=plan.world_size, script=Path(plan.script).name), file=err)
        if plan.adjustments:
            print(words("cli.not_rehearsed"), file=err)
        from ..run.rehearse import short_in_language

        for adj in plan.adjustments:
            print(f"  {short_in_language(adj.short())}: {shown(adj.why)}", file=err)
        print(words("cli.script_arguments",
                    arguments=redactor.text(shlex.join(plan.spec.summary_extra.get("script_args") or []))
                    or words("cli.no_arguments")), file=err)
        from ..run.rehearse import ops_notes

        if plan.generated.answers.target == "deepspeed":
            for note in ops_notes(plan.spec.env):
                print(words("flow.note", note=shown(note)), file=err)
    if slurm:
        from ..run.slurm import SCRIPT

        machines = plan.generated.answers["launch.num_machines"]
        print(words("cli.through_slurm", script=run_dir / SCRIPT, machines=machines, cwd=plan.spec.cwd,
                    command=redactor.text(shlex.join(plan.spec.summary_extra["slurm"]["launch_argv"]))), file=err)
    else:
        print(words("cli.launch_from", cwd=plan.spec.cwd, command=redactor.text(shlex.join(plan.spec.argv))),
              file=err)
    from ..core.answers.multinode import env_file_note

    secrets = env_file_note(plan.generated.answers, plan.spec.cwd, plan.spec.env)
    if secrets:
        print(words("flow.note", note=shown(secrets)), file=err)
    printer = _Printer(err, echo=os.environ.get("FSDPDS_ECHO") == "1")
    try:
        result = run_sync(plan.spec, printer)
    except LaunchError as exc:
        printer.final()
        print(f"fsdpds-wizard: {exc}", file=err)
        return 127
    printer.final()
    if slurm:
        _print_slurm(run_dir, err)
    lang = _lang()
    if result.checklist:
        print(words("cli.checks"), file=err)
        for item in result.checklist:
            print("  " + item.render(lang), file=err)
    elif result.effective_setup is None:
        print(words("cli.setup_stopped" if result.status == "stopped" else "cli.setup_none"), file=err)
    for d in result.diagnosis:
        print(words("cli.diagnosis", diagnosis=d.render(lang)), file=err)
    if result.status == "failed" and not result.diagnosis:
        print(words("cli.last_lines"), file=err)
        from ..run.records import LOG

        tail = list(_tail_lines(run_dir / LOG, 15))
        for line in tail:
            print("  | " + line, file=err)
    from ..run.launcher import end_text

    m = result.summary.get("metrics") or {}
    loss = ""
    if m.get("first_loss") is not None and m.get("last_loss") is not None:
        loss = words("cli.loss", first=f"{m['first_loss']:.4f}", last=f"{m['last_loss']:.4f}", count=m.get("count"))
    ok = result.summary.get("checklist_ok")
    verdict = result.summary.get("verdict") or ""
    if verdict and lang is not None and result.checklist:
        from ..run.checklist import verdict as verdict_of

        verdict = verdict_of(list(result.checklist), lang)
    ended = end_text(result.summary)
    code = "" if result.status == "failed" else words("cli.exit", code=result.exit_code)
    print(words("cli.ended_verdict" if verdict else "cli.ended", ended=f"{ended}{code}",
                seconds=f"{result.duration_s:.1f}", loss=loss, verdict=verdict, run_dir=run_dir), file=err)
    from ..run.consolidate import offer

    offered = offer(run_dir)
    if offered:
        print(offered, file=err)
    if result.exit_code == 0 and ok is False and getattr(args, "rehearse", False):
        # a rehearsal exists to prove the settings take effect: say no with the exit code too
        print(words("cli.rehearsal_failed"), file=err)
        return EXIT_INVALID
    return result.exit_code


def _print_slurm(run_dir: Path, err) -> None:
    from ..run.slurm import finish_summary, report_lines

    for line in report_lines(finish_summary(run_dir)):
        print(line, file=err)


def _tail_lines(path: Path, n: int):
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - 16384))
            data = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    return [ln[:300] for ln in data.splitlines() if ln.strip()][-n:]
