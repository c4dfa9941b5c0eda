"""Claims about prefetching, wrapping and parameter summoning: FSDP1's prefetch switches, ZeRO-3's prefetch,
persistence, reuse and leaf modules, the wrap policies and ignored modules, use_orig_params (see
:mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

_T = "tests/claims/test_prefetch.py::"

# ------------------------------------------------------------------------------------------------ FSDP prefetch
BACKWARD_MISSING_NONE = claim(
    "fsdp1-backward-prefetch-missing-is-none",
    "accelerate reads fsdp_backward_prefetch as BACKWARD_PRE, BACKWARD_POST or NO_PREFETCH; a missing key or "
    "NO_PREFETCH hands FSDP1 None, which means no backward prefetch, although torch's own default is BACKWARD_PRE.",
    doc="fsdp-prefetch",
    code="accelerate/utils/dataclasses.py:1892-1902; accelerate/accelerator.py:1952; "
         "torch/distributed/fsdp/fully_sharded_data_parallel.py:404",
    demo=_T + "test_backward_prefetch_values_and_fsdp2",
    scope=("missing", "backward-pre", "backward-post", "no-prefetch", "torch-default"))
FSDP2_DROPS_PREFETCH = claim(
    "fsdp2-drops-prefetch-keys",
    "The FSDP2 plugin drops backward_prefetch with a warning; forward_prefetch given in Python raises, while "
    "FSDP_FORWARD_PREFETCH from the launcher is not read at all.",
    doc="fsdp-prefetch", code="accelerate/utils/dataclasses.py:1903-1905, 1953-1956",
    demo=_T + "test_backward_prefetch_values_and_fsdp2",
    scope=("fsdp2-backward-dropped", "fsdp2-forward-env-unread", "fsdp2-forward-python-raises"))
OLD_NAME = claim(
    "fsdp-backward-prefetch-old-name-ignored",
    "accelerate launch exports only fsdp_backward_prefetch; the old key fsdp_backward_prefetch_policy is not read, "
    "so such a config gets no backward prefetch.",
    doc="fsdp-key-mapping", code="accelerate/utils/launch.py:322-323",
    demo=_T + "test_launch_reads_neither_the_old_prefetch_name_nor_leaves_use_orig_params_off",
    scope=("old-name", "new-name"))
FSDP1_MODES = claim(
    "fsdp1-prefetch-modes",
    "FSDP1 prefetches one unit ahead: BACKWARD_PRE issues the next unit's all-gather before the current unit's "
    "gradients are computed, BACKWARD_POST after them, and forward_prefetch issues the next forward all-gather "
    "before the current forward runs, in the order recorded in the first iteration.",
    doc="fsdp-prefetch",
    code="torch/distributed/fsdp/_runtime_utils.py:580, 693, 807, 1208-1290; "
         "torch/distributed/fsdp/fully_sharded_data_parallel.py:476-477",
    why_not_demo="the point is overlap with compute on CUDA streams and the memory it costs; on CPU the collectives "
                 "run in order and there is nothing to measure",
    scope=("backward-pre", "backward-post", "forward-prefetch"))
FSDP2_CODE_ONLY = claim(
    "fsdp2-prefetch-control-code-only",
    "FSDP2's only prefetch controls are FSDPModule.set_modules_to_forward_prefetch and "
    "set_modules_to_backward_prefetch, called in code; accelerate has no option for them and never calls them.",
    doc="fsdp-prefetch", code="torch/distributed/fsdp/_fully_shard/_fully_shard.py:513-550",
    demo=_T + "test_fsdp2_prefetch_is_controlled_only_in_code",
    scope=("torch-methods", "accelerate-never-calls"))

# ------------------------------------------------------------------------------------------------ ZeRO-3
ZERO3_DEFAULTS = claim(
    "ds-zero3-prefetch-defaults",
    "DeepSpeed's defaults: stage3_prefetch_bucket_size 50,000,000, stage3_param_persistence_threshold 100,000, "
    "stage3_model_persistence_threshold sys.maxsize (no budget), stage3_max_live_parameters and "
    "stage3_max_reuse_distance 1,000,000,000.",
    doc="ds-stage3-prefetch-limits", code="deepspeed/runtime/zero/config.py:222-251",
    demo=_T + "test_zero3_defaults",
    scope=("prefetch-bucket-size", "param-persistence-threshold", "model-persistence-threshold",
           "max-live-parameters", "max-reuse-distance"))
ZERO3_GATHERS = claim(
    "ds-zero3-gathers-per-module",
    "At ZeRO-1/2 the module keeps whole parameters on every rank; at ZeRO-3 every parameter is emptied to its "
    "partition and gathered by hooks just before the module using it runs. The engine keeps the module's own "
    "Parameter objects in both cases.",
    doc="ds-stage3-prefetch-limits",
    code="deepspeed/runtime/zero/parameter_offload.py:300-315; "
         "deepspeed/runtime/zero/partitioned_param_coordinator.py:353-384",
    demo=_T + "test_zero3_gathers_per_module_zero2_keeps_whole_parameters",
    scope=("zero-1", "zero-2", "zero-3"))
ZERO3_PREFETCH = claim(
    "ds-zero3-prefetch-after-trace",
    "ZeRO-3 prefetches only once it has recorded a step's module order; from then on it gathers the parameters of "
    "upcoming modules ahead of use, up to stage3_prefetch_bucket_size elements at a time (0 switches it off).",
    doc="ds-stage3-prefetch-limits", code="deepspeed/runtime/zero/partitioned_param_coordinator.py:420-484",
    demo=_T + "test_zero3_prefetches_after_the_first_step_within_the_bucket",
    scope=("first-step", "after-trace", "bucket-0"))
PERSISTENCE = claim(
    "ds-zero3-persistence",
    "At ZeRO-3 a parameter of at most stage3_param_persistence_threshold elements is persistent: once gathered it "
    "stays whole on every rank. stage3_model_persistence_threshold caps the summed elements of persistent "
    "parameters: one that no longer fits is partitioned like the rest (a later, smaller one may still fit), and 0 "
    "for either threshold makes none persistent.",
    doc="ds-stage3-persistence",
    code="deepspeed/runtime/zero/parameter_offload.py:317-335; "
         "deepspeed/runtime/zero/partitioned_param_coordinator.py:565, 624-640",
    demo=_T + "test_zero3_persistence_thresholds",
    scope=("within-threshold", "model-budget-cap", "param-threshold-0", "model-budget-0"))
INIT_DIVIDES = claim(
    "ds-zero-init-divides-persistence-budget",
    "Under zero.Init (a Transformers model loaded partitioned) the model persistence budget is divided by the number "
    "of ranks.",
    doc="ds-stage3-persistence", code="deepspeed/runtime/zero/partition_parameters.py:1196-1198, 1292",
    why_not_demo="on one rank the division is by 1; two DeepSpeed ranks on CPU first JIT-build the shm comm op "
                 "(60-100 s)",
    scope=("zero-init",))
PERSISTENT_MANAGED = claim(
    "ds-persistent-params-still-reduced",
    "Persistent parameters keep their ZeRO-3 partition and optimizer state, and their gradients are reduced across "
    "ranks like every other parameter's.",
    doc="ds-stage3-persistence",
    code="deepspeed/runtime/zero/parameter_offload.py:317-335; deepspeed/runtime/zero/stage3.py:1487-1530, 1648-1700",
    why_not_demo="a reduction is only visible with two ranks, and two DeepSpeed ranks on CPU first JIT-build the "
                 "shm comm op (60-100 s)",
    scope=("partition-kept", "optimizer-state", "gradients-reduced"))
REUSE = claim(
    "ds-zero3-reuse-distance-keeps-gathered",
    "Once the order is recorded, ZeRO-3 keeps a module's parameters gathered when the order needs them again within "
    "stage3_max_reuse_distance elements, instead of releasing and gathering them again; with 0 they are released "
    "after every use.",
    doc="ds-stage3-prefetch-limits", code="deepspeed/runtime/zero/partitioned_param_coordinator.py:642-670",
    demo=_T + "test_zero3_reuse_distance",
    scope=("within-distance", "distance-0"))
MOE_LEAF = claim(
    "ds-moe-leaf-modules",
    "accelerate marks the classes named in deepspeed_moe_layer_cls_names as ZeRO-3 leaf modules at prepare(), at "
    "every ZeRO stage, and raises when a name is not a class in the model; ZeRO-3 then gathers all of a leaf's "
    "parameters when it starts instead of per sub-module.",
    doc="ds-moe-leaf-modules",
    code="accelerate/accelerator.py:2293-2294; accelerate/utils/dataclasses.py:1534-1552; "
         "deepspeed/runtime/zero/partitioned_param_coordinator.py:363",
    demo=_T + "test_moe_leaf_modules",
    scope=("marked-leaf", "gathered-whole", "unknown-name-raises", "every-stage"))
MOE_HANG = claim(
    "ds-moe-leaf-avoids-hang",
    "Without leaf modules ZeRO-3 gathers each expert when it runs, so ranks whose tokens reach different experts "
    "issue different all-gathers and can wait on each other forever.",
    doc="ds-moe-leaf-modules", code="deepspeed/utils/z3_leaf_module.py:1-60; accelerate/utils/dataclasses.py:1534-1552",
    why_not_demo="needs several ranks whose routing differs; a hang cannot be a passing test",
    scope=("without-leaf-modules",))

# ------------------------------------------------------------------------------------------------ wrapping
NO_WRAP_DEFAULT = claim(
    "fsdp-wrap-policy-missing-is-no-wrap",
    "Without fsdp_auto_wrap_policy the plugin uses NO_WRAP: there is no policy, and FSDP1 makes the whole model one "
    "unit.",
    doc="fsdp-auto-wrap-policy", code="accelerate/utils/dataclasses.py:1909-1915, 2075-2107",
    demo=_T + "test_layer_classes_and_the_missing_policy",
    scope=("no-policy", "fsdp1-one-unit"))
FSDP2_EDGE_UNITS = claim(
    "fsdp2-embedding-and-head-units",
    "accelerate 1.15's FSDP2 prepare calls fully_shard on the policy's modules bottom up, then gives the input "
    "embedding its own unit and the final norm with the output head one more (all three in one when the embeddings "
    "are tied), whatever the policy, NO_WRAP included, and the root last.",
    doc="fsdp-auto-wrap-policy", code="accelerate/utils/fsdp_utils.py:733-748, 850-885",
    demo=_T + "test_fsdp2_units_of_a_transformers_model",
    scope=("no-wrap", "transformer-policy", "tied-embeddings", "order"))
LAYER_CLASSES = claim(
    "fsdp-transformer-layer-classes",
    "fsdp_transformer_layer_cls_to_wrap is read only under TRANSFORMER_BASED_WRAP, as comma-separated exact class "
    "names; empty falls back to the model's _no_split_modules (a plain nn.Module has none: nothing below the root is "
    "wrapped), and a name that is no class of the model raises 'Could not find the transformer layer class'.",
    doc="fsdp-auto-wrap-policy",
    code="accelerate/utils/dataclasses.py:1916-1926, 2075-2101; accelerate/utils/fsdp_utils.py:938-960",
    demo=_T + "test_layer_classes_and_the_missing_policy",
    scope=("comma-separated", "other-policies-unread", "unknown-name-raises", "no-split-modules", "plain-module"))
IGNORED = claim(
    "fsdp-ignored-modules",
    "fsdp_ignored_modules is a regular expression matched against whole module names; FSDP1 gets the matching "
    "modules as ignored_modules, FSDP2 their parameters as ignored_params. Their parameters stay whole on every "
    "rank and their gradients are not averaged across ranks.",
    doc="fsdp-ignored-modules",
    code="accelerate/accelerator.py:1956-1969; accelerate/utils/fsdp_utils.py:783-786, 1015-1030",
    demo=_T + "test_ignored_modules_stay_whole_and_unreduced", scope=("fsdp1", "fsdp2"))
IGNORED_TORCH = claim(
    "fsdp2-ignored-modules-needs-torch-2-7",
    "On torch older than 2.7 the FSDP2 plugin warns and drops ignored_modules.",
    doc="fsdp-ignored-modules", code="accelerate/utils/dataclasses.py:2020-2025",
    why_not_demo="the installed torch is 2.13; the branch is read from the plugin code",
    scope=("torch-below-2-7",))

# ------------------------------------------------------------------------------------------------ summoning
ORIG_PARAMS = claim(
    "fsdp1-use-orig-params",
    "With use_orig_params false FSDP1 shows named_parameters() and the optimizer one flat parameter per unit and "
    "refuses a unit that mixes frozen and trainable parameters ('Must flatten tensors with uniform requires_grad'); "
    "with true it shows the original parameters.",
    doc="fsdp1-use-orig-params",
    code="torch/distributed/fsdp/_flat_param.py:202, 644, 806-826",
    demo=_T + "test_use_orig_params_flat_or_original", scope=("orig-params-false", "orig-params-true"))
DYNAMO_ORIG = claim(
    "fsdp1-dynamo-needs-orig-params",
    "torch.compile traces FSDP1 modules only with use_orig_params on; otherwise Dynamo breaks the graph there (the "
    "module runs eagerly) or fails under fullgraph.",
    doc="fsdp1-torch-compile", code="torch/_dynamo/variables/builder.py:2475-2487",
    why_not_demo="read from Dynamo's FSDP branch; compiling an FSDP1 model on CPU needs a working inductor "
                 "toolchain that the claim tests do not assume",
    scope=("graph-break", "fullgraph"))
LAUNCH_ORIG = claim(
    "fsdp-launch-use-orig-params-true",
    "accelerate launch exports FSDP_USE_ORIG_PARAMS=true when the YAML omits fsdp_use_orig_params (the plugin's own "
    "default is false).",
    doc="fsdp-key-mapping", code="accelerate/commands/launch.py:577-583; accelerate/utils/launch.py:324",
    demo=_T + "test_launch_reads_neither_the_old_prefetch_name_nor_leaves_use_orig_params_off",
    scope=("use-orig-params-omitted", "plugin-default"))
