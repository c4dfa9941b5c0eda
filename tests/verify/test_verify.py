"""Round trip of hand-made configs through the real accelerate 1.15 / DeepSpeed 0.19 code.

Values are asserted exactly. The fixture ``process_state_unchanged`` (conftest.py) also checks, after every test, that
os.environ, sys.argv, the cwd and accelerate's singleton states are unchanged.
"""
from __future__ import annotations

import enum
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT

from wizard.core.findings import ERROR, WARNING
from wizard.core.verify import Effective, compare, effective_config, flatten_effective, values_equal

pytestmark = [pytest.mark.verify, pytest.mark.usefixtures("process_state_unchanged")]


def run(data_dir: Path, name: str, **kw) -> Effective:
    kw.setdefault("launch_dir", data_dir)
    return effective_config(data_dir / name, **kw)


def only(findings, severity=ERROR):
    out = [f for f in findings if f.severity == severity]
    assert len(out) == 1, [f.render() for f in findings]
    return out[0]


# --------------------------------------------------------------------------------------------------
# FSDP1

FSDP_DYNAMO_ENV = {
    "ACCELERATE_DYNAMO_BACKEND": "NO",
    "ACCELERATE_DYNAMO_MODE": "default",
    "ACCELERATE_DYNAMO_USE_DYNAMIC": "False",
    "ACCELERATE_DYNAMO_USE_FULLGRAPH": "False",
    "ACCELERATE_DYNAMO_USE_REGIONAL_COMPILATION": "False",
}


def test_fsdp1_full_shard_every_value(data_dir):
    e = run(data_dir, "fsdp1_full_shard.yaml")
    assert e.findings == []
    assert (e.distributed_type, e.num_processes, e.num_machines) == ("FSDP", 8, 1)
    assert e.mixed_precision == "bf16"
    assert e.dynamo_backend == "NO"
    assert e.deepspeed is None and e.parallelism is None
    assert e.env == {
        **FSDP_DYNAMO_ENV,
        "ACCELERATE_MIXED_PRECISION": "bf16",
        "ACCELERATE_USE_FSDP": "true",
        "FSDP_ACTIVATION_CHECKPOINTING": "true",
        "FSDP_ACTIVATION_CHECKPOINTING_OFFLOAD": "false",
        "FSDP_AUTO_WRAP_POLICY": "TRANSFORMER_BASED_WRAP",
        "FSDP_BACKWARD_PREFETCH": "BACKWARD_PRE",
        "FSDP_CPU_RAM_EFFICIENT_LOADING": "true",
        "FSDP_FORWARD_PREFETCH": "false",
        "FSDP_MIN_NUM_PARAMS": "100000000",
        "FSDP_OFFLOAD_PARAMS": "false",
        "FSDP_RESHARD_AFTER_FORWARD": "true",
        "FSDP_SHARDING_STRATEGY": "FULL_SHARD",
        "FSDP_STATE_DICT_TYPE": "SHARDED_STATE_DICT",
        "FSDP_SYNC_MODULE_STATES": "true",
        "FSDP_TRANSFORMER_CLS_TO_WRAP": "LlamaDecoderLayer",
        "FSDP_USE_ORIG_PARAMS": "true",
        "FSDP_VERSION": "1",
        "OMP_NUM_THREADS": "1",
    }
    assert e.fsdp == {
        "fsdp_version": 1,
        "sharding_strategy": "FULL_SHARD",
        "reshard_after_forward": None,
        "cpu_offload": False,
        "auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
        "transformer_cls_names_to_wrap": ["LlamaDecoderLayer"],
        "min_num_params": None,
        "backward_prefetch": "BACKWARD_PRE",
        "forward_prefetch": False,
        "state_dict_type": "SHARDED_STATE_DICT",
        "use_orig_params": True,
        "sync_module_states": True,
        "cpu_ram_efficient_loading": True,
        "activation_checkpointing": True,
        "activation_checkpointing_offload": False,
        "ignored_modules": None,
        "mixed_precision_policy": True,
        "param_dtype": "bfloat16",
        "reduce_dtype": "bfloat16",
        "buffer_dtype": "bfloat16",
        "output_dtype": None,
    }


