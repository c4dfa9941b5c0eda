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
@pytest.mark.parametrize("case", ["not-whole-number", "above-3", "below-0", "0-to-3-accepted"])
def test_zero_stage_must_be_0_to_3(monkeypatch, case):
    from accelerate.utils import DeepSpeedPlugin

    if case == "not-whole-number":
        for text in ("two", "2.0"):
            monkeypatch.setenv("ACCELERATE_DEEPSPEED_ZERO_STAGE", text)
            with pytest.raises(ValueError):
                DeepSpeedPlugin()
    elif case in ("above-3", "below-0"):
        stage = 4 if case == "above-3" else -1
        monkeypatch.setenv("ACCELERATE_DEEPSPEED_ZERO_STAGE", str(stage))
        assert DeepSpeedPlugin().deepspeed_config["zero_optimization"]["stage"] == stage  # the plugin passes it on
        with pytest.raises(Exception, match="stage"):
            _ds_config({"zero_optimization": {"stage": stage}})
    else:
        for stage in range(4):
            assert _ds_config({"zero_optimization": {"stage": stage}}).zero_optimization_stage == stage


@pytest.mark.claim("ds-offload-device-values")
@pytest.mark.parametrize("case", ["launch-lower-cases", "none-cpu-nvme-accepted", "other-refused"])
def test_offload_devices_are_none_cpu_or_nvme(tmp_path, case):
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    if case == "launch-lower-cases":
        env = ds_launch_env(tmp_path, _inline(zero_stage=3, offload_optimizer_device="CPU",
                                              offload_param_device="NVMe"))
        assert env["ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE"] == "cpu"
        assert env["ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE"] == "nvme"
    elif case == "none-cpu-nvme-accepted":
        for device in ("none", "cpu", "nvme"):
            DeepSpeedZeroConfig(stage=3, offload_optimizer={"device": device}, offload_param={"device": device})
    else:
        for section in ("offload_optimizer", "offload_param"):
            with pytest.raises(Exception, match="device"):
                DeepSpeedZeroConfig(stage=3, **{section: {"device": "gpu"}})


@pytest.mark.claim("ds-inline-gradient-accumulation-whole-positive")
@pytest.mark.parametrize("case", ["not-whole-number", "zero", "negative"])
def test_inline_gradient_accumulation_must_be_a_positive_whole_number(monkeypatch, tmp_path, case):
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState, PartialState
    from accelerate.utils import DeepSpeedPlugin

    if case == "not-whole-number":
        env = ds_launch_env(tmp_path, _inline(gradient_accumulation_steps=2.0))
        assert env["ACCELERATE_GRADIENT_ACCUMULATION_STEPS"] == "2.0"  # str() of the YAML value
        for text in ("2.0", "two"):
            monkeypatch.setenv("ACCELERATE_GRADIENT_ACCUMULATION_STEPS", text)
            with pytest.raises(ValueError):
                Accelerator(cpu=True)
            AcceleratorState._reset_state(True)
            PartialState._reset_state()
        return
    steps = 0 if case == "zero" else -2
    monkeypatch.setenv("ACCELERATE_GRADIENT_ACCUMULATION_STEPS", str(steps))
    assert Accelerator(cpu=True).gradient_accumulation_steps == steps  # passes Accelerator()
    gas = DeepSpeedPlugin().deepspeed_config["gradient_accumulation_steps"]
    if case == "zero":
        assert gas == 0
        with pytest.raises(AssertionError, match="greater than 0"):
            _ds_config({"gradient_accumulation_steps": gas})
    else:  # the plugin converts only digits: a negative number stays text, which DeepSpeed cannot compare with 0
        assert gas == "-2"
        with pytest.raises(TypeError):
            _ds_config({"gradient_accumulation_steps": gas})


@pytest.mark.claim("ds-inline-gradient-clipping-float")
@pytest.mark.parametrize("case", ["not-a-number", "number", "auto"])
def test_inline_gradient_clipping_must_be_a_number(monkeypatch, case):
    from accelerate.utils import DeepSpeedPlugin

    text = {"not-a-number": "high", "number": "0.5", "auto": "auto"}[case]
    monkeypatch.setenv("ACCELERATE_GRADIENT_CLIPPING", text)
    if case == "not-a-number":
        with pytest.raises(ValueError):
            DeepSpeedPlugin()
    elif case == "number":
        assert DeepSpeedPlugin().deepspeed_config["gradient_clipping"] == 0.5
    else:  # not converted: left "auto" for prepare() to fill
        assert DeepSpeedPlugin().deepspeed_config["gradient_clipping"] == "auto"


