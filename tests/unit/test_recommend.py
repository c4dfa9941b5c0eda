"""The ranked recommendation across FSDP and DeepSpeed (issue 10, "Recommend"): wizard/core/memory/recommend.py.

Properties that can fail: what fits is ranked first and chosen; offload only when nothing without it fits; the
communication order among equals; variants (activation checkpointing, bf16 master weights) only where they decide
fitting; the host memory limit; every candidate passes our own rules (generate: answer rules and the lint of the
rendered files) without an error; bad input names its option.
"""
from __future__ import annotations

import pytest

from wizard.core.answers import answers_from_mapping, default_answers
from wizard.core.answers.generate import generate
from wizard.core.findings import ERROR
from wizard.core.memory.estimate import GIB, EstimateError, estimate
from wizard.core.memory.recommend import (
    OFFLOAD_NONE,
    TWO_NODE_ADDRESS,
    Candidate,
    Recommendation,
    recommend,
)
from wizard.core.memory.shapes import shape_by_name

L8, L70 = shape_by_name("llama-3.1-8b"), shape_by_name("llama-3.1-70b")


def _offload(c: Candidate) -> bool:
    return c.answers["offload.optimizer"] != "none" or c.answers["offload.params"] != "none"


def _stage(c: Candidate) -> str:
    return c.answers["sharding.strategy"]


def _check_order(r: Recommendation) -> None:
    fits = [c.fits for c in r.candidates]
    assert fits == sorted(fits, reverse=True), "a fitting candidate ranked below one that does not fit"
    assert r.chosen is next((c for c in r.candidates if c.fits), None)
    fitting = [c for c in r.candidates if c.fits]
    offload = [c.offload for c in fitting]
    assert offload == sorted(offload), "more offload ranked above less"
    short = [c.shortfall_bytes for c in r.candidates if not c.fits]
    assert short == sorted(short), "a candidate further from fitting ranked above a closer one"


def test_8b_on_8x80_chosen_fits_without_offload():
    r = recommend(shape=L8, gpus_per_node=8, gpu_memory_gib=80)
    _check_order(r)
    assert r.chosen is not None and r.chosen is r.candidates[0]
    assert not _offload(r.chosen) and not r.chosen.answers["training.activation_checkpointing"]
    assert r.chosen.headroom_bytes >= 0.10 * 80 * GIB
    assert r.chosen.reason.startswith("Fits in 80.00 GiB with 8.00 GiB (10%) kept free: ")
    # the least communication that fits: ZeRO-1 fits 8B on 8 x 80 GiB, so nothing with more sharding is above it
    assert r.chosen.label.startswith("DeepSpeed ZeRO-1")
    # offload candidates fit too, but rank below every candidate that fits without it
    offloaded = [i for i, c in enumerate(r.candidates) if _offload(c) and c.fits]
    plain = [i for i, c in enumerate(r.candidates) if not _offload(c) and c.fits]
    assert offloaded and plain and max(plain) < min(offloaded)


def test_70b_on_8x80_no_zero12_without_offload_fits():
    r = recommend(shape=L70, gpus_per_node=8, gpu_memory_gib=80)
    _check_order(r)
    zero12 = [c for c in r.candidates if c.answers.backend == "deepspeed" and not _offload(c)
              and _stage(c) in ("optimizer", "grads_optimizer")]
    assert zero12 and not any(c.fits for c in zero12)
    # 70B x 16 bytes is more than 8 x 80 GiB: whatever fits offloads
    assert r.chosen is not None and _offload(r.chosen)
    assert not any(c.fits and not _offload(c) for c in r.candidates)


def test_8b_on_one_24gib_gpu_needs_offload():
    r = recommend(shape=L8, gpus_per_node=1, gpu_memory_gib=24)
    _check_order(r)
    assert r.chosen is not None and _offload(r.chosen)
    assert "offload" in r.chosen.reason


