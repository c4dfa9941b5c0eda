"""Claims of wizard/core/claims/parallelism.py: tensor and sequence parallelism against the model's heads.

Tensor parallelism runs for real: transformers' tensor-parallel plan over three gloo ranks on this CPU
(tests/claims/_tp_heads_cpu.py). DeepSpeed's Ulysses attention is built over torch's fake process group of the
size under test (its head checks need only the group's size), in a fresh process."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from gloo_ranks import result_of, run_ranks

pytestmark = pytest.mark.real

_TP = Path(__file__).with_name("_tp_heads_cpu.py")
TP_CASES = {"heads-not-divisible": (4, 2), "kv-heads-not-divisible": (6, 2), "both-divisible": (6, 3)}
"""Scope case -> (attention heads, KV heads) of a tiny Llama run with tp 3."""


@pytest.fixture(scope="module")
def tp_runs(tmp_path_factory):
    """One world of three ranks loads and trains the three models in turn: rank -> {"HEADS:KV": what happened}."""
    return run_ranks(_TP, str(tmp_path_factory.mktemp("tp")), *(f"{h}:{k}" for h, k in TP_CASES.values()), "gpt2:6",
                     world=3,
                     timeout=300, drop=("FSDP_", "ACCELERATE_", "PARALLELISM_"), HF_HUB_OFFLINE="1",
                     TRANSFORMERS_OFFLINE="1")


@pytest.mark.claim("tp-whole-heads-per-rank")
@pytest.mark.parametrize("case", list(TP_CASES), ids=list(TP_CASES))
def test_tensor_parallel_needs_whole_heads_per_rank(tp_runs, case):
    assert sorted(tp_runs) == [0, 1, 2]
    heads, kv = TP_CASES[case]
    for got in (r[f"{heads}:{kv}"] for r in tp_runs.values()):
        assert got["loaded"] is True  # the load itself never complains
        assert got["q_placements"] == ["Shard(dim=0)"]  # q_proj split by output rows (heads) over tp
        if case == "both-divisible":
            assert "error" not in got and len(got["losses"]) == 2
        else:  # the first forward cannot reshape the rank's slice into whole heads
            assert got["error"].startswith("RuntimeError: shape") and "is invalid for input of size" in got["error"]


@pytest.mark.claim("tp-needs-model-plan")
@pytest.mark.parametrize("case", ["no-plan", "has-plan"], ids=["no-plan", "has-plan"])
def test_tensor_parallel_needs_the_models_plan(tp_runs, case):
    """GPT-2 has no tensor-parallel plan in transformers: from_pretrained refuses a tp size above 1; a Llama (6 heads,
    3 KV heads, tp 3) has one and loads sharded."""
    for got in tp_runs.values():
        if case == "no-plan":
            assert got["gpt2:6"]["load_error"].startswith("ValueError: `tp_size=3` was requested, but "
                                                          "`GPT2LMHeadModel` has no `tp_plan`")
        else:
            assert got["6:3"]["loaded"] is True and got["6:3"]["q_placements"] == ["Shard(dim=0)"]


_ULYSSES = """\
import json, sys
import torch.distributed as dist
from torch.testing._internal.distributed.fake_pg import FakeStore
import deepspeed
from deepspeed.runtime.sequence_parallel.ulysses_sp import UlyssesSPAttentionHF
world, heads, kv = map(int, sys.argv[1:4])
dist.init_process_group("fake", rank=0, world_size=world, store=FakeStore())
deepspeed.init_distributed(dist_backend="fake")
try:
    UlyssesSPAttentionHF(attn=None, batch_size=1, attn_head_count=heads, attn_head_size=8, kv_head_count=kv,
                         num_hidden_layers=1, process_group=dist.group.WORLD, seq_length_is_variable=True)
    out = {"ok": True}
except ValueError as exc:
    out = {"error": str(exc)}
