"""Converting configs between FSDP1, FSDP2 and DeepSpeed (wizard/core/convert/, docs/convert.md): the findings for
what changes meaning or cannot carry over, the written configs, and the round trip there and back over every preset
and a sample of the real-world and check corpora."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import yaml
from helpers import PRESET_FILES, ROOT

from wizard.core.answers import load_answers_file
from wizard.core.answers.generate import generate
from wizard.core.answers.importer import import_mapping
from wizard.core.convert import (
    convert_answers,
    effective_value,
    in_effect,
    intent_ids,
    round_trip,
    target_answers,
)
from wizard.core.lint import load_config_files
from wizard.core.rules import RULES

sys.path.insert(0, str(ROOT / "tests" / "data" / "real_corpus"))
from _corpus import load_cases, write_case  # noqa: E402

OTHER = {"deepspeed": ("fsdp1", "fsdp2"), "fsdp1": ("deepspeed", "fsdp2"), "fsdp2": ("deepspeed", "fsdp1")}

# Every difference a round trip may show, and why (docs/convert.md "What a round trip changes"): the new target has
# no twin, or has one only at another ZeRO stage, and the converted config writes what really runs there.
EXPECTED = {
    ("sharding.strategy", "optimizer", "grads_optimizer"),      # ZeRO-1 has no FSDP twin: SHARD_GRAD_OP
    ("sharding.strategy", "none", "grads_optimizer"),           # FSDP2 has no NO_SHARD
    ("sharding.strategy", "hybrid_grads_optimizer", "grads_optimizer"),  # no hybrid ZeRO-2 in DeepSpeed
    ("sharding.strategy", "hybrid_full", "full"),               # hybrid on one machine is plain sharding
    ("offload.optimizer", "none", "cpu"),                       # FSDP offload is all or nothing
    ("offload.params", "none", "cpu"),
    ("offload.optimizer", "nvme", "cpu"),                       # FSDP cannot offload to NVMe
    ("offload.params", "nvme", "cpu"),
    ("offload.params", "cpu", "none"),                          # DeepSpeed offloads parameters at ZeRO-3 only
    ("offload.optimizer", "cpu", "none"),                       # ZeRO-0 cannot offload
    ("loading.ram_efficient", True, False),                     # zero3_init_flag exists at ZeRO-3 only
    ("loading.ram_efficient", False, True),                     # ... and at ZeRO-3 zero.Init always runs
    ("checkpoint.format", "full", "sharded"),                   # the 16-bit full save is a ZeRO-3 option
    ("launch.dynamo_backend", "inductor", "no"),                # DeepSpeed launches get no dynamo_config
    ("launch.dynamo_regional", True, False),
    ("launch.dynamo_mode", "max-autotune", "default"),
}


def _differences_are_explained(conv, there_and_back):
    """Each difference is an expected one and a convert finding of one of the two legs names its setting."""
    named = {k for f in conv.findings + there_and_back if f.rule.startswith("convert-") for k in f.keys}
    for d in conv.differences:
        assert (d.setting_id, d.before, d.after) in EXPECTED, d
        assert d.setting_id in named, (d, [f.rule for f in conv.findings])


def _back_findings(conv):
    from wizard.core.answers.render import render

    r = render(conv.answers)
    back, _ = import_mapping(r.accelerate, r.deepspeed)
    return target_answers(back, conv.source.target, source_ds=r.deepspeed)


def _check_round_trip(answers, ds=None):
    for to in OTHER[answers.target]:
        conv = convert_answers(answers, to, None, source_ds=ds)
        assert conv.answers.target == to
        again, back_findings = _back_findings(conv)
        _differences_are_explained(conv, back_findings)
        # a second trip there and back changes nothing more: the conversion is a fixed point after one trip
        assert round_trip(again, convert_answers(again, to).answers) == ()
        # the written answers.yaml describes the written config: importing the config gives the same intent
        r = conv.generated.rendered
        reread, _ = import_mapping(r.accelerate, r.deepspeed)
        ran, _ = in_effect(reread, quiet=True)
        for sid in intent_ids(to, to):
            if sid == "deepspeed.config_file":  # "auto" writes a JSON when one is needed; re-imported: "yes"
                continue
            assert effective_value(ran, sid) == effective_value(conv.answers, sid), (to, sid)


def _import_files(path: Path):
    """The answers imported from ``path`` and the DeepSpeed JSON it names; fails, naming the importer's findings,
    when a config the importer takes (see :func:`_importable`) does not import."""
    loaded = load_config_files(path)
    answers, findings = import_mapping(loaded.yaml, loaded.ds)
    assert answers is not None, (path, [(f.rule, f.keys, f.message) for f in findings])
    return answers, loaded.ds


def _importable(config: dict | None, kind: str = "accelerate_yaml") -> bool:
    """Whether the importer takes a config, decided from the file alone (an FSDP or DeepSpeed accelerate config, or a
    bare DeepSpeed JSON), so a broken importer fails the round trips below instead of skipping them."""
    if kind == "deepspeed_json":
        return True
    return isinstance(config, dict) and str(config.get("distributed_type", "")).upper() in ("FSDP", "DEEPSPEED")


@pytest.mark.parametrize("preset", PRESET_FILES, ids=lambda p: p.stem)
def test_round_trip_over_every_preset(preset, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    answers, _ = load_answers_file(preset)
    gen = generate(answers, tmp_path / "src")
    (tmp_path / "src").mkdir()
    for name, text in gen.files.items():
        (tmp_path / "src" / name).write_text(text)
    imported, ds = _import_files(tmp_path / "src" / "accelerate_config.yaml")
    _check_round_trip(imported, ds)


def _sample(cases: dict, every: int) -> list[str]:
    names = sorted(cases)
    return names[::every]


_REAL = load_cases()


@pytest.mark.parametrize("name", [n for n in _sample(_REAL, 9) if _importable(_REAL[n]["config"], _REAL[n]["kind"])])
def test_round_trip_over_a_sample_of_the_real_corpus(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    answers, ds = _import_files(write_case(_REAL[name], tmp_path))
    _check_round_trip(answers, ds)


_CHECK = sorted(p for p in (ROOT / "tests" / "data" / "check_corpus").iterdir()
                if (p / "accelerate_config.yaml").exists())


@pytest.mark.parametrize("case", [p for p in _CHECK[::3]
                                  if _importable(yaml.safe_load((p / "accelerate_config.yaml").read_text()))],
                         ids=lambda p: p.name)
def test_round_trip_over_a_sample_of_the_check_corpus(case, monkeypatch):
    monkeypatch.chdir(case)
    answers, ds = _import_files(Path("accelerate_config.yaml"))
    _check_round_trip(answers, ds)


def test_the_samples_hold_configs_of_every_kind_the_importer_takes():
    """The filters above leave out only what the importer refuses by design: the samples still hold FSDP and
    DeepSpeed accelerate configs and bare DeepSpeed JSONs."""
    real = [_REAL[n] for n in _sample(_REAL, 9) if _importable(_REAL[n]["config"], _REAL[n]["kind"])]
    kinds = {c["kind"] if c["kind"] == "deepspeed_json" else str(c["config"]["distributed_type"]).upper()
             for c in real}
    assert kinds == {"deepspeed_json", "FSDP", "DEEPSPEED"}, kinds
    assert len(real) >= 40, len(real)


# ------------------------------------------------------------------------------------------------ the findings
def _ds(tmp_path: Path, ds: dict, **yaml_extra) -> Path:
    (tmp_path / "ds_config.json").write_text(json.dumps(ds))
    cfg = {"distributed_type": "DEEPSPEED", "num_processes": 8, "num_machines": 1,
           "deepspeed_config": {"deepspeed_config_file": "ds_config.json"}, **yaml_extra}
    path = tmp_path / "accelerate_config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _fsdp(tmp_path: Path, fsdp: dict, **extra) -> Path:
    cfg = {"distributed_type": "FSDP", "num_processes": 8, "num_machines": 1, "mixed_precision": "bf16",
           "fsdp_config": fsdp, **extra}
    path = tmp_path / "accelerate_config.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _convert(path: Path, to: str):
    cwd = os.getcwd()
    os.chdir(path.parent)
    try:
        answers, ds = _import_files(path)
        return convert_answers(answers, to, None, source_ds=ds)
    finally:
        os.chdir(cwd)


def _by_rule(conv, rule: str):
    found = [f for f in conv.findings if f.rule == rule]
    assert found, f"no {rule}: {[f.rule for f in conv.findings]}"
    assert all(f.severity == RULES[rule].severity for f in found)
    return found


def _bf16(stage: int, **zero) -> dict:
    return {"bf16": {"enabled": True}, "zero_optimization": {"stage": stage, **zero},
            "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 1, "gradient_clipping": 1.0}


@pytest.mark.parametrize("to,written", [("fsdp1", ("fsdp_sharding_strategy", "SHARD_GRAD_OP")),
                                        ("fsdp2", ("fsdp_reshard_after_forward", False))])
def test_zero1_becomes_shard_grad_op_with_a_warning_that_says_the_memory_consequence(tmp_path, to, written):
    conv = _convert(_ds(tmp_path, _bf16(1)), to)
    (f,) = _by_rule(conv, "convert-zero1-no-fsdp-twin")
    assert f.severity == "warning" and f.keys == ("sharding.strategy",)
    assert "gradients are sharded too" in f.message and "less memory than ZeRO-1" in f.message
    assert conv.generated.rendered.accelerate["fsdp_config"][written[0]] == written[1]
    assert conv.answers["sharding.strategy"] == "grads_optimizer"
    assert "sharding.strategy" not in [c.setting_id for c in conv.carried]  # changed, so a finding, not "carried"
    # the TUI's report and the command's agree: ZeRO-1 on FSDP carries over with another meaning
    assert "sharding.strategy" in [m.setting_id for m in conv.report.changed_meaning]
    assert [(d.setting_id, d.before, d.after) for d in conv.differences] == [
        ("sharding.strategy", "optimizer", "grads_optimizer")]


def test_optimizer_offload_alone_becomes_fsdp_offload_of_everything(tmp_path):
    conv = _convert(_ds(tmp_path, _bf16(2, offload_optimizer={"device": "cpu"})), "fsdp2")
    (f,) = _by_rule(conv, "convert-offload-all-or-nothing")
    assert f.severity == "warning" and set(f.keys) == {"offload.optimizer", "offload.params"}
    assert "only the optimizer state" in f.message
    assert conv.generated.rendered.accelerate["fsdp_config"]["fsdp_offload_params"] is True
    assert (conv.answers["offload.optimizer"], conv.answers["offload.params"]) == ("cpu", "cpu")
    (cpu,) = _by_rule(conv, "convert-cpu-optimizer")
    assert "DeepSpeedCPUAdam" in cpu.message and "own torch optimizer" in cpu.message


def test_zero3_param_and_optimizer_offload_is_fsdp_cpu_offload_without_a_warning(tmp_path):
    conv = _convert(_ds(tmp_path, _bf16(3, offload_optimizer={"device": "cpu"}, offload_param={"device": "cpu"})),
                    "fsdp1")
    assert not [f for f in conv.findings if f.rule == "convert-offload-all-or-nothing"]
    _by_rule(conv, "convert-cpu-optimizer")
    assert conv.generated.rendered.accelerate["fsdp_config"]["fsdp_offload_params"] is True
    assert conv.round_trip_stable


def test_fsdp_offload_at_shard_grad_op_keeps_parameters_on_the_gpu_under_zero2(tmp_path):
    conv = _convert(_fsdp(tmp_path, {"fsdp_version": 2, "fsdp_reshard_after_forward": False,
                                     "fsdp_offload_params": True}), "deepspeed")
    (f,) = _by_rule(conv, "convert-offload-not-carried")
    assert f.severity == "warning" and "offload.params" in f.keys and "sharding.strategy" in f.keys
    d = conv.generated.rendered.accelerate["deepspeed_config"]
    assert (d["zero_stage"], d["offload_optimizer_device"], d["offload_param_device"]) == (2, "cpu", "none")
    _by_rule(conv, "convert-cpu-optimizer")


def test_nvme_offload_becomes_cpu_offload_on_fsdp(tmp_path):
    conv = _convert(_ds(tmp_path, _bf16(3, offload_optimizer={"device": "nvme", "nvme_path": "/nvme"},
                                        offload_param={"device": "nvme", "nvme_path": "/nvme"})), "fsdp2")
    (f,) = _by_rule(conv, "convert-nvme-no-fsdp-twin")
    assert f.severity == "warning" and "offload.nvme_path" in f.keys and "host RAM" in f.message
    text = yaml.safe_dump(conv.generated.rendered.accelerate)
    assert "nvme" not in text and conv.generated.rendered.accelerate["fsdp_config"]["fsdp_offload_params"] is True


def test_hpz_and_hybrid_shard_are_counterparts_with_the_memory_difference_stated(tmp_path):
    conv = _convert(_ds(tmp_path, _bf16(3, zero_hpz_partition_size=8), num_processes=16, num_machines=2,
                        main_process_ip="10.0.0.1"), "fsdp1")
    (f,) = _by_rule(conv, "convert-hybrid-hpz")
    assert "zero_hpz_partition_size: 8" in f.message and "replicated across the 2 machines" in f.message
    assert conv.generated.rendered.accelerate["fsdp_config"]["fsdp_sharding_strategy"] == "HYBRID_SHARD"
    conv2 = _convert(tmp_path / "accelerate_config.yaml", "fsdp2")
    assert conv2.generated.rendered.accelerate["parallelism_config"] == {
        "parallelism_config_dp_replicate_size": 2, "parallelism_config_dp_shard_size": 8}
    assert conv.round_trip_stable and conv2.round_trip_stable


def test_fsdp2_hybrid_becomes_zero3_hpz_of_the_gpus_per_machine(tmp_path):
    path = _fsdp(tmp_path, {"fsdp_version": 2, "fsdp_reshard_after_forward": True}, num_processes=16,
                 num_machines=2, main_process_ip="10.0.0.1",
                 parallelism_config={"parallelism_config_dp_replicate_size": 2,
                                     "parallelism_config_dp_shard_size": 8})
    conv = _convert(path, "deepspeed")
    (f,) = _by_rule(conv, "convert-hybrid-hpz")
    assert "partitioned over all 16 GPUs" in f.message
    assert conv.generated.rendered.deepspeed["zero_optimization"]["zero_hpz_partition_size"] == 8


def test_hybrid_shard_zero2_has_no_deepspeed_twin(tmp_path):
    path = _fsdp(tmp_path, {"fsdp_version": 1, "fsdp_sharding_strategy": "HYBRID_SHARD_ZERO2"}, num_processes=16,
                 num_machines=2, main_process_ip="10.0.0.1")
    conv = _convert(path, "deepspeed")
    (f,) = _by_rule(conv, "convert-hybrid-zero2-no-ds-twin")
    assert f.severity == "warning"
    assert conv.generated.rendered.accelerate["deepspeed_config"]["zero_stage"] == 2


def test_zero3_prefetch_knobs_are_named_and_not_written_for_fsdp(tmp_path):
    conv = _convert(_ds(tmp_path, _bf16(3, stage3_prefetch_bucket_size=1000, stage3_max_live_parameters=2000)),
                    "fsdp1")
    (f,) = _by_rule(conv, "convert-prefetch")
    assert set(f.keys) == {"prefetch.ds_bucket_size", "prefetch.ds_max_live_parameters"}
    assert "stage3_prefetch_bucket_size 1000" in f.message and "BACKWARD_PRE" in f.message
    assert "stage3" not in yaml.safe_dump(conv.generated.rendered.accelerate)


def test_fsdp1_prefetch_settings_are_named_when_converting_away(tmp_path):
    path = _fsdp(tmp_path, {"fsdp_version": 1, "fsdp_sharding_strategy": "FULL_SHARD", "fsdp_forward_prefetch": True,
                            "fsdp_backward_prefetch": "BACKWARD_POST"})
    conv = _convert(path, "deepspeed")
    (f,) = _by_rule(conv, "convert-prefetch")
    assert set(f.keys) == {"prefetch.backward", "prefetch.forward"} and "stage3_prefetch_bucket_size" in f.message


@pytest.mark.parametrize("to", ["fsdp1", "fsdp2", "deepspeed"])
def test_mixed_precision_upcast_difference_is_stated_in_bytes(tmp_path, to):
    path = (_ds(tmp_path, _bf16(3)) if to != "deepspeed"
            else _fsdp(tmp_path, {"fsdp_version": 2, "fsdp_reshard_after_forward": True}))
    conv = _convert(path, to)
    (f,) = _by_rule(conv, "convert-precision-upcast")
    assert "16 bytes per parameter" in f.message and "fp32" in f.message


def test_bf16_master_weights_have_no_fsdp_counterpart(tmp_path):
    ds = _bf16(2)
    ds["bf16"].update(bf16_master_weights_and_grads=True, bf16_optimizer_states=True)
    conv = _convert(_ds(tmp_path, ds), "fsdp2")
    (f,) = _by_rule(conv, "convert-bf16-master-no-fsdp-twin")
    assert f.severity == "warning" and "precision.ds_bf16_master_weights" in f.keys
    assert "bf16_master_weights" not in yaml.safe_dump(conv.generated.rendered.accelerate)


def test_deepspeed_only_keys_are_listed_by_key_and_an_optimizer_block_warns(tmp_path):
    ds = _bf16(2)
    ds.update(wall_clock_breakdown=True, optimizer={"type": "AdamW", "params": {"lr": 1e-4}},
              activation_checkpointing={"partition_activations": True})
    conv = _convert(_ds(tmp_path, ds), "fsdp2")
    (f,) = _by_rule(conv, "convert-ds-extra-dropped")
    for key in ("wall_clock_breakdown", "optimizer", "activation_checkpointing.partition_activations"):
        assert key in f.message
    (opt,) = _by_rule(conv, "convert-ds-optimizer-block")
    assert opt.severity == "warning" and "AdamW" in opt.message and "Trainer" in opt.message


def test_activation_checkpointing_and_compile_from_an_fsdp_config_warn_on_deepspeed(tmp_path):
    path = _fsdp(tmp_path, {"fsdp_version": 2, "fsdp_reshard_after_forward": True,
                            "fsdp_activation_checkpointing": True},
                 dynamo_config={"dynamo_backend": "INDUCTOR"})
    conv = _convert(path, "deepspeed")
    (ac,) = _by_rule(conv, "convert-activation-checkpointing-dropped")
    assert "gradient_checkpointing_enable" in ac.message
    (dyn,) = _by_rule(conv, "convert-compile-dropped")
    assert "launch.dynamo_backend" in dyn.keys
    assert "dynamo_config" not in conv.generated.rendered.accelerate
    assert not [f for f in conv.findings if f.rule in ("ds-compile-not-passed", "not-applicable")]


def test_values_the_original_never_applied_are_converted_as_what_ran(tmp_path):
    conv = _convert(_ds(tmp_path, _bf16(2, offload_param={"device": "cpu"})), "fsdp2")
    (f,) = _by_rule(conv, "convert-not-in-effect")
    assert f.keys == ("offload.params",) and "ZeRO-2 reads no parameter offload" in f.message
    assert conv.generated.rendered.accelerate["fsdp_config"]["fsdp_offload_params"] is False


def test_fsdp_only_settings_are_dropped_with_the_counterpart_named(tmp_path):
    path = _fsdp(tmp_path, {"fsdp_version": 1, "fsdp_sharding_strategy": "FULL_SHARD", "fsdp_use_orig_params": False,
                            "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
                            "fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer"})
    conv = _convert(path, "deepspeed")
    dropped = {f.keys[0]: f for f in _by_rule(conv, "convert-dropped")}
    assert {"summoning.use_orig_params", "wrapping.layer_classes"} <= set(dropped)
    assert "fsdp_transformer_layer_cls_to_wrap" in dropped["wrapping.layer_classes"].message
    assert conv.answers["wrapping.layer_classes"] == [] and "wrapping.layer_classes" not in conv.answers.explicit


def test_the_tui_switch_report_is_the_core_one():
    import wizard.core.convert as core
    import wizard.tui.shared.switch as tui

    for name in ("CarryLine", "MeaningLine", "SwitchReport", "switch_report"):
        assert getattr(tui, name) is getattr(core, name)


def test_every_convert_rule_is_registered_as_an_import_step_with_claims():
    import wizard.core.wizard_rules  # noqa: F401

    names = [n for n in RULES if n.startswith("convert-")]
    assert len(names) >= 18
    for n in names:
        assert RULES[n].section == "import" and RULES[n].claims, n
