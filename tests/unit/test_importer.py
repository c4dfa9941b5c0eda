"""Importing a config gives answers that render back to the same config."""

import pytest
from helpers import PRESET_FILES as PRESETS

from wizard.core.answers import parse_answers_text
from wizard.core.answers.importer import import_mapping
from wizard.core.answers.render import render

CHANGES = [{}, {"backend": "deepspeed"}, {"backend": "fsdp", "fsdp_version": 1}, {"backend": "fsdp", "fsdp_version": 2}]


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.stem)
@pytest.mark.parametrize("change", CHANGES, ids=["as-is", "ds", "fsdp1", "fsdp2"])
def test_render_import_render_is_identity(preset, change):
    a, _ = parse_answers_text(preset.read_text())
    a = a.replace(change)
    first = render(a, "/out/ds_config.json")
    imported, findings = import_mapping(first.accelerate, first.deepspeed)
    assert imported is not None, [f.render() for f in findings]
    second = render(imported, "/out/ds_config.json")
    assert second.accelerate == first.accelerate
    assert second.deepspeed == first.deepspeed


def test_fsdp1_strategy_under_reshard_key_is_imported_as_asked():
    y = {"distributed_type": "FSDP", "fsdp_config": {"fsdp_version": 1, "fsdp_reshard_after_forward": "SHARD_GRAD_OP"}}
    a, findings = import_mapping(y)
    assert a["sharding.strategy"] == "grads_optimizer"
    assert any("ignores" in f.message for f in findings)
    assert render(a).accelerate["fsdp_config"]["fsdp_sharding_strategy"] == "SHARD_GRAD_OP"


def test_inline_nvme_path_moves_to_json():
    y = {"distributed_type": "DEEPSPEED", "deepspeed_config": {
        "zero_stage": 3, "offload_param_device": "nvme", "offload_optimizer_device": "nvme",
        "offload_param_nvme_path": "/nvme", "offload_optimizer_nvme_path": "/nvme"}}
    a, findings = import_mapping(y)
    r = render(a)
    assert r.deepspeed["zero_optimization"]["offload_param"]["nvme_path"] == "/nvme"
    assert "offload_param_nvme_path" not in r.accelerate["deepspeed_config"]


def test_unknown_json_keys_are_kept_in_extra():
    y = {"distributed_type": "DEEPSPEED", "deepspeed_config": {"deepspeed_config_file": "ds.json"}}
    ds = {"zero_optimization": {"stage": 2, "round_robin_gradients": True}, "wall_clock_breakdown": True,
          "bf16": {"enabled": True}}
    a, _ = import_mapping(y, ds)
    r = render(a)
    assert r.deepspeed["zero_optimization"]["round_robin_gradients"] is True
    assert r.deepspeed["wall_clock_breakdown"] is True
    assert r.deepspeed["zero_optimization"]["stage"] == 2


def test_other_distributed_types_are_refused():
    a, findings = import_mapping({"distributed_type": "MULTI_GPU"})
    assert a is None and findings[0].keys == ("distributed_type",)


def test_launch_defaults_apply_when_keys_are_missing():
    a, _ = import_mapping({"distributed_type": "FSDP", "fsdp_config": {}})
    assert a.fsdp_version == 1  # accelerate launch's default
    assert a["sharding.strategy"] == "full" and a["wrapping.policy"] == "none"
    assert a["checkpoint.format"] == "full"


def _ds_file(**json_keys):
    y = {"distributed_type": "DEEPSPEED", "deepspeed_config": {"deepspeed_config_file": "ds.json"}}
    return y, {"zero_optimization": {"stage": 2}, **json_keys}


def test_steps_per_print_is_named_in_a_note_not_dropped_silently():
    a, findings = import_mapping(*_ds_file(steps_per_print=100))
    notes = [f for f in findings if f.rule == "import" and "steps_per_print" in f.keys]
    assert len(notes) == 1 and notes[0].severity == "info"
    assert "steps_per_print: 100" in notes[0].message and "infinity" in notes[0].message and notes[0].fix
    # not carried: accelerate overwrites it in every config, and the wizard's own check would warn about it
    assert "steps_per_print" not in render(a).deepspeed
    assert "steps_per_print" not in (a["deepspeed.extra"] or {})


