"""The async launcher API (what the TUI run screen uses), driven with small Python children instead of
accelerate: events, records, exit codes, stop escalation, orphans and output floods. About a second each."""
from __future__ import annotations

import asyncio
import json
import sys
import textwrap
import time

import psutil
import pytest

from wizard.run.launcher import (
    Finished,
    LaunchSpec,
    Metrics,
    Output,
    ProgressUpdate,
    Run,
    SetupReported,
    Started,
    Stopping,
)
from wizard.run.records import RunDir, read_metrics, read_summary

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio]


def child(tmp_path, code: str, **kw) -> LaunchSpec:
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(code))
    return LaunchSpec(argv=[sys.executable, str(script)], run_dir=RunDir(tmp_path / "out"), **kw)


async def until(cond, timeout: float = 60.0, what: str = "") -> None:
    """Wait until ``cond()`` holds; fail naming ``what`` after ``timeout`` seconds (a bound for a hung test, not a
    measure: the conditions hold within a second at rest)."""
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what or cond}")
        await asyncio.sleep(0.02)


def ready(seen: list) -> bool:
    return any(isinstance(ev, Output) and "ready" in ev.lines for ev in seen)


def grandchild(seen: list) -> int | None:
    """The pid a child printed as ``grandchild PID``."""
    for ev in seen:
        if isinstance(ev, Output):
            for line in ev.lines:
                if line.startswith("grandchild "):
                    return int(line.split()[1])
    return None


def alive(pid: int, created: float) -> bool:
    try:
        p = psutil.Process(pid)
        return abs(p.create_time() - created) < 0.01 and p.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def test_events_records_and_checklist(tmp_path):
    spec = child(tmp_path, """
        import json, sys
        setup = {"fsdpds": 1, "kind": "setup", "rank": 0, "distributed_type": "DEEPSPEED", "world_size": 2,
                 "zero_stage": 3, "local_param_numel": 50, "full_param_numel": 100, "param_fraction": 0.5,
                 "offload": {"params": "none", "optimizer": "none"}, "mixed_precision": "no"}
        print(json.dumps(setup)); print(json.dumps(dict(setup, rank=1)))
        print("\\x1b[31mnoise\\x1b[0m \\x00\\x01 binary")
        for s in range(5):
            print(json.dumps({"fsdpds": 1, "kind": "step", "step": s, "loss": 3.0 - s / 10, "lr": 1e-3}))
        print(json.dumps({"fsdpds": 1, "kind": "end", "status": "completed"}))
    """, expected={"distributed_type": "DEEPSPEED", "world_size": 2, "zero_stage": 3,
                   "offload": {"params": "none", "optimizer": "none"}, "mixed_precision": "no"})
    run = Run(spec)
    events = run.events()  # before start: every event
    await run.start()
    got = [ev async for ev in events]
    result = await run.wait()
    assert isinstance(got[0], Started) and isinstance(got[-1], Finished)
    assert result.exit_code == 0 and result.status == "completed"
    steps = [r for ev in got if isinstance(ev, Metrics) for r in ev.records]
    assert [r["step"] for r in steps] == [0, 1, 2, 3, 4]
    setups = [ev for ev in got if isinstance(ev, SetupReported)]
    assert {ev.rank for ev in setups} == {0, 1}
    assert any("ZeRO-3 active: each rank holds half of the parameters" in i.label for i in setups[-1].checklist)
    lines = [ln for ev in got if isinstance(ev, Output) for ln in ev.lines]
    assert "noise  binary" in lines  # ANSI and control characters removed
    assert any(isinstance(ev, ProgressUpdate) for ev in got)
    summary = read_summary(spec.run_dir.path)
    assert summary["exit_code"] == 0 and summary["status"] == "completed"
    assert summary["effective_setup"]["ranks_reported"] == 2 and summary["checklist_ok"] is True
    assert [m["loss"] for m in read_metrics(spec.run_dir.path)] == [3.0, 2.9, 2.8, 2.7, 2.6]
    assert (spec.run_dir.path / "log.txt").read_bytes().count(b"\n") == 9


async def test_exit_code_becomes_the_result(tmp_path):
    spec = child(tmp_path, "import sys; print('Traceback (most recent call last):'); "
                           "print('ValueError: boom'); sys.exit(7)")
    run = Run(spec)
    await run.start()
    result = await run.wait()
    assert (result.exit_code, result.status) == (7, "failed")
    assert result.diagnosis and result.diagnosis[0].code == "exception"
    assert read_summary(spec.run_dir.path)["exit_code"] == 7


