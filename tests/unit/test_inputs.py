"""Bounded reading of YAML/JSON input (wizard.core.inputs) and its one wording for unusable files."""
import base64
import json
import sys

import pytest
import yaml
from helpers import alias_bomb, deep_yaml

from wizard.core import inputs
from wizard.core.inputs import InputError, load_mapping_file, parse_json, parse_yaml
from wizard.core.lint import load_config_files


def deep_json(levels: int) -> str:
    return '{"a": ' + "[" * levels + "]" * levels + "}"


def test_depth_at_the_bound_is_read_and_one_more_is_refused_with_the_line():
    # 63 mapping levels + the innermost mapping = 64 collections
    assert parse_yaml(deep_yaml(63), "ok.yaml") is not None
    with pytest.raises(InputError) as exc:
        parse_yaml(deep_yaml(64), "deep.yaml")
    assert exc.value.problem == "too-deep" and exc.value.line == 65
    assert str(exc.value) == ("deep.yaml: nested more than 64 levels deep (line 65); a config is at most a few "
                              "levels deep and a few kilobytes long — is this the right file?")


@pytest.mark.parametrize("text", [deep_yaml(100), "a: " + "[" * 5_000 + "]" * 5_000 + "\n",
                                  "a: " + "{b: " * 3000 + "1" + "}" * 3000 + "\n"])
def test_deep_yaml_is_refused_without_recursion_error(text):
    with pytest.raises(InputError) as exc:
        parse_yaml(text, "deep.yaml")
    assert exc.value.problem == "too-deep"


def test_deep_yaml_is_refused_even_under_a_low_recursion_limit():
    """The bound is counted, not the interpreter's recursion limit caught."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(450)
    try:
        with pytest.raises(InputError, match="nested more than 64"):
            parse_yaml(deep_yaml(100), "deep.yaml")
    finally:
        sys.setrecursionlimit(old)


def test_json_depth_counts_brackets_outside_strings_only():
    assert parse_json('{"a": "' + "[" * 500 + '", "b": "\\"[[["}', "x.json") == {"a": "[" * 500, "b": '"[[['}
    assert parse_json(deep_json(63), "ok.json")["a"] is not None
    with pytest.raises(InputError) as exc:
        parse_json('{\n"a":\n' + "[" * 3000 + "]" * 3000 + "}", "ds.json")
    assert exc.value.problem == "too-deep" and exc.value.line == 3
    assert exc.value.message == "ds.json: nested more than 64 levels deep (line 3)"


def test_alias_bomb_is_refused_and_ordinary_anchors_are_fine():
    with pytest.raises(InputError) as exc:
        parse_yaml(alias_bomb(), "bomb.yaml")
    assert exc.value.problem == "aliases"
    assert exc.value.message.startswith("bomb.yaml: YAML aliases (*name) expand to more than 100,000 values (line ")
    data = parse_yaml("base: &b {zero_stage: 3}\nother: *b\nlist: [*b, *b]\n", "ok.yaml")
    assert data["other"] == {"zero_stage": 3} and data["list"] == [{"zero_stage": 3}] * 2


def test_size_bound(tmp_path):
    p = tmp_path / "big.yaml"
    p.write_bytes(b"# " + b"x" * inputs.MAX_YAML_BYTES + b"\nbackend: fsdp\n")
    with pytest.raises(InputError) as exc:
        load_mapping_file(p, inputs.ANSWERS)
    assert exc.value.problem == "too-large"
    assert exc.value.message == f"{p}: larger than 16 KiB"
    j = tmp_path / "big.json"  # JSON is read by the C reader: a larger bound
    j.write_bytes(b'{"a": "' + b"x" * inputs.MAX_JSON_BYTES + b'"}')
    with pytest.raises(InputError) as exc:
        load_mapping_file(j, inputs.DEEPSPEED)
    assert exc.value.message == f"{j}: larger than 256 KiB"
    ok = tmp_path / "ok.json"
    ok.write_bytes(b'{"a": "' + b"x" * (inputs.MAX_YAML_BYTES * 4) + b'"}')
    assert load_mapping_file(ok, inputs.DEEPSPEED)["a"].startswith("x")


def test_yaml_text_over_the_bound_is_refused_before_it_is_parsed():
    """The TUI and the answers' text path parse text that was never a file: the same bound."""
    with pytest.raises(InputError) as exc:
        parse_yaml("a: [" + "1," * inputs.MAX_YAML_BYTES + "1]\n", "pasted")
    assert exc.value.problem == "too-large"