def test_fsdp1_strategy_under_reshard_key_is_silently_full_shard(data_dir):
    """library-rules F4: SHARD_GRAD_OP written under fsdp_reshard_after_forward is ignored by FSDP1."""
    e = run(data_dir, "fsdp1_reshard_key_shard_grad_op.yaml")
    assert e.findings == []  # the libraries say nothing ...
    assert e.env["FSDP_RESHARD_AFTER_FORWARD"] == "shard_grad_op"
    assert e.env["FSDP_SHARDING_STRATEGY"] == "FULL_SHARD"  # launcher default, always exported
    assert e.fsdp["sharding_strategy"] == "FULL_SHARD"  # ... but the effective strategy is FULL_SHARD
    assert e.fsdp["reshard_after_forward"] is None
    assert (e.fsdp["param_dtype"], e.fsdp["reduce_dtype"], e.fsdp["buffer_dtype"]) == ("float16",) * 3
    assert e.mixed_precision == "fp16"
    # compare() is how the product detects it
    mism = compare({"fsdp.sharding_strategy": "SHARD_GRAD_OP"}, flatten_effective(e))
    assert len(mism) == 1 and mism[0].rule == "verify-mismatch" and mism[0].keys == ("fsdp.sharding_strategy",)
    assert "'SHARD_GRAD_OP'" in mism[0].message and "'FULL_SHARD'" in mism[0].message


def test_fsdp1_unprefixed_keys_get_the_prefix(data_dir):
    e = run(data_dir, "fsdp1_unprefixed_keys.yaml")
    assert e.findings == []
    assert e.env["FSDP_SHARDING_STRATEGY"] == "SHARD_GRAD_OP"
    assert e.fsdp["sharding_strategy"] == "SHARD_GRAD_OP"
    assert e.fsdp["auto_wrap_policy"] == "NO_WRAP"
    assert e.fsdp["use_orig_params"] is False
    assert e.fsdp["state_dict_type"] == "FULL_STATE_DICT"
    assert e.mixed_precision == "no"
    assert e.fsdp["mixed_precision_policy"] is False
    assert (e.fsdp["param_dtype"], e.fsdp["reduce_dtype"], e.fsdp["buffer_dtype"]) == (None, None, None)


# --------------------------------------------------------------------------------------------------
# FSDP2


def test_fsdp2_reshard_true_cpu_offload_transformer_wrap(data_dir):
    e = run(data_dir, "fsdp2_reshard_true_offload.yaml")
    assert e.findings == []
    assert (e.num_processes, e.num_machines) == (16, 2)
    assert e.env["FSDP_VERSION"] == "2"
    assert e.env["FSDP_OFFLOAD_PARAMS"] == "true"
    assert e.env["FSDP_TRANSFORMER_CLS_TO_WRAP"] == "LlamaDecoderLayer,LlamaMLP"
    f = e.fsdp
    assert f["fsdp_version"] == 2
    assert f["sharding_strategy"] is None  # v2 never reads it
    assert f["reshard_after_forward"] is True
    assert f["cpu_offload"] is True
    assert f["auto_wrap_policy"] == "TRANSFORMER_BASED_WRAP"
    assert f["transformer_cls_names_to_wrap"] == ["LlamaDecoderLayer", "LlamaMLP"]
    assert f["state_dict_type"] == "SHARDED_STATE_DICT"
    assert (f["use_orig_params"], f["sync_module_states"], f["forward_prefetch"], f["backward_prefetch"]) == (
        None,
        None,
        None,
        None,
    )
    assert (f["param_dtype"], f["reduce_dtype"], f["output_dtype"], f["buffer_dtype"]) == (
        "bfloat16",
        "bfloat16",
        "bfloat16",
        None,
    )


def test_fsdp2_reshard_false_size_wrap_int_min_params(data_dir):
    e = run(data_dir, "fsdp2_reshard_false_size_wrap.yaml")
    assert e.findings == []
    f = e.fsdp
    assert f["reshard_after_forward"] is False
    assert f["cpu_offload"] is False
    assert f["auto_wrap_policy"] == "SIZE_BASED_WRAP"
    assert f["min_num_params"] == 2_000_000 and type(f["min_num_params"]) is int
    assert f["transformer_cls_names_to_wrap"] is None
    assert f["state_dict_type"] == "FULL_STATE_DICT"
    assert (f["activation_checkpointing"], f["activation_checkpointing_offload"]) == (True, True)
    assert f["cpu_ram_efficient_loading"] is False
    assert (f["param_dtype"], f["reduce_dtype"], f["output_dtype"]) == ("float16",) * 3
    assert e.env["FSDP_MIN_NUM_PARAMS"] == "2000000"
    assert e.env["FSDP_RESHARD_AFTER_FORWARD"] == "false"


