"""The answers as their own target really runs them (:func:`in_effect`): the source of every conversion."""
from __future__ import annotations

from typing import Any

from ..answers import Answers
from ..catalog import DEEPSPEED, SETTING_BY_ID, SETTINGS, TARGET_LABELS
from ..findings import Finding
from ..i18n import said
from ..wizard_rules import CONVERT_NOT_IN_EFFECT
from .common import Out, nonhybrid, show_value


def not_in_effect(a: Answers) -> dict[str, tuple[Any, str]]:
    """Setting id -> (the value that runs, why, in parentheses) for every answer its own target does not run as
    answered, stated or not: the changes :func:`in_effect` makes."""
    return _runs(a)


def unplaced(a: Answers) -> dict[str, tuple[Any, str]]:
    """Setting id -> (the value that runs, why) for the settings the answers' target has keys for but their ZeRO
    stage has no place for: DeepSpeed below ZeRO-3 has no sharded loading (zero3_init_flag) and no full save
    (zero3_save_16bit_model). An answer there is an intent kept for a target that has a place for it: a switch keeps
    it (:attr:`~.switcher.Switch.kept`), the config does not write it, and switching back restores it."""
    if a.target != DEEPSPEED:
        return {}
    from ..answers.of_answers import of_answers

    stage = of_answers(a).get("runs.zero_stage", 0)
    if stage >= 3:
        return {}
    return {"loading.ram_efficient": (False, said(f"zero3_init_flag acts at ZeRO-3 only, so at ZeRO-{stage} every "
                                                  "rank loads the whole model (zero3_init_flag: false is written)")),
            "checkpoint.format": (SETTING_BY_ID["checkpoint.format"].default,
                                  said(f"the full save (zero3_save_16bit_model) is read at ZeRO-3 only: ZeRO-{stage} "
                                       "checkpoints hold the whole weights once and per-rank optimizer state"))}


def keep_unplaced(source: Answers, answers: Answers) -> Answers:
    """``answers`` (for another target) holding, as stated answers, the source's answers as it ran them that the
    answers' ZeRO stage has no place for (:func:`unplaced`), where they differ from what runs there: kept, not
    written, so that a switch back restores them."""
    there = unplaced(answers)
    if not there:
        return answers
    ran, _ = in_effect(source, quiet=True)
    keep = {sid: ran[sid] for sid, (runs, _why) in there.items() if ran[sid] != runs}
    return answers.replace(keep) if keep else answers


def in_effect(a: Answers, *, quiet: bool = False, keep_intents: bool = True) -> tuple[Answers, list[Finding]]:
    """The answers as their own target really runs them, read from the effective model of the files they render to
    (:func:`wizard.core.answers.of_answers.of_answers`): values the backend does not apply (parameter offload below
    ZeRO-3, an optimizer offload at ZeRO-0, NVMe below ZeRO-3, zero3_init_flag below ZeRO-3 and off at ZeRO-3,
    torch.compile under DeepSpeed, hpZ on one machine, a checkpoint format or wrap argument the backend does not read)
    replaced by what runs, with one ``convert-not-in-effect`` finding per stated value (none when ``quiet``).
    ``keep_intents``: a stated answer the ZeRO stage has no place for (:func:`unplaced`: ram-efficient loading or
    the full save below ZeRO-3) is an intent kept for another target, left as stated; False: replaced by what runs
    too (the round trip compares what runs)."""
    out = Out(dict(a.values), set(a.explicit))
    kept = unplaced(a) if keep_intents else {}
    runs = {sid: change for sid, change in _runs(a).items() if not (sid in kept and sid in a.explicit)}
    changes = [(sid, f"{sid} = {show_value(a[sid])} {why}") for sid, (value, why) in runs.items() if a.is_set(sid)]
    for sid, (value, _why) in runs.items():
        out.set(sid, value)
    if changes and not quiet:
        out.emit(CONVERT_NOT_IN_EFFECT, tuple(sid for sid, _ in changes),
                 f"the original {TARGET_LABELS[a.target]} config states values it did not apply: "
                 + "; ".join(text for _, text in changes) + ". Converted as the backend applied them")
    return out.answers(), out.findings


