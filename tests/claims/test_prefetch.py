"""Claims about prefetching, wrapping and use_orig_params (wizard/core/claims/prefetch.py).

Plugin-level facts run in this process. ZeRO-3's prefetch, persistence, reuse and leaf modules are shown by one
one-rank DeepSpeed run (gloo_ranks.run_ds) that records, from forward pre-hooks, which parameters are gathered
when each module starts. FSDP's ignored modules, units and flat parameters come from tests/claims/_wrapping_cpu.py on
two gloo ranks (it reuses tests/claims/_fsdp_cpu.py and its shim). Both run once per module (fixtures).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from gloo_ranks import run_ds, run_ranks
from launch_support import fsdp_launch_env

WRAPPING = Path(__file__).with_name("_wrapping_cpu.py")

ZERO3 = """
from accelerate.state import AcceleratorState, PartialState
class Moe(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.e0, self.e1 = torch.nn.Linear(8, 8), torch.nn.Linear(8, 8)
    def forward(self, x):
        return self.e0(x) + self.e1(x)
class Net(torch.nn.Module):  # a is used twice per forward, with moe between its two uses
    def __init__(self):
        super().__init__()
        self.a, self.moe, self.head = torch.nn.Linear(8, 8), Moe(), torch.nn.Linear(8, 2)
    def forward(self, x):
        return self.head(self.a(self.moe(self.a(x))))
def run(stage=3, moe=None, **zero):
    torch.manual_seed(0)
    ds = {"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 1,
          "zero_optimization": {"stage": stage, **zero}}
    acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(hf_ds_config=ds, transformer_moe_cls_names=moe),
                      kwargs_handlers=GLOO)
    model = Net()
    before = {n: id(p) for n, p in model.named_parameters()}
    model, opt = acc.prepare(model, torch.optim.SGD(model.parameters(), lr=0.1))
    net = model.module
    seen = {}  # step -> module -> parameter -> status when the module starts (after DeepSpeed's own pre-hook)
    def hook(name):
        def record(mod, args):
            seen[step].setdefault(name, {n: str(p.ds_status).split(".")[-1] if hasattr(p, "ds_status") else "whole"
                                         for n, p in net.named_parameters()})
        return record
    for name, m in net.named_modules():
        if name:
            m.register_forward_pre_hook(hook(name))
    for step in range(3):
        seen[step] = {}
        loss = model(torch.randn(2, 8)).sum()
        acc.backward(loss)
        opt.step()
        opt.zero_grad()
    out = dict(same_objects=before == {n: id(p) for n, p in net.named_parameters()},
               numel={n: p.numel() for n, p in net.named_parameters()},
               persistent=sorted(n for n, p in net.named_parameters() if getattr(p, "ds_persist", False)),
               leaves=sorted(n for n, m in net.named_modules() if getattr(m, "_z3_leaf", False)),
               first=seen[0], last=seen[2])
    AcceleratorState._reset_state(True)
    PartialState._reset_state()
    return out
out = {"zero1": run(stage=1, stage3_prefetch_bucket_size=5), "zero2": run(stage=2, stage3_prefetch_bucket_size=5),
       # threshold 8 and budget 18: a.bias (8) and moe.e0.bias (16 in all) fit, moe.e1.bias (24) not, the later and
       # smaller head.bias (2, 18 in all) still does; no prefetch, default reuse distance
       "persist": run(stage3_param_persistence_threshold=8, stage3_model_persistence_threshold=18,
                      stage3_prefetch_bucket_size=0),
       "prefetch": run(stage3_model_persistence_threshold=0, stage3_prefetch_bucket_size=10**6),
       "reuse0": run(stage3_param_persistence_threshold=0, stage3_prefetch_bucket_size=0, stage3_max_reuse_distance=0),
       "leaf": run(moe="Moe", stage3_param_persistence_threshold=0, stage3_prefetch_bucket_size=0),
       "leaf_zero2": run(stage=2, moe="Moe")}
try:
    run(stage=2, moe="Nope")
    out["unknown_moe"] = "prepared"
except Exception as e:
    out["unknown_moe"] = str(e)
