"""Claims stated by the DeepSpeed config rules (wizard/core/claims/rules_ds.py).

The plugin, the launcher and DeepSpeed's config models run in this process (accelerate's state is reset around each
test); whatever needs a DeepSpeed engine runs in one gloo rank in a subprocess (run_ds of gloo_ranks.py)."""
from __future__ import annotations

import os

import pytest
import yaml
from gloo_ranks import run_ds
from launch_support import ds_launch_env, ds_yaml


@pytest.fixture(autouse=True)
def _fresh_state(monkeypatch):
    """No ACCELERATE_* variable of the outer environment, and accelerate's global state reset before and after."""
    from accelerate.state import AcceleratorState, PartialState

    for k in list(os.environ):
        if k.startswith(("ACCELERATE_", "FSDP_")):
            monkeypatch.delenv(k)
    AcceleratorState._reset_state(True)
    PartialState._reset_state()
    yield
    AcceleratorState._reset_state(True)
    PartialState._reset_state()


def _inline(**keys) -> dict:
    config = ds_yaml("unused.json", **keys)
    del config["deepspeed_config"]["deepspeed_config_file"]
    return config


def _ds_config(extra: dict):
    from deepspeed.runtime.config import DeepSpeedConfig

    return DeepSpeedConfig({"train_micro_batch_size_per_gpu": 1, **extra})


# ------------------------------------------------------------------------------------------ inline deepspeed_config
@pytest.mark.claim("ds-zero-stage-values")
def test_zero_stage_must_be_0_to_3(monkeypatch):
    from accelerate.utils import DeepSpeedPlugin

    monkeypatch.setenv("ACCELERATE_DEEPSPEED_ZERO_STAGE", "two")
    with pytest.raises(ValueError):
        DeepSpeedPlugin()
    monkeypatch.setenv("ACCELERATE_DEEPSPEED_ZERO_STAGE", "4")
    assert DeepSpeedPlugin().deepspeed_config["zero_optimization"]["stage"] == 4  # the plugin passes it on
    with pytest.raises(Exception, match="stage"):
        _ds_config({"zero_optimization": {"stage": 4}})
    for stage in range(4):
        _ds_config({"zero_optimization": {"stage": stage}})


@pytest.mark.claim("ds-offload-device-values")
def test_offload_devices_are_none_cpu_or_nvme(tmp_path):
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    env = ds_launch_env(tmp_path, _inline(zero_stage=3, offload_optimizer_device="CPU", offload_param_device="NVMe"))
    assert env["ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE"] == "cpu"
    assert env["ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE"] == "nvme"
    for device in ("none", "cpu", "nvme"):
        DeepSpeedZeroConfig(stage=3, offload_optimizer={"device": device}, offload_param={"device": device})
    for section in ("offload_optimizer", "offload_param"):
        with pytest.raises(Exception, match="device"):
            DeepSpeedZeroConfig(stage=3, **{section: {"device": "gpu"}})


@pytest.mark.claim("ds-inline-gradient-accumulation-whole-positive")
def test_inline_gradient_accumulation_must_be_a_positive_whole_number(monkeypatch, tmp_path):
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState, PartialState
    from accelerate.utils import DeepSpeedPlugin

    env = ds_launch_env(tmp_path, _inline(gradient_accumulation_steps=2.0))
    assert env["ACCELERATE_GRADIENT_ACCUMULATION_STEPS"] == "2.0"  # str() of the YAML value
    for text in ("2.0", "two"):
        monkeypatch.setenv("ACCELERATE_GRADIENT_ACCUMULATION_STEPS", text)
        with pytest.raises(ValueError):
            Accelerator(cpu=True)
        AcceleratorState._reset_state(True)
        PartialState._reset_state()
    monkeypatch.setenv("ACCELERATE_GRADIENT_ACCUMULATION_STEPS", "0")
    assert Accelerator(cpu=True).gradient_accumulation_steps == 0  # passes Accelerator()
    gas = DeepSpeedPlugin().deepspeed_config["gradient_accumulation_steps"]
    assert gas == 0
    with pytest.raises(AssertionError, match="greater than 0"):
        _ds_config({"gradient_accumulation_steps": gas})


