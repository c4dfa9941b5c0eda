"""The run screen: a real subprocess (a fake trainer printing the fsdpds records) through the real launcher;
stop, crash diagnosis, a flood of output, one real CPU rehearsal (e2e), snapshots of finished runs.
"""
from __future__ import annotations

import os
import re
import sys
import textwrap
from pathlib import Path

import psutil
import pytest
from helpers import ROOT, until

from wizard.core.answers import default_answers
from wizard.run.checklist import compare, expected_from_config
from wizard.run.launcher import Finished, LaunchSpec, Metrics, Output, ProgressUpdate, RunResult, SetupReported
from wizard.run.monitor import Monitor
from wizard.run.records import RunDir
from wizard.tui.app import create_app
from wizard.tui.screens.main import MainScreen
from wizard.tui.screens.run import RunScreen
from wizard.tui.shared.session import Start, from_preset
from wizard.tui.widgets.checklist import ChecklistView, DiagnosisView, checklist_renderable
from wizard.tui.widgets.logtail import LogTail, SearchInput
from wizard.tui.widgets.plot import SeriesPlot, bucket, plot_lines

SIZE = (80, 24)
LOGS = ROOT / "tests" / "data" / "logs"
EXPECTED_ZERO3 = expected_from_config(
    {"distributed_type": "DEEPSPEED", "num_processes": 2, "mixed_precision": "no",
     "deepspeed_config": {"deepspeed_config_file": "ds_config.json"}},
    {"zero_optimization": {"stage": 3}})

FAKE_TRAINER = textwrap.dedent('''
    import json, os, subprocess, sys, time
    steps, delay = int(sys.argv[1]), float(sys.argv[2])
    mode = sys.argv[3] if len(sys.argv) > 3 else "ok"
    def emit(kind, **kw):
        print(json.dumps({"fsdpds": 1, "kind": kind, **kw}), flush=True)
    if mode == "grandchild":  # a "rank" in a session of its own, as torchrun does
        kid = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True)
        print(f"grandchild {kid.pid}", flush=True)
    if mode == "slowstart":  # still loading when it is stopped: no setup, no step
        print("loading the model", flush=True)
        time.sleep(120)
    for rank in (0, 1):
        emit("setup", rank=rank, distributed_type="DEEPSPEED", world_size=2, backend="gloo", zero_stage=3,
             offload={"params": "none", "optimizer": "none"}, mixed_precision="no", param_dtype="float32",
             grad_dtype="float32", local_param_numel=500, local_param_bytes=2000, full_param_numel=1000,
             param_fraction=0.5, launched_world_size=2, dist_world_size=2)
    print("hello from the fake trainer", flush=True)
    for step in range(steps):
        emit("step", step=step, loss=4.0 - 0.1 * step, lr=1e-3, step_time=delay, tokens_per_s=1000.0,
             mem_bytes=100 * 2**20, total_steps=steps)
        print(f"plain line {step}" + (" needle" if step == 3 else ""), flush=True)
        time.sleep(delay)
    emit("end", status="completed", steps=steps)
''')

FLOOD = textwrap.dedent('''
    import os, sys, time
    time.sleep(0.3)
    out = sys.stdout
    stop = sys.argv[1]
    i = 0
    while True:  # bursts of 20,000 lines until the test says stop, then at least ten bursts in all
        for i in range(i, i + 20_000):
            out.write(f"flood line {i} some text to make it a realistic width for a log line\\n")
        i += 1
        out.flush()
        if i >= 200_000 and os.path.exists(stop):
            break
        time.sleep(0.1)
    out.write(f"flood total {i}\\n")
    out.flush()
    time.sleep(0.5)
''')
"""Lines in bursts until the file named by its argument exists: the keys are pressed while lines still arrive, however
long the screen takes to answer them on a loaded machine."""


def spec_for(tmp_path: Path, script: str, *args: str, expected: dict | None = EXPECTED_ZERO3) -> LaunchSpec:
    path = tmp_path / "fake_trainer.py"
    path.write_text(script)
    return LaunchSpec(argv=[sys.executable, str(path), *args], env=dict(os.environ, PYTHONUNBUFFERED="1"),
                      cwd=str(tmp_path), run_dir=RunDir(tmp_path / "out"), expected=expected,
                      grace_int=GRACE_S, grace_term=GRACE_S, grace_kill=GRACE_S)


