"""Real CPU rehearsals through the Hugging Face Trainer (issue 25): the zero2 and fsdp2-full-shard-bf16 presets with
``--headless PRESET --trainer hf --launch --rehearse``. transformers' Trainer builds its Accelerator from the written
accelerate config, fills the JSON's "auto" values from training_arguments.json, and trains the bundled tiny Llama; the
checklist compares what it (and DeepSpeed's engine) took with the config, and summary.json says which loop ran."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from e2e_support import RUN_TIMEOUT, LaunchedRun
from helpers import ROOT

pytestmark = pytest.mark.e2e


def rehearse_with_the_trainer(tmp_path, preset: str, steps: int = 6) -> LaunchedRun:
    out = tmp_path / preset
    argv = [sys.executable, "-m", "wizard", "--headless", preset, "--trainer", "hf", "--out", str(out), "--launch",
            "--rehearse", "--", "--steps", str(steps)]
    t0 = time.monotonic()
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    return LaunchedRun(proc, out, time.monotonic() - t0)


@pytest.mark.parametrize("preset,engine", [("zero2", "DeepSpeed's engine"), ("fsdp2-full-shard-bf16", "the Trainer")])
def test_a_preset_rehearses_through_the_trainer(tmp_path, preset, engine):
    run = rehearse_with_the_trainer(tmp_path, preset)
    assert run.proc.returncode == 0, run.explain()
    s = run.summary
    assert s["status"] == "completed" and s["loop"] == "hf-trainer" and s["checklist_ok"] is True, s["checklist"]
    assert s["script"].endswith("train_trainer.py")
    losses = run.losses
    assert len(losses) == 6 and losses[-1] < losses[0] - 0.3, losses
    eff = s["effective_setup"]
    assert eff["loop"] == "hf-trainer" and eff["world_size"] == 2
    rows = {c["label"]: c for c in s["checklist"]}
    for label in (f"Micro batch 8 ({engine})", f"Gradient accumulation 1 ({engine})",
                  f"Gradient clipping 1 ({engine})"):
        assert rows[label]["status"] == "ok", rows.keys()
    assert rows["Trained by the Hugging Face Trainer"]["status"] == "info"
    written = json.loads((run.run_dir / "training_arguments.json").read_text())
    # what the checklist found is what training_arguments.json says (or the Trainer's default where it is silent)
    assert (written.get("per_device_train_batch_size", 8), written.get("gradient_accumulation_steps", 1),
            written.get("max_grad_norm", 1.0)) == (8, 1, 1.0), written
    shorts = [n["short"] for n in s["not_rehearsed"]]
    assert "precision bf16 (ran fp32)" in shorts  # the Trainer refuses bf16 without a bf16 GPU
    assert not any(n["setting"] == "launch.training_loop" for n in s["not_rehearsed"])
