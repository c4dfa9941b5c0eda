"""The whole estimate, pinned (issue 20): ``Estimate.to_json()`` of representative layouts equals the committed
tests/data/estimate_golden.json, figure for figure and note for note.

Captured before ``estimate()`` was split along its seams (FSDP, DeepSpeed, activations, host, the optimizer step,
the moments of the peak), so the split is shown to change nothing. Every preset with llama-3.1-8b on 80 GiB GPUs,
plus answers for the layouts the presets leave out (ZeRO-0/1, FSDP1 NO_SHARD and HYBRID_SHARD, hpZ, answers whose
written config differs from what was answered, offloaded activations, fp32, gradient accumulation) and a few
``Layout``s with the ZeRO sizes left open. ``UPDATE_GOLDEN=1`` rewrites the file: only for a change of figures that
is meant, named in the CHANGELOG.
"""
from __future__ import annotations

import json
import os
from typing import Any

import pytest
from helpers import ROOT

from wizard.core.answers import default_answers, load_answers_file
from wizard.core.effective.layout import Layout
from wizard.core.memory.estimate import EstimateError, estimate
from wizard.core.memory.shapes import shape_by_name, tinygpt_shape
from wizard.core.presets import preset_paths

GOLDEN = ROOT / "tests" / "data" / "estimate_golden.json"
MODEL = "llama-3.1-8b"
ON_80 = {"gpu_memory_gib": 80}