def test_host_memory_limit_drops_offload_candidates():
    free = recommend(shape=L8, gpus_per_node=1, gpu_memory_gib=24)
    assert free.chosen is not None
    r = recommend(shape=L8, gpus_per_node=1, gpu_memory_gib=24, host_memory_gib=64)
    for c in r.candidates:
        assert c.host_fits == (c.estimate.host_bytes <= 64 * GIB)
        if _offload(c):
            assert not c.fits and "host" in c.reason
    assert r.chosen is None  # without offload 8B does not fit 24 GiB, with it the host is too small
    assert any("nothing fits" in n for n in r.notes)


def test_host_memory_limit_on_8_gpus_keeps_what_the_host_holds():
    r = recommend(shape=L8, gpus_per_node=8, gpu_memory_gib=80, host_memory_gib=100)
    _check_order(r)
    assert r.chosen is not None and r.chosen.estimate.host_bytes <= 100 * GIB
    for c in r.candidates:
        if c.estimate.host_bytes > 100 * GIB:
            assert not c.fits and "host" in c.reason
    # loading 8B in fp32 once per process (ZeRO-1/2 have no sharded loading) is 239 GiB: ZeRO-1 drops out
    assert not r.chosen.label.startswith("DeepSpeed ZeRO-1")


@pytest.mark.parametrize("shape, gpus, gib, nodes", [
    (L8, 8, 80, 1), (L70, 8, 80, 1), (L8, 1, 24, 1), (shape_by_name("gpt2"), 8, 80, 2),
    (shape_by_name("qwen2.5-72b"), 8, 80, 4), (shape_by_name("mistral-7b-v0.1"), 1, 80, 2), (None, 4, 40, 1),
])
def test_every_candidate_passes_our_rules(shape, gpus, gib, nodes):
    r = recommend(shape=shape, params=None if shape else 3_000_000_000,
                  largest_layer_params=None if shape else 100_000_000, gpus_per_node=gpus, gpu_memory_gib=gib,
                  nodes=nodes)
    assert r.candidates
    for c in r.candidates:
        errors = [f.render() for f in generate(c.answers).findings if f.severity == ERROR]
        assert not errors, (c.label, errors)
        assert c.answers["launch.num_processes"] == gpus * nodes and c.answers["launch.num_machines"] == nodes


def test_candidates_with_rule_errors_are_left_out():
    # a base our rules call an error for every target (accelerate launch never applies a YAML rdzv_backend)
    base = default_answers().replace({"launch.rdzv_backend": "c10d"})
    r = recommend(shape=L8, gpus_per_node=8, gpu_memory_gib=80, base=base)
    assert r.candidates == () and r.chosen is None
    assert sum("left out" in n and "rdzv-backend-not-applied" in n for n in r.notes) >= 10
    assert len(r.left_out) >= 10 and all(f"left out {label}: {why}" in r.notes for label, why in r.left_out)


def test_fsdp2_hybrid_needs_several_gpus_per_node():
    r = recommend(shape=L8, gpus_per_node=1, gpu_memory_gib=80, nodes=2)
    assert not any(c.answers["sharding.strategy"].startswith("hybrid") for c in r.candidates)
    assert any("hybrid sharding is not proposed" in n for n in r.notes)


def test_hybrid_only_across_nodes_and_above_full_shard_across_nodes():
    one = recommend(shape=shape_by_name("gpt2"), gpus_per_node=8, gpu_memory_gib=80)
    assert not any("hybrid" in c.label.lower() or "hpZ" in c.label for c in one.candidates)
    two = recommend(shape=shape_by_name("gpt2"), gpus_per_node=8, gpu_memory_gib=80, nodes=2)
    labels = [c.label for c in two.candidates]
    hsdp = next(i for i, s in enumerate(labels) if s.startswith("FSDP2 hybrid"))
    full = labels.index("FSDP2 full shard, bf16")
    hpz = labels.index("DeepSpeed ZeRO-3 + hpZ (ZeRO++ secondary partition per node), bf16")
    assert hsdp < hpz < full  # HSDP keeps every all-gather inside a node; hpZ only backward's
    assert labels.index("DeepSpeed ZeRO-3 + hpZ (ZeRO++ secondary partition per node), bf16") < labels.index(
        "DeepSpeed ZeRO-3, bf16")
    ip, port = TWO_NODE_ADDRESS
    assert all(c.answers["launch.main_process_ip"] == ip and c.answers["launch.main_process_port"] == port
               for c in two.candidates)
    assert any("placeholder" in n for n in two.notes)


