"""The explanations of the group ``sync``: its settings (``TEXTS``) and its overview (``GROUP``)."""
from __future__ import annotations

from .model import GroupText, Text

TEXTS: dict[str, Text] = {
    "sync.module_states": Text(
        what="FSDP1 only. Broadcasts rank 0's parameters and buffers to every rank when the model is wrapped, "
             "so all ranks start identical. Required when only rank 0 loaded real weights (ram-efficient "
             "loading); otherwise a one-off broadcast that protects against ranks that initialised "
             "differently.",
        fsdp="FSDP1: fsdp_sync_module_states, launch default true; without it each rank keeps its own values. "
             "FSDP2 has no such key and fully_shard never broadcasts: each rank's shard comes from its own "
             "weights. accelerate broadcasts rank 0's weights only with ram-efficient loading; otherwise load or "
             "seed identical weights on every rank.",
        deepspeed="Nothing to set: the engine broadcasts rank 0's parameters (not buffers) when it is created, "
                  "except for a ZeRO-3 model built under zero.Init, which is partitioned already.",
        versions="accelerate launch refuses false together with ram-efficient loading, for FSDP2 as well.",
        claims=("fsdp1-sync-module-states-broadcasts", "fsdp-launch-exports-defaults",
                "fsdp2-ignores-sync-module-states", "fsdp2-no-broadcast-unless-ram-efficient",
                "ds-engine-broadcasts-params", "fsdp-launch-ram-efficient-needs-sync"),
    ),
}

GROUP = GroupText(
        summary="All ranks must start from the same weights. FSDP1 broadcasts rank 0's weights when asked and "
                "the DeepSpeed engine does when it starts (a ZeRO-3 model created under zero.Init is partitioned "
                "already); FSDP2 broadcasts only with ram-efficient loading, otherwise "
                "every rank must load or seed the same weights.",
        fsdp="v1: fsdp_sync_module_states\nv2: none (broadcast only with ram-efficient loading)",
        deepspeed="nothing to set (the engine broadcasts parameters at start)",
        no_counterpart="FSDP1-only key. The launcher's check against ram-efficient loading still applies to "
                       "FSDP2.",
        claims=("fsdp1-sync-module-states-broadcasts", "fsdp2-no-broadcast-unless-ram-efficient",
                "ds-engine-broadcasts-params", "fsdp-launch-ram-efficient-needs-sync"),
    )