def test_fsdp2_backward_prefetch_becomes_library_warning_every_time(data_dir):
    for _ in range(2):  # warnings must be captured again on a repeated call
        e = run(data_dir, "fsdp2_backward_prefetch.yaml")
        w = only(e.findings, WARNING)
        assert w.rule == "verify-library-warning"
        assert w.keys == ("fsdp_config.fsdp_backward_prefetch",)
        assert "backward_prefetch is not supported in FSDP2" in w.message
        assert not [f for f in e.findings if f.severity == ERROR]
        assert e.env["FSDP_BACKWARD_PREFETCH"] == "BACKWARD_PRE"
        assert e.fsdp["backward_prefetch"] is None


def test_fsdp2_hsdp_parallelism_config(data_dir):
    e = run(data_dir, "fsdp2_hsdp_parallelism.yaml")
    assert e.findings == []
    assert e.env["ACCELERATE_USE_PARALLELISM_CONFIG"] == "true"
    assert e.env["PARALLELISM_CONFIG_DP_REPLICATE_SIZE"] == "2"
    assert e.env["PARALLELISM_CONFIG_DP_SHARD_SIZE"] == "8"
    assert e.parallelism["dp_replicate_size"] == 2
    assert e.parallelism["dp_shard_size"] == 8
    assert e.parallelism["total_size"] == 16


def test_parallelism_keys_without_prefix_are_silently_ignored(data_dir):
    e = run(data_dir, "fsdp2_parallelism_unprefixed.yaml")
    assert e.findings == []
    assert e.parallelism["dp_shard_size"] == 1
    assert e.parallelism["dp_replicate_size"] == 1
    assert e.parallelism["total_size"] == 1


def test_parallelism_total_size_mismatch_is_plugin_error(data_dir):
    e = run(data_dir, "broken_parallelism_total_size.yaml")
    err = only(e.findings)
    assert err.rule == "verify-plugin"
    assert err.keys == ("parallelism_config",)
    assert "total_size (4) does not match num_processes (8)" in err.message


# --------------------------------------------------------------------------------------------------
# DeepSpeed inline


def test_ds_inline_zero2_every_value(data_dir):
    e = run(data_dir, "ds_zero2_inline.yaml")
    assert e.findings == []
    assert (e.distributed_type, e.num_processes, e.mixed_precision) == ("DEEPSPEED", 8, "bf16")
    assert e.dynamo_backend == "NO"
    assert e.fsdp is None
    assert e.env == {
        "ACCELERATE_CONFIG_DS_FIELDS": "gradient_accumulation_steps,gradient_clipping,offload_optimizer_device,"
        "offload_param_device,zero3_init_flag,zero_stage,mixed_precision",
        "ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE": "cpu",
        "ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE": "none",
        "ACCELERATE_DEEPSPEED_ZERO3_INIT": "false",
        "ACCELERATE_DEEPSPEED_ZERO_STAGE": "2",
        "ACCELERATE_GRADIENT_ACCUMULATION_STEPS": "4",
        "ACCELERATE_GRADIENT_CLIPPING": "0.5",
        "ACCELERATE_MIXED_PRECISION": "bf16",
        "ACCELERATE_USE_DEEPSPEED": "true",
        "PYTHONPATH": str(data_dir),
    }
    ds = e.deepspeed
    assert ds["config_file"] is None
    assert (ds["zero_stage"], ds["zero3_init_flag"], ds["gradient_accumulation_steps"]) == (2, False, 4)
    assert ds["config"] == {
        "train_batch_size": 32,
        "train_micro_batch_size_per_gpu": 1,
        "gradient_accumulation_steps": 4,
        "zero_optimization": {
            "stage": 2,
            "offload_optimizer": {"device": "cpu", "nvme_path": None},
            "offload_param": {"device": "none", "nvme_path": None},
            "stage3_gather_16bit_weights_on_model_save": False,
        },
        "gradient_clipping": 0.5,
        "steps_per_print": math.inf,
        "fp16": {"enabled": False},
        "bf16": {"enabled": True},
        "zero_allow_untested_optimizer": True,
    }
    assert ds["validated"] == {
        "world_size": 8,
        "zero_stage": 2,
        "offload_param_device": "none",
        "offload_param_nvme_path": None,
        "offload_optimizer_device": "cpu",
        "offload_optimizer_nvme_path": None,
        "gradient_clipping": 0.5,
        "gradient_accumulation_steps": 4,
        "train_batch_size": 32,
        "train_micro_batch_size_per_gpu": 1,
        "fp16_enabled": False,
        "bf16_enabled": True,
        "zero_allow_untested_optimizer": True,
        "gather_16bit_weights_on_model_save": False,
        # DeepSpeed 0.19.8's ZeRO defaults (stage 2: overlap_comm off)
        "reduce_bucket_size": 500_000_000,
        "allgather_bucket_size": 500_000_000,
        "prefetch_bucket_size": 50_000_000,
        "max_live_parameters": 1_000_000_000,
        "param_persistence_threshold": 100_000,
        "sub_group_size": 1_000_000_000,
        "zero_hpz_partition_size": 1,
        "overlap_comm": False,
    }


