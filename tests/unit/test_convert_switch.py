"""One switch for the TUI's ctrl+t and ``fsdpds-wizard convert`` (issue 20): the same report for the same source and
target, over every preset and target; the FSDP2 -> FSDP1 prefetch case; and a counterparts table that classifies
every setting a switch can report."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from helpers import written_config

from wizard.cli import main
from wizard.core.answers import default_answers
from wizard.core.answers.render import render
from wizard.core.catalog import DEEPSPEED, FSDP1, FSDP2, SETTINGS, TARGETS
from wizard.core.convert import classify, switch
from wizard.core.texts.switching import COUNTERPARTS, KINDS, NONE, OTHER, SAME
from wizard.tui.shared.session import from_accelerate_config, from_preset, preset_names

_PAIRS = [(p, t) for p in preset_names() for t in TARGETS if t != from_preset(p).answers.target]


def _cli_args(target: str) -> list[str]:
    return ["--to", "deepspeed"] if target == DEEPSPEED else ["--to", "fsdp", "--fsdp-version",
                                                              "1" if target == FSDP1 else "2"]


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, Path]:
    """Each preset's accelerate_config.yaml, written by ``--headless`` (a preset the installed versions block: its
    golden files, what it writes where it runs)."""
    from helpers import write_preset

    out = {}
    for name in preset_names():
        folder = tmp_path_factory.mktemp(name)
        write_preset(name, folder)
        out[name] = folder / "accelerate_config.yaml"
    return out


def _convert_json(src: Path, target: str, out: Path, capsys) -> dict:
    capsys.readouterr()
    assert main(["convert", str(src), *_cli_args(target), "--out", str(out), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("preset,target", _PAIRS)
def test_convert_and_the_tui_switch_give_the_same_report_andwritten_config(preset, target, written, tmp_path, capsys):
    from helpers import blocked_here

    if blocked_here(preset):  # convert refuses a source with an error (the installed versions cannot run it)
        assert main(["convert", str(written[preset]), *_cli_args(target), "--out", str(tmp_path / "out")]) == 2
        assert blocked_here(preset) in capsys.readouterr().out
        return
    cli = _convert_json(written[preset], target, tmp_path / "out", capsys)
    # the TUI started on the same config (fsdpds-wizard --config FILE), switched: the function ctrl+t calls
    start = from_accelerate_config(written[preset])
    switched = switch(start.answers, target, source_files=start.source_files(start.answers))
    assert cli["report"] == json.loads(json.dumps(switched.report.to_dict())), (preset, target)
    assert written_config(tmp_path / "out") == written_config(render(switched.kept))
    # the TUI started on the preset's answers writes the same config too (the FSDP2 -> FSDP1 prefetch was not)
    assert written_config(render(switch(from_preset(preset).answers, target).kept)) == written_config(tmp_path / "out")


# ------------------------------------------------------------------------------------------------ FSDP2 -> FSDP1
def test_fsdp2_to_fsdp1_keeps_backward_pre_in_both(written, tmp_path, capsys):
    """The user's case: ``convert`` FSDP2 -> FSDP1 wrote NO_PREFETCH ("the same intent") while ctrl+t kept
    BACKWARD_PRE. The FSDP2 file has no prefetch key, so there is no prefetch answer to carry: both write FSDP1's
    form of FSDP2's own backward prefetch, and neither reports a prefetch line."""
    src = written["fsdp2-full-shard-bf16"]
    assert "fsdp_backward_prefetch" not in src.read_text()
    cli = _convert_json(src, FSDP1, tmp_path / "out", capsys)
    cfg = yaml.safe_load((tmp_path / "out" / "accelerate_config.yaml").read_text())
    assert cfg["fsdp_config"]["fsdp_backward_prefetch"] == "BACKWARD_PRE"
    report = cli["report"]
    assert not [line for kind in KINDS for line in report[kind] if line["setting"].startswith("prefetch.")]
    imported = from_accelerate_config(src).answers
    assert not imported.is_set("prefetch.backward")  # an absent FSDP1 key of an FSDP2 file is no answer
    assert switch(imported, FSDP1).answers["prefetch.backward"] == "pre"


