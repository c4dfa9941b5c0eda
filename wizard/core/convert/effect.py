"""The answers as their own target really runs them (:func:`in_effect`): the source of every conversion."""
from __future__ import annotations

from typing import Any

from ..answers import Answers
from ..answers.render import zero_stage
from ..catalog import DEEPSPEED, FSDP2, SETTING_BY_ID, SETTINGS, TARGET_LABELS
from ..findings import Finding
from ..wizard_rules import CONVERT_NOT_IN_EFFECT
from .common import Out, nonhybrid, show_value


def in_effect(a: Answers, *, quiet: bool = False) -> tuple[Answers, list[Finding]]:
    """The answers as their own target really runs them: values the backend does not apply (parameter offload below
    ZeRO-3, an optimizer offload at ZeRO-0, NVMe below ZeRO-3, zero3_init_flag below ZeRO-3 and off at ZeRO-3,
    torch.compile under DeepSpeed, hpZ on one machine, a wrap threshold or class list the wrap policy does not read)
    replaced by what runs, with one ``convert-not-in-effect`` finding per stated value (none when ``quiet``)."""
    out = Out(dict(a.values), set(a.explicit))
    t = a.target
    changes: list[tuple[str, str]] = []

    def becomes(sid: str, value: Any, why: str) -> None:
        if a[sid] == value:
            return
        if a.is_set(sid):
            changes.append((sid, f"{sid} = {show_value(a[sid])} {why}"))
        out.set(sid, value)

    if t == DEEPSPEED:
        stage = zero_stage(a)
        if stage < 3:
            becomes("offload.params", "none", f"(ZeRO-{stage} reads no parameter offload)")
        if stage == 0:
            becomes("offload.optimizer", "none", "(ZeRO-0 cannot offload: DeepSpeedCPUAdam asserts at start)")
        elif stage < 3 and a["offload.optimizer"] == "nvme":
            becomes("offload.optimizer", "cpu", f"(ZeRO-{stage} offloads to CPU whatever the device)")
        becomes("loading.ram_efficient", stage == 3, "(zero3_init_flag is off below ZeRO-3, and at ZeRO-3 false "
                "does not stop from_pretrained's zero.Init)")
        if stage < 3:
            becomes("checkpoint.format", SETTING_BY_ID["checkpoint.format"].default,
                    "(zero3_save_16bit_model is read at ZeRO-3 only)")
        if a["launch.dynamo_backend"] != "no":
            becomes("launch.dynamo_backend", "no", "(accelerate launch passes no dynamo_config to DeepSpeed runs)")
            for s in SETTINGS:
                if s.id.startswith("launch.dynamo_") and s.id != "launch.dynamo_backend":
                    becomes(s.id, s.default, "(no torch.compile from the config under DeepSpeed)")
        if a["sharding.strategy"].startswith("hybrid") and a["launch.num_machines"] == 1:
            becomes("sharding.strategy", nonhybrid(a["sharding.strategy"]),
                    "(the wizard writes hpZ for several machines only; hpZ's secondary partition on one machine "
                    "has no FSDP form)")
    else:
        if t == FSDP2 and a["checkpoint.format"] == "local":
            becomes("checkpoint.format", "sharded", "(FSDP2 has no LOCAL_STATE_DICT; the wizard writes SHARDED)")
        policy = a["wrapping.policy"]
        if policy != "size":
            becomes("wrapping.min_num_params", SETTING_BY_ID["wrapping.min_num_params"].default,
                    f"(read only by the size policy, not by {policy})")
        if policy != "transformer":
            becomes("wrapping.layer_classes", [], f"(read only by the transformer policy, not by {policy})")
    if changes and not quiet:
        out.emit(CONVERT_NOT_IN_EFFECT, tuple(sid for sid, _ in changes),
                 f"the original {TARGET_LABELS[t]} config states values it did not apply: "
                 + "; ".join(text for _, text in changes) + ". Converted as the backend applied them")
    return out.answers(), out.findings