@pytest.mark.claim("ds-zero3-init-flag-truth-words")
@pytest.mark.parametrize("case", ["true-words", "false-words", "other-raises"])
def test_zero3_init_flag_must_be_a_truth_word(monkeypatch, case):
    from accelerate.utils import DeepSpeedPlugin

    monkeypatch.setenv("ACCELERATE_DEEPSPEED_ZERO_STAGE", "3")
    if case == "other-raises":
        monkeypatch.setenv("ACCELERATE_DEEPSPEED_ZERO3_INIT", "maybe")
        with pytest.raises(ValueError, match="invalid truth value"):
            DeepSpeedPlugin()
        return
    words = ("y", "yes", "t", "true", "on", "1") if case == "true-words" else ("n", "no", "f", "false", "off", "0")
    for word in words:
        monkeypatch.setenv("ACCELERATE_DEEPSPEED_ZERO3_INIT", word)
        assert DeepSpeedPlugin().zero3_init_flag is (case == "true-words"), word


@pytest.mark.claim("ds-zero3-check-wants-the-number-3")
@pytest.mark.parametrize("stage", [pytest.param("3", id="string-3"), pytest.param(3, id="number-3")])
def test_a_string_stage_is_not_zero3_for_the_init_flag(stage):
    from accelerate.utils import DeepSpeedPlugin

    ds = {"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": stage}}
    if stage == 3:
        assert DeepSpeedPlugin(hf_ds_config=ds, zero3_init_flag=True).zero3_init_flag is True
        return
    with pytest.warns(UserWarning, match="only applicable for ZeRO Stage 3"):
        plugin = DeepSpeedPlugin(hf_ds_config=ds, zero3_init_flag=True)
    assert plugin.zero3_init_flag is False


@pytest.mark.claim("ds-zero3-save-16bit-exact-true")
@pytest.mark.parametrize("case", ["launch-lower-cases", "true", "yes", "1", "on"])
def test_zero3_save_16bit_model_is_on_only_for_true(monkeypatch, tmp_path, case):
    from accelerate.utils import DeepSpeedPlugin

    if case == "launch-lower-cases":
        assert yaml.safe_load("v: yes")["v"] is True  # unquoted yes is a YAML boolean, exported as 'true'
        for value, text in ((True, "true"), ("Yes", "yes"), ("1", "1")):
            env = ds_launch_env(tmp_path, _inline(zero_stage=3, zero3_save_16bit_model=value))
            assert env["ACCELERATE_DEEPSPEED_ZERO3_SAVE_16BIT_MODEL"] == text
        return
    texts = ("true", "TRUE") if case == "true" else (case,)
    for text in texts:
        monkeypatch.setenv("ACCELERATE_DEEPSPEED_ZERO3_SAVE_16BIT_MODEL", text)
        plugin = DeepSpeedPlugin(zero_stage=3)
        assert plugin.zero3_save_16bit_model is (case == "true")
        assert plugin.deepspeed_config["zero_optimization"]["stage3_gather_16bit_weights_on_model_save"] is (
            case == "true")


@pytest.mark.claim("ds-16bit-gather-zero3-only")
@pytest.mark.parametrize("stage, gather", [pytest.param(0, False, id="zero-0"), pytest.param(1, True, id="zero-1"),
                                           pytest.param(2, False, id="zero-2")])
def test_16bit_gathering_is_not_read_below_zero3(tmp_path, stage, gather):
    """Without the 16-bit gather at ZeRO-0 and 2, with it at ZeRO-1: the same whole weights every time."""
    out = run_ds("""
        plugin = DeepSpeedPlugin(zero_stage=STAGE, zero3_save_16bit_model=GATHER)
        acc = Accelerator(deepspeed_plugin=plugin, kwargs_handlers=GLOO)
        m = torch.nn.Linear(4, 4)
        engine, opt, dl = acc.prepare(m, torch.optim.SGD(m.parameters(), lr=0.1), loader())
        sd = acc.get_state_dict(engine)
        acc.save_model(engine, "out")
        saved = engine.save_16bit_model("out16")
        report(flag=acc.deepspeed_config["zero_optimization"]["stage3_gather_16bit_weights_on_model_save"],
               keys=sorted(sd), shape=list(sd["weight"].shape), files=sorted(os.listdir("out")),
               saved=saved, files16=sorted(os.listdir("out16")))
    """.replace("STAGE", str(stage)).replace("GATHER", str(gather)), tmp_path)
    assert out["flag"] is gather
    assert out["keys"] == ["bias", "weight"] and out["shape"] == [4, 4]
    assert out["files"] == ["model.safetensors"]
    assert out["saved"] is True and out["files16"] == ["pytorch_model.bin"]