def test_an_fsdp1_prefetch_stated_on_fsdp2_is_another_meaning_on_fsdp1(tmp_path, capsys):
    """An FSDP2 config that states fsdp_backward_prefetch (which FSDP2 ignores) keeps it for FSDP1, and says that
    FSDP2 prefetched by itself: another meaning, not the same intent."""
    path = tmp_path / "fsdp2.yaml"
    path.write_text(yaml.safe_dump({"distributed_type": "FSDP", "num_processes": 2, "mixed_precision": "bf16",
                                    "fsdp_config": {"fsdp_version": 2, "fsdp_backward_prefetch": "NO_PREFETCH",
                                                    "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
                                                    "fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer"}}))
    cli = _convert_json(path, FSDP1, tmp_path / "out", capsys)
    meaning = {m["setting"]: m for m in cli["report"][OTHER]}
    assert meaning["prefetch.backward"]["after"] == "fsdp_backward_prefetch: NO_PREFETCH"
    assert "by themselves" in meaning["prefetch.backward"]["text"]
    assert "prefetch.backward" not in {c["setting"] for c in cli["report"][SAME]}
    start = from_accelerate_config(path)
    assert cli["report"] == json.loads(json.dumps(switch(start.answers, FSDP1, source_files=start.source_files(
        start.answers)).report.to_dict()))


def test_switching_back_restores_an_answer_the_other_target_has_no_place_for():
    answers = default_answers().replace({"backend": "fsdp", "fsdp_version": 1, "prefetch.backward": "post"})
    on_fsdp2 = switch(answers, FSDP2)
    assert [d.setting_id for d in on_fsdp2.report.dropped] == ["prefetch.backward"]
    assert on_fsdp2.answers["prefetch.backward"] == "pre"  # convert's answers describe the new config only
    back = switch(on_fsdp2.kept, FSDP1)  # the TUI keeps it
    assert back.answers["prefetch.backward"] == "post"
    assert render(back.answers).accelerate["fsdp_config"]["fsdp_backward_prefetch"] == "BACKWARD_POST"
    assert {m.setting_id for m in back.report.changed_meaning} == {"prefetch.backward"}


# ------------------------------------------------------------------------------------------------ the table
def _values(s) -> list:
    if s.kind == "bool":
        return [False, True]
    if s.choices:
        return list(s.choices)
    return [s.default]


def test_the_table_classifies_every_setting_a_switch_can_report():
    """Every setting the new target has a place for (on both targets, or on the new one only, kept from before),
    every value, whatever the converted value: one class. A new setting without a row fails here."""
    missing = []
    for s in SETTINGS:
        if s.group == "backend":
            continue
        for t0 in TARGETS:
            for t1 in TARGETS:
                if t0 == t1 or not s.applies_to(t1):
                    continue
                for value in _values(s):
                    for becomes in _values(s):
                        try:
                            kind, reasons = classify(s.id, value, t0, t1, becomes)
                        except LookupError:
                            missing.append(f"{s.id} = {value!r} {t0}->{t1} (converted {becomes!r})")
                            continue
                        assert kind in KINDS and all(reasons), (s.id, value, t0, t1)
    assert not missing, "classify these in wizard/core/texts/switching.py:\n" + "\n".join(missing)


def test_a_setting_the_new_target_has_no_place_for_has_no_counterpart():
    for s in SETTINGS:
        for t0 in TARGETS:
            for t1 in TARGETS:
                if s.group != "backend" and s.applies_to(t0) and not s.applies_to(t1):
                    kind, reasons = classify(s.id, s.default, t0, t1, s.default)
                    assert kind == NONE and reasons[0], (s.id, t0, t1)


def test_the_sharding_pairs_are_classified_once():
    def kind(value, t0, t1, becomes=None):
        return classify("sharding.strategy", value, t0, t1, value if becomes is None else becomes)[0]

    assert kind("full", DEEPSPEED, FSDP1) == kind("full", FSDP2, DEEPSPEED) == SAME  # ZeRO-3 / FULL_SHARD
    assert kind("grads_optimizer", DEEPSPEED, FSDP2) == SAME  # ZeRO-2 / SHARD_GRAD_OP
    assert kind("optimizer", DEEPSPEED, FSDP1, "grads_optimizer") == OTHER  # ZeRO-1 has no FSDP form
    assert kind("none", DEEPSPEED, FSDP1) == SAME and kind("none", DEEPSPEED, FSDP2, "grads_optimizer") == OTHER
    assert kind("hybrid_full", FSDP1, DEEPSPEED) == kind("hybrid_full", DEEPSPEED, FSDP2) == OTHER  # vs hpZ
    assert kind("hybrid_full", FSDP1, DEEPSPEED, "full") == SAME  # one machine: the plain strategy
    assert kind("hybrid_grads_optimizer", FSDP2, DEEPSPEED, "hybrid_grads_optimizer") == OTHER
    assert kind("hybrid_full", FSDP1, FSDP2) == SAME
    for sid in ("offload.optimizer", "offload.params"):
        assert classify(sid, "cpu", DEEPSPEED, FSDP2, "cpu")[0] == OTHER  # separate devices vs one switch
        assert classify(sid, "cpu", FSDP1, FSDP2, "cpu")[0] == SAME
    assert len(classify("offload.optimizer", "nvme", DEEPSPEED, FSDP1, "cpu")) == 2  # NVMe: a second reason


