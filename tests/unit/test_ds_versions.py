"""DeepSpeed's knowledge per release: one shipped schema per release (wizard/data/ds_schema/), ``using(version)``
selects the one the checks read, findings about a key a release rejects say since when, and the ranges of the
checks that live in DeepSpeed's code (wizard/data/ds_versions.json).

Every acceptance below was confirmed against the real DeepSpeed of that release (scripts/check_ds_versions.py with
throw-away installs; the suite cannot have those installs, so it checks the shipped data instead)."""
from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest
from helpers import ROOT

from wizard.core import ds_schema as S
from wizard.core.context import make_context
from wizard.core.lint.base import RULES
from wizard.core.lint.linter import lint

YAML = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "DEEPSPEED", "mixed_precision": "bf16",
        "num_machines": 1, "num_processes": 2, "machine_rank": 0, "main_training_function": "main",
        "deepspeed_config": {"deepspeed_config_file": "ds.json", "zero3_init_flag": False}}
BASE_JSON = {"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1, "bf16": {"enabled": "auto"},
             "zero_optimization": {"stage": 2}}
ERRORS_REFUSED = {"ds-json-removed-feature", "ds-json-unknown-key", "ds-json-invalid-value"}


def _findings(ds_json: dict, version: str | None):
    ds = json.loads(json.dumps(BASE_JSON))
    for k, v in ds_json.items():
        if isinstance(v, dict) and isinstance(ds.get(k), dict):
            ds[k] = dict(ds[k], **v)
        else:
            ds[k] = v
    # the version reaches the JSON checks the way `check --deepspeed-version` passes it: in the lint context
    return lint(YAML, ds, gpus_per_node=2, context=make_context("accelerate", flags={"deepspeed": version}))


def _about(found, key: str):
    return [f for f in found if f.severity == "error" and any(k == key or k.startswith(key + ".") for k in f.keys)]


# (key, JSON holding it, last release that accepts it, the words the 0.19.8 error must carry)
WHY = [
    ("curriculum_learning", {"curriculum_learning": {"enabled": False}}, "0.19.7", "removed in DeepSpeed 0.19.8"),
    ("zero_optimization.mics_shard_size", {"zero_optimization": {"stage": 3, "mics_shard_size": -1}}, "0.19.6",
     "removed in DeepSpeed 0.19.7"),
    ("compile.disable", {"compile": {"disable": False}}, "0.16.5", "0.16.6 and newer reject it"),
    ("fp16.opt_level", {"bf16": {"enabled": False}, "fp16": {"enabled": True, "opt_level": "O2"}}, "0.17.0",
     "0.17.1 and newer reject it"),
    ("bf16.loss_scale", {"bf16": {"enabled": True, "loss_scale": 0}}, "0.17.0", "0.17.1 and newer reject it"),
    ("bf16.auto_cast", {"bf16": {"enabled": True, "auto_cast": False}}, "0.17.0", "0.17.1 and newer reject it"),
    ("fp16.min_loss_scale", {"bf16": {"enabled": False}, "fp16": {"enabled": True, "min_loss_scale": 0.5}},
     "0.17.0", None),
    ("zero_optimization.reduce_bucket_size", {"zero_optimization": {"reduce_bucket_size": 0}}, "0.19.5", None),
]
# Keys no supported release (0.14.5 .. 0.19.8) accepts: rejected since DeepSpeed 0.7.0 (pydantic ZeRO config,
# git 599758968), where cpu_offload_params / find_unused_parameters / a negative max reuse distance last worked.
NEVER = [
    ("zero_optimization.cpu_offload_params", {"zero_optimization": {"stage": 3, "cpu_offload_params": True}}),
    ("zero_optimization.find_unused_parameters", {"zero_optimization": {"find_unused_parameters": True}}),
    ("zero_optimization.stage3_max_reuse_distance", {"zero_optimization": {"stage": 3,
                                                                           "stage3_max_reuse_distance": -1}}),
]


@pytest.mark.parametrize("key,ds_json,accepted_by,words", WHY, ids=[w[0] for w in WHY])
def test_key_refused_by_0_19_8_and_not_by_the_release_that_accepts_it(key, ds_json, accepted_by, words):
    old = _about(_findings(ds_json, accepted_by), key)
    assert not [f for f in old if f.rule in ERRORS_REFUSED], [f.message for f in old]
    new = [f for f in _about(_findings(ds_json, "0.19.8"), key) if f.rule in ERRORS_REFUSED]
    assert new and all(key in f.keys for f in new), [(f.rule, f.keys) for f in new]
    if words is not None:
        assert all(words in f.message and "your target is DeepSpeed 0.19.8" in f.message for f in new), \
            [f.message for f in new]