print("RESULT " + json.dumps(out), flush=True)
"""
SP_CASES = {"heads-not-divisible": (3, 32, 8), "kv-heads-neither-way": (3, 6, 2), "kv-heads-divide": (2, 32, 8),
            "sp-multiple-of-kv-heads": (4, 32, 2)}
"""Scope case -> (sp size, attention heads, KV heads)."""


@pytest.mark.claim("ds-ulysses-heads-divide")
@pytest.mark.parametrize("case", list(SP_CASES), ids=list(SP_CASES))
def test_ulysses_attention_needs_heads_divisible_by_sp(case):
    world, heads, kv = SP_CASES[case]
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(_ULYSSES), str(world), str(heads), str(kv)],
                          capture_output=True, text=True, timeout=240)
    got = result_of(proc.stdout, proc.returncode, proc.stderr)
    if case == "heads-not-divisible":
        assert got["error"] == f"Attention head count {heads} is not divisible by SP size {world}"
    elif case == "kv-heads-neither-way":
        assert got["error"].startswith(f"KV attention head count {kv} is not divisible by SP size {world}")
    else:
        assert got == {"ok": True}


_SP_SETTINGS = """\
import json, os
import torch.distributed as dist
from torch.testing._internal.distributed.fake_pg import FakeStore
import deepspeed
from accelerate.utils.dataclasses import DeepSpeedSequenceParallelConfig
from deepspeed.runtime.sequence_parallel.ulysses_sp import UlyssesSPAttentionHF
from transformers import LlamaConfig, LlamaForCausalLM
out = {}
for name in ("eager", "flex_attention", "flash_attn", "kernels-community/flash-attn2", "sdpa"):
    try:
        DeepSpeedSequenceParallelConfig(sp_attn_implementation=name)
        out[name] = "ok"
    except ValueError as exc:
        out[name] = str(exc)
# what the launcher exports for sp_size 2, sp_seq_length_is_variable false and no sp_seq_length (launch.py:422-425)
os.environ.update(PARALLELISM_CONFIG_SP_SEQ_LENGTH="None", PARALLELISM_CONFIG_SP_SEQ_LENGTH_IS_VARIABLE="False",
                  PARALLELISM_CONFIG_SP_ATTN_IMPLEMENTATION="sdpa")
settings = DeepSpeedSequenceParallelConfig()
out["fixed_settings"] = [settings.sp_seq_length, settings.sp_seq_length_is_variable]
dist.init_process_group("fake", rank=0, world_size=2, store=FakeStore())
deepspeed.init_distributed(dist_backend="fake")
model = LlamaForCausalLM(LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=1,
                                     num_attention_heads=4, num_key_value_heads=2, attn_implementation="sdpa"))
for variable in (False, True):  # what accelerate's prepare() calls (accelerator.py:2424-2431)
    try:
        UlyssesSPAttentionHF.register_with_transformers(
            model_name_or_path=model, core_attn_implementation="sdpa", sequence_parallel_size=2, micro_batch_size=1,
            seq_length=settings.sp_seq_length, seq_length_is_variable=variable)
        out[f"register_variable_{variable}"] = "ok"
    except ValueError as exc:
        out[f"register_variable_{variable}"] = str(exc)