def test_every_row_is_well_formed():
    for sid, rows in COUNTERPARTS.items():
        for row in rows:
            assert row.kind in KINDS and row.text and row.before and row.after, (sid, row)
            assert set(row.before) <= set(TARGETS) and set(row.after) <= set(TARGETS), (sid, row)
            assert row.kind != OTHER or row.claims, f"{sid}: another meaning cites its claims"


# ------------------------------------------------------------------------------------------------ a suggestion applied
def _report(before, after):
    from wizard.core.answers.generate import generate
    from wizard.core.convert import switch_report

    g0, g1 = generate(before, None), generate(after, None)
    return switch_report(before, after, g0.rendered, g1.rendered, g0.findings, g1.findings)


def test_a_suggestion_that_changes_the_strategy_is_not_the_same_intent():
    """Applying a Memory-screen suggestion (FSDP2 full shard -> DeepSpeed ZeRO-1) listed full -> ZeRO-1 under "the
    same intent" while the toast said full -> optimizer; and a parameter offload ZeRO-1 does not run as carried."""
    before = from_preset("fsdp2-full-shard-bf16").answers.replace({"offload.params": "cpu", "offload.optimizer": "cpu",
                                                                   "checkpoint.format": "full"})
    after = before.replace({"backend": "deepspeed", "sharding.strategy": "optimizer"})
    rep = _report(before, after)
    same = {c.setting_id for c in rep.carried}
    other = {m.setting_id: m.text for m in rep.changed_meaning}
    assert "sharding.strategy" not in same
    assert other["sharding.strategy"].startswith("changed with the switch: full -> optimizer")
    assert "offload.params" not in same
    assert "only works at ZeRO-3" in other["offload.params"]
    # the full save has no place at ZeRO-1: not in effect there, kept in the answers (not "another meaning")
    dropped = {d.setting_id: d.reason for d in rep.dropped}
    assert "ZeRO-3 only" in dropped["checkpoint.format"] and "checkpoint.format" not in other
    # a plain switch keeps full as full: the same intent, as before
    plain = _report(before, before.replace({"backend": "deepspeed"}))
    assert "sharding.strategy" in {c.setting_id for c in plain.carried}
    # every line is under one heading
    for r in (rep, plain):
        carried, dropped = {c.setting_id for c in r.carried}, {d.setting_id for d in r.dropped}
        meaning = {m.setting_id for m in r.changed_meaning}
        assert not (carried & meaning) and not (carried & dropped) and not (meaning & dropped)


# ------------------------------------------------------------------------------------------------ ZeRO-3-only intents
_FSDP2_ZERO2_LIKE = {"distributed_type": "FSDP", "num_processes": 8, "mixed_precision": "bf16",
                     "fsdp_config": {"fsdp_version": 2, "fsdp_reshard_after_forward": False,
                                     "fsdp_cpu_ram_efficient_loading": True, "fsdp_sync_module_states": True,
                                     "fsdp_state_dict_type": "FULL_STATE_DICT",
                                     "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
                                     "fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer"}}


