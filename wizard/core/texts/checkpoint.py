"""The explanations of the group ``checkpoint``: its settings (``TEXTS``) and its overview (``GROUP``)."""
from __future__ import annotations

from .model import GroupText, Text

TEXTS: dict[str, Text] = {
    "checkpoint.format": Text(
        what="How weights and optimizer state are saved. sharded: every rank writes its own piece; fast and "
             "light on memory, but needs a merge step before from_pretrained can read it. full: gather into "
             "one rank's CPU memory and write an ordinary state dict; slow and RAM-hungry for large models. "
             "local (FSDP1): raw per-rank shards, reloadable only with the same ranks and wrapping.",
        fsdp="fsdp_state_dict_type, for save_state: SHARDED_STATE_DICT (a torch.distributed.checkpoint folder; "
             "merge with accelerate merge-weights), FULL_STATE_DICT (rank 0, staged on CPU) or LOCAL_STATE_DICT "
             "(v1 only). Plugin default: FULL for v1, SHARDED for v2. accelerator.save_model and get_state_dict "
             "always gather a full state dict, whatever the type; the Trainer's save_model writes weights only "
             "with FULL_STATE_DICT, so under SHARDED (FSDP2's default) it writes none: save with accelerate or "
             "merge the checkpoint. Mixed precision saves the upcast (trainable) parameters in fp32 and frozen "
             "ones in their load dtype (claim fsdp-saved-weights-fp32).",
        deepspeed="The engine saves its own checkpoint, its files set by the ZeRO stage (which ones: claim "
                  "ds-zero12-checkpoint-weights-whole). Where it writes per-rank optimizer files (ZeRO-1 and up) "
                  "it copies zero_to_fp32.py beside them, which rebuilds fp32 weights offline; a ZeRO-0 "
                  "checkpoint has neither. 'full' sets zero3_save_16bit_model "
                  "(stage3_gather_16bit_weights_on_model_save) so that save_model and get_state_dict can gather "
                  "16-bit weights at ZeRO-3. Below ZeRO-3 the weights are not partitioned and the flag changes "
                  "nothing.",
        versions="FSDP2 rejects LOCAL_STATE_DICT; the wizard writes SHARDED instead. At ZeRO-3 without the "
                 "16-bit gather, accelerator.get_state_dict and save_model raise and Trainer falls back to the "
                 "sharded checkpoint, so plan on zero_to_fp32.py. zero_to_fp32.py cannot read a ZeRO-0 checkpoint: "
                 "take the weights from its model-states file.",
        tips="sharded during training; produce one full copy at the end.",
        claims=("fsdp-get-state-dict-full", "fsdp-state-dict-type-defaults", "fsdp-saved-weights-fp32",
                "trainer-fsdp-save-model-full-only",
                "ds-zero12-checkpoint-weights-whole", "ds-zero3-state-dict-needs-16bit-gather"),
    ),
}

GROUP = GroupText(
        summary="Saving per-rank pieces is fast and needs a later merge; gathering one full copy is slow and "
                "needs RAM on one rank. FSDP picks the format with one key; DeepSpeed's files follow the ZeRO "
                "stage, and it can additionally gather 16-bit weights at ZeRO-3.",
        fsdp="fsdp_state_dict_type: SHARDED_STATE_DICT | FULL_STATE_DICT | LOCAL_STATE_DICT (v1)\n"
             "merge: accelerate merge-weights",
        deepspeed="zero3_save_16bit_model / zero_optimization.stage3_gather_16bit_weights_on_model_save\n"
                  "merge: zero_to_fp32.py (saved with each checkpoint from ZeRO-1 on)",
        no_counterpart="LOCAL_STATE_DICT (FSDP1) has no DeepSpeed twin. The 16-bit gather matters at ZeRO-3 "
                       "only. With mixed precision FSDP saves its upcast (trainable) parameters in fp32, DeepSpeed "
                       "16-bit weights plus the fp32 masters (per-rank shards from ZeRO-1 on).",
        claims=("fsdp-state-dict-type-defaults", "fsdp-merge-weights-full-file", "ds-zero12-checkpoint-weights-whole",
                "ds-zero3-state-dict-needs-16bit-gather", "ds-checkpoint-16bit-weights-fp32-master-script",
                "fsdp-saved-weights-fp32"),
    )