def test_a_fixed_train_batch_size_is_named_in_a_note():
    a, findings = import_mapping(*_ds_file(train_batch_size=64, train_micro_batch_size_per_gpu=4))
    notes = [f for f in findings if f.rule == "import" and "train_batch_size" in f.keys]
    assert len(notes) == 1 and "train_batch_size: 64" in notes[0].message
    # what the answers hold instead, a setting the TUI's note jumps to
    assert "training.micro_batch_size" in notes[0].keys and "the answers hold no total batch" in notes[0].message
    assert render(a).deepspeed["train_batch_size"] == "auto"
    assert render(a).deepspeed["train_micro_batch_size_per_gpu"] == 4


def test_auto_values_and_absent_keys_make_no_note():
    _, findings = import_mapping(*_ds_file(train_batch_size="auto"))
    assert not [f for f in findings if {"train_batch_size", "steps_per_print"} & set(f.keys)]


_DS_YAML = {"distributed_type": "DEEPSPEED", "deepspeed_config": {"deepspeed_config_file": "ds.json"}}


def _import_notes(findings, key):
    return [f for f in findings if f.rule == "import" and f.severity == "info" and key in f.keys]


def test_fp16_and_bf16_both_on_is_imported_as_bf16_with_a_note_of_its_own():
    a, findings = import_mapping(*_ds_file(fp16={"enabled": True}, bf16={"enabled": "true"}))
    assert a["precision.mixed_precision"] == "bf16"
    (note,) = _import_notes(findings, "fp16.enabled")
    assert {"bf16.enabled", "precision.mixed_precision"} <= set(note.keys)
    assert "`bf16.enabled: \"true\"` and `fp16.enabled: true` are both on" in note.message
    assert "imported as bf16" in note.message and "`fp16.enabled: false`" in note.message and "fp16" in note.fix
    assert render(a).deepspeed["fp16"]["enabled"] is False


@pytest.mark.parametrize("fp16,note", [({"enabled": True}, True), ({"enabled": True, "auto_cast": False}, True),
                                       ({"enabled": True, "auto_cast": True}, False)],
                         ids=["auto_cast-absent", "auto_cast-false", "auto_cast-true"])
def test_fp16_without_auto_cast_says_the_regenerated_json_turns_it_on(fp16, note):
    a, findings = import_mapping(*_ds_file(fp16=fp16))
    assert a["precision.mixed_precision"] == "fp16" and render(a).deepspeed["fp16"]["auto_cast"] is True
    notes = _import_notes(findings, "fp16.auto_cast")
    assert len(notes) == int(note)
    if note:
        assert "becomes true" in notes[0].message and "precision.mixed_precision" in notes[0].keys


def test_auto_precision_says_the_answers_cannot_hold_auto():
    a, findings = import_mapping(*_ds_file(bf16={"enabled": "auto"}, fp16={"enabled": "auto"}))
    held = a["precision.mixed_precision"]
    (note,) = _import_notes(findings, "bf16.enabled")
    assert {"fp16.enabled", "precision.mixed_precision", "launch.training_loop"} <= set(note.keys)
    assert 'no "auto" precision' in note.message and f'keeps "{held}"' in note.message
    assert f"`bf16.enabled: {str(held in ('bf16', 'fp8')).lower()}`" in note.message  # what is written instead
    assert render(a).deepspeed["bf16"]["enabled"] is (held in ("bf16", "fp8"))
    # under the Trainer the answers do write "auto" again, as the note says
    assert render(a.replace({"launch.training_loop": "trainer"})).deepspeed["bf16"]["enabled"] == "auto"


@pytest.mark.parametrize("bf16,want", [
    ({"bf16_master_weights_and_grads": True, "bf16_optimizer_states": True}, "bf16_with_states"),
    ({"bf16_master_weights_and_grads": True}, "bf16"),  # an absent key is DeepSpeed's default, false
    ({"bf16_master_weights_and_grads": True, "bf16_optimizer_states": False}, "bf16"),
    ({"bf16_master_weights_and_grads": False}, "fp32"),
])
def test_bf16_master_weight_keys_import_together(bf16, want):
    ds = {"zero_optimization": {"stage": 3}, "bf16": {"enabled": True, **bf16}}
    a, findings = import_mapping(_DS_YAML, ds)
    assert a["precision.ds_bf16_master_weights"] == want
    assert a["precision.mixed_precision"] == "bf16"
    assert a["deepspeed.extra"] == {}, findings  # nothing left over, nothing imported twice
    assert render(a).deepspeed["bf16"] == {"bf16_master_weights_and_grads": want != "fp32",
                                           "bf16_optimizer_states": want == "bf16_with_states", "enabled": True}


