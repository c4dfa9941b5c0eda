"""``--launch --slurm``: submit the run as a SLURM batch job and watch it with the local launch's monitor.

:func:`plan_slurm_launch` prepares the run like :func:`wizard.run.plan.plan_launch` (same run directory,
configs, rehearsal), writes the batch script (:func:`wizard.core.answers.slurm.batch_script`) as ``job.sbatch`` into the
run directory, and makes the command of the :class:`~wizard.run.launcher.Run` the job follower::

    python -m wizard.run.slurm follow RUN_DIR

The follower submits with ``sbatch --parsable``, follows the job with ``scontrol show job`` (``sacct`` once the
controller has forgotten it), copies every node's log (``node-<task>-<host>.log`` in the run directory) to its
output line by line with a ``[host]`` prefix, so the same monitor reads progress, loss, memory, the effective
setup of every rank and the errors for the diagnosis; a SIGINT/SIGTERM/SIGHUP (the monitor's stop, Ctrl-C)
becomes ``scancel`` (a second one ``scancel --signal=KILL``), and the follower waits until the job has left the
queue. Its exit code is the job's (``ExitCode=N:S``: N, or 128+S when the batch step died of signal S; a job that
did not complete exits non-zero in any case). ``slurm_job.json`` in the run directory holds the job id, its state,
exit code, nodes and node logs; :func:`finish_summary` merges it into ``summary.json`` with one effective-setup
checklist per node.

A rehearsal through SLURM (``--rehearse --slurm``) runs the CPU rehearsal on two nodes of one process each.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ..core.answers import Answers
from ..core.answers.slurm import batch_script
from .plan import LaunchPlan, PlanError, accelerate_argv, plan_launch
from .records import dumps
from .rehearse import REHEARSAL_PROCESSES, Adjustment

SCRIPT = "job.sbatch"
JOB = "slurm_job.json"
REHEARSAL_NODES = 2
MAIN_IP_FROM_SLURM = "set-by-the-slurm-batch-script"
"""Written as main_process_ip when the answers have none: the batch script passes the first node's address."""
DONE_STATES = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
               "BOOT_FAIL", "DEADLINE", "REVOKED", "SPECIAL_EXIT")
POLL_S = 0.3


# ----------------------------------------------------------------------------- planning
def require_slurm(path: str | None = None) -> None:
    """Raise :class:`wizard.core.exits.UsageError` (exit 2) when SLURM's client tools are not on PATH."""
    import shutil

    from ..core.exits import UsageError

    gone = [t for t in ("sbatch", "scontrol", "scancel") if shutil.which(t, path=path) is None]
    if gone:
        raise UsageError(f"--slurm needs SLURM's client tools ({', '.join(gone)} not found on PATH): run it where "
                         "jobs are submitted, or install slurm-client")


def _slurm_answers(rehearse: bool):
    def adjust(used: Answers, adjustments: list[Adjustment]) -> tuple[Answers, list[Adjustment]]:
        changes: dict[str, Any] = {}
        notes = list(adjustments)
        if rehearse:
            asked = next((a.original for a in notes if a.setting == "launch.num_machines"), used["launch.num_machines"])
            notes = [a for a in notes if a.setting != "launch.num_machines"]
            if asked != REHEARSAL_NODES:
                notes.append(Adjustment("launch.num_machines", asked, REHEARSAL_NODES,
                                        f"a SLURM rehearsal runs {REHEARSAL_NODES} nodes of one process each"))
            changes["launch.num_machines"] = REHEARSAL_NODES
            changes["launch.num_processes"] = REHEARSAL_PROCESSES
        if used["launch.hosts"]:  # sbatch picks the nodes; the batch script takes the hostfile from the job
            notes.append(Adjustment("launch.hosts", list(used["launch.hosts"]), [],
                                    "SLURM chooses the nodes: the job's node list replaces launch.hosts (the batch "
                                    "script writes the hostfile from scontrol show hostnames)"))
            changes["launch.hosts"] = []
        machines = changes.get("launch.num_machines", used["launch.num_machines"])
        if machines > 1 and not used["launch.main_process_ip"]:
            changes["launch.main_process_ip"] = MAIN_IP_FROM_SLURM
        return (used.replace(changes) if changes else used), notes

    return adjust