@pytest.mark.claim("ds-inline-gradient-clipping-float")
def test_inline_gradient_clipping_must_be_a_number(monkeypatch):
    from accelerate.utils import DeepSpeedPlugin

    monkeypatch.setenv("ACCELERATE_GRADIENT_CLIPPING", "high")
    with pytest.raises(ValueError):
        DeepSpeedPlugin()
    monkeypatch.setenv("ACCELERATE_GRADIENT_CLIPPING", "0.5")
    assert DeepSpeedPlugin().deepspeed_config["gradient_clipping"] == 0.5


@pytest.mark.claim("ds-zero3-init-flag-truth-words")
def test_zero3_init_flag_must_be_a_truth_word(monkeypatch):
    from accelerate.utils import DeepSpeedPlugin

    monkeypatch.setenv("ACCELERATE_DEEPSPEED_ZERO_STAGE", "3")
    monkeypatch.setenv("ACCELERATE_DEEPSPEED_ZERO3_INIT", "maybe")
    with pytest.raises(ValueError, match="invalid truth value"):
        DeepSpeedPlugin()
    for word, on in (("on", True), ("y", True), ("off", False), ("0", False)):
        monkeypatch.setenv("ACCELERATE_DEEPSPEED_ZERO3_INIT", word)
        assert DeepSpeedPlugin().zero3_init_flag is on


@pytest.mark.claim("ds-zero3-check-wants-the-number-3")
def test_a_string_stage_is_not_zero3_for_the_init_flag():
    from accelerate.utils import DeepSpeedPlugin

    ds = {"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": "3"}}
    with pytest.warns(UserWarning, match="only applicable for ZeRO Stage 3"):
        plugin = DeepSpeedPlugin(hf_ds_config=ds, zero3_init_flag=True)
    assert plugin.zero3_init_flag is False
    ds["zero_optimization"]["stage"] = 3
    assert DeepSpeedPlugin(hf_ds_config=ds, zero3_init_flag=True).zero3_init_flag is True


@pytest.mark.claim("ds-zero3-save-16bit-exact-true")
def test_zero3_save_16bit_model_is_on_only_for_true(monkeypatch, tmp_path):
    from accelerate.utils import DeepSpeedPlugin

    assert yaml.safe_load("v: yes")["v"] is True  # unquoted yes is a YAML boolean, exported as 'true'
    for value, text in ((True, "true"), ("Yes", "yes"), ("1", "1")):
        env = ds_launch_env(tmp_path, _inline(zero_stage=3, zero3_save_16bit_model=value))
        assert env["ACCELERATE_DEEPSPEED_ZERO3_SAVE_16BIT_MODEL"] == text
    for text, on in (("true", True), ("TRUE", True), ("yes", False), ("1", False), ("on", False)):
        monkeypatch.setenv("ACCELERATE_DEEPSPEED_ZERO3_SAVE_16BIT_MODEL", text)
        plugin = DeepSpeedPlugin(zero_stage=3)
        assert plugin.zero3_save_16bit_model is on
        assert plugin.deepspeed_config["zero_optimization"]["stage3_gather_16bit_weights_on_model_save"] is on