def test_ds_micro_batch_size_is_a_parameter(data_dir):
    e = run(data_dir, "ds_zero2_inline.yaml", micro_batch_size=3)
    assert e.deepspeed["config"]["train_micro_batch_size_per_gpu"] == 3
    assert e.deepspeed["validated"]["train_batch_size"] == 3 * 4 * 8


def test_ds_inline_zero3_cpu_offload_two_nodes(data_dir):
    e = run(data_dir, "ds_zero3_inline_offload.yaml")
    assert e.findings == []
    assert (e.num_processes, e.num_machines, e.mixed_precision) == (16, 2, "fp16")
    ds = e.deepspeed
    assert (ds["zero_stage"], ds["zero3_init_flag"]) == (3, True)
    cfg = ds["config"]
    assert cfg["zero_optimization"]["offload_param"] == {"device": "cpu", "nvme_path": None}
    assert cfg["zero_optimization"]["offload_optimizer"] == {"device": "cpu", "nvme_path": None}
    assert cfg["zero_optimization"]["stage3_gather_16bit_weights_on_model_save"] is True
    assert cfg["fp16"] == {"enabled": True, "auto_cast": True}
    assert cfg["bf16"] == {"enabled": False}
    assert cfg["gradient_clipping"] == 1.0  # "auto" (no clipping in the YAML) filled by _prepare_deepspeed
    assert cfg["gradient_accumulation_steps"] == 1  # "auto" filled from the Accelerator default
    v = ds["validated"]
    assert (v["world_size"], v["zero_stage"], v["train_batch_size"]) == (16, 3, 16)
    assert (v["offload_param_device"], v["offload_optimizer_device"]) == ("cpu", "cpu")
    assert (v["fp16_enabled"], v["bf16_enabled"], v["gather_16bit_weights_on_model_save"]) == (True, False, True)
    assert "ACCELERATE_GRADIENT_CLIPPING" not in e.env


def test_ds_inline_nvme_paths_never_reach_deepspeed(data_dir):
    """library-rules D4: the launcher does not export the inline nvme paths; DeepSpeed gets 'none'."""
    e = run(data_dir, "ds_zero3_inline_nvme.yaml")
    assert e.findings == []
    assert not [k for k in e.env if "NVME" in k]
    zo = e.deepspeed["config"]["zero_optimization"]
    assert zo["offload_param"] == {"device": "nvme", "nvme_path": "none"}
    assert zo["offload_optimizer"] == {"device": "nvme", "nvme_path": "none"}
    v = e.deepspeed["validated"]
    assert (v["offload_param_nvme_path"], v["offload_optimizer_nvme_path"]) == ("none", "none")
    mism = compare(
        {"deepspeed.zero_optimization.offload_param.nvme_path": "/local_nvme"}, flatten_effective(e)
    )
    assert [m.keys for m in mism] == [("deepspeed.zero_optimization.offload_param.nvme_path",)]


def test_ds_dynamo_config_is_not_exported(data_dir):
    """prepare_deepspeed_cmd_env exports no ACCELERATE_DYNAMO_*: the backend is silently dropped."""
    ds = run(data_dir, "ds_zero2_dynamo.yaml")
    assert ds.findings == []
    assert not [k for k in ds.env if "DYNAMO" in k]
    assert ds.dynamo_backend == "NO"
    fsdp = run(data_dir, "fsdp2_dynamo.yaml")
    assert fsdp.env["ACCELERATE_DYNAMO_BACKEND"] == "INDUCTOR"
    assert fsdp.dynamo_backend == "INDUCTOR"


