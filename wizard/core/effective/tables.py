"""The libraries' tables, in one home: launcher defaults, plugin defaults, DeepSpeed's ZeRO defaults and the "auto"
fill formulas, for the versions the wizard is verified against (``wizard.core.versions.VERIFIED_AGAINST``: accelerate
1.15, DeepSpeed 0.19.8, transformers 5.24). Each figure names the code it comes from; ``tests/unit/
test_effective_tables.py`` reads them back from the installed libraries.
"""
from __future__ import annotations

# ---------------------------------------------------------------------------------------------------- accelerate
LAUNCH_FSDP_DEFAULTS: dict[str, object] = {
    "fsdp_version": "1",
    "fsdp_offload_params": "false",
    "fsdp_min_num_params": 100_000_000,
    "fsdp_sharding_strategy": "FULL_SHARD",
    "fsdp_reshard_after_forward": "true",
    "fsdp_auto_wrap_policy": None,
    "fsdp_transformer_layer_cls_to_wrap": None,
    "fsdp_backward_prefetch": None,
    "fsdp_state_dict_type": None,
    "fsdp_forward_prefetch": "false",
    "fsdp_use_orig_params": "true",
    "fsdp_cpu_ram_efficient_loading": "true",
    "fsdp_sync_module_states": "true",
    "fsdp_activation_checkpointing": "false",
    "fsdp_activation_checkpointing_offload": "false",
    "fsdp_ignored_modules": None,
}
"""``accelerate launch``'s argument defaults for the fsdp_config keys (accelerate/commands/launch.py
``launch_command_parser``, the ``--fsdp_*`` arguments). A key the YAML leaves out takes this value; ``None``: the
launcher exports nothing and the plugin's own default applies (:data:`PLUGIN_FSDP_DEFAULTS`)."""

PLUGIN_FSDP_DEFAULTS: dict[str, object] = {
    "fsdp_auto_wrap_policy": "NO_WRAP",
    "fsdp_backward_prefetch": None,
}
FSDP_STATE_DICT_DEFAULT = {1: "FULL_STATE_DICT", 2: "SHARDED_STATE_DICT"}
"""``FullyShardedDataParallelPlugin.__post_init__`` defaults when the launcher exported nothing
(accelerate/utils/dataclasses.py: ``FSDP_AUTO_WRAP_POLICY`` "NO_WRAP", ``FSDP_BACKWARD_PREFETCH`` None,
``set_state_dict_type``: FULL_STATE_DICT for FSDP1, SHARDED_STATE_DICT for FSDP2)."""

FSDP_MIXED_PRECISION_DTYPE = {"bf16": "bfloat16", "fp16": "float16", "fp8": "bfloat16"}
"""``FullyShardedDataParallelPlugin.set_mixed_precision``'s map (fp8 computes its matmuls in fp8 and the rest in
bf16); "no" sets no policy."""

LAUNCH_DEEPSPEED_DEFAULTS: dict[str, object] = {
    "zero_stage": 2,
    "offload_optimizer_device": "none",
    "offload_param_device": "none",
    "gradient_accumulation_steps": "auto",
    "gradient_clipping": "auto",
    "zero3_save_16bit_model": False,
}
"""``DeepSpeedPlugin.__post_init__`` defaults when the launcher exported nothing (accelerate/utils/dataclasses.py:
``ACCELERATE_DEEPSPEED_ZERO_STAGE`` 2, devices "none", accumulation and clipping "auto", 16-bit save false)."""

ACCELERATE_FILLS = {"gradient_clipping": 1.0, "zero_optimization.stage3_gather_16bit_weights_on_model_save": False}
"""What ``Accelerator._prepare_deepspeed`` puts in an "auto" it can fill without the model (accelerate/accelerator.py
``config_kwargs``)."""

DUMMY_OPTIM_FILLS = {"optimizer.params.lr": 0.001, "optimizer.params.weight_decay": 0}
DUMMY_SCHEDULER_FILLS = {"scheduler.params.warmup_min_lr": 0, "scheduler.params.warmup_max_lr": 0.001,
                         "scheduler.params.warmup_num_steps": 1}
