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


CLIPPED = ("schema_version: 1\nbackend: deepspeed\nsharding: {strategy: grads_optimizer}\n"
           "launch: {num_processes: 2, training_loop: trainer, trainer_tool: axolotl}\n"
           "precision: {mixed_precision: 'no'}\ndeepspeed: {extra: {gradient_clipping: 0.5}}\n")


def rehearse_with_a_training_file(tmp_path, name: str, training_file: str) -> LaunchedRun:
    answers = tmp_path / "answers.yaml"
    answers.write_text(CLIPPED)
    (tmp_path / name).write_text(training_file)
    out = tmp_path / f"out_{name}"
    argv = [sys.executable, "-m", "wizard", "--headless", str(answers), "--out", str(out), "--launch", "--rehearse",
            "--training-file", str(tmp_path / name), "--", "--steps", "4"]
    t0 = time.monotonic()
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    return LaunchedRun(proc, out, time.monotonic() - t0)


def test_an_axolotl_file_drives_the_trainer_rehearsal(tmp_path):
    """The user's axolotl YAML gives the Trainer its arguments (micro_batch_size 3 -> per_device_train_batch_size);
    the JSON's concrete clipping equals its max_grad_norm, so the Trainer accepts the pair and trains."""
    run = rehearse_with_a_training_file(tmp_path, "ax.yaml", "base_model: tiny\nsequence_len: 32\n"
                                                             "micro_batch_size: 3\nmax_grad_norm: 0.5\n")
    assert run.proc.returncode == 0, run.explain()
    s = run.summary
    assert s["checklist_ok"] is True and s["training_arguments_from"].endswith("ax.yaml (axolotl YAML)")
    rows = {c["label"]: c for c in s["checklist"]}
    assert rows["Micro batch 3 (DeepSpeed's engine)"]["status"] == "ok"
    assert rows["Gradient clipping 0.5 (DeepSpeed's engine)"]["status"] == "ok"
    assert "ax.yaml (axolotl YAML)" in rows["Trained by the Hugging Face Trainer"]["detail"]


def test_a_training_file_that_differs_from_the_json_fails_as_the_trainer_fails(tmp_path):
    """max_grad_norm 1.0 against the JSON's gradient_clipping 0.5: the Trainer raises its mismatch error before
    training, and the diagnosis names the pair."""
    run = rehearse_with_a_training_file(tmp_path, "ax.yaml", "base_model: tiny\nsequence_len: 32\n"
                                                             "micro_batch_size: 2\nmax_grad_norm: 1.0\n")
    assert run.proc.returncode != 0
    diagnoses = run.summary["diagnosis"]
    first = diagnoses[0]
    assert first["code"] == "trainer-mismatch", diagnoses
    assert "gradient_clipping 0.5 in the JSON, max_grad_norm 1.0 in TrainingArguments" in first["detail"]