def test_binary_files_name_the_first_bad_byte(tmp_path):
    png = tmp_path / "picture.yaml"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    with pytest.raises(InputError) as exc:
        load_mapping_file(png, inputs.ACCELERATE)
    assert str(exc.value) == (f"{png}: not UTF-8 text (byte 0 is 0x89); "
                              "is this a binary file? Give the text file, saved as UTF-8")
    later = tmp_path / "later.yaml"
    later.write_bytes(b"backend: fsdp\n# caf\xe9\n")
    with pytest.raises(InputError, match=r"byte 19 is 0xe9"):
        load_mapping_file(later, inputs.ANSWERS)
    nul = tmp_path / "nul.yaml"
    nul.write_bytes(b"backend: fsdp\n\x00\x00")
    with pytest.raises(InputError, match=r"not text \(byte 14 is 0x00\); is this a binary file\?"):
        load_mapping_file(nul, inputs.ANSWERS)


def test_bom_is_accepted(tmp_path):
    p = tmp_path / "bom.yaml"
    p.write_bytes("\ufeffbackend: fsdp\n".encode("utf-8"))
    assert load_mapping_file(p, inputs.ANSWERS) == {"backend": "fsdp"}


@pytest.mark.parametrize("text,described", [
    ("- a\n- b\n", "a list"),
    ("hello\n", "a text value ('hello')"),
    ("3\n", "a number (3)"),
    ("true\n", "a true/false value (true)"),
])
def test_not_a_mapping_says_what_the_top_level_is(tmp_path, text, described):
    p = tmp_path / "x.yaml"
    p.write_text(text)
    with pytest.raises(InputError) as exc:
        load_mapping_file(p, inputs.ANSWERS)
    assert exc.value.message == f"{p}: the top level is {described}, not a mapping of keys"
    assert "fsdpds-wizard presets" in exc.value.fix and "templates/" not in exc.value.fix


def test_not_found_and_folder(tmp_path):
    with pytest.raises(InputError) as exc:
        load_mapping_file(tmp_path / "nope.yaml", inputs.ACCELERATE)
    assert exc.value.problem == "not-found" and exc.value.message == f"{tmp_path / 'nope.yaml'}: not found"
    with pytest.raises(InputError) as exc:
        load_mapping_file(tmp_path, inputs.ACCELERATE)
    assert exc.value.message == f"{tmp_path}: a folder, not a file"


def test_huge_integers_are_bad_input_not_a_crash():
    with pytest.raises(InputError, match=r"not valid YAML: a number has more than \d+ digits"):
        parse_yaml("a: " + "9" * 5000 + "\n", "x.yaml")
    with pytest.raises(InputError, match=r"not valid JSON: a number has more than \d+ digits"):
        parse_json('{"a": ' + "9" * 5000 + "}", "x.json")


def test_yaml_and_json_syntax_errors_give_line_and_column():
    with pytest.raises(InputError) as exc:
        parse_yaml("a: [1\n", "x.yaml")
    assert exc.value.problem == "not-yaml" and exc.value.message.startswith("x.yaml: not valid YAML (line 2, column 1)")
    with pytest.raises(InputError) as exc:
        parse_json('{"a": 1,}', "x.json")
    assert exc.value.message.startswith("x.json: not valid JSON (line 1, column 9)")


# ------------------------------------------------------------------------------ through the config loader
def ds_yaml(value: str) -> str:
    return yaml.safe_dump({"distributed_type": "DEEPSPEED", "deepspeed_config": {"deepspeed_config_file": value}})


