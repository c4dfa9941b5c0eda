"""Real CPU rehearsals of the parallelism dimensions, launched through the wizard (``--headless ... --launch
--rehearse``): FSDP2 x tensor parallelism on four gloo ranks (dp_shard 2 x tp 2, the bundled tiny Llama loaded with
Transformers' TP plan) and DeepSpeed ZeRO-2 with Ulysses sequence parallelism on two (sp 2). Each must lower the
loss and show in the checklist what the mesh split.

FSDP2 x TP through accelerate 1.15 needs transformers 4.52 to 5.0 (rule parallelism-fsdp2-tp-transformers): with the
project's transformers 5.24 the wizard refuses to write the config, which one test shows; the rehearsal runs with the
pinned transformers 5.0.0 of constraints/transformers-tp.txt first on PYTHONPATH (tests/overlay.py), as the rule's fix
tells a user to do."""
from __future__ import annotations

import os
import subprocess
import time

import pytest
from e2e_support import RUN_TIMEOUT, LaunchedRun, wizard_argv, write_answers
from helpers import ROOT
from overlay import overlay_env

pytestmark = pytest.mark.e2e

TP_ANSWERS = {"backend": "fsdp", "fsdp_version": 2, "sharding": {"strategy": "full"},
              "parallelism": {"tp_size": 2},
              "wrapping": {"policy": "transformer", "layer_classes": ["LlamaDecoderLayer"]},
              "loading": {"ram_efficient": False},  # with TP on, it fails (rule parallelism-fsdp2-tp-ram-efficient-...)
              "precision": {"mixed_precision": "no"}}
SP_ANSWERS = {"backend": "deepspeed", "sharding": {"strategy": "grads_optimizer"},
              "parallelism": {"sp_size": 4}, "precision": {"mixed_precision": "no"}}


def launch(tmp_path, name: str, body: dict, env: dict | None = None, steps: int = 8) -> LaunchedRun:
    answers = write_answers(tmp_path, name, body)
    out = tmp_path / f"out_{name}"
    t0 = time.monotonic()
    proc = subprocess.run(wizard_argv(answers, out, "--steps", str(steps)), cwd=ROOT, capture_output=True, text=True,
                          timeout=RUN_TIMEOUT, env=env)
    return LaunchedRun(proc, out, time.monotonic() - t0)


def rows(summary: dict) -> dict[str, dict]:
    return {c["label"]: c for c in summary["checklist"]}