_LAUNCHER_CASES = ["standard", "nossh", "other-spelling-to-runner", "pdsh", "openmpi", "mpich", "impi", "mvapich",
                   "slurm", "unknown-raises"]


@pytest.mark.claim("ds-multinode-launcher-names")
@pytest.mark.parametrize("case", _LAUNCHER_CASES)
def test_the_runner_refuses_an_unknown_launcher(tmp_path, monkeypatch, case):
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

    def runner_error(launcher: str) -> BaseException:
        monkeypatch.chdir(tmp_path)
        (tmp_path / "hostfile").write_text("node-a slots=1\nnode-b slots=1\n")
        with pytest.raises(BaseException) as info:
            runner.main(["--hostfile", str(tmp_path / "hostfile"), "--launcher", launcher, "--no_ssh_check",
                         "--master_addr", "10.0.0.1", "train.py"])
        return info.value

    if case == "standard":
        assert accelerate_cmd("standard") is None  # no deepspeed runner: accelerate runs torchrun instead
    elif case == "nossh":
        assert "--no_ssh" in accelerate_cmd("nossh")
    elif case == "other-spelling-to-runner":
        cmd = accelerate_cmd("Standard")
        assert cmd[0] == "deepspeed" and cmd[cmd.index("--launcher") + 1] == "Standard"  # not accelerate's own
    elif case == "unknown-raises":
        for bad in ("Standard", "torchrun"):
            error = runner_error(bad)
            assert isinstance(error, NotImplementedError) and "Unknown launcher" in str(error)
    else:  # a known name, in capitals too: it gets as far as looking for the backend's program
        for name in (case, case.upper()):
            error = runner_error(name)
            assert not isinstance(error, NotImplementedError), (name, error)


# ------------------------------------------------------------------------------------------ DeepSpeed JSON values
def _refused(extra: dict, match: str, kind: type[BaseException] = Exception) -> None:
    with pytest.raises(kind, match=match):
        _ds_config(extra)


_PRECISION = {  # case -> its check; the cases of four claims (ids: their scopes)
    "both-enabled": lambda: _refused({"fp16": {"enabled": True}, "bf16": {"enabled": True}}, "simultaneously",
                                     AssertionError),
    "loss-scale": lambda: ([_refused({"fp16": bad}, "fp16") for bad in
                            ({"loss_scale": -1}, {"loss_scale": True}, {"loss_scale": "dynamic"})],
                           _ds_config({"fp16": {"enabled": True, "loss_scale": 128}}),
                           _ds_config({"fp16": {"enabled": True, "loss_scale": 0}})),
    "window-boolean": lambda: _refused({"fp16": {"loss_scale_window": True}}, "fp16"),
    "min-boolean": lambda: _refused({"fp16": {"min_loss_scale": False}}, "fp16"),
    "dynamic-window": lambda: ([_refused({"fp16": {"enabled": True, "loss_scale": 0, "loss_scale_window": w}}, "fp16")
                                for w in (0, -1)],
                               # only checked when fp16 is on with dynamic scaling
                               _ds_config({"fp16": {"enabled": False, "loss_scale": 0, "loss_scale_window": 0}}),
                               _ds_config({"fp16": {"enabled": True, "loss_scale": 128, "loss_scale_window": 0}})),
    "dynamic-min": lambda: ([_refused({"fp16": {"enabled": True, "loss_scale": 0, "min_loss_scale": m}}, "fp16")
                             for m in (0, -1)],
                            _ds_config({"fp16": {"enabled": False, "loss_scale": 0, "min_loss_scale": 0}})),
    "master-weights-zero-0": lambda: _refused({"fp16": {"enabled": True, "fp16_master_weights_and_grads": True}},
                                              "Stage 1, 2, or 3", AssertionError),
    "master-weights-zero-1-2-3": lambda: [_ds_config({"fp16": {"enabled": True, "fp16_master_weights_and_grads": True},
                                                      "zero_optimization": {"stage": stage}}) for stage in (1, 2, 3)],
    "keep-in-fp32-string": lambda: _refused({"data_types": {"keep_in_fp32_modules": "Embedding"}},
                                            "keep_in_fp32_modules"),
    "keep-in-fp32-non-string-item": lambda: _refused({"data_types": {"keep_in_fp32_modules": ["norm", 3]}},
                                                     "keep_in_fp32_modules"),
    "keep-in-fp32-auto-or-strings": lambda: [_ds_config({"data_types": {"keep_in_fp32_modules": v}})
                                             for v in ("auto", ["norm"])],
}


