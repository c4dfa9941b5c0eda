"""The explanations of the group ``backend``: its settings (``TEXTS``) and its overview (``GROUP``)."""
from __future__ import annotations

from .model import GroupText, Text

TEXTS: dict[str, Text] = {
    "backend": Text(
        what="Chooses the engine that spreads training state over the GPUs: PyTorch FSDP, which ships "
             "inside torch, or DeepSpeed ZeRO, a separate library with its own engine, launcher and JSON "
             "config. With mixed precision and the same sharding level both need about the same memory "
             "and reach similar speed, so the deciding factors are features, not raw speed.",
        fsdp="Writes distributed_type: FSDP plus an fsdp_config section. Every FSDP option fits in the "
             "accelerate YAML. FSDP comes in two implementations with different key sets (see FSDP version).",
        deepspeed="Writes distributed_type: DEEPSPEED plus a deepspeed_config section. Only a few DeepSpeed "
                  "options can be set there; the rest go into a DeepSpeed JSON that the YAML points to "
                  "with deepspeed_config_file. One model per Accelerator: a prepare() call with two models "
                  "raises, and a second call gets its own engine that accelerator.backward() does not drive.",
        versions="accelerate 1.15 validates only top-level YAML keys. A DeepSpeed key placed under fsdp_config "
                 "(or the reverse) is dropped without a message, and distributed_type alone decides which "
                 "section is read.",
        tips="FSDP2 by default. DeepSpeed when you need ZeRO-1, NVMe offload, optimizer-only offload or an "
             "existing DeepSpeed JSON.",
        claims=("config-sections-unchecked", "ds-one-model-per-prepare", "launch-distributed-type-picks-section"),
    ),
    "fsdp_version": Text(
        what="FSDP1 is the FullyShardedDataParallel wrapper that packs each unit's parameters into one flat "
             "buffer. FSDP2 (fully_shard) shards every parameter on its own as a DTensor. FSDP2 has a lower, "
             "more predictable memory peak and handles LoRA-style frozen/trainable mixes and torch.compile "
             "without extra flags (FSDP1 needs use_orig_params for both). FSDP1 still offers NO_SHARD, "
             "prefetch switches and LOCAL_STATE_DICT.",
        fsdp="fsdp_config.fsdp_version: 1 or 2. The version changes which keys are read: v1 uses "
             "fsdp_sharding_strategy, prefetch, use_orig_params and sync_module_states; v2 uses a boolean "
             "fsdp_reshard_after_forward and activation-checkpoint offload and ignores the v1-only keys "
             "(a backward prefetch only gets a logged warning).",
        deepspeed="Not used. DeepSpeed has a single ZeRO implementation; the stage (0-3) is what you choose.",
        versions="FSDP2 needs torch >= 2.6. The defaults disagree: the accelerate config questionnaire "
                 "suggests 2, but accelerate launch and the plugin assume 1 when the key is missing, so the "
                 "wizard always writes it. The launcher does not check a YAML value; the FSDP plugin then "
                 "fails on anything other than 1 or 2 (how: claim fsdp-version-default-1-unchecked). Under "
                 "FSDP2, prepare() needs the model and its optimizer in the same call, and only one model. "
                 "`accelerate to-fsdp2` converts v1 YAMLs.",
        tips="2, unless you rely on a v1-only key.",
        claims=("fsdp1-flat-fsdp2-dtensor", "fsdp2-frees-without-record-stream", "dynamo-fsdp1-needs-orig-params",
                "fsdp2-ignores-v1-keys", "fsdp2-ignores-sync-module-states", "fsdp-state-dict-type-defaults",
                "fsdp2-needs-torch-2-6", "accelerate-config-fsdp-questions", "fsdp-version-default-1-unchecked",
                "fsdp2-prepare-model-with-optimizer"),
    ),
}

GROUP = GroupText(
        summary="Which engine shards the model. FSDP is part of torch and lives entirely in the accelerate YAML; "
                "DeepSpeed is its own engine whose full configuration is a JSON, with a small subset "
                "reachable from the YAML. FSDP has two implementations with different keys.",
        fsdp="distributed_type: FSDP\nfsdp_config.fsdp_version: 1 | 2",
        deepspeed="distributed_type: DEEPSPEED\ndeepspeed_config.* (inline keys)\n"
                  "deepspeed_config.deepspeed_config_file (JSON)",
        no_counterpart="The FSDP version has no DeepSpeed meaning. distributed_type decides which section is "
                       "read; the other one is ignored without a message.",
        claims=("fsdp-config-yaml-only", "ds-inline-unknown-dropped", "fsdp1-flat-fsdp2-dtensor",
                "launch-distributed-type-picks-section", "config-sections-unchecked"),
    )