def plan_slurm_launch(answers: Answers, out_dir: Path, *, rehearse: bool = False,
                      script_args: list[str] | None = None, partition: str | None = None, time_limit: str | None = None,
                      cwd: str | None = None, base_env: dict[str, str] | None = None) -> LaunchPlan:
    """Prepare a SLURM run: the local plan, the batch script in the run directory, the follower as the command."""
    from ..core.answers.slurm import check_slurm_options, sbatch_path_problem
    from ..core.exits import UsageError

    try:  # before the run directory exists: a refused run leaves no half-made folder
        check_slurm_options(partition, time_limit)
    except UsageError as exc:
        raise PlanError(str(exc)) from exc
    problem = sbatch_path_problem(Path(out_dir).expanduser().resolve())
    if problem:
        raise PlanError(problem)
    plan = plan_launch(answers, out_dir, rehearse=rehearse, script_args=script_args, cwd=cwd, base_env=base_env,
                       adjust=_slurm_answers(rehearse))
    spec = plan.spec
    n = len(accelerate_argv())
    if spec.argv[n:n + 2] != ["launch", "--config_file"]:
        raise PlanError(f"unexpected launch command: {spec.argv}")
    config, rest = spec.argv[n + 2], spec.argv[n + 3:]
    run_path = plan.run_dir.path
    text = batch_script(plan.generated.answers, config, script=rest[0], script_args=rest[1:], partition=partition,
                        time=time_limit, job_name=f"fsdpds-{plan.run_dir.run_id}", log_dir=run_path,
                        launcher=accelerate_argv(), cpu=rehearse, cwd=spec.cwd, env=spec.env_overrides)
    (run_path / SCRIPT).write_text(text, encoding="utf-8")
    os.chmod(run_path / SCRIPT, 0o755)
    spec.argv = [sys.executable, "-m", "wizard.run.slurm", "follow", str(run_path)]
    spec.grace_int = 30.0  # the follower cancels the job and waits for it to leave the queue
    spec.stop_file = None  # the job is stopped with scancel (through the follower), not asked through a file
    spec.summary_extra["slurm"] = {"script": SCRIPT, "partition": partition, "time": time_limit,
                                   "launch_argv": [*accelerate_argv(), "launch", "--config_file", config, *rest]}
    return plan


# ----------------------------------------------------------------------------- the job
def _run(cmd: list[str], timeout: float = 30.0) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def job_info(job_id: str) -> dict[str, str] | None:
    """``scontrol show job`` as a dict (None when the controller no longer knows the job)."""
    try:
        proc = _run(["scontrol", "show", "job", "-o", job_id])
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0 or "JobId=" not in proc.stdout:
        return None
    info: dict[str, str] = {}
    for tok in re.findall(r"(\w+)=(\S*)", proc.stdout):
        info.setdefault(tok[0], tok[1])
    return info


def accounting(job_id: str) -> dict[str, str] | None:
    """The final state from ``sacct`` (accounting), else ``sacct -c`` (the job completion log, when accounting is
    off: ``JobCompType=jobcomp/filetxt``)."""
    for flag in ("-X", "-c"):
        try:
            proc = _run(["sacct", flag, "-n", "-P", "-j", job_id, "-o", "State,ExitCode,NodeList"])
        except (OSError, subprocess.SubprocessError):
            return None
        line = proc.stdout.strip().splitlines()[0] if proc.returncode == 0 and proc.stdout.strip() else ""
        if line:
            state, code, nodes = (line.split("|") + ["", "", ""])[:3]
            return {"JobState": (state.split() or ["UNKNOWN"])[0], "ExitCode": code, "NodeList": nodes}
    return None


def exit_code_of_job(state: str, exit_code: str) -> int:
    """``ExitCode=N:S`` -> N, or 128+S for a signal; non-zero whenever the job did not complete."""
    code, _, sig = (exit_code or "").partition(":")
    try:
        n, s = int(code or 0), int(sig or 0)
    except ValueError:
        n, s = 1, 0
    value = 128 + s if s else n
    if state != "COMPLETED" and value == 0:
        return 1
    return value


class _Tail:
    """New complete lines of one log file, prefixed with the node's name."""

    def __init__(self, path: Path, label: str) -> None:
        self.path, self.label, self.pos, self.rest = path, label.encode(), 0, b""

    def read(self, final: bool = False) -> bytes:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.pos)
                data = f.read(1 << 20)
        except OSError:
            return b""
        self.pos += len(data)
        data = self.rest + data
        lines = data.split(b"\n")
        self.rest = b"" if final else lines.pop()
        return b"".join(b"[" + self.label + b"] " + ln + b"\n" for ln in lines if ln.strip())