report(**out)
"""


@pytest.fixture(scope="module")
def zero3(tmp_path_factory):
    return run_ds(ZERO3, tmp_path_factory.mktemp("zero3"), timeout=500)


@pytest.fixture(scope="module")
def wrapping():
    return run_ranks(WRAPPING, world=2, timeout=300, drop=("FSDP_", "ACCELERATE_"), HF_HUB_OFFLINE="1")


# ------------------------------------------------------------------------------------------------ FSDP prefetch
@pytest.mark.claim("fsdp1-backward-prefetch-missing-is-none")
@pytest.mark.claim("fsdp2-drops-prefetch-keys")
@pytest.mark.parametrize("case", ["missing", "backward-pre", "backward-post", "no-prefetch", "torch-default",
                                  "fsdp2-backward-dropped", "fsdp2-forward-env-unread",
                                  "fsdp2-forward-python-raises"])
def test_backward_prefetch_values_and_fsdp2(clean_env, caplog, case):
    import inspect

    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin
    from torch.distributed.fsdp import BackwardPrefetch
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

    values = {"backward-pre": ("BACKWARD_PRE", BackwardPrefetch.BACKWARD_PRE),
              "backward-post": ("BACKWARD_POST", BackwardPrefetch.BACKWARD_POST), "no-prefetch": ("NO_PREFETCH", None)}
    if case == "missing":
        assert Plugin(fsdp_version=1).backward_prefetch is None  # no key: None is what prepare() passes to FSDP
    elif case == "torch-default":
        assert inspect.signature(FSDP.__init__).parameters["backward_prefetch"].default == \
            BackwardPrefetch.BACKWARD_PRE
    elif case in values:
        value, expected = values[case]
        clean_env.setenv("FSDP_BACKWARD_PREFETCH", value)
        assert Plugin(fsdp_version=1).backward_prefetch == expected, value
    elif case == "fsdp2-backward-dropped":
        import logging

        for value, _ in values.values():
            clean_env.setenv("FSDP_BACKWARD_PREFETCH", value)
            caplog.clear()
            with caplog.at_level(logging.WARNING, logger="accelerate.utils.dataclasses"):
                assert Plugin(fsdp_version=2).backward_prefetch is None  # FSDP2 drops it ...
            # ... with a logged warning where there was a prefetch to drop (NO_PREFETCH already reads as None)
            assert ("backward_prefetch is not supported in FSDP2" in caplog.text) is (value != "NO_PREFETCH"), value
    elif case == "fsdp2-forward-env-unread":
        clean_env.setenv("FSDP_FORWARD_PREFETCH", "true")
        assert Plugin(fsdp_version=1).forward_prefetch is True
        assert Plugin(fsdp_version=2).forward_prefetch is None  # from the environment: not read, no error
    else:
        with pytest.raises(ValueError, match="forward_prefetch is not yet implemented in FSDP2"):
            Plugin(fsdp_version=2, forward_prefetch=True)


@pytest.mark.claim("fsdp-backward-prefetch-old-name-ignored")
@pytest.mark.claim("fsdp-launch-use-orig-params-true")
@pytest.mark.parametrize("case", ["old-name", "new-name", "use-orig-params-omitted", "plugin-default"])
def test_launch_reads_neither_the_old_prefetch_name_nor_leaves_use_orig_params_off(tmp_path, clean_env, case):
    if case in ("old-name", "use-orig-params-omitted"):
        env = fsdp_launch_env(tmp_path, clean_env, {"fsdp_version": 1,
                                                    "fsdp_backward_prefetch_policy": "BACKWARD_PRE"})
        if case == "old-name":
            assert "FSDP_BACKWARD_PREFETCH" not in env
        else:
            assert env["FSDP_USE_ORIG_PARAMS"] == "true"  # the YAML does not mention it
    elif case == "new-name":
        env = fsdp_launch_env(tmp_path, clean_env, {"fsdp_version": 1, "fsdp_backward_prefetch": "BACKWARD_POST"})
        assert env["FSDP_BACKWARD_PREFETCH"] == "BACKWARD_POST"
    else:
        from accelerate.utils import FullyShardedDataParallelPlugin as Plugin

        assert Plugin(fsdp_version=1).use_orig_params is False  # the plugin's own default


@pytest.mark.claim("fsdp2-prefetch-control-code-only")
@pytest.mark.parametrize("case", ["torch-methods", "accelerate-never-calls"])
def test_fsdp2_prefetch_is_controlled_only_in_code(case):
    import accelerate
    from torch.distributed.fsdp import FSDPModule

    if case == "torch-methods":
        assert callable(FSDPModule.set_modules_to_forward_prefetch)
        assert callable(FSDPModule.set_modules_to_backward_prefetch)
    else:
        sources = Path(accelerate.__file__).parent.rglob("*.py")
        assert not [p for p in sources if "set_modules_to_" in p.read_text(encoding="utf-8")]


# ------------------------------------------------------------------------------------------------ ZeRO-3
_ZERO3_DEFAULTS = {"prefetch-bucket-size": ("prefetch_bucket_size", 50_000_000),
                   "param-persistence-threshold": ("param_persistence_threshold", 100_000),
                   "model-persistence-threshold": ("model_persistence_threshold", sys.maxsize),
                   "max-live-parameters": ("max_live_parameters", 10**9),
                   "max-reuse-distance": ("max_reuse_distance", 10**9)}


@pytest.mark.claim("ds-zero3-prefetch-defaults")
@pytest.mark.parametrize("key", list(_ZERO3_DEFAULTS))
def test_zero3_defaults(key):
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    field, default = _ZERO3_DEFAULTS[key]
    assert getattr(DeepSpeedZeroConfig(stage=3), field) == default


@pytest.mark.claim("ds-zero3-gathers-per-module")
@pytest.mark.parametrize("stage", ["zero-1", "zero-2", "zero-3"])
def test_zero3_gathers_per_module_zero2_keeps_whole_parameters(zero3, stage):
    if stage == "zero-3":
        z3 = zero3["reuse0"]
        assert z3["same_objects"]
        assert set(z3["numel"].values()) == {0}  # outside use every parameter is only its partition
        assert z3["first"]["a"]["a.weight"] == "AVAILABLE" and z3["first"]["a"]["head.weight"] == "NOT_AVAILABLE"
        assert z3["first"]["head"]["head.weight"] == "AVAILABLE"
        return
    z = zero3[stage.replace("-", "")]
    assert z["same_objects"]
    assert z["numel"]["a.weight"] == 64 and set(z["first"]["head"].values()) == {"whole"}


@pytest.mark.claim("ds-zero3-prefetch-after-trace")
@pytest.mark.parametrize("case", ["first-step", "after-trace", "bucket-0"])
def test_zero3_prefetches_after_the_first_step_within_the_bucket(zero3, case):
    pf, off = zero3["prefetch"], zero3["persist"]  # bucket 10**6 against bucket 0
    if case == "first-step":
        assert pf["first"]["a"]["head.weight"] == "NOT_AVAILABLE"  # first step: no recorded order yet
    elif case == "after-trace":
        assert pf["last"]["a"]["head.weight"] == "AVAILABLE"  # later: fetched ahead when the first module starts
    else:
        assert off["last"]["a"]["head.weight"] == "NOT_AVAILABLE"  # bucket 0: nothing ahead


@pytest.mark.claim("ds-zero3-persistence")
@pytest.mark.parametrize("case", ["within-threshold", "model-budget-cap", "param-threshold-0", "model-budget-0"])
def test_zero3_persistence_thresholds(zero3, case):
    p = zero3["persist"]
    if case == "within-threshold":  # <= 8 elements: stays whole once gathered; the bigger ones are partitioned
        assert "a.bias" in p["persistent"] and p["numel"]["a.bias"] == 8 and p["numel"]["a.weight"] == 0
    elif case == "model-budget-cap":  # a budget of 18: moe.e1.bias no longer fits, the later head.bias does
        assert p["persistent"] == ["a.bias", "head.bias", "moe.e0.bias"] and p["numel"]["moe.e1.bias"] == 0
    elif case == "param-threshold-0":
        assert zero3["reuse0"]["persistent"] == []
    else:
        assert zero3["prefetch"]["persistent"] == []  # model budget 0 (param threshold at its default, 100,000)


@pytest.mark.claim("ds-zero3-reuse-distance-keeps-gathered")
@pytest.mark.parametrize("case", ["within-distance", "distance-0"])
def test_zero3_reuse_distance(zero3, case):
    # a runs, then moe, then a again: is a's weight still gathered when moe starts?
    if case == "within-distance":
        assert zero3["persist"]["last"]["moe"]["a.weight"] == "AVAILABLE"  # default distance 1,000,000,000
    else:
        assert zero3["reuse0"]["last"]["moe"]["a.weight"] == "NOT_AVAILABLE"  # 0: released after its use


@pytest.mark.claim("ds-moe-leaf-modules")
@pytest.mark.parametrize("case", ["marked-leaf", "gathered-whole", "unknown-name-raises", "every-stage"])
def test_moe_leaf_modules(zero3, case):
    leaf, plain = zero3["leaf"], zero3["reuse0"]
    if case == "marked-leaf":
        assert leaf["leaves"] == ["moe"] and plain["leaves"] == []
    elif case == "gathered-whole":
        assert leaf["first"]["moe.e0"]["moe.e1.weight"] == "AVAILABLE"  # the whole block is gathered at once
        assert plain["first"]["moe.e0"]["moe.e1.weight"] == "NOT_AVAILABLE"  # per sub-module
    elif case == "unknown-name-raises":
        assert "Could not find a transformer layer class called 'Nope'" in zero3["unknown_moe"]
    else:  # prepare() marks the leaves at ZeRO-2 too, and refuses an unknown name there
        assert zero3["leaf_zero2"]["leaves"] == ["moe"]


# ------------------------------------------------------------------------------------------------ wrapping
@pytest.mark.claim("fsdp-wrap-policy-missing-is-no-wrap")
@pytest.mark.claim("fsdp-transformer-layer-classes")
@pytest.mark.parametrize("case", ["no-policy", "fsdp1-one-unit", "comma-separated", "other-policies-unread",
                                  "unknown-name-raises", "no-split-modules", "plain-module"])
def test_layer_classes_and_the_missing_policy(clean_env, request, case):
    import torch
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin
    from accelerate.utils.fsdp_utils import fsdp2_prepare_auto_wrap_policy

    class Block(torch.nn.Linear):
        pass

    class Other(torch.nn.Linear):
        pass

    class Plain(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.b, self.o = Block(2, 2), Other(2, 2)

    class WithList(Plain):
        _no_split_modules = ["Block"]

    if case == "no-policy":
        for version in (1, 2):
            none = Plugin(fsdp_version=version)
            none.set_auto_wrap_policy(Plain())
            assert none.auto_wrap_policy is None
            assert fsdp2_prepare_auto_wrap_policy(none, Plain()) is None
    elif case == "fsdp1-one-unit":  # accelerate's FSDP1 prepare without a policy: the root is the only unit
        assert request.getfixturevalue("wrapping")[0]["v1_without_policy"] == ["<root>"]
    elif case == "comma-separated":
        clean_env.setenv("FSDP_AUTO_WRAP_POLICY", "TRANSFORMER_BASED_WRAP")
        clean_env.setenv("FSDP_TRANSFORMER_CLS_TO_WRAP", "Block,Other")
        assert Plugin(fsdp_version=2).transformer_cls_names_to_wrap == ["Block", "Other"]
    elif case == "other-policies-unread":
        clean_env.setenv("FSDP_TRANSFORMER_CLS_TO_WRAP", "Block,Other")
        for policy in ("SIZE_BASED_WRAP", "NO_WRAP"):
            clean_env.setenv("FSDP_AUTO_WRAP_POLICY", policy)
            assert Plugin(fsdp_version=2).transformer_cls_names_to_wrap is None, policy  # not read
    elif case == "unknown-name-raises":  # exact class names: 'block' is no class of the model
        clean_env.setenv("FSDP_AUTO_WRAP_POLICY", "TRANSFORMER_BASED_WRAP")
        clean_env.setenv("FSDP_TRANSFORMER_CLS_TO_WRAP", "block")
        for version in (1, 2):
            with pytest.raises(ValueError, match="Could not find the transformer layer class block"):
                p = Plugin(fsdp_version=version)
                p.set_auto_wrap_policy(Plain())
                fsdp2_prepare_auto_wrap_policy(p, Plain())
    else:  # empty: the model's _no_split_modules, which a plain nn.Module lacks
        clean_env.setenv("FSDP_AUTO_WRAP_POLICY", "TRANSFORMER_BASED_WRAP")
        model = WithList() if case == "no-split-modules" else Plain()
        v1 = Plugin(fsdp_version=1)
        v1.set_auto_wrap_policy(model)
        policy = fsdp2_prepare_auto_wrap_policy(Plugin(fsdp_version=2), model)
        if case == "no-split-modules":
            assert v1.auto_wrap_policy.keywords["transformer_layer_cls"] == {Block}  # from _no_split_modules
            assert [policy(m) for m in (model.b, model.o)] == [True, False]
        else:
            assert v1.auto_wrap_policy.keywords["transformer_layer_cls"] == set()  # nothing to wrap, no message
            assert not any(policy(m) for m in model.modules())


@pytest.mark.claim("fsdp2-embedding-and-head-units")
@pytest.mark.parametrize("case", ["no-wrap", "transformer-policy", "tied-embeddings", "order"])
def test_fsdp2_units_of_a_transformers_model(wrapping, case):
    r = wrapping[0]
    if case == "order":  # the policy's modules bottom up, the embedding, the norm with the head, the root last
        assert r["order_transformer"] == ["model.layers.0", "model.layers.1", "model.embed_tokens",
                                          ["model.norm", "lm_head"], "<root>"]
    elif case == "no-wrap":
        assert r["units_no_wrap"] == ["<root>", "lm_head", "model.embed_tokens", "model.norm"]
        assert r["groups_untied"] == [["<root>"], ["lm_head", "model.norm"], ["model.embed_tokens"]]
    elif case == "transformer-policy":
        assert r["units_transformer"] == ["<root>", "lm_head", "model.embed_tokens", "model.layers.0",
                                          "model.layers.1", "model.norm"]
    else:  # tied embeddings: the input embedding, the final norm and the head share one unit
        assert r["groups_tied"] == [["<root>"], ["lm_head", "model.embed_tokens", "model.norm"]]


@pytest.mark.claim("fsdp-ignored-modules")
@pytest.mark.parametrize("version", ["v1", "v2"], ids=["fsdp1", "fsdp2"])
def test_ignored_modules_stay_whole_and_unreduced(wrapping, version):
    import torch
    from accelerate.utils.fsdp_utils import get_parameters_from_modules

    model = torch.nn.Sequential(torch.nn.Linear(2, 2))
    model.add_module("fc", torch.nn.Linear(2, 2))
    assert len(get_parameters_from_modules("f", model, torch.device("cpu"))) == 0  # the whole name must match
    assert len(get_parameters_from_modules("f.*", model, torch.device("cpu"))) == 2
    for rank in (0, 1):
        v = wrapping[rank][version]
        if version == "v1":
            assert v["is_fsdp"] and v["ignored_modules"] == ["Linear"]  # head reached FSDP1 as an ignored module
        else:
            assert v["managed_dtensor"] and v["managed_averaged"]  # the rest is sharded and averaged
        assert v["head_plain"]  # whole, a plain Parameter on every rank
        assert v["head_grad_local"] and v["ranks_differ"]  # this rank's own gradient, not averaged


# ------------------------------------------------------------------------------------------------ summoning
@pytest.mark.claim("fsdp1-use-orig-params")
@pytest.mark.parametrize("orig", [False, True], ids=["orig-params-false", "orig-params-true"])
def test_use_orig_params_flat_or_original(wrapping, orig):
    flat = wrapping[0]["flat"]
    names, mixed = flat[f"names_{orig}"], flat[f"mixed_{orig}"]
    if orig:  # the original parameters, and a unit mixing frozen and trainable ones is wrapped
        assert len(names) == 6 and names[0].endswith("blocks.0.fc.weight")
        assert mixed == "wrapped"
    else:  # one flat parameter per unit, and the mix is refused
        assert names == ["_fsdp_wrapped_module._flat_param"]
        assert mixed.startswith("Must flatten tensors with uniform `requires_grad`")