def test_what_the_older_releases_do_instead():
    # before 0.17.1 the fp16/bf16 blocks were read key by key: an unknown key is ignored (an error of its own kind:
    # the value does not take effect), not refused
    found = _about(_findings({"bf16": {"enabled": True, "loss_scale": 0}}, "0.17.0"), "bf16.loss_scale")
    assert [f.rule for f in found] == ["ds-json-ignored-subkey"]
    # before 0.16.6 DeepSpeed did not read a compile block at all
    found = _findings({"compile": {"disable": False}}, "0.16.5")
    assert [f.rule for f in _about(found, "compile")] == ["ds-json-unknown-top-level-key"]


@pytest.mark.parametrize("key,ds_json", NEVER, ids=[n[0] for n in NEVER])
def test_keys_no_supported_release_accepts(key, ds_json):
    for version in ("0.14.5", "0.17.0", "0.19.8"):
        found = [f for f in _about(_findings(ds_json, version), key) if f.rule in ERRORS_REFUSED]
        assert found, version
        assert all("your target" not in f.message for f in found)  # the shipped schemas show no change
    assert S.removed_in(key) is None and S.added_in(key) is None


def test_a_key_added_later_names_the_release_that_brought_it():
    found = _about(_findings({"zero_optimization": {"compute_grad_norm": True}}, "0.19.5"),
                   "zero_optimization.compute_grad_norm")
    assert [f.rule for f in found] == ["ds-json-unknown-key"]
    assert "DeepSpeed accepts it from 0.19.7 on; your target is DeepSpeed 0.19.5" in found[0].message
    with S.using("0.17.6"):
        note = S.version_note("bf16.bf16_master_weights_and_grads")
    assert note == "DeepSpeed accepts it from 0.18.3 on; your target is DeepSpeed 0.17.6"


def test_target_between_shipped_releases_is_named_with_the_schema_used():
    found = _about(_findings({"zero_optimization": {"compute_grad_norm": True}}, "0.16.7"),
                   "zero_optimization.compute_grad_norm")
    assert "your target is DeepSpeed 0.16.7, checked with the 0.16.6 schema" in found[0].message


# --------------------------------------------------------------------------------------------- selection
@pytest.mark.parametrize("target,chosen", [
    ("0.19.8", "0.19.8"), ("0.19.4", "0.19.3"), ("0.16.7", "0.16.6"), ("0.16.3", "0.16.0"),  # same minor
    ("0.14.9", "0.14.5"), ("0.19", "0.19.8"),  # same minor; a bare minor means its newest patch
    ("0.13.2", "0.14.5"),  # older than every shipped release: the oldest
    ("0.20.1", "0.19.8"), ("1.0.0", "0.19.8"),  # newer than every shipped one: the newest
    ("0.15.0+cu121", "0.15.0"), ("v0.18.5", "0.18.3"),
])
def test_using_selects_the_shipped_schema(target, chosen):
    with S.using(target) as got:
        assert got == chosen == S.schema_version() == S.load()["deepspeed_version"]
        assert S.target_version() == target


def test_using_none_and_nesting():
    default = S.select(None)
    installed = S.installed_version()
    assert default == (installed if installed in S.shipped_versions() else S.DEFAULT_VERSION)
    with S.using("0.15.4"):
        assert S.schema_version() == "0.15.4" and "compile" not in S.top_level_keys()
        with S.using(None):
            assert S.schema_version() == default
        with S.using("0.19.8"):
            assert "compile" in S.top_level_keys()
        assert S.schema_version() == "0.15.4"
    assert S.schema_version() == default
    with S.using("not a version"):
        assert S.schema_version() == default


def test_using_is_per_thread():
    seen = {}

    def other():
        seen["other"] = S.schema_version()

    with S.using("0.15.4"):
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert S.schema_version() == "0.15.4"
    assert seen["other"] == S.select(None)


def test_functions_read_the_selected_schema():
    with S.using("0.17.0"):
        assert "fp16" not in S.section_names() and "opt_level" not in S.dict_section_keys("fp16")
        assert S.removed_top_level() == frozenset() and S.enum("gradient_allreduce_op") == []
        assert S.validate_section("zero_optimization", {"reduce_bucket_size": 0}) == []
    assert "fp16" in S.section_names()
    assert S.validate_section("zero_optimization", {"reduce_bucket_size": 0})[0].kind == S.BAD_VALUE


def test_pydantic_v1_release_truncates_floats_for_integers():
    with S.using("0.14.5"):
        issues = S.validate_section("zero_optimization", {"stage3_max_live_parameters": 1.5})
    assert [i.kind for i in issues] == [S.COERCED]  # DeepSpeed 0.14.5 reads 1 (checked with the real release)
    assert S.validate_section("zero_optimization", {"stage3_max_live_parameters": 1.5})[0].kind == S.BAD_VALUE