GRACE_S = 30.0
"""Each stop signal's grace: the fake trainer ends within a second of SIGINT at rest; on a loaded machine it may take
several, and a shorter grace would send SIGTERM too and change what the screen says (a bound, not a measure)."""


async def open_run(pilot, spec: LaunchSpec, heading: str = "Fake run") -> RunScreen:
    screen = RunScreen(spec, heading=heading)
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen


def descendants_alive(pids) -> list[int]:
    alive = []
    for pid in pids:
        try:
            p = psutil.Process(pid)
            if p.status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.Error:
            pass
    return alive


# ----------------------------------------------------------------------------- pure parts
def test_plot_lines_fit_and_scale():
    lines = plot_lines([4.0, 3.0, 2.0, 1.0], 20, 4)
    assert len(lines) == 4 and all(len(ln) == 20 for ln in lines)
    assert lines[0].strip().startswith("4") and lines[-1].strip().startswith("1")
    assert lines[0][8] == "█" and lines[0][11] == " "  # the first value fills the top row, the last does not
    assert len(bucket(list(range(10_000)), 50)) == 50
    assert "waiting" in "".join(plot_lines([], 40, 3))
    assert plot_lines([float("nan"), 1.0, 1.0], 12, 2)  # non-finite values are skipped, a flat line is fine


# ----------------------------------------------------------------------------- (1) a whole run
@pytest.mark.asyncio
async def test_fake_run_progress_plot_checklist_search_and_finish(tmp_path):
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        # 0.25 s a step: the poll below must catch the run between step 3 and its end even on a loaded machine
        screen = await open_run(pilot, spec_for(tmp_path, FAKE_TRAINER, "12", "0.25"))
        await until(pilot, lambda: screen.progress is not None and screen.progress.step and
                    screen.progress.step >= 3 and screen.result is None, what="progress")
        assert screen.progress.total == 12
        assert screen.state == "running"
        await until(pilot, lambda: screen.result is not None, what="the end of the run")
        await pilot.pause(0.3)
        r = screen.result
        assert r.status == "completed" and r.exit_code == 0
        # progress and plot
        assert screen.progress.step == 12
        plot = screen.query_one(SeriesPlot)
        assert len(plot.values) == 12 and plot.values[0] == 4.0 and plot.values[-1] == pytest.approx(2.9)
        assert "Loss 4 → 2.9" in str(plot.border_title)
        status = str(screen.query_one("#run-status").render())
        assert "completed" in status and "12/12 steps" in status and "took effect: 6 settings" in status
        assert "settings took effect" not in status
        assert "1,000 tokens/s" in status and "0.25 s/step" in status
        assert "peak RSS: process " in status and " MiB" in status  # psutil, sampled while it ran
        # the checklist
        checks = screen.query_one(ChecklistView).statuses
        assert checks["ZeRO-3 active: each rank holds half of the parameters"] == "ok"
        assert checks["World size 2"] == "ok"
        assert not screen.query_one(DiagnosisView).display
        # the log and its search
        tail = screen.query_one(LogTail)
        assert "hello from the fake trainer" in tail.visible_lines
        await pilot.press("slash")
        assert isinstance(app.focused, SearchInput)
        for ch in "needle":
            await pilot.press(ch)
        await pilot.pause()
        assert tail.visible_lines == ["plain line 3 needle"]
        assert "1 matching 'needle'" in str(tail.border_subtitle)
        await pilot.press("escape")  # clears the search
        await pilot.pause()
        assert len(tail.visible_lines) > 12
        await pilot.press("escape")  # back to the wizard
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
    run_dir = Path(r.run_dir)
    assert (run_dir / "summary.json").is_file() and len((run_dir / "metrics.jsonl").read_text().splitlines()) == 12


# ----------------------------------------------------------------------------- (2) stop half-way
@pytest.mark.asyncio
async def test_stop_key_ends_the_run_and_leaves_no_process(tmp_path):
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_run(pilot, spec_for(tmp_path, FAKE_TRAINER, "200", "0.05", "grandchild"))
        await until(pilot, lambda: screen.progress is not None and (screen.progress.step or 0) >= 5, what="step 5")
        grandchild = int(next(ln for ln in screen.log_tail.lines if ln.startswith("grandchild")).split()[1])
        root = screen.run.pid
        assert descendants_alive([root, grandchild]) == [root, grandchild]
        await pilot.press("ctrl+c")
        await until(pilot, lambda: screen.result is not None, timeout=90, what="the stop")
        await pilot.pause(0.2)
        assert screen.result.status == "stopped"
        assert screen.progress.step < 200
        assert descendants_alive([root, grandchild]) == []
        status = str(screen.query_one("#run-status").render())
        assert re.search(r"stopped │ Fake run │ by you \(SIGINT\) after step \d+ of 200", status), status
        assert "exit " not in status
        assert len(screen.query_one(SeriesPlot).values) >= 5  # the loss panel keeps the data it had