def test_bf16_optimizer_states_without_master_stays_as_written():
    """DeepSpeed refuses it; no answer value says it, so the JSON key is kept in deepspeed.extra as it is."""
    ds = {"zero_optimization": {"stage": 2}, "bf16": {"enabled": True, "bf16_optimizer_states": True}}
    a, _ = import_mapping(_DS_YAML, ds)
    assert a["precision.ds_bf16_master_weights"] is None
    assert a["deepspeed.extra"] == {"bf16": {"bf16_optimizer_states": True}}


# ---------------------------------------------------------------- known keys go to their fields (issue 21, item 12)
_OPTIMIZER = {"type": "AdamW", "params": {"lr": 3e-5, "weight_decay": 0.01}}


def test_known_keys_go_to_their_fields_in_every_spelling_deepspeed_reads():
    """5e8 is a JSON float, "true" a string: DeepSpeed reads both as the setting's value (pydantic's lax mode), so the
    field holds them; deepspeed.extra keeps only what no setting says."""
    ds = {"zero_optimization": {"stage": 2, "overlap_comm": "true", "contiguous_gradients": 1,
                                "reduce_bucket_size": 5e8, "allgather_bucket_size": "200000000",
                                "round_robin_gradients": True},
          "optimizer": _OPTIMIZER, "bf16": {"enabled": True}}
    a, findings = import_mapping(_DS_YAML, ds)
    assert (a["deepspeed.overlap_comm"], a["deepspeed.contiguous_gradients"], a["deepspeed.reduce_bucket_size"],
            a["deepspeed.allgather_bucket_size"]) == (True, True, 500_000_000, 200_000_000)
    assert a["deepspeed.extra"] == {"optimizer": _OPTIMIZER, "zero_optimization": {"round_robin_gradients": True}}
    kept = [f for f in findings if f.rule == "import" and "deepspeed.extra" in f.keys]
    assert kept and "zero_optimization.round_robin_gradients" in kept[0].message and "optimizer" in kept[0].message
    spelled = [f for f in findings if "zero_optimization.overlap_comm" in f.keys]
    assert spelled and "deepspeed.overlap_comm" in spelled[0].message  # a spelling changed: said, with its field
    zo = render(a).deepspeed["zero_optimization"]
    assert (zo["overlap_comm"], zo["reduce_bucket_size"], zo["round_robin_gradients"]) == (True, 500_000_000, True)
    assert render(a).deepspeed["optimizer"] == _OPTIMIZER


def test_a_known_key_its_field_cannot_hold_stays_in_extra_and_the_note_names_its_field():
    ds = {"zero_optimization": {"stage": 3, "sub_group_size": 0, "overlap_comm": True},
          "bf16": {"enabled": True}}
    a, findings = import_mapping(_DS_YAML, ds)
    assert a["deepspeed.overlap_comm"] is True
    assert a["deepspeed.extra"] == {"zero_optimization": {"sub_group_size": 0}}
    (note,) = [f for f in findings if "zero_optimization.sub_group_size" in f.keys]
    assert "deepspeed.sub_group_size" in note.message and "stays in deepspeed.extra" in note.message
    assert render(a).deepspeed["zero_optimization"]["sub_group_size"] == 0  # written as in the source


def test_a_zero3_key_below_zero3_stays_in_extra_with_a_note():
    ds = {"zero_optimization": {"stage": 2, "stage3_prefetch_bucket_size": 5e7}}
    a, findings = import_mapping(_DS_YAML, ds)
    assert a["deepspeed.extra"] == {"zero_optimization": {"stage3_prefetch_bucket_size": 5e7}}
    (note,) = [f for f in findings if "zero_optimization.stage3_prefetch_bucket_size" in f.keys]
    assert "prefetch.ds_bucket_size" in note.message and "ZeRO-3" in note.message


def test_an_edited_extra_is_split_as_an_import_splits_a_json():
    from wizard.core.answers.importer import split_extra

    moved, rest = split_extra({"zero_optimization": {"overlap_comm": "false", "stage3_prefetch_bucket_size": 5,
                                                     "round_robin_gradients": True}, "optimizer": _OPTIMIZER}, 2)
    assert moved == {"deepspeed.overlap_comm": False}
    assert rest == {"zero_optimization": {"stage3_prefetch_bucket_size": 5, "round_robin_gradients": True},
                    "optimizer": _OPTIMIZER}  # a ZeRO-3 key below ZeRO-3 stays, as on import
    moved, rest = split_extra({"zero_optimization": {"stage": 1, "stage3_prefetch_bucket_size": 5}}, 3)
    assert moved == {"prefetch.ds_bucket_size": 5} and rest == {"zero_optimization": {"stage": 1}}