@pytest.mark.claim("ds-fp16-bf16-exclusive")
@pytest.mark.claim("ds-fp16-loss-scale-checked")
@pytest.mark.claim("ds-fp16-master-weights-zero-stages")
@pytest.mark.claim("ds-keep-in-fp32-modules-list")
@pytest.mark.parametrize("case", list(_PRECISION))
def test_precision_values_deepspeed_refuses(case):
    _PRECISION[case]()


_READ_WITH_CONFIG = {  # case -> its check; the cases of three claims
    "allreduce-other-refused": lambda: _refused({"gradient_allreduce_op": "max"}, "gradient_allreduce_op",
                                                ValueError),
    "allreduce-mean-sum-any-case": lambda: [_ds_config({"gradient_allreduce_op": op, "zero_optimization": {"stage": 2}})
                                            for op in ("Mean", "mean", "SUM", "sum")],
    "sum-zero-3": lambda: _refused({"gradient_allreduce_op": "SUM", "zero_optimization": {"stage": 3}},
                                   "ZeRO stage 3", ValueError),
    "sum-zenflow": lambda: _refused({"gradient_allreduce_op": "sum", "zero_optimization": {"stage": 2, "zenflow": {}}},
                                    "ZenFlow", ValueError),
    "sum-deepcompile": lambda: _refused({"gradient_allreduce_op": "Sum", "compile": {"deepcompile": True}},
                                        "DeepCompile", ValueError),
    "communication_data_type": lambda: (_refused({"communication_data_type": "int8"}, "communication_data_type",
                                                 ValueError),
                                        [_ds_config({"communication_data_type": v}) for v in ("BF16", "fp16", "fp32")]),
    "seq_parallel_communication_data_type": lambda: (
        _refused({"seq_parallel_communication_data_type": "int8"}, "communication_data_type", ValueError),
        [_ds_config({"seq_parallel_communication_data_type": v}) for v in ("bf16", "FP16", "fp32")]),
    "tag_validation": lambda: (_refused({"checkpoint": {"tag_validation": "strict"}}, "tag_validation"),
                               [_ds_config({"checkpoint": {"tag_validation": v}}) for v in ("fail", "Warn", "IGNORE")]),
    "pipeline_stage": lambda: (_refused({"checkpoint": {"parallel_write": {"pipeline_stage": "yes"}}},
                                        "pipeline_stage"),
                               [_ds_config({"checkpoint": {"parallel_write": {"pipeline_stage": v}}})
                                for v in (True, False)]),
}


@pytest.mark.claim("ds-gradient-allreduce-op-values")
@pytest.mark.claim("ds-communication-data-type-values")
@pytest.mark.claim("ds-checkpoint-options-checked")
@pytest.mark.parametrize("case", list(_READ_WITH_CONFIG))
def test_json_values_deepspeed_refuses_when_it_reads_the_config(case):
    _READ_WITH_CONFIG[case]()


@pytest.fixture(scope="module")
def engine_attempts(tmp_path_factory):
    """deepspeed.initialize (one gloo rank) with one JSON per case, each result "ok" or the exception; then
    accelerate's prepare() with the deprecated cpu_offload."""
    return run_ds("""
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
            "param_dtype_bf16_run": attempt({"data_types": {"param_dtype": "bf16"}, "bf16": {"enabled": True}}, True),
            "param_dtype_name": attempt({"data_types": {"param_dtype": "bfloat32"}}, True),
            "grad_accum_dtype_name": attempt({"data_types": {"grad_accum_dtype": "bfloat32"}}, True),
            "buffer_dtype_name": attempt({"data_types": {"buffer_dtype": "bfloat32"}, "bf16": {"enabled": True}},
                                         True),
            "buffer_dtype_fp32_run": attempt({"data_types": {"buffer_dtype": "bfloat32"}}, True),
            "optimizer_type": attempt({"optimizer": {"type": "Adamm", "params": {"lr": 0.1}}}),
            "optimizer_torch_name": attempt({"optimizer": {"type": "SGD", "params": {"lr": 0.1}}}),
            "optimizer_own_any_case": attempt({"optimizer": {"type": "ADAMW",
                                                             "params": {"lr": 0.1, "torch_adam": True}}}),
            "max_grad_norm": attempt({"optimizer": {"type": "AdamW", "params": {"lr": 0.1, "max_grad_norm": 1.0}}}),
            "lamb_static": attempt({"optimizer": {"type": "Lamb", "params": {"lr": 0.1}},
                                    "fp16": {"enabled": False, "loss_scale": 128}}),
            "scheduler_type": attempt({"scheduler": {"type": "warmuplr"}}, True),
            "scheduler_torch": attempt({"scheduler": {"type": "StepLR", "params": {"step_size": 1}}}, True),
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
            "cpu_offload_not_forced": attempt({"zero_optimization": {"stage": 2, "cpu_offload": True},
                                               "zero_allow_untested_optimizer": True,
                                               "zero_force_ds_cpu_optimizer": False}, True),
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
    """, tmp_path_factory.mktemp("engine_attempts"))


