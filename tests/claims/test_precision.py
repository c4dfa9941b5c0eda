"""Claims about precision (wizard/core/claims/precision.py).

FSDP through accelerate and DeepSpeed engines run in fresh processes (tests/claims/precision_runs/): accelerate keeps
global state, the CPU FSDP shim patches it, and deepspeed.initialize sets up its comm backend once per process. The
DeepSpeed run loads DeepSpeed's shm comm op from TORCH_EXTENSIONS_DIR (built once, 60-100 s, if missing there).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from gloo_ranks import EXTENSIONS, result_of
from helpers import ROOT

RUNS = Path(__file__).parent / "precision_runs"


def _run(script: str, *args: str, timeout: int = 120) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TORCH_EXTENSIONS_DIR": EXTENSIONS, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, str(RUNS / script), *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)
    return result_of(proc.stdout, proc.returncode, proc.stderr)


@pytest.fixture(scope="module")
def fsdp():
    runs: dict[tuple[int, str], dict] = {}

    def get(version: int, mp: str) -> dict:
        if (version, mp) not in runs:
            runs[version, mp] = _run("fsdp_run.py", str(version), mp)
        return runs[version, mp]

    return get


@pytest.fixture(scope="module")
def ds():
    return _run("ds_run.py", timeout=600)  # an op build, when the cache lacks it, must never be killed


# ------------------------------------------------------------------------------------------------------ FSDP
@pytest.mark.claim("fsdp1-autocast-fsdp2-none")
@pytest.mark.parametrize("version", [pytest.param(1, id="fsdp1"), pytest.param(2, id="fsdp2")])
def test_fsdp1_adds_autocast_fsdp2_does_not(fsdp, version):
    got = fsdp(version, "bf16")
    assert got["dist"] == "DistributedType.FSDP"
    if version == 1:  # forward wrapped (prepare_model), autocast on inside it, outputs converted back to fp32
        assert got["forward_wrapped"] and got["autocast"] and got["model_out"] == "torch.float32"
    else:  # no wrapper, no autocast; the matmuls are bf16 only because MixedPrecisionPolicy casts the parameters
        assert not got["forward_wrapped"] and not got["autocast"]
        assert got["policy"] == "MixedPrecisionPolicy" and got["param_dtype"] == "torch.bfloat16"
        assert got["matmul_out"] == "torch.bfloat16" and got["model_out"] == "torch.bfloat16"


@pytest.mark.claim("fsdp1-upcast-per-unit")
@pytest.mark.parametrize("case", ["mixed-unit", "warning"])
def test_fsdp1_upcasts_the_whole_unit(fsdp, case):
    v1 = fsdp(1, "bf16")
    if case == "warning":
        assert v1["upcast_warning"]
        return
    [(dtype, fqns)] = v1["units"]  # one unit holds the frozen base and the trainable adapter
    assert dtype == "torch.float32" and "base.weight" in fqns and "adapter.weight" in fqns
    assert v1["params"]["block.base.weight"] == "torch.float32"  # frozen, loaded bf16, upcast all the same


@pytest.mark.claim("fsdp2-upcast-per-parameter")
@pytest.mark.parametrize("case", ["trainable", "frozen", "no-warning"])
def test_fsdp2_upcasts_trainable_parameters_only(fsdp, case):
    v2 = fsdp(2, "bf16")
    if case == "trainable":
        assert v2["params"]["block.adapter.weight"] == "torch.float32"
    elif case == "frozen":
        assert v2["params"]["block.base.weight"] == "torch.bfloat16"  # keeps the load dtype
    else:
        assert not v2["upcast_warning"]


@pytest.mark.claim("fsdp-policy-from-mixed-precision")
@pytest.mark.parametrize("case", ["fsdp1-bf16", "fsdp1-fp16", "fsdp2-bf16", "fsdp2-fp16", "fp8-as-bf16",
                                  "policy-in-code"])
def test_fsdp_policy_follows_mixed_precision(case):
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin
    from torch.distributed.fsdp import MixedPrecision, MixedPrecisionPolicy

    if case == "policy-in-code":
        own = Plugin(fsdp_version=2, mixed_precision_policy=MixedPrecisionPolicy(param_dtype=torch.bfloat16,
                                                                                reduce_dtype=torch.float32))
        own.set_mixed_precision("bf16")  # a policy given in code keeps its reduce dtype
        assert own.mixed_precision_policy.reduce_dtype == torch.float32
        return
    version, mp = (2, "fp8") if case == "fp8-as-bf16" else (int(case[4]), case[6:])
    want = torch.float16 if mp == "fp16" else torch.bfloat16  # fp8 runs FSDP on bf16
    plugin = Plugin(fsdp_version=version, sync_module_states=False) if version == 1 else Plugin(fsdp_version=2)
    plugin.set_mixed_precision(mp)
    p = plugin.mixed_precision_policy
    if version == 1:
        assert isinstance(p, MixedPrecision)
        assert p.param_dtype == p.reduce_dtype == p.buffer_dtype == want
    else:
        assert isinstance(p, MixedPrecisionPolicy) and not hasattr(p, "buffer_dtype")
        assert p.param_dtype == p.reduce_dtype == p.output_dtype == want


@pytest.mark.claim("fsdp-no-mixed-precision-keeps-load-dtype")
@pytest.mark.parametrize("version", [pytest.param(1, id="fsdp1"), pytest.param(2, id="fsdp2")])
def test_fsdp_without_mixed_precision_trains_in_the_load_dtype(fsdp, version):
    r = fsdp(version, "no")
    assert r["policy"] == "NoneType" and not r["scaler"]
    assert set(r["params"].values()) == {"torch.bfloat16"} and r["adam_dtypes"] == ["torch.bfloat16"]
    b = r["bytes"]
    assert (b["weights"] + b["grads"] + b["adam"]) / b["numel"] == 8  # 2 + 2 + 4, after a real AdamW step
    if version == 2:
        mp = fsdp(2, "bf16")["bytes"]
        assert (mp["weights"] + mp["grads"] + mp["adam"]) / mp["numel"] == 16  # mixed precision: fp32 all through


# ------------------------------------------------------------------------------------------------------ DeepSpeed
@pytest.mark.claim("ds-module-cast-fp32-master")
@pytest.mark.claim("ds-zero0-no-master")
@pytest.mark.claim("ds-bf16-master-weights-option")
@pytest.mark.claim("ds-communication-dtype-default")
@pytest.mark.claim("ds-zero-init-dtype")
@pytest.mark.parametrize("case", ["bf16-on", "bf16-off", "fp32-model", "zero0", "master-and-states", "master-only",
                                  "stages-1-2-3", "stage0-asserts", "comm-json-set", "comm-16bit-enabled",
                                  "comm-fp32", "zero-init-bf16", "zero-init-fp16", "zero-init-fp32"])
def test_deepspeed_engine_dtypes_and_bytes(ds, case):
    from deepspeed.runtime.config import DeepSpeedConfig

    def per_param(r, grad=2):  # weights + master + Adam moments, measured; + the gradient in the module's dtype
        b = r["bytes"]
        return (b["weights"] + b["master"] + b["adam"]) / r["numel"] + grad

    def cfg(stage, **extra):
        return {"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": stage},
                "bf16": {"enabled": True, "bf16_master_weights_and_grads": True, "bf16_optimizer_states": True},
                **extra}

    if case in ("bf16-on", "bf16-off"):  # bf16 weights, bf16 on or off: the module stays bf16, buffers keep fp32,
        r = ds["zero1_bf16" if case == "bf16-on" else "zero1_off"]  # fp32 masters
        assert r["optimizer"] == "DeepSpeedZeroOptimizer" and r["module"] == ["torch.bfloat16"]
        assert r["buffer"] == "torch.float32" and r["master"] == ["torch.float32"] and r["state"] == ["torch.float32"]
        assert per_param(r) == 16  # 8 more than FSDP's 8 in bf16 without mixed precision
        assert r["dynamic_loss_scale"] is False
    elif case == "fp32-model":  # an fp32 model: the master partition is a second fp32 copy
        fp32 = ds["zero1_fp32"]
        assert fp32["module"] == fp32["master"] == ["torch.float32"] and per_param(fp32, grad=4) == 20
    elif case == "zero0":
        z0 = ds["zero0_off"]
        assert z0["optimizer"] == "AdamW" and z0["master"] == [] and z0["state"] == ["torch.bfloat16"]
        assert per_param(z0) == 8
    elif case == "master-and-states":
        m = ds["zero1_bf16_master"]
        assert m["master"] == ["torch.bfloat16"] and m["state"] == ["torch.bfloat16"] and per_param(m) == 10
    elif case == "master-only":
        assert "requires ZeRO-1 Offload with DeepSpeedCPUAdam" in ds["zero1_bf16_master_only"]["assert"]
    elif case == "stages-1-2-3":
        for stage in (1, 2, 3):
            c = DeepSpeedConfig(cfg(stage))
            assert c.bfloat16_config.bf16_master_weights_and_grads and c.bfloat16_config.bf16_optimizer_states
    elif case == "stage0-asserts":
        with pytest.raises(AssertionError, match="only supported with ZeRO Stage 1, 2, or 3"):
            DeepSpeedConfig(cfg(0))
    elif case == "comm-json-set":
        for stage in (1, 2, 3):
            assert DeepSpeedConfig(cfg(stage, communication_data_type="fp32")).communication_data_type == torch.float32
    elif case == "comm-16bit-enabled":
        assert ds["zero1_bf16"]["comm"] == "torch.bfloat16"
    elif case == "comm-fp32":
        assert ds["zero1_off"]["comm"] == "torch.float32"
    elif case == "zero-init-bf16":
        assert ds["zero_init"] == "torch.bfloat16"  # created as fp32 inside zero.Init with bf16 enabled
    elif case == "zero-init-fp16":
        assert ds["zero_init_fp16"] == "torch.float16"  # created as fp32 inside zero.Init with fp16 enabled
    else:
        assert ds["zero_init_fp32"] == "torch.float32"  # created as bf16 inside zero.Init with neither enabled


# ------------------------------------------------------------------------------------------------------ accelerate
BASE = {"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 2}}


@pytest.mark.claim("ds-mixed-precision-to-json")
@pytest.mark.parametrize("mp", ["fp16", "bf16"], ids=["fp16-added", "bf16-auto-filled"])
def test_mixed_precision_becomes_the_json_blocks(mp):
    from accelerate.utils import DeepSpeedPlugin
    from deepspeed.runtime.config import DeepSpeedConfig

    if mp == "fp16":
        p = DeepSpeedPlugin(hf_ds_config=dict(BASE))
        p.set_mixed_precision("fp16")
        assert p.deepspeed_config["fp16"] == {"enabled": True, "auto_cast": True}
        assert p.deepspeed_config["bf16"] == {"enabled": False}
        assert DeepSpeedConfig(p.deepspeed_config).float16_config.loss_scale == 0  # 0 = dynamic loss scaling
        return
    p = DeepSpeedPlugin(hf_ds_config={**BASE, "bf16": {"enabled": "auto"}})
    p.set_mixed_precision("bf16")
    assert p.deepspeed_config["bf16"] == {"enabled": True} and p.deepspeed_config["fp16"] == {"enabled": False}


@pytest.mark.claim("ds-json-overrides-launch-mixed-precision")
@pytest.mark.parametrize("json_block", ["same-dtype-disabled", "other-dtype-enabled"])
def test_a_json_block_silently_overrides_launch_mixed_precision(fresh_state, json_block):
    from accelerate.state import AcceleratorState
    from accelerate.utils import DeepSpeedPlugin, TorchDynamoPlugin

    if json_block == "other-dtype-enabled":
        other = DeepSpeedPlugin(hf_ds_config={**BASE, "fp16": {"enabled": True}})
        with pytest.raises(ValueError, match="cannot be set to `bf16` when `fp16` is set"):
            other.set_mixed_precision("bf16")  # only the other 16-bit dtype raises
        return
    fresh_state.setenv("ACCELERATE_USE_DEEPSPEED", "true")
    plugin = DeepSpeedPlugin(hf_ds_config={**BASE, "bf16": {"enabled": False}})
    # what `--mixed_precision bf16` (ACCELERATE_MIXED_PRECISION) or Accelerator(mixed_precision="bf16") passes on
    state = AcceleratorState(mixed_precision="bf16", deepspeed_plugin=plugin, dynamo_plugin=TorchDynamoPlugin(),
                             _from_accelerator=True)
    assert str(state.distributed_type) == "DistributedType.DEEPSPEED"
    assert plugin.deepspeed_config["bf16"] == {"enabled": False} and state.mixed_precision == "no"  # no message


@pytest.mark.claim("ds-file-refuses-yaml-mixed-precision")
@pytest.mark.parametrize("case", ["yaml-no", "yaml-bf16", "command-line"])
def test_yaml_mixed_precision_next_to_a_json_raises(tmp_path, monkeypatch, case):
    import yaml
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser
    from accelerate.utils import DeepSpeedPlugin

    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump({"compute_environment": "LOCAL_MACHINE", "distributed_type": "DEEPSPEED",
                                   "mixed_precision": "bf16" if case == "yaml-bf16" else "no", "num_processes": 2,
                                   "num_machines": 1, "deepspeed_config": {"deepspeed_config_file": "ds.json"}}))
    parse = launch_command_parser().parse_args
    if case == "command-line":
        assert not _validate_launch_command(parse(["--config_file", str(cfg), "--mixed_precision", "bf16",
                                                   "x.py"]))[2]
        return
    assert _validate_launch_command(parse(["--config_file", str(cfg), "x.py"]))[2]  # 'no' counts as from the YAML
    monkeypatch.setenv("ACCELERATE_CONFIG_DS_FIELDS", "mixed_precision")  # what launch_command then exports
    with pytest.raises(ValueError, match="will be ignored"):
        DeepSpeedPlugin(hf_ds_config=dict(BASE))


# ---------------------------------------------------------------- fp8 options: written -> exported -> read
_FP8_CASES = {
    # scope case -> (the answers, the recipe field -> the value it must read)
    "te": ({"precision.fp8_backend": "te", "precision.fp8_format": "E4M3", "precision.fp8_margin": 2,
            "precision.fp8_interval": 3, "precision.fp8_amax_history_len": 16, "precision.fp8_amax_compute_algo": "max",
            "precision.fp8_use_autocast_during_eval": True},
           {"fp8_format": "E4M3", "margin": 2, "interval": 3, "amax_history_len": 16, "amax_compute_algo": "max",
            "use_autocast_during_eval": True}),
    "te-override-split": ({"precision.fp8_backend": "te", "precision.fp8_override_dgrad": True},
                          {"override_linear_precision": (False, True, False)}),
    "msamp": ({"backend": "deepspeed", "sharding.strategy": "grads_optimizer", "precision.fp8_backend": "msamp",
               "precision.fp8_opt_level": "O1"}, {"opt_level": "O1"}),
    "ao": ({"precision.fp8_backend": "ao", "precision.fp8_enable_fsdp_float8_all_gather": False,
            "precision.fp8_pad_inner_dim": False, "loading.ram_efficient": False},
           {"enable_fsdp_float8_all_gather": False, "pad_inner_dim": False}),
    "ao-defaults": ({"precision.fp8_backend": "ao", "loading.ram_efficient": False},
                    {"enable_fsdp_float8_all_gather": True, "pad_inner_dim": True}),
}


def _fp8_recipe(tmp_path, monkeypatch, changes: dict, build: bool = True):
    """The recipe the Accelerator would build for the files the wizard writes from ``changes`` (fp8 on): the YAML
    through accelerate launch (its fp8 package check answered yes: none is installed here), the environment it
    exports, then the recipe class of ACCELERATE_FP8_BACKEND built from that environment. The recipes' own checks
    that their package is importable are answered yes and torchao's config class is a recorder: the recipes read
    the environment before they touch the package. ``build`` False: the environment only (recipe None)."""
    import sys
    import types

    import accelerate.utils.dataclasses as dataclasses
    import accelerate.utils.launch as ulaunch
    from accelerate.utils import AORecipeKwargs, MSAMPRecipeKwargs, TERecipeKwargs
    from launch_support import Launch

    from wizard.core.answers import default_answers
    from wizard.core.answers.render import render

    config = render(default_answers().replace({"precision.mixed_precision": "fp8", **changes})).accelerate
    monkeypatch.setattr(ulaunch, "is_fp8_available", lambda: True)
    env = Launch(tmp_path, config).env
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    if not build:
        return env, None
    monkeypatch.setattr(dataclasses, "is_transformer_engine_available", lambda: True)
    monkeypatch.setattr(dataclasses, "is_torchao_available", lambda: True)
    float8 = types.ModuleType("torchao.float8")
    float8.Float8LinearConfig = lambda **kw: types.SimpleNamespace(**kw)
    monkeypatch.setitem(sys.modules, "torchao", types.ModuleType("torchao"))
    monkeypatch.setitem(sys.modules, "torchao.float8", float8)
    recipe = {"TE": TERecipeKwargs, "MSAMP": MSAMPRecipeKwargs, "AO": AORecipeKwargs}[env["ACCELERATE_FP8_BACKEND"]]
    return env, recipe()


@pytest.mark.claim("fp8-recipe-reads-launch-env")
@pytest.mark.parametrize("case", ["te", "te-override-split", "msamp", "ao", "ao-defaults", "backend"])
def test_every_fp8_option_written_reaches_its_recipe(tmp_path, clean_env, case):
    if case == "backend":  # the Accelerator picks the recipe from ACCELERATE_FP8_BACKEND, which backend exports
        from accelerate import Accelerator

        for backend, spelled in (("ao", "AO"), ("te", "TE"), ("msamp", "MSAMP")):
            env, _ = _fp8_recipe(tmp_path, clean_env, {"precision.fp8_backend": backend,
                                                       "loading.ram_efficient": False}, build=False)
            assert env["ACCELERATE_FP8_BACKEND"] == spelled
            for key in env:  # only what the recipe choice reads (fp8 state set-up would need the package)
                if not key.startswith("ACCELERATE_FP8_"):
                    clean_env.delenv(key)
            assert Accelerator(cpu=True).fp8_backend == spelled
            from accelerate.state import AcceleratorState, PartialState

            AcceleratorState._reset_state(True)
            PartialState._reset_state()
        return
    changes, expected = _FP8_CASES[case]
    env, recipe = _fp8_recipe(tmp_path, clean_env, changes)
    if case == "te-override-split":
        assert (env["ACCELERATE_FP8_OVERRIDE_FPROP"], env["ACCELERATE_FP8_OVERRIDE_DGRAD"],
                env["ACCELERATE_FP8_OVERRIDE_WGRAD"]) == ("False", "True", "False")
    if case.startswith("ao"):
        assert {k: getattr(recipe.config, k) for k in expected} == expected  # what torchao's config is built with
    assert {k: getattr(recipe, k) for k in expected} == expected


@pytest.mark.claim("fp8-auto-detect-order")
@pytest.mark.parametrize("case,installed,built", [
    pytest.param("torchao-first", ("torchao", "transformer_engine", "msamp"), "ao_recipe_handler", id="torchao-first"),
    pytest.param("te-second", ("transformer_engine", "msamp"), "te_recipe_handler", id="te-second"),
    pytest.param("msamp-last", ("msamp",), "msamp_recipe_handler", id="msamp-last")])
def test_fp8_without_a_backend_takes_the_first_installed(fresh_state, case, installed, built):
    """Accelerator(mixed_precision="fp8") with no backend in the environment, on CPU, with the package checks
    answered as if ``installed`` were there (none of them is here; torchao's config class is a recorder)."""
    import sys
    import types

    import accelerate.accelerator as accelerator_mod
    import accelerate.state as state_mod
    import accelerate.utils.dataclasses as dataclasses
    from accelerate import Accelerator

    fresh_state.setattr(state_mod, "is_fp8_available", lambda: True)
    for module in (accelerator_mod, dataclasses):
        for package, check in (("torchao", "is_torchao_available"), ("msamp", "is_msamp_available"),
                               ("transformer_engine", "is_transformer_engine_available")):
            if hasattr(module, check):
                fresh_state.setattr(module, check, lambda p=package: p in installed)
    float8 = types.ModuleType("torchao.float8")
    float8.Float8LinearConfig = lambda **kw: types.SimpleNamespace(**kw)
    fresh_state.setitem(sys.modules, "torchao", types.ModuleType("torchao"))
    fresh_state.setitem(sys.modules, "torchao.float8", float8)
    acc = Accelerator(cpu=True, mixed_precision="fp8")
    handlers = {h: getattr(acc, h) for h in ("ao_recipe_handler", "te_recipe_handler", "msamp_recipe_handler")}
    assert [h for h, v in handlers.items() if v is not None] == [built]


@pytest.mark.claim("fp8-recipe-needs-its-package")
@pytest.mark.parametrize("case", ["te", "ao", "msamp"])
def test_each_fp8_recipe_needs_its_own_package(clean_env, case):
    """None of the three packages is installed here; the launcher's own check (any of them) is not involved."""
    import importlib.util

    from accelerate import Accelerator
    from accelerate.utils import AORecipeKwargs, TERecipeKwargs

    assert not any(importlib.util.find_spec(p) for p in ("torchao", "transformer_engine", "msamp"))
    if case == "te":
        with pytest.raises(ImportError, match="TransformerEngine is not available"):
            TERecipeKwargs()
    elif case == "ao":
        with pytest.raises(ImportError, match="TorchAO is not available"):
            AORecipeKwargs()
    else:  # checked before the Accelerator's state is used
        with pytest.warns(FutureWarning, match="MS-AMP is deprecated"), \
                pytest.raises(ImportError, match="MS-AMP was not found"):
            Accelerator._prepare_msamp(None, device_placement=[])