@pytest.mark.claim("ds-16bit-gather-zero3-only")
def test_16bit_gathering_is_not_read_below_zero3(tmp_path):
    out = run_ds("""
        plugin = DeepSpeedPlugin(zero_stage=2, zero3_save_16bit_model=False)
        acc = Accelerator(deepspeed_plugin=plugin, kwargs_handlers=GLOO)
        m = torch.nn.Linear(4, 4)
        engine, opt, dl = acc.prepare(m, torch.optim.SGD(m.parameters(), lr=0.1), loader())
        sd = acc.get_state_dict(engine)
        acc.save_model(engine, "out")
        saved = engine.save_16bit_model("out16")
        report(flag=acc.deepspeed_config["zero_optimization"]["stage3_gather_16bit_weights_on_model_save"],
               keys=sorted(sd), shape=list(sd["weight"].shape), files=sorted(os.listdir("out")),
               saved=saved, files16=sorted(os.listdir("out16")))
    """, tmp_path)
    assert out["flag"] is False
    assert out["keys"] == ["bias", "weight"] and out["shape"] == [4, 4]
    assert out["files"] == ["model.safetensors"]
    assert out["saved"] is True and out["files16"] == ["pytorch_model.bin"]


@pytest.mark.claim("ds-multinode-launcher-names")
def test_the_runner_refuses_an_unknown_launcher(tmp_path, monkeypatch):
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser
    from accelerate.utils.launch import prepare_deepspeed_cmd_env
    from deepspeed.launcher import runner

    def accelerate_cmd(launcher: str) -> list[str]:
        path = tmp_path / "accelerate.yaml"
        path.write_text(yaml.safe_dump(_inline(deepspeed_multinode_launcher=launcher, deepspeed_hostfile="hf")
                                       | {"num_machines": 2, "main_process_ip": "10.0.0.1",
                                          "main_process_port": 29500}))
        args = launch_command_parser().parse_args(["--config_file", str(path), "train.py"])
        args, _, _ = _validate_launch_command(args)
        args.deepspeed_fields_from_accelerate_config = ""
        return prepare_deepspeed_cmd_env(args)[0]

    assert accelerate_cmd("standard") is None  # no deepspeed runner: accelerate runs torchrun instead
    assert "--no_ssh" in accelerate_cmd("nossh")
    cmd = accelerate_cmd("Standard")
    assert cmd[0] == "deepspeed" and cmd[cmd.index("--launcher") + 1] == "Standard"  # not accelerate's own

    monkeypatch.chdir(tmp_path)
    (tmp_path / "hostfile").write_text("node-a slots=1\nnode-b slots=1\n")

    def runner_error(launcher: str) -> BaseException:
        with pytest.raises(BaseException) as info:
            runner.main(["--hostfile", str(tmp_path / "hostfile"), "--launcher", launcher, "--no_ssh_check",
                         "--master_addr", "10.0.0.1", "train.py"])
        return info.value

    for bad in ("Standard", "torchrun"):
        error = runner_error(bad)
        assert isinstance(error, NotImplementedError) and "Unknown launcher" in str(error)
    for known in ("PDSH", "impi", "slurm"):  # known names: they get as far as looking for the backend's program
        error = runner_error(known)
        assert not isinstance(error, NotImplementedError), error


# ------------------------------------------------------------------------------------------ DeepSpeed JSON values
@pytest.mark.claim("ds-fp16-bf16-exclusive")
@pytest.mark.claim("ds-fp16-loss-scale-checked")
@pytest.mark.claim("ds-fp16-master-weights-zero-stages")
@pytest.mark.claim("ds-keep-in-fp32-modules-list")
def test_precision_values_deepspeed_refuses():
    with pytest.raises(AssertionError, match="simultaneously"):
        _ds_config({"fp16": {"enabled": True}, "bf16": {"enabled": True}})
    for fp16 in ({"loss_scale": -1}, {"loss_scale": True}, {"loss_scale": "dynamic"}, {"loss_scale_window": True},
                 {"min_loss_scale": False}, {"enabled": True, "loss_scale": 0, "loss_scale_window": 0},
                 {"enabled": True, "loss_scale": 0, "min_loss_scale": 0}):
        with pytest.raises(Exception, match="fp16"):
            _ds_config({"fp16": fp16})
    _ds_config({"fp16": {"enabled": False, "loss_scale": 0, "loss_scale_window": 0}})  # only checked when dynamic
    _ds_config({"fp16": {"enabled": True, "loss_scale": 128}})
    with pytest.raises(AssertionError, match="Stage 1, 2, or 3"):
        _ds_config({"fp16": {"enabled": True, "fp16_master_weights_and_grads": True}})
    _ds_config({"fp16": {"enabled": True, "fp16_master_weights_and_grads": True}, "zero_optimization": {"stage": 2}})
    for bad in ("Embedding", ["norm", 3]):
        with pytest.raises(Exception, match="keep_in_fp32_modules"):
            _ds_config({"data_types": {"keep_in_fp32_modules": bad}})
    _ds_config({"data_types": {"keep_in_fp32_modules": ["norm"]}})


