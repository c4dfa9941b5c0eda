"""The fp8 backend and its recipe's options (issue 24 point 4): written under the names the recipes read, only with
mixed_precision fp8 and only the chosen backend's, and read back from a config (``accelerate config``'s own file
included). That the values written take effect is shown against accelerate by tests/claims/test_precision.py
(test_every_fp8_option_written_reaches_its_recipe)."""
from __future__ import annotations

from wizard.core.answers import default_answers
from wizard.core.answers.importer import import_mapping
from wizard.core.answers.render import render

FP8 = {"precision.mixed_precision": "fp8"}


def fp8_section(changes: dict) -> dict | None:
    return render(default_answers().replace(changes)).accelerate.get("fp8_config")


def test_the_chosen_backend_and_only_its_options_are_written_under_the_names_read():
    te = fp8_section({**FP8, "precision.fp8_backend": "te", "precision.fp8_amax_history_len": 16,
                      "precision.fp8_amax_compute_algo": "max", "precision.fp8_override_wgrad": True,
                      "precision.fp8_opt_level": "O1"})
    assert te == {"backend": "TE", "fp8_format": "HYBRID", "margin": 0, "interval": 1, "amax_history_len": 16,
                  "amax_compute_algo": "max", "override_linear_precision": [False, False, True],
                  "use_autocast_during_eval": False}  # no opt_level: MS-AMP's
    ms = fp8_section({**FP8, "backend": "deepspeed", "precision.fp8_backend": "msamp", "precision.fp8_opt_level": "O1"})
    assert ms == {"backend": "MSAMP", "opt_level": "O1"}
    ao = fp8_section({**FP8, "precision.fp8_backend": "ao", "precision.fp8_pad_inner_dim": False})
    assert ao == {"backend": "AO", "enable_fsdp_float8_all_gather": True, "pad_inner_dim": False}


def test_nothing_is_written_without_fp8_or_without_a_backend():
    assert fp8_section({"precision.fp8_backend": "te", "precision.fp8_margin": 3}) is None  # bf16
    assert fp8_section({**FP8, "precision.fp8_margin": 3}) is None  # auto: accelerate picks, its defaults apply


def test_msamp_opt_level_has_no_place_on_fsdp():
    assert fp8_section({**FP8, "precision.fp8_backend": "msamp", "precision.fp8_opt_level": "O1"}) == {
        "backend": "MSAMP"}  # the config rule fp8-msamp-fsdp then reports the backend


def test_an_fp8_config_imports_back_as_answers():
    for changes in ({**FP8, "precision.fp8_backend": "te", "precision.fp8_format": "E5M2", "precision.fp8_margin": 1,
                     "precision.fp8_interval": 4, "precision.fp8_amax_history_len": 32,
                     "precision.fp8_amax_compute_algo": "max", "precision.fp8_override_fprop": True,
                     "precision.fp8_use_autocast_during_eval": True},
                    {**FP8, "backend": "deepspeed", "sharding.strategy": "grads_optimizer",
                     "precision.fp8_backend": "msamp", "precision.fp8_opt_level": "O1"},
                    {**FP8, "precision.fp8_backend": "ao", "precision.fp8_enable_fsdp_float8_all_gather": False,
                     "loading.ram_efficient": False}):
        a = default_answers().replace(changes)
        r = render(a)
        b, notes = import_mapping(r.accelerate, r.deepspeed)
        assert {k: b[k] for k in changes} == changes and not notes


def test_accelerate_configs_own_fp8_file_imports_with_a_note_on_the_names_no_recipe_reads():
    """What `accelerate config` writes for Transformer Engine (commands/config/cluster.py:808-871): the names it saves
    under, the prefixed names of the launch flags and lower-case spellings the recipe upper-cases are read; its
    amax_history_length / amax_compute_algorithm are not (the run used the recipe's defaults), and a note says so."""
    y = {"distributed_type": "FSDP", "mixed_precision": "fp8",
         "fp8_config": {"backend": "TE", "fp8_format": "e4m3", "fp8_margin": 2, "interval": 1,
                        "amax_history_length": 16, "amax_compute_algorithm": "max",
                        "override_linear_precision": [True, False, False], "use_autocast_during_eval": False}}
    b, notes = import_mapping(y)
    assert (b["precision.fp8_backend"], b["precision.fp8_format"], b["precision.fp8_margin"]) == ("te", "E4M3", 2)
    assert (b["precision.fp8_override_fprop"], b["precision.fp8_override_dgrad"]) == (True, False)
    assert (b["precision.fp8_amax_history_len"], b["precision.fp8_amax_compute_algo"]) == (1024, "most_recent")
    assert sorted(n.keys[0] for n in notes) == ["fp8_config.amax_compute_algorithm", "fp8_config.amax_history_length"]
    assert all("no fp8 recipe reads" in n.message for n in notes)
    assert import_mapping({**y, "fp8_config": {"backend": "NO"}})[0]["precision.fp8_backend"] == "auto"