# --------------------------------------------------------------------------------------------------
# DeepSpeed JSON


def test_ds_json_nvme_bf16_every_value(data_dir):
    e = run(data_dir, "ds_json_nvme_bf16.yaml", hidden_size=4096)
    assert e.env["ACCELERATE_DEEPSPEED_CONFIG_FILE"] == "ds_zero3_nvme_bf16.json"
    assert e.env["ACCELERATE_CONFIG_DS_FIELDS"] == "deepspeed_config_file,zero3_init_flag"
    assert e.env["ACCELERATE_MIXED_PRECISION"] == "no"
    assert e.mixed_precision == "bf16"  # AcceleratorState reads it from the DS dict
    # JSON gas 2 vs Accelerator default 1: accelerate warns and uses DeepSpeed's value
    w = only(e.findings, WARNING)
    assert w.rule == "verify-library-warning" and w.keys == ("gradient_accumulation_steps",)
    assert "Gradient accumulation steps mismatch" in w.message
    assert not [f for f in e.findings if f.severity == ERROR]
    ds = e.deepspeed
    assert ds["config_file"] == str(data_dir / "ds_zero3_nvme_bf16.json")
    assert (ds["zero_stage"], ds["zero3_init_flag"], ds["gradient_accumulation_steps"]) == (3, True, 2)
    assert ds["config"] == {
        "bf16": {"enabled": True},
        "fp16": {"enabled": False},
        "train_batch_size": 16,
        "train_micro_batch_size_per_gpu": 1,
        "gradient_accumulation_steps": 2,
        "gradient_clipping": 1.0,
        "zero_optimization": {
            "stage": 3,
            "offload_optimizer": {"device": "nvme", "nvme_path": "/local_nvme", "pin_memory": True},
            "offload_param": {"device": "nvme", "nvme_path": "/local_nvme2", "pin_memory": True},
            "overlap_comm": True,
            "contiguous_gradients": True,
            "reduce_bucket_size": 4096 * 4096,
            "stage3_prefetch_bucket_size": int(0.9 * 4096 * 4096),
            "stage3_param_persistence_threshold": 10 * 4096,
            "stage3_gather_16bit_weights_on_model_save": False,
        },
        "aio": {"block_size": 1048576, "queue_depth": 8, "single_submit": False, "overlap_events": True},
        "steps_per_print": math.inf,
        "zero_allow_untested_optimizer": True,
    }
    v = ds["validated"]
    assert v["zero_stage"] == 3
    assert (v["offload_param_device"], v["offload_param_nvme_path"]) == ("nvme", "/local_nvme2")
    assert (v["offload_optimizer_device"], v["offload_optimizer_nvme_path"]) == ("nvme", "/local_nvme")
    assert (v["bf16_enabled"], v["fp16_enabled"]) == (True, False)
    assert (v["gradient_clipping"], v["gradient_accumulation_steps"]) == (1.0, 2)
    assert (v["train_batch_size"], v["train_micro_batch_size_per_gpu"], v["world_size"]) == (16, 1, 8)


def test_ds_json_hidden_size_auto_without_model_config(data_dir):
    e = run(data_dir, "ds_json_nvme_bf16.yaml")  # hidden_size=None: a plain nn.Module
    err = only(e.findings)
    assert err.rule == "verify-deepspeed-config"
    assert err.keys == (
        "zero_optimization.reduce_bucket_size",
        "zero_optimization.stage3_prefetch_bucket_size",
        "zero_optimization.stage3_param_persistence_threshold",
    )
    assert err.message.startswith("ValueError: Can't find `model.config` entry")
    assert e.deepspeed["validated"] is None


def test_ds_json_bf16_auto_without_mixed_precision_is_disabled(data_dir):
    e = run(data_dir, "ds_json_plain.yaml")
    assert e.findings == []
    assert e.deepspeed["config"]["bf16"] == {"enabled": False}
    assert e.mixed_precision == "no"
    assert e.deepspeed["validated"]["bf16_enabled"] is False
    assert e.deepspeed["validated"]["train_batch_size"] == 4