# name -> (answers changes, estimate keyword arguments); the model is llama-3.1-8b unless the arguments say
ANSWERS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "zero0": ({"backend": "deepspeed", "sharding.strategy": "none", "launch.num_processes": 8}, ON_80),
    "zero0-fp32": ({"backend": "deepspeed", "sharding.strategy": "none", "launch.num_processes": 8,
                    "precision.mixed_precision": "no"}, ON_80),
    "zero1": ({"backend": "deepspeed", "sharding.strategy": "optimizer", "launch.num_processes": 8}, ON_80),
    "zero1-ga4": ({"backend": "deepspeed", "sharding.strategy": "optimizer", "launch.num_processes": 8,
                   "training.gradient_accumulation_steps": 4}, ON_80),
    "zero2-ga1": ({"backend": "deepspeed", "sharding.strategy": "grads_optimizer", "launch.num_processes": 8,
                   "training.gradient_accumulation_steps": 1, "training.activation_checkpointing": True}, ON_80),
    "zero2-nvme-optimizer": ({"backend": "deepspeed", "sharding.strategy": "grads_optimizer",
                              "offload.optimizer": "nvme", "offload.nvme_path": "/nvme"}, ON_80),
    "zero3-hpz": ({"backend": "deepspeed", "sharding.strategy": "hybrid_full", "launch.num_processes": 16,
                   "launch.num_machines": 2, "launch.main_process_ip": "10.0.0.1",
                   "launch.main_process_port": 29500}, ON_80),
    "zero3-bf16-master": ({"backend": "deepspeed", "sharding.strategy": "full", "launch.num_processes": 8,
                           "precision.ds_bf16_master_weights": "bf16"}, ON_80),
    "zero3-optimizer-cpu": ({"backend": "deepspeed", "sharding.strategy": "full", "launch.num_processes": 4,
                             "offload.optimizer": "cpu", "training.micro_batch_size": 4}, ON_80),
    "zero3-buckets": ({"backend": "deepspeed", "sharding.strategy": "full", "launch.num_processes": 8,
                       "deepspeed.reduce_bucket_size": 50_000_000, "deepspeed.sub_group_size": 100_000_000,
                       "prefetch.ds_bucket_size": 20_000_000, "prefetch.ds_max_live_parameters": 300_000_000,
                       "deepspeed.overlap_comm": True}, ON_80),
    "zero2-allgather-overlap": ({"backend": "deepspeed", "sharding.strategy": "grads_optimizer",
                                 "launch.num_processes": 8, "deepspeed.overlap_comm": True,
                                 "deepspeed.allgather_bucket_size": 100_000_000}, ON_80),
    "fsdp1-no-shard": ({"backend": "fsdp", "fsdp_version": 1, "sharding.strategy": "none",
                        "launch.num_processes": 8}, ON_80),
    "fsdp1-hybrid": ({"backend": "fsdp", "fsdp_version": 1, "sharding.strategy": "hybrid_full",
                      "launch.num_processes": 16, "launch.num_machines": 2, "launch.main_process_ip": "10.0.0.1",
                      "launch.main_process_port": 29500}, ON_80),
    "fsdp1-hybrid-zero2": ({"backend": "fsdp", "fsdp_version": 1, "sharding.strategy": "hybrid_grads_optimizer",
                            "launch.num_processes": 16, "launch.num_machines": 2,
                            "launch.main_process_ip": "10.0.0.1", "launch.main_process_port": 29500}, ON_80),
    "fsdp1-sgo-offload": ({"backend": "fsdp", "fsdp_version": 1, "sharding.strategy": "grads_optimizer",
                           "offload.optimizer": "cpu"}, ON_80),
    "fsdp1-full-no-prefetch": ({"backend": "fsdp", "fsdp_version": 1, "sharding.strategy": "full",
                                "prefetch.backward": "none", "launch.num_processes": 8,
                                "loading.ram_efficient": False}, ON_80),
    "fsdp2-none": ({"backend": "fsdp", "fsdp_version": 2, "sharding.strategy": "none"}, ON_80),
    "fsdp2-ga-auto": ({"backend": "fsdp", "fsdp_version": 2, "launch.num_processes": 8,
                       "training.gradient_accumulation_steps": "auto"}, ON_80),
    "fsdp2-ga4-ckpt-offload": ({"backend": "fsdp", "fsdp_version": 2, "launch.num_processes": 8,
                                "training.gradient_accumulation_steps": 4, "training.activation_checkpointing": True,
                                "training.activation_checkpointing_offload": True},
                               {"gpu_memory_gib": 80, "host_memory_gib": 512, "headroom": 0.2}),
    "fsdp2-fp32": ({"backend": "fsdp", "fsdp_version": 2, "launch.num_processes": 8,
                    "precision.mixed_precision": "no"}, {"gpu_memory_gib": 40, "batch": 2, "seq": 4096}),
    "fsdp2-bf16-model": ({"backend": "fsdp", "fsdp_version": 2, "launch.num_processes": 8,
                          "precision.mixed_precision": "no", "precision.model_dtype": "bf16"}, ON_80),
    "fsdp2-gpt2-long-seq": ({"backend": "fsdp", "fsdp_version": 2, "launch.num_processes": 2},
                            {"shape": "gpt2", "seq": 2048, "gpu_memory_gib": 24}),
    "fsdp2-gpt2-default-seq": ({"backend": "fsdp", "fsdp_version": 2, "launch.num_processes": 2},
                               {"shape": "gpt2", "gpu_memory_gib": 24, "host_memory_gib": 1}),
    "zero3-tinygpt": ({"backend": "deepspeed", "sharding.strategy": "full", "launch.num_processes": 2},
                      {"shape": "tinygpt", "gpu_memory_gib": 8}),
    "zero3-params-only": ({"backend": "deepspeed", "sharding.strategy": "full", "launch.num_processes": 8},
                          {"shape": None, "params": 7_000_000_000, "largest_layer_params": 200_000_000,
                           "gpu_memory_gib": 80}),
    "fsdp2-params-no-largest": ({"backend": "fsdp", "fsdp_version": 2, "launch.num_processes": 8},
                                {"shape": None, "params": 7_000_000_000}),
}

