"""Rules whose knowledge holds only for some accelerate releases (issue 9, item 4): each is checked with
``--accelerate-version`` inside and outside its range, through ``wizard.cli.main`` in-process (``--format json``).

The ranges come from scripts/replay_accelerate_versions.py (docs/versions-accelerate.md); the transformers table
(wizard/core/library/trainer_versions.py) is checked for shape and against the installed transformers' own code."""
from __future__ import annotations

import json

import pytest
import yaml

import wizard.core.lint  # noqa: F401  (registers the config rules in RULES)
from wizard.cli import main
from wizard.core.context import in_spec
from wizard.core.library import trainer_versions as tv
from wizard.core.rules import RULES

BASE = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "FSDP", "num_machines": 1, "machine_rank": 0,
        "num_processes": 2, "mixed_precision": "no", "use_cpu": False}
WRAP = {"fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP", "fsdp_transformer_layer_cls_to_wrap": "Block"}


def check(tmp_path, capsys, cfg: dict, accelerate: str) -> dict:
    path = tmp_path / "accelerate_config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    main(["check", str(path), "--accelerate-version", accelerate, "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["context"]["versions"]["accelerate"]["version"] == accelerate
    return doc


def rules_of(doc) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for f in doc["findings"]:
        out.setdefault(f["rule"], []).append(f)
    return out


def fsdp(fc: dict, **top) -> dict:
    return {**BASE, **top, "fsdp_config": {**WRAP, **fc}}


# (rule, config, a release where it holds, the nearest release where it does not, the keys the finding must name);
# for accelerate-key-too-new the rule's range is the outer bound and each key has its own first release (KEY_SINCE)
CASES = [
    ("fsdp-version-unread", fsdp({"fsdp_version": 2}), "1.5.2", "1.6.0", ["fsdp_config.fsdp_version"]),
    ("fsdp-version-unread-harmless", fsdp({"fsdp_version": 1}), "1.3.0", "1.15.0", ["fsdp_config.fsdp_version"]),
    ("fsdp-version-invalid", fsdp({"fsdp_version": 3}), "1.6.0", "1.5.2", ["fsdp_config.fsdp_version"]),
    ("fsdp-version-default", fsdp({}), "1.6.0", "1.5.2", ["fsdp_config.fsdp_version"]),
    ("fsdp2-state-dict-sharded-only", fsdp({"fsdp_version": 2, "fsdp_state_dict_type": "FULL_STATE_DICT"}),
     "1.6.0", "1.7.0", ["fsdp_config.fsdp_state_dict_type", "fsdp_config.fsdp_version"]),
    ("fsdp2-use-orig-params-false", fsdp({"fsdp_version": 2, "fsdp_use_orig_params": False}), "1.10.0", "1.5.2",
     ["fsdp_config.fsdp_use_orig_params", "fsdp_config.fsdp_version"]),
    ("fsdp2-backward-prefetch-lost", fsdp({"fsdp_version": 2, "fsdp_backward_prefetch": "BACKWARD_PRE"}), "1.6.0",
     "1.4.0", ["fsdp_config.fsdp_backward_prefetch", "fsdp_config.fsdp_version"]),
    ("fsdp2-local-state-dict", fsdp({"fsdp_version": 2, "fsdp_state_dict_type": "LOCAL_STATE_DICT"}), "1.7.0",
     "1.5.2", ["fsdp_config.fsdp_state_dict_type", "fsdp_config.fsdp_version"]),
    ("fsdp-activation-checkpointing-offload-requirements",
     fsdp({"fsdp_version": 1, "fsdp_activation_checkpointing_offload": True}), "1.15.0", "1.14.0",
     ["fsdp_config.fsdp_activation_checkpointing", "fsdp_config.fsdp_version"]),
    ("accelerate-key-too-new", fsdp({"fsdp_version": 2, "fsdp_ignored_modules": "lm_head"}), "1.9.0", "1.10.0",
     ["fsdp_config.fsdp_ignored_modules"]),
    ("accelerate-key-too-new", fsdp({"fsdp_version": 2, "fsdp_activation_checkpointing": True,
                                     "fsdp_activation_checkpointing_offload": True}), "1.14.0", "1.15.0",
     ["fsdp_config.fsdp_activation_checkpointing_offload"]),
    ("accelerate-key-too-new", fsdp({"fsdp_version": 2}, dynamo_config={
        "dynamo_backend": "INDUCTOR", "dynamo_use_regional_compilation": True}), "1.6.0", "1.7.0",
     ["dynamo_config.dynamo_use_regional_compilation"]),
    ("accelerate-key-too-new", fsdp({"fsdp_version": 2}, dynamo_config={"backend": "INDUCTOR"}), "1.13.0", "1.14.0",
     ["dynamo_config.backend"]),
    ("accelerate-key-too-new", fsdp({"fsdp_version": 2}, parallelism_config={
        "parallelism_config_dp_shard_size": 2, "parallelism_config_cp_backend": "torch"}), "1.11.0", "1.12.0",
     ["parallelism_config.parallelism_config_cp_backend"]),
    ("top-level-key-too-new", fsdp({"fsdp_version": 2}, parallelism_config={"parallelism_config_dp_shard_size": 2}),
     "1.9.0", "1.10.0", ["parallelism_config"]),
    ("parallelism-total-mismatch", fsdp({"fsdp_version": 2}, parallelism_config={
        "parallelism_config_dp_shard_size": 4}), "1.10.0", "1.9.0",
     ["parallelism_config.parallelism_config_dp_shard_size", "num_processes"]),
    ("parallelism-backend-invalid", fsdp({"fsdp_version": 2}, parallelism_config={
        "parallelism_config_dp_shard_size": 2, "parallelism_config_cp_backend": "ring"}), "1.12.0", "1.11.0",
     ["parallelism_config.parallelism_config_cp_backend"]),
]


