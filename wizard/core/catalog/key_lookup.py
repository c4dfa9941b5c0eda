"""Config key -> the setting behind it: the inverse of what :func:`render` writes.

A finding about an existing config names the file's keys (``fsdp_config.fsdp_min_num_params``,
``zero_optimization.stage``, ``deepspeed_config.zero_stage``). To jump from such a finding to the
setting that controls the key, the keys every setting is written to are read from the catalogue
(:func:`wizard.core.catalog.writes.key_to_setting`), for every target. Keys spelled the way accelerate
also accepts them (``fsdp_config.min_num_params`` without the prefix, DeepSpeed JSON keys under
``deepspeed_config.``) are normalised first, as the importer does.
"""
from __future__ import annotations

from functools import lru_cache

_OWN = {"fsdp_config.fsdp_offload_params": "offload.params",
        "zero_optimization.offload_param": "offload.params",
        "zero_optimization.offload_optimizer": "offload.optimizer",
        "deepspeed_config.offload_optimizer_nvme_path": "offload.nvme_path",
        "deepspeed_config.offload_param_nvme_path": "offload.nvme_path",
        "deepspeed_config.mixed_precision": "precision.mixed_precision",
        "deepspeed_config.train_micro_batch_size_per_gpu": "training.micro_batch_size"}
"""Keys some other setting also writes, or that only appear in configs from elsewhere."""


@lru_cache(maxsize=1)
def key_to_setting() -> dict[str, str]:
    """Every key the wizard can write (YAML dotted path or DeepSpeed JSON path) -> its setting id."""
    from .writes import key_to_setting as declared

    out: dict[str, str] = dict(_OWN)
    for path, sid in declared().items():
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
    from .settings import SETTING_BY_ID

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
