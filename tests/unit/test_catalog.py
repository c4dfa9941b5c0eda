"""The catalogue: complete, consistent, and every key of library-rules.md §2 covered."""
import re

import pytest

from wizard.core.answers import coerce_value, default_answers
from wizard.core.catalog import GROUP_BY_ID, GROUPS, SETTING_BY_ID, SETTINGS, SHARDING, TARGETS

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


NUMBERS = [s for s in SETTINGS if s.kind in ("int", "float")]


@pytest.mark.parametrize("setting", NUMBERS, ids=lambda s: s.id)
def test_every_number_setting_has_a_range_and_refuses_what_is_above_it(setting):
    """Issue 7: a 2,770-digit num_processes was accepted and written. Every number has both bounds in the catalogue,
    enforced by the answers validation and stated in the JSON schema."""
    from wizard.core.answers.schema import json_schema

    assert setting.minimum is not None and setting.maximum is not None, setting.id
    assert setting.minimum < setting.maximum
    top = setting.maximum if setting.kind == "float" else int(setting.maximum)
    assert coerce_value(setting, top) == (top, None)
    _, problem = coerce_value(setting, top + 1)
    assert problem is not None and problem.rule == "answers-bad-value" and problem.keys == (setting.id,)
    assert "too large: expected " in problem.message and f"{int(setting.maximum):,}" in problem.message
    assert "remove the key" in problem.fix
    schema = json_schema()["properties"][setting.path[0]]["properties"][setting.path[1]]
    number = next(alt for alt in schema.get("anyOf", [schema]) if alt.get("type") in ("integer", "number"))
    assert (number["minimum"], number["maximum"]) == (setting.minimum, setting.maximum)


def test_a_huge_process_count_is_refused_with_a_short_message():
    from wizard.core.answers import parse_answers_text

    a, findings = parse_answers_text("launch:\n  num_processes: " + "9" * 2770 + "\n")
    assert a is None and len(findings) == 1
    f = findings[0]
    assert f.message == ("'launch.num_processes' is a 2,770-digit number (int); too large: expected an integer "
                         "from 1 to 1,048,576")
    assert f.fix == "write a value in that range, or remove the key to use the default (2)"


def test_non_finite_numbers_are_refused():
    clip = SETTING_BY_ID["training.gradient_clipping"]
    for value in (float("inf"), float("nan")):
        _, problem = coerce_value(clip, value)
        assert problem is not None and "not a finite number: expected a number from 0 to 1,000,000" in problem.message


def test_where_lines_name_the_versions_a_write_needs():
    from wizard.core.catalog import SETTING_BY_ID, SETTINGS

    seen = 0
    for s in SETTINGS:
        for target, writes in s.writes.items():
            for w in writes:
                if w.versions:
                    seen += 1
                    assert f"needs {w.versions}" in s.where[target], (s.id, target)
    assert seen >= 3
    assert SETTING_BY_ID["wrapping.ignored_modules"].where["fsdp2"].endswith("(needs torch>=2.7)")
    assert "needs" not in SETTING_BY_ID["wrapping.ignored_modules"].where["fsdp1"]