async def test_stop_escalates_sigint_sigterm_sigkill_and_leaves_nothing(tmp_path):
    spec = child(tmp_path, """
        import signal, subprocess, sys, time
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        # a grandchild in a session of its own, like torchrun's ranks, that ignores the polite signals too
        kid = subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGINT, "
                                "signal.SIG_IGN); signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"],
                               start_new_session=True)
        print("grandchild", kid.pid, flush=True)
        print("ready", flush=True)
        time.sleep(60)
    """, grace_int=0.5, grace_term=0.5, grace_kill=5.0)
    run = Run(spec)
    seen = []
    run.subscribe(seen.append)
    await run.start()
    await until(lambda: ready(seen), what="the child's ready line")
    await until(lambda: grandchild(seen) in run.seen_pids, what="the tree watcher seeing the grandchild")
    await run.stop("test")
    result = await run.wait()
    # each signal in turn, and SIGKILL ended it: a child left to its natural end would exit 0 after 60 s (no bound in
    # seconds here: the machine's load must not decide the test)
    assert [ev.signal for ev in seen if isinstance(ev, Stopping)] == ["SIGINT", "SIGTERM", "SIGKILL"]
    assert result.status == "stopped" and result.exit_code == 128 + 9
    procs = result.summary["processes_seen"]
    assert procs, "the grandchild was tracked"
    assert not [p for p in procs if alive(p["pid"], p["started"])]


async def test_second_stop_skips_ahead(tmp_path):
    spec = child(tmp_path, """
        import signal, time
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("ready", flush=True)
        time.sleep(60)
    """, grace_int=30.0)
    run = Run(spec)
    seen = []
    run.subscribe(seen.append)
    await run.start()
    await until(lambda: ready(seen), what="the child ignoring SIGINT")  # before that, SIGINT would end it
    first = asyncio.ensure_future(run.stop())
    await until(lambda: any(isinstance(ev, Stopping) for ev in seen), what="the first stop's SIGINT")
    await run.stop()  # like a second Ctrl-C: SIGTERM now, not after 30 s
    await first
    result = await run.wait()
    assert result.summary["stop"]["signals_sent"] == ["SIGINT", "SIGTERM"]
    assert result.exit_code == 128 + 15


async def test_orphans_are_cleaned_up_after_exit(tmp_path):
    go = tmp_path / "go"
    spec = child(tmp_path, f"""
        import os, subprocess, sys, time
        kid = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
        print("grandchild", kid.pid, flush=True)
        while not os.path.exists({str(go)!r}):  # the test says when the tree watcher has seen the grandchild
            time.sleep(0.02)
        print("parent leaves its child behind")
    """)
    run = Run(spec)
    seen = []
    run.subscribe(seen.append)
    await run.start()
    await until(lambda: grandchild(seen) in run.seen_pids, what="the tree watcher seeing the grandchild")
    go.touch()
    result = await run.wait()
    assert result.exit_code == 0
    left = result.summary["leftover_processes_killed"]
    assert len(left) == 1
    assert not [p for p in result.summary["processes_seen"] if alive(p["pid"], p["started"])]


async def test_flood_with_long_lines_and_garbage_does_not_block(tmp_path):
    spec = child(tmp_path, """
        import os, sys
        out = sys.stdout.buffer
        junk = bytes(range(256)) * 64
        for i in range(20000):
            out.write(b"line %d loss=%f\\r\\n" % (i, 5 - i / 10000))
            if i % 1000 == 0:
                out.write(b"x" * 300000 + b"\\n")  # 300 kB lines
                out.write(junk + b"\\n")
        out.write(b"no newline at the end " + b"y" * 100000)
        out.flush()
    """)
    run = Run(spec, queue_size=50)
    events = run.events()
    await run.start()
    n = 0
    skipped = 0
    async for ev in events:  # a slow consumer
        n += 1
        if isinstance(ev, Output):
            skipped += ev.skipped_before
            await asyncio.sleep(0.002)
    result = await run.wait()
    assert result.exit_code == 0
    mon = run.monitor
    assert mon.metric_count == 20000
    assert mon.truncated_lines >= 21
    assert max(len(line) for line in mon.tail) <= mon.max_line + 10
    size = (spec.run_dir.path / "log.txt").stat().st_size
    assert size > 20000 * 15 + 21 * 300000  # every byte kept on disk
    assert len(mon.tail) <= mon.tail.maxlen and len(mon.metrics) <= mon.metrics.maxlen
    summary = json.loads((spec.run_dir.path / "summary.json").read_text())
    assert summary["metrics"]["count"] == 20000


