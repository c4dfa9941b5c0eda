"""DeepSpeed through accelerate 1.15, and DeepSpeed 0.19.8's own config: the inline deepspeed_config keys, the
environment variables ``accelerate launch`` exports them as, their paths in the DeepSpeed dict, accelerate's defaults
for them, and the defaults DeepSpeed's config models apply to what a JSON leaves out.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

# ---------------------------------------------------------------------------------------- accelerate: inline keys
DS_INLINE_KEYS = frozenset({
    "deepspeed_config_file", "zero_stage", "offload_optimizer_device", "offload_param_device",
    "offload_optimizer_nvme_path", "offload_param_nvme_path", "gradient_accumulation_steps", "gradient_clipping",
    "zero3_init_flag", "zero3_save_16bit_model", "deepspeed_hostfile", "deepspeed_exclusion_filter",
    "deepspeed_inclusion_filter", "deepspeed_multinode_launcher", "deepspeed_moe_layer_cls_names",
})
"""The deepspeed_config keys accelerate reads (utils/launch.py:prepare_deepspeed_cmd_env, :430-586, and the plugin);
any other is dropped (accelerate#2298)."""
DS_NVME_PATH_KEYS = ("offload_optimizer_nvme_path", "offload_param_nvme_path")
"""Inline NVMe paths: read by the plugin's config, but the launcher exports none of them."""
DS_MULTINODE_KEYS = ("deepspeed_hostfile", "deepspeed_exclusion_filter", "deepspeed_inclusion_filter")
"""Read only by DeepSpeed's multi-node runner (utils/launch.py:450-476)."""

DS_ENV_TO_KEY: dict[str, str] = {
    "ACCELERATE_DEEPSPEED_ZERO_STAGE": "zero_stage",
    "ACCELERATE_GRADIENT_ACCUMULATION_STEPS": "gradient_accumulation_steps",
    "ACCELERATE_GRADIENT_CLIPPING": "gradient_clipping",
    "ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE": "offload_optimizer_device",
    "ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE": "offload_param_device",
    "ACCELERATE_DEEPSPEED_ZERO3_INIT": "zero3_init_flag",
    "ACCELERATE_DEEPSPEED_ZERO3_SAVE_16BIT_MODEL": "zero3_save_16bit_model",
    "ACCELERATE_DEEPSPEED_CONFIG_FILE": "deepspeed_config_file",
    "ACCELERATE_DEEPSPEED_MOE_LAYER_CLS_NAMES": "deepspeed_moe_layer_cls_names",
}
"""The environment variable ``prepare_deepspeed_cmd_env`` exports for each inline key it reads (utils/launch.py
:565-586)."""

INLINE_TO_PATH = {
    "gradient_accumulation_steps": "gradient_accumulation_steps",
    "gradient_clipping": "gradient_clipping",
    "zero_stage": "zero_optimization.stage",
    "offload_optimizer_device": "zero_optimization.offload_optimizer.device",
    "offload_param_device": "zero_optimization.offload_param.device",
    "offload_param_nvme_path": "zero_optimization.offload_param.nvme_path",
    "offload_optimizer_nvme_path": "zero_optimization.offload_optimizer.nvme_path",
    "zero3_save_16bit_model": "zero_optimization.stage3_gather_16bit_weights_on_model_save",
}
"""accelerate's ``plugin_to_config_mapping`` (utils/dataclasses.py ``DeepSpeedPlugin.__post_init__``): each inline
deepspeed_config key -> its path in the DeepSpeed dict."""
PATH_TO_INLINE = {path: name for name, path in INLINE_TO_PATH.items()}
"""The inverse of :data:`INLINE_TO_PATH`: a path in the DeepSpeed dict -> the inline key that writes it."""

DS_FILE_CONFLICTING_FIELDS = (*INLINE_TO_PATH, "mixed_precision")
"""What ``DeepSpeedPlugin._deepspeed_config_checks`` refuses next to a ``deepspeed_config_file``
(utils/dataclasses.py:1507-1532: the ACCELERATE_* names with ACCELERATE_/DEEPSPEED_ removed, lower-cased): the inline
keys of :data:`INLINE_TO_PATH` (the JSON must say them), and the top-level ``mixed_precision``."""

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

# ---------------------------------------------------------------------------------------- DeepSpeed's config
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


SUBKEY_RENAMED = {"aio.thread_count": "intra_op_parallelism"}
"""Old names of sub-keys in the hand-parsed sections, and the key DeepSpeed 0.19 reads instead."""
SUBKEY_DEFAULTS: dict[str, dict[str, Any]] = {
    "aio": {"block_size": 1048576, "queue_depth": 8, "intra_op_parallelism": 1, "single_submit": False,
            "overlap_events": True, "use_gds": False},
    "activation_checkpointing": {"partition_activations": False, "number_checkpoints": None,
                                 "contiguous_memory_optimization": False, "synchronize_checkpoint_boundary": False,
                                 "profile": False, "cpu_checkpointing": False},
    "flops_profiler": {"enabled": False, "recompute_fwd_factor": 0.0, "profile_step": 1, "module_depth": -1,
                       "top_modules": 1, "detailed": True, "output_file": None},
    "checkpoint": {"tag_validation": "Warn", "load_universal": False, "use_node_local_storage": False},
    "torch_autocast": {"enabled": False},
}
"""Defaults DeepSpeed 0.19 applies to sub-keys of the hand-parsed sections (runtime/swap_tensor/constants.py:20-30,
runtime/activation_checkpointing/config.py:28-43, profiling/constants.py:29-47, runtime/constants.py:353-364)."""

DS_MODEL_PREFIX: dict[str, str] = {
    "DeepSpeedZeroConfig": "zero_optimization",
    "DeepSpeedZeroOffloadParamConfig": "zero_optimization.offload_param",
    "DeepSpeedZeroOffloadOptimizerConfig": "zero_optimization.offload_optimizer",
    "DeepSpeedFP16Config": "fp16",
    "DeepSpeedBF16Config": "bf16",
    "DeepSpeedFlopsProfilerConfig": "flops_profiler",
    "DeepSpeedActivationCheckpointingConfig": "activation_checkpointing",
    "DeepSpeedCommsConfig": "comms_logger",
    "CompileConfig": "compile",
    "DeepSpeedAutotuningConfig": "autotuning",
}
"""A DeepSpeed pydantic config model's title (deepspeed/runtime/...config.py) -> its path in the DeepSpeed dict (where
a ValidationError it raises points)."""
