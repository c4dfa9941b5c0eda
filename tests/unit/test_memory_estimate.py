"""The memory estimate (issue 10): bytes per parameter per target/precision/offload, activations, fits, the CLI.

Expected numbers are hand arithmetic written here (Ψ = 1,000,000 parameters, N = 4 ranks unless said), not taken
from the code under test.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import ROOT

from wizard.cli import main
from wizard.core.answers import default_answers
from wizard.core.memory import deepspeed_estimator as dse
from wizard.core.memory.estimate import BREAKDOWN_KEYS, CUDA_CONTEXT_BYTES, PHASES, EstimateError, estimate
from wizard.core.memory.shapes import shape_by_name

P = 1_000_000
LARGEST = 10_000
GIB = 2 ** 30


def answers(**changes):
    values = {"launch.num_processes": 4}
    values.update({k.replace("__", "."): v for k, v in changes.items()})
    return default_answers().replace(values)


def per_param(a, **kw):
    e = estimate(a, params=P, largest_layer_params=LARGEST, **kw)
    b = e.per_rank.breakdown
    return (b["parameters"] / P, b["gradients"] / P, b["optimizer_states"] / P), e


# (answers changes, (params, grads, optimizer) bytes per parameter on one rank's GPU), N = 4
CASES = [
    # FSDP with bf16 mixed precision: accelerate upcasts to fp32: (4 + 4 + 8) / 4
    ({"backend": "fsdp", "fsdp_version": 2}, (1.0, 1.0, 2.0)),
    ({"backend": "fsdp", "fsdp_version": 1}, (1.0, 1.0, 2.0)),
    # FSDP, bf16 model without mixed precision: (2 + 2 + 4) / 4
    ({"backend": "fsdp", "precision__mixed_precision": "no", "precision__model_dtype": "bf16"}, (0.5, 0.5, 1.0)),
    # FSDP fp32 without mixed precision: 16 / 4
    ({"backend": "fsdp", "precision__mixed_precision": "no"}, (1.0, 1.0, 2.0)),
    # SHARD_GRAD_OP keeps the states sharded too
    ({"backend": "fsdp", "sharding__strategy": "grads_optimizer"}, (1.0, 1.0, 2.0)),
    # FSDP1 NO_SHARD: everything replicated: 4 + 4 + 8
    ({"backend": "fsdp", "fsdp_version": 1, "sharding__strategy": "none"}, (4.0, 4.0, 8.0)),
    # FSDP2 has no NO_SHARD: "none" is written as reshard_after_forward false, the states stay sharded
    ({"backend": "fsdp", "sharding__strategy": "none"}, (1.0, 1.0, 2.0)),
    # FSDP offload: one switch, everything leaves the GPU
    ({"backend": "fsdp", "offload__params": "cpu"}, (0.0, 0.0, 0.0)),
    # DeepSpeed bf16: 16-bit params 2 (sharded at 3), 16-bit grads 2 (sharded from 2), fp32 master + Adam 12 / N
    ({"backend": "deepspeed", "sharding__strategy": "optimizer"}, (2.0, 2.0, 3.0)),
    ({"backend": "deepspeed", "sharding__strategy": "grads_optimizer"}, (2.0, 0.5, 3.0)),
    ({"backend": "deepspeed", "sharding__strategy": "full"}, (0.5, 0.5, 3.0)),
    # bf16 master weights: (2 + 8) / 4; with bf16 optimizer states too: (2 + 4) / 4
    ({"backend": "deepspeed", "precision__ds_bf16_master_weights": "bf16"}, (0.5, 0.5, 2.5)),
    ({"backend": "deepspeed", "precision__ds_bf16_master_weights": "bf16_with_states"}, (0.5, 0.5, 1.5)),
    # "fp32" master weights is DeepSpeed's default
    ({"backend": "deepspeed", "precision__ds_bf16_master_weights": "fp32"}, (0.5, 0.5, 3.0)),
    # fp16 keeps fp32 masters the same way
    ({"backend": "deepspeed", "precision__mixed_precision": "fp16"}, (0.5, 0.5, 3.0)),
    # DeepSpeed fp32 (no mixed precision), ZeRO-2: params 4, grads 4 / 4, master 4 + Adam 8 over 4
    ({"backend": "deepspeed", "sharding__strategy": "grads_optimizer", "precision__mixed_precision": "no"},
     (4.0, 1.0, 3.0)),
    # ZeRO-0 with bf16: FP16_UnfusedOptimizer: 2 params, 2 bf16 + 4 fp32 grads at the step, 12 states, none sharded
    ({"backend": "deepspeed", "sharding__strategy": "none"}, (2.0, 6.0, 12.0)),
    ({"backend": "deepspeed", "sharding__strategy": "none", "precision__mixed_precision": "fp16"}, (2.0, 6.0, 12.0)),
    # ZeRO-0 fp32: the torch optimizer on the module's parameters, nothing sharded
    ({"backend": "deepspeed", "sharding__strategy": "none", "precision__mixed_precision": "no"}, (4.0, 4.0, 8.0)),
    # ZeRO-1/3 fp32: DeepSpeed still clones an fp32 master (4) next to the fp32 parameters; Adam 8, over 4
    ({"backend": "deepspeed", "sharding__strategy": "optimizer", "precision__mixed_precision": "no"},
     (4.0, 4.0, 3.0)),
    ({"backend": "deepspeed", "sharding__strategy": "full", "precision__mixed_precision": "no"}, (1.0, 1.0, 3.0)),
    # optimizer offload: the states (and, from ZeRO-2, the gradient partition) leave the GPU
    ({"backend": "deepspeed", "sharding__strategy": "optimizer", "offload__optimizer": "cpu"}, (2.0, 2.0, 0.0)),
    ({"backend": "deepspeed", "sharding__strategy": "grads_optimizer", "offload__optimizer": "cpu"},
     (2.0, 0.0, 0.0)),
    ({"backend": "deepspeed", "offload__optimizer": "cpu"}, (0.5, 0.0, 0.0)),
    ({"backend": "deepspeed", "offload__optimizer": "cpu", "offload__params": "cpu"}, (0.0, 0.0, 0.0)),
    ({"backend": "deepspeed", "offload__optimizer": "nvme", "offload__params": "nvme",
      "offload__nvme_path": "/nvme"}, (0.0, 0.0, 0.0)),
    # parameter offload below ZeRO-3 is not possible: the parameters stay
    ({"backend": "deepspeed", "sharding__strategy": "grads_optimizer", "offload__params": "cpu"},
     (2.0, 0.5, 3.0)),
]


@pytest.mark.parametrize("changes, expected", CASES, ids=[str(i) for i in range(len(CASES))])
def test_bytes_per_parameter(changes, expected):
    got, e = per_param(answers(**changes))
    assert got == pytest.approx(expected)
    assert e.bytes_per_param["optimizer_states"] == pytest.approx(expected[2])


def test_hybrid_shards_within_the_host():
    """HYBRID_SHARD on 2 hosts x 4 GPUs shards over 4, not 8: 16 / 4 bytes per parameter."""
    a = default_answers().replace({"launch.num_processes": 8, "launch.num_machines": 2,
                                   "sharding.strategy": "hybrid_full"})
    got, e = per_param(a)
    assert got == pytest.approx((1.0, 1.0, 2.0)) and e.shard_degree == 4
    full = default_answers().replace({"launch.num_processes": 8, "launch.num_machines": 2})
    assert per_param(full)[0] == pytest.approx((0.5, 0.5, 1.0))


def test_deepspeed_hpz_adds_a_secondary_partition():
    """ZeRO++ hpZ on 2 hosts x 4 GPUs: 2/8 primary + 2/4 secondary bytes of 16-bit parameters."""
    a = default_answers().replace({"backend": "deepspeed", "launch.num_processes": 8, "launch.num_machines": 2,
                                   "sharding.strategy": "hybrid_full"})
    assert per_param(a)[0][0] == pytest.approx(0.25 + 0.5)


def test_offloaded_bytes_land_on_the_host():
    # ZeRO-3, both offloaded, 4 ranks on one host: params 2/4, grads (4 + 2)/4, optimizer 12/4 per rank, x4 ranks
    _, e = per_param(answers(backend="deepspeed", offload__optimizer="cpu", offload__params="cpu"))
    h = e.host_breakdown
    assert h["offloaded_parameters"] == 2 * P
    assert h["offloaded_gradients"] == 6 * P
    assert h["offloaded_optimizer_states"] == 12 * P
    # zero.Init (ram_efficient): each process builds its share, a layer at a time, fp32 load dtype
    assert h["model_load"] == LARGEST * 4 * 4
    assert e.host_bytes == sum(h.values())
    # FSDP offload: the whole 16 bytes per parameter on the host; one fp32 copy read by one process
    _, f = per_param(answers(backend="fsdp", offload__params="cpu"))
    assert f.host_breakdown["offloaded_parameters"] + f.host_breakdown["offloaded_gradients"] \
        + f.host_breakdown["offloaded_optimizer_states"] == 16 * P
    assert f.host_breakdown["model_load"] == 4 * P
    # without ram-efficient loading every process reads the model
    _, g = per_param(answers(backend="fsdp", loading__ram_efficient=False))
    assert g.host_breakdown["model_load"] == 4 * 4 * P


def test_gathered_units_and_buckets():
    # ZeRO-3, bf16: largest layer + the default prefetch bucket (5e7, capped at the model) in 2 bytes
    _, e = per_param(answers(backend="deepspeed"))
    assert e.per_rank.breakdown["gathered"] == (LARGEST + P) * 2
    # ZeRO-2 default (overlap_comm off below stage 3): one reduce bucket + one all-gather bucket, capped at Ψ
    _, z2 = per_param(answers(backend="deepspeed", sharding__strategy="grads_optimizer"))
    assert z2.per_rank.breakdown["buckets"] == (P + P) * 2 and z2.per_rank.breakdown["gathered"] == 0
    _, z2o = per_param(answers(backend="deepspeed", sharding__strategy="grads_optimizer",
                               deepspeed__overlap_comm=True))
    assert z2o.per_rank.breakdown["buckets"] == (2 * P + P) * 2
    # FSDP full shard without a shape: two units (current + prefetched) of the largest layer in bf16
    _, f = per_param(answers(backend="fsdp"))
    assert f.per_rank.breakdown["gathered"] == 2 * LARGEST * 2
    _, nopf = per_param(answers(backend="fsdp", fsdp_version=1, prefetch__backward="none"))
    assert nopf.per_rank.breakdown["gathered"] == LARGEST * 2
    # FSDP2 has no prefetch setting in the config: it prefetches the next unit whatever prefetch.backward says
    _, v2 = per_param(answers(backend="fsdp", prefetch__backward="none"))
    assert v2.per_rank.breakdown["gathered"] == 2 * LARGEST * 2
    # SHARD_GRAD_OP: the whole model stays gathered between forward and backward
    _, sgo = per_param(answers(backend="fsdp", sharding__strategy="grads_optimizer"))
    assert sgo.per_rank.breakdown["gathered"] == P * 2


def _peak_is_consistent(pr) -> None:
    assert pr.phase in PHASES and set(pr.phases) == set(PHASES)
    assert pr.gpu_bytes == pr.phases[pr.phase] == max(pr.phases.values())
    assert pr.gpu_bytes == sum(pr.breakdown.values()) - sum(pr.not_at_peak.values())
    assert all(0 < v <= pr.breakdown[k] for k, v in pr.not_at_peak.items())


def test_the_peak_is_the_sum_less_what_its_moment_lacks_and_overhead_is_stated():
    _, e = per_param(answers())
    assert set(e.per_rank.breakdown) == set(BREAKDOWN_KEYS)
    _peak_is_consistent(e.per_rank)
    assert e.per_rank.breakdown["overhead"] == CUDA_CONTEXT_BYTES == 1343 * 2 ** 20


LLAMA_1B = shape_by_name("llama-3.2-1b")  # h 2048, i 8192, 16 layers, vocab 128256


def test_activations_llama_and_checkpointing():
    s, b, h, layers, vocab = 1024, 2, 2048, 16, 128256
    sbh = s * b * h
    coef = 21 + 8 * 8192 / 2048  # 53: the measured Llama coefficient at i/h = 4 (transformers, CPU)
    e = estimate(answers(), shape=LLAMA_1B, batch=b, seq=s)
    assert e.per_rank.breakdown["activations"] == int(coef * sbh * layers)
    # bf16 logits held by the output + the loss's saved fp32 log-softmax + two fp32 gradients in its backward
    assert e.per_rank.breakdown["logits"] == b * s * vocab * (2 + 4 + 8)
    ac = estimate(answers(training__activation_checkpointing=True), shape=LLAMA_1B, batch=b, seq=s)
    # 2sbh per layer kept, plus the one layer recomputed in backward
    assert ac.per_rank.breakdown["activations"] == 2 * sbh * layers + int(coef * sbh)
    assert ac.per_rank.breakdown["activations"] < e.per_rank.breakdown["activations"] / 5
    # the recomputed layer comes after the loss's peak: only the part of the logits peak above it is added
    assert ac.per_rank.breakdown["logits"] == pytest.approx(b * s * vocab * 14 - coef * sbh, abs=4)
    assert ac.per_rank.gpu_bytes - e.per_rank.gpu_bytes == pytest.approx(
        (2 * layers + coef) * sbh - coef * sbh * layers - coef * sbh, abs=8)
    off = estimate(answers(training__activation_checkpointing=True, training__activation_checkpointing_offload=True),
                   shape=LLAMA_1B, batch=b, seq=s)
    assert off.per_rank.breakdown["activations"] == int(coef * sbh)
    assert off.host_breakdown["offloaded_activations"] == 2 * sbh * layers * 4  # four ranks on the host


def test_activations_gpt2():
    shape = shape_by_name("gpt2")  # h 768, 12 heads, 12 layers
    s, b = 512, 3
    e = estimate(answers(), shape=shape, batch=b, seq=s)
    # (64 + 6 a s / h) s b h per layer, measured for transformers' GPT2 block
    assert e.per_rank.breakdown["activations"] == int(s * b * 768 * (64 + 6 * 12 * s / 768) * 12)
    # fp32 training doubles the activation bytes; the upcast is a no-op, the loss's fp32 buffers stay
    f = estimate(answers(precision__mixed_precision="no"), shape=shape, batch=b, seq=s)
    assert f.per_rank.breakdown["activations"] == pytest.approx(2 * e.per_rank.breakdown["activations"], abs=2)
    assert f.per_rank.breakdown["logits"] == b * s * 50257 * (4 + 4 + 8)


def test_checkpointing_never_drops_the_held_logits():
    # a small vocabulary: the recomputed layer is bigger than the loss's fp32 buffers, the held logits remain
    from wizard.core.memory.shapes import ModelShape

    shape = ModelShape(name="x", family="llama", vocab_size=256, hidden_size=4096, num_layers=4, num_heads=32,
                       num_kv_heads=8, intermediate_size=14336)
    e = estimate(answers(training__activation_checkpointing=True), shape=shape, batch=1, seq=1024)
    assert e.per_rank.breakdown["logits"] == 1024 * 256 * 2


def test_tinygpt_bundled_model():
    from wizard.core.memory.shapes import param_count, tinygpt_shape

    shape = shape_by_name("tinygpt")  # the bundled script's defaults: vocab 64, d 64, 2 layers, 4 heads, seq 32
    assert shape == tinygpt_shape() and shape.kind == "tinygpt" and not shape.tie_embeddings
    d = 512
    big = tinygpt_shape(vocab=8192, d_model=d, n_layers=4, n_heads=8, seq_len=512)
    # tok + pos embeddings, 4 GPT-2 blocks (12 d^2 + 13 d), ln_f, untied head
    assert param_count(big) == 8192 * d + 512 * d + 4 * (12 * d * d + 13 * d) + 2 * d + 8192 * d
    e = estimate(answers(precision__mixed_precision="no"), shape=big, batch=2, seq=512)
    # fp32: (32 + 4 a/h) sbh per layer for 2-byte activations, doubled
    assert e.per_rank.breakdown["activations"] == pytest.approx(4 * (32 + 4 * 8 / d) * (512 * 2 * d) * 2, abs=4)


@pytest.mark.parametrize("preset", [{}, {"backend": "deepspeed"}, {"training__activation_checkpointing": True}])
def test_monotonic_in_batch_and_seq(preset):
    """The backward peak grows strictly with batch and sequence; the whole peak never shrinks (the optimizer step,
    which holds no activations, can be the higher of the two at small batches)."""
    a = answers(**preset)

    def peaks(**kw):
        e = estimate(a, shape=LLAMA_1B, **kw)
        return e.per_rank.gpu_bytes, e.per_rank.phases["loss"]
    by_batch = [peaks(batch=b, seq=1024) for b in (1, 2, 3, 8)]
    by_seq = [peaks(batch=1, seq=s) for s in (128, 512, 2048, 8192)]
    for rows in (by_batch, by_seq):
        total, backward = [r[0] for r in rows], [r[1] for r in rows]
        assert total == sorted(total) and backward == sorted(set(backward))
        assert total[-1] > total[0]


def test_more_ranks_less_memory_for_sharded_states():
    small = estimate(answers(), params=P, largest_layer_params=LARGEST).per_rank.breakdown
    big = estimate(default_answers().replace({"launch.num_processes": 16}), params=P,
                   largest_layer_params=LARGEST).per_rank.breakdown
    assert big["optimizer_states"] * 4 == small["optimizer_states"]


@pytest.mark.parametrize("gib", [8, 24, 80])
@pytest.mark.parametrize("headroom", [0.0, 0.1, 0.25])
def test_fits_and_max_micro_batch_consistent(gib, headroom):
    """fits = the peak plus the share kept free within the GPU; the largest micro batch is the last that fits."""
    a = answers()
    e = estimate(a, shape=LLAMA_1B, seq=4096, gpu_memory_gib=gib, headroom=headroom)
    assert e.fits is (e.per_rank.gpu_bytes + int(headroom * gib * GIB) <= gib * GIB)
    m = e.max_micro_batch
    assert m is not None
    if m >= 1:
        assert estimate(a, shape=LLAMA_1B, seq=4096, batch=m, gpu_memory_gib=gib, headroom=headroom).fits is True
    assert estimate(a, shape=LLAMA_1B, seq=4096, batch=m + 1, gpu_memory_gib=gib, headroom=headroom).fits is False


def test_fits_none_without_gpu_memory_and_no_batch_without_shape():
    e = estimate(answers(), params=P, largest_layer_params=LARGEST)
    assert e.fits is None and e.max_micro_batch is None
    e = estimate(answers(), params=P, largest_layer_params=LARGEST, gpu_memory_gib=80)
    assert e.fits is True and e.max_micro_batch is None and any("activations" in n for n in e.notes)


def test_micro_batch_from_answers():
    a = answers(training__micro_batch_size=3)
    assert estimate(a, shape=LLAMA_1B).batch == 3
    assert estimate(answers(), shape=LLAMA_1B).batch == 1  # "auto"
    assert estimate(a, shape=LLAMA_1B, batch=5).batch == 5


def test_deepspeed_estimator_side_by_side():
    p = 1_000_000_000
    a = default_answers().replace({"backend": "deepspeed", "launch.num_processes": 8,
                                   "sharding.strategy": "grads_optimizer"})
    ds = estimate(a, params=p, largest_layer_params=LARGEST).deepspeed_estimator
    assert ds["function"] == "estimate_zero2_model_states_mem_needs"
    assert ds["gpu_bytes"] == 2 * p + 18 * p // 8  # DeepSpeed 0.19: 2Ψ + 18Ψ/N
    z3 = estimate(a.replace({"sharding.strategy": "full", "offload.optimizer": "cpu"}), params=p,
                  largest_layer_params=LARGEST).deepspeed_estimator
    assert z3["gpu_bytes"] == 4 * LARGEST + 2 * p // 8 and z3["arguments"]["cpu_offload_params"] is False
    assert z3["cpu_bytes"] == int(p * 16 * 1.5)  # zero_init: 16 B x buffer factor 1.5, one node
    assert estimate(a.replace({"sharding.strategy": "optimizer"}), params=p).deepspeed_estimator is None
    assert estimate(default_answers(), params=p).deepspeed_estimator is None


def test_restated_estimator_published_figures():
    """t5-3b (2851M) on 8 GPUs: 11.28 GiB with DeepSpeed >= 0.14.3 (the docs' 15.93 is the old formula)."""
    _, gpu = dse.estimate_zero2_model_states_mem_needs(2_851_000_000, 8, cpu_offload=False)
    assert round(gpu / GIB, 2) == 11.28


@pytest.mark.parametrize("bad", [{"params": 0}, {"params": 10, "largest_layer_params": 11},
                                 {"params": 10, "batch": 0}, {"params": 10, "seq": 0},
                                 {"params": 10, "gpu_memory_gib": 0}])
def test_estimate_refuses_bad_numbers(bad):
    with pytest.raises(EstimateError):
        estimate(answers(), **bad)


# ---------------------------------------------------------------- the CLI, in-process
def _run(capsys, *argv):
    code = main(["estimate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("preset, model, has_ds", [
    ("fsdp2-full-shard-bf16", ["--model", "llama-3.1-8b"], False),
    ("zero2", ["--model", "gpt2"], True),
    ("zero3-cpu-offload", ["--params", "7000000000", "--largest-layer", "500000000"], True),
])
def test_json_contract(capsys, preset, model, has_ds):
    code, out, err = _run(capsys, preset, *model, "--batch", "2", "--seq", "1024", "--gpu-memory", "80",
                          "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert set(doc["per_rank"]["breakdown"]) == set(BREAKDOWN_KEYS)
    pr = doc["per_rank"]
    assert pr["gpu_bytes"] == sum(pr["breakdown"].values()) - sum(pr["not_at_peak"].values())
    assert pr["phase"] in PHASES and pr["gpu_bytes"] == max(pr["phases"].values())
    assert isinstance(doc["host_bytes"], int) and isinstance(doc["fits"], bool)
    assert doc["model"]["params"] > 0 and doc["model"]["largest_layer_params"] > 0
    assert doc["batch"] == 2 and doc["seq"] == 1024
    assert (doc["deepspeed_estimator"] is not None) is has_ds
    if "--model" in model:
        assert isinstance(doc["max_micro_batch"], int) and doc["max_micro_batch"] >= 2
    else:
        assert doc["max_micro_batch"] is None
    if has_ds:
        assert doc["deepspeed_estimator"]["gpu_bytes"] > 0


def test_json_without_gpu_memory_has_null_fits(capsys):
    code, out, _ = _run(capsys, "zero2", "--params", "1000", "--format", "json")
    assert code == 0 and json.loads(out)["fits"] is None


def test_text_report(capsys):
    code, out, _ = _run(capsys, "zero3-cpu-offload", "--model", "llama-3.2-1b", "--gpu-memory", "24")
    assert code == 0
    assert "GiB" in out and "total" in out and "fits" in out and "estimate_zero3_model_states_mem_needs" in out


def test_config_json_model(capsys, tmp_path):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"model_type": "llama", "hidden_size": 256, "num_hidden_layers": 2,
                               "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 512,
                               "vocab_size": 1000}))
    code, out, err = _run(capsys, "zero2", "--model", str(cfg), "--format", "json")
    assert code == 0, err
    assert json.loads(out)["model"]["params"] > 1000 * 256