def test_fsdp2_tp_with_the_installed_transformers_is_refused_before_anything_runs(tmp_path):
    answers = write_answers(tmp_path, "tp", TP_ANSWERS)
    proc = subprocess.run(wizard_argv(answers, tmp_path / "out"), cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0
    assert "parallelism-fsdp2-tp-transformers" in proc.stderr + proc.stdout
    assert not (tmp_path / "out" / "runs").exists() or not any((tmp_path / "out" / "runs").iterdir())


def test_fsdp2_tp_rehearses_with_its_placements(tmp_path):
    run = launch(tmp_path, "tp", TP_ANSWERS, env=overlay_env(dict(os.environ, HF_HUB_OFFLINE="1")))
    assert run.proc.returncode == 0, run.explain()
    s = run.summary
    assert s["status"] == "completed"
    losses = run.losses
    assert len(losses) == 8 and sum(losses[-3:]) / 3 < losses[0] - 0.3, losses
    eff = s["effective_setup"]
    assert eff["world_size"] == 4 and eff["ranks_reported"] == 4
    assert eff["mesh"] == {"dp_shard": 2, "tp": 2}
    assert eff["arch"] == "llama" and eff["versions"]["torch"]
    q = eff["placements"]["model.layers.N.self_attn.q_proj.weight"]
    assert q["tp"] == "Shard(dim=0)" and "Shard" in q["dp_shard_cp"], q
    assert eff["placements"]["model.layers.N.self_attn.o_proj.weight"]["tp"] == "Shard(dim=1)"
    assert eff["placements"]["model.norm.weight"]["tp"] == "Replicate()"
    got = rows(s)
    assert got["Device mesh dp_shard 2 x tp 2"]["status"] == "ok"
    tp_row = got["Tensor parallelism active over tp 2"]
    assert tp_row["status"] == "ok"
    assert "q_proj/k_proj/v_proj/gate_proj/up_proj: Shard(dim=0) (column-wise)" in tp_row["detail"], tp_row
    assert "o_proj/down_proj: Shard(dim=1) (row-wise)" in tp_row["detail"], tp_row
    assert got["FSDP shards over the dp_shard_cp dimension"]["status"] == "ok"
    assert s["checklist_ok"] is True, s["checklist"]
    assert "processes 8 (ran 4)" in [n["short"] for n in s["not_rehearsed"]]
    assert "Tensor parallelism active over tp 2" in run.proc.stderr


def test_deepspeed_ulysses_rehearses_half_of_each_sequence_per_rank(tmp_path, deepspeed_ops):
    run = launch(tmp_path, "sp", SP_ANSWERS, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert run.proc.returncode == 0, run.explain()
    s = run.summary
    losses = run.losses
    assert len(losses) == 8 and sum(losses[-3:]) / 3 < losses[0] - 0.3, losses
    eff = s["effective_setup"]
    assert eff["zero_stage"] == 2 and eff["arch"] == "llama"
    assert eff["sp_tokens_per_rank"] * 2 == eff["seq_len"]
    got = rows(s)
    assert got["Sequence parallelism active over sp 2"]["status"] == "ok"
    shorts = [n["short"] for n in s["not_rehearsed"]]
    assert "sp 4 (ran 2)" in shorts, shorts
    assert s["checklist_ok"] is True, s["checklist"]


def test_deepspeed_autotp_rehearses_with_split_layers(tmp_path, deepspeed_ops):
    body = {"backend": "deepspeed", "sharding": {"strategy": "grads_optimizer"},
            "parallelism": {"ds_autotp_size": 4}, "precision": {"mixed_precision": "no"}}
    run = launch(tmp_path, "autotp", body, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert run.proc.returncode == 0, run.explain()
    s = run.summary
    assert len(run.losses) == 8
    eff = s["effective_setup"]
    assert eff["arch"] == "llama"
    # the tiny Llama's 2 layers: q/k/v/gate/up (and the LM head) split by rows, o/down by columns
    assert eff["autotp_layers"] == {"LinearLayer": 11, "LinearAllreduce": 4}, eff.get("autotp_layers")
    losses = run.losses
    assert sum(losses[-3:]) / 3 < losses[0] - 0.3, losses
    got = rows(s)
    assert got["DeepSpeed AutoTP active over tp 2"]["status"] == "ok"
    assert "AutoTP 4 (ran 2)" in [n["short"] for n in s["not_rehearsed"]]
    assert s["checklist_ok"] is True, s["checklist"]


HSDP_ANSWERS = {"backend": "fsdp", "fsdp_version": 2, "sharding": {"strategy": "hybrid_full"},
                "launch": {"num_machines": 2, "num_processes": 16, "main_process_ip": "10.0.0.1"},
                "precision": {"mixed_precision": "no"}}


def test_fsdp2_hybrid_sharding_rehearses_two_replicas_of_two_shards(tmp_path):
    """Two machines of eight GPUs, hybrid: rehearsed as dp_replicate 2 x dp_shard 2 on four CPU processes, each
    parameter whole across the replicas and sharded within each."""
    run = launch(tmp_path, "hsdp", HSDP_ANSWERS, steps=6)
    assert run.proc.returncode == 0, run.explain()
    s = run.summary
    assert s["status"] == "completed" and s["checklist_ok"] is True, s["checklist"]
    losses = run.losses
    assert len(losses) == 6 and losses[-1] < losses[0] - 0.3, losses
    eff = s["effective_setup"]
    assert eff["world_size"] == 4 and eff["mesh"] == {"dp_replicate": 2, "dp_shard": 2}
    assert eff["sharding"] == "HYBRID_SHARD" and eff["param_fraction"] <= 0.55
    for by_dim in eff["placements"].values():
        assert by_dim["dp_replicate"] == "Replicate()" and "Shard" in by_dim["dp_shard_cp"], by_dim
    got = rows(s)
    assert got["Sharding strategy HYBRID_SHARD"]["status"] == "ok"
    assert got["Device mesh dp_replicate 2 x dp_shard 2"]["status"] == "ok"
    assert got["Hybrid sharding replicates over dp_replicate 2"]["status"] == "ok"
    assert got["FSDP sharding active: each rank holds half of the parameters"]["status"] == "ok"
    shorts = [n["short"] for n in s["not_rehearsed"]]
    assert "processes 16 (ran 4)" in shorts and "machines 2 (ran 1)" in shorts
    assert not any(n["setting"] == "sharding.strategy" for n in s["not_rehearsed"])