print("RESULT " + json.dumps(out), flush=True)
"""


@pytest.fixture(scope="module")
def sp_settings():
    proc = subprocess.run([sys.executable, "-c", _SP_SETTINGS], capture_output=True, text=True, timeout=240)
    return result_of(proc.stdout, proc.returncode, proc.stderr)


SP_ATTN = {"eager": "eager", "flex-attention": "flex_attention", "other-name": "flash_attn",
           "hub-kernel": "kernels-community/flash-attn2", "sdpa": "sdpa"}


@pytest.mark.claim("ds-sp-attn-implementation-values")
@pytest.mark.parametrize("case", list(SP_ATTN), ids=list(SP_ATTN))
def test_sequence_parallel_attention_names(sp_settings, case):
    said = sp_settings[SP_ATTN[case]]
    if case in ("eager", "flex-attention"):
        assert said.startswith(f"Invalid sp_attn_implementation: {SP_ATTN[case]}. 'eager' and 'flex_attention' are "
                               "not supported")
    elif case == "other-name":
        assert said.startswith("Invalid sp_attn_implementation: flash_attn. Must be one of")
    else:
        assert said == "ok"


@pytest.mark.claim("ds-sp-fixed-length-needs-seq-length")
@pytest.mark.parametrize("case", ["fixed-without-length", "variable-without-length"])
def test_a_fixed_sequence_length_needs_its_value(sp_settings, case):
    assert sp_settings["fixed_settings"] == [None, False]  # the text None is read as no length, not refused
    if case == "fixed-without-length":
        assert sp_settings["register_variable_False"].startswith("Either `seq_length_is_variable` needs to be `True`")
    else:
        assert sp_settings["register_variable_True"] == "ok"


@pytest.mark.claim("accelerate-fsdp2-tp-needs-replicate-parallel")
@pytest.mark.parametrize("case", ["transformers-5-24", "transformers-5-0"])
def test_fsdp2_tensor_parallel_prepare_with_these_transformers(tmp_path, case):
    """Four gloo ranks, dp_shard 2 x tp 2: the model loads tensor-parallel over the Accelerator's tp mesh, then
    prepare() needs transformers' ReplicateParallel, which transformers 5.24 does not have; with transformers 5.0
    (constraints/transformers-tp.txt, first on PYTHONPATH) it prepares and the loss goes down."""
    import transformers
    from overlay import tp_overlay

    extra = {}
    if case == "transformers-5-24":
        assert transformers.__version__ == "5.24.0"  # the case this test shows
        where = Path(transformers.__file__).parent / "integrations" / "tensor_parallel.py"
    else:
        overlay = tp_overlay()
        extra["PYTHONPATH"] = os.pathsep.join([str(overlay), *filter(None, [os.environ.get("PYTHONPATH")])])
    ranks = run_ranks(Path(__file__).with_name("_fsdp_tp_cpu.py"), str(tmp_path / "model"), world=4, timeout=300,
                      drop=("FSDP_", "ACCELERATE_", "PARALLELISM_"), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
                      **extra)
    for got in ranks.values():
        assert got["mesh"] == ["dp_shard", "tp"]
        assert got["q_after_load"] == ["Shard(dim=0)"]  # transformers' plan sharded it over the tp dimension
        assert got["transformers"] == case.removeprefix("transformers-").replace("-", ".") + ".0"
        if case == "transformers-5-24":
            assert got["prepare_error"] == ("ImportError: cannot import name 'ReplicateParallel' from "
                                            f"'transformers.integrations.tensor_parallel' ({where})")
        else:
            assert "prepare_error" not in got, got
            losses = got["losses"]
            assert len(losses) == 3 and losses[-1] < losses[0] - 0.3, losses


@pytest.mark.claim("accelerate-fsdp2-tp-ram-efficient-loading-fails")
@pytest.mark.parametrize("case", ["transformers-5-0"])
def test_fsdp2_tensor_parallel_with_ram_efficient_loading(tmp_path, case):
    """Four gloo ranks, dp_shard 2 x tp 2, transformers 5.0 (where FSDP2 + TP prepares and trains), the plugin's
    cpu_ram_efficient_loading on: rank 0's prepare() fails loading its own tp shards as whole weights."""
    from overlay import tp_overlay

    path = os.pathsep.join([str(tp_overlay()), *filter(None, [os.environ.get("PYTHONPATH")])])
    ranks = run_ranks(Path(__file__).with_name("_fsdp_tp_cpu.py"), str(tmp_path / "model"), "ram-efficient", world=4,
                      timeout=300, drop=("FSDP_", "ACCELERATE_", "PARALLELISM_"), HF_HUB_OFFLINE="1",
                      TRANSFORMERS_OFFLINE="1", PYTHONPATH=path)
    assert all(r["transformers"] == "5.0.0" and r["ranks_failed_prepare"] == 1 for r in ranks.values())
    error = ranks[0]["prepare_error"]
    assert error.startswith("RuntimeError: Error(s) in loading state_dict for FSDPLlamaForCausalLM:\n\tsize mismatch "
                            "for model.layers.0.self_attn.q_proj.weight: copying a param with shape "
                            "torch.Size([16, 32]) from checkpoint, the shape in current model is "
                            "torch.Size([32, 32])."), error
    assert all("prepare_error" not in ranks[r] for r in (1, 2, 3))


