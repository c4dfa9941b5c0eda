"""The objects the libraries built, read back as the plain values of :class:`.comparison.Effective`.

What a round trip reports is what these objects hold, not what the config says: the FSDP plugin's fields
(:func:`_fsdp_summary`), the ParallelismConfig's sizes (:func:`_parallelism_summary`), the DeepSpeed JSON file the
plugin was given (:func:`_ds_config_file`) and what DeepSpeed's own ``DeepSpeedConfig`` derived from the final dict
(:func:`_deepspeed_validated`). Enum members become their names (or values), torch dtypes their names.

torch is imported inside :func:`_fsdp_summary` only.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from enum import Enum
from typing import Any

from ..library.fsdp import FSDP_PLAIN
from ..library.launcher import FP8_RECIPE_KEYS


def _dtype_name(x: Any) -> str | None:
    return None if x is None else str(x).removeprefix("torch.")


def _enum_name(x: Any) -> Any:
    return x.name if isinstance(x, Enum) else x


def _enum_value(x: Any) -> Any:
    return x.value if isinstance(x, Enum) else x


def _fsdp_summary(p: Any) -> dict:
    """The FSDP plugin's fields, under the names of :class:`.comparison.Effective`'s ``fsdp``."""
    from torch.distributed.fsdp.wrap import size_based_auto_wrap_policy, transformer_auto_wrap_policy

    version = p.fsdp_version
    policy = p.auto_wrap_policy
    if policy is transformer_auto_wrap_policy:
        policy_name = "TRANSFORMER_BASED_WRAP"
    elif policy is size_based_auto_wrap_policy:
        policy_name = "SIZE_BASED_WRAP"
    elif policy is None:
        policy_name = "NO_WRAP"
    else:
        policy_name = repr(policy)

    offload = p.cpu_offload
    if hasattr(offload, "offload_params"):  # FSDP1 CPUOffload
        cpu_offload = bool(offload.offload_params)
    else:  # FSDP2 OffloadPolicy / CPUOffloadPolicy
        cpu_offload = type(offload).__name__ == "CPUOffloadPolicy"

    rab = p.reshard_after_forward
    reshard = rab if isinstance(rab, bool) or rab is None else _enum_name(rab)

    mp = p.mixed_precision_policy
    names = p.transformer_cls_names_to_wrap
    return {
        "fsdp_version": version,
        "sharding_strategy": None if p.sharding_strategy is None else _enum_name(p.sharding_strategy),
        "reshard_after_forward": reshard,
        "cpu_offload": cpu_offload,
        "auto_wrap_policy": policy_name,
        "transformer_cls_names_to_wrap": None if names is None else list(names),
        "min_num_params": p.min_num_params,
        "backward_prefetch": None if p.backward_prefetch is None else _enum_name(p.backward_prefetch),
        "state_dict_type": None if p.state_dict_type is None else _enum_name(p.state_dict_type),
        "mixed_precision_policy": mp is not None,
        "param_dtype": _dtype_name(getattr(mp, "param_dtype", None)),
        "reduce_dtype": _dtype_name(getattr(mp, "reduce_dtype", None)),
        "buffer_dtype": _dtype_name(getattr(mp, "buffer_dtype", None)),
        "output_dtype": _dtype_name(getattr(mp, "output_dtype", None)),
        # the plain keys, as the plugin keeps them (library.fsdp.FSDP_TABLE)
        **{k.field: getattr(p, k.field) for k in FSDP_PLAIN if k.read_back and k.field},
    }


def _parallelism_summary(pc: Any) -> dict:
    """The sizes and backends of a ``ParallelismConfig``."""
    return {
        "dp_replicate_size": pc.dp_replicate_size,
        "dp_shard_size": pc.dp_shard_size,
        "tp_size": pc.tp_size,
        "cp_size": pc.cp_size,
        "cp_backend": pc.cp_backend,
        "sp_size": pc.sp_size,
        "sp_backend": pc.sp_backend,
        "total_size": pc.total_size,
        # the handlers' details, as the model states them: only where the dimension is above 1
        **({"cp_comm_strategy": pc.cp_handler.cp_comm_strategy} if pc.cp_size > 1 and pc.cp_handler else {}),
        **({"sp_seq_length_is_variable": pc.sp_handler.sp_seq_length_is_variable,
            "sp_seq_length": pc.sp_handler.sp_seq_length,
            "sp_attn_implementation": pc.sp_handler.sp_attn_implementation}
           if pc.sp_size > 1 and pc.sp_handler else {}),
    }


def _fp8_summary(backend: str, recipe: Any) -> dict:
    """The fields of the fp8 recipe accelerate built (TERecipeKwargs, MSAMPRecipeKwargs, AORecipeKwargs), under the
    names the recipe has (the effective model's ``fp8.<field>``); the override triple as a list."""
    out: dict[str, Any] = {"backend": backend}
    for field in FP8_RECIPE_KEYS[backend]:
        value = getattr(recipe, field)
        out[field] = list(value) if isinstance(value, tuple) else value
    return out


def _ds_config_file(env: Mapping[str, str]) -> str | None:
    """The DeepSpeed JSON the launcher hands the plugin (absolute when it exists), None for an inline config."""
    value = env.get("ACCELERATE_DEEPSPEED_CONFIG_FILE")
    if value is None or value == "none":
        return None
    return os.path.abspath(value) if os.path.exists(value) else value


def _deepspeed_validated(cfg: Any) -> dict:
    """What ``DeepSpeedConfig`` derived from the final dict (its ZeRO section included)."""
    z = cfg.zero_config
    op, oo = z.offload_param, z.offload_optimizer
    return {
        "world_size": cfg.world_size,
        "zero_stage": int(cfg.zero_optimization_stage),
        "offload_param_device": None if op is None else _enum_value(op.device),
        "offload_param_nvme_path": None if op is None or op.nvme_path is None else str(op.nvme_path),
        "offload_optimizer_device": None if oo is None else _enum_value(oo.device),
        "offload_optimizer_nvme_path": None if oo is None or oo.nvme_path is None else str(oo.nvme_path),
        "gradient_clipping": cfg.gradient_clipping,
        "gradient_accumulation_steps": cfg.gradient_accumulation_steps,
        "train_batch_size": cfg.train_batch_size,
        "train_micro_batch_size_per_gpu": cfg.train_micro_batch_size_per_gpu,
        "fp16_enabled": bool(cfg.float16_config.enabled),
        "bf16_enabled": bool(cfg.bfloat16_config.enabled),
        "zero_allow_untested_optimizer": bool(cfg.zero_allow_untested_optimizer),
        "gather_16bit_weights_on_model_save": bool(z.gather_16bit_weights_on_model_save),
        # the ZeRO sizes and switches the memory estimate reads (the effective model states them too)
        "reduce_bucket_size": z.reduce_bucket_size,
        "allgather_bucket_size": z.allgather_bucket_size,
        "prefetch_bucket_size": z.prefetch_bucket_size,
        "max_live_parameters": z.max_live_parameters,
        "param_persistence_threshold": z.param_persistence_threshold,
        "sub_group_size": z.sub_group_size,
        "zero_hpz_partition_size": z.zero_hpz_partition_size,
        "overlap_comm": bool(z.overlap_comm),
    }
