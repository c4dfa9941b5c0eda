"""Start-up cost of the commands users put in scripts, CI and pre-commit hooks, side by side with a bare Python
that imports yaml (the floor), and with `accelerate config default`.

Whole-process runs, interleaved (floor, headless, check, explain, accelerate, floor, headless, ...) so machine
noise hits every command alike; reports the median wall time of each, its CPU time (user + system of the process,
which load on the machine barely moves) and the ratio of each to the floor. Goals: issue #26, `--headless PRESET
--out DIR`, `check CONFIG` and `explain GROUP` each within 2.0x the floor (medians of at least 11 runs); issue #2,
headless <= 150 ms and at least 10x faster than `accelerate config default`.

The wizard runs from this checkout (PYTHONPATH), through the installed `fsdpds-wizard` entry point, with its
sources byte-compiled as after a normal install.

    .venv/bin/python benchmarks/startup.py [--runs N] [--no-accelerate] [--json benchmarks/results/startup.json]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
FLOOR = "python -c 'import yaml'"
ACCELERATE = "accelerate config default"
GOAL_RATIO = 2.0
MIN_RUNS = 11


def timed(argv: list[str], env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    proc.stderr.close()
    _, status, usage = os.wait4(proc.pid, 0)  # wait4: the child's own CPU time comes with its exit status
    elapsed = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{argv} failed with {proc.returncode}: {err.decode()[-500:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15, help=f"runs of each command (at least {MIN_RUNS})")
    ap.add_argument("--no-accelerate", action="store_true",
                    help="leave out `accelerate config default` (2-3 s a run)")
    ap.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "startup.json"))
    args = ap.parse_args()
    if args.runs < MIN_RUNS:
        ap.error(f"--runs: at least {MIN_RUNS} (the goals are medians of {MIN_RUNS} runs or more)")
    env = dict(os.environ, HF_HOME=tempfile.mkdtemp(prefix="hf_home_"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    python = sys.executable
    wizard = str(BIN / "fsdpds-wizard")
    accelerate = str(BIN / "accelerate")
    # as after a normal install: our sources byte-compiled (an editable install leaves that to the first run)
    subprocess.run([python, "-m", "compileall", "-q", str(ROOT / "wizard")], check=True)
    work = Path(tempfile.mkdtemp(prefix="fsdpds_bench_"))
    # one generated config for `check`
    subprocess.run([wizard, "--headless", "zero3-cpu-offload", "--out", str(work / "checked")], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    config = str(work / "checked" / "accelerate_config.yaml")
    commands = {
        FLOOR: lambda i: [python, "-c", "import yaml"],
        "fsdpds-wizard --headless": lambda i: [wizard, "--headless", "zero3-cpu-offload", "--out", str(work / f"h{i}")],
        "fsdpds-wizard check": lambda i: [wizard, "check", config],
        "fsdpds-wizard explain": lambda i: [wizard, "explain", "offload"],
    }
    if not args.no_accelerate:
        commands[ACCELERATE] = lambda i: [accelerate, "config", "default", "--config_file", str(work / f"a{i}.yaml")]
    for _name, make in commands.items():  # warm the page cache once
        timed(make("warm"), env)
    wall: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for i in range(args.runs):
        for name, make in commands.items():
            w, c = timed(make(i), env)
            wall[name].append(w)
            cpu[name].append(c)
    med = {name: statistics.median(v) for name, v in wall.items()}
    med_cpu = {name: statistics.median(v) for name, v in cpu.items()}
    floor, floor_cpu = med[FLOOR], med_cpu[FLOOR]
    print(f"{args.runs} interleaved runs each; load average (1 min) at the end: {os.getloadavg()[0]:.2f}")
    print(f"{'command':<28} {'median ms':>10} {'min ms':>8} {'max ms':>8} {'x floor':>8} {'cpu ms':>8} "
          f"{'cpu x floor':>12}")
    for name, v in wall.items():
        print(f"{name:<28} {med[name] * 1000:>10.1f} {min(v) * 1000:>8.1f} {max(v) * 1000:>8.1f} "
              f"{med[name] / floor:>8.2f} {med_cpu[name] * 1000:>8.1f} {med_cpu[name] / floor_cpu:>12.2f}")
    head = med["fsdpds-wizard --headless"]
    goals = {f"{name} <= {GOAL_RATIO}x floor": med[name] / floor <= GOAL_RATIO
             for name in ("fsdpds-wizard --headless", "fsdpds-wizard check", "fsdpds-wizard explain")}
    goals["headless median <= 150 ms"] = head <= 0.150
    if ACCELERATE in med:
        goals["headless >= 10x faster than accelerate"] = med[ACCELERATE] / head >= 10
    for goal, ok in goals.items():
        print(f"{'PASS' if ok else 'FAIL'}: {goal}")
    result = {
        "runs": args.runs, "python": platform.python_version(), "machine": platform.machine(),
        "cpus": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()],
        "median_ms": {k: round(v * 1000, 1) for k, v in med.items()},
        "median_cpu_ms": {k: round(v * 1000, 1) for k, v in med_cpu.items()},
        "ratio_to_floor": {k: round(v / floor, 2) for k, v in med.items() if k != FLOOR},
        "cpu_ratio_to_floor": {k: round(v / floor_cpu, 2) for k, v in med_cpu.items() if k != FLOOR},
        "goals": goals, "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    if ACCELERATE in med:
        result["ratio_accelerate_over_headless"] = round(med[ACCELERATE] / head, 1)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0 if all(goals.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