def _node_label(path: Path) -> str:
    """``node-<task>-<host>.log`` -> ``node<task>:<host>``; ``batch-<job>.log`` -> ``batch``."""
    stem = path.stem
    if stem.startswith("batch-"):
        return "batch"
    parts = stem.split("-", 2)
    return f"node{parts[1]}:{parts[2]}" if len(parts) == 3 else stem


def node_logs(run_path: Path) -> list[Path]:
    return sorted(Path(run_path).glob("node-*.log"))


def follow(run_path: Path, *, out=None) -> int:
    """Submit ``job.sbatch``, stream the node logs, cancel on a signal; return the job's exit code."""
    out = out or sys.stdout.buffer
    run_path = Path(run_path)
    record: dict[str, Any] = {"script": SCRIPT, "job_id": None, "state": None, "exit_code": None}

    def save() -> None:
        record["node_logs"] = [p.name for p in node_logs(run_path)]
        tmp = run_path / (JOB + ".tmp")
        tmp.write_text(dumps(record, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, run_path / JOB)

    reader_gone: list[bool] = []

    def emit(data: bytes) -> None:
        if reader_gone:
            return
        try:
            out.write(data)
            out.flush()
        except BrokenPipeError:  # the wizard reading us was killed: the job is still cancelled, with no one to tell
            reader_gone.append(True)

    def say(text: str) -> None:
        emit(f"[slurm] {text}\n".encode())

    signals: list[int] = []
    parent = os.getppid()

    def on_signal(signum, _frame) -> None:
        signals.append(signum)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    try:
        proc = _run(["sbatch", "--parsable", str(run_path / SCRIPT)])
    except FileNotFoundError:
        say("sbatch not found: SLURM's client tools (slurm-client) are not installed here")
        record["state"] = "NOT_SUBMITTED"
        save()
        return 127
    except subprocess.SubprocessError as exc:
        say(f"sbatch did not answer: {exc}")
        record["state"] = "NOT_SUBMITTED"
        save()
        return 1
    if proc.returncode != 0:
        say("sbatch refused the job: " + (proc.stderr.strip() or proc.stdout.strip()))
        record["state"] = "NOT_SUBMITTED"
        save()
        return proc.returncode
    job_id = proc.stdout.strip().split(";")[0]
    record["job_id"] = job_id
    record["submitted_at"] = time.time()
    save()
    say(f"submitted batch job {job_id}")
    tails: dict[Path, _Tail] = {}
    cancelled = 0
    last_state = None
    info: dict[str, str] | None = None
    gone = 0

    def pump(final: bool = False) -> None:
        for p in [*node_logs(run_path), *run_path.glob(f"batch-{job_id}.log")]:
            if p not in tails:
                tails[p] = _Tail(p, _node_label(p))
        for t in tails.values():
            data = t.read(final)
            if data:
                emit(data)

    while True:
        if cancelled and len(signals) > cancelled and os.getppid() != parent:
            # the wizard is gone: the kernel sent its parent-death signal once per thread of it that exited, one
            # request (a second stop that asks for SIGKILL comes from a wizard that is still there)
            cancelled = len(signals)
        if len(signals) > cancelled:
            cancelled = 1 if cancelled == 0 else len(signals)  # a first stop is a plain scancel, however many came
            cmd = ["scancel", job_id] if cancelled == 1 else ["scancel", "--signal=KILL", "--full", job_id]
            say(f"stop requested: {' '.join(cmd)}")
            record["cancelled"] = True
            try:
                _run(cmd)
            except (OSError, subprocess.SubprocessError) as exc:
                say(f"scancel failed: {exc}")
        pump()
        now = job_info(job_id)
        if now is None:
            gone += 1
            if gone >= 3:  # forgotten by the controller (MinJobAge): ask accounting
                info = accounting(job_id) or info
                break
        else:
            gone = 0
            info = now
            state = now.get("JobState", "")
            if state != last_state:
                last_state = state
                extra = f" on {now.get('NodeList')}" if state == "RUNNING" else (
                    f" ({now.get('Reason')})" if state == "PENDING" and now.get("Reason") not in (None, "None") else "")
                say(f"job {job_id} {state}{extra}")
                record["state"] = state
                if now.get("NodeList") not in (None, "", "(null)"):
                    record["nodes"] = now.get("NodeList")
                save()
            if state in DONE_STATES:
                break
        time.sleep(POLL_S)
    time.sleep(0.2)  # the last bytes of the node logs
    pump(final=True)
    state = (info or {}).get("JobState", "UNKNOWN")
    raw = (info or {}).get("ExitCode", "")
    code = exit_code_of_job(state, raw)
    record.update(state=state, exit_code_raw=raw, exit_code=code, ended_at=time.time())
    if (info or {}).get("NodeList") not in (None, "", "(null)"):
        record["nodes"] = info.get("NodeList") if info else None
    save()
    say(f"job {job_id} ended: {state}, exit code {raw or '?'} (ours: {code})")
    return code


# ----------------------------------------------------------------------------- after the run
def read_job(run_path: Path) -> dict:
    try:
        return json.loads((Path(run_path) / JOB).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def node_reports(run_path: Path, expected: dict | None, not_rehearsed: list[dict] | None = None) -> list[dict]:
    """One report per node log: its ranks, the effective-setup checklist of that node, its losses."""
    from .checklist import checklist_ok, compare, verdict
    from .monitor import parse_log

    reports = []
    for path in node_logs(run_path):
        mon = parse_log(path.read_bytes())
        eff = mon.effective_setup
        items = compare(eff, expected, not_rehearsed=not_rehearsed,
                        unknown_why="this node's ranks did not report their setup") if expected is not None else []
        reports.append({
            "node": _node_label(path), "log": path.name, "ranks": sorted(mon.setups),
            "effective_setup": eff, "checklist": [i.to_dict() for i in items],
            "checklist_ok": checklist_ok(items) if items and eff is not None else None,
            "verdict": verdict(items), "metrics": mon.metric_summary(),
        })
    return reports


def finish_summary(run_path: Path) -> dict:
    """Merge the job record and the per-node reports into ``summary.json``; return the ``slurm`` section."""
    from .records import read_summary

    run_path = Path(run_path)
    summary = read_summary(run_path)
    section = dict(summary.get("slurm") or {})
    section.update(read_job(run_path))
    section["nodes_report"] = node_reports(run_path, summary.get("expected"), summary.get("not_rehearsed"))
    summary["slurm"] = section
    from ..core.redact import Redactor
    from .records import redact_file

    redactor = Redactor()
    for log in [*node_logs(run_path), *run_path.glob("batch-*.log")]:  # written by the job, not through RunDir
        try:
            redact_file(log, redactor)
        except OSError as exc:  # unreadable or a full disk: the summary is still written
            print(f"fsdpds-wizard: cannot redact {log}: {exc}", file=sys.stderr)
    tmp = run_path / "summary.json.tmp"
    tmp.write_text(dumps(redactor.value(summary), indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, run_path / "summary.json")
    return section


def report_lines(section: dict, lang: str | None = None) -> list[str]:
    """The job's end in words: its state and exit code, then one line per node (ranks, checklist verdict, loss); in
    the language (the wizard's unless ``lang``: the run screen's words, part ``screen-run``; a node's verdict, as
    recorded in English, part by part), SLURM's states, node names and paths as written."""
    from ..core.localized import screen
    from .checklist import in_language

    job = section.get("job_id") or screen("run", "slurm.not_submitted", lang)
    values = {"job": job, "state": section.get("state"), "code": section.get("exit_code_raw") or "?"}
    lines = [screen("run", "slurm.job_nodes", lang, nodes=section["nodes"], **values) if section.get("nodes")
             else screen("run", "slurm.job", lang, **values)]
    for node in section.get("nodes_report") or []:
        m = node.get("metrics") or {}
        loss = (screen("run", "slurm.loss", lang, first=f"{m['first_loss']:.4f}", last=f"{m['last_loss']:.4f}")
                if m.get("first_loss") is not None and m.get("last_loss") is not None else "")
        verdict = in_language(node["verdict"], lang) if node.get("verdict") else screen("run", "slurm.no_setup", lang)
        lines.append(screen("run", "slurm.node", lang, host=node["node"], log=node["log"],
                            ranks=node["ranks"] or screen("run", "slurm.no_ranks", lang), verdict=verdict, loss=loss))
    return lines


def _main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "follow":
        return follow(Path(argv[1]))
    print("usage: python -m wizard.run.slurm follow RUN_DIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