@pytest.mark.asyncio
async def test_stop_before_the_first_step_says_so_everywhere(tmp_path):
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_run(pilot, spec_for(tmp_path, FAKE_TRAINER, "20", "0.05", "slowstart"))
        await until(pilot, lambda: "loading the model" in screen.log_tail.lines, what="the script to start")
        await pilot.press("ctrl+c")
        await until(pilot, lambda: screen.result is not None, timeout=90, what="the stop")
        await pilot.pause(0.3)
        status = str(screen.query_one("#run-status").render())
        assert "stopped │ Fake run │ by you (SIGINT) before the first step" in status, status
        assert "exit " not in status and "took effect" not in status
        assert "effective setup unknown (the run was stopped before the script reported its setup)" in status
        plot = str(screen.query_one(SeriesPlot).render())
        assert "stopped before the first step" in plot and "waiting" not in plot
        items = screen.query_one(ChecklistView).items
        assert [(i.status, i.label, i.detail) for i in items] == [
            ("unknown", "Effective setup unknown", "the run was stopped before the script reported its setup")]
        view = screen.query_one(ChecklistView)
        shown = [t.plain for t in checklist_renderable(view.items, details=view.details, waiting="").renderables]
        assert shown == ["? Effective setup unknown: the run was stopped before the script reported its setup"]


@pytest.mark.asyncio
async def test_leaving_or_quitting_stops_the_run(tmp_path):
    """Escape stops the run and returns when it has ended; quitting the app stops it too."""
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        (tmp_path / "a").mkdir()
        screen = await open_run(pilot, spec_for(tmp_path / "a", FAKE_TRAINER, "200", "0.05"))
        await until(pilot, lambda: screen.progress is not None and (screen.progress.step or 0) >= 2, what="steps")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MainScreen), timeout=90, what="back to the wizard")
        assert screen.result.status == "stopped"
        assert descendants_alive([screen.run.pid]) == []
        (tmp_path / "b").mkdir()
        screen = await open_run(pilot, spec_for(tmp_path / "b", FAKE_TRAINER, "200", "0.05", "grandchild"))
        await until(pilot, lambda: screen.progress is not None and (screen.progress.step or 0) >= 2, what="steps")
        grandchild = int(next(ln for ln in screen.log_tail.lines if ln.startswith("grandchild")).split()[1])
        await app.action_quit()
        assert screen.result is not None and screen.result.status == "stopped"
        assert descendants_alive([screen.run.pid, grandchild]) == []


# ----------------------------------------------------------------------------- (3) known failures
CRASHES = {
    "gen_cuda_oom.log": "Out of GPU memory",
    "gen_nccl_timeout.log": "Collective operation timed out",
    "gen_wrap_class_missing.log": "FSDP wrap class",
    "gen_ds_batch_assert.log": "DeepSpeed batch-size assertion",
    "rec_crash_rank1.log": "Rank 1",
}


@pytest.mark.asyncio
@pytest.mark.parametrize("log", list(CRASHES))
async def test_crash_shows_the_diagnosis_and_fix(tmp_path, log):
    script = f"import sys\nsys.stdout.write(open({str(LOGS / log)!r}, errors='replace').read())\nsys.exit(1)\n"
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_run(pilot, spec_for(tmp_path, script))
        await until(pilot, lambda: screen.result is not None, what="the end of the run")
        await pilot.pause(0.3)
        assert screen.result.status == "failed"
        diag = screen.query_one(DiagnosisView)
        assert diag.display
        assert CRASHES[log] in diag.text and "fix: " in diag.text
        assert "failed" in str(screen.query_one("#run-status").render())


