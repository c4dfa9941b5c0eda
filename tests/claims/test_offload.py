"""Claims about the backend choice, FSDP versions, sharding and offload (wizard/core/claims/offload.py).

accelerate's launcher runs without starting anything (``Launch`` of launch_support.py); plugins are built in this
process from the environment the launcher prepared; raw torch FSDP and accelerate's FSDP2 path (through the CPU
shim of wizard/run/cpu_fsdp_compat.py) and DeepSpeed engines run in one gloo process of their own
(``one_rank`` of gloo_ranks.py, ``run_ds``). No DeepSpeed op is built.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from gloo_ranks import one_rank, result_of, run_ds
from launch_support import BASE, Launch, ds_base


def _env_of(launch: Launch, monkeypatch) -> None:
    """Put what the launcher exported into this process, as the training process would see it."""
    for k, v in launch.env.items():
        monkeypatch.setenv(k, v)


def _result(proc) -> dict:
    return result_of(proc.stdout, proc.returncode, proc.stderr)


# ------------------------------------------------------------------------------------------------ backend
@pytest.mark.claim("launch-distributed-type-picks-section")
@pytest.mark.parametrize("backend", ["fsdp", "deepspeed"])
def test_distributed_type_decides_which_section_is_read(tmp_path, backend):
    both = {"fsdp_config": {"fsdp_version": 2, "fsdp_offload_params": True},
            "deepspeed_config": {"zero_stage": 3, "offload_optimizer_device": "cpu"}}
    if backend == "fsdp":
        fsdp = Launch(tmp_path, {**BASE, **both})
        assert fsdp.env["ACCELERATE_USE_FSDP"] == "true" and fsdp.env["FSDP_OFFLOAD_PARAMS"] == "true"
        assert not [k for k in fsdp.env if "DEEPSPEED" in k]
    else:
        ds = Launch(tmp_path, {**ds_base(), **both, "distributed_type": "DEEPSPEED"})
        assert ds.env["ACCELERATE_USE_DEEPSPEED"] == "true" and ds.env["ACCELERATE_DEEPSPEED_ZERO_STAGE"] == "3"
        assert not [k for k in ds.env if k.startswith("FSDP_") or k == "ACCELERATE_USE_FSDP"]


# ------------------------------------------------------------------------------------------------ raw torch FSDP
_TORCH_FSDP = """
import json, torch, torch.distributed as dist
dist.init_process_group("gloo")
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, fully_shard
from torch.distributed.fsdp._flat_param import FlatParameter
mesh = init_device_mesh("cpu", (1,))
out = {}
def mixed():
    m = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 4))
    m[0].weight.requires_grad_(False)  # a frozen weight next to trainable ones (LoRA-like)
    return m
flat = FSDP(torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 4)), device_id=torch.device("cpu"))
out["fsdp1_params"] = [type(p).__name__ for p in flat.parameters()]
out["fsdp1_is_flat"] = all(isinstance(p, FlatParameter) for p in flat.parameters())
try:
    FSDP(mixed(), device_id=torch.device("cpu"))
    out["fsdp1_mixed"] = "accepted"
except ValueError as e:
    out["fsdp1_mixed"] = str(e)
FSDP(mixed(), device_id=torch.device("cpu"), use_orig_params=True)
out["fsdp1_mixed_orig"] = "accepted"
m = mixed()
fully_shard(m, mesh=mesh)
out["fsdp2_params"] = sorted({type(p).__name__ for p in m.parameters()})
for reshard in (True, False):
    m = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 4))
    for layer in m:
        fully_shard(layer, mesh=mesh, reshard_after_forward=reshard)
    fully_shard(m, mesh=mesh)
    kinds = lambda: sorted({type(p).__name__ for p in m[0].parameters()})
    seen = {"before": kinds()}
    loss = m(torch.randn(2, 4)).sum()
    seen["after_forward"] = kinds()
    loss.backward()
    seen["after_backward"] = kinds()
    out[f"reshard_{reshard}"] = seen
