"""The catalogue: complete, consistent, and every key of library-rules.md §2 covered."""
import re

import pytest

from wizard.core.answers import coerce_value, default_answers
from wizard.core.catalog import GROUP_BY_ID, GROUPS, SETTINGS, TARGETS, SHARDING

# library-rules.md §2.1 and §2.2: every key accelerate 1.15 reads from fsdp_config / deepspeed_config,
# plus the top-level keys that carry FSDP/DeepSpeed meaning.
FSDP_KEYS = [
    "fsdp_version", "fsdp_sharding_strategy", "fsdp_reshard_after_forward", "fsdp_offload_params",
    "fsdp_auto_wrap_policy", "fsdp_transformer_layer_cls_to_wrap", "fsdp_min_num_params", "fsdp_backward_prefetch",
    "fsdp_forward_prefetch", "fsdp_state_dict_type", "fsdp_use_orig_params", "fsdp_cpu_ram_efficient_loading",
    "fsdp_sync_module_states", "fsdp_activation_checkpointing", "fsdp_activation_checkpointing_offload",
    "fsdp_ignored_modules", "mixed_precision", "parallelism_config",
]
DS_KEYS = [
    "deepspeed_config_file", "zero_stage", "offload_optimizer_device", "offload_param_device",
    "offload_optimizer_nvme_path", "offload_param_nvme_path", "gradient_accumulation_steps", "gradient_clipping",
    "zero3_init_flag", "zero3_save_16bit_model", "deepspeed_moe_layer_cls_names", "deepspeed_multinode_launcher",
    "deepspeed_hostfile", "deepspeed_exclusion_filter", "deepspeed_inclusion_filter", "mixed_precision",
]
LAUNCH_KEYS = ["num_processes", "num_machines", "machine_rank", "main_process_ip", "main_process_port",
               "rdzv_backend", "gpu_ids", "dynamo_backend"]


def _all_where_text():
    parts = []
    for s in SETTINGS:
        parts += list(s.where.values()) + list(s.not_applicable.values())
    return "\n".join(parts)


@pytest.mark.parametrize("key", FSDP_KEYS + DS_KEYS + LAUNCH_KEYS)
def test_every_library_key_is_covered(key):
    assert re.search(rf"\b{re.escape(key)}\b", _all_where_text()), f"{key} is not written by any setting"


def test_ids_unique_and_groups_known():
    ids = [s.id for s in SETTINGS]
    assert len(ids) == len(set(ids))
    for s in SETTINGS:
        assert s.group in GROUP_BY_ID, s.id


def test_every_guide_group_has_settings():
    guide = [g.id for g in GROUPS if g.guide]
    assert guide == ["sharding", "offload", "loading", "checkpoint", "prefetch", "wrapping", "summoning", "sync",
                     "training", "precision"]
    for g in guide:
        assert any(s.group == g for s in SETTINGS), g


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.id)
def test_setting_is_well_formed(setting):
    assert setting.kind in {"bool", "int", "float", "choice", "str", "list", "dict"}
    value, problem = coerce_value(setting, setting.default)
    assert problem is None, problem
    if setting.kind == "choice":
        assert setting.default in setting.choices or setting.default is None
    # every target is either written somewhere or explained
    for t in TARGETS:
        assert t in setting.where or t in setting.not_applicable, (setting.id, t)
        if t in setting.not_applicable:
            assert setting.not_applicable[t].strip()
    assert setting.counterpart.strip(), setting.id


def test_sharding_table_matches_guide():
    # FULL_SHARD corresponds to ZeRO-3, SHARD_GRAD_OP to ZeRO-2, NO_SHARD to ZeRO-0
    assert SHARDING["full"][0] == "FULL_SHARD" and SHARDING["full"][2] == 3
    assert SHARDING["grads_optimizer"][0] == "SHARD_GRAD_OP" and SHARDING["grads_optimizer"][2] == 2
    assert SHARDING["none"][0] == "NO_SHARD" and SHARDING["none"][2] == 0
    assert SHARDING["optimizer"][0] is None  # ZeRO-1 has no FSDP twin
    choices = next(s for s in SETTINGS if s.id == "sharding.strategy").choices
    assert set(choices) == set(SHARDING)


def test_defaults_make_valid_answers():
    a = default_answers()
    assert a.backend == "fsdp" and a.fsdp_version == 2