@pytest.mark.parametrize("rule,cfg,inside,outside,keys", CASES,
                         ids=[f"{c[0]}-{c[2]}-vs-{c[3]}" for c in CASES])
def test_a_versioned_rule_fires_inside_its_range_only(tmp_path, capsys, rule, cfg, inside, outside, keys):
    spec = dict(RULES[rule].versions).get("accelerate", "")
    assert spec, f"{rule} carries no accelerate range"
    assert in_spec(inside, spec)
    if rule != "accelerate-key-too-new":
        assert not in_spec(outside, spec)
    found = rules_of(check(tmp_path, capsys, cfg, inside)).get(rule, [])
    assert found, f"{rule} missing on accelerate {inside}"
    named = {k for f in found for k in f["keys"]}
    assert set(keys) <= named, (keys, named)
    assert rule not in rules_of(check(tmp_path, capsys, cfg, outside)), f"{rule} reported on accelerate {outside}"


def test_fsdp2_keys_on_an_old_accelerate_are_judged_as_fsdp1(tmp_path, capsys):
    """accelerate < 1.6 runs FSDP1 whatever fsdp_version says: no FSDP2 rule may speak, the FSDP1 ones do."""
    cfg = fsdp({"fsdp_version": 2, "fsdp_reshard_after_forward": False, "fsdp_use_orig_params": False})
    old = rules_of(check(tmp_path, capsys, cfg, "1.5.2"))
    assert "fsdp-version-unread" in old
    assert not [r for r in old if r.startswith("fsdp2-")], sorted(old)
    assert "fsdp1-reshard-after-forward-lost" in old  # FULL_SHARD stays: reshard false is lost
    new = rules_of(check(tmp_path, capsys, cfg, "1.15.0"))
    assert "fsdp2-use-orig-params-false" in new and "fsdp-version-unread" not in new


def test_old_top_level_sections_are_known_to_their_releases(tmp_path, capsys):
    cfg = fsdp({"fsdp_version": 1}, ipex_config={"ipex": False})
    assert "unknown-top-level-key" in rules_of(check(tmp_path, capsys, cfg, "1.13.0"))
    assert "unknown-top-level-key" not in rules_of(check(tmp_path, capsys, cfg, "1.12.0"))
    cfg = fsdp({"fsdp_version": 1}, tp_config={"tp_size": 1})
    assert "unknown-top-level-key" not in rules_of(check(tmp_path, capsys, cfg, "1.5.0"))
    assert "unknown-top-level-key" in rules_of(check(tmp_path, capsys, cfg, "1.8.0"))


def test_a_key_the_release_already_reads_is_not_blamed(tmp_path, capsys):
    cfg = fsdp({"fsdp_version": 2, "fsdp_ignored_modules": "lm_head"},
               dynamo_config={"dynamo_backend": "INDUCTOR", "dynamo_use_regional_compilation": True})
    for release in ("1.10.0", "1.15.0"):
        doc = check(tmp_path, capsys, cfg, release)
        assert "accelerate-key-too-new" not in rules_of(doc), release


# ------------------------------------------------------------------ the transformers table
def test_trainer_table_is_pure_data_with_valid_ranges():
    assert tv.TRAINER_FILLS
    for key, (source, spec) in tv.TRAINER_FILLS.items():
        assert key and source and spec, key
        in_spec("4.40.0", spec)  # parses
    for name in ("TRAINER_MISMATCH_RAISES_SINCE", "TRAINER_TEXT_CONFIG_HIDDEN_SIZE_SINCE",
                 "TRAINER_PREFETCH_BUCKET_INT_SINCE", "TRAINER_WARMUP_AT_LEAST_ONE_SINCE",
                 "TRAINER_AMP_FILLED_BEFORE", "TRAINER_DEFAULT_DTYPE_FP32_SINCE"):
        assert isinstance(getattr(tv, name), str), name
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(tv))
    assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                and not (isinstance(n, ast.ImportFrom) and n.module == "__future__")]


@pytest.fixture
def fresh_accelerate_state():
    """TrainingArguments sets accelerate's process state: leave none behind for the tests that follow."""
    yield
    from accelerate.state import AcceleratorState, PartialState

    AcceleratorState._reset_state(True)
    PartialState._reset_state()


def test_trainer_table_matches_the_installed_transformers(tmp_path, fresh_accelerate_state):
    """What the table says holds for the installed transformers is what its HfTrainerDeepSpeedConfig does."""
    import types
    from importlib.metadata import version

    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    installed = version("transformers")
    cfg: dict = {}
    for key in tv.TRAINER_FILLS:
        node = cfg
        *parents, leaf = key.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = "auto"
    cfg.setdefault("zero_optimization", {})["stage"] = 3
    args = TrainingArguments(output_dir=str(tmp_path / "out"), report_to=[], warmup_steps=0)
    hf = HfTrainerDeepSpeedConfig(cfg)
    hf.trainer_config_process(args)
    model = types.SimpleNamespace(config=types.SimpleNamespace(text_config=types.SimpleNamespace(hidden_size=64)))
    hf.trainer_config_finalize(args, model, 100)
    for key, (_source, spec) in tv.TRAINER_FILLS.items():
        filled = hf.get_value(key) != "auto"
        assert filled == in_spec(installed, spec), (key, spec, hf.get_value(key))
    assert hf.get_value("scheduler.params.warmup_num_steps") == (
        1 if in_spec(installed, ">=" + tv.TRAINER_WARMUP_AT_LEAST_ONE_SINCE) else 0)
    assert isinstance(hf.get_value("zero_optimization.stage3_prefetch_bucket_size"), int)