def test_ds_library_warnings_from_accelerate_and_deepspeed(data_dir, capsys):
    e = run(data_dir, "ds_json_legacy_cpu_offload.yaml")
    assert not [f for f in e.findings if f.severity == ERROR]
    warns = {f.keys: f.message for f in e.findings if f.severity == WARNING}
    assert set(warns) == {("deepspeed_config.zero3_init_flag",), ("zero_optimization.cpu_offload",)}
    assert all(f.rule == "verify-library-warning" for f in e.findings)
    assert "Zero3 Init flag is only applicable for ZeRO Stage 3" in warns[("deepspeed_config.zero3_init_flag",)]
    assert "cpu_offload is deprecated" in warns[("zero_optimization.cpu_offload",)]
    assert e.deepspeed["zero3_init_flag"] is False  # adjusted by the plugin
    v = e.deepspeed["validated"]
    assert (v["offload_optimizer_device"], v["train_batch_size"]) == ("cpu", 4)  # legacy flag honoured
    assert "cpu_offload is deprecated" not in capsys.readouterr().out  # captured, not printed


# --------------------------------------------------------------------------------------------------
# Broken configs


def test_broken_min_num_params_1e8_is_plugin_error(data_dir):
    e = run(data_dir, "broken_fsdp_min_num_params_1e8.yaml")
    err = only(e.findings)
    assert err.rule == "verify-plugin"
    assert err.keys == ("fsdp_config.fsdp_min_num_params",)
    assert err.message == "ValueError: invalid literal for int() with base 10: '1e8'"
    assert e.env["FSDP_MIN_NUM_PARAMS"] == "1e8"
    assert e.fsdp is None


def test_broken_ds_file_plus_yaml_mixed_precision(data_dir):
    e = run(data_dir, "broken_ds_file_plus_mixed_precision.yaml")
    err = only(e.findings)
    assert err.rule == "verify-plugin"
    assert err.keys == ("mixed_precision",)
    assert err.message.startswith("ValueError: When using `deepspeed_config_file`, the following accelerate")
    assert e.env["ACCELERATE_CONFIG_DS_FIELDS"] == "deepspeed_config_file,zero3_init_flag,mixed_precision"
    assert e.deepspeed is None


def test_broken_unknown_zero_key_in_json(data_dir):
    e = run(data_dir, "broken_ds_json_unknown_zero_key.yaml")
    err = only(e.findings)
    assert err.rule == "verify-deepspeed-config"
    assert err.keys == ("zero_optimization.offload_params",)
    assert err.message.startswith("ValidationError: 1 validation error for DeepSpeedZeroConfig")
    assert "Extra inputs are not permitted" in err.message
    assert e.deepspeed["validated"] is None
    assert e.deepspeed["config"]["zero_optimization"]["offload_params"] == {"device": "cpu"}


def test_broken_top_level_key_is_load_error(data_dir):
    e = run(data_dir, "broken_top_level_key.yaml")
    err = only(e.findings)
    assert (err.rule, err.keys) == ("verify-load", ("fsdp_version",))
    assert e.env == {} and e.fsdp is None and e.distributed_type is None


def test_broken_mixed_precision_is_launch_error(data_dir):
    e = run(data_dir, "broken_mixed_precision_fp32.yaml")
    err = only(e.findings)
    assert (err.rule, err.keys) == ("verify-launch", ("mixed_precision",))
    assert err.message.startswith("ValueError: Unknown mixed_precision mode: fp32.")
    assert e.distributed_type == "FSDP" and e.env == {}


def test_broken_fsdp2_reshard_strategy_name(data_dir):
    e = run(data_dir, "broken_fsdp2_reshard_strategy_name.yaml")
    err = only(e.findings)
    assert (err.rule, err.keys) == ("verify-plugin", ("fsdp_config.fsdp_reshard_after_forward",))
    assert err.message == "ValueError: invalid truth value full_shard"


def test_broken_sync_false_with_default_ram_efficient_loading(data_dir):
    e = run(data_dir, "broken_sync_false_ram_efficient_default.yaml")
    err = only(e.findings)
    assert err.rule == "verify-launch"
    assert err.keys == ("fsdp_config.fsdp_cpu_ram_efficient_loading", "fsdp_config.fsdp_sync_module_states")


def test_missing_and_malformed_files_never_raise(tmp_path):
    e = effective_config(tmp_path / "nope.yaml")
    err = only(e.findings)
    assert err.rule == "verify-load" and err.message.startswith("FileNotFoundError")
    assert err.keys == (str(tmp_path / "nope.yaml"),)
    bad = tmp_path / "list.yaml"
    bad.write_text("- 1\n- 2\n")
    assert only(effective_config(bad).findings).rule == "verify-load"
    nodt = tmp_path / "nodt.yaml"
    nodt.write_text("num_processes: 2\n")
    err = only(effective_config(nodt).findings)
    assert (err.rule, err.keys) == ("verify-load", ("distributed_type",))