def test_an_edited_extra_gives_its_launch_keys_to_the_launch_answers():
    from wizard.core.answers.importer import split_extra

    moved, rest = split_extra({"num_processes": 8, "num_machines": 2, "use_cpu": False,
                               "zero_optimization": {"overlap_comm": True}}, 2)
    assert moved == {"launch.num_processes": 8, "launch.num_machines": 2, "deepspeed.overlap_comm": True}
    assert rest == {"use_cpu": False}  # an accelerate key no answer holds stays, where check warns about it


def test_launch_keys_beside_an_accelerate_config_are_dropped_with_a_note():
    y = {**_DS_YAML, "num_processes": 4}
    a, findings = import_mapping(y, {"zero_optimization": {"stage": 2}, "num_processes": 8, "use_cpu": False})
    assert a["launch.num_processes"] == 4 and not a["deepspeed.extra"]  # the YAML's value; nothing in the JSON
    assert "num_processes" not in render(a).deepspeed and "use_cpu" not in render(a).deepspeed
    (note,) = _import_notes(findings, "num_processes")
    assert "`num_processes: 8`" in note.message and "not carried" in note.message
    assert "launch.num_processes" in note.message
    (note,) = _import_notes(findings, "use_cpu")
    assert "belongs in the accelerate config" in note.message


_TWO_MACHINES = {**_DS_YAML, "num_processes": 16, "num_machines": 2}


@pytest.mark.parametrize("hpz,note", [(4, True), (8, False)])
def test_an_hpz_size_other_than_the_processes_per_machine_is_named_in_a_note(hpz, note):
    a, findings = import_mapping(_TWO_MACHINES, {"zero_optimization": {"stage": 3, "zero_hpz_partition_size": hpz}})
    assert a["sharding.strategy"] == "hybrid_full"
    assert render(a).deepspeed["zero_optimization"]["zero_hpz_partition_size"] == 8  # 16 processes / 2 machines
    notes = _import_notes(findings, "zero_optimization.zero_hpz_partition_size")
    assert len(notes) == int(note)
    if note:
        assert f"zero_hpz_partition_size: {hpz}` is imported as sharding.strategy hybrid_full" in notes[0].message
        assert "there: 8 (16 processes on 2 machine(s))" in notes[0].message


def test_an_hpz_size_below_zero3_and_a_stage_out_of_range_are_named_in_notes():
    a, findings = import_mapping(_TWO_MACHINES, {"zero_optimization": {"stage": 2, "zero_hpz_partition_size": 4}})
    assert a["sharding.strategy"] == "grads_optimizer"
    assert "zero_hpz_partition_size" not in render(a).deepspeed["zero_optimization"]
    (note,) = _import_notes(findings, "zero_optimization.zero_hpz_partition_size")
    assert "is not carried" in note.message and "ZeRO-2" in note.message
    a, findings = import_mapping(_TWO_MACHINES, {"zero_optimization": {"stage": 4}})
    assert a["sharding.strategy"] == "none"
    (note,) = _import_notes(findings, "zero_optimization.stage")
    assert "`zero_optimization.stage: 4` is not a ZeRO stage" in note.message and "sharding.strategy" in note.keys


@pytest.mark.parametrize("inline,key,says", [
    ({"zero_stage": 5}, "deepspeed_config.zero_stage", "`deepspeed_config.zero_stage: 5` is not a ZeRO stage"),
    ({"gradient_accumulation_steps": 0}, "deepspeed_config.gradient_accumulation_steps", "is imported as 1"),
    ({"gradient_accumulation_steps": "many"}, "deepspeed_config.gradient_accumulation_steps", "is imported as 1"),
    ({"gradient_clipping": "high"}, "deepspeed_config.gradient_clipping", "keeps its default, 1.0"),
], ids=["stage-5", "accumulation-0", "accumulation-word", "clipping-word"])
def test_inline_values_the_answers_cannot_hold_are_named_in_notes(inline, key, says):
    a, findings = import_mapping({"distributed_type": "DEEPSPEED", "deepspeed_config": {"zero_stage": 2, **inline}})
    assert a is not None
    (note,) = _import_notes(findings, key)
    assert says in note.message and note.fix
    assert any(k in a.values for k in note.keys)  # it names the setting that holds the value instead
