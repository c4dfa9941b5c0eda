"""answers.yaml: parsing, normalisation, did-you-mean, immutability."""
import pytest

from wizard.core.answers import answers_from_mapping, default_answers, dump_answers, parse_answers_text


def errors(findings):
    return [f for f in findings if f.severity == "error"]


def test_minimal_answers_fill_defaults():
    a, findings = answers_from_mapping({"backend": "deepspeed", "sharding": {"strategy": "full"}})
    assert a is not None and not errors(findings)
    assert a.backend == "deepspeed" and a["sharding.strategy"] == "full"
    assert a["launch.num_processes"] == 2
    assert a.explicit == {"backend", "sharding.strategy"}


@pytest.mark.parametrize("data,key,suggestion", [
    ({"sharding": {"stratgy": "full"}}, "sharding.stratgy", "strategy"),
    ({"offload": {"optimiser": "cpu"}}, "offload.optimiser", "optimizer"),
    ({"precison": {"mixed_precision": "bf16"}}, "precison", "precision"),
    ({"backnd": "fsdp"}, "backnd", "backend"),
])
def test_unknown_keys_suggest(data, key, suggestion):
    a, findings = answers_from_mapping(data)
    assert a is None
    [f] = errors(findings)
    assert f.rule == "answers-unknown-key" and f.keys == (key,)
    assert suggestion in f.fix


def test_native_names_point_to_the_intent():
    a, findings = answers_from_mapping({"zero_stage": 3})
    assert a is None
    assert "sharding.strategy" in errors(findings)[0].fix


@pytest.mark.parametrize("data,key,fix_part", [
    ({"wrapping": {"min_num_params": "1e8"}}, "wrapping.min_num_params", "100000000"),
    ({"wrapping": {"min_num_params": 1e8}}, "wrapping.min_num_params", "100000000"),
    ({"launch": {"num_processes": 0}}, "launch.num_processes", ""),
    ({"launch": {"num_processes": True}}, "launch.num_processes", ""),
    ({"offload": {"optimizer": "gpu"}}, "offload.optimizer", ""),
    ({"fsdp_version": 3}, "fsdp_version", ""),
    ({"sharding": "full"}, "sharding", "indented"),
    ({"launch": {"main_process_port": 70000}}, "launch.main_process_port", ""),
])
def test_bad_values_are_errors_naming_the_key(data, key, fix_part):
    a, findings = answers_from_mapping(data)
    assert a is None
    errs = errors(findings)
    assert errs and errs[0].keys == (key,)
    assert fix_part in errs[0].fix


def test_case_insensitive_choices_and_auto():
    a, findings = answers_from_mapping({"precision": {"mixed_precision": "BF16"},
                                        "training": {"gradient_accumulation_steps": "AUTO"}})
    assert a["precision.mixed_precision"] == "bf16"
    assert a["training.gradient_accumulation_steps"] == "auto"


def test_comma_string_list():
    a, _ = answers_from_mapping({"wrapping": {"layer_classes": "LlamaDecoderLayer, MistralDecoderLayer"}})
    assert a["wrapping.layer_classes"] == ["LlamaDecoderLayer", "MistralDecoderLayer"]


def test_dump_round_trips_and_is_stable():
    a, _ = answers_from_mapping({"backend": "deepspeed", "offload": {"optimizer": "cpu"},
                                 "wrapping": {"layer_classes": ["Block"]}})
    text = dump_answers(a)
    b, findings = parse_answers_text(text)
    assert not errors(findings)
    assert dict(b.values) == dict(a.values)
    assert dump_answers(b) == text


def test_yaml_syntax_error_is_reported_with_position():
    a, findings = parse_answers_text("backend: fsdp\nlaunch:\n  num_processes: [8\n")
    assert a is None
    assert findings[0].rule == "answers-yaml" and "line" in findings[0].message


def test_not_a_mapping():
    a, findings = parse_answers_text("- fsdp\n- deepspeed\n")
    assert a is None and findings[0].rule == "answers-not-a-mapping"


def test_answers_are_immutable():
    a = default_answers()
    with pytest.raises(TypeError):
        a.values["backend"] = "deepspeed"
    b = a.replace({"backend": "deepspeed"})
    assert a.backend == "fsdp" and b.backend == "deepspeed"
    with pytest.raises(KeyError):
        a.replace({"nope": 1})


def test_schema_version_checked():
    a, findings = answers_from_mapping({"schema_version": 2})
    assert a is None and errors(findings)[0].keys == ("schema_version",)