def test_relative_deepspeed_config_file_resolves_against_launch_dir(data_dir, tmp_path):
    home = os.getcwd()
    os.chdir(tmp_path)  # the JSON is not found from here (not monkeypatch: the state guard must see the undo)
    try:
        e = effective_config(data_dir / "ds_json_plain.yaml")
        err = only(e.findings)
        assert (err.rule, err.keys) == ("verify-plugin", ("deepspeed_config.deepspeed_config_file",))
        assert os.getcwd() == str(tmp_path)
        ok = effective_config(data_dir / "ds_json_plain.yaml", launch_dir=data_dir)
        assert ok.findings == []
        assert os.getcwd() == str(tmp_path)
    finally:
        os.chdir(home)


# --------------------------------------------------------------------------------------------------
# Process hygiene


def test_caller_environment_neither_leaks_in_nor_is_changed(data_dir):
    planted = {
        "FSDP_SHARDING_STRATEGY": "NO_SHARD",
        "ACCELERATE_MIXED_PRECISION": "fp16",
        "ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_NVME_PATH": "/leak",
        "OMP_NUM_THREADS": "7",
        "WIZARD_UNRELATED": "x",
    }
    saved = {k: os.environ.get(k) for k in planted}
    os.environ.update(planted)
    try:
        before = dict(os.environ)
        argv = list(sys.argv)
        e = run(data_dir, "fsdp1_full_shard.yaml")
        assert e.fsdp["sharding_strategy"] == "FULL_SHARD"
        assert e.mixed_precision == "bf16"
        assert e.env["OMP_NUM_THREADS"] == "1"
        assert "WIZARD_UNRELATED" not in e.env
        ds = run(data_dir, "ds_zero3_inline_nvme.yaml")
        assert ds.deepspeed["config"]["zero_optimization"]["offload_param"]["nvme_path"] == "none"
        assert dict(os.environ) == before
        assert sys.argv == argv
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_busy_local_port_does_not_fail_a_multi_node_config(data_dir):
    """ds_zero3_inline_offload.yaml: 2 machines, rank 0, port 29500. Unpatched, accelerate raises
    ConnectionError when that port is busy on *this* machine."""
    import socket

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        try:
            sock.bind(("127.0.0.1", 29500))
            sock.listen(1)
        except OSError:
            pass  # already busy: the condition under test holds anyway
        e = run(data_dir, "ds_zero3_inline_offload.yaml")
        assert e.findings == []
        assert e.deepspeed["validated"]["world_size"] == 16
    finally:
        sock.close()


def test_accelerate_singletons_untouched(data_dir):
    run(data_dir, "ds_zero2_inline.yaml")
    run(data_dir, "fsdp2_reshard_true_offload.yaml")
    from accelerate.state import AcceleratorState, GradientState, PartialState

    assert PartialState._shared_state == {}
    assert AcceleratorState._shared_state == {}
    assert GradientState._shared_state == {}


def test_patched_attributes_are_restored(data_dir):
    import accelerate.utils.dataclasses as dc
    import accelerate.utils.launch as launch_mod
    import deepspeed.comm
    import deepspeed.runtime.config as dsc
    import torch

    saved = (dc.is_cuda_available, torch.cuda.current_device, dsc.dist, launch_mod.is_port_in_use)
    run(data_dir, "fsdp1_full_shard.yaml")
    run(data_dir, "ds_zero2_inline.yaml")
    run(data_dir, "broken_fsdp_min_num_params_1e8.yaml")
    assert (dc.is_cuda_available, torch.cuda.current_device, dsc.dist, launch_mod.is_port_in_use) == saved
    assert dsc.dist is deepspeed.comm