def _runs(a: Answers) -> dict[str, tuple[Any, str]]:
    """Every change, in order: setting id -> (the value that runs, why)."""
    from ..answers.of_answers import of_answers

    e = of_answers(a)
    t = a.target
    found: dict[str, tuple[Any, str]] = {}

    def becomes(sid: str, value: Any, why: str) -> None:
        if a[sid] != value:
            found[sid] = (value, why)

    def default(sid: str) -> Any:
        return SETTING_BY_ID[sid].default

    if t == DEEPSPEED:
        stage = e.get("runs.zero_stage", 0)
        becomes("offload.params", e.get("runs.offload_param", "none"),
                f"(ZeRO-{stage} reads no parameter offload)" if stage < 3 else "(not what ZeRO-3 runs)")
        becomes("offload.optimizer", e.get("runs.offload_optimizer", "none"),
                "(ZeRO-0 cannot offload: DeepSpeedCPUAdam asserts at start)" if stage == 0
                else f"(ZeRO-{stage} offloads to CPU whatever the device)")
        becomes("loading.ram_efficient", bool(e.get("runs.zero_init")), "(zero3_init_flag is off below ZeRO-3, and at "
                "ZeRO-3 false does not stop from_pretrained's zero.Init)")
        if stage < 3:  # the 16-bit gather on save is a ZeRO-3 key
            becomes("checkpoint.format", default("checkpoint.format"),
                    "(zero3_save_16bit_model is read at ZeRO-3 only)")
        if str(e.get("dynamo_backend", "NO")).upper() == "NO" and a["launch.dynamo_backend"] != "no":
            becomes("launch.dynamo_backend", "no", "(accelerate launch passes no dynamo_config to DeepSpeed runs)")
            for s in SETTINGS:
                if s.id.startswith("launch.dynamo_") and s.id != "launch.dynamo_backend":
                    becomes(s.id, s.default, "(no torch.compile from the config under DeepSpeed)")
        if a["sharding.strategy"].startswith("hybrid") and (e.get("runs.hpz_partition_size") or 1) <= 1:
            becomes("sharding.strategy", nonhybrid(a["sharding.strategy"]),
                    "(the wizard writes hpZ for several machines only; hpZ's secondary partition on one machine "
                    "has no FSDP form)" if a["launch.num_machines"] == 1 else
                    f"(hpZ is a ZeRO-3 feature: ZeRO-{stage} runs without a secondary partition)")
    else:
        runs = {v: k for k, v in _STATE_DICT.items()}.get(str(e.get("fsdp.state_dict_type")))
        if runs is not None and _STATE_DICT.get(a["checkpoint.format"]) != e.get("fsdp.state_dict_type"):
            becomes("checkpoint.format", runs, f"({TARGET_LABELS[t]} runs {e.get('fsdp.state_dict_type')}: it has no "
                    "LOCAL_STATE_DICT)")
        policy = a["wrapping.policy"]
        if e.get("fsdp.min_num_params") is None:
            becomes("wrapping.min_num_params", default("wrapping.min_num_params"),
                    f"(read only by the size policy, not by {policy})")
        if e.get("fsdp.transformer_cls_names_to_wrap") is None and policy != "transformer":
            becomes("wrapping.layer_classes", [], f"(read only by the transformer policy, not by {policy})")
    return found


_STATE_DICT = {"full": "FULL_STATE_DICT", "sharded": "SHARDED_STATE_DICT", "local": "LOCAL_STATE_DICT"}
"""The checkpoint formats as FSDP's StateDictType names them (the effective model's ``fsdp.state_dict_type``)."""
