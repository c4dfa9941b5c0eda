"""Launch overhead: ``fsdpds-wizard --headless A --out D --launch`` against the same ``accelerate launch``
typed by hand, side by side in one run.

Both run the same config (DeepSpeed ZeRO-2, two processes, fp32: it runs on CPU as it is, without the
rehearsal's compatibility layer) and the same bundled script with the same arguments and environment.
Runs alternate (wizard, by hand, wizard, ...) so machine noise hits both alike; each gets a fresh free
port. Reported: median wall time of each and the ratio. The wizard's run includes everything it adds:
its start-up, writing the configs and the run directory, reading and parsing the output, the
process-tree watch and summary.json. By hand, the output goes to a log file.

Goal (issue #4): wizard median <= 1.05 x by-hand median.

    .venv/bin/python benchmarks/launch_overhead.py [--runs 5] [--steps 20] [--json PATH]

DeepSpeed JIT-builds its CPU ops on first use; the script builds them once before timing
(TORCH_EXTENSIONS_DIR defaults to ~/.cache/fsdpds-wizard/torch_extensions here).
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

import yaml

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
GOAL = 1.05
sys.path.insert(0, str(ROOT))


def answers(port: int) -> dict:
    return {"schema_version": 1, "backend": "deepspeed", "launch": {"num_processes": 2, "main_process_port": port},
            "sharding": {"strategy": "grads_optimizer"}, "precision": {"mixed_precision": "no"}}


def timed(argv: list[str], env: dict, log: Path | None = None) -> float:
    t0 = time.perf_counter()
    if log is None:
        proc = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        err = proc.stderr
    else:
        with open(log, "wb") as f:
            proc = subprocess.run(argv, cwd=ROOT, env=env, stdout=f, stderr=subprocess.STDOUT)
        err = log.read_bytes()
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:6]}... failed with {proc.returncode}:\n{err.decode(errors='replace')[-3000:]}")
    return dt


def main() -> int:
    from wizard.run.rehearse import prewarm_deepspeed_ops, rehearsal_port

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "launch_overhead.json"))
    args = ap.parse_args()
    os.environ.setdefault("TORCH_EXTENSIONS_DIR", str(Path.home() / ".cache" / "fsdpds-wizard" / "torch_extensions"))
    env = dict(os.environ, OMP_NUM_THREADS="1", CUDA_VISIBLE_DEVICES="", PYTHONUNBUFFERED="1")
    prewarm = prewarm_deepspeed_ops()
    if prewarm.returncode != 0:
        raise SystemExit(prewarm.stderr[-3000:])
    work = Path(tempfile.mkdtemp(prefix="fsdpds_launch_bench_"))
    script = str(ROOT / "templates" / "train_gpt.py")
    wizard = [str(BIN / "fsdpds-wizard")]
    accelerate = str(BIN / "accelerate")
    # one rendered config for the by-hand launches: exactly what the wizard writes
    hand_answers = work / "hand.yaml"
    hand_answers.write_text(yaml.safe_dump(answers(rehearsal_port())))
    subprocess.run(wizard + ["--headless", str(hand_answers), "--out", str(work / "hand")], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    hand_cfg = str(work / "hand" / "accelerate_config.yaml")

    def wizard_run(i: int) -> float:
        a = work / f"w{i}.yaml"
        a.write_text(yaml.safe_dump(answers(rehearsal_port())))
        return timed(wizard + ["--headless", str(a), "--out", str(work / f"w{i}"), "--launch", "--",
                               "--steps", str(args.steps)], env)

    def hand_run(i: int) -> float:
        return timed([accelerate, "launch", "--config_file", hand_cfg, "--main_process_port", str(rehearsal_port()),
                      script, "--steps", str(args.steps)], env, log=work / f"hand{i}.log")

    wizard_run("warm")  # page cache, first-import costs
    hand_run("warm")
    samples: dict[str, list[float]] = {"wizard --launch": [], "accelerate launch by hand": []}
    for i in range(args.runs):
        order = [("wizard --launch", wizard_run), ("accelerate launch by hand", hand_run)]
        if i % 2:
            order.reverse()
        for name, fn in order:
            samples[name].append(fn(i))
    med = {k: statistics.median(v) for k, v in samples.items()}
    # the wizard's own CPU time while it watched each run (from its summary.json): what it adds, without
    # the noise of the training processes themselves
    cpu = [json.loads(p.read_text())["wizard_cpu_s"] for p in sorted(work.glob("w[0-9]*/runs/*/summary.json"))]
    ratio = med["wizard --launch"] / med["accelerate launch by hand"]
    result = {
        "goal_ratio": GOAL, "runs": args.runs, "steps": args.steps, "config": "DeepSpeed ZeRO-2, 2 processes, CPU",
        "python": platform.python_version(), "cpus": os.cpu_count(),
        "samples_s": {k: [round(x, 3) for x in v] for k, v in samples.items()},
        "median_s": {k: round(v, 3) for k, v in med.items()},
        "ratio": round(ratio, 4), "meets_goal": ratio <= GOAL,
        "wizard_cpu_s_while_watching": {"median": round(statistics.median(cpu), 3) if cpu else None,
                                        "samples": cpu},
    }
    for name, values in samples.items():
        print(f"{name:<28} median {med[name]:7.3f} s   runs: " + ", ".join(f"{x:.2f}" for x in values))
    if cpu:
        print(f"wizard's own CPU time while watching a run: median {statistics.median(cpu):.3f} s")
    print(f"ratio wizard / by hand: {ratio:.3f} (goal <= {GOAL}): {'PASS' if ratio <= GOAL else 'FAIL'}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