DS_SIZES = ["dp-shard", "dp-replicate", "cp", "tp"]


@pytest.fixture(scope="module")
def ds_sizes():
    from helpers import EXTENSIONS

    return run_ranks(Path(__file__).with_name("_ds_parallelism_cpu.py"), world=2, timeout=300,
                     drop=("FSDP_", "ACCELERATE_", "PARALLELISM_"), ACCELERATE_USE_DEEPSPEED="true",
                     DS_ACCELERATOR="cpu", TORCH_EXTENSIONS_DIR=EXTENSIONS)


@pytest.mark.claim("ds-parallelism-sizes-unused")
@pytest.mark.parametrize("case", DS_SIZES, ids=DS_SIZES)
def test_deepspeed_does_not_use_the_parallelism_sizes(ds_sizes, case):
    """Two gloo ranks, ZeRO-2, each size 2 in turn: accelerate builds that mesh and refuses none of them."""
    for got in (r[case] for r in ds_sizes.values()):
        assert got["type"] == "DEEPSPEED" and got["mesh"] == [case.replace("-", "_")]
        if case == "tp":
            assert got["prepare_error"].startswith("At least one of the dataloaders passed to `accelerate.prepare()` "
                                                   "has `None` as batch size")
        else:  # the engine trains data parallel over both ranks, partitioned as its ZeRO stage says
            assert (got["engine_dp_world"], got["zero_stage"]) == (2, 2)


_SMALL = {"vocab_size": 64, "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
          "num_attention_heads": 4, "num_key_value_heads": 2}
CP_CONFIGS = {"llama": ("llama", {}), "mistral-window": ("mistral", {"sliding_window": 16}),
              "mistral-no-window": ("mistral", {"sliding_window": None}),
              "qwen2-window-off": ("qwen2", {"sliding_window": 16, "use_sliding_window": False}),
              "qwen2-window-on": ("qwen2", {"sliding_window": 16, "use_sliding_window": True, "max_window_layers": 1}),
              "gemma2-layer-types": ("gemma2", {"head_dim": 8})}
"""Scope case -> (model_type, config.json keys next to _SMALL)."""


@pytest.mark.claim("accelerate-cp-refuses-windowed-attention")
@pytest.mark.parametrize("case", list(CP_CONFIGS), ids=list(CP_CONFIGS))
def test_context_parallel_refuses_windowed_attention(case):
    """accelerate's own check (the hooks it attaches in _prepare_cp) on the config transformers builds; the wizard's
    reading of the same config.json keys (wizard.core.memory.shapes.windowed_attention) agrees."""
    import torch
    from accelerate.big_modeling import _attach_context_parallel_hooks
    from transformers import AutoConfig

    from wizard.core.memory.shapes import windowed_attention

    model_type, keys = CP_CONFIGS[case]
    model = torch.nn.Module()
    model.config = AutoConfig.for_model(model_type, **_SMALL, **keys)
    refused = case in ("mistral-window", "qwen2-window-on", "gemma2-layer-types")
    if refused:
        with pytest.raises(ValueError, match=r"Context parallelism does not support attention layers of type "
                                             r"\['sliding_attention'\]"):
            _attach_context_parallel_hooks(model)
    else:
        _attach_context_parallel_hooks(model)
    # gemma2's config.json carries no layer_types: transformers derives them; the wizard reads its sliding_window
    read = {"model_type": model_type, **_SMALL, **keys,
            **({"sliding_window": model.config.sliding_window} if case == "gemma2-layer-types" else {})}
    assert bool(windowed_attention(read)) is refused