def test_two_node_placeholder_is_the_presets():
    import yaml
    from helpers import TEMPLATES

    for name in ("fsdp2-two-node.yaml", "zero3-two-node.yaml"):
        launch = yaml.safe_load((TEMPLATES / name).read_text())["launch"]
        assert (launch["main_process_ip"], launch["main_process_port"]) == TWO_NODE_ADDRESS


def test_base_address_kept():
    base = default_answers().replace({"launch.main_process_ip": "192.168.1.5", "launch.main_process_port": 1234})
    r = recommend(shape=L8, gpus_per_node=8, gpu_memory_gib=80, nodes=2, base=base)
    assert all(c.answers["launch.main_process_ip"] == "192.168.1.5" for c in r.candidates)
    assert not any("placeholder" in n for n in r.notes)


def test_communication_order_among_equals():
    r = recommend(shape=shape_by_name("gpt2"), gpus_per_node=8, gpu_memory_gib=80)
    fitting = [c for c in r.candidates if c.fits and c.offload == OFFLOAD_NONE]
    tiers = [c.tier for c in fitting]
    assert tiers == sorted(tiers)
    labels = [c.label for c in fitting]
    assert labels[0] == "FSDP1 NO_SHARD (DDP-like), bf16"  # gpt2 fits unsharded: least communication
    assert labels.index("DeepSpeed ZeRO-1, bf16") < labels.index("DeepSpeed ZeRO-2, bf16") < labels.index(
        "DeepSpeed ZeRO-3, bf16")


def test_fsdp1_below_fsdp2_at_equal_memory():
    r = recommend(shape=L8, gpus_per_node=8, gpu_memory_gib=80)
    labels = [c.label for c in r.candidates]
    v2, v1 = (r.candidates[labels.index(s)] for s in ("FSDP2 full shard, bf16", "FSDP1 FULL_SHARD, bf16"))
    assert v2.estimate.per_rank.gpu_bytes == v1.estimate.per_rank.gpu_bytes
    assert labels.index(v2.label) < labels.index(v1.label)
    assert "ranked below FSDP2" in v1.reason
    assert any("dataclasses.py:1830-1831" in n for n in r.notes)


def _plain(c: Candidate, r: Recommendation, **undo) -> Candidate | None:
    target = c.answers.replace(undo)
    for other in r.candidates:
        if other.answers.values == target.values:
            return other
    return None


@pytest.mark.parametrize("shape, gpus, gib", [(L8, 8, 80), (L70, 8, 80), (L8, 1, 24), (L8, 4, 40)])
def test_variants_only_where_they_decide_fitting(shape, gpus, gib):
    r = recommend(shape=shape, gpus_per_node=gpus, gpu_memory_gib=gib)
    plain_layout = {"training.activation_checkpointing": False, "precision.ds_bf16_master_weights": None}
    for c in r.candidates:
        bf16 = c.answers["precision.ds_bf16_master_weights"] == "bf16_with_states"
        if c.answers["training.activation_checkpointing"] or bf16:
            plain = _plain(c, r, **plain_layout)  # the layout without the variant is listed, and does not fit
            assert plain is not None and not plain.fits, c.label
        if bf16:  # tried only after activation checkpointing alone did not fit
            ac_only = c.answers.replace({"training.activation_checkpointing": True,
                                         "precision.ds_bf16_master_weights": None})
            assert not estimate(ac_only, shape=shape, gpu_memory_gib=gib * 0.9).fits, c.label
            assert "bf16 master weights" in c.reason
    # activation checkpointing decides for 8B on 4 x 40 GiB (ZeRO-3)
    if (shape, gpus, gib) == (L8, 4, 40):
        ac = [c for c in r.candidates if c.answers["training.activation_checkpointing"] and c.fits]
        assert ac and all("activation checkpointing" in c.reason for c in ac)