# ----------------------------------------------------------------------------- (4) a flood
@pytest.mark.asyncio
async def test_flood_of_output_keeps_the_screen_responsive(tmp_path):
    app = create_app()
    stop = tmp_path / "stop"
    async with app.run_test(size=SIZE) as pilot:
        spec = spec_for(tmp_path, FLOOD, expected=None)
        spec.argv.append(str(stop))
        screen = await open_run(pilot, spec)
        await until(pilot, lambda: screen.log_tail.total > 0, what="the first lines")
        answered = []
        for key, focused in (("slash", SearchInput), ("escape", None)) * 2:
            await pilot.press(key)
            await until(pilot, lambda want=focused: isinstance(app.focused, SearchInput) == (want is SearchInput),
                        timeout=60, what=key)
            answered.append((key, screen.result is None, screen.log_tail.total))
        stop.touch()
        # a screen blocked by the flood never answers (the flood goes on until the keys were answered); a responsive
        # one answers while the lines still arrive, however loaded the machine is (so no bound in seconds)
        assert all(running for _, running, _ in answered), answered
        assert answered[0][2] < answered[-1][2], answered  # lines kept arriving while the keys were answered
        await until(pilot, lambda: screen.result is not None, timeout=120, what="the end of the flood")
        await pilot.pause(0.3)
        tail = screen.log_tail
        total = int(next(ln for ln in reversed(tail.lines) if ln.startswith("flood total ")).split()[2])
        assert total >= 200_000 and total % 20_000 == 0
        assert screen.run.monitor.line_count == total + 1
        assert len(tail.visible_lines) <= tail.shown
        assert tail.visible_lines[-1] == f"flood total {total}"
        assert tail.visible_lines[-2].startswith(f"flood line {total - 1} ")
        assert screen.result.status == "completed"


# ----------------------------------------------------------------------------- actions wired in
@pytest.mark.asyncio
async def test_launch_asks_to_write_first_and_rehearse_needs_no_errors(tmp_path, monkeypatch):
    from wizard.run import plan
    from wizard.tui.screens import flows
    from wizard.tui.screens.confirm import ConfirmScreen

    opened = []
    monkeypatch.setattr(flows, "plan_and_open",
                        lambda app, answers, out, *, rehearse, script_args=None: opened.append((out, rehearse)))
    monkeypatch.setattr(plan, "detect_gpus_per_node", lambda: 8)  # a machine with GPUs (see the next test without)
    out = tmp_path / "cfg"
    app = create_app(Start(default_answers().replace({"launch.num_machines": 2})), out=str(out))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert opened == [] and not out.exists()  # errors block both
        main = app.screen
        main.set_answers(default_answers())
        await pilot.press("f5")
        assert opened == [(str(out), True)]
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert not (out / "accelerate_config.yaml").exists() and len(opened) == 1
        await pilot.press("ctrl+l")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert (out / "accelerate_config.yaml").is_file() and opened[-1] == (str(out), False)
        await pilot.press("ctrl+l")  # written and current: no question
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and opened[-1] == (str(out), False) and len(opened) == 3
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Rehearse on CPU" in titles and "Launch the written config" in titles


@pytest.mark.asyncio
async def test_launch_without_a_gpu_says_so_and_points_to_the_rehearsal(tmp_path, monkeypatch):
    """Issue 21, item 5: ctrl+l where no GPU is found started every rank on the CPU without a word. It says so
    first, points to F5, and launches only when asked to anyway. CUDA_VISIBLE_DEVICES="" hides every GPU the way
    CUDA reads it: the test holds on a machine with GPUs too."""
    from wizard.tui.screens import flows
    from wizard.tui.screens.confirm import ConfirmScreen

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    opened = []
    monkeypatch.setattr(flows, "plan_and_open",
                        lambda app, answers, out, *, rehearse, script_args=None: opened.append((out, rehearse)))
    out = tmp_path / "cfg"
    app = create_app(Start(default_answers()), out=str(out))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and app.screen.title_text == "No GPU on this machine"
        message = app.screen.message
        assert message.startswith("No GPU found on this machine") and "F5" in message
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and opened == [] and not out.exists()
        assert any("F5 rehearses" in str(n.message) for n in app._notifications)
        await pilot.press("ctrl+l")
        await pilot.pause()
        await pilot.press("y")  # launch anyway: on to the files it needs, as on a machine with GPUs
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and app.screen.title_text == "Write the files and launch?"
        await pilot.press("y")
        await pilot.pause()
        assert (out / "accelerate_config.yaml").is_file() and opened == [(str(out), False)]
        await pilot.press("f5")  # the rehearsal is not asked about: it runs on the CPU on purpose
        await pilot.pause()
        assert opened[-1] == (str(out), True) and isinstance(app.screen, MainScreen)