def test_module_imports_no_heavy_library():
    code = (
        "import sys, wizard.core.verify, wizard.core.verify.keys;"
        "bad=[m for m in ('torch','accelerate','deepspeed') if m in sys.modules];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


def test_warm_call_is_fast(data_dir):
    run(data_dir, "ds_json_nvme_bf16.yaml", hidden_size=4096)  # warm
    t = time.perf_counter()
    for name in ("fsdp1_full_shard.yaml", "ds_json_nvme_bf16.yaml"):
        run(data_dir, name, hidden_size=4096)
    assert (time.perf_counter() - t) / 2 < 0.3


# --------------------------------------------------------------------------------------------------
# flatten_effective / compare


def test_flatten_has_stable_dotted_keys(data_dir):
    fs = flatten_effective(run(data_dir, "fsdp2_reshard_true_offload.yaml"))
    assert fs["fsdp.reshard_after_forward"] is True
    assert fs["fsdp.sharding_strategy"] is None
    assert fs["env.FSDP_VERSION"] == "2"
    assert fs["mixed_precision"] == "bf16"
    assert fs["distributed_type"] == "FSDP"
    ds = flatten_effective(run(data_dir, "ds_zero3_inline_offload.yaml"))
    assert ds["deepspeed.zero_optimization.stage"] == 3
    assert ds["deepspeed.zero_optimization.offload_param.device"] == "cpu"
    assert ds["deepspeed.gradient_clipping"] == 1.0
    assert ds["deepspeed.fp16.enabled"] is True
    assert ds["deepspeed_plugin.zero3_init_flag"] is True
    assert ds["deepspeed_plugin.zero_stage"] == 3
    assert ds["deepspeed_validated.train_batch_size"] == 16
    assert "fsdp.sharding_strategy" not in ds


def test_compare_accepts_obvious_equivalences(data_dir):
    import torch
    from torch.distributed.fsdp import ShardingStrategy

    class Dev(str, enum.Enum):
        cpu = "cpu"

    flat = flatten_effective(run(data_dir, "fsdp1_full_shard.yaml"))
    flat_ds = flatten_effective(run(data_dir, "ds_json_nvme_bf16.yaml", hidden_size=4096))
    expected = {
        "fsdp.sharding_strategy": ShardingStrategy.FULL_SHARD,
        "fsdp.use_orig_params": "true",
        "fsdp.forward_prefetch": "False",
        "fsdp.param_dtype": torch.bfloat16,
        "fsdp.transformer_cls_names_to_wrap": "LlamaDecoderLayer",
        "env.FSDP_MIN_NUM_PARAMS": 100000000,
        "env.FSDP_OFFLOAD_PARAMS": False,
        "num_processes": 8.0,
        "fsdp.backward_prefetch": "BACKWARD_PRE",
        "fsdp.ignored_modules": None,
        "env.FSDP_IGNORED_MODULES": None,  # absent == None
    }
    assert compare(expected, flat) == []
    expected_ds = {
        "deepspeed.zero_optimization.offload_param.nvme_path": Path("/local_nvme2/"),
        "deepspeed.zero_optimization.stage": 3.0,
        "deepspeed.gradient_clipping": 1,
        "deepspeed_validated.offload_param_device": "nvme",
        "deepspeed.zero_optimization.offload_optimizer.pin_memory": "true",
    }
    assert compare(expected_ds, flat_ds) == []
    assert values_equal({"device": Dev.cpu, "pin_memory": "true"}, {"pin_memory": True, "device": "cpu"})
    assert not values_equal({"device": "cpu"}, {"device": "cpu", "nvme_path": None})
    assert values_equal(Dev.cpu, "cpu") and values_equal("cpu", Dev.cpu)
    assert values_equal(["A", "B"], ("A", "B")) and values_equal("A,B", ["A", "B"])


def test_compare_reports_each_difference(data_dir):
    flat = flatten_effective(run(data_dir, "fsdp1_full_shard.yaml"))
    expected = {
        "fsdp.sharding_strategy": "SHARD_GRAD_OP",
        "fsdp.use_orig_params": "false",
        "fsdp.param_dtype": "float16",
        "env.FSDP_MIN_NUM_PARAMS": 1e7,
        "num_processes": True,  # a bool never equals a count
        "fsdp.no_such_key": 1,
        "fsdp.transformer_cls_names_to_wrap": ["LlamaDecoderLayer", "Other"],
        "fsdp.mixed_precision_policy": True,  # equal: not reported
    }
    found = compare(expected, flat)
    assert [f.keys[0] for f in found] == [k for k in expected if k != "fsdp.mixed_precision_policy"]
    assert all(f.severity == ERROR and f.rule == "verify-mismatch" for f in found)
    assert "not present" in found[5].message
    assert values_equal(1, 1.0) and not values_equal(1, 2) and not values_equal(True, 1)
    assert not values_equal("full_shard", "FULL_SHARD")  # strings are case-sensitive
