"""Shared by the e2e tests: the rehearsed configs, answers files, the wizard command line, run records.

Every DeepSpeed rank finds the ops built once through TORCH_EXTENSIONS_DIR, which tests/conftest.py sets.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

STEPS = 8
RUN_TIMEOUT = 300  # seconds per launch; DeepSpeed's first use of an op may still compile it

# Answers for each rehearsed config: everything else is the catalogue default (transformer wrap of
# LlamaDecoderLayer: the rehearsal adjusts it, as it would for a real user). fp32 on purpose: these runs
# compare FSDP's and DeepSpeed's loss curves, and bf16 rounds differently in each (FSDP keeps fp32
# parameters and computes in bf16, DeepSpeed holds bf16 parameters); bf16 has its own rehearsal tests.
FP32 = {"precision": {"mixed_precision": "no"}}
CASES = {
    "fsdp1_full_shard": {"backend": "fsdp", "fsdp_version": 1, "sharding": {"strategy": "full"},
                         "wrapping": {"policy": "transformer", "layer_classes": ["LlamaDecoderLayer"]}, **FP32},
    "fsdp2_full_shard": {"backend": "fsdp", "fsdp_version": 2, "sharding": {"strategy": "full"},
                         "wrapping": {"policy": "transformer", "layer_classes": ["LlamaDecoderLayer"]}, **FP32},
    "zero2": {"backend": "deepspeed", "sharding": {"strategy": "grads_optimizer"}, **FP32},
    "zero3": {"backend": "deepspeed", "sharding": {"strategy": "full"}, **FP32},
    "zero3_cpu_offload": {"backend": "deepspeed", "sharding": {"strategy": "full"},
                          "offload": {"optimizer": "cpu", "params": "cpu"}, **FP32},
}


def write_answers(folder: Path, name: str, body: dict) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"schema_version": 1, "launch": {"num_processes": 8}, **body}))
    return path


def wizard_argv(answers: Path | str, out: Path, *script_args: str, rehearse: bool = True) -> list[str]:
    """``answers``: an answers file, or a preset name."""
    argv = [sys.executable, "-m", "wizard", "--headless", str(answers), "--out", str(out), "--launch"]
    if rehearse:
        argv.append("--rehearse")
    return argv + ["--", *script_args]


def only_run_dir(out: Path) -> Path:
    runs = sorted(p for p in (out / "runs").iterdir() if p.is_dir())
    assert len(runs) == 1, runs
    return runs[0]


class LaunchedRun:
    def __init__(self, proc: subprocess.CompletedProcess, out: Path, wall_s: float) -> None:
        self.proc = proc
        self.out = out
        self.wall_s = wall_s
        self.run_dir = only_run_dir(out)
        self.summary = json.loads((self.run_dir / "summary.json").read_text())
        self.metrics = [json.loads(line) for line in (self.run_dir / "metrics.jsonl").read_text().splitlines()
                        if line.strip()]

    @property
    def losses(self) -> list[float]:
        return [m["loss"] for m in self.metrics]

    def explain(self) -> str:
        log = (self.run_dir / "log.txt").read_text(errors="replace")
        return f"exit {self.proc.returncode}\nstderr:\n{self.proc.stderr[-3000:]}\nlog tail:\n{log[-4000:]}"


