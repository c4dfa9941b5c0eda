"""Whole-process speed of `fsdpds-wizard estimate`, side by side with `accelerate estimate-memory` (issue 10).

Interleaved runs (A, B, C, A, B, C, ...), each a new process, so machine noise hits all commands alike; medians,
the ratio, and the goals: our estimate's median <= 150 ms, with a shipped shape name and with a config.json, and
`recommend` for a 70B model on two nodes of eight GPUs (every candidate estimated and ranked) <= 1 s.

    .venv/bin/python benchmarks/estimate_speed.py [--runs N] [--json benchmarks/results/estimate_speed.json]

`accelerate estimate-memory` cannot read a local folder offline: ``create_empty_model`` always asks the Hub first
(accelerate/commands/estimate.py:105 ``verify_on_hub`` -> ``huggingface_hub.model_info``, which rejects a path as a
repo id, and HF_HUB_OFFLINE=1 refuses the request). So the accelerate side runs accelerate's own
``estimate_command`` in a fresh process with only that lookup answered locally (library ``transformers`` and the
folder's config.json, what the Hub would return); everything after it (AutoConfig.from_pretrained on the folder,
the meta-device model, ``calculate_maximum_sizes``, the table) is accelerate's code, offline (HF_HUB_OFFLINE=1).
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
sys.path.insert(0, str(ROOT))
GOAL_S = 0.150
RECOMMEND_GOAL_S = 1.0
RECOMMEND = "fsdpds-wizard recommend 70B on 2 x 8 GPUs"
MODEL = "llama-3.1-8b"
PRESET = "fsdp2-full-shard-bf16"

ACCELERATE_OFFLINE = r"""
import json, sys, types
import accelerate.commands.estimate as est
folder = sys.argv[1]
config = json.load(open(folder + "/config.json"))
# the one Hub call, answered from the folder (what model_info returns: the library and the config)
est.verify_on_hub = lambda repo, token=None: types.SimpleNamespace(library_name="transformers", config=config)
parser = est.estimate_command_parser()
est.estimate_command(parser.parse_args([folder, "--dtypes", "float32", "float16"]))
"""


def timed(argv: list[str], env: dict) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{argv} failed with {proc.returncode}: {proc.stderr[-800:]}")
    return elapsed, proc.stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "estimate_speed.json"))
    args = ap.parse_args(argv)
    if args.runs < 7:
        raise SystemExit("--runs: at least 7 runs each")
    from wizard.core.memory import shapes

    work = Path(tempfile.mkdtemp(prefix="fsdpds_estimate_speed_"))
    folder = work / MODEL
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(shapes.to_config_dict(shapes.shape_by_name(MODEL)), indent=1))
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_HOME=str(work / "hf_home"), TRANSFORMERS_OFFLINE="1")
    # as after a normal install: our sources byte-compiled (an editable install leaves that to the first run)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "wizard")], check=True)
    wizard = str(BIN / "fsdpds-wizard")
    commands = {
        f"fsdpds-wizard estimate --model {MODEL}": [wizard, "estimate", PRESET, "--model", MODEL, "--format", "json"],
        "fsdpds-wizard estimate --model CONFIG.json": [wizard, "estimate", PRESET, "--model",
                                                       str(folder / "config.json"), "--format", "json"],
        "accelerate estimate-memory DIR (offline)": [sys.executable, "-c", ACCELERATE_OFFLINE, str(folder)],
        RECOMMEND: [wizard, "recommend", "--model", "llama-3.1-70b", "--gpus-per-node", "8", "--gpu-memory", "80",
                    "--nodes", "2", "--host-memory", "1024", "--format", "json"],
    }
    outputs = {}
    for name, cmd in commands.items():  # warm the page cache once, and keep what each printed
        outputs[name] = timed(cmd, env)[1]
    ours = [json.loads(outputs[name]) for name in list(commands)[:2]]
    assert ours[0]["model"]["params"] == ours[1]["model"]["params"], "the name and the config.json disagree"
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, cmd in commands.items():
            samples[name].append(timed(cmd, env)[0])
    med = {name: statistics.median(v) for name, v in samples.items()}
    acc = med["accelerate estimate-memory DIR (offline)"]
    print(f"{'command':<46} {'median ms':>10} {'min ms':>8} {'max ms':>8} {'accelerate / this':>18}")
    for name, v in samples.items():
        print(f"{name:<46} {med[name] * 1000:>10.1f} {min(v) * 1000:>8.1f} {max(v) * 1000:>8.1f} "
              f"{acc / med[name]:>18.1f}")
    goals = {f"estimate --model {MODEL} median <= 150 ms": med[list(commands)[0]] <= GOAL_S,
             "estimate --model CONFIG.json median <= 150 ms": med[list(commands)[1]] <= GOAL_S,
             "recommend 70B on 2 x 8 GPUs median <= 1 s": med[RECOMMEND] <= RECOMMEND_GOAL_S}
    for goal, ok in goals.items():
        print(f"{'PASS' if ok else 'FAIL'}: {goal}")
    table = next((line for line in outputs["accelerate estimate-memory DIR (offline)"].splitlines()
                  if "float16" in line), "").strip()
    result = {
        "runs": args.runs, "python": platform.python_version(), "machine": platform.machine(),
        "cpus": os.cpu_count(), "model": MODEL, "preset": PRESET, "params": ours[0]["model"]["params"],
        "median_ms": {k: round(v * 1000, 1) for k, v in med.items()},
        "min_ms": {k: round(min(v) * 1000, 1) for k, v in samples.items()},
        "ratio_accelerate_over_ours": {k: round(acc / med[k], 1) for k in list(commands)[:2]},
        "accelerate_fp16_row": table, "goals": goals, "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0 if all(goals.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
