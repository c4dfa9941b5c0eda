"""fp8 in the effective model (wizard/core/effective/fp8.py): which recipe accelerate builds (the written backend, or
the first installed), which written options it reads, which it ignores and why; and the config rules of `check`
read those facts from the model instead of working them out again."""
from __future__ import annotations

import pytest

from wizard.core.effective import DEFAULT, IGNORED, OVERRIDDEN, WRITTEN, Situation, effective
from wizard.core.lint import lint


def fsdp2(fp8_config=None, mp="fp8", **top):
    y = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "FSDP", "num_processes": 2,
         "mixed_precision": mp, "fsdp_config": {"fsdp_version": 2, "fsdp_cpu_ram_efficient_loading": False}, **top}
    if fp8_config is not None:
        y["fp8_config"] = fp8_config
    return y


def fp8_keys(e):
    return {k: u for k, u in e.values.items() if k.startswith("fp8.")}


def test_the_written_backend_reads_its_own_options_and_ignores_the_others():
    e = effective(fsdp2({"backend": "TE", "margin": 2, "fp8_format": "e4m3", "opt_level": "O1",
                         "override_linear_precision": [True, False, False]}))
    assert e.ok
    assert e.used("fp8.backend").value == "TE" and e.used("fp8.backend").why == WRITTEN
    assert (e["fp8.margin"], e.used("fp8.margin").why, e.used("fp8.margin").by) == (2, WRITTEN, "TERecipeKwargs")
    assert e["fp8.fp8_format"] == "E4M3"  # the recipe upper-cases it
    assert e["fp8.override_linear_precision"] == [True, False, False]
    assert (e["fp8.amax_history_len"], e.used("fp8.amax_history_len").why) == (1024, DEFAULT)
    opt = e.used("fp8.opt_level")
    assert (opt.value, opt.why, opt.keys) == (None, IGNORED, ("fp8_config.opt_level",))
    assert "MSAMP" in opt.note
    assert "fp8.pad_inner_dim" not in e  # not written, not read: nothing to say


def test_the_questionnaires_names_are_exported_and_read_by_no_recipe():
    e = effective(fsdp2({"backend": "TE", "amax_history_length": 16, "amax_compute_algorithm": "max"}))
    wrong = e.used("fp8.amax_history_length")
    assert (wrong.value, wrong.why, wrong.by) == (None, IGNORED, "accelerate launch")
    assert "amax_history_len" in wrong.note and "ACCELERATE_FP8_AMAX_HISTORY_LENGTH" in wrong.note
    assert e["fp8.amax_history_len"] == 1024 and e["fp8.amax_compute_algo"] == "most_recent"


def test_without_a_backend_the_installed_packages_decide():
    config = fsdp2({"margin": 3})
    unknown = effective(config)
    assert unknown["fp8.backend"] is None and unknown.used("fp8.margin").why == OVERRIDDEN
    te = effective(config, situation=Situation(fp8_installed=("MSAMP", "TE")))
    assert te["fp8.backend"] == "TE" and te["fp8.margin"] == 3  # torchao first, then TE, then MS-AMP
    ao = effective(config, situation=Situation(fp8_installed=("TE", "AO")))
    assert ao["fp8.backend"] == "AO" and ao.used("fp8.margin").why == IGNORED
    assert ao["fp8.pad_inner_dim"] is True
    nothing = effective(config, situation=Situation(fp8_installed=()))
    assert not nothing.ok


def test_without_fp8_every_written_key_is_ignored():
    e = effective(fsdp2({"backend": "TE", "margin": 2}, mp="bf16"))
    assert {k: u.why for k, u in fp8_keys(e).items()} == {"fp8.backend": IGNORED, "fp8.margin": IGNORED}


@pytest.mark.parametrize("fp8_config,key", [
    ({"backend": "te"}, "fp8_config.backend"),  # FP8BackendType is upper case only
    ({"backend": "TE", "margin": "two"}, "fp8_config.margin"),
    ({"backend": "TE", "fp8_format": "E3M4"}, "fp8_config.fp8_format"),
    ({"backend": "TE", "override_linear_precision": "(false, false, false)"},
     "fp8_config.override_linear_precision"),  # indexed by character: '(' is no truth word
    ({"backend": "AO", "override_linear_precision": [True]}, "fp8_config.override_linear_precision"),
    ({"backend": "MSAMP", "opt_level": "O3"}, "fp8_config.opt_level"),
])
def test_a_value_the_recipe_cannot_read_stops_the_run(fp8_config, key):
    e = effective(fsdp2(fp8_config))
    assert [f.keys for f in e.failures] == [(key,)]


NAMES = ["margin", "fp8_margin", "format", "fp8_format", "amax_history_length", "fp8_amax_compute_algorithm",
         "optimization_level", "opt_level", "pad_inner_dim", "enable_fsdp_float8_all_gather", "use_te", "backend"]


@pytest.mark.parametrize("name", NAMES)
def test_unknown_fp8_key_says_what_the_model_says(name):
    """One fact, one place: `check` reports an fp8_config key as read by no recipe exactly where the model says the
    launcher exports it for nobody."""
    config = fsdp2({"backend": "TE", name: "TE" if name == "backend" else 1})
    used = effective(config).used("fp8." + name.removeprefix("fp8_").replace("format", "fp8_format"))
    unread = used is not None and used.why == IGNORED and used.by == "accelerate launch"
    rules = {f.rule for f in lint(config, None, gpus_per_node=8, fp8_available=lambda: True)}
    assert ("unknown-fp8-key" in rules) == unread
    assert unread == (name in ("amax_history_length", "fp8_amax_compute_algorithm", "optimization_level", "use_te"))


def test_backend_rules_read_the_models_backend():
    found = lint(fsdp2({"fp8_backend": "MSAMP"}), None, gpus_per_node=8, fp8_available=lambda: True)
    assert [f.keys for f in found if f.rule == "fp8-msamp-fsdp"] == [("fp8_config.fp8_backend", "distributed_type")]


@pytest.mark.parametrize("fp8_config", [{"backend": "TE", "opt_level": "O1", "pad_inner_dim": False},
                                        {"margin": 2, "opt_level": "O1"}, {"backend": "NO", "interval": 2},
                                        {"backend": "AO", "margin": 1, "amax_history_length": 4}])
def test_check_names_every_fp8_key_the_model_sets_aside(fp8_config):
    """The severity contract: a written fp8 option that does not take effect as written (another backend's, or left
    to whichever package is installed first) is named by a finding of `check`."""
    e = effective(fsdp2(fp8_config))
    aside = {u.keys[0] for u in fp8_keys(e).values() if u.why in (IGNORED, OVERRIDDEN) and u.keys}
    found = lint(fsdp2(fp8_config), None, gpus_per_node=8, fp8_available=lambda: True)
    assert aside and aside <= {k for f in found for k in f.keys}
    assert all(f.severity in ("error", "warning") for f in found if set(f.keys) & aside)
