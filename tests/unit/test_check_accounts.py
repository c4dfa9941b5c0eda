"""What `check` tells about one config must be one true account: the keys a fix asks to delete are the ones to
delete, a file's kind follows what the file is, a value accelerate launch cannot use is an error that names it,
and two findings never say opposite things about the same value (issue 21, items 11, 14, 15, 25)."""
from __future__ import annotations

from test_config_rules import dsj, filemode, run


def test_file_with_inline_keys_names_only_the_keys_to_delete():
    f = next(f for f in run(filemode({"zero_stage": 3}, mixed_precision="no"), dsj())
             if f.rule == "deepspeed-file-with-inline-keys")
    # the file is part of the fault, so it is among the keys; the message lists what to delete, not the file
    assert "deepspeed_config.deepspeed_config_file" in f.keys
    listed = f.message.split("also sets ", 1)[1].split(" (even", 1)[0]
    assert listed == "`deepspeed_config.zero_stage`, `mixed_precision`"
    assert "Delete these keys" in f.fix


def test_unicode_class_names_are_quoted_as_text_not_as_escapes():
    """Issue 21, item 26: a value quoted in a message came out as JSON escapes, surrogate pairs for an emoji."""
    from test_config_rules import fsdp

    from wizard.core.convert.common import show_value
    from wizard.core.lint.base import fmt

    assert fmt("🦙Block,Ünïcode") == '"🦙Block,Ünïcode"'
    assert fmt(["🦙Block"]) == '["🦙Block"]'
    assert show_value(["🦙Block", "Ünïcode Layer"]) == '["🦙Block", "Ünïcode Layer"]'
    f = next(f for f in run(fsdp(fc={"fsdp_transformer_layer_cls_to_wrap": "🦙Block, Ünïcode"}))
             if f.rule == "fsdp-wrap-classes-invalid")
    assert '"🦙Block, Ünïcode"' in f.message and "\\u" not in f.message


MULTI_GPU = "compute_environment: LOCAL_MACHINE\ndistributed_type: {dist}\nmixed_precision: bf16\nnum_machines: 1\n" \
            "num_processes: 2\n"


def _check_text(text: str):
    import yaml

    return run(yaml.safe_load(text))


def test_an_unquoted_no_as_dynamo_backend_is_an_error_that_names_the_key_and_says_quote_it():
    """Issue 21, item 15: `dynamo_backend: no` is a YAML boolean; accelerate launch crashes on it
    (tests/claims/test_rules_general.py::test_a_yaml_bool_dynamo_backend_crashes_the_launcher), check only warned
    about the old spelling."""
    for dist in ("MULTI_GPU", "FSDP", "NO"):
        for extra, key in (("dynamo_backend: no\n", "dynamo_backend"),
                           ("dynamo_config:\n  dynamo_backend: off\n", "dynamo_config.dynamo_backend")):
            found = [f for f in _check_text(MULTI_GPU.format(dist=dist) + extra) if f.rule == "dynamo-backend-invalid"]
            assert [(f.severity, f.keys) for f in found] == [("error", (key,))], (dist, extra)
            assert "'bool' object has no attribute 'upper'" in found[0].message
            assert found[0].fix.startswith("Quote it: `dynamo_backend: 'no'`")


def test_a_top_level_dynamo_backend_is_checked_as_the_section_it_becomes():
    found = [f for f in _check_text(MULTI_GPU.format(dist="FSDP") + "dynamo_backend: turbo\n")
             if f.rule == "dynamo-backend-invalid"]
    assert [f.keys for f in found] == [("dynamo_backend",)] and "Unknown dynamo backend" in found[0].message
    # an unquoted NO is a YAML boolean too
    upper = _check_text(MULTI_GPU.format(dist="FSDP") + "dynamo_backend: NO\n")
    assert "dynamo-backend-invalid" in {f.rule for f in upper}
    for fine in ("dynamo_backend: 'no'\n", "dynamo_backend: 'NO'\n", "dynamo_backend: inductor\n",
                 "dynamo_backend: null\n", "dynamo_config:\n  dynamo_backend: null\n"):
        assert not [f for f in _check_text(MULTI_GPU.format(dist="FSDP") + fine) if f.severity == "error"], fine


