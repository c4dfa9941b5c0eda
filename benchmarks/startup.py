"""Start-up cost of headless generation and check, side by side with `accelerate config default`.

Whole-process wall time, interleaved runs (A, B, C, A, B, C, ...) so machine noise hits all commands
alike; reports medians and the ratio. Goal (issue #2): headless generation median <= 150 ms and at
least 10x faster than `accelerate config default --config_file X`.

    .venv/bin/python benchmarks/startup.py [--runs N] [--json benchmarks/results/startup.json]
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


def timed(argv: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{argv} failed with {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "startup.json"))
    args = ap.parse_args()
    env = dict(os.environ, HF_HOME=tempfile.mkdtemp(prefix="hf_home_"))
    wizard = str(BIN / "fsdpds-wizard")
    accelerate = str(BIN / "accelerate")
    preset = str(ROOT / "templates" / "zero3-cpu-offload.yaml")
    check_cfg = ROOT / "templates" / "zero3-cpu-offload.yaml"
    # as after a normal install: our sources byte-compiled (an editable install leaves that to the first run)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "wizard")], check=True)
    work = Path(tempfile.mkdtemp(prefix="fsdpds_bench_"))
    # one generated config for `check`
    subprocess.run([wizard, "--headless", str(check_cfg), "--out", str(work / "checked")], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    commands = {
        "fsdpds-wizard --headless": lambda i: [wizard, "--headless", preset, "--out", str(work / f"h{i}")],
        "fsdpds-wizard check": lambda i: [wizard, "check", str(work / "checked" / "accelerate_config.yaml"),
                                          "--gpus-per-node", "8"],
        "accelerate config default": lambda i: [accelerate, "config", "default", "--config_file",
                                                str(work / f"a{i}.yaml")],
    }
    for _name, make in commands.items():  # warm the page cache once
        timed(make("warm"), env)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for i in range(args.runs):
        for name, make in commands.items():
            samples[name].append(timed(make(i), env))
    med = {name: statistics.median(v) for name, v in samples.items()}
    base = med["accelerate config default"]
    print(f"{'command':<28} {'median ms':>10} {'min ms':>8} {'max ms':>8} {'x faster than accelerate':>26}")
    for name, v in samples.items():
        print(f"{name:<28} {med[name] * 1000:>10.1f} {min(v) * 1000:>8.1f} {max(v) * 1000:>8.1f} "
              f"{base / med[name]:>26.1f}")
    head = med["fsdpds-wizard --headless"]
    goals = {"headless median <= 150 ms": head <= 0.150, "headless >= 10x faster than accelerate": base / head >= 10}
    for goal, ok in goals.items():
        print(f"{'PASS' if ok else 'FAIL'}: {goal}")
    result = {
        "runs": args.runs, "python": platform.python_version(), "machine": platform.machine(),
        "cpus": os.cpu_count(), "median_ms": {k: round(v * 1000, 1) for k, v in med.items()},
        "ratio_accelerate_over_headless": round(base / head, 1), "goals": goals,
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0 if all(goals.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
