"""The explanations of the group ``prefetch``: its settings (``TEXTS``) and its overview (``GROUP``)."""
from __future__ import annotations

from .model import GroupText, Text

TEXTS: dict[str, Text] = {
    "prefetch.backward": Text(
        what="FSDP1 only. Sets when the next unit's all-gather starts during backward. pre: before the current "
             "gradients are computed; most overlap, one extra gathered unit in memory. post: after them; less "
             "overlap, less memory. none: no overlap; slowest.",
        fsdp="FSDP1: fsdp_backward_prefetch BACKWARD_PRE / BACKWARD_POST / NO_PREFETCH. If the key is missing "
             "accelerate passes None, which means no prefetch, although torch's own default is BACKWARD_PRE; "
             "the wizard always writes it. FSDP2: no key; fully_shard overlaps the next unit's all-gather by "
             "itself (finer control only in code).",
        deepspeed="No such key. ZeRO-3 fetches ahead on its own along the module order recorded in the first "
                  "step, limited by stage3_prefetch_bucket_size. ZeRO-0/1/2 keep whole parameters on every GPU, "
                  "so there is nothing to fetch ahead.",
        versions="FSDP2: accelerate warns and drops the value. Configs still using the old name "
                 "fsdp_backward_prefetch_policy get no prefetch setting at all. The concept guide lists this "
                 "as an FSDP-wide option; it is FSDP1-only.",
        tips="pre when memory allows, post when it is tight.",
        claims=("fsdp1-prefetch-modes", "fsdp1-backward-prefetch-missing-is-none", "fsdp2-drops-prefetch-keys",
                "fsdp-backward-prefetch-old-name-ignored", "fsdp-overlaps-on-its-own-streams",
                "fsdp2-prefetch-control-code-only", "ds-zero3-prefetch-after-trace", "ds-zero3-gathers-per-module"),
    ),
    "prefetch.forward": Text(
        what="FSDP1 only. Starts the next unit's all-gather before the current forward finishes. Helps when "
             "the CPU cannot issue work fast enough; costs memory for one more gathered unit. Assumes the "
             "modules run in the same order every step.",
        fsdp="FSDP1: fsdp_forward_prefetch. FSDP2: not implemented. Set in code the plugin raises; from a YAML "
             "accelerate launch drops it without a word. FSDP2 already overlaps forward all-gathers.",
        deepspeed="No such key: ZeRO-3 prefetches in forward and backward by itself.",
        claims=("fsdp1-prefetch-modes", "fsdp2-drops-prefetch-keys", "fsdp-overlaps-on-its-own-streams",
                "ds-zero3-prefetch-after-trace"),
    ),
    "prefetch.ds_bucket_size": Text(
        what="ZeRO-3 only. The most parameter elements DeepSpeed fetches ahead of use. Bigger hides more "
             "all-gather latency and reserves more GPU memory. DeepSpeed's default is 50,000,000; 'auto' lets "
             "accelerate use 0.9 x hidden_size squared.",
        fsdp="No such knob. FSDP1 prefetches one whole unit (the prefetch switches); FSDP2 one unit by itself. "
             "The wrapping policy sets the unit size.",
        deepspeed="zero_optimization.stage3_prefetch_bucket_size in the DeepSpeed JSON. Not written below ZeRO-3.",
        versions="'auto' is filled only when the prepared model has config.hidden_size (or hidden_sizes); "
                 "otherwise accelerate raises. The concept guide ties DeepSpeed prefetch to the persistence and "
                 "reuse knobs; this bucket size is the one that bounds it.",
        claims=("ds-zero3-prefetch-after-trace", "ds-zero3-prefetch-defaults", "ds-auto-buckets-from-hidden-size",
                "fsdp1-prefetch-modes", "fsdp-overlaps-on-its-own-streams", "fsdp-collectives-per-unit"),
    ),
    "prefetch.ds_param_persistence_threshold": Text(
        what="ZeRO-3 only. Parameters of at most this many elements stay whole on every GPU once gathered "
             "(their optimizer state stays partitioned), which saves many tiny all-gathers (biases, norms) for a "
             "little memory. DeepSpeed's default is 100,000; 'auto' = 10 x hidden_size.",
        fsdp="No twin: FSDP shards everything inside a unit. fsdp_ignored_modules keeps whole modules out of "
             "FSDP, but their gradients are then not averaged across ranks, unlike these parameters.",
        deepspeed="zero_optimization.stage3_param_persistence_threshold in the DeepSpeed JSON.",
        versions="'auto' needs model.config hidden size at prepare(). 0 partitions every parameter.",
        claims=("ds-zero3-persistence", "ds-zero3-prefetch-defaults", "ds-auto-buckets-from-hidden-size",
                "fsdp-ignored-modules", "ds-persistent-params-still-reduced"),
    ),
    "prefetch.ds_model_persistence_threshold": Text(
        what="ZeRO-3 only. A budget, in parameter elements summed over the whole model, for the small parameters "
             "the persistence threshold keeps whole on every GPU: one that no longer fits is partitioned like the "
             "rest (a later, smaller one may still fit). It bounds the GPU memory persistent parameters take. "
             "DeepSpeed's default is no budget (sys.maxsize).",
        fsdp="No twin: FSDP keeps no parameters unsharded, so there is nothing to budget.",
        deepspeed="zero_optimization.stage3_model_persistence_threshold in the DeepSpeed JSON.",
        versions="Read when ZeRO-3 marks persistent parameters (deepspeed/runtime/zero/parameter_offload.py:317-335); "
                 "zero.Init (loading.ram_efficient) divides the budget by the number of ranks "
                 "(partition_parameters.py:1198). 0 keeps no parameter whole.",
        claims=("ds-zero3-persistence", "ds-zero3-prefetch-defaults", "ds-zero-init-divides-persistence-budget"),
    ),
    "prefetch.ds_max_live_parameters": Text(
        what="ZeRO-3 only. Caps the gathered (full) parameter elements the prefetcher may hold ahead of use: "
             "once that many are live, it fetches nothing more ahead. What the current module needs is gathered "
             "anyway, and nothing is released because of the cap (release follows module completion and the "
             "reuse distance). Lower saves memory and hides less all-gather time. Default 1,000,000,000.",
        fsdp="No knob. FSDP frees gathered parameters unit by unit, so the wrapping policy bounds how much is "
             "gathered.",
        deepspeed="zero_optimization.stage3_max_live_parameters in the DeepSpeed JSON; accelerate has no 'auto' "
                  "for it.",
        claims=("ds-max-live-parameters-caps-prefetch",),
    ),
    "prefetch.ds_max_reuse_distance": Text(
        what="ZeRO-3 only. A parameter needed again within this many parameter elements of the recorded order "
             "is kept gathered rather than released and fetched again. Higher values trade memory for fewer "
             "all-gathers, e.g. when activation checkpointing re-runs forward. Default 1,000,000,000.",
        fsdp="Closest idea: FSDP2 reshard_after_forward: false or FSDP1 SHARD_GRAD_OP keep parameters gathered "
             "from forward to backward, for every unit and regardless of distance.",
        deepspeed="zero_optimization.stage3_max_reuse_distance in the DeepSpeed JSON.",
        versions="accelerate does not fill this one automatically; only the bucket sizes and the persistence "
                 "threshold have an 'auto' fill.",
        claims=("ds-zero3-reuse-distance-keeps-gathered", "ds-zero3-prefetch-defaults",
                "ds-auto-buckets-from-hidden-size", "ds-auto-outside-the-list-raises"),
    ),
}

GROUP = GroupText(
        summary="Fetching the next parameters while the current ones compute hides communication and costs "
                "memory. FSDP1 has two switches; FSDP2 prefetches by itself with no knob; DeepSpeed ZeRO-3 "
                "prefetches by itself within size and distance budgets.",
        fsdp="v1: fsdp_backward_prefetch, fsdp_forward_prefetch\nv2: none",
        deepspeed="stage3_prefetch_bucket_size\nstage3_param_persistence_threshold\nstage3_model_persistence_threshold\n"
                  "stage3_max_live_parameters, stage3_max_reuse_distance\n(JSON, ZeRO-3 only)",
        no_counterpart="FSDP2 has no prefetch knobs. DeepSpeed has no on/off switch, only ZeRO-3 budgets; "
                       "stages 0-2 keep whole parameters, so nothing is fetched ahead.",
        claims=("fsdp1-prefetch-modes", "fsdp2-drops-prefetch-keys", "fsdp2-prefetch-control-code-only",
                "fsdp-overlaps-on-its-own-streams", "ds-zero3-prefetch-after-trace",
                "ds-zero3-reuse-distance-keeps-gathered", "ds-zero3-gathers-per-module"),
    )