# --------------------------------------------------------------------------------------------- history
def test_history_removed_in_added_in():
    hist = dict(S.history("zero_optimization.mics_shard_size"))
    assert hist["0.19.6"] == S.READ and hist["0.19.7"] == hist["0.19.8"] == S.REJECTED
    assert S.removed_in("zero_optimization.mics_shard_size") == "0.19.7"
    with S.using("0.19.6"):
        assert S.removed_in("zero_optimization.mics_shard_size") is None
    hist = dict(S.history("fp16.opt_level"))
    assert hist["0.17.0"] == S.IGNORED and hist["0.17.1"] == S.REJECTED
    assert S.added_in("zero_optimization.compute_grad_norm") == "0.19.7"  # accepted now, since 0.19.7
    assert S.added_in("zero_optimization.stage") is None  # accepted by every shipped release
    assert S.status("zero_optimization.offload_param.device") == S.READ
    assert S.status("zero_optimization.offload_param.devices") == S.REJECTED
    assert S.status("timers.throughput.enabled") == S.READ and S.status("aio.thread_count") == S.IGNORED


def test_consecutive_releases():
    assert S.consecutive("0.17.0", "0.17.1") and S.consecutive("0.16.9", "0.17.0")
    assert not S.consecutive("0.16.8", "0.17.0") and not S.consecutive("0.18.0", "0.18.3")


# --------------------------------------------------------------------------------------------- the data files
def test_every_shipped_schema_parses_and_names_its_release():
    versions = S.shipped_versions()
    assert versions[0] == "0.14.5" and versions[-1] == "0.19.8" and len(versions) >= 12
    latest = {}
    for v in versions:
        path = S.DATA_DIR / f"{v}.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert doc["deepspeed_version"] == v == path.stem
        assert doc["pydantic_major"] == (1 if v.startswith("0.14.") else 2)
        assert {"train_batch_size", "zero_optimization"} <= set(doc["top_level_keys"])
        assert "zero_optimization" in doc["sections"] and "description" not in path.read_text(encoding="utf-8")
        major_minor = tuple(int(x) for x in v.split(".")[:2])
        latest[major_minor] = max(latest.get(major_minor, 0), int(v.split(".")[2]))
    assert latest == S.RELEASES, "the newest patch of every supported minor ships"


def test_check_version_ranges():
    ranges = S.check_versions()
    non_rules = {"ds-gradient-clipping-default-1.0", "ds-scheduler-warmup-num-steps-positive",
                 "ds-fp16-bf16-blocks-strict", "ds-compile-block-strict"}
    for cid, spec in ranges.items():
        rule_id = cid.split("/", 1)[0]
        assert rule_id in RULES or cid in non_rules, cid
        S.in_range("0.19.8", spec)  # parses
    assert S.check_applies("ds-scheduler-warmup-num-steps-positive", "0.19.3")
    assert not S.check_applies("ds-scheduler-warmup-num-steps-positive", "0.19.2")
    assert not S.check_applies("deepspeed-gradient-clipping-zero-ignored", "0.18.9")
    assert S.check_applies("ds-json-compute-grad-norm-invalid", "0.19.7")
    assert S.check_applies("no-such-check", "0.14.5")
    assert S.in_range("0.16.2", ">=0.14,<0.17.1") and not S.in_range("0.17.1", ">=0.14,<0.17.1")
    with pytest.raises(ValueError):
        S.in_range("0.19.8", "~=0.19")


def test_generator_check_passes_for_the_installed_release():
    pytest.importorskip("deepspeed")
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_ds_schema.py"), "--check"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0 and "up to date" in proc.stdout, proc.stdout + proc.stderr[-2000:]


# --------------------------------------------------------------------------------------------- through check
def test_check_reads_the_schema_of_the_deepspeed_version_it_judges_for(tmp_path, capsys):
    from wizard.cli import main

    p = tmp_path / "ds_config.json"
    p.write_text(json.dumps({"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1,
                             "zero_optimization": {"stage": 3, "mics_shard_size": -1}}), encoding="utf-8")

    def removed(*flags):
        main(["check", str(p), "--trainer", "accelerate", "--num-processes", "2", *flags, "--format", "json"])
        doc = json.loads(capsys.readouterr().out)
        return [f for f in doc["findings"] if f["rule"] == "ds-json-removed-feature"]

    assert removed("--deepspeed-version", "0.19.6") == []
    found = removed("--deepspeed-version", "0.19.8")
    assert [f["keys"] for f in found] == [["zero_optimization.mics_shard_size"]]
    assert "removed in DeepSpeed 0.19.7; your target is DeepSpeed 0.19.8" in found[0]["message"]
    assert S.schema_version() == S.select(None)  # the choice does not outlive the check
