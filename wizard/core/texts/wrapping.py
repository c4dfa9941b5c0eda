"""The explanations of the group ``wrapping``: its settings (``TEXTS``) and its overview (``GROUP``)."""
from __future__ import annotations

from .model import GroupText, Text

TEXTS: dict[str, Text] = {
    "wrapping.policy": Text(
        what="FSDP only. Cuts the model into units; each unit is gathered, used and freed as a whole, so the "
             "unit size sets the memory peak and the size of each collective. transformer: one unit per "
             "block (the normal choice). size: a unit wherever a subtree reaches min_num_params. none: FSDP1 "
             "gathers the whole model as one unit; FSDP2 still splits off the embedding and the head.",
        fsdp="fsdp_auto_wrap_policy TRANSFORMER_BASED_WRAP / SIZE_BASED_WRAP / NO_WRAP, the same for v1 and v2. "
             "FSDP2 calls fully_shard on each matching module, bottom up, then on the root; accelerate 1.15 "
             "also gives the input embedding and the final norm with the output head their own units (one "
             "unit if tied), under every policy, NO_WRAP too. Missing key = NO_WRAP.",
        deepspeed="Nothing to choose: ZeRO-3 partitions every parameter and gathers per module through hooks. "
                  "Mixture-of-experts blocks may need the leaf-module setting.",
        versions="The concept guide calls the policy required; under accelerate it is optional, but leaving it "
                 "out means NO_WRAP.",
        tips="transformer.",
        claims=("fsdp-collectives-per-unit", "fsdp-wrap-policy-missing-is-no-wrap", "fsdp2-embedding-and-head-units",
                "fsdp-size-policy-counts", "ds-zero3-gathers-per-module", "ds-moe-leaf-modules"),
    ),
    "wrapping.layer_classes": Text(
        what="Class names of the blocks the transformer policy wraps, e.g. LlamaDecoderLayer. Empty means the "
             "model's own _no_split_modules list from Transformers. A name missing from the model stops "
             "prepare() with 'Could not find the transformer layer class'.",
        fsdp="fsdp_transformer_layer_cls_to_wrap, comma-separated, case-sensitive; read only with "
             "TRANSFORMER_BASED_WRAP. Same for v1 and v2.",
        deepspeed="Nothing to set; ZeRO-3 needs no block list.",
        versions="For a model without _no_split_modules an empty list wraps nothing below the root, silently. "
                 "Several classes: join them with commas.",
        claims=("fsdp-transformer-layer-classes", "ds-zero3-gathers-per-module"),
    ),
    "wrapping.min_num_params": Text(
        what="Threshold of the size policy: a subtree becomes its own unit once it holds this many parameters. "
             "Lower values give more, smaller units: lower peak memory, more collectives.",
        fsdp="fsdp_min_num_params, read only with SIZE_BASED_WRAP. FSDP1 wraps a module at >= the threshold, "
             "counting only parameters not already in a wrapped child; FSDP2 selects every module whose whole "
             "subtree holds > the threshold.",
        deepspeed="Nothing to set.",
        versions="Must be a plain integer in the YAML: YAML reads 1e8 as text and the start-up int() fails. 0 "
                 "switches wrapping off on both versions (no policy at all), and FSDP2 with activation "
                 "checkpointing then fails in prepare(). accelerate launch exports 100000000 even when the size "
                 "policy is not used.",
        claims=("fsdp-size-policy-counts", "fsdp-min-num-params-int", "fsdp-min-num-params-zero-no-policy",
                "fsdp2-ac-needs-wrap-policy", "fsdp-launch-exports-defaults"),
    ),
    "wrapping.ignored_modules": Text(
        what="Regular expression, matched against full module names, for modules FSDP must leave alone: not "
             "sharded, kept whole on every GPU, and their gradients are not averaged across ranks. Meant for "
             "frozen parts (a vision tower, say) or modules handled by other parallelism.",
        fsdp="fsdp_ignored_modules. FSDP1 receives the matching modules as ignored_modules, FSDP2 their "
             "parameters as ignored_params.",
        deepspeed="No regex. stage3_param_persistence_threshold keeps small parameters whole, but they stay "
                  "managed and their gradients are still reduced.",
        versions="FSDP2 needs torch >= 2.7; on older torch accelerate warns and drops it.",
        tips="Use for frozen modules only, unless you synchronise their gradients yourself.",
        claims=("fsdp-ignored-modules", "fsdp2-ignored-modules-needs-torch-2-7", "ds-zero3-persistence",
                "ds-persistent-params-still-reduced"),
    ),
    "wrapping.ds_moe_layer_classes": Text(
        what="Mixture-of-experts block classes that ZeRO-3 should treat as leaves: all their parameters are "
             "gathered together when the block runs instead of per sub-module. Needed when not every expert "
             "runs on every rank; otherwise ranks can wait on each other and hang.",
        fsdp="No setting. Wrap the expert block class with the transformer policy so each block is one unit.",
        deepspeed="deepspeed_config.deepspeed_moe_layer_cls_names, comma-separated. accelerate calls "
                  "deepspeed.utils.set_z3_leaf_modules on the matching classes at prepare().",
        versions="Needs DeepSpeed >= 0.14.0. A name that is no class of the model makes prepare() raise, at "
                 "every ZeRO stage; only ZeRO-3 uses the leaves.",
        claims=("ds-moe-leaf-modules", "ds-moe-leaf-avoids-hang", "fsdp-collectives-per-unit"),
    ),
}

GROUP = GroupText(
        summary="FSDP gathers and frees parameters per wrapped unit, so it must be told where the units are, "
                "usually one per transformer block. DeepSpeed ZeRO-3 partitions every parameter and hooks every "
                "module, so it needs no such choice.",
        fsdp="fsdp_auto_wrap_policy\nfsdp_transformer_layer_cls_to_wrap\nfsdp_min_num_params\n"
             "fsdp_ignored_modules",
        deepspeed="nothing to set\nMoE: deepspeed_moe_layer_cls_names",
        no_counterpart="The wrap policy has no DeepSpeed meaning. MoE leaf modules have no FSDP key (wrap the "
                       "expert block instead). ignored_modules has only a loose DeepSpeed analogue.",
        claims=("fsdp-collectives-per-unit", "ds-zero3-gathers-per-module", "ds-moe-leaf-modules",
                "ds-zero3-persistence"),
    )
