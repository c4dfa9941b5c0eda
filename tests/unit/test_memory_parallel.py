"""The estimate split by tensor, context and sequence parallelism (issue 24 point 3): what each dimension divides and
what it leaves whole, per part, against the same layout without it; the layout read from the effective model."""
from __future__ import annotations

import pytest

from wizard.core.effective import Situation, effective, layout
from wizard.core.effective.layout import Layout, with_parallelism
from wizard.core.memory.estimate import LLAMA_COEF_NOT_SPLIT_BY_TP, estimate
from wizard.core.memory.recommend import recommend
from wizard.core.memory.shapes import ModelShape, param_count, shape_by_name, tp_split_params
from wizard.core.recordclass import replace

L8 = shape_by_name("llama-3.1-8b")
SEQ = 4096
STATES = ("parameters", "gradients", "optimizer_states")


def _fsdp2(shard: int, **sizes) -> Layout:
    """FSDP2 full shard over ``shard`` ranks, with the tensor/context/sequence sizes given (processes follow)."""
    procs = shard * sizes.get("tp", 1)
    lay = Layout(target="fsdp2", processes=procs, machines=1, mixed_precision="bf16", model_dtype="bf16",
                 fsdp_strategy="FULL_SHARD", shard_group=shard, micro_batch=1, gradient_accumulation_steps=1)
    return replace(lay, dp_shard=shard // sizes.get("cp", 1), **sizes)


def _zero3(procs: int, sp: int = 1) -> Layout:
    return Layout(target="deepspeed", processes=procs, machines=1, mixed_precision="bf16", model_dtype="bf16", stage=3,
                  micro_batch=1, gradient_accumulation_steps=1, sp=sp, dp_shard=procs // sp)


def _parts(lay: Layout, shape: ModelShape = L8, seq: int = SEQ) -> dict[str, int]:
    return estimate(lay, shape=shape, seq=seq).per_rank.breakdown


def test_tp_halves_the_split_layers_states_on_the_same_shard():
    block, head = tp_split_params(L8)
    split = block * L8.num_layers + head
    whole = param_count(L8) - split  # the norms
    one, two = _parts(_fsdp2(4)), _parts(_fsdp2(4, tp=2))
    for part, per_param in zip(STATES, (4, 4, 8), strict=True):  # fp32 parameters, gradients, Adam (FSDP2, bf16)
        assert one[part] == int((whole + split) * per_param / 4)
        assert two[part] == int((whole + split / 2) * per_param / 4)
    assert two["parameters"] > one["parameters"] / 2  # the norms stay whole


def test_tp_splits_the_gathered_unit_and_the_reduce_scatter_input():
    block, _ = tp_split_params(L8)
    one, two = _parts(_fsdp2(4)), _parts(_fsdp2(4, tp=2))
    assert one["buckets"] - two["buckets"] == (block - block // 2) * 2


def test_tp_splits_attention_and_mlp_activations_only_and_adds_the_all_reduce_buffer():
    one, two = _parts(_fsdp2(4)), _parts(_fsdp2(4, tp=2))
    sbh = SEQ * L8.hidden_size
    coef = 21 + 8 * L8.intermediate_size / L8.hidden_size
    split = LLAMA_COEF_NOT_SPLIT_BY_TP + (coef - LLAMA_COEF_NOT_SPLIT_BY_TP) / 2
    assert one["activations"] == int(coef * sbh * L8.num_layers)
    assert two["activations"] == int((split * sbh + 2 * sbh) * L8.num_layers)  # + the rowwise output, s x h x 2
    assert two["logits"] == one["logits"]  # gathered whole on every rank


def test_cp_halves_activations_and_logits_and_leaves_the_states():
    one, two = _parts(_fsdp2(8)), _parts(_fsdp2(8, cp=2))
    for part in (*STATES, "gathered", "buckets"):
        assert two[part] == one[part]
    kv = L8.num_kv_heads * L8.head_width
    gathered_kv = 2 * SEQ * kv * 2 * L8.num_layers  # ring attention's all-gathered keys and values, per layer
    assert two["activations"] == pytest.approx(one["activations"] / 2 + gathered_kv, rel=1e-6)
    assert two["logits"] == one["logits"] // 2


def test_ulysses_sp_splits_the_sequence_and_keeps_zero3_over_every_rank():
    one, two = _parts(_zero3(8)), _parts(_zero3(8, sp=2))
    for part in (*STATES, "gathered", "buckets"):
        assert two[part] == one[part]
    assert two["activations"] < one["activations"] * 0.6 and two["logits"] == one["logits"] // 2


def test_a_model_without_a_tp_plan_is_counted_unsplit_and_says_so():
    gpt2 = shape_by_name("gpt2")
    e = estimate(_fsdp2(4, tp=2), shape=gpt2, seq=1024)
    assert e.per_rank.breakdown["parameters"] == estimate(_fsdp2(4), shape=gpt2, seq=1024).per_rank.breakdown[
        "parameters"]
    assert any("no tensor-parallel plan for gpt2" in n for n in e.notes)


def test_each_dimension_is_explained_in_the_notes_and_the_layout_line():
    e = estimate(_fsdp2(4, tp=2), shape=L8, seq=SEQ)
    assert e.layout == "FSDP2 fully_shard(reshard_after_forward=True) over 4 ranks, tensor parallel 2"
    text = " ".join(e.notes)
    assert "the norms stay whole" in text and "logits are gathered whole" in text
    assert "ring attention" in " ".join(estimate(_fsdp2(8, cp=2), shape=L8, seq=SEQ).notes)
    assert "all-to-all" in " ".join(estimate(_zero3(8, sp=2), shape=L8, seq=SEQ).notes)


def _config(**sizes) -> dict:
    return {"distributed_type": "FSDP", "num_processes": 8, "num_machines": 1, "mixed_precision": "bf16",
            "fsdp_config": {"fsdp_version": 2, "fsdp_reshard_after_forward": True},
            "parallelism_config": {f"parallelism_config_{k}_size": v for k, v in sizes.items()}}


@pytest.mark.parametrize("sizes,shard", [({"dp_shard": 8}, 8), ({"dp_shard": 4, "tp": 2}, 4),
                                         ({"dp_shard": 4, "cp": 2}, 8), ({"dp_replicate": 2, "dp_shard": 2, "tp": 2},
                                                                         2)])
def test_the_layout_reads_the_sizes_and_fsdp2_shards_over_dp_shard_times_cp(sizes, shard):
    lay = layout(effective(_config(**sizes), None, Situation()))
    assert (lay.tp, lay.cp, lay.sp) == (sizes.get("tp", 1), sizes.get("cp", 1), 1)
    assert lay.dp_shard == sizes["dp_shard"] and lay.dp_replicate == sizes.get("dp_replicate", 1)
    assert lay.shard_group == shard


def test_with_parallelism_derives_the_shard_group_as_the_effective_model_does():
    for sizes in ({"tp": 2}, {"cp": 2}, {"cp": 4}):
        derived = with_parallelism(_fsdp2(8), **sizes)
        full = {"dp_shard": 8 // (sizes.get("tp", 1) * sizes.get("cp", 1)), **sizes}
        assert derived.shard_group == layout(effective(_config(**full), None, Situation())).shard_group


def test_recommend_tries_only_head_dividing_sizes():
    """12 heads and 4 key-value heads on 8 GPUs: TP may be 2 or 4 (not 8), Ulysses SP 2, 4 (not 8: 12 % 8)."""
    shape = replace(L8, name="odd-heads", num_heads=12, num_kv_heads=4, head_dim=128)
    r = recommend(shape=shape, gpus_per_node=8, gpu_memory_gib=80, seq=131072)
    labels = [c.label for c in r.candidates] + [label for label, _ in r.left_out]
    sp = {dict(c.parallelism).get("parallelism_config_sp_size") for c in r.candidates} - {None}
    assert sp and sp <= {2, 4}
    assert not [x for x in labels if "tensor parallel 8" in x or "sequence parallel 8" in x]
    assert any("context parallel 8" in x for x in labels)  # context parallelism splits no heads