# Layouts the answers cannot reach: ZeRO sizes left open ("auto" without the hidden size), own optimizer, bf16 states
LAYOUTS: dict[str, tuple[Layout, dict[str, Any]]] = {
    "layout-zero3-open-sizes": (Layout(target="deepspeed", processes=8, machines=1, mixed_precision="bf16",
                                       model_dtype="fp32", stage=3, own_optimizer=True), ON_80),
    "layout-zero2-open-sizes": (Layout(target="deepspeed", processes=8, machines=1, mixed_precision="bf16",
                                       model_dtype="bf16", stage=2, overlap_comm=True, master_bf16=True,
                                       states_bf16=True, gradient_accumulation_steps=1), ON_80),
    "layout-zero3-nvme": (Layout(target="deepspeed", processes=8, machines=1, mixed_precision="fp16",
                                 model_dtype="fp16", stage=3, offload_optimizer="nvme", offload_param="nvme",
                                 zero_init=True, micro_batch=2), ON_80),
    "layout-fsdp1-shard-grad-op": (Layout(target="fsdp1", processes=4, machines=1, mixed_precision="fp8",
                                          model_dtype="fp32", fsdp_strategy="SHARD_GRAD_OP", reshard=False,
                                          shard_group=4, prefetch=False, ram_efficient_loading=True), ON_80),
}


def _shape(name: str | None):
    if name is None:
        return None
    return tinygpt_shape() if name == "tinygpt" else shape_by_name(name)


def _kwargs(kw: dict[str, Any]) -> dict[str, Any]:
    kw = dict(kw)
    kw["shape"] = _shape(kw.pop("shape", MODEL))
    return kw


# Input the estimate refuses, one or several faults at once (the first checked is the one named): name -> arguments
ERRORS: dict[str, dict[str, Any]] = {
    "error-no-params": {"shape": None},
    "error-zero-params": {"shape": None, "params": 0},
    "error-largest-over-params": {"shape": None, "params": 10, "largest_layer_params": 11},
    "error-largest-negative-and-batch": {"shape": None, "params": 10, "largest_layer_params": -1, "batch": 0},
    "error-batch-and-seq": {"batch": 0, "seq": 0},
    "error-seq-and-gpu": {"seq": 0, "gpu_memory_gib": 0},
    "error-gpu-and-headroom": {"gpu_memory_gib": -1, "headroom": 1.0},
    "error-headroom-and-host": {"gpu_memory_gib": 80, "headroom": -0.1, "host_memory_gib": 0},
    "error-host": {"host_memory_gib": 0},
}


def _error(kw: dict[str, Any]) -> dict[str, Any]:
    try:
        estimate(default_answers(), **_kwargs(kw))
    except EstimateError as exc:
        return {"error": str(exc)}
    raise AssertionError(f"estimate took {kw}")


def cases() -> dict[str, Any]:
    """Every pinned case: name -> a function giving what is pinned (the estimate's JSON, or the error's words)."""
    out: dict[str, Any] = {}
    for name, path in sorted(preset_paths().items()):
        out[f"preset-{name}"] = (lambda p=path: estimate(load_answers_file(p)[0], **_kwargs(ON_80)).to_json())
    for name, (changes, kw) in ANSWERS.items():
        out[name] = (lambda c=changes, k=kw: estimate(default_answers().replace(c), **_kwargs(k)).to_json())
    for name, (lay, kw) in LAYOUTS.items():
        out[name] = (lambda lo=lay, k=kw: estimate(lo, **_kwargs(k)).to_json())
    for name, kw in ERRORS.items():
        out[name] = (lambda k=kw: _error(k))
    return out


def current() -> dict[str, Any]:
    # through JSON, so that the comparison sees what a file holds (tuples as lists, float text round trips exactly)
    return {name: json.loads(json.dumps(make())) for name, make in cases().items()}


def test_golden_covers_every_preset_and_case():
    golden = json.loads(GOLDEN.read_text())
    assert sorted(golden) == sorted(cases())
    assert len(preset_paths()) >= 8


@pytest.mark.parametrize("name", sorted(cases()))
def test_estimate_json_is_the_golden(name):
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(current(), indent=1, sort_keys=True) + "\n")
    golden = json.loads(GOLDEN.read_text())
    got = json.loads(json.dumps(cases()[name]()))
    assert got == golden[name]