@pytest.mark.claim("accelerate-cp-drops-attention-mask")
@pytest.mark.parametrize("case", ["mask-dropped", "is-causal-set"])
def test_context_parallel_drops_the_attention_mask(case):
    import torch
    from accelerate.big_modeling import _attach_context_parallel_hooks
    from transformers import LlamaConfig, LlamaForCausalLM

    model = LlamaForCausalLM(LlamaConfig(**_SMALL))
    _attach_context_parallel_hooks(model)
    attn = model.model.layers[0].self_attn
    seen = {}
    attn.register_forward_pre_hook(lambda _m, args, kwargs: seen.update(kwargs), with_kwargs=True)
    x = torch.tensor([[1, 2, 3, 0]])
    model(input_ids=x, attention_mask=torch.tensor([[1, 1, 1, 0]]))  # the last token is padding
    if case == "mask-dropped":
        assert seen["attention_mask"] is None
    else:
        assert seen["is_causal"] is True


_MESH = """\
import json, sys
import torch.distributed as dist
from torch.testing._internal.distributed.fake_pg import FakeStore
from accelerate.parallelism_config import ParallelismConfig
sizes = json.loads(sys.argv[1])
world = 1
for n in sizes.values():
    world *= n
dist.init_process_group("fake", rank=0, world_size=world, store=FakeStore())
mesh = ParallelismConfig(**{k + "_size": v for k, v in sizes.items()}).build_device_mesh("cpu")
out = {}
for axis, name in enumerate(mesh.mesh_dim_names):
    ranks = mesh.mesh.movedim(axis, -1).reshape(-1, mesh.mesh.shape[axis])
    out[name] = sorted(tuple(int(r) for r in row) for row in ranks)
print("RESULT " + json.dumps({"dims": list(mesh.mesh_dim_names), "groups": out}), flush=True)
"""
MESHES = {"dp-shard-cp-tp": {"dp_shard": 2, "cp": 2, "tp": 2}, "hsdp": {"dp_replicate": 2, "dp_shard": 4},
          "hsdp-tp": {"dp_replicate": 2, "dp_shard": 2, "tp": 2}}


@pytest.mark.claim("accelerate-mesh-rank-order")
@pytest.mark.parametrize("case", list(MESHES), ids=list(MESHES))
def test_the_mesh_ranks_in_accelerates_order(case):
    """accelerate's own mesh (ParallelismConfig.build_device_mesh over a fake process group of the whole world) and
    the wizard's reading of it (wizard.core.mesh.mesh_groups) give the same groups."""
    import json

    from wizard.core.mesh import mesh_dims, mesh_groups

    proc = subprocess.run([sys.executable, "-c", _MESH, json.dumps(MESHES[case])], capture_output=True, text=True,
                          timeout=240)
    got = result_of(proc.stdout, proc.returncode, proc.stderr)
    assert got["dims"] == [d for d, _ in mesh_dims(MESHES[case])]
    assert {k: [list(g) for g in v] for k, v in mesh_groups(MESHES[case]).items()} == got["groups"]
    if "tp" in got["groups"]:  # tensor parallelism innermost: its groups are consecutive ranks
        assert all(g == list(range(g[0], g[0] + len(g))) for g in got["groups"]["tp"])


@pytest.mark.claim("torch-cp-no-cpu-attention")
@pytest.mark.parametrize("case", ["sdpa-cpu"])
def test_context_parallel_has_no_cpu_attention(case):
    """Two gloo ranks, FSDP2 with cp 2: prepare() builds the cp mesh; the first attention under accelerate's
    maybe_context_parallel finds no sharding rule for the CPU attention kernel."""
    ranks = run_ranks(Path(__file__).with_name("_cp_cpu.py"), world=2, timeout=300,
                      drop=("FSDP_", "ACCELERATE_", "PARALLELISM_"), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    for got in ranks.values():
        assert got["mesh"] == ["cp"]
        assert "loss" not in got
        assert got["error"] == ("NotImplementedError: Operator "
                                "aten._scaled_dot_product_flash_attention_for_cpu.default does not have a sharding "
                                "strategy registered.")