# ----------------------------------------------------------------------------- (5) a real rehearsal
@pytest.mark.e2e
@pytest.mark.asyncio
async def test_real_rehearsal_from_the_tui_zero2(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR",
                       os.environ.get("TORCH_EXTENSIONS_DIR")
                       or str(Path.home() / ".cache" / "fsdpds-wizard" / "torch_extensions"))
    from wizard.tui.screens import flows

    real = flows.plan_and_open
    monkeypatch.setattr(flows, "plan_and_open", lambda app, answers, out, *, rehearse, script_args=None:
                        real(app, answers, out, rehearse=rehearse, script_args=["--steps", "6"]))
    app = create_app(from_preset("zero2"), out=str(tmp_path / "cfg"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        await pilot.press("f5")
        await until(pilot, lambda: isinstance(app.screen, RunScreen), timeout=60, what="the run screen")
        screen = app.screen
        await until(pilot, lambda: screen.result is not None, timeout=300, what="the rehearsal")
        await pilot.pause(0.3)
        tail = "\n".join(list(screen.log_tail.lines)[-40:])
        assert screen.result.status == "completed", tail
        checks = screen.query_one(ChecklistView).statuses
        sharding = [label for label in checks if label.startswith("ZeRO-2 active")]
        assert sharding and checks[sharding[0]] == "ok", checks
        assert checks["Distributed type DEEPSPEED"] == "ok"
        assert screen.progress.step == 6 and len(screen.losses) == 6
        assert checks["Mixed precision bf16"] == "ok"  # the preset's bf16, rehearsed for real on CPU
        assert checks["Not rehearsed: processes 8 (ran 2)"] == "not_rehearsed"
        status = str(screen.query_one("#run-status").render())
        assert "took effect: " in status and "not rehearsed: processes 8 (ran 2)" in status, status
        assert "settings took effect" not in status
        assert any(ln.startswith("step 6/6  loss ") for ln in screen.log_tail.visible_lines)


# ----------------------------------------------------------------------------- (6) snapshots
_SITE = re.compile(r"/\S*/site-packages/")
_REPO = re.compile(r"/[^\s'\"<>]*?(?=/(?:wizard|templates)/)")


def recorded_events(log: str, expected: dict, status: str, exit_code: int, not_rehearsed: list | None = None,
                    stop: dict | None = None) -> list:
    """The events a run of ``log`` gives, without a process: no clock, pid or path in them."""
    from wizard.run.checklist import verdict
    from wizard.run.diagnose import diagnose

    mon = Monitor()
    text = _SITE.sub("<site-packages>/", (LOGS / log).read_text(errors="replace"))
    # the logs were recorded in another checkout: any folder holding wizard/ or templates/ is the repository
    text = _REPO.sub("<repo>", text.replace(str(ROOT), "<repo>"))
    res = mon.feed_text(text)
    end = mon.finish()
    events: list = [Output(tuple(res.lines + end.lines))]
    if res.metrics:
        events.append(Metrics(tuple(res.metrics)))
    eff = mon.effective_setup
    items = compare(eff, expected, not_rehearsed=not_rehearsed) if eff else []
    if eff:
        events.append(SetupReported(0, {}, eff, tuple(items)))
    events.append(ProgressUpdate(mon.progress, 7.8))
    lines = [ln for _, ln in mon.first_errors] + [ln for _, ln in mon.error_lines] + list(mon.tail)
    diag = diagnose(lines, exit_code, end_record=mon.end_record, expected_world=2,
                    stopped=status == "stopped")
    ok = None if not items else not any(i.status == "fail" for i in items)
    summary = {"status": status, "exit_code": exit_code, "checklist_ok": ok, "verdict": verdict(items),
               "stop": dict(stop or {}, after_step=mon.progress.step, total_steps=mon.progress.total)}
    events.append(Finished(RunResult(None, None, status, exit_code, exit_code, 7.8, eff, items, diag, summary)))
    return events


EXPECTED_ZERO2 = {"distributed_type": "DEEPSPEED", "world_size": 2, "mixed_precision": "no", "zero_stage": 2,
                  "offload": {"optimizer": "none", "params": "none"}}
EXPECTED_FSDP2 = {"distributed_type": "FSDP", "world_size": 2, "mixed_precision": "no", "fsdp_version": 2,
                  "sharding": "FULL_SHARD", "offload": {"optimizer": "none", "params": "none"}}
SNAP_SIZES = {"80x24": (80, 24), "160x50": (160, 50)}


def replay(events, heading):
    async def go(pilot):
        await pilot.pause(0.2)
        screen = RunScreen(None, heading=heading)
        await pilot.app.push_screen(screen)
        await pilot.pause()
        for ev in events:
            screen.feed(ev)
        await pilot.pause(0.3)

    return go


# what the rehearsal of the zero2 preset changes (wizard.run.rehearse.Adjustment.to_dict)
ZERO2_NOT_REHEARSED = [
    {"setting": "launch.num_processes", "name": "processes", "asked": "8", "ran": "2",
     "why": "a rehearsal runs two processes on this machine's CPU", "short": "processes 8 (ran 2)"},
    {"setting": "loading.ram_efficient", "name": "loading (zero3_init)", "asked": "on", "ran": "off",
     "why": "zero3_init_flag only affects Transformers' from_pretrained, which the bundled script does not use",
     "short": "loading (zero3_init) on (ran off)"},
]


@pytest.mark.parametrize("size", list(SNAP_SIZES))
def test_snapshot_rehearsal_completed(snap_compare, size):
    events = recorded_events("rec_zero2_rehearsal.log", EXPECTED_ZERO2, "completed", 0, ZERO2_NOT_REHEARSED)
    assert snap_compare(create_app(), terminal_size=SNAP_SIZES[size],
                        run_before=replay(events, "CPU rehearsal of DeepSpeed ZeRO-2"))


@pytest.mark.parametrize("size", list(SNAP_SIZES))
def test_snapshot_crashed_run_with_diagnosis(snap_compare, size):
    events = recorded_events("rec_crash_rank1.log", EXPECTED_FSDP2, "failed", 1)
    assert snap_compare(create_app(), terminal_size=SNAP_SIZES[size],
                        run_before=replay(events, "CPU rehearsal of FSDP2 full shard"))


@pytest.mark.parametrize("size", list(SNAP_SIZES))
def test_snapshot_stopped_run(snap_compare, size):
    """After ctrl+c: who stopped it and after which step, the loss so far, readable log lines."""
    events = recorded_events("rec_stopped_sigint.log", EXPECTED_FSDP2, "stopped", 1,
                             stop={"requested": True, "reason": "stopped from the wizard (ctrl+c)",
                                   "signals_sent": ["SIGINT"]})
    assert snap_compare(create_app(), terminal_size=SNAP_SIZES[size],
                        run_before=replay(events, "CPU rehearsal of FSDP2 full shard"))


# ----------------------------------------------------------------------------- (7) the log follows the end
def shown_rows(tail: LogTail) -> list[str]:
    """The log lines in view now (the Log's scroll window), not just the ones it holds."""
    log = tail.log_view
    top = int(log.scroll_y)
    return [str(ln) for ln in list(log.lines)[top:top + log.scrollable_content_region.height]]


@pytest.mark.asyncio
@pytest.mark.parametrize("log,status,last", [
    ("rec_zero2_rehearsal.log", "completed", "end: completed, 8 steps, in 7.8 s"),
    ("rec_fsdp2_rehearsal.log", "completed", "end: completed"),
])
async def test_log_shows_the_last_line_when_a_recorded_run_ends(log, status, last):
    """Issue 7: after a completed rehearsal the log's last visible line was the step before the last."""
    events = recorded_events(log, EXPECTED_ZERO2, status, 0)
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.2)
        screen = RunScreen(None, heading="CPU rehearsal")
        await app.push_screen(screen)
        await pilot.pause()
        for ev in events:
            screen.feed(ev)
        await pilot.pause(0.5)
        tail = screen.log_tail
        rows = shown_rows(tail)
        assert rows and rows[-1].startswith(last), rows
        assert tail.log_view.scroll_y == tail.log_view.max_scroll_y
        # the reader scrolls up to read: the view stays there, ticks do not pull it back to the end
        tail.log_view.scroll_home(animate=False, immediate=True)
        await pilot.pause(0.5)
        assert tail.log_view.scroll_y == 0
        assert not tail.following


@pytest.mark.asyncio
async def test_log_follows_the_end_of_a_live_run(tmp_path):
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_run(pilot, spec_for(tmp_path, FAKE_TRAINER, "20", "0.02"))
        await until(pilot, lambda: screen.result is not None, what="the end of the run")
        await pilot.pause(0.5)
        rows = shown_rows(screen.log_tail)
        assert rows[-1].startswith("end: completed, 20 steps"), rows
        assert any(r.startswith("step 20/20") for r in rows), rows