"""What an own loop's ``DummyOptim(params)`` (lr 0.001, weight_decay 0) and ``DummyScheduler(optimizer)``
(warmup_num_steps 0, which accelerate raises to 1) put in the JSON's optimizer/scheduler "auto" values
(accelerate/utils/deepspeed.py; accelerate/accelerator.py ``_prepare_deepspeed``)."""

# ---------------------------------------------------------------------------------------------------- DeepSpeed
DS_DEFAULT_STAGE = 0
DS_DEFAULT_CLIPPING = 1.0
DS_DEFAULT_GAS = 1
"""DeepSpeedConfig defaults for keys a JSON leaves out (deepspeed/runtime/constants.py: ZERO_OPTIMIZATION_STAGE 0,
GRADIENT_CLIPPING_DEFAULT 1.0; accelerate adds ``gradient_accumulation_steps: 1`` to a JSON without it)."""

DS_ZERO_DEFAULTS: dict[str, object] = {
    "reduce_bucket_size": 500_000_000,
    "allgather_bucket_size": 500_000_000,
    "stage3_prefetch_bucket_size": 50_000_000,
    "stage3_max_live_parameters": 1_000_000_000,
    "stage3_max_reuse_distance": 1_000_000_000,
    "stage3_param_persistence_threshold": 100_000,
    "sub_group_size": 1_000_000_000,
    "zero_hpz_partition_size": 1,
    "overlap_comm": None,
    "contiguous_gradients": True,
    "reduce_scatter": True,
    "round_robin_gradients": False,
}
"""DeepSpeed 0.19.8 ``DeepSpeedZeroConfig`` field defaults, in elements (deepspeed/runtime/zero/config.py).
``overlap_comm`` None: the config's validator turns it on for stage 3 and off below (:func:`overlap_comm_default`)."""

DS_NVME_PARAM_BUFFER_COUNT = 5
DS_NVME_PARAM_BUFFER_SIZE = 100_000_000
DS_NVME_OPTIMIZER_BUFFER_COUNT = 4
DS_NVME_MAX_IN_CPU = 1_000_000_000
"""NVMe offload defaults (deepspeed/runtime/zero/offload_config.py): offload_param buffer_count 5 x buffer_size 1e8
elements, max_in_cpu 1e9; offload_optimizer buffer_count 4 (of the largest sub-group)."""


def overlap_comm_default(stage: int) -> bool:
    """``DeepSpeedZeroConfig.overlap_comm_valid``: None becomes True at stage 3, False below."""
    return stage == 3


# ---------------------------------------------------------------------------------------------------- "auto" fills
AUTO_REDUCE_BUCKET_PER_H2 = 1.0
AUTO_PREFETCH_BUCKET_PER_H2 = 0.9
AUTO_PERSISTENCE_PER_H = 10
HIDDEN_SIZE_AUTO_KEYS = ("zero_optimization.reduce_bucket_size", "zero_optimization.stage3_prefetch_bucket_size",
                         "zero_optimization.stage3_param_persistence_threshold")


def hidden_size_fill(key: str, hidden: int) -> int:
    """What accelerate's ``_prepare_deepspeed`` and the HF Trainer (``trainer_config_finalize``, transformers >= 4.45)
    write into a hidden-size "auto": reduce_bucket_size h*h, stage3_prefetch_bucket_size int(0.9*h*h),
    stage3_param_persistence_threshold 10*h."""
    if key.endswith("reduce_bucket_size"):
        return int(AUTO_REDUCE_BUCKET_PER_H2 * hidden * hidden)
    if key.endswith("stage3_prefetch_bucket_size"):
        return int(AUTO_PREFETCH_BUCKET_PER_H2 * hidden * hidden)
    if key.endswith("stage3_param_persistence_threshold"):
        return AUTO_PERSISTENCE_PER_H * hidden
    raise KeyError(f"{key} is not filled from the hidden size")


TRAINER_DEFAULTS = {"per_device_train_batch_size": 8, "gradient_accumulation_steps": 1, "max_grad_norm": 1.0,
                    "bf16": False, "fp16": False}
"""TrainingArguments defaults for what the Trainer writes into DeepSpeed "auto" values (transformers/
training_args.py)."""

__all__ = [name for name in dir() if name.isupper() or name in ("hidden_size_fill", "overlap_comm_default")]