def test_bf16_master_weights_offered_where_they_decide():
    # 8B on 2 GPUs: from some GPU size on, ZeRO-3 with bf16 masters and states (10 bytes/param) fits where fp32
    # masters (16) miss; the smallest such size (searched, so the test follows the estimate) is where they decide
    def with_bf16(gib):
        r = recommend(shape=L8, gpus_per_node=2, gpu_memory_gib=gib)
        return r, [c for c in r.candidates if c.answers["precision.ds_bf16_master_weights"] == "bf16_with_states"]
    gib = next(g for g in range(30, 120) if any(c.fits for c in with_bf16(g)[1]))
    r, bf16 = with_bf16(gib)
    assert bf16, [c.label for c in r.candidates]
    assert any(c.fits and c.reason.count("fits only with DeepSpeed's bf16 master weights") for c in bf16)
    for c in r.candidates:  # ranked below every fitting candidate with fp32 masters and the same offload
        if c in bf16 and c.fits:
            i = r.candidates.index(c)
            assert not any(o.fits and o.offload == c.offload and o.answers["precision.ds_bf16_master_weights"]
                           is None for o in r.candidates[i + 1:])


def test_without_shape_no_activations_and_no_max_micro_batch():
    r = recommend(params=7_000_000_000, largest_layer_params=500_000_000, gpus_per_node=8, gpu_memory_gib=80)
    assert r.candidates and all(c.max_micro_batch is None for c in r.candidates)
    assert not any(c.answers["training.activation_checkpointing"] for c in r.candidates)
    assert any("without the model's shape" in n for n in r.notes)


def test_max_micro_batch_keeps_the_headroom():
    r = recommend(shape=L8, gpus_per_node=8, gpu_memory_gib=80, headroom=0.25)
    for c in r.candidates:
        if c.max_micro_batch:
            e = estimate(c.answers, shape=L8, batch=c.max_micro_batch)
            assert e.per_rank.gpu_bytes <= 0.75 * 80 * GIB
            e = estimate(c.answers, shape=L8, batch=c.max_micro_batch + 1)
            assert e.per_rank.gpu_bytes > 0.75 * 80 * GIB


def test_estimate_is_the_candidates_own():
    r = recommend(shape=L8, gpus_per_node=8, gpu_memory_gib=80, batch=2, seq=4096)
    for c in r.candidates:
        e = estimate(c.answers, shape=L8, seq=4096, gpu_memory_gib=80)  # batch from the answers
        assert e.per_rank.gpu_bytes == c.estimate.per_rank.gpu_bytes
        assert c.headroom_bytes == 80 * GIB - e.per_rank.gpu_bytes
        assert c.answers["training.micro_batch_size"] == 2


def test_base_answers_carry_over():
    base, _ = answers_from_mapping({"checkpoint": {"format": "full"}, "precision": {"mixed_precision": "fp16"},
                                    "wrapping": {"layer_classes": ["MyBlock"]}})
    r = recommend(shape=L8, gpus_per_node=2, gpu_memory_gib=48, base=base)
    assert r.candidates
    for c in r.candidates:
        assert c.answers["checkpoint.format"] == "full"
        assert c.answers["precision.mixed_precision"] == "fp16" and c.label.count("fp16")
        assert c.answers["precision.ds_bf16_master_weights"] is None  # bf16 masters only with bf16
        assert c.answers["wrapping.layer_classes"] == ["MyBlock"]


