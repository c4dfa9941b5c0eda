"""Claims stated by the DeepSpeed JSON rules (wizard/core/claims/rules_dsjson.py, wizard/core/lint/dsjson.py).

DeepSpeed's config classes and accelerate's DeepSpeed plugin run in this process (no process group, no op built);
the one check that needs Accelerator.prepare runs in a one-rank gloo subprocess (``one_rank`` of
gloo_ranks.py), so accelerate's global state never leaks into other tests."""
from __future__ import annotations

import logging

import pytest
from gloo_ranks import one_rank

BASE = {"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 2}}


@pytest.mark.claim("ds-plugin-needs-zero-optimization")
@pytest.mark.parametrize("case", ["without-block", "with-block"])
def test_a_json_without_zero_optimization_is_refused(clean_env, case):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin

    if case == "with-block":
        assert DeepSpeedPlugin(hf_ds_config=dict(BASE)).zero_stage == 2
        return
    with pytest.raises(ValueError, match="Please specify the ZeRO optimization config"):
        DeepSpeedPlugin(hf_ds_config={"train_micro_batch_size_per_gpu": 1})


@pytest.mark.claim("ds-removed-zero-keys-raise")
@pytest.mark.parametrize("key, value", [("mics_shard_size", 2), ("mics_hierarchical_params_gather", True),
                                        ("zeropp_loco_param", {"err_beta": 0.8})],
                         ids=["mics_shard_size", "mics_hierarchical_params_gather", "zeropp_loco_param"])
def test_zero_keys_of_removed_features_raise(key, value):
    from deepspeed.runtime.config import DeepSpeedConfig, DeepSpeedConfigError

    with pytest.raises(DeepSpeedConfigError, match="removed"):
        DeepSpeedConfig({"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 3, key: value}})


@pytest.mark.claim("ds-unread-keys-ignored")
@pytest.mark.parametrize("case", ["top-level", "aio", "activation_checkpointing", "flops_profiler", "checkpoint",
                                  "wizard-defaults-are-deepspeeds"])
def test_keys_deepspeed_does_not_read_are_ignored_silently(case):
    from deepspeed.runtime.config import DeepSpeedConfig

    if case != "wizard-defaults-are-deepspeeds":  # a misspelt or retired key: no error, the default applies
        extra = {"top-level": {"gradient_cliping": 0.5},
                 "aio": {"aio": {"block_size": 1048576, "thread_count": 4}},
                 "activation_checkpointing": {"activation_checkpointing": {"partition_activation": True}},
                 "flops_profiler": {"flops_profiler": {"enabled": True, "profile_stp": 3}},
                 "checkpoint": {"checkpoint": {"tag_validaton": "Fail"}}}[case]
        config = DeepSpeedConfig({**BASE, **extra})
        if case == "top-level":
            assert config.gradient_clipping == 1.0
        elif case == "aio":
            assert config.aio_config["intra_op_parallelism"] == 1 and "thread_count" not in config.aio_config
        elif case == "activation_checkpointing":
            assert config.activation_checkpointing_config.partition_activations is False
        elif case == "flops_profiler":
            assert config.flops_profiler_config.enabled is True and config.flops_profiler_config.profile_step == 1
        else:
            assert config.checkpoint_config["tag_validation"].lower() == "warn"
        return
    # the defaults the rule names as what applies instead (library/deepspeed.py SUBKEY_DEFAULTS) are DeepSpeed's
    from wizard.core.library.deepspeed import SUBKEY_DEFAULTS

    plain = DeepSpeedConfig(dict(BASE))
    assert plain.aio_config == SUBKEY_DEFAULTS["aio"]
    for section, obj in (("activation_checkpointing", plain.activation_checkpointing_config),
                         ("flops_profiler", plain.flops_profiler_config)):
        assert {k: getattr(obj, k) for k in SUBKEY_DEFAULTS[section]} == SUBKEY_DEFAULTS[section]
    assert plain.checkpoint_config["tag_validation"].lower() == SUBKEY_DEFAULTS["checkpoint"]["tag_validation"].lower()
    assert plain.load_universal_checkpoint is SUBKEY_DEFAULTS["checkpoint"]["load_universal"]
    assert plain.torch_autocast_enabled is SUBKEY_DEFAULTS["torch_autocast"]["enabled"]


@pytest.mark.claim("ds-json-accelerate-keys-unused")
@pytest.mark.parametrize("case", ["deepspeed", "accelerate-plugin", "trainer-config"])
def test_accelerate_keys_in_a_deepspeed_json_change_nothing(clean_env, tmp_path, case):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin
    from deepspeed.runtime.config import DeepSpeedConfig
    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    plain = {**BASE, "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
             "bf16": {"enabled": "auto"}}
    stray = {**plain, "num_machines": 1, "num_processes": 8}
    if case == "accelerate-plugin":
        plugins = [DeepSpeedPlugin(hf_ds_config=dict(config)) for config in (plain, stray)]  # accepted as it is
        assert plugins[1].deepspeed_config["num_processes"] == 8  # carried along, read by nothing
        assert [{k: v for k, v in p.deepspeed_config.items() if k not in ("num_machines", "num_processes")}
                for p in plugins] == [plugins[0].deepspeed_config] * 2
        return
    trainer_args = TrainingArguments(output_dir=str(tmp_path), per_device_train_batch_size=2,
                                     gradient_accumulation_steps=3, use_cpu=True)
    filled = []
    for config in (plain, stray):
        hf = HfTrainerDeepSpeedConfig(dict(config))
        hf.trainer_config_process(trainer_args)
        assert not hf.mismatches
        filled.append({k: v for k, v in hf.config.items() if k not in ("num_machines", "num_processes")})
    if case == "trainer-config":
        assert filled[0] == filled[1]  # the Trainer fills the same values with the stray keys as without
        return
    built = [DeepSpeedConfig(c) for c in filled]
    assert [(b.train_micro_batch_size_per_gpu, b.gradient_accumulation_steps, b.bfloat16_config.enabled,
             b.zero_optimization_stage) for b in built] == [(2, 3, False, 2)] * 2
    with_stray = DeepSpeedConfig({**filled[1], "num_machines": 1, "num_processes": 8})
    assert with_stray.train_batch_size == built[1].train_batch_size  # still one process's batch: not read


@pytest.mark.claim("ds-bfloat16-shadowed-by-bf16")
@pytest.mark.parametrize("case", ["read-without-bf16-block", "mixed-precision-no", "mixed-precision-bf16"])
def test_the_old_bfloat16_block_is_shadowed(clean_env, case):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin
    from deepspeed.runtime.config import DeepSpeedConfig

    old = {**BASE, "bfloat16": {"enabled": True}}
    if case == "read-without-bf16-block":
        assert DeepSpeedConfig(dict(old)).bfloat16_config.enabled is True
        return
    plugin = DeepSpeedPlugin(hf_ds_config=dict(old))
    plugin.set_mixed_precision("no" if case == "mixed-precision-no" else "bf16")  # what AcceleratorState does
    on = case == "mixed-precision-bf16"
    assert plugin.deepspeed_config["bf16"] == {"enabled": on}
    assert DeepSpeedConfig(plugin.deepspeed_config).bfloat16_config.enabled is on  # the bfloat16 block is not read
    if not on:
        old_off = DeepSpeedPlugin(hf_ds_config={**BASE, "bfloat16": {"enabled": False}})
        old_off.set_mixed_precision("bf16")
        assert old_off.deepspeed_config["bf16"] == {"enabled": True}


_MODELS = {  # case -> the JSON blocks that fail validation, or () for the cases checked in the test body
    "zero_optimization": ({"zero_optimization": {"stage": 5}},
                          {"zero_optimization": {"stage": 2, "reduce_bucket_size": -1}},
                          {"zero_optimization": {"stage": 2, "overlap_comm": "maybe"}}),
    "offload": ({"zero_optimization": {"stage": 2, "offload_param": {"device": "CPU"}}},
                {"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu", "buffer_count": "four"}}}),
    "fp16": ({"fp16": {"enabled": "maybe"}}, {"fp16": {"loss_scale": -1}}),
    "bf16": ({"bf16": {"enabled": "maybe"}},),
    "converted": (),
    "not-an-object": (),
    "old-boolean-zero-optimization": (),
}


@pytest.mark.claim("ds-config-models-validate-values")
@pytest.mark.parametrize("case", list(_MODELS))
def test_config_models_refuse_or_convert_values(clean_env, case):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin
    from deepspeed.runtime.config import DeepSpeedConfig

    def build(**top):
        return DeepSpeedConfig({"train_micro_batch_size_per_gpu": 1, **top})

    for bad in _MODELS[case]:
        with pytest.raises(Exception, match="validation error"):
            build(**bad)
    if case == "converted":
        converted = build(zero_optimization={"stage": "2", "overlap_comm": "true"}, fp16={"enabled": "true"})
        assert converted.zero_config.stage == 2 and converted.zero_config.overlap_comm is True
        assert converted.float16_config.enabled is True
    elif case == "not-an-object":
        for not_an_object in ({"zero_optimization": 5}, {"aio": 3}, {"bf16": True},
                              {"zero_optimization": {"stage": 2, "offload_optimizer": "cpu"}}):
            with pytest.raises((TypeError, AttributeError, ValueError)):
                build(**not_an_object)
    elif case == "old-boolean-zero-optimization":
        build(zero_optimization=True)  # DeepSpeed still reads the old boolean form (as ZeRO-1) ...
        with pytest.raises(AttributeError):  # ... accelerate's plugin does not
            DeepSpeedPlugin(hf_ds_config={"train_micro_batch_size_per_gpu": 1, "zero_optimization": True})


@pytest.mark.claim("ds-alias-and-name-rejected")
@pytest.mark.parametrize("case", ["alias-alone", "both-spellings"])
def test_a_setting_under_both_spellings_is_refused(case):
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    if case == "alias-alone":
        assert DeepSpeedZeroConfig(stage3_gather_16bit_weights_on_model_save=True).gather_16bit_weights_on_model_save
        return
    with pytest.raises(Exception, match="Extra inputs are not permitted"):
        DeepSpeedZeroConfig(**{"stage3_gather_16bit_weights_on_model_save": True,
                               "gather_16bit_weights_on_model_save": True})


@pytest.mark.claim("ds-string-stage-not-zero3-for-accelerate")
@pytest.mark.parametrize("case", ["deepspeed-runs-zero3", "zero3-init-flag-off", "no-zero-init-for-from-pretrained",
                                  "is-zero3-helper-false"])
def test_a_string_stage_is_not_zero3_for_accelerate(clean_env, case):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig
    from transformers.integrations import deepspeed as hf_ds

    if case == "deepspeed-runs-zero3":
        assert DeepSpeedZeroConfig(stage="3").stage == 3
        return
    number = DeepSpeedPlugin(hf_ds_config={**BASE, "zero_optimization": {"stage": 3}})
    text = DeepSpeedPlugin(hf_ds_config={**BASE, "zero_optimization": {"stage": "3"}})
    if case == "zero3-init-flag-off":
        assert number.zero3_init_flag is True and text.zero3_init_flag is False
    elif case == "is-zero3-helper-false":  # the check accelerate's ZeRO-3 branches ask
        assert number.hf_ds_config.is_zero3() and not text.hf_ds_config.is_zero3()
    else:
        try:  # what from_pretrained asks before creating the model under zero.Init
            registered = hf_ds.HfDeepSpeedConfig(text.deepspeed_config)  # kept: Transformers holds a weak reference
            assert hf_ds.is_deepspeed_zero3_enabled() is False
            registered = hf_ds.HfDeepSpeedConfig(number.deepspeed_config)
            assert hf_ds.is_deepspeed_zero3_enabled() is True
            del registered
        finally:
            hf_ds.unset_hf_deepspeed_config()


_DEPRECATED = {  # deprecated key -> (its value, the replacing key and a value for it, what the replacement reads)
    "cpu_offload": (True, "offload_optimizer", {"device": "cpu"}, lambda z: z.offload_optimizer.device == "cpu"),
    "cpu_offload_param": (True, "offload_param", {"device": "cpu"}, lambda z: z.offload_param.device == "cpu"),
    "stage3_gather_fp16_weights_on_model_save": (True, "stage3_gather_16bit_weights_on_model_save", True,
                                                 lambda z: z.gather_16bit_weights_on_model_save is True),
    "cpu_offload_use_pin_memory": (False, None, None, lambda z: z.offload_param.pin_memory is True),
}


@pytest.mark.claim("ds-deprecated-keys-converted")
@pytest.mark.parametrize("key", list(_DEPRECATED))
def test_deprecated_keys_are_converted_or_ignored(key):
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig
    from deepspeed.utils import logger

    value, new_key, new_value, reads = _DEPRECATED[key]
    seen: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())  # type: ignore[method-assign]
    logger.addHandler(handler)
    try:
        extra = {"offload_param": {"device": "cpu"}} if new_key is None else {}
        z = DeepSpeedZeroConfig(stage=3, **{key: value}, **extra)
        assert reads(z), z  # converted (cpu_offload_use_pin_memory: nothing changed, pinning stays on)
        assert any(f"{key} is deprecated" in m for m in seen), seen
        if new_key is not None:
            with pytest.raises(AssertionError, match="Cannot provide deprecated parameter"):
                DeepSpeedZeroConfig(stage=3, **{key: value, new_key: new_value})
    finally:
        logger.removeHandler(handler)