def _dtype_names_at_read(out):
    for bad in ("float8", "torch.half", "torch.bf16", "torch.float"):  # torch. only before the full names
        _refused({"torch_autocast": {"enabled": True, "dtype": bad}}, "DtypeEnum", ValueError)
    for name in ("fp32", "float32", "float", "fp16", "float16", "half", "bf16", "bfloat16", "int8"):
        for spelling in (name, f"torch.{name}") if name in ("float32", "float16", "bfloat16", "int8") else (name,):
            _ds_config({"torch_autocast": {"enabled": True, "dtype": spelling}})


def _dtype_names_at_build(out):
    for key in ("param_dtype_name", "grad_accum_dtype_name", "buffer_dtype_name"):
        assert "bfloat32" in out[key], (key, out[key])
    assert out["buffer_dtype_fp32_run"] == "ok"  # buffer_dtype is read only when fp16 or bf16 casts the module


def _grad_norm_stages(out):
    for stage in (0, 3):  # read with the config
        _refused({"zero_optimization": {"stage": stage, "compute_grad_norm": False}}, "compute_grad_norm")
    for stage in (1, 2):
        _ds_config({"zero_optimization": {"stage": stage, "compute_grad_norm": False}, "gradient_clipping": 0.0})
    assert out["grad_norm_no_clipping"] == "ok"  # and the ZeRO-2 optimizer takes it without offload and clipping


_ENGINE = {  # case -> its check on engine_attempts: a function, or (result keys, what each result says: "ok" for
    # an engine built, else fragments of the exception); the cases of eight claims
    "dtype-names-read-with-config": _dtype_names_at_read,
    "dtype-names-at-engine-build": _dtype_names_at_build,
    "param-dtype-conflict": (("param_dtype_conflict",), ("AssertionError: ", "conflicts")),
    "param-dtype-matches": (("param_dtype_fp32", "param_dtype_bf16_run"), "ok"),
    "grad-norm-stage-1-2-only": _grad_norm_stages,
    "grad-norm-offload": (("grad_norm_offload",), ("does not support optimizer offload",)),
    "grad-norm-clipping": (("grad_norm_clipping",), ("requires gradient_clipping=0",)),
    "cpu-offload-refuses-torch-optimizer": (("cpu_offload",), ("ZeRO-Offload with a client provided optimizer",)),
    "cpu-offload-force-false": (("cpu_offload_not_forced",), "ok"),
    "optimizer-unknown-asserts": (("optimizer_type",), ("not a supported DeepSpeed Optimizer",)),
    "optimizer-torch-name": (("optimizer_torch_name",), "ok"),
    "optimizer-own-any-case": (("optimizer_own_any_case",), "ok"),
    "max-grad-norm": (("max_grad_norm",), ("ValueError: ", "max_grad_norm")),
    "lamb-fp16-off": (("lamb_static",), ("requires dynamic loss scaling",)),
    "scheduler-not-exact-name": (("scheduler_type",), ("does not recognize LR scheduler",)),
    "scheduler-torch": (("scheduler_torch",), "ok"),
    "scheduler-unexpected-param": (("scheduler_param",), ("TypeError: ", "warmup_steps")),
}


@pytest.mark.claim("ds-dtype-names")
@pytest.mark.claim("ds-param-dtype-must-match")
@pytest.mark.claim("ds-compute-grad-norm-false-limits")
@pytest.mark.claim("ds-deprecated-cpu-offload-client-optimizer")
@pytest.mark.claim("ds-optimizer-type-known")
@pytest.mark.claim("ds-optimizer-max-grad-norm-refused")
@pytest.mark.claim("ds-lamb-needs-dynamic-loss-scale")
@pytest.mark.claim("ds-scheduler-type-and-params")
@pytest.mark.parametrize("case", list(_ENGINE))
def test_the_engine_refuses_bad_json_values(engine_attempts, case):
    check = _ENGINE[case]
    if callable(check):
        check(engine_attempts)
        return
    keys, says = check
    for key in keys:
        if says == "ok":
            assert engine_attempts[key] == "ok", (key, engine_attempts[key])
        else:
            assert all(part in engine_attempts[key] for part in says), (key, engine_attempts[key])