@pytest.mark.claim("ds-gradient-allreduce-op-values")
@pytest.mark.claim("ds-communication-data-type-values")
@pytest.mark.claim("ds-checkpoint-options-checked")
def test_json_values_deepspeed_refuses_when_it_reads_the_config():
    with pytest.raises(ValueError, match="gradient_allreduce_op"):
        _ds_config({"gradient_allreduce_op": "max"})
    with pytest.raises(ValueError, match="ZeRO stage 3"):
        _ds_config({"gradient_allreduce_op": "SUM", "zero_optimization": {"stage": 3}})
    _ds_config({"gradient_allreduce_op": "SUM", "zero_optimization": {"stage": 2}})
    for key in ("communication_data_type", "seq_parallel_communication_data_type"):
        with pytest.raises(ValueError, match="communication_data_type"):
            _ds_config({key: "int8"})
        _ds_config({key: "BF16"})
    with pytest.raises(Exception, match="tag_validation"):
        _ds_config({"checkpoint": {"tag_validation": "strict"}})
    _ds_config({"checkpoint": {"tag_validation": "fail"}})
    with pytest.raises(Exception, match="pipeline_stage"):
        _ds_config({"checkpoint": {"parallel_write": {"pipeline_stage": "yes"}}})


@pytest.mark.claim("ds-dtype-names")
@pytest.mark.claim("ds-param-dtype-must-match")
@pytest.mark.claim("ds-compute-grad-norm-false-limits")
@pytest.mark.claim("ds-deprecated-cpu-offload-client-optimizer")
@pytest.mark.claim("ds-optimizer-type-known")
@pytest.mark.claim("ds-optimizer-max-grad-norm-refused")
@pytest.mark.claim("ds-lamb-needs-dynamic-loss-scale")
@pytest.mark.claim("ds-scheduler-type-and-params")
def test_the_engine_refuses_bad_json_values(tmp_path):
    with pytest.raises(ValueError):  # read with the config
        _ds_config({"torch_autocast": {"enabled": True, "dtype": "float8"}})
    for name in ("bfloat16", "torch.float16", "half", "float"):
        _ds_config({"torch_autocast": {"enabled": True, "dtype": name}})
    for stage in (0, 3):  # read with the config; offload and clipping are checked by the ZeRO-1/2 optimizer below
        with pytest.raises(Exception, match="compute_grad_norm"):
            _ds_config({"zero_optimization": {"stage": stage, "compute_grad_norm": False}})
    out = run_ds("""
        import deepspeed
        deepspeed.init_distributed(dist_backend="gloo")
        BASE = {"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1}
        def attempt(extra, client_optimizer=False):
            m = torch.nn.Linear(4, 4)
            kw = {"optimizer": torch.optim.SGD(m.parameters(), lr=0.1)} if client_optimizer else {}
            try:
                deepspeed.initialize(model=m, model_parameters=m.parameters(), config={**BASE, **extra}, **kw)
                return "ok"
            except BaseException as e:
                return type(e).__name__ + ": " + str(e)
        cases = {
            "param_dtype_conflict": attempt({"data_types": {"param_dtype": "bf16"}}, True),
            "param_dtype_fp32": attempt({"data_types": {"param_dtype": "fp32"}}, True),
            "param_dtype_name": attempt({"data_types": {"param_dtype": "bfloat32"}}, True),
            "grad_accum_dtype_name": attempt({"data_types": {"grad_accum_dtype": "bfloat32"}}, True),
            "buffer_dtype_name": attempt({"data_types": {"buffer_dtype": "bfloat32"}, "bf16": {"enabled": True}},
                                         True),
            "buffer_dtype_fp32_run": attempt({"data_types": {"buffer_dtype": "bfloat32"}}, True),
            "optimizer_type": attempt({"optimizer": {"type": "Adamm", "params": {"lr": 0.1}}}),
            "optimizer_torch_name": attempt({"optimizer": {"type": "SGD", "params": {"lr": 0.1}}}),
            "max_grad_norm": attempt({"optimizer": {"type": "AdamW", "params": {"lr": 0.1, "max_grad_norm": 1.0}}}),
            "lamb_static": attempt({"optimizer": {"type": "Lamb", "params": {"lr": 0.1}},
                                    "fp16": {"enabled": False, "loss_scale": 128}}),
            "scheduler_type": attempt({"scheduler": {"type": "warmuplr"}}, True),
            "scheduler_param": attempt({"scheduler": {"type": "WarmupLR", "params": {"warmup_steps": 10}}}, True),
            "grad_norm_clipping": attempt({"zero_optimization": {"stage": 2, "compute_grad_norm": False},
                                           "zero_allow_untested_optimizer": True}, True),
            "grad_norm_offload": attempt({"zero_optimization": {"stage": 2, "compute_grad_norm": False,
                                                                 "offload_optimizer": {"device": "cpu"}},
                                          "gradient_clipping": 0.0, "zero_allow_untested_optimizer": True,
                                          "zero_force_ds_cpu_optimizer": False}, True),
            "grad_norm_no_clipping": attempt({"zero_optimization": {"stage": 2, "compute_grad_norm": False},
                                              "gradient_clipping": 0.0, "zero_allow_untested_optimizer": True},
                                             True),
        }
        acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(hf_ds_config={
            "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": 1,
            "zero_optimization": {"stage": 2, "cpu_offload": True}}), kwargs_handlers=GLOO)
        m = torch.nn.Linear(4, 4)
        try:
            acc.prepare(m, torch.optim.SGD(m.parameters(), lr=0.1), loader())
            cases["cpu_offload"] = "ok"
        except BaseException as e:
            cases["cpu_offload"] = type(e).__name__ + ": " + str(e)
        report(**cases)
    """, tmp_path)
    assert out["param_dtype_conflict"].startswith("AssertionError") and "conflicts" in out["param_dtype_conflict"]
    assert out["param_dtype_fp32"] == "ok"
    for key in ("param_dtype_name", "grad_accum_dtype_name", "buffer_dtype_name"):
        assert "bfloat32" in out[key], (key, out[key])
    assert out["buffer_dtype_fp32_run"] == "ok"  # buffer_dtype is read only when fp16 or bf16 casts the module
    assert "not a supported DeepSpeed Optimizer" in out["optimizer_type"]
    assert out["optimizer_torch_name"] == "ok"
    assert out["max_grad_norm"].startswith("ValueError") and "max_grad_norm" in out["max_grad_norm"]
    assert "requires dynamic loss scaling" in out["lamb_static"]
    assert "does not recognize LR scheduler" in out["scheduler_type"]
    assert out["scheduler_param"].startswith("TypeError") and "warmup_steps" in out["scheduler_param"]
    assert "requires gradient_clipping=0" in out["grad_norm_clipping"]
    assert "does not support optimizer offload" in out["grad_norm_offload"], out["grad_norm_offload"]
    assert out["grad_norm_no_clipping"] == "ok"
    assert "ZeRO-Offload with a client provided optimizer" in out["cpu_offload"], out["cpu_offload"]
