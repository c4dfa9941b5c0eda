"""Issue 22 item 15: a wizard killed with SIGKILL leaves no run behind.

The launch is started by the real :class:`wizard.run.launcher.Run` in a wizard process of its own, with a stand-in
for the launcher that behaves as torchrun does (each rank in a session of its own, the ranks stopped on SIGTERM) or
as a launcher that leaves its child behind. The real ``accelerate launch`` is in tests/e2e/test_killed_wizard_real.py.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from helpers import ROOT, process_alive

from wizard.core.answers import answers_from_mapping
from wizard.run.leftovers import PROCESSES, leftovers, process_record, sweep, wizard_identity, write_processes
from wizard.run.plan import plan_launch

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")

LAUNCHER = '''
import signal, subprocess, sys, time
leave_behind = sys.argv[1] == "leave"
ranks = []
class Stop(Exception):
    pass
def stop(signum, frame):  # torchrun: the handler raises, the ranks are stopped outside it
    raise Stop(signum)
signal.signal(signal.SIGTERM, stop)  # before the ranks start, as torchrun does
ranks += [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
          for _ in range(2)]
print("ranks started", flush=True)
try:
    time.sleep(600)
except Stop as exc:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the kernel sends one per thread of the wizard that exits
    if not leave_behind:  # the other kind of launcher just dies
        for r in ranks:
            r.terminate()
        for r in ranks:
            r.wait()
    sys.exit(128 + exc.args[0])
'''

WIZARD = '''
import sys
from pathlib import Path
from wizard.run.launcher import LaunchSpec, run_sync
from wizard.run.records import RunDir
run_dir = RunDir(Path(sys.argv[1]))
print(run_dir.path, flush=True)
run_sync(LaunchSpec(argv=[sys.executable, sys.argv[2], sys.argv[3]], run_dir=run_dir))
'''


def _wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout:.0f}s: {what}")


@pytest.fixture
def started():
    """The wizards a test starts; at its end each is killed, and what its run recorded is killed too when still
    alive as recorded (a failed test leaves nothing running)."""
    wizards: list[tuple[subprocess.Popen, list[Path]]] = []
    yield wizards
    for wizard, runs in wizards:
        if wizard.poll() is None:
            wizard.kill()
            wizard.wait(10)
        for run in runs:
            try:
                procs = json.loads((run / PROCESSES).read_text())["processes"]
            except (OSError, ValueError):
                continue
            for p in procs:
                if process_alive(p):
                    psutil.Process(p["pid"]).kill()


def _start_wizard(tmp_path: Path, behaviour: str, started) -> tuple[subprocess.Popen, Path, list[dict]]:
    launcher = tmp_path / "launcher.py"
    launcher.write_text(LAUNCHER)
    wizard = subprocess.Popen([sys.executable, "-c", WIZARD, str(tmp_path / "out"), str(launcher), behaviour],
                              stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    runs: list[Path] = []
    started.append((wizard, runs))
    run = Path(wizard.stdout.readline().strip())
    runs.append(run)

    def three() -> list[dict] | None:
        try:
            procs = json.loads((run / PROCESSES).read_text())["processes"]
        except (OSError, ValueError):
            return None
        started = "ranks started" in (run / "log.txt").read_text()  # the launcher's set-up is done
        ranks = [p for p in procs if "time.sleep(600)" in p["command"]]  # recorded after exec
        return procs if started and len(procs) == 3 and len(ranks) == 2 else None

    return wizard, run, _wait(three, 60, "the launcher and its two ranks recorded in processes.json")


def _kill(wizard: subprocess.Popen) -> None:
    wizard.send_signal(signal.SIGKILL)
    wizard.wait(10)
    wizard.stdout.close()


def test_the_launcher_and_its_ranks_die_with_a_sigkilled_wizard(tmp_path, started):
    wizard, run, procs = _start_wizard(tmp_path, "stop-ranks", started)
    record = json.loads((run / PROCESSES).read_text())
    assert record["wizard"]["pid"] == wizard.pid and record["pgid"] == procs[0]["pid"]
    _kill(wizard)
    _wait(lambda: not any(process_alive(p) for p in procs), 10, f"every process of the run gone: {procs}")
    assert not (run / "summary.json").exists()  # the wizard never finished: only the kernel acted


def test_what_a_killed_wizard_left_running_is_stopped_at_the_next_start_and_said_in_one_line(tmp_path, started):
    """A launcher that does not stop its ranks on SIGTERM dies with the wizard; its ranks live on until the next
    launch into the same folder stops them."""
    wizard, run, procs = _start_wizard(tmp_path, "leave", started)
    launcher, ranks = procs[0], procs[1:]
    _kill(wizard)
    _wait(lambda: not process_alive(launcher), 10, "the launcher gone with the wizard")
    assert all(process_alive(r) for r in ranks)
    assert sorted(p.pid for p in leftovers(run)) == sorted(r["pid"] for r in ranks)
    script = tmp_path / "train.py"
    script.write_text("print('hi')\n")
    a, _ = answers_from_mapping({"schema_version": 1, "backend": "fsdp", "fsdp_version": 2,
                                 "sharding": {"strategy": "full"}, "precision": {"mixed_precision": "no"},
                                 "wrapping": {"policy": "transformer", "layer_classes": ["LlamaDecoderLayer"]},
                                 "launch": {"script": str(script)}})
    assert a is not None
    plan = plan_launch(a, tmp_path / "out")
    assert plan.swept == [f"stopped 2 process(es) left running by run {run.name}, whose wizard was killed: pids "
                          + ", ".join(str(p) for p in sorted(r["pid"] for r in ranks))]
    assert not any(process_alive(r) for r in ranks)
    assert sweep(tmp_path / "out" / "runs") == []  # said once


# ------------------------------------------------------------------------------- never what we did not start
@pytest.fixture
def sleeper():
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    yield p
    p.kill()
    p.wait()


def _dead_wizard() -> dict:
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    me = {"pid": p.pid, "started": psutil.Process(p.pid).create_time()}
    p.kill()
    p.wait()
    return me


def _record(run: Path, wizard: dict, proc: dict) -> None:
    run.mkdir(parents=True)
    write_processes(run, wizard, proc["pid"], [proc])


def _as_recorded(p: subprocess.Popen) -> dict:
    ps = psutil.Process(p.pid)
    return process_record(p.pid, ps.create_time(), ps.cmdline())


@pytest.mark.parametrize("case", ["other-start-time", "other-cmdline", "wizard-alive", "run-finished"])
def test_a_recorded_pid_is_signalled_only_when_it_is_the_process_we_started(case, sleeper, tmp_path):
    rec = _as_recorded(sleeper)
    wizard = _dead_wizard()
    if case == "other-start-time":  # the pid was given to another program since
        rec["started"] -= 5
    elif case == "other-cmdline":
        rec["cmdline_sha256"] = process_record(0, 0.0, [sys.executable, "train.py"])["cmdline_sha256"]
    elif case == "wizard-alive":  # another wizard still runs that launch
        wizard = wizard_identity()
    run = tmp_path / "runs" / "r1"
    _record(run, wizard, rec)
    if case == "run-finished":
        (run / "summary.json").write_text("{}\n")
    assert sweep(tmp_path / "runs") == []
    assert sleeper.poll() is None


def test_a_recorded_leftover_is_stopped(sleeper, tmp_path):
    _record(tmp_path / "runs" / "r1", _dead_wizard(), _as_recorded(sleeper))
    assert sweep(tmp_path / "runs") == [f"stopped 1 process(es) left running by run r1, whose wizard was killed: "
                                        f"pids {sleeper.pid}"]
    assert sleeper.wait(5) == -signal.SIGTERM


def test_a_record_without_the_command_digest_stops_nothing(sleeper, tmp_path):
    """A crafted processes.json naming a live pid with its true start time but no command digest: not stopped."""
    rec = _as_recorded(sleeper)
    del rec["cmdline_sha256"]
    _record(tmp_path / "runs" / "r1", _dead_wizard(), rec)
    assert sweep(tmp_path / "runs") == []
    assert sleeper.poll() is None


def test_the_record_keeps_no_command_line_only_its_digest_and_a_redacted_copy():
    from wizard.core.redact import Redactor

    argv = ["pdsh", "-w", "n1,n2", "export HF_TOKEN=hf_canaryCANARYcanary123; cd /w; python train.py"]
    rec = process_record(1, 2.0, argv, Redactor({"HF_TOKEN": "hf_canaryCANARYcanary123"}))
    assert "hf_canary" not in json.dumps(rec) and "train.py" in rec["command"]
    assert rec["cmdline_sha256"] == process_record(1, 2.0, list(argv))["cmdline_sha256"]


@pytest.mark.parametrize("text", ["", "{", "[]", '{"wizard": 1, "processes": 2}',
                                  '{"wizard": {"pid": "x"}, "processes": [{"pid": 1}]}'])
def test_a_damaged_record_stops_nothing(text, tmp_path):
    run = tmp_path / "runs" / "r1"
    run.mkdir(parents=True)
    (run / PROCESSES).write_text(text)
    assert sweep(tmp_path / "runs") == []


# ------------------------------------------------------------------------------- a SLURM run
SLURM_STANDINS = {
    "sbatch": "print('7')\n",
    "scontrol": ("import os, sys\nfrom pathlib import Path\n"
                 "gone = (Path(os.environ['STANDIN_RECORD']) / 'scancel').exists()\n"
                 "print('JobId=7 JobState=' + ('CANCELLED ExitCode=0:15' if gone else 'RUNNING ExitCode=0:0')"
                 " + ' NodeList=node1')\n"),
    "scancel": ("import os, sys\nfrom pathlib import Path\n"
                "with open(Path(os.environ['STANDIN_RECORD']) / 'scancel', 'a') as f:\n"
                "    f.write(' '.join(sys.argv[1:]) + '\\n')\n"),
}


def test_a_sigkilled_wizard_still_cancels_its_slurm_job(tmp_path, started):
    """The follower is the launcher of a SLURM run: the parent-death signal makes it scancel the job, although
    the wizard it reported to is gone (its output pipe is broken)."""
    bin_dir, record = tmp_path / "bin", tmp_path / "record"
    bin_dir.mkdir()
    record.mkdir()
    for name, body in SLURM_STANDINS.items():
        (bin_dir / name).write_text(f"#!{sys.executable}\n{body}")
        (bin_dir / name).chmod(0o755)
    answers = tmp_path / "answers.yaml"
    answers.write_text(json.dumps({"schema_version": 1, "backend": "deepspeed",
                                   "sharding": {"strategy": "grads_optimizer"},
                                   "precision": {"mixed_precision": "no"}}))
    env = dict(os.environ, PYTHONPATH=str(ROOT), PATH=f"{bin_dir}:{os.environ['PATH']}",
               STANDIN_RECORD=str(record))
    wizard = subprocess.Popen([sys.executable, "-m", "wizard", "--headless", str(answers), "--out",
                               str(tmp_path / "out"), "--launch", "--rehearse", "--slurm"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
    runs: list[Path] = []
    started.append((wizard, runs))

    def running() -> list[dict] | None:
        found = list((tmp_path / "out" / "runs").glob("*/slurm_job.json"))
        if found:
            runs.append(found[0].parent)
            try:
                if json.loads(found[0].read_text()).get("state") == "RUNNING":
                    return json.loads((found[0].parent / PROCESSES).read_text())["processes"]
            except (OSError, ValueError):
                return None
        return None

    procs = _wait(running, 120, "the job RUNNING under the follower")
    _kill(wizard)
    _wait(lambda: (record / "scancel").exists(), 10, "scancel called by the follower")
    time.sleep(1)  # a second parent-death signal (one per thread of the wizard) must not escalate
    assert (record / "scancel").read_text() == "7\n"  # a plain cancel, once
    _wait(lambda: not any(process_alive(p) for p in procs), 10, "the follower gone once the job left the queue")
