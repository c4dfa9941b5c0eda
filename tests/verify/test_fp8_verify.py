"""--verify reads the fp8 recipe back (issue 24, point 4): for each backend, the configs written from answers go
through accelerate launch (which exports ACCELERATE_FP8_* from fp8_config) and the recipe kwargs accelerate builds
from that environment (TERecipeKwargs, MSAMPRecipeKwargs, AORecipeKwargs), and every option is compared with the
answers and with the effective model. No fp8 package is installed on the machines these tests run on: the package
checks are answered yes for the round trip only, and --verify says so in an INFO finding (never a silent skip)."""
from __future__ import annotations

import importlib.util

import pytest
import yaml

from wizard.core.answers import default_answers
from wizard.core.answers.generate import generate
from wizard.core.library.launcher import FP8_RECIPE_KEYS
from wizard.core.verify.answers import expected_effective, verify_generated
from wizard.core.verify.roundtrip import effective_config, flatten_effective

pytestmark = [pytest.mark.verify, pytest.mark.usefixtures("process_state_unchanged")]

FSDP2 = {"backend": "fsdp", "fsdp_version": 2, "loading.ram_efficient": False}
ZERO2 = {"backend": "deepspeed", "sharding.strategy": "grads_optimizer"}
CASES = {
    "te": (FSDP2, {"precision.fp8_format": "E4M3", "precision.fp8_margin": 3, "precision.fp8_interval": 4,
                   "precision.fp8_amax_history_len": 16, "precision.fp8_amax_compute_algo": "max",
                   "precision.fp8_override_dgrad": True, "precision.fp8_use_autocast_during_eval": True}),
    "ao": (FSDP2, {"precision.fp8_enable_fsdp_float8_all_gather": False, "precision.fp8_pad_inner_dim": False}),
    "msamp": (ZERO2, {"precision.fp8_opt_level": "O1"}),
}
PACKAGE = {"te": "transformer_engine", "ao": "torchao", "msamp": "msamp"}


def answers(backend: str, **extra):
    base, options = CASES[backend]
    return default_answers().replace({**base, "precision.mixed_precision": "fp8", "precision.fp8_backend": backend,
                                      **options, **extra})


def fp8_findings(findings):
    return [f for f in findings if f.rule == "verify-fp8-recipe-only"]


@pytest.mark.parametrize("backend", sorted(CASES))
def test_every_fp8_option_answered_is_read_back_from_the_recipe(backend):
    a = answers(backend)
    gen = generate(a, None)
    found = verify_generated(gen)
    assert not [f for f in found if f.severity != "info"], [f.render() for f in found]
    expected = {k: v for k, v in expected_effective(a).items() if k.startswith("fp8.")}
    assert expected.pop("fp8.backend") == backend.upper()  # and every field of its recipe, compared
    assert set(expected) == {f"fp8.{field}" for field in FP8_RECIPE_KEYS[backend.upper()]}
    if importlib.util.find_spec(PACKAGE[backend]) is None:  # said, not skipped in silence
        [note] = fp8_findings(found)
        assert note.severity == "info" and note.keys == ("fp8_config.backend",)
        assert "not installed here" in note.message and "RecipeKwargs" in note.message


def _replay(tmp_path, fp8_config: dict, **top) -> dict:
    config = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "FSDP", "num_processes": 2,
              "mixed_precision": "fp8", "fsdp_config": {"fsdp_version": 2, "fsdp_cpu_ram_efficient_loading": False},
              "fp8_config": fp8_config, **top}
    path = tmp_path / "accelerate_config.yaml"
    path.write_text(yaml.safe_dump(config))
    eff = effective_config(path)
    assert eff.ok, [f.render() for f in eff.findings]
    return flatten_effective(eff)


def test_the_recipe_read_back_is_the_launch_environment(tmp_path):
    flat = _replay(tmp_path, {"backend": "TE", "margin": 5, "override_linear_precision": [True, False, True]})
    assert flat["env.ACCELERATE_FP8_MARGIN"] == "5"
    assert (flat["fp8.backend"], flat["fp8.margin"], flat["fp8.override_linear_precision"]) == (
        "TE", 5, [True, False, True])