STEPPER = """
    import json, os, signal, sys, time
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # only the stop file ends it (the check below)
    stop = os.environ["FSDPDS_STOP_FILE"]
    honour = sys.argv[1] == "honour"
    for step in range(100000):
        print(json.dumps({"fsdpds": 1, "kind": "step", "step": step, "loss": 1.0, "step_time": 0.05}), flush=True)
        time.sleep(0.05)
        if honour and os.path.exists(stop):  # the bundled script's check, once per step
            print(json.dumps({"fsdpds": 1, "kind": "end", "status": "stopped", "steps": step + 1}), flush=True)
            if sys.argv[1:] == ["honour", "slow-exit"]:
                time.sleep(6)  # a long teardown (the process group, the libraries) after the end record
            sys.exit(0)
"""


def stepper(tmp_path, *mode: str, grace_int: float = 0.5) -> LaunchSpec:
    import os

    spec = child(tmp_path, STEPPER, grace_int=grace_int, grace_term=0.5)
    spec.argv.extend(mode)
    spec.stop_file = str(spec.run_dir.path / "stop")
    spec.env = dict(os.environ, FSDPDS_STOP_FILE=spec.stop_file)
    return spec


async def test_stop_asks_a_stepping_script_first_and_it_ends_after_its_step(tmp_path):
    """Issue 21, item 29: a stop waited for signals to reach ranks busy in their step (a rehearsal ran 6 more steps).
    A script that reports steps is first asked through the stop file, ends after the step it is in, and no signal
    is needed."""
    from wizard.run.launcher import STOP_REQUEST

    run = Run(stepper(tmp_path, "honour"))
    seen = []
    run.subscribe(seen.append)
    await run.start()
    await until(lambda: (run.monitor.progress.step or 0) >= 3, what="three steps")
    at = run.monitor.progress.step
    await run.stop("test")
    result = await run.wait()
    assert [ev.signal for ev in seen if isinstance(ev, Stopping)] == [STOP_REQUEST]
    s = result.summary
    assert s["stop"]["signals_sent"] == [] and s["script_end"]["status"] == "stopped"
    assert s["stop"]["after_step"] <= at + 1  # the step in flight when asked, no more
    assert result.status == "stopped" and result.exit_code == 130  # as after Ctrl-C, though the script exited 0


async def test_a_script_that_does_not_stop_when_asked_gets_the_signals(tmp_path):
    """A script that does not read the stop file: the signals follow, at once on a second stop."""
    from wizard.run.launcher import STOP_REQUEST

    run = Run(stepper(tmp_path, "ignore"))
    seen = []
    run.subscribe(seen.append)
    await run.start()
    await until(lambda: (run.monitor.progress.step or 0) >= 2, what="two steps")
    first = asyncio.ensure_future(run.stop())
    await until(lambda: any(isinstance(ev, Stopping) for ev in seen), what="the stop request")
    await run.stop()  # like a second Ctrl-C: the signals now, not after the wait for the step
    await first
    result = await run.wait()
    assert [ev.signal for ev in seen if isinstance(ev, Stopping)][:2] == [STOP_REQUEST, "SIGINT"]
    assert result.summary["stop"]["signals_sent"][0] == "SIGINT" and result.status == "stopped"
    assert result.summary["script_end"] is None


async def test_a_script_that_ended_its_loop_is_left_to_finish_its_teardown(tmp_path):
    """The script stopped when asked and printed its end record, but its teardown outlasts the wait for a step: no
    signal cuts it short while it has not outlasted the SIGINT grace too."""
    run = Run(stepper(tmp_path, "honour", "slow-exit", grace_int=20.0))
    await run.start()
    await until(lambda: (run.monitor.progress.step or 0) >= 2, what="two steps")
    await run.stop("test")
    result = await run.wait()
    assert result.summary["stop"]["signals_sent"] == [] and result.summary["script_end"]["status"] == "stopped"
    assert result.returncode == 0 and result.exit_code == 130