@pytest.mark.parametrize("argv, says", [
    (["zero2"], "--model"),
    (["zero2", "--model", "gpt2", "--params", "5"], "do not go together"),
    (["zero2", "--model", "no-such-model-xyz"], "--model no-such-model-xyz"),
    (["zero2", "--params", "0"], "parameter"),
    (["zero2", "--params", "100", "--batch", "0"], "--batch"),
    (["zero2", "--params", "100", "--gpu-memory", "-1"], "--gpu-memory"),
    (["zero2", "--params", "100", "--largest-layer", "200"], "--largest-layer"),
    (["zero2", "--params", "many"], "--params"),
    (["no-such-preset-or-file.yaml", "--params", "100"], "no-such-preset"),
    (["zero2", "--params", "100", "--format", "xml"], "--format"),
])
def test_bad_input_exit_2_one_line(capsys, argv, says):
    code, out, err = _run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and says in err


def test_invalid_answers_exit_2(capsys, tmp_path):
    bad = tmp_path / "answers.yaml"
    bad.write_text("schema_version: 1\nbackend: deepspeed\nsharding:\n  strategy: zero9\n")
    code, _, err = _run(capsys, str(bad), "--params", "100")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "invalid answers" in err


def test_estimate_imports_no_heavy_library():
    probe = ("import sys, io, contextlib\nfrom wizard.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    code = main(['estimate', 'zero3-cpu-offload', '--model', 'llama-3.1-8b', '--format', 'json'])\n"
             "print(code, [m for m in ('torch', 'accelerate', 'deepspeed', 'transformers', 'textual') "
             "if m in sys.modules])")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", "[]"]


