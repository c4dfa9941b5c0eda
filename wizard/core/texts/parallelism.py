"""The explanations of the group ``parallelism``: its settings (``TEXTS``) and its overview (``GROUP``).

Each fact is stated once (tests/unit/test_claims.py): what all dimensions share (the exchanges inside every layer,
the mesh order, which backend takes which size, when the launcher exports the details) is the overview's; each
setting's text says what is its own and points to the overview for the rest."""
from __future__ import annotations

from .model import GroupText, Text

TEXTS: dict[str, Text] = {
    "parallelism.dp_replicate_size": Text(
        what="With hybrid sharding, how many full copies of the sharded model train side by side: FSDP2 shards "
             "within each copy and replicates across them, so gradients are averaged over every copy while a "
             "parameter gather stays inside one. Empty: one copy per machine. A size on one machine replicates "
             "inside it (for example 2 copies of 4 GPUs on 8 GPUs).",
        fsdp="FSDP2: parallelism_config_dp_replicate_size, written with sharding.strategy hybrid_*; "
             "dp_shard_size becomes processes / (dp_replicate x tp x cp). FSDP1's HYBRID_SHARD takes no size: it "
             "shards within the GPUs of each machine.",
        deepspeed="No mesh: hybrid ZeRO-3 is hpZ (zero_hpz_partition_size, written per machine with hybrid_full), "
                  "a secondary copy of the parameter shards inside each machine; the optimizer state stays "
                  "partitioned over every GPU.",
        tips="A copy must fit in its GPUs' memory: fewer, larger copies need less memory per GPU; more copies keep "
             "the parameter gathers on fewer, closer GPUs.",
        claims=("fsdp2-hybrid-from-parallelism-config", "ds-hpz-secondary-partition"),
    ),
    "parallelism.tp_size": Text(
        what="Tensor parallelism splits each layer's weights over tp ranks: the query, key and value projections "
             "by output rows, so every rank must hold whole attention heads. FSDP then shards what is left over "
             "the dp_shard ranks: the wizard writes dp_shard_size = processes / (dp_replicate x tp x cp). What it "
             "exchanges and where its group belongs: see the group overview.",
        fsdp="FSDP2: parallelism_config_tp_size. The model is loaded with transformers' tensor-parallel plan "
             "(from_pretrained(..., tp_plan=\"auto\") or device_mesh=); a model type without a plan is refused, "
             "and a tp that does not divide the attention heads and the key-value heads fails at the first "
             "forward (check --model tests both).",
        deepspeed="Not this key: see the group overview. DeepSpeed's tensor parallelism is AutoTP "
                  "(parallelism.ds_autotp_size).",
        versions="accelerate 1.15 prepares an FSDP2 + TP model with transformers' ReplicateParallel, which "
                 "transformers has only from 4.52 to 5.0: with 5.1 or later (5.24 here) prepare() stops with an "
                 "ImportError, and check reports it (parallelism-fsdp2-tp-transformers).",
        tips="Keep tp x cp a divisor of the GPUs per machine.",
        claims=("tp-whole-heads-per-rank", "tp-needs-model-plan", "accelerate-fsdp2-tp-needs-replicate-parallel"),
    ),
    "parallelism.cp_size": Text(
        what="Context parallelism splits each sequence over cp ranks, so the activations of long sequences are "
             "divided; FSDP shards over dp_shard x cp. What it exchanges and where its group belongs: see the "
             "group overview.",
        fsdp="FSDP2: parallelism_config_cp_size. accelerate refuses models with sliding or chunked attention "
             "(ValueError at prepare()), and drops the attention_mask of every attention layer: padding and "
             "packed-document boundaries are not masked.",
        deepspeed="Not this key: see the group overview. DeepSpeed splits sequences with Ulysses "
                  "(parallelism.sp_size), another mechanism: cp does not carry over.",
        tips="For sequences whose activations do not fit even with activation checkpointing. A CPU rehearsal "
             "cannot run it (torch's ring attention has no CPU kernel) and runs without it, saying so.",
        claims=("accelerate-cp-refuses-windowed-attention", "accelerate-cp-drops-attention-mask",
                "torch-cp-no-cpu-attention"),
    ),
    "parallelism.cp_comm_strategy": Text(
        what="Which collective carries the context-parallel exchange of keys and values described in the group "
             "overview: allgather (the default) or alltoall.",
        fsdp="FSDP2: parallelism_config_cp_comm_strategy, written only with cp_size above 1, where accelerate "
             "config asks it too.",
        deepspeed="No such setting: DeepSpeed has no context parallelism (Ulysses: parallelism.sp_size).",
        claims=("accelerate-config-fsdp-questions",),
    ),
    "parallelism.sp_size": Text(
        what="Ulysses sequence parallelism (ALST) splits each sequence over sp ranks outside attention and, "
             "inside it, gives each rank whole heads of the full sequence (the exchange: see the group "
             "overview). sp must divide the attention heads, and the key-value heads and sp must divide one "
             "another; otherwise prepare() raises ValueError.",
        fsdp="No sequence parallelism under FSDP: see the group overview. FSDP2 splits sequences with context "
             "parallelism (parallelism.cp_size), another mechanism: sp does not carry over.",
        deepspeed="parallelism_config_sp_size with parallelism_config_sp_backend deepspeed (accelerate needs "
                  "deepspeed>=0.18.2 for it).",
        versions="accelerate config does not ask for it; the wizard writes it into the YAML.",
        claims=("ds-ulysses-heads-divide",),
    ),
    "parallelism.sp_seq_length": Text(
        what="The length of every batch when batches all have one length (sp_seq_length_is_variable false).",
        fsdp="Not applicable (a Ulysses detail).",
        deepspeed="parallelism_config_sp_seq_length, written with a fixed length only; a fixed length without it "
                  "makes prepare() raise ValueError, a variable length needs none.",
        claims=("ds-sp-fixed-length-needs-seq-length",),
    ),
    "parallelism.sp_seq_length_is_variable": Text(
        what="Whether batches vary in length (the default, true) or all have sp_seq_length.",
        fsdp="Not applicable (a Ulysses detail).",
        deepspeed="parallelism_config_sp_seq_length_is_variable, written as a YAML bool: false there reaches "
                  "accelerate as false.",
        versions="On the command line the flag --parallelism_config_sp_seq_length_is_variable is type=bool: any "
                 "text, 'False' included, turns it on. Keep it in the YAML.",
        claims=("launch-sp-variable-flag-type-bool",),
    ),
    "parallelism.sp_attn_implementation": Text(
        what="The attention kernel Ulysses runs on each rank's heads: sdpa (the default), flash_attention_2 or "
             "flash_attention_3; eager and flex_attention are refused. Load the model with the same attention.",
        fsdp="Not applicable (a Ulysses detail).",
        deepspeed="parallelism_config_sp_attn_implementation. accelerate also takes a hub flash-attention kernel "
                  "name; write that in the YAML by hand (check accepts it).",
        claims=("ds-sp-attn-implementation-values",),
    ),
    "parallelism.ds_autotp_size": Text(
        what="DeepSpeed's AutoTP: the engine shards the model's linear layers over this many ranks by itself "
             "(the exchange it brings: see the group overview).",
        fsdp="Not applicable: FSDP2's tensor parallelism is transformers' plan over the mesh "
             "(parallelism.tp_size).",
        deepspeed="tensor_parallel.autotp_size in the DeepSpeed JSON (absent or 0: off). accelerate 1.15 reads it: "
                  "it builds a tp mesh of that size at prepare() and gathers the tp shards when saving.",
        claims=("ds-autotp-size-from-json",),
    ),
    "parallelism.ds_quantized_weights": Text(
        what="ZeRO++ qwZ: ZeRO-3 all-gathers the parameters quantized, less traffic for some precision in the "
             "gathered weights. Off by default.",
        fsdp="No quantized collectives in FSDP.",
        deepspeed="zero_optimization.zero_quantized_weights in the DeepSpeed JSON; only the ZeRO-3 optimizer "
                  "takes it, so the wizard writes it at ZeRO-3 only. With qgZ and hpZ (hybrid_full) it makes up "
                  "ZeRO++.",
        claims=("ds-zeropp-quantized-weights-zero3",),
    ),
    "parallelism.ds_quantized_gradients": Text(
        what="ZeRO++ qgZ: ZeRO-3 reduces gradients with a quantized all-to-all, less traffic for some "
             "precision in the reduced gradients. Off by default.",
        fsdp="No quantized collectives in FSDP.",
        deepspeed="zero_optimization.zero_quantized_gradients in the DeepSpeed JSON; only the ZeRO-3 optimizer "
                  "gets its all-to-all group, so the wizard writes it at ZeRO-3 only.",
        claims=("ds-zeropp-quantized-gradients-zero3",),
    ),
}