print("RESULT " + json.dumps(out), flush=True)
"""


@pytest.fixture(scope="module")
def torch_fsdp() -> dict:
    return _result(one_rank(_TORCH_FSDP, timeout=180))


@pytest.mark.claim("fsdp1-flat-fsdp2-dtensor")
@pytest.mark.parametrize("case", ["fsdp1-flat", "fsdp1-mixed-refused", "fsdp1-mixed-orig-params", "fsdp2-mixed"])
def test_fsdp1_flattens_and_fsdp2_shards_each_parameter(torch_fsdp, case):
    if case == "fsdp1-flat":
        assert len(torch_fsdp["fsdp1_params"]) == 1 and torch_fsdp["fsdp1_is_flat"]  # one FlatParameter for 4
    elif case == "fsdp1-mixed-refused":
        assert "uniform `requires_grad`" in torch_fsdp["fsdp1_mixed"]
    elif case == "fsdp1-mixed-orig-params":
        assert torch_fsdp["fsdp1_mixed_orig"] == "accepted"
    else:
        assert torch_fsdp["fsdp2_params"] == ["DTensor"]  # each parameter, the frozen one too


@pytest.mark.claim("fsdp-reshard-after-forward")
@pytest.mark.parametrize("reshard", [pytest.param(True, id="reshard-true"), pytest.param(False, id="reshard-false")])
def test_reshard_after_forward_keeps_parameters_gathered_until_backward(torch_fsdp, reshard):
    seen = torch_fsdp[f"reshard_{reshard}"]
    assert seen["before"] == ["DTensor"] and seen["after_backward"] == ["DTensor"]  # shards between steps
    # true: resharded after forward; false: gathered, unsharded tensors from forward to backward
    assert seen["after_forward"] == (["DTensor"] if reshard else ["Parameter"])


@pytest.fixture(scope="module")
def accelerate_reshard():
    """accelerate's FSDP2 prepare() (CPU shim, one gloo rank) of a model with blocks, a final norm, an output head
    (get_output_embeddings) and a root-only input layer, with fsdp_reshard_after_forward true: each part's parameter
    types after forward, before backward (DTensor: resharded; Parameter: still gathered)."""
    return _result(one_rank("""
        import json, os, sys
        os.environ["ACCELERATE_TORCH_DEVICE"] = "cpu"
        sys.path.insert(0, HERE)
        import _fsdp_cpu as f  # installs the CPU FSDP shim
        import torch
        class LM(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.inp = torch.nn.Linear(8, 8)
                self.blocks = torch.nn.Sequential(f.Block(), f.Block())
                self.norm = torch.nn.LayerNorm(8)
                self.head = torch.nn.Linear(8, 2)
            def forward(self, x):
                return self.head(self.norm(self.blocks(self.inp(x))))
            def get_output_embeddings(self):
                return self.head
        acc = f.Accelerator(fsdp_plugin=f.Plugin(fsdp_version=2, reshard_after_forward=True,
                                                 auto_wrap_policy="TRANSFORMER_BASED_WRAP",
                                                 transformer_cls_names_to_wrap=["Block"]))
        model = LM()
        model, opt = acc.prepare(model, torch.optim.SGD(model.parameters(), lr=0.1))
        def kinds():
            parts = {"block": model.blocks[0].fc, "final_norm": model.norm, "head": model.head, "root": model.inp}
            return {k: type(m.weight).__name__ for k, m in parts.items()}
        before = kinds()
        loss = model(torch.randn(4, 8)).sum()
        out = {"before": before, "after_forward": kinds()}
        print("RESULT " + json.dumps(out), flush=True)
    """.replace("HERE", repr(str(Path(__file__).parent))), timeout=180))


@pytest.mark.claim("fsdp2-accelerate-keeps-root-and-tail-gathered")
@pytest.mark.parametrize("part, kind", [pytest.param("block", "DTensor", id="block_resharded"),
                                        pytest.param("final_norm", "Parameter", id="final_norm_gathered"),
                                        pytest.param("head", "Parameter", id="head_gathered"),
                                        pytest.param("root", "Parameter", id="root_gathered")])
def test_reshard_true_holds_for_the_blocks_only(accelerate_reshard, part, kind):
    assert accelerate_reshard["before"][part] == "DTensor"  # every part is sharded between steps
    assert accelerate_reshard["after_forward"][part] == kind, accelerate_reshard


# ------------------------------------------------------------------------------------------------ FSDP versions
@pytest.mark.claim("fsdp-version-default-1-unchecked")
@pytest.mark.parametrize("written, exported, error, match", [
    pytest.param(None, "1", None, "", id="missing_is_1"),
    pytest.param(3, "3", KeyError, "TRUE", id="other_integer_3"),
    pytest.param(0, "0", KeyError, "TRUE", id="other_integer_0"),
    pytest.param(2.0, "2.0", ValueError, "invalid literal for int", id="float_2.0"),
    pytest.param("two", "two", ValueError, "invalid literal for int", id="word"),
    pytest.param(True, "True", ValueError, "invalid literal for int", id="boolean"),
])
def test_a_bad_version_fails_in_the_plugin_by_its_kind(tmp_path, clean_env, written, exported, error,  # noqa: F811
                                                       match):
    """A missing key is 1 (launcher and plugin); the launcher passes any other fsdp_version on as text and the
    plugin turns it into an int: another integer falls through the v1/v2 branches to KeyError: 'TRUE', a
    non-integer stops at int() with a ValueError."""
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin

    assert Plugin().fsdp_version == 1  # nothing in the environment
    fsdp = {"fsdp_offload_params": False} if written is None else {"fsdp_version": written}
    launch = Launch(tmp_path, {**BASE, "fsdp_config": fsdp})
    assert launch.env["FSDP_VERSION"] == exported  # accepted by the launcher
    if error is None:
        return  # the launcher's 1 (the plugin, built on CPU with its sync default, would ask for a GPU)
    _env_of(launch, clean_env)
    with pytest.raises(error, match=match):
        Plugin()


@pytest.mark.claim("fsdp2-needs-torch-2-6")
@pytest.mark.parametrize("torch_version", ["2.5.1", "2.6.0"], ids=["below-2-6", "2-6"])
def test_fsdp2_needs_torch_2_6(clean_env, torch_version):
    import accelerate.utils.versions as versions
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin
    from accelerate.utils.constants import FSDP2_PYTORCH_VERSION
    from packaging.version import Version

    assert Version(FSDP2_PYTORCH_VERSION) == Version("2.6.0")
    clean_env.setattr(versions, "torch_version", Version(torch_version))  # what is_torch_version compares
    if torch_version == "2.5.1":
        with pytest.raises(ImportError, match="FSDP2 requires PyTorch >= 2.6.0"):
            Plugin(fsdp_version=2)
    else:
        assert Plugin(fsdp_version=2).fsdp_version == 2


@pytest.fixture(scope="module")
def fsdp2_prepare_calls() -> dict:
    return _result(one_rank("""
        import json, os, sys
        os.environ["ACCELERATE_TORCH_DEVICE"] = "cpu"
        sys.path.insert(0, HERE)
        import _fsdp_cpu as f  # installs the CPU FSDP shim
        import torch
        acc = f.Accelerator(fsdp_plugin=f.Plugin(fsdp_version=2))
        errors = {}
        a, b = f.Net(), f.Net()
        calls = {"model_alone": lambda: acc.prepare(a),
                 "two_models": lambda: acc.prepare(a, b, torch.optim.SGD(a.parameters(), lr=0.1))}
        for name, call in calls.items():
            try:
                call()
                errors[name] = ""
            except ValueError as e:
                errors[name] = str(e)
        model, opt = acc.prepare(a, torch.optim.SGD(a.parameters(), lr=0.1))
        errors["together"] = type(model).__name__
        print("RESULT " + json.dumps(errors), flush=True)
    """.replace("HERE", repr(str(Path(__file__).parent))), timeout=180))


@pytest.mark.claim("fsdp2-prepare-model-with-optimizer")
@pytest.mark.parametrize("call, expected", [
    pytest.param("model_alone", "a model and optimizer must be passed together", id="model-alone"),
    pytest.param("two_models", "Only one model is supported", id="two-models"),
    pytest.param("together", "FSDP", id="model-with-optimizer")])  # one model with its optimizer: fully_shard'ed
def test_fsdp2_prepare_needs_one_model_with_its_optimizer(fsdp2_prepare_calls, call, expected):
    assert expected in fsdp2_prepare_calls[call]


@pytest.mark.claim("fsdp2-ignores-v1-keys")
@pytest.mark.parametrize("case", ["sharding-strategy", "forward-prefetch", "backward-prefetch",
                                  "reshard-strategy-name", "ac-offload"])
def test_fsdp2_ignores_the_v1_keys(clean_env, case):  # noqa: F811
    from accelerate.state import PartialState
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin

    PartialState(cpu=True)  # accelerate's logger needs a state
    clean_env.setenv("FSDP_VERSION", "2")
    if case == "sharding-strategy":
        clean_env.setenv("FSDP_SHARDING_STRATEGY", "NO_SHARD")
        plugin = Plugin()  # what the launcher's variables give
        assert plugin.sharding_strategy is None and plugin.reshard_after_forward is True  # NO_SHARD never read
    elif case == "forward-prefetch":
        clean_env.setenv("FSDP_FORWARD_PREFETCH", "true")
        assert Plugin().forward_prefetch is None
    elif case == "backward-prefetch":
        clean_env.setenv("FSDP_BACKWARD_PREFETCH", "BACKWARD_PRE")
        assert Plugin().backward_prefetch is None  # dropped, with a logged warning only
    elif case == "reshard-strategy-name":
        with pytest.raises(ValueError, match="truth value"):
            Plugin(fsdp_version=2, reshard_after_forward="SHARD_GRAD_OP")
        clean_env.setenv("FSDP_RESHARD_AFTER_FORWARD", "FULL_SHARD")
        with pytest.raises(ValueError, match="truth value"):
            Plugin()
    else:
        with pytest.raises(ValueError, match="requires `fsdp_version=2`"):
            Plugin(fsdp_version=1, activation_checkpointing=True, activation_checkpointing_offload=True)
        assert Plugin(fsdp_version=2, activation_checkpointing=True,
                      activation_checkpointing_offload=True).activation_checkpointing_offload is True


@pytest.mark.claim("fsdp1-reads-sharding-strategy-only")
@pytest.mark.parametrize("written, expected", [
    pytest.param(None, "FULL_SHARD", id="missing-reshard-key-unused"),
    pytest.param("SHARD_GRAD_OP", "SHARD_GRAD_OP", id="name"),
    pytest.param("hybrid_shard_zero2", "_HYBRID_SHARD_ZERO2", id="name-lowercase"),
    pytest.param(1, "FULL_SHARD", id="number-1"), pytest.param(2, "SHARD_GRAD_OP", id="number-2"),
    pytest.param(3, "NO_SHARD", id="number-3"), pytest.param(4, "HYBRID_SHARD", id="number-4"),
    pytest.param(5, "_HYBRID_SHARD_ZERO2", id="number-5")])
def test_fsdp1_runs_fsdp_sharding_strategy_only(tmp_path, clean_env, written, expected):  # noqa: F811
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin
    from torch.distributed.fsdp import ShardingStrategy

    def strategy(fsdp_config):
        launch = Launch(tmp_path, {**BASE, "fsdp_config": {"fsdp_version": 1, "fsdp_cpu_ram_efficient_loading": False,
                                                       "fsdp_sync_module_states": False, **fsdp_config}})
        _env_of(launch, clean_env)
        return launch.env, Plugin().sharding_strategy

    if written is None:
        env, got = strategy({"fsdp_reshard_after_forward": "SHARD_GRAD_OP"})  # what accelerate config writes
        assert env["FSDP_SHARDING_STRATEGY"] == "FULL_SHARD" and env["FSDP_RESHARD_AFTER_FORWARD"] == "shard_grad_op"
        assert got is ShardingStrategy.FULL_SHARD
    else:  # a number n is the n-th strategy: '1' is FULL_SHARD, not ZeRO-1
        assert strategy({"fsdp_sharding_strategy": written})[1] is getattr(ShardingStrategy, expected)


@pytest.mark.claim("fsdp2-hybrid-from-parallelism-config")
@pytest.mark.parametrize("case", ["replicate-above-1", "replicate-1", "launch-exports"])
def test_fsdp2_hybrid_comes_from_the_parallelism_config(tmp_path, case):
    from accelerate.parallelism_config import ParallelismConfig

    if case == "replicate-above-1":
        hybrid = ParallelismConfig(dp_replicate_size=2, dp_shard_size=4)
        assert hybrid.fsdp_dim_names == ["dp_replicate", "dp_shard_cp"]  # the 2-D mesh fully_shard gets
        return
    if case == "replicate-1":
        assert ParallelismConfig(dp_shard_size=8).fsdp_dim_names == ["dp_shard_cp"]
        return
    launch = Launch(tmp_path, {**BASE, "parallelism_config": {"parallelism_config_dp_replicate_size": 2,
                                                               "parallelism_config_dp_shard_size": 4}})
    assert launch.env["PARALLELISM_CONFIG_DP_REPLICATE_SIZE"] == "2"
    assert launch.env["PARALLELISM_CONFIG_DP_SHARD_SIZE"] == "4"


# ------------------------------------------------------------------------------------------------ ZeRO stages
@pytest.fixture(scope="module")
def zero(tmp_path_factory) -> dict:
    return run_ds("""
        import deepspeed
        deepspeed.init_distributed(dist_backend="gloo")
        out = {}
        def engine(zero_optimization):
            torch.manual_seed(0)
            m = torch.nn.Linear(4, 4)
            cfg = {"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1,
                   "zero_optimization": zero_optimization}
            eng, *_ = deepspeed.initialize(model=m, optimizer=torch.optim.AdamW(m.parameters(), lr=0.1),
                                           config=cfg)
            return eng
        for stage in (0, 1, 2, 3):
            eng = engine({"stage": stage})
            opt = eng.optimizer
            w = eng.module.weight
            out[stage] = {"stage": eng.zero_optimization_stage(), "optimizer": type(opt).__name__,
                          "partition_gradients": getattr(opt, "partition_gradients", None),
                          "param_partitioned": hasattr(w, "ds_id") and w.numel() == 0}
        for stage in (1, 2):
            eng = engine({"stage": stage, "offload_param": {"device": "nvme", "nvme_path": f"swap{stage}"}})
            out[f"zero{stage}_param_offload"] = {"optimizer": type(eng.optimizer).__name__,
                                                 "configured": eng.zero_offload_param().device,
                                                 "cpu_offload": eng.optimizer.cpu_offload,
                                                 "swap": os.path.exists(f"swap{stage}"),
                                                 "weight_device": str(eng.module.weight.device)}
        eng = engine({"stage": 3, "offload_param": {"device": "cpu"}})
        out["zero3_param_offload"] = {"optimizer": type(eng.optimizer).__name__,
                                      "offload_param": eng.optimizer.offload_param}
        report(**{str(k): v for k, v in out.items()})
    """, tmp_path_factory.mktemp("zero"))


@pytest.mark.claim("ds-zero-stages-partition")
@pytest.mark.parametrize("stage", ["0", "1", "2", "3"], ids=["zero0", "zero1", "zero2", "zero3"])
def test_what_each_zero_stage_partitions(zero, stage):
    got = zero[stage]
    assert got["stage"] == int(stage)
    if stage == "0":
        assert got["optimizer"] == "AdamW"  # the script's optimizer, nothing partitioned
    elif stage == "3":
        assert got["optimizer"] == "DeepSpeedZeroOptimizer_Stage3" and got["param_partitioned"]
    else:  # optimizer state at 1, gradients too at 2, parameters at neither
        assert got["optimizer"] == "DeepSpeedZeroOptimizer" and not got["param_partitioned"]
        assert got["partition_gradients"] is (stage == "2")


@pytest.mark.claim("ds-param-offload-zero3-only")
@pytest.mark.parametrize("stage", ["1", "2", "3"], ids=["zero-1", "zero-2", "zero-3"])
def test_parameter_offload_below_zero3_is_unused(zero, stage):
    got = zero[f"zero{stage}_param_offload"]
    if stage == "3":  # the ZeRO-3 optimizer reads the block
        assert got["optimizer"] == "DeepSpeedZeroOptimizer_Stage3" and got["offload_param"] is True
        return
    assert got["configured"] == "nvme"  # accepted without a message...
    assert got["optimizer"] == "DeepSpeedZeroOptimizer" and got["cpu_offload"] is False  # ...and never used
    assert got["swap"] is False and got["weight_device"] == "cpu"


@pytest.mark.claim("ds-missing-stage-defaults")
@pytest.mark.parametrize("where", ["inline", "json"])
def test_a_missing_stage_is_2_inline_and_0_in_a_json(clean_env, where):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    if where == "inline":
        inline = DeepSpeedPlugin()
        assert inline.zero_stage == 2 and inline.deepspeed_config["zero_optimization"]["stage"] == 2
        return
    from_json = DeepSpeedPlugin(hf_ds_config={"train_micro_batch_size_per_gpu": 1,
                                              "zero_optimization": {"overlap_comm": True}})
    assert "stage" not in from_json.deepspeed_config["zero_optimization"]
    assert from_json.zero_stage == 2  # what accelerate believes
    assert DeepSpeedZeroConfig(overlap_comm=True).stage == 0  # what DeepSpeed runs


# ------------------------------------------------------------------------------------------------ offload
@pytest.mark.claim("fsdp-offload-single-switch")
@pytest.mark.claim("fsdp-offload-pins")
@pytest.mark.parametrize("version", [pytest.param(1, id="fsdp1"), pytest.param(2, id="fsdp2")])
def test_fsdp_offload_is_one_switch(clean_env, version):  # noqa: F811
    import dataclasses

    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin
    from torch.distributed.fsdp import CPUOffload, CPUOffloadPolicy

    clean_env.setenv("FSDP_OFFLOAD_PARAMS", "true")
    got = Plugin(fsdp_version=version).cpu_offload
    if version == 1:
        assert got == CPUOffload(offload_params=True)
        assert [f.name for f in dataclasses.fields(CPUOffload)] == ["offload_params"]  # no device, no optimizer-only
        import inspect

        from torch.distributed.fsdp._flat_param import FlatParamHandle

        # pinning needs an accelerator, so on CPU only the code can show it: the shard and its CPU gradient
        source = inspect.getsource(FlatParamHandle.init_flat_param_attributes)
        assert "_local_shard = flat_param._local_shard.pin_memory()" in source
        assert "flat_param._cpu_grad = torch.zeros_like(" in source and ").pin_memory()" in source
    else:
        assert type(got) is CPUOffloadPolicy and got.pin_memory is True  # accelerate keeps torch's default: pinned
        assert [f.name for f in dataclasses.fields(CPUOffloadPolicy)] == ["pin_memory"]


@pytest.mark.claim("ds-offload-blocks-independent")
@pytest.mark.claim("ds-offload-pin-memory-default")
@pytest.mark.parametrize("case", ["optimizer-block", "param-block", "inline-devices"])
def test_the_two_offload_blocks_are_independent(tmp_path, clean_env, case):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    if case == "optimizer-block":
        cfg = DeepSpeedZeroConfig(stage=3, offload_optimizer={"device": "cpu"},
                                  offload_param={"device": "nvme", "nvme_path": "/nvme", "pin_memory": False})
        assert cfg.offload_optimizer.device == "cpu" and cfg.offload_optimizer.pin_memory is True  # default: pinned
        assert cfg.offload_param.pin_memory is False  # the other block's own setting
        assert DeepSpeedZeroConfig(stage=3, offload_optimizer={"device": "cpu"}).offload_param is None
        return
    if case == "param-block":
        cfg = DeepSpeedZeroConfig(stage=3, offload_param={"device": "nvme", "nvme_path": "/nvme"},
                                  offload_optimizer={"device": "cpu", "pin_memory": False})
        assert cfg.offload_param.device == "nvme" and cfg.offload_param.pin_memory is True  # default: pinned
        assert cfg.offload_optimizer.pin_memory is False
        with pytest.raises(Exception, match="device"):
            DeepSpeedZeroConfig(stage=3, offload_param={"device": "gpu"})
        return
    launch = Launch(tmp_path, ds_base(zero_stage=3, offload_optimizer_device="cpu", offload_param_device="none"))
    _env_of(launch, clean_env)
    zero = DeepSpeedPlugin().deepspeed_config["zero_optimization"]
    assert zero["offload_optimizer"]["device"] == "cpu" and zero["offload_param"]["device"] == "none"


@pytest.mark.claim("ds-inline-nvme-path-not-exported")
@pytest.mark.parametrize("block", ["optimizer", "param"], ids=["optimizer-nvme-path", "param-nvme-path"])
def test_inline_nvme_paths_never_reach_deepspeed(tmp_path, clean_env, block):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin

    launch = Launch(tmp_path, ds_base(zero_stage=3, **{f"offload_{block}_device": "nvme",
                                                       f"offload_{block}_nvme_path": "/nvme"}))
    assert not [k for k, v in launch.env.items() if "NVME" in k or v == "/nvme"]
    _env_of(launch, clean_env)
    path = DeepSpeedPlugin().deepspeed_config["zero_optimization"][f"offload_{block}"]["nvme_path"]
    assert path == "none" and os.path.isabs(path) is False
