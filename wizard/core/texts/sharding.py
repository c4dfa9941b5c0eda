"""The explanations of the group ``sharding``: its settings (``TEXTS``) and its overview (``GROUP``)."""
from __future__ import annotations

from .model import GroupText, Text

TEXTS: dict[str, Text] = {
    "sharding.strategy": Text(
        what="Decides which training state each GPU keeps only a slice of. For Adam with mixed precision "
             "(P params, N ranks) the per-GPU model state is about: none 16P; optimizer 4P + 12P/N; "
             "grads_optimizer 2P + 14P/N; full 16P/N. More sharding means more all-gathers. Hybrid variants "
             "shard inside each node and replicate across nodes, keeping the heavy traffic on fast links.",
        fsdp="FSDP1: fsdp_sharding_strategy FULL_SHARD (full), SHARD_GRAD_OP (grads_optimizer), NO_SHARD, "
             "HYBRID_SHARD, HYBRID_SHARD_ZERO2. 'optimizer' has no FSDP twin; the wizard writes the ZeRO-2 form. "
             "FSDP2: fsdp_reshard_after_forward true (full; for the blocks only, see claim "
             "fsdp2-accelerate-keeps-root-and-tail-gathered) or false (parameters stay gathered from forward "
             "to backward); hybrid through parallelism_config dp_replicate_size (nodes) x dp_shard_size (GPUs "
             "per node); 'none' cannot be expressed (nearest: false).",
        deepspeed="zero_stage inline, zero_optimization.stage in a JSON: 3 full, 2 grads_optimizer, 1 optimizer, "
                  "0 none. hybrid_full becomes ZeRO-3 with zero_hpz_partition_size = GPUs per node (ZeRO++ "
                  "hpZ): a node-local copy of the parameter shards keeps backward all-gathers inside the node, "
                  "while gradients and optimizer state stay sharded over all ranks. hybrid_grads_optimizer has "
                  "no twin and becomes plain ZeRO-2.",
        versions="FSDP1 reads only fsdp_sharding_strategy under accelerate launch. accelerate config stores the "
                 "v1 answer under fsdp_reshard_after_forward, which launch ignores for v1, so any v1 choice "
                 "silently runs as FULL_SHARD; the wizard writes the name under fsdp_sharding_strategy. The "
                 "guide's sample value '1' is the numeric code for FULL_SHARD (ZeRO-3 level), not ZeRO-1; "
                 "write names. FSDP2 ignores fsdp_sharding_strategy and needs a bool. FSDP1 hybrid groups by "
                 "the GPUs visible per node, so on one node it equals FULL_SHARD. A missing inline zero_stage "
                 "means 2, but a JSON without zero_optimization.stage runs ZeRO-0.",
        tips="full for models that do not fit otherwise; grads_optimizer when they do, for fewer all-gathers.",
        claims=("ds-zero-stages-partition", "ds-module-cast-fp32-master", "fsdp1-reads-sharding-strategy-only",
                "fsdp-reshard-after-forward", "fsdp2-accelerate-keeps-root-and-tail-gathered",
                "fsdp2-hybrid-from-parallelism-config", "ds-hpz-secondary-partition",
                "accelerate-config-fsdp-questions", "fsdp2-ignores-v1-keys", "fsdp1-hybrid-groups-by-visible-devices",
                "ds-missing-stage-defaults"),
    ),
}

GROUP = GroupText(
        summary="What each GPU stores only a slice of. The ladder: nothing (plain data parallel), optimizer "
                "state (ZeRO-1), plus gradients (ZeRO-2, SHARD_GRAD_OP, FSDP2 reshard false), plus parameters "
                "(ZeRO-3, FULL_SHARD, FSDP2 reshard true). Each rung saves memory and adds communication; "
                "hybrid forms shard inside a node and replicate across nodes.",
        fsdp="v1: fsdp_sharding_strategy (FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD, "
             "HYBRID_SHARD_ZERO2)\nv2: fsdp_reshard_after_forward true | false\n"
             "v2 hybrid: parallelism_config_dp_replicate_size x parallelism_config_dp_shard_size",
        deepspeed="zero_stage (inline) / zero_optimization.stage 0-3\n"
                  "hybrid: zero_optimization.zero_hpz_partition_size (ZeRO++, stage 3)",
        no_counterpart="ZeRO-1 has no FSDP twin (nearest: SHARD_GRAD_OP / reshard false, which also shard the "
                       "gradients and, between steps, the parameters). HYBRID_SHARD_ZERO2 has no DeepSpeed twin. "
                       "NO_SHARD does not exist in FSDP2. hpZ only approximates HYBRID_SHARD: gradients and "
                       "optimizer state stay sharded over all ranks.",
        claims=("ds-zero-stages-partition", "fsdp-reshard-after-forward", "fsdp1-reads-sharding-strategy-only",
                "fsdp2-hybrid-from-parallelism-config", "ds-hpz-secondary-partition", "fsdp2-ignores-v1-keys"),
    )
