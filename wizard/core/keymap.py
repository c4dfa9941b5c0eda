"""Config key -> the setting behind it: the inverse of what :func:`render` writes.

A finding about an existing config names the file's keys (``fsdp_config.fsdp_min_num_params``,
``zero_optimization.stage``, ``deepspeed_config.zero_stage``). To jump from such a finding to the
setting that controls the key, the renderer's provenance (key -> answer id) is collected over a set of
answers that together write every key the wizard knows, for every target. Keys spelled the way
accelerate also accepts them (``fsdp_config.min_num_params`` without the prefix, DeepSpeed JSON keys
under ``deepspeed_config.``) are normalised first, as the importer does.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from .answers import Answers, default_answers
from .render import render

_COVERAGE: tuple[dict[str, Any], ...] = (
    {},
    {"launch.num_machines": 2, "launch.main_process_ip": "10.0.0.1", "launch.main_process_port": 29500,
     "launch.dynamo_backend": "inductor", "sharding.strategy": "hybrid_full", "wrapping.policy": "size",
     "wrapping.ignored_modules": "vision.*", "wrapping.layer_classes": ["Block"], "offload.params": "cpu",
     "launch.ds_multinode_launcher": "pdsh", "launch.ds_hostfile": "/etc/hosts",
     "launch.ds_inclusion_filter": "a", "launch.ds_exclusion_filter": "b", "checkpoint.format": "full",
     "wrapping.ds_moe_layer_classes": ["Expert"]},
    {"wrapping.policy": "transformer", "wrapping.layer_classes": ["Block"], "launch.main_process_port": 29500},
    {"deepspeed.config_file": "yes", "offload.optimizer": "nvme", "offload.params": "nvme",
     "offload.nvme_path": "/nvme", "offload.pin_memory": False, "training.micro_batch_size": 4,
     "precision.ds_communication_data_type": "fp32", "prefetch.ds_bucket_size": 1,
     "prefetch.ds_param_persistence_threshold": 1, "prefetch.ds_max_live_parameters": 1,
     "prefetch.ds_max_reuse_distance": 1, "deepspeed.overlap_comm": True, "deepspeed.contiguous_gradients": True,
     "deepspeed.reduce_bucket_size": 1, "deepspeed.allgather_bucket_size": 1, "deepspeed.sub_group_size": 1,
     "sharding.strategy": "hybrid_full", "launch.num_machines": 2},
    {"offload.optimizer": "cpu", "sharding.strategy": "grads_optimizer", "training.gradient_clipping": 0.5,
     "training.gradient_accumulation_steps": 2},
)
_BACKENDS = ({"backend": "fsdp", "fsdp_version": 1}, {"backend": "fsdp", "fsdp_version": 2},
             {"backend": "deepspeed"})
_OWN = {"compute_environment": "backend", "debug": "backend", "use_cpu": "backend", "distributed_type": "backend",
        "deepspeed_config.deepspeed_config_file": "deepspeed.config_file",
        "fsdp_config.fsdp_sharding_strategy": "sharding.strategy",
        "fsdp_config.fsdp_reshard_after_forward": "sharding.strategy",
        "fsdp_config.fsdp_offload_params": "offload.params",
        "zero_optimization.offload_param": "offload.params",
        "zero_optimization.offload_optimizer": "offload.optimizer",
        "deepspeed_config.offload_optimizer_nvme_path": "offload.nvme_path",
        "deepspeed_config.offload_param_nvme_path": "offload.nvme_path",
        "deepspeed_config.mixed_precision": "precision.mixed_precision",
        "deepspeed_config.train_micro_batch_size_per_gpu": "training.micro_batch_size"}
"""Keys the coverage renders write under another answer id, or that only appear in configs from elsewhere."""


@lru_cache(maxsize=1)
def key_to_setting() -> dict[str, str]:
    """Every key the wizard can write (YAML dotted path or DeepSpeed JSON path) -> its setting id."""
    out: dict[str, str] = dict(_OWN)
    for changes in _COVERAGE:
        for backend in _BACKENDS:
            answers: Answers = default_answers().replace({**changes, **backend})
            for path, sid in render(answers).provenance.items():
                out.setdefault(path, sid)
    for path, sid in list(out.items()):
        if path.startswith(("zero_optimization.", "bf16.", "fp16.")) or "." not in path and path in (
                "gradient_accumulation_steps", "gradient_clipping", "train_micro_batch_size_per_gpu",
                "train_batch_size", "communication_data_type"):
            out.setdefault("deepspeed_config." + path, sid)
    return out


def _spellings(key: str) -> list[str]:
    """The key as written, then the spellings accelerate treats the same (missing fsdp_/dynamo_ prefixes)."""
    out = [key]
    section, _, name = key.partition(".")
    if section == "fsdp_config" and name and not name.startswith("fsdp_"):
        out.append(f"fsdp_config.fsdp_{name}")
    if section == "dynamo_config" and name and not name.startswith("dynamo_"):
        out.append(f"dynamo_config.dynamo_{name}")
    if section == "parallelism_config" and name and not name.startswith("parallelism_config_"):
        out.append(f"parallelism_config.parallelism_config_{name}")
    if section == "deepspeed_config" and "." in name:
        out.append(name)
    return out


def setting_for_key(key: str) -> str | None:
    """The setting that controls ``key`` (a config key or an answer id), or None."""
    from .catalog import SETTING_BY_ID

    if key in SETTING_BY_ID:
        return key
    table = key_to_setting()
    for spelling in _spellings(key):
        if spelling in table:
            return table[spelling]
        # a block inside a known block: zero_optimization.offload_param.buffer_size -> offload.params
        parent = spelling
        while "." in parent:
            parent = parent.rsplit(".", 1)[0]
            if parent in table and parent.count(".") >= 1:
                return table[parent]
    return None
