"""The explanations of the group ``sync``: its settings (``TEXTS``) and its overview (``GROUP``)."""
from __future__ import annotations

from .model import GroupText, Text

TEXTS: dict[str, Text] = {
    "sync.module_states": Text(
        what="FSDP1 only. Broadcasts rank 0's parameters and buffers to every rank when the model is wrapped, "
             "so all ranks start identical. Required when only rank 0 loaded real weights (ram-efficient "
             "loading); otherwise a one-off broadcast that protects against ranks that initialised "
             "differently.",
        fsdp="FSDP1: fsdp_sync_module_states, launch default true. FSDP2 has no such key; with ram-efficient "
             "loading accelerate broadcasts rank 0's weights itself.",
        deepspeed="Nothing to set: the engine broadcasts rank 0's parameters at start, except for models built "
                  "under zero.Init, which are partitioned already.",
        versions="accelerate launch refuses false together with ram-efficient loading, for FSDP2 as well. With "
                 "false, loading a FULL_STATE_DICT checkpoint on other ranks raises.",
    ),
}

GROUP = GroupText(
        summary="All ranks must start from the same weights. FSDP1 broadcasts rank 0's weights when asked; "
                "FSDP2 and DeepSpeed take care of it themselves.",
        fsdp="v1: fsdp_sync_module_states\nv2: none (obsolete)",
        deepspeed="nothing to set (the engine broadcasts at start)",
        no_counterpart="FSDP1-only key. The launcher's check against ram-efficient loading still applies to "
                       "FSDP2.",
    )
