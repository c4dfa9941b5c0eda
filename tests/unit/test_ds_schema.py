"""The shipped DeepSpeed schema of the installed release (wizard/data/ds_schema/<version>.json) matches the
installed DeepSpeed, and the validation helpers follow pydantic's lax rules."""
from __future__ import annotations

import importlib.util
import json

import pytest
from helpers import ROOT

from wizard.core import ds_schema as S

GEN = ROOT / "scripts" / "gen_ds_schema.py"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_ds_schema", GEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_shipped_schema_matches_installed_deepspeed():
    pytest.importorskip("deepspeed")
    gen = _generator()
    fresh = gen.build_schema()
    path = gen.out_path(fresh)
    assert path.exists(), f"no schema ships for the installed deepspeed {fresh['deepspeed_version']}"
    assert path == S.data_file(fresh["deepspeed_version"])
    shipped = json.loads(path.read_text(encoding="utf-8"))
    assert fresh == shipped, "run: python scripts/gen_ds_schema.py"
    assert gen.render(fresh) == path.read_text(encoding="utf-8"), "file not in canonical form"


def test_schema_covers_what_the_linter_needs():
    doc = S.load()
    assert doc["deepspeed_version"].startswith("0.19")
    assert {"zero_optimization", "fp16", "bf16", "tensorboard", "timers.throughput"} <= set(doc["sections"])
    assert {"train_batch_size", "zero_optimization", "gradient_clipping", "steps_per_print"} <= S.top_level_keys()
    assert "bfloat16" not in S.top_level_keys()  # accelerate always adds "bf16", so DeepSpeed never reads it
    assert {"amp", "nebula", "elasticity"} <= S.removed_top_level() and "mics_shard_size" in S.removed_zero_keys()
    assert "intra_op_parallelism" in S.dict_section_keys("aio")
    assert {"optimizer", "scheduler"} <= S.opaque_sections()
    keys = S.model_keys("zero_optimization")
    assert keys["stage3_prefetch_bucket_size"] == keys["prefetch_bucket_size"] == "prefetch_bucket_size"
    assert "adamw" in S.enum("deepspeed_optimizers") and "WarmupLR" in S.enum("deepspeed_schedulers")
    assert "description" not in json.dumps(doc)  # no library prose is shipped


def test_unknown_key_with_suggestion():
    issues = S.validate_section("zero_optimization", {"stage": 3, "offload_params": {"device": "cpu"}})
    assert [(i.path, i.kind, i.suggestion) for i in issues] == [
        ("zero_optimization.offload_params", S.UNKNOWN_KEY, "offload_param")]


def test_nested_models_enums_and_ranges():
    issues = S.validate_section("zero_optimization", {
        "stage": 3, "offload_param": {"device": "CPU"}, "offload_optimizer": {"device": "cpu", "ratio": 1.5},
        "stage3_max_live_parameters": 1.5, "sub_group_size": 1e9, "reduce_bucket_size": "auto"})
    got = {(i.path, i.kind) for i in issues}
    assert got == {("zero_optimization.offload_param.device", S.BAD_VALUE),
                   ("zero_optimization.offload_optimizer.ratio", S.BAD_VALUE),
                   ("zero_optimization.stage3_max_live_parameters", S.BAD_VALUE)}


def test_lax_coercions_are_reported_as_coerced():
    issues = S.validate_section("zero_optimization", {"stage": "3", "overlap_comm": "true", "sub_group_size": "1000"})
    assert {i.kind for i in issues} == {S.COERCED} and len(issues) == 3
    assert S.validate_section("zero_optimization", {"stage": 5})[0].kind == S.BAD_VALUE
    assert S.validate_section("zero_optimization", {"reduce_bucket_size": "1e8"})[0].kind == S.BAD_VALUE


def test_alias_and_name_together_and_deprecated():
    issues = S.validate_section("zero_optimization", {"stage3_prefetch_bucket_size": 1, "prefetch_bucket_size": 2,
                                                      "cpu_offload": True})
    kinds = {i.path: i.kind for i in issues}
    assert kinds == {"zero_optimization.prefetch_bucket_size": S.ALIAS_AND_NAME,
                     "zero_optimization.cpu_offload": S.DEPRECATED}


def test_not_a_mapping_and_null():
    assert S.validate_section("fp16", True)[0].kind == S.NOT_MAPPING
    assert S.validate_section("zero_optimization", {"overlap_comm": None}) == []  # Optional[bool]
    assert S.validate_section("zero_optimization", {"contiguous_gradients": None})[0].kind == S.BAD_VALUE


def test_did_you_mean():
    assert S.did_you_mean("zero_optimisation", S.top_level_keys()) == "zero_optimization"
    assert S.did_you_mean("BF16", ["bf16", "fp16"]) == "bf16"
    assert S.did_you_mean("qqqqqq", ["bf16"]) is None


def test_load_is_lazy_and_cached():
    S.load_version.cache_clear()
    assert S.load_version.cache_info().currsize == 0
    first = S.load()
    assert S.load() is first and S.load_version.cache_info().hits >= 1
    assert S.load_version.cache_info().currsize == 1  # only the release in force was read


@pytest.mark.verify
def test_validation_agrees_with_deepspeed_on_samples():
    pytest.importorskip("deepspeed")
    import pydantic
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    samples = [{"stage": 3, "offload_param": {"device": "CPU"}}, {"stage": "3"}, {"stage3_max_live_parameters": 1.5},
               {"overlap_comm": "yes"}, {"offload_optimizer": {"device": "cpu", "ratio": 1.5}},
               {"stage3_prefetch_bucket_size": 1, "prefetch_bucket_size": 2}, {"offload_paramz": {}}]
    for sample in samples:
        ours = any(i.kind in (S.BAD_VALUE, S.UNKNOWN_KEY, S.ALIAS_AND_NAME)
                   for i in S.validate_section("zero_optimization", sample))
        try:
            DeepSpeedZeroConfig(**sample)
            theirs = False
        except pydantic.ValidationError:
            theirs = True
        assert ours == theirs, sample