def test_nvme_offload_keeps_the_16_bit_partitions_in_host_memory():
    a = answers(backend="deepspeed", offload__optimizer="nvme", offload__params="nvme", offload__nvme_path="/nvme")
    h = estimate(a, params=P, largest_layer_params=LARGEST).host_breakdown
    # four ranks on the host; each keeps its 16-bit parameter partition (below max_in_cpu, 1e9 elements) and its
    # 16-bit gradient partition in host memory; the fp32 master, Adam and fp32 gradients go to the drive
    assert h["offloaded_parameters"] == P * 2 // 4 * 4
    assert h["offloaded_gradients"] == P * 2 // 4 * 4
    assert h["offloaded_optimizer_states"] == 0
    # swap buffers per rank: parameters 5 x 1e8 elements x 2 bytes, optimizer 4 x the partition (+1) x 4 bytes
    assert h["pinned_buffers"] == 4 * (5 * 10 ** 8 * 2 + 4 * (P // 4 + 1) * 4)


def test_zero3_cpu_offload_host_gradients():
    a = answers(backend="deepspeed", offload__optimizer="cpu")
    h = estimate(a, params=P, largest_layer_params=LARGEST).host_breakdown
    # per rank: the fp32 gradient partition the CPU step reads (4 / N) and the 16-bit partition (2 / N), 4 ranks
    assert h["offloaded_gradients"] == (P * 4 // 4 + P * 2 // 4) * 4
    assert h["offloaded_optimizer_states"] == P * 12 // 4 * 4


def test_learned_positions_bound_the_default_sequence():
    assert estimate(answers(), shape=shape_by_name("gpt2")).seq == 1024  # GPT-2 has 1024 positions
    assert estimate(answers(), shape=shape_by_name("tinygpt")).seq == 32  # the bundled script's --seq-len
    assert estimate(answers(), shape=LLAMA_1B).seq == 2048  # RoPE: the default
    e = estimate(answers(), shape=shape_by_name("gpt2"), seq=4096)
    assert e.seq == 4096 and any("1024 learned positions" in n for n in e.notes)


# ------------------------------------------------------------------ the optimizer step
L8 = shape_by_name("llama-3.1-8b")
L8_PARAMS = 8_030_261_248  # the published count of Llama 3.1 8B
ZERO3_8 = {"backend": "deepspeed", "sharding__strategy": "full", "launch__num_processes": 8,
           "precision__mixed_precision": "bf16", "training__activation_checkpointing": True}


def _held_at_step(e):
    b = e.per_rank.breakdown
    return b["parameters"] + b["gradients"] + b["optimizer_states"] + b["buckets"] + b["overhead"]


def test_zero3_step_holds_an_fp32_gradient_sub_group_and_adams_temporary():
    """8B over 8 ranks, ZeRO-3, micro batch 1: the step, not backward, is the peak. It holds one sub-group's fp32
    gradient (min(sub_group_size, the rank's partition) x 4 bytes) and torch AdamW's foreach temporary of the same
    size in fp32, on top of the states (LLaMA-Factory issue 5977: this layout ran out of memory on 24 GiB cards)."""
    e = estimate(answers(**ZERO3_8), shape=L8, batch=1, seq=1024)
    partition = L8_PARAMS / 8
    assert e.per_rank.breakdown["optimizer_step"] > 0
    assert e.per_rank.gpu_bytes == pytest.approx(_held_at_step(e) + min(1e9, partition) * (4 + 4), abs=16)
    assert e.per_rank.phase == "optimizer_step" and set(e.per_rank.not_at_peak) == {"gathered", "activations",
                                                                                      "logits"}
    small = estimate(answers(**ZERO3_8, deepspeed__sub_group_size=100_000_000), shape=L8, batch=1, seq=1024)
    assert small.per_rank.breakdown["optimizer_step"] == pytest.approx(1e8 * (4 + 4), abs=16)
    assert small.per_rank.phases["optimizer_step"] == pytest.approx(_held_at_step(small) + 1e8 * (4 + 4), abs=16)
    assert small.per_rank.gpu_bytes < e.per_rank.gpu_bytes


def test_zero2_step_copies_the_whole_partition_and_bf16_states_halve_it():
    z2 = dict(ZERO3_8, sharding__strategy="grads_optimizer")
    e = estimate(answers(**z2), shape=L8, batch=1, seq=512)
    assert e.per_rank.gpu_bytes == pytest.approx(_held_at_step(e) + L8_PARAMS / 8 * (4 + 4), abs=16)
    half = estimate(answers(**z2, precision__ds_bf16_master_weights="bf16_with_states"), shape=L8, batch=1, seq=512)
    assert half.per_rank.gpu_bytes == pytest.approx(_held_at_step(half) + L8_PARAMS / 8 * (2 + 2), abs=16)


def test_deepspeeds_own_optimizer_has_no_foreach_temporary():
    own = {"optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}}
    e = estimate(answers(**ZERO3_8, deepspeed__extra=own), shape=L8, batch=1, seq=1024)
    # the fp32 gradient copy, and the flattened bf16 gradients it is copied from (2 bytes), no Adam temporary
    assert e.per_rank.gpu_bytes == pytest.approx(_held_at_step(e) + min(1e9, L8_PARAMS / 8) * (4 + 2), abs=16)


@pytest.mark.parametrize("changes", [{"offload__optimizer": "cpu"}, {"backend": "fsdp", "offload__optimizer": "cpu",
                                                                       "offload__params": "cpu"}])
def test_an_offloaded_optimizer_steps_on_the_cpu(changes):
    e = estimate(answers(**{**ZERO3_8, **changes}), shape=L8, batch=1, seq=1024)
    assert e.per_rank.breakdown["optimizer_step"] == 0


def test_fsdp_step_holds_adams_temporary_of_the_local_shard():
    """FSDP2 full shard with mixed precision (fp32 shards): the step holds the states and one fp32 temporary of the
    local shard (4 bytes x params / N); with a large batch backward is the peak and the step adds nothing."""
    fsdp = {"launch__num_processes": 8, "precision__mixed_precision": "bf16",
            "training__activation_checkpointing": True}
    e = estimate(answers(**fsdp), shape=L8, batch=1, seq=256)
    assert e.per_rank.breakdown["optimizer_step"] > 0
    assert e.per_rank.gpu_bytes == pytest.approx(_held_at_step(e) + L8_PARAMS / 8 * 4, abs=16)
    big = estimate(answers(**fsdp), shape=L8, batch=8, seq=4096)
    assert big.per_rank.phase == "loss" and big.per_rank.not_at_peak["optimizer_step"] > 0


def test_max_micro_batch_is_zero_when_the_step_alone_does_not_fit():
    e = estimate(answers(**ZERO3_8), shape=L8, batch=1, seq=1024)
    step_gib = e.per_rank.gpu_bytes / 2 ** 30  # batch 1: the step is the peak
    kw = {"shape": L8, "headroom": 0.0}
    assert estimate(answers(**ZERO3_8), gpu_memory_gib=step_gib - 0.01, **kw).max_micro_batch == 0
    assert estimate(answers(**ZERO3_8), seq=1024, gpu_memory_gib=step_gib + 0.01, **kw).max_micro_batch >= 1
    # with 10% of the GPU kept free (the default) the step needs that much more
    assert estimate(answers(**ZERO3_8), shape=L8, seq=1024, gpu_memory_gib=step_gib + 0.01).max_micro_batch == 0
    assert estimate(answers(**ZERO3_8), shape=L8, seq=1024, gpu_memory_gib=step_gib / 0.9 + 0.01).max_micro_batch >= 1


def test_fsdp2_none_is_estimated_as_what_is_written_reshard_false():
    """FSDP2 has no NO_SHARD: for strategy none the wizard writes reshard_after_forward false (the answer rule
    sharding-no-fsdp-twin warns), so gradients and optimizer states are sharded and the whole model is gathered
    between forward and backward, exactly as for grads_optimizer."""
    none = estimate(answers(sharding__strategy="none"), shape=LLAMA_1B)
    sgo = estimate(answers(sharding__strategy="grads_optimizer"), shape=LLAMA_1B)
    assert none.per_rank == sgo.per_rank and none.bytes_per_param == sgo.bytes_per_param
    # the estimate is of what is written (fsdp_reshard_after_forward: false); the answer rule sharding-no-fsdp-twin
    # says that FSDP2 has no NO_SHARD
    assert "reshard_after_forward=False" in none.layout and none.layout == sgo.layout
    fsdp1 = estimate(answers(fsdp_version=1, sharding__strategy="none"), shape=LLAMA_1B)
    assert fsdp1.bytes_per_param["optimizer_states"] > sgo.bytes_per_param["optimizer_states"]  # FSDP1 NO_SHARD


# ---------------------------------------------------------------- the moments of the peak
ONE_GPU = {"backend": "fsdp", "fsdp_version": 1, "launch__num_processes": 1, "sharding__strategy": "none",
           "precision__mixed_precision": "no", "precision__model_dtype": "bf16"}


def test_one_micro_batch_per_step_holds_no_gradients_at_the_loss_and_accumulation_does():
    """zero_grad(set_to_none=True) frees the gradients before the next forward: at the loss of the only micro-batch
    none exist; with two micro-batches the first one's are there (benchmarks/memory.py measures both)."""
    one = estimate(answers(**ONE_GPU), shape=LLAMA_1B, batch=2, seq=2048)
    two = estimate(answers(**ONE_GPU, training__gradient_accumulation_steps=2), shape=LLAMA_1B, batch=2, seq=2048)
    assert one.per_rank.phase == two.per_rank.phase == "loss"
    assert one.per_rank.not_at_peak["gradients"] == one.per_rank.breakdown["gradients"] > 0
    assert "gradients" not in two.per_rank.not_at_peak
    assert two.per_rank.gpu_bytes - one.per_rank.gpu_bytes == one.per_rank.breakdown["gradients"]
    for e in (one, two):
        _peak_is_consistent(e.per_rank)


def test_zero3_keeps_its_gradient_buffer_at_the_loss_and_zero2_frees_its_partition():
    z3 = estimate(answers(**ZERO3_8), shape=L8, batch=4, seq=4096)
    z2 = estimate(answers(**dict(ZERO3_8, sharding__strategy="grads_optimizer")), shape=L8, batch=4, seq=4096)
    assert z3.per_rank.phase == z2.per_rank.phase == "loss"
    assert "gradients" not in z3.per_rank.not_at_peak and z3.per_rank.breakdown["gradients"] > 0
    assert z2.per_rank.not_at_peak["gradients"] == z2.per_rank.breakdown["gradients"] > 0


@pytest.mark.parametrize("offload", [False, True])
def test_fsdp_accumulation_holds_every_unsharded_gradient_at_the_loss(offload):
    """Inside accumulate() (and the Trainer) FSDP runs the micro-batches before the step under no_sync: each rank
    keeps the whole model's gradients unsharded, on the GPU even with CPU offload (claim
    fsdp-accumulate-keeps-unsharded-grads)."""
    base = {"launch__num_processes": 8, "precision__mixed_precision": "bf16",
            "training__activation_checkpointing": True}
    if offload:
        base.update(offload__params="cpu", offload__optimizer="cpu")
    one = estimate(answers(**base), shape=L8, batch=1, seq=2048)
    four = estimate(answers(**base, training__gradient_accumulation_steps=4), shape=L8, batch=1, seq=2048)
    assert four.per_rank.phase == "loss"
    assert four.per_rank.breakdown["gradients"] == L8_PARAMS * 2  # bf16, unsharded
    assert four.per_rank.gpu_bytes == one.per_rank.phases["loss"] + L8_PARAMS * 2
    assert any("sync_each_batch" in n and "unsharded" in n for n in four.notes)
    assert not any("sync_each_batch" in n for n in one.notes)
    _peak_is_consistent(four.per_rank)


def test_max_micro_batch_is_the_largest_whose_peak_fits():
    a = answers(**ONE_GPU)
    mb = estimate(a, shape=LLAMA_1B, seq=2048, gpu_memory_gib=40).max_micro_batch  # 4 GiB (10%) kept free
    assert mb and mb > 1
    assert estimate(a, shape=LLAMA_1B, seq=2048, batch=mb).per_rank.gpu_bytes <= 36 * 2 ** 30
    assert estimate(a, shape=LLAMA_1B, seq=2048, batch=mb + 1).per_rank.gpu_bytes > 36 * 2 ** 30
    mb0 = estimate(a, shape=LLAMA_1B, seq=2048, gpu_memory_gib=40, headroom=0).max_micro_batch
    assert mb0 >= mb
    assert estimate(a, shape=LLAMA_1B, seq=2048, batch=mb0).per_rank.gpu_bytes <= 40 * 2 ** 30
    assert estimate(a, shape=LLAMA_1B, seq=2048, batch=mb0 + 1).per_rank.gpu_bytes > 40 * 2 ** 30