def test_accelerate_config_bounds_raise_config_file_error(tmp_path):
    p = tmp_path / "acc.yaml"
    p.write_text(deep_yaml(100))
    with pytest.raises(InputError, match="nested more than 64 levels deep"):
        load_config_files(p)
    j = tmp_path / "acc.json"
    j.write_text(deep_json(5000))
    with pytest.raises(InputError, match="nested more than 64 levels deep"):
        load_config_files(j)


@pytest.mark.parametrize("how", ["text", "base64"])
def test_deep_inline_deepspeed_json_is_a_finding(tmp_path, how):
    text = deep_json(3000)
    value = text if how == "text" else base64.urlsafe_b64encode(text.encode()).decode()
    p = tmp_path / "acc.yaml"
    p.write_text(ds_yaml(value))
    lc = load_config_files(p)
    assert [f.rule for f in lc.findings] == ["ds-config-file-invalid-json"]
    assert "nested more than 64 levels deep" in lc.findings[0].message and lc.ds is None


def test_deepspeed_json_file_bounds_are_findings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # launched from the YAML's folder: the relative path is the one accelerate opens
    p = tmp_path / "acc.yaml"
    p.write_text(ds_yaml("ds.json"))
    ds = tmp_path / "ds.json"
    ds.write_text(deep_json(3000))
    [f] = load_config_files(p).findings
    assert f.rule == "ds-config-file-invalid-json" and f.message == f"{ds}: nested more than 64 levels deep (line 1)."
    ds.write_bytes(b"\x89PNG\r\n")
    [f] = load_config_files(p).findings
    assert f.rule == "ds-config-file-unreadable" and f.message == f"{ds}: not UTF-8 text (byte 0 is 0x89)."
    ds.write_text("[1, 2]")
    [f] = load_config_files(p).findings
    assert f.rule == "ds-config-file-invalid-json" and "the top level is a list, not a mapping of keys" in f.message
    ds.write_text(json.dumps({"zero_optimization": {"stage": 3}}))
    lc = load_config_files(p)
    assert lc.findings == [] and lc.ds == {"zero_optimization": {"stage": 3}}


def test_json_text_longer_than_a_file_name_is_not_a_crash(tmp_path):
    p = tmp_path / "acc.yaml"
    p.write_text(ds_yaml(json.dumps({"zero_optimization": {"stage": 2}, "pad": "x" * 5000})))
    lc = load_config_files(p)
    assert lc.ds["zero_optimization"] == {"stage": 2}


def test_merge_keys_are_not_reported_as_duplicates(tmp_path):
    p = tmp_path / "acc.yaml"
    p.write_text("base: &b {num_processes: 2, machine_rank: 0}\ndistributed_type: FSDP\n"
                 "fsdp_config:\n  <<: *b\n  num_processes: 4\nnum_processes: 1\nnum_processes: 2\n")
    lc = load_config_files(p)
    assert [f.keys for f in lc.findings] == [("num_processes",)]


@pytest.mark.parametrize("text,message", [
    ("a: 1\nb: \x07x\n", "x.yaml: not text (line 2: character 0x07 is a control character, which YAML does not allow)"),
    ('a: "\\ud800"\n', ("x.yaml: the text of a holds half of a UTF-16 pair (an escape like \\ud800), "
                        "which is not a character")),
    ("&a [*a]\n", ("x.yaml: a YAML alias (*name) refers to the value that contains it (line 1), "
                   "so the value would never end")),
    ("a: &a {b: [1, *a]}\n", ("x.yaml: a YAML alias (*name) refers to the value that contains it (line 1), "
                              "so the value would never end")),
    ("a: &x 1\nb: &x 2\n", "x.yaml: not valid YAML (line 2, column 4): found duplicate anchor 'x'"),
])
def test_other_hostile_yaml_is_bad_input(text, message):
    with pytest.raises(InputError) as exc:
        parse_yaml(text, "x.yaml")
    assert exc.value.message == message


def test_lone_surrogate_in_json_is_bad_input_and_pairs_are_fine():
    assert parse_json('{"a": "\\ud83d\\ude00"}', "x.json") == {"a": "\U0001F600"}
    with pytest.raises(InputError, match="half of a UTF-16 pair"):
        parse_json('{"\\udc00": 1}', "x.json")