@pytest.mark.claim("ds-top-level-scalars-unchecked")
@pytest.mark.parametrize("case", ["string-flag", "string-number-kept", "string-number-fails"])
def test_top_level_scalars_are_taken_as_written(case):
    from deepspeed.runtime.config import DeepSpeedConfig

    if case == "string-number-fails":
        with pytest.raises(TypeError):
            DeepSpeedConfig({"train_batch_size": "4", "train_micro_batch_size_per_gpu": 4,
                             "gradient_accumulation_steps": 1, "zero_optimization": {"stage": 2}})
        return
    config = DeepSpeedConfig({**BASE, "memory_breakdown": "false", "gradient_clipping": "1.0"})
    if case == "string-flag":
        assert config.memory_breakdown == "false" and bool(config.memory_breakdown)  # a non-empty string: true
    else:
        assert config.gradient_clipping == "1.0"


@pytest.mark.claim("ds-json-auto-plugin-defaults")
@pytest.mark.parametrize("case", ["stage", "offload_optimizer-device", "offload_param-device",
                                  "offload_optimizer-nvme_path", "offload_param-nvme_path"])
def test_auto_stage_offload_device_and_nvme_path_take_the_plugin_defaults(clean_env, case):  # noqa: F811
    import os

    from accelerate.utils import DeepSpeedPlugin

    auto_device = case.endswith("-device")
    section = case.split("-")[0]
    zero = {"stage": "auto"} if case == "stage" else {
        "stage": 3, section: {"device": "auto"} if auto_device else {"device": "nvme", "nvme_path": "auto"}}
    plugin = DeepSpeedPlugin(hf_ds_config={"train_micro_batch_size_per_gpu": 1, "zero_optimization": zero})
    zero = plugin.deepspeed_config["zero_optimization"]
    if case == "stage":
        assert zero["stage"] == 2 and plugin.zero_stage == 2
    elif auto_device:
        assert zero[section]["device"] == "none"
    else:
        assert zero[section]["nvme_path"] == "none" and not os.path.isabs(zero[section]["nvme_path"])