def test_a_name_the_recipe_does_not_read_fails_verify(monkeypatch):
    """accelerate config's own questionnaire writes amax_history_length; a renderer that wrote that name would
    export ACCELERATE_FP8_AMAX_HISTORY_LENGTH, which TERecipeKwargs never reads: --verify names the key."""
    import wizard.core.answers.render as render

    gen = generate(answers("te"), None)
    assert not [f for f in verify_generated(gen) if f.severity != "info"]
    real = render.fp8_config

    def questionnaire_names(a):
        return {("amax_history_length" if k == "amax_history_len" else k): v for k, v in real(a).items()}

    monkeypatch.setattr(render, "fp8_config", questionnaire_names)
    gen = generate(answers("te"), None)
    assert "amax_history_length" in gen.files["accelerate_config.yaml"]
    problems = [f for f in verify_generated(gen) if f.rule == "verify-mismatch"]
    assert [f.keys for f in problems] == [("fp8.amax_history_len",)]
    assert "expected 16, effective 1024" in problems[0].message


@pytest.mark.parametrize("backend", ["TE", "AO", "MSAMP"])
def test_the_model_agrees_with_the_recipe_and_a_wrong_default_is_caught(monkeypatch, backend):
    """The effective model's fp8 keys against the recipe accelerate built, key by key (the differential check), for
    a config that writes the backend alone: every value is the launcher's default; one planted wrong is caught."""
    from differential import Case, compare

    from wizard.core.library import launcher

    top = {"compute_environment": "LOCAL_MACHINE", "num_processes": 2, "mixed_precision": "fp8",
           "fp8_config": {"backend": backend}}
    config = {**top, "distributed_type": "DEEPSPEED", "deepspeed_config": {"zero_stage": 2}} if backend == "MSAMP" \
        else {**top, "distributed_type": "FSDP", "fsdp_config": {"fsdp_version": 2,
                                                                 "fsdp_cpu_ram_efficient_loading": False}}
    out = compare(Case(backend, config, None))
    assert out.agrees and not out.library_failed, out
    field = FP8_RECIPE_KEYS[backend][0]
    arg = field if field.startswith("fp8") else "fp8_" + field
    wrong = {"int": 7, "flag": False, "upper": "E5M2", "as_is": "O1"}[launcher.FP8_PARSE[field]]
    monkeypatch.setitem(launcher.FP8_LAUNCH_DEFAULTS, arg, wrong)
    out = compare(Case(backend, config, None))
    assert [d[0] for d in out.differences] == [f"fp8.{field}"]


@pytest.mark.skipif(any(importlib.util.find_spec(p) for p in PACKAGE.values()), reason="an fp8 package is here")
def test_no_backend_and_no_package_here_is_said(tmp_path):
    flat = _replay(tmp_path, {"margin": 2})
    assert flat["fp8.backend"] is None
    path = tmp_path / "accelerate_config.yaml"
    [note] = fp8_findings(effective_config(path).findings)
    assert "first one installed where the run starts" in note.message


def test_torchao_with_ram_efficient_loading_is_refused_as_the_accelerator_does(tmp_path):
    config = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "FSDP", "num_processes": 2,
              "mixed_precision": "fp8", "fsdp_config": {"fsdp_version": 2}, "fp8_config": {"backend": "AO"}}
    path = tmp_path / "accelerate_config.yaml"
    path.write_text(yaml.safe_dump(config))
    errors = [f for f in effective_config(path).findings if f.severity == "error"]
    assert [f.keys for f in errors] == [("fp8_config.backend", "fsdp_config.fsdp_cpu_ram_efficient_loading")]


def test_a_value_the_recipe_refuses_names_its_key(tmp_path):
    config = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "NO", "mixed_precision": "fp8",
              "fp8_config": {"backend": "TE", "margin": 1, "fp8_format": "E3M4"}}
    path = tmp_path / "accelerate_config.yaml"
    path.write_text(yaml.safe_dump(config))
    errors = [f for f in effective_config(path).findings if f.severity == "error"]
    assert [(f.rule, f.keys) for f in errors] == [("verify-plugin", ("fp8_config.fp8_format",))]