def test_num_machines_null_is_an_error_that_names_the_key():
    for dist in ("MULTI_GPU", "FSDP", "DEEPSPEED", "NO"):
        text = MULTI_GPU.format(dist=dist).replace("num_machines: 1", "num_machines: null")
        if dist == "NO":
            text = text.replace("num_processes: 2", "num_processes: 1")
        found = [f for f in _check_text(text) if f.severity == "error"]
        assert [f.keys for f in found] == [("num_machines",)], dist
        assert "TypeError" in found[0].message and "num_machines: 1" in found[0].fix


AXOLOTL_LIKE = {"zero_optimization": {"stage": 2, "overlap_comm": True}, "bf16": {"enabled": "auto"},
                "gradient_accumulation_steps": "auto", "gradient_clipping": "auto", "train_batch_size": "auto",
                "train_micro_batch_size_per_gpu": "auto", "num_machines": 1, "num_processes": 8}


def test_a_deepspeed_json_that_carries_num_processes_is_checked_as_a_deepspeed_json(tmp_path, capsys):
    """Issue 21, item 14: a DeepSpeed JSON with accelerate's num_machines/num_processes (one axolotl release ships
    them) was taken for an accelerate config: 7 false errors under --trainer hf, though the Trainer runs it."""
    import json

    from wizard.cli import main
    from wizard.core.lint import load_config_files

    path = tmp_path / "zero2.json"
    path.write_text(json.dumps(AXOLOTL_LIKE))
    assert load_config_files(path).bare_ds
    assert main(["check", str(path), "--trainer", "hf", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["context"]["input"] == "deepspeed_json"
    assert sorted((f["severity"], f["rule"], f["keys"][0]) for f in report["findings"]) == [
        ("warning", "ds-json-accelerate-key-unused", "num_machines"),
        ("warning", "ds-json-accelerate-key-unused", "num_processes")]
    assert "nothing reads it" in report["findings"][0]["message"]
    # a file with a distributed_type is an accelerate config, whatever else it holds
    path.write_text(json.dumps({**AXOLOTL_LIKE, "distributed_type": "DEEPSPEED"}))
    assert not load_config_files(path).bare_ds


def _fsdp2(**fc):
    from test_config_rules import fsdp

    return fsdp(fc=fc)


def test_an_unparseable_reshard_value_is_one_account_the_run_stops_as_the_effective_model_says():
    """Issue 21, item 25: one check said sharding follows fsdp_reshard_after_forward (false) and, in the next
    finding, that the same value makes the plugin raise. The effective model fails on the value: check says that
    and nothing about what sharding it would follow."""
    from wizard.core.effective import effective

    for strategy in ("FULL_SHARD", "SHARD_GRAD_OP", None):
        for raw in ("FULL_SHARD", "maybe"):
            y = _fsdp2(fsdp_reshard_after_forward=raw,
                       **({"fsdp_sharding_strategy": strategy} if strategy else {}))
            model = effective(y, None)
            assert any("fsdp_config.fsdp_reshard_after_forward" in f.keys for f in model.failures), (strategy, raw)
            assert "fsdp.reshard_after_forward" not in model.values
            found = run(y)
            assert not [f for f in found if "follows" in f.message], (strategy, raw)
            sharding = [f for f in found if "fsdp_config.fsdp_reshard_after_forward" in f.keys]
            assert [f.rule for f in sharding] == ["fsdp2-reshard-after-forward-invalid"], (strategy, raw)
            bad = sharding[0]
            assert bad.severity == "error" and "invalid truth value" in bad.message
            if strategy:
                assert "fsdp_config.fsdp_sharding_strategy" in bad.keys and "never reads it" in bad.message
                asked = "true" if (raw if raw == "FULL_SHARD" else strategy) == "FULL_SHARD" else "false"
                assert bad.fix.startswith(f"Write `fsdp_reshard_after_forward: {asked}`")


def test_a_readable_reshard_value_is_the_one_sharding_follows_in_check_and_in_the_effective_model():
    from wizard.core.effective import effective

    y = _fsdp2(fsdp_reshard_after_forward=False, fsdp_sharding_strategy="FULL_SHARD")
    assert effective(y, None)["fsdp.reshard_after_forward"] is False
    lost = [f for f in run(y) if f.rule == "fsdp2-sharding-strategy-lost"]
    assert len(lost) == 1 and "follows `fsdp_reshard_after_forward` (false)" in lost[0].message