@pytest.mark.claim("ds-batch-sizes-positive-and-given")
@pytest.mark.parametrize("case", ["train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps",
                                  "one-of-them-given"])
def test_deepspeed_asserts_positive_batch_sizes_and_one_of_them_given(case):
    from deepspeed.runtime.config import DeepSpeedConfig

    zero = {"zero_optimization": {"stage": 2}}
    if case == "one-of-them-given":
        with pytest.raises(AssertionError, match="Either train_batch_size or train_micro_batch_size_per_gpu"):
            DeepSpeedConfig({"gradient_accumulation_steps": 1, **zero})
        return
    batch = {"train_batch_size": 2, "train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 2}
    for bad in (0, -2):
        with pytest.raises(AssertionError, match="has to be greater than 0"):
            DeepSpeedConfig({**batch, case: bad, **zero})
    DeepSpeedConfig({**batch, **zero})


@pytest.mark.claim("ds-auto-train-batch-needs-micro")
@pytest.mark.parametrize("case", ["own-loop", "trainer"])
def test_an_auto_train_batch_size_without_micro_batch(tmp_path, case):
    if case == "own-loop":
        proc = one_rank("""
            import torch
            from accelerate import Accelerator
            from accelerate.utils import DeepSpeedPlugin, InitProcessGroupKwargs
            ds = {"train_batch_size": "auto", "gradient_accumulation_steps": 1, "zero_optimization": {"stage": 1}}
            acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(hf_ds_config=ds),
                              kwargs_handlers=[InitProcessGroupKwargs(backend="gloo")])
            model = torch.nn.Linear(4, 4)
            loader = torch.utils.data.DataLoader(torch.randn(8, 4), batch_size=2)
            try:
                acc.prepare(model, torch.optim.SGD(model.parameters(), lr=0.1), loader)
            except ValueError as e:
                print("RAISED", "train_batch_size` not found in kwargs" in str(e))
        """, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "RAISED True" in proc.stdout
        return
    from deepspeed.runtime.config import DeepSpeedConfig
    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    config = HfTrainerDeepSpeedConfig({"train_batch_size": "auto", "gradient_accumulation_steps": "auto",
                                       "zero_optimization": {"stage": 1}})
    config.trainer_config_process(TrainingArguments(output_dir=str(tmp_path), per_device_train_batch_size=2,
                                                    use_cpu=True))
    assert config.config["train_batch_size"] == 2  # 1 process x 2 x 1 accumulation step
    assert DeepSpeedConfig(config.config).train_micro_batch_size_per_gpu == 2


_NULL_ACCUMULATION = {  # how each loop reaches prepare() with a JSON whose gradient_accumulation_steps is null
    "own-loop": """
        plugin = DeepSpeedPlugin(hf_ds_config=ds)
        acc = Accelerator(deepspeed_plugin=plugin, kwargs_handlers=[InitProcessGroupKwargs(backend="gloo")])
        print("KEPT", plugin.deepspeed_config["gradient_accumulation_steps"] is None)
        model = torch.nn.Linear(4, 4)
        loader = torch.utils.data.DataLoader(torch.randn(8, 4), batch_size=2)
        run = lambda: acc.prepare(model, torch.optim.SGD(model.parameters(), lr=0.1), loader)
    """,
    "trainer": """
        from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments
        os.chdir(OUT)
        args = TrainingArguments(output_dir="out", deepspeed=ds, per_device_train_batch_size=2, max_steps=1,
                                 report_to=[], save_strategy="no")
        cfg = LlamaConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                          num_key_value_heads=2, vocab_size=64)
        data = [{"input_ids": torch.tensor([1, 2, 3]), "labels": torch.tensor([1, 2, 3])}] * 4
        trainer = Trainer(model=LlamaForCausalLM(cfg), args=args, train_dataset=data)
        print("KEPT", trainer.accelerator.state.deepspeed_plugin.deepspeed_config["gradient_accumulation_steps"]
              is None)
        run = trainer.train  # its prepare() is accelerate's
    """,
}


@pytest.mark.claim("ds-null-accumulation-fails-in-prepare")
@pytest.mark.parametrize("loop", list(_NULL_ACCUMULATION))
def test_a_null_accumulation_fails_in_prepare(tmp_path, loop):
    proc = one_rank("""
        import os, torch
        from accelerate import Accelerator
        from accelerate.utils import DeepSpeedPlugin, InitProcessGroupKwargs
        ds = {"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": None,
              "zero_optimization": {"stage": 1}}
    """ + _NULL_ACCUMULATION[loop].replace("OUT", repr(str(tmp_path))) + """
        try:
            run()
            print("PREPARED")
        except TypeError as e:
            print("RAISED", "NoneType" in str(e))
    """, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "KEPT True" in proc.stdout and "RAISED True" in proc.stdout, proc.stdout


@pytest.mark.claim("ds-steps-per-print-infinity")
@pytest.mark.parametrize("case", ["json-value", "json-without-key"])
def test_steps_per_print_is_replaced_by_infinity(clean_env, case):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin

    extra = {"steps_per_print": 10} if case == "json-value" else {}
    plugin = DeepSpeedPlugin(hf_ds_config={**BASE, **extra})
    assert plugin.deepspeed_config["steps_per_print"] == float("inf")


@pytest.mark.claim("ds-msamp-block-for-ms-amp")
@pytest.mark.parametrize("case", ["written-for-ms-amp", "kept-when-present", "deepspeed-never-reads"])
def test_accelerate_writes_the_msamp_block_for_ms_amp(clean_env, monkeypatch, case):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin
    from deepspeed.runtime.config import DeepSpeedConfig

    monkeypatch.setenv("ACCELERATE_FP8_BACKEND", "MSAMP")
    if case == "written-for-ms-amp":
        plugin = DeepSpeedPlugin(hf_ds_config={"train_micro_batch_size_per_gpu": 1,
                                               "zero_optimization": {"stage": 1}})
        assert plugin.deepspeed_config["msamp"] == {"enabled": True, "opt_level": "O1"}
        return
    if case == "kept-when-present":
        kept = DeepSpeedPlugin(hf_ds_config={"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 1},
                                             "msamp": {"enabled": True, "opt_level": "O2"}})
        assert kept.deepspeed_config["msamp"]["opt_level"] == "O2"
        return
    reads = []

    class Recording(dict):
        def get(self, key, *default):
            reads.append(key)
            return super().get(key, *default)

        def __getitem__(self, key):
            reads.append(key)
            return super().__getitem__(key)

        def __contains__(self, key):
            reads.append(key)
            return super().__contains__(key)

    DeepSpeedConfig(Recording({**BASE, "msamp": {"enabled": True}}))
    assert reads and "msamp" not in reads


@pytest.mark.claim("ds-warmup-steps-positive-int")
@pytest.mark.parametrize("bad", [pytest.param(0, id="zero"), pytest.param(-5, id="negative"),
                                 pytest.param(10.0, id="float")])
def test_warmup_lr_takes_only_a_positive_int(bad):
    import torch
    from deepspeed.runtime.lr_schedules import WarmupDecayLR, WarmupLR

    opt = torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=0.1)
    with pytest.raises(ValueError, match="warmup_num_steps must be a positive integer"):
        WarmupLR(opt, warmup_num_steps=bad)
    with pytest.raises(ValueError, match="warmup_num_steps must be a positive integer"):
        WarmupDecayLR(opt, total_num_steps=100, warmup_num_steps=bad)
    assert WarmupLR(opt, warmup_num_steps=1).warmup_num_steps == 2  # 1 is accepted (and kept at least 2)
