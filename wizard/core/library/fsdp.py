"""FSDP in accelerate 1.15: the fsdp_config keys ``accelerate launch`` reads, the environment variables it exports them
as, its argument defaults, and what ``FullyShardedDataParallelPlugin`` uses when the launcher exported nothing.
"""
from __future__ import annotations

FSDP_ENV_TO_ARG: dict[str, str] = {
    "FSDP_VERSION": "fsdp_version",
    "FSDP_SHARDING_STRATEGY": "fsdp_sharding_strategy",
    "FSDP_RESHARD_AFTER_FORWARD": "fsdp_reshard_after_forward",
    "FSDP_OFFLOAD_PARAMS": "fsdp_offload_params",
    "FSDP_MIN_NUM_PARAMS": "fsdp_min_num_params",
    "FSDP_AUTO_WRAP_POLICY": "fsdp_auto_wrap_policy",
    "FSDP_TRANSFORMER_CLS_TO_WRAP": "fsdp_transformer_layer_cls_to_wrap",
    "FSDP_BACKWARD_PREFETCH": "fsdp_backward_prefetch",
    "FSDP_STATE_DICT_TYPE": "fsdp_state_dict_type",
    "FSDP_FORWARD_PREFETCH": "fsdp_forward_prefetch",
    "FSDP_USE_ORIG_PARAMS": "fsdp_use_orig_params",
    "FSDP_CPU_RAM_EFFICIENT_LOADING": "fsdp_cpu_ram_efficient_loading",
    "FSDP_SYNC_MODULE_STATES": "fsdp_sync_module_states",
    "FSDP_ACTIVATION_CHECKPOINTING": "fsdp_activation_checkpointing",
    "FSDP_ACTIVATION_CHECKPOINTING_OFFLOAD": "fsdp_activation_checkpointing_offload",
    "FSDP_IGNORED_MODULES": "fsdp_ignored_modules",
}
"""The environment variable ``accelerate launch`` exports for each fsdp_config argument it reads
(utils/launch.py:prepare_multi_gpu_env, :304-333)."""
FSDP_KEYS = frozenset(FSDP_ENV_TO_ARG.values())
"""Every fsdp_config key the launcher reads (as an argument name: ``fsdp_`` prefixed)."""
FSDP_BOOL_KEYS = ("fsdp_offload_params", "fsdp_cpu_ram_efficient_loading", "fsdp_activation_checkpointing",
                  "fsdp_activation_checkpointing_offload")
"""Flags both FSDP versions parse with ``str_to_bool``."""
FSDP1_BOOL_KEYS = ("fsdp_forward_prefetch", "fsdp_use_orig_params", "fsdp_sync_module_states")
"""Flags only FSDP1 reads (FSDP2 drops or ignores them)."""
FSDP_LEGACY = {"fsdp_backward_prefetch_policy": "fsdp_backward_prefetch"}
"""Old fsdp_config key names no longer read (utils/launch.py:322-323; accelerate#2275) -> the name read now."""


def fsdp_key(name: str) -> str:
    """How the launcher names an fsdp_config key (commands/launch.py:1270-1271): ``fsdp_`` prepended unless the
    key starts with ``fsdp``."""
    return name if name.startswith("fsdp") else "fsdp_" + name


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