def test_fsdp_candidates_name_the_decoder_block():
    r = recommend(shape=shape_by_name("qwen2.5-7b"), gpus_per_node=8, gpu_memory_gib=80)
    for c in r.candidates:
        want = ["Qwen2DecoderLayer"] if c.answers.backend == "fsdp" else []
        assert c.answers["wrapping.layer_classes"] == want


@pytest.mark.parametrize("kw, option", [
    ({"gpus_per_node": 0}, "--gpus-per-node"), ({"gpu_memory_gib": 0}, "--gpu-memory"),
    ({"gpu_memory_gib": float("nan")}, "--gpu-memory"), ({"nodes": 0}, "--nodes"),
    ({"host_memory_gib": -1}, "--host-memory"), ({"headroom": 1.0}, "--headroom"), ({"headroom": -0.1}, "--headroom"),
    ({"batch": 0}, "--batch"), ({"seq": 0}, "--seq"), ({"shape": None, "params": 0}, "parameter"),
    ({"gpus_per_node": 2 ** 20, "nodes": 2}, "--gpus-per-node"),
])
def test_bad_input_names_the_option(kw, option):
    args = {"shape": L8, "gpus_per_node": 8, "gpu_memory_gib": 80, **kw}
    with pytest.raises(EstimateError, match=option):
        recommend(**args)


def test_two_nodes_of_a_70b_model():
    """The largest case of the benchmark (benchmarks/estimate_speed.py times it as a whole process) answers."""
    r = recommend(shape=L70, gpus_per_node=8, gpu_memory_gib=80, nodes=2, host_memory_gib=1024)
    assert r.candidates


def test_base_with_activation_checkpointing_keeps_it():
    base = default_answers().replace({"training.activation_checkpointing": True})
    r = recommend(shape=L8, gpus_per_node=1, gpu_memory_gib=24, base=base)
    assert r.candidates and all(c.answers["training.activation_checkpointing"] for c in r.candidates)
    assert len({c.label for c in r.candidates}) == len(r.candidates)  # no variant twice


def test_bf16_master_weights_decide_the_host():
    # 8B on one GPU: ZeRO-2 with optimizer offload needs more host memory with fp32 masters (12 bytes per parameter
    # on the CPU) than with bf16 masters (10): at the smallest host size where the bf16 variant fits (searched, so
    # the test follows the estimate), only the bf16 variant fits the host
    gpu = next(g for g in range(16, 80) if any(
        c.fits for c in recommend(shape=L8, gpus_per_node=1, gpu_memory_gib=g).candidates
        if c.label.startswith("DeepSpeed ZeRO-2 + optimizer offload")))

    def z2_at(host):
        r = recommend(shape=L8, gpus_per_node=1, gpu_memory_gib=gpu, host_memory_gib=host)
        return r, [c for c in r.candidates if c.label.startswith("DeepSpeed ZeRO-2 + optimizer offload")]
    host = next(h for h in range(64, 400, 2) if any(c.fits for c in z2_at(h)[1]))
    r, z2 = z2_at(host)
    _check_order(r)
    plain = [c for c in z2 if c.answers["precision.ds_bf16_master_weights"] is None]
    bf16 = [c for c in z2 if c.answers["precision.ds_bf16_master_weights"] == "bf16"]
    assert plain and not any(c.fits for c in plain) and all(c.host_fits is False for c in plain if
                                                             c.headroom_bytes >= 0.1 * gpu * GIB)
    assert bf16 and bf16[0].fits and "fits the host only with DeepSpeed's bf16 master weights" in bf16[0].reason
    # without a host limit the variant is never tried
    assert not any(c.answers["precision.ds_bf16_master_weights"] == "bf16"
                   for c in recommend(shape=L8, gpus_per_node=1, gpu_memory_gib=gpu).candidates)