GROUP = GroupText(
    summary="Dimensions beyond sharding, each splitting something else: tensor parallelism (tp) each layer's "
            "weights, context parallelism (cp) and Ulysses sequence parallelism (sp) each sequence. All three "
            "exchange activations inside every layer, forward and backward (tp sums partial outputs, cp passes "
            "keys and values, Ulysses runs an all-to-all before and after attention), while the data-parallel "
            "dimensions exchange parameters and gradients. accelerate orders the mesh dp_replicate, dp_shard, cp, "
            "sp, tp with tp varying fastest: a tp group is consecutive ranks, so it stays inside a machine when tp "
            "divides the GPUs per machine, and replication (hybrid sharding) is outermost, across machines.",
    fsdp="FSDP2: parallelism_config_tp_size, _cp_size, _cp_comm_strategy (written only with cp above 1); "
         "dp_replicate_size from hybrid sharding (one replica per machine, or the size given), dp_shard_size "
         "derived. The sizes multiply to the processes.\n"
         "FSDP1: none (parallelism_config above 1 needs FSDP2; the Accelerator raises).",
    deepspeed="parallelism_config_sp_size, _sp_backend, _sp_seq_length, _sp_seq_length_is_variable, "
              "_sp_attn_implementation (Ulysses; the details written only with sp above 1; exempt from the "
              "product rule)\ntensor_parallel.autotp_size (AutoTP, JSON)\n"
              "zero_optimization.zero_quantized_weights / _gradients (ZeRO++, JSON)\n"
              "dp_replicate, cp and tp sizes are accepted but unused: the engine trains data parallel.",
    no_counterpart="FSDP2 tp -> DeepSpeed AutoTP: another sharding of the layers, chosen again. cp and Ulysses "
                   "sp both split sequences, by different exchanges: neither carries over, and they cannot both "
                   "be above 1. ZeRO++ quantization has no FSDP twin. FSDP1 has none of these.",
    claims=("parallelism-exchanges-per-layer", "accelerate-mesh-rank-order", "parallelism-config-needs-fsdp2",
            "ds-parallelism-sizes-unused", "parallelism-config-total-is-num-processes",
            "launch-other-sections-per-distributed-type", "parallelism-config-checks"),
)
