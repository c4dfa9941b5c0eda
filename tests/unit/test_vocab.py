"""wizard.core.vocab: the libraries' spellings, read as the libraries read them."""
import pytest

from wizard.core import vocab


@pytest.mark.parametrize("value,expected", [("TRUE", True), ("y", True), (1, True), ("off", False), ("0", False),
                                            (False, False), ("maybe", None), ("", None), (None, None)])
def test_parse_bool_is_accelerates_str_to_bool(value, expected):
    assert vocab.parse_bool(value) is expected


def test_truth_words_stripped_for_strings_only():
    assert vocab.is_true_word(" Yes ") and not vocab.is_true_word(1) and not vocab.is_true_word("no")
    assert vocab.bool_word(" OFF") is False and vocab.bool_word("x") is None and vocab.bool_word(0) is None


@pytest.mark.parametrize("value,expected", [(5, 5), ("5", 5), ("1e8", None), (2.0, None), (True, None)])
def test_parse_int_is_int_of_str(value, expected):
    assert vocab.parse_int(value) == expected


def test_whole_number_reads_what_a_config_means():
    assert vocab.whole_number("1e8") == 100_000_000 and vocab.whole_number(2.0) == 2
    assert vocab.whole_number("2.5") is None and vocab.whole_number(True) is None


@pytest.mark.parametrize("value,expected", [("full_shard", "FULL_SHARD"), (1, "FULL_SHARD"),
                                            ("5", "HYBRID_SHARD_ZERO2"),
                                            ("_HYBRID_SHARD_ZERO2", "HYBRID_SHARD_ZERO2"), ("0", None), ("6", None),
                                            ("ZERO3", None)])
def test_fsdp1_sharding_strategy_names_and_digit_codes(value, expected):
    assert vocab.sharding_strategy_name(value) == expected


def test_prefetch_and_state_dict_digit_codes_follow_the_enum_order():
    assert vocab.backward_prefetch_name("2") == (True, "BACKWARD_POST")
    assert vocab.backward_prefetch_name("no_prefetch") == (True, None)
    assert vocab.backward_prefetch_name(3) == (False, None)
    assert [vocab.state_dict_type_name(n) for n in (1, 2, 3, 4)] == ["FULL_STATE_DICT", "LOCAL_STATE_DICT",
                                                                      "SHARDED_STATE_DICT", None]
    assert vocab.fsdp_enum_name("fsdp_backward_prefetch", "no_prefetch") == vocab.NO_PREFETCH
    assert vocab.fsdp_enum_name("fsdp_backward_prefetch", "sometimes") is None
    assert vocab.fsdp_enum_name("fsdp_auto_wrap_policy", "size_based_wrap") == "SIZE_BASED_WRAP"
    assert vocab.fsdp_enum_name("fsdp_version", 2) == 2


def test_key_sets():
    from wizard.core.library import deepspeed, fsdp

    assert len(fsdp.FSDP_KEYS) == len(fsdp.FSDP_ENV_TO_ARG) == 16
    assert set(fsdp.FSDP_BOOL_KEYS) | set(fsdp.FSDP1_BOOL_KEYS) <= fsdp.FSDP_KEYS
    assert fsdp.fsdp_key("min_num_params") == "fsdp_min_num_params"
    assert fsdp.fsdp_key("fsdp_version") == "fsdp_version"
    assert "mixed_precision" in deepspeed.DS_FILE_CONFLICTING_FIELDS
    assert "zero3_init_flag" not in deepspeed.DS_FILE_CONFLICTING_FIELDS


def test_checklist_reads_torchs_hybrid_shard_zero2_member_name():
    """torch names FSDP1's last strategy `_HYBRID_SHARD_ZERO2`; the run checklist compared it with the config's
    `HYBRID_SHARD_ZERO2` as another strategy (FAIL) and skipped the sharded-fraction row."""
    from wizard.run.checklist import FAIL, OK, compare, expected_from_config

    expected = expected_from_config({"distributed_type": "FSDP", "num_processes": 2,
                                     "fsdp_config": {"fsdp_version": 1, "fsdp_sharding_strategy": 5}})
    assert expected["sharding"] == "HYBRID_SHARD_ZERO2"
    effective = {"distributed_type": "FSDP", "world_size": 2, "fsdp_version": 1, "sharding": "_HYBRID_SHARD_ZERO2",
                 "param_fraction": 0.5, "full_param_numel": 100, "local_param_numel": 50}
    rows = {item.key or item.label: item for item in compare(effective, expected)}
    assert rows["sharding"].status == OK, rows["sharding"]
    assert any(i.status == OK and "sharding active" in i.label for i in rows.values())
    assert not any(i.status == FAIL for i in rows.values())