def _findings(changes: dict) -> dict:
    from wizard.core.answers.rules import check_answers

    return {f.rule: f for f in check_answers(default_answers().replace(changes))}


def test_options_that_are_not_written_are_named():
    off = _findings({"precision.fp8_backend": "te", "precision.fp8_margin": 2})["fp8-options-unused"]
    assert off.keys == ("precision.fp8_backend", "precision.fp8_margin", "precision.mixed_precision")
    auto = _findings({**FP8, "precision.fp8_pad_inner_dim": False})["fp8-options-unused"]
    assert auto.keys == ("precision.fp8_pad_inner_dim", "precision.fp8_backend") and "auto-detection" in auto.message
    assert "fp8-options-unused" not in _findings({**FP8, "precision.fp8_backend": "ao",
                                                  "precision.fp8_pad_inner_dim": False})


def test_auto_detection_on_fsdp_is_a_warning_only_where_no_backend_is_written():
    found = _findings(FP8)["fp8-auto-backend-fsdp"]
    assert found.severity == "warning" and found.keys == ("precision.fp8_backend", "loading.ram_efficient")
    assert _findings({**FP8, "loading.ram_efficient": False})["fp8-auto-backend-fsdp"].keys == (
        "precision.fp8_backend",)
    assert "fp8-auto-backend-fsdp" not in _findings({**FP8, "precision.fp8_backend": "te"})
    assert "fp8-auto-backend-fsdp" not in _findings({**FP8, "backend": "deepspeed"})


def test_check_names_the_chosen_backends_package_where_only_another_is_installed(monkeypatch):
    """fp8-backend-missing: with torchao the only FP8 package found, accelerate launch passes, and backend TE or
    MSAMP then fails in the Accelerator (fp8-recipe-needs-its-package); AO does not."""
    import importlib.util

    from wizard.core.lint import lint

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object() if name == "torchao" else real(name, *a))

    def missing(changes: dict) -> list:
        r = render(default_answers().replace({**FP8, "loading.ram_efficient": False, **changes}))
        return [f for f in lint(r.accelerate, r.deepspeed, gpus_per_node=None) if f.rule == "fp8-backend-missing"]

    te = missing({"precision.fp8_backend": "te"})
    assert [f.keys for f in te] == [("fp8_config.backend", "mixed_precision")] and "Transformer Engine" in te[0].message
    assert "prepare()" in missing({"backend": "deepspeed", "sharding.strategy": "grads_optimizer",
                                   "precision.fp8_backend": "msamp"})[0].message
    assert missing({"precision.fp8_backend": "ao"}) == missing({}) == []
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)  # nothing: the launcher's own refusal
    assert [f.keys for f in missing({"precision.fp8_backend": "te"})] == [("mixed_precision",)]


def test_switching_an_ms_amp_run_to_fsdp_says_it_will_not_start():
    from wizard.core.catalog import FSDP2
    from wizard.core.convert import switch

    ds = default_answers().replace({**FP8, "backend": "deepspeed", "sharding.strategy": "grads_optimizer",
                                    "precision.fp8_backend": "msamp", "precision.fp8_opt_level": "O1"})
    report = switch(ds, FSDP2).report
    assert "precision.fp8_backend" in [m.setting_id for m in report.changed_meaning]
    assert "precision.fp8_opt_level" in {c.setting_id for c in report.dropped}
    te = ds.replace({"precision.fp8_backend": "te", "precision.fp8_margin": 2, "precision.fp8_opt_level": "O2"})
    assert not [m for m in switch(te, FSDP2).report.changed_meaning if m.setting_id.startswith("precision.fp8")]
