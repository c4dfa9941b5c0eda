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
def test_a_json_without_zero_optimization_is_refused(clean_env):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin

    with pytest.raises(ValueError, match="Please specify the ZeRO optimization config"):
        DeepSpeedPlugin(hf_ds_config={"train_micro_batch_size_per_gpu": 1})
    DeepSpeedPlugin(hf_ds_config=dict(BASE))


@pytest.mark.claim("ds-removed-zero-keys-raise")
def test_zero_keys_of_removed_features_raise():
    from deepspeed.runtime.config import DeepSpeedConfig, DeepSpeedConfigError

    for key, value in (("mics_shard_size", 2), ("mics_hierarchical_params_gather", True),
                       ("zeropp_loco_param", {"err_beta": 0.8})):
        with pytest.raises(DeepSpeedConfigError, match="removed"):
            DeepSpeedConfig({"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 3, key: value}})


@pytest.mark.claim("ds-unread-keys-ignored")
def test_keys_deepspeed_does_not_read_are_ignored_silently():
    from deepspeed.runtime.config import DeepSpeedConfig

    config = DeepSpeedConfig({**BASE, "gradient_cliping": 0.5, "aio": {"block_size": 1048576, "thread_count": 4},
                              "activation_checkpointing": {"partition_activation": True}})
    assert config.gradient_clipping == 1.0  # the typo is not read: DeepSpeed's default applies
    assert config.aio_config["intra_op_parallelism"] == 1 and "thread_count" not in config.aio_config
    assert config.activation_checkpointing_config.partition_activations is False
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
def test_accelerate_keys_in_a_deepspeed_json_change_nothing(clean_env, tmp_path):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin
    from deepspeed.runtime.config import DeepSpeedConfig
    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    plain = {**BASE, "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
             "bf16": {"enabled": "auto"}}
    stray = {**plain, "num_machines": 1, "num_processes": 8}
    trainer_args = TrainingArguments(output_dir=str(tmp_path), per_device_train_batch_size=2,
                                     gradient_accumulation_steps=3, use_cpu=True)
    filled = []
    for config in (plain, stray):
        DeepSpeedPlugin(hf_ds_config=dict(config))  # accepted as it is
        hf = HfTrainerDeepSpeedConfig(dict(config))
        hf.trainer_config_process(trainer_args)
        assert not hf.mismatches
        filled.append({k: v for k, v in hf.config.items() if k not in ("num_machines", "num_processes")})
    assert filled[0] == filled[1]  # the Trainer fills the same values with the stray keys as without
    built = [DeepSpeedConfig(c) for c in filled]
    assert [(b.train_micro_batch_size_per_gpu, b.gradient_accumulation_steps, b.bfloat16_config.enabled,
             b.zero_optimization_stage) for b in built] == [(2, 3, False, 2)] * 2
    with_stray = DeepSpeedConfig({**filled[1], "num_machines": 1, "num_processes": 8})
    assert with_stray.train_batch_size == built[1].train_batch_size  # still one process's batch: not read


@pytest.mark.claim("ds-bfloat16-shadowed-by-bf16")
def test_the_old_bfloat16_block_is_shadowed(clean_env):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin
    from deepspeed.runtime.config import DeepSpeedConfig

    old = {**BASE, "bfloat16": {"enabled": True}}
    assert DeepSpeedConfig(dict(old)).bfloat16_config.enabled is True  # read when there is no bf16 block
    plugin = DeepSpeedPlugin(hf_ds_config=dict(old))
    plugin.set_mixed_precision("no")  # what AcceleratorState does, whatever the mixed precision
    assert plugin.deepspeed_config["bf16"] == {"enabled": False}
    assert DeepSpeedConfig(plugin.deepspeed_config).bfloat16_config.enabled is False


@pytest.mark.claim("ds-config-models-validate-values")
def test_config_models_refuse_or_convert_values(clean_env):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin
    from deepspeed.runtime.config import DeepSpeedConfig

    def build(**top):
        return DeepSpeedConfig({"train_micro_batch_size_per_gpu": 1, **top})

    for bad in ({"stage": 2, "offload_param": {"device": "CPU"}}, {"stage": 5}, {"stage": 2, "reduce_bucket_size": -1},
                {"stage": 2, "overlap_comm": "maybe"}, {"stage": 2, "offload_optimizer": "cpu"}):
        with pytest.raises(Exception, match="validation error"):
            build(zero_optimization=bad)
    for not_an_object in ({"zero_optimization": 5}, {"aio": 3}, {"bf16": True}):
        with pytest.raises((TypeError, AttributeError)):
            build(**not_an_object)
    build(zero_optimization=True)  # DeepSpeed still reads the old boolean form (as ZeRO-1) ...
    with pytest.raises(AttributeError):  # ... accelerate's plugin does not
        DeepSpeedPlugin(hf_ds_config={"train_micro_batch_size_per_gpu": 1, "zero_optimization": True})
    converted = build(zero_optimization={"stage": "2", "overlap_comm": "true"}).zero_config
    assert converted.stage == 2 and converted.overlap_comm is True


@pytest.mark.claim("ds-alias-and-name-rejected")
def test_a_setting_under_both_spellings_is_refused():
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    assert DeepSpeedZeroConfig(stage3_gather_16bit_weights_on_model_save=True).gather_16bit_weights_on_model_save
    with pytest.raises(Exception, match="Extra inputs are not permitted"):
        DeepSpeedZeroConfig(**{"stage3_gather_16bit_weights_on_model_save": True,
                               "gather_16bit_weights_on_model_save": True})


@pytest.mark.claim("ds-string-stage-not-zero3-for-accelerate")
def test_a_string_stage_is_not_zero3_for_accelerate(clean_env):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig
    from transformers.integrations import deepspeed as hf_ds

    assert DeepSpeedZeroConfig(stage="3").stage == 3  # DeepSpeed runs ZeRO-3
    number = DeepSpeedPlugin(hf_ds_config={**BASE, "zero_optimization": {"stage": 3}})
    text = DeepSpeedPlugin(hf_ds_config={**BASE, "zero_optimization": {"stage": "3"}})
    assert number.hf_ds_config.is_zero3() and number.zero3_init_flag is True
    assert not text.hf_ds_config.is_zero3() and text.zero3_init_flag is False
    try:  # what from_pretrained asks before creating the model under zero.Init
        registered = hf_ds.HfDeepSpeedConfig(text.deepspeed_config)  # kept: Transformers holds a weak reference
        assert hf_ds.is_deepspeed_zero3_enabled() is False
        registered = hf_ds.HfDeepSpeedConfig(number.deepspeed_config)
        assert hf_ds.is_deepspeed_zero3_enabled() is True
        del registered
    finally:
        hf_ds.unset_hf_deepspeed_config()


@pytest.mark.claim("ds-deprecated-keys-converted")
def test_deprecated_keys_are_converted_or_ignored():
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig
    from deepspeed.utils import logger

    seen: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())  # type: ignore[method-assign]
    logger.addHandler(handler)
    try:
        z = DeepSpeedZeroConfig(stage=2, cpu_offload=True)
        assert z.offload_optimizer is not None and z.offload_optimizer.device == "cpu"
        assert any("cpu_offload is deprecated" in m for m in seen)
        assert DeepSpeedZeroConfig(stage=3, cpu_offload_param=True).offload_param.device == "cpu"
        assert DeepSpeedZeroConfig(stage3_gather_fp16_weights_on_model_save=True).gather_16bit_weights_on_model_save
        with pytest.raises(AssertionError, match="Cannot provide deprecated parameter"):
            DeepSpeedZeroConfig(stage=2, cpu_offload=True, offload_optimizer={"device": "cpu"})
        seen.clear()
        pinned = DeepSpeedZeroConfig(stage=3, cpu_offload_use_pin_memory=False, offload_param={"device": "cpu"})
        assert pinned.offload_param.pin_memory is True  # the deprecated flag changed nothing
        assert any("cpu_offload_use_pin_memory is deprecated" in m for m in seen)
    finally:
        logger.removeHandler(handler)


@pytest.mark.claim("ds-top-level-scalars-unchecked")
def test_top_level_scalars_are_taken_as_written():
    from deepspeed.runtime.config import DeepSpeedConfig

    config = DeepSpeedConfig({**BASE, "memory_breakdown": "false", "gradient_clipping": "1.0"})
    assert config.memory_breakdown == "false" and bool(config.memory_breakdown)  # a non-empty string: true
    assert config.gradient_clipping == "1.0"
    with pytest.raises(TypeError):
        DeepSpeedConfig({"train_batch_size": "4", "train_micro_batch_size_per_gpu": 4,
                         "gradient_accumulation_steps": 1, "zero_optimization": {"stage": 2}})


@pytest.mark.claim("ds-json-auto-plugin-defaults")
def test_auto_stage_offload_device_and_nvme_path_take_the_plugin_defaults(clean_env):  # noqa: F811
    import os

    from accelerate.utils import DeepSpeedPlugin

    plugin = DeepSpeedPlugin(hf_ds_config={
        "train_micro_batch_size_per_gpu": 1,
        "zero_optimization": {"stage": "auto", "offload_optimizer": {"device": "auto"},
                              "offload_param": {"device": "nvme", "nvme_path": "auto"}}})
    zero = plugin.deepspeed_config["zero_optimization"]
    assert zero["stage"] == 2 and plugin.zero_stage == 2
    assert zero["offload_optimizer"]["device"] == "none"
    assert zero["offload_param"]["nvme_path"] == "none" and not os.path.isabs(zero["offload_param"]["nvme_path"])


@pytest.mark.claim("ds-batch-sizes-positive-and-given")
def test_deepspeed_asserts_positive_batch_sizes_and_one_of_them_given():
    from deepspeed.runtime.config import DeepSpeedConfig

    zero = {"zero_optimization": {"stage": 2}}
    for batch in ({"train_micro_batch_size_per_gpu": 0, "gradient_accumulation_steps": 1},
                  {"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 0},
                  {"train_batch_size": -2, "train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1}):
        with pytest.raises(AssertionError, match="has to be greater than 0"):
            DeepSpeedConfig({**batch, **zero})
    with pytest.raises(AssertionError, match="Either train_batch_size or train_micro_batch_size_per_gpu"):
        DeepSpeedConfig({"gradient_accumulation_steps": 1, **zero})


@pytest.mark.claim("ds-auto-train-batch-needs-micro")
def test_an_auto_train_batch_size_without_micro_batch(tmp_path):
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

    from deepspeed.runtime.config import DeepSpeedConfig
    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    config = HfTrainerDeepSpeedConfig({"train_batch_size": "auto", "gradient_accumulation_steps": "auto",
                                       "zero_optimization": {"stage": 1}})
    config.trainer_config_process(TrainingArguments(output_dir=str(tmp_path), per_device_train_batch_size=2,
                                                    use_cpu=True))
    assert config.config["train_batch_size"] == 2  # 1 process x 2 x 1 accumulation step
    assert DeepSpeedConfig(config.config).train_micro_batch_size_per_gpu == 2


@pytest.mark.claim("ds-null-accumulation-fails-in-prepare")
def test_a_null_accumulation_fails_in_prepare():
    proc = one_rank("""
        import torch
        from accelerate import Accelerator
        from accelerate.utils import DeepSpeedPlugin, InitProcessGroupKwargs
        ds = {"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": None,
              "zero_optimization": {"stage": 1}}
        plugin = DeepSpeedPlugin(hf_ds_config=ds)
        print("KEPT", plugin.deepspeed_config["gradient_accumulation_steps"] is None)
        acc = Accelerator(deepspeed_plugin=plugin, kwargs_handlers=[InitProcessGroupKwargs(backend="gloo")])
        model = torch.nn.Linear(4, 4)
        loader = torch.utils.data.DataLoader(torch.randn(8, 4), batch_size=2)
        try:
            acc.prepare(model, torch.optim.SGD(model.parameters(), lr=0.1), loader)
        except TypeError as e:
            print("RAISED", "NoneType" in str(e))
    """, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "KEPT True" in proc.stdout and "RAISED True" in proc.stdout


@pytest.mark.claim("ds-steps-per-print-infinity")
def test_steps_per_print_is_replaced_by_infinity(clean_env):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin

    plugin = DeepSpeedPlugin(hf_ds_config={**BASE, "steps_per_print": 10})
    assert plugin.deepspeed_config["steps_per_print"] == float("inf")


@pytest.mark.claim("ds-msamp-block-for-ms-amp")
def test_accelerate_writes_the_msamp_block_for_ms_amp(clean_env, monkeypatch):  # noqa: F811
    from accelerate.utils import DeepSpeedPlugin
    from deepspeed.runtime.config import DeepSpeedConfig

    monkeypatch.setenv("ACCELERATE_FP8_BACKEND", "MSAMP")
    plugin = DeepSpeedPlugin(hf_ds_config={"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 1}})
    assert plugin.deepspeed_config["msamp"] == {"enabled": True, "opt_level": "O1"}
    kept = DeepSpeedPlugin(hf_ds_config={"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 1},
                                         "msamp": {"enabled": True, "opt_level": "O2"}})
    assert kept.deepspeed_config["msamp"]["opt_level"] == "O2"

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
    assert "msamp" not in reads


@pytest.mark.claim("ds-warmup-steps-positive-int")
def test_warmup_lr_takes_only_a_positive_int():
    import torch
    from deepspeed.runtime.lr_schedules import WarmupDecayLR, WarmupLR

    opt = torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=0.1)
    for bad in (0, -5, 10.0):
        with pytest.raises(ValueError, match="warmup_num_steps must be a positive integer"):
            WarmupLR(opt, warmup_num_steps=bad)
        with pytest.raises(ValueError, match="warmup_num_steps must be a positive integer"):
            WarmupDecayLR(opt, total_num_steps=100, warmup_num_steps=bad)
    assert WarmupLR(opt, warmup_num_steps=1).warmup_num_steps == 2  # 1 is accepted (and kept at least 2)