def test_a_round_trip_over_zero2_keeps_ram_efficient_loading_and_the_full_save(tmp_path):
    """The tester's case: FSDP2 with fsdp_reshard_after_forward false (ZeRO-2 on DeepSpeed) and ram-efficient
    loading; ctrl+t turned loading.ram_efficient false, said "the same intent" on the way back, and the FSDP2 config
    wrote fsdp_cpu_ram_efficient_loading: false. ZeRO-2 has no place for it (zero3_init_flag acts at ZeRO-3 only), nor
    for the full save: both are kept, not written, said so, and restored on the way back."""
    path = tmp_path / "fsdp2.yaml"
    path.write_text(yaml.safe_dump(_FSDP2_ZERO2_LIKE))
    start = from_accelerate_config(path)
    to_ds = switch(start.answers, DEEPSPEED, source_files=start.source_files(start.answers))
    zero = render(to_ds.kept).accelerate["deepspeed_config"]
    assert zero["zero_stage"] == 2 and zero["zero3_init_flag"] is False  # nothing accelerate would reset
    assert "zero3_save_16bit_model" not in zero
    assert to_ds.kept["loading.ram_efficient"] is True and to_ds.kept["checkpoint.format"] == "full"
    dropped = {d.setting_id: d for d in to_ds.report.dropped}
    assert "not in effect on DeepSpeed" in dropped["loading.ram_efficient"].reason
    assert "ZeRO-2 every rank loads the whole model" in dropped["loading.ram_efficient"].reason
    assert dropped["loading.ram_efficient"].after == "zero3_init_flag: false"
    assert "not in effect on DeepSpeed" in dropped["checkpoint.format"].reason
    assert not {"loading.ram_efficient", "checkpoint.format"} & {c.setting_id for c in to_ds.report.carried}
    assert not {"loading.ram_efficient", "checkpoint.format"} & {m.setting_id for m in to_ds.report.changed_meaning}

    to_fsdp1 = switch(to_ds.kept, FSDP1)
    fsdp1 = render(to_fsdp1.kept).accelerate["fsdp_config"]
    assert fsdp1["fsdp_cpu_ram_efficient_loading"] is True and fsdp1["fsdp_state_dict_type"] == "FULL_STATE_DICT"
    meaning = {m.setting_id: m.text for m in to_fsdp1.report.changed_meaning}
    assert "where it was not in effect" in meaning["loading.ram_efficient"]
    assert "where it was not in effect" in meaning["checkpoint.format"]

    back = switch(to_fsdp1.kept, FSDP2)
    fsdp2 = render(back.kept).accelerate["fsdp_config"]
    assert fsdp2["fsdp_cpu_ram_efficient_loading"] is True and fsdp2["fsdp_state_dict_type"] == "FULL_STATE_DICT"
    # straight back from ZeRO-2 too
    assert render(switch(to_ds.kept, FSDP2).kept).accelerate["fsdp_config"]["fsdp_cpu_ram_efficient_loading"] is True


def test_a_suggestion_to_zero1_keeps_ram_efficient_loading_for_the_switch_back():
    """Suggest's ZeRO-1 candidate (the source's answers with backend and strategy changed), then ctrl+t to FSDP1."""
    before = from_preset("fsdp2-full-shard-bf16").answers.replace({"loading.ram_efficient": True})
    after = before.replace({"backend": "deepspeed", "sharding.strategy": "optimizer"})
    dropped = {d.setting_id: d.reason for d in _report(before, after).dropped}
    assert "not in effect on DeepSpeed" in dropped["loading.ram_efficient"]
    fsdp1 = switch(after, FSDP1)
    assert render(fsdp1.kept).accelerate["fsdp_config"]["fsdp_cpu_ram_efficient_loading"] is True


def test_the_answers_a_suggestion_changed_are_listed_as_changed_by_it():
    """A Suggest candidate on another target (FSDP2 full shard -> DeepSpeed ZeRO-2 with optimizer offload) listed
    offload.optimizer "none" under "carried over with another meaning ... changed with the switch: none -> cpu",
    paired with fsdp_offload_params. What the suggestion changed goes under its own heading, with that setting's
    keys before and after; what it did not change is classified as before."""
    from wizard.core.answers.generate import generate
    from wizard.core.convert import switch_report

    before = from_preset("fsdp2-full-shard-bf16").answers
    after = before.replace({"backend": "deepspeed", "sharding.strategy": "grads_optimizer", "offload.optimizer": "cpu"})
    g0, g1 = generate(before, None), generate(after, None)
    rep = switch_report(before, after, g0.rendered, g1.rendered, g0.findings, g1.findings,
                        changed_by="the suggestion")
    changed = {m.setting_id: m for m in rep.changed}
    assert set(changed) == {"sharding.strategy", "offload.optimizer"}
    line = changed["offload.optimizer"]
    assert line.text == "changed by the suggestion: none -> cpu" and line.value == "cpu"
    assert line.before == "fsdp_offload_params: false (one key for offload.params and offload.optimizer)"
    assert line.after == "offload_optimizer_device: cpu"
    assert changed["sharding.strategy"].text == "changed by the suggestion: full -> grads_optimizer"
    others = {c.setting_id for c in rep.carried} | {m.setting_id for m in rep.changed_meaning}
    assert not others & set(changed) and not any("changed with the switch" in m.text for m in rep.changed_meaning)
    assert "offload.params" in {c.setting_id for c in rep.carried}  # unchanged: nothing offloaded on both
    assert rep.to_dict()["changed by the suggestion"][0]["setting"] == "sharding.strategy"
    # a switch has no such list: the CLI's JSON is as it was
    assert "changed by the suggestion" not in switch(before, DEEPSPEED).report.to_dict()
