"""Claims about the DeepSpeed engine options of the ``deepspeed`` group (bucket sizes, overlap, the JSON file and
the extra blocks), and the FSDP facts they are compared with (see :mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

_T = "tests/claims/test_ds_options.py::"

OVERLAP_DEFAULT = claim(
    "ds-overlap-comm-default",
    "Left unset, DeepSpeed turns overlap_comm on at ZeRO-3 and off at stages 0 to 2.",
    doc="ds-zero-options", code="deepspeed/runtime/zero/config.py:138,383-387",
    demo=_T + "test_overlap_comm_defaults_by_stage",
    scope=("zero-0", "zero-1", "zero-2", "zero-3"))
CONTIGUOUS_DEFAULT = claim(
    "ds-contiguous-gradients-default",
    "DeepSpeed's contiguous_gradients is on unless the JSON turns it off.",
    doc="ds-zero-options", code="deepspeed/runtime/zero/config.py:102",
    demo=_T + "test_zero_option_defaults",
    scope=("contiguous-default-on", "contiguous-json-off"))
BUCKET_DEFAULTS = claim(
    "ds-bucket-defaults",
    "DeepSpeed's defaults: reduce_bucket_size and allgather_bucket_size 500,000,000 elements, sub_group_size "
    "1,000,000,000.",
    doc="ds-zero-options", code="deepspeed/runtime/zero/config.py:113,132,182",
    demo=_T + "test_zero_option_defaults",
    scope=("reduce-bucket-size", "allgather-bucket-size", "sub-group-size"))
AUTO_FROM_HIDDEN_SIZE = claim(
    "ds-auto-buckets-from-hidden-size",
    "accelerate fills an \"auto\" reduce_bucket_size with hidden_size squared (stage3_prefetch_bucket_size with "
    "0.9 times that, stage3_param_persistence_threshold with 10 x hidden_size) from model.config at prepare(), and "
    "raises when the model has no config with a hidden size.",
    doc="ds-auto-values", code="accelerate/accelerator.py:2295-2327",
    demo=_T + "test_auto_buckets_come_from_the_models_hidden_size",
    scope=("reduce-bucket-size", "prefetch-bucket-size", "persistence-threshold", "no-config-raises",
           "no-hidden-size-raises"))
ALLGATHER_STAGE12 = claim(
    "ds-allgather-bucket-zero12-only",
    "allgather_bucket_size is handed only to the ZeRO-1/2 (and bf16) optimizers; ZeRO-3 gathers with its own "
    "prefetch bucket and never reads it.",
    doc="ds-zero-options", code="deepspeed/runtime/engine.py:1609-1610,2625,2655-2682,2709-2780",
    why_not_demo="a value that is not read has no effect to observe; where it is passed is in the engine code",
    scope=("zero-1", "zero-2", "bf16-optimizer", "zero-3"))
SUB_GROUP_ZERO3 = claim(
    "ds-sub-group-size-zero3",
    "sub_group_size groups the parameters of ZeRO-3's optimizer step (and its offload buffers); the ZeRO-1/2 "
    "optimizer does not take it.",
    doc="ds-zero-options", code="deepspeed/runtime/engine.py:1581-1582,2655-2700,2775; "
    "deepspeed/runtime/zero/stage3.py:188,433",
    why_not_demo="the group size shapes memory peaks of the optimizer step, which a CPU test cannot measure "
    "reliably; where it is passed is in the engine code",
    scope=("zero-3", "zero-1", "zero-2"))
JSON_OWNS_KEYS = claim(
    "ds-json-owns-its-keys",
    "Next to a deepspeed_config_file, accelerate raises when the YAML also sets gradient_accumulation_steps, "
    "gradient_clipping, zero_stage, the offload devices or NVMe paths, zero3_save_16bit_model or mixed_precision; "
    "zero3_init_flag and the MoE and multi-node keys are allowed.",
    doc="ds-config-file",
    code="accelerate/utils/dataclasses.py:1279,1507-1532; accelerate/commands/launch.py:1393-1397",
    demo=_T + "test_yaml_keys_next_to_a_json_file_raise",
    scope=("accumulation", "clipping", "stage", "optimizer-device", "param-device", "optimizer-nvme-path",
           "param-nvme-path", "save-16bit", "mixed-precision", "init-flag-allowed", "moe-allowed", "launcher-allowed",
           "hostfile-allowed"))
INLINE_UNKNOWN_DROPPED = claim(
    "ds-inline-unknown-dropped",
    "accelerate launch exports only a fixed list of deepspeed_config keys to the training processes; any other "
    "inline key (train_micro_batch_size_per_gpu, say) is dropped without a message.",
    doc="ds-inline-config", code="accelerate/utils/launch.py:565-586; accelerate/commands/launch.py:1262-1283",
    demo=_T + "test_unknown_inline_keys_never_reach_the_processes",
    scope=("train_micro_batch_size_per_gpu", "overlap_comm"))
SECTIONS_FORBID_EXTRA = claim(
    "ds-sections-forbid-unknown-keys",
    "DeepSpeed's nested sections such as zero_optimization refuse unknown keys (\"Extra inputs are not "
    "permitted\"): a typo fails the run.",
    doc="ds-json-validation", code="deepspeed/runtime/config_utils.py:105-113",
    demo=_T + "test_unknown_keys_in_zero_optimization_raise",
    scope=("zero_optimization", "offload_optimizer", "fp16"))
REMOVED_BLOCKS = claim(
    "ds-removed-blocks-raise",
    "DeepSpeed 0.19 raises for blocks of removed features (amp, sparse_attention, elasticity and others) instead "
    "of ignoring them.",
    doc="ds-removed-features", code="deepspeed/runtime/config.py:80-141,454",
    demo=_T + "test_blocks_of_removed_features_raise",
    scope=("amp", "sparse_attention", "elasticity"))
OPTIMIZER_TWICE = claim(
    "ds-optimizer-json-and-script",
    "Accelerator.prepare() raises ValueError ('You cannot specify an optimizer in the config file and in the code "
    "at the same time') when a call gets a torch optimizer while the DeepSpeed config has an optimizer block, and "
    "the same for a torch LR scheduler and a scheduler block; building the Accelerator does not check it, prepare() "
    "does, for the objects passed to it. With such a block the script passes accelerate's DummyOptim (and "
    "DummyScheduler) instead.",
    doc="ds-optimizer-and-scheduler", code="accelerate/accelerator.py:2240-2287",
    demo=_T + "test_an_optimizer_in_the_json_and_in_the_script_raises",
    scope=("optimizer", "scheduler", "checked-in-prepare"))
FSDP_UNIT_COLLECTIVES = claim(
    "fsdp-collectives-per-unit",
    "FSDP has no bucket sizes: it all-gathers and reduce-scatters one wrapped unit's parameters per collective, so "
    "the wrapping decides the size.",
    doc="fsdp-auto-wrap-policy", code="torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py:170,372-420; "
    "torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py:325,522; torch/distributed/fsdp/_flat_param.py:202,644",
    demo=_T + "test_fsdp1_keeps_one_flat_parameter_and_gradient_per_unit",
    scope=("fsdp1-unit-collective", "fsdp2-unit-collective"))
FSDP_OWN_STREAMS = claim(
    "fsdp-overlaps-on-its-own-streams",
    "FSDP overlaps its reduce-scatters and all-gathers with compute on separate GPU streams by itself; there is "
    "no switch for it.",
    doc="fsdp-prefetch", code="torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py:85-92; "
    "torch/distributed/fsdp/_runtime_utils.py:263-266",
    why_not_demo="streams exist only on a GPU; on CPU the collectives run in order",
    scope=("fsdp1", "fsdp2"))
FSDP1_FLAT_GRADS = claim(
    "fsdp1-flat-gradients",
    "FSDP1 keeps each unit's gradients in one flat buffer (the FlatParameter's grad); FSDP2 keeps one sharded "
    "gradient per parameter.",
    doc="fsdp-auto-wrap-policy", code="torch/distributed/fsdp/_flat_param.py:202,644,1561-1580; "
    "torch/distributed/fsdp/_fully_shard/_fsdp_param.py:770",
    demo=_T + "test_fsdp1_keeps_one_flat_parameter_and_gradient_per_unit",
    scope=("fsdp1-flat-gradient", "fsdp2-per-parameter-gradient"))
AUTO_FIXED_LIST = claim(
    "ds-auto-outside-the-list-raises",
    "In an own Accelerator loop, accelerate fills only its fixed list of \"auto\" values; any other \"auto\" left "
    "in the JSON (optimizer betas or eps, say) makes prepare() raise \"not found in kwargs\".",
    doc="ds-auto-values", code="accelerate/utils/dataclasses.py:1357-1372; accelerate/accelerator.py:2179-2355",
    demo=_T + "test_an_auto_value_accelerate_does_not_fill_raises",
    scope=("betas", "eps", "listed-value-filled"))
OWN_LOOP_FILLS = claim(
    "ds-own-loop-fills-auto",
    "In an own Accelerator loop prepare() fills these DeepSpeed \"auto\" values: the micro-batch (from the "
    "DataLoader) and train_batch_size, gradient_accumulation_steps, gradient_clipping (1.0), the fp16/bf16 switches "
    "(from mixed_precision), the optimizer's lr and weight_decay (from DummyOptim), the scheduler's warmup_min_lr, "
    "warmup_max_lr, warmup_num_steps and total_num_steps (from DummyScheduler), and from the plugin the ZeRO stage, "
    "the offload devices, the NVMe paths and the 16-bit gather on save; with the model's hidden size also the "
    "buckets (ds-auto-buckets-from-hidden-size).",
    doc="ds-auto-values", code="accelerate/utils/dataclasses.py:1290-1372; accelerate/accelerator.py:2179-2355",
    demo=_T + "test_an_own_loop_fills_each_listed_auto_value",
    scope=("own-loop",))
TRAINER_FILLS_MORE = claim(
    "trainer-fills-more-auto",
    "The HF Trainer fills more \"auto\" values from TrainingArguments before accelerate sees the JSON (the "
    "optimizer's betas and eps among them).",
    doc="ds-auto-values", code="transformers/integrations/deepspeed.py:136-262",
    demo=_T + "test_the_trainer_fills_the_optimizer_eps",
    scope=("betas", "eps"))
FSDP_YAML_ONLY = claim(
    "fsdp-config-yaml-only",
    "FSDP has no config file of its own: accelerate launch turns the fsdp_config keys into FSDP_* environment "
    "variables, and the plugin reads only those.",
    doc="fsdp-key-mapping", code="accelerate/utils/launch.py:304-333; accelerate/utils/dataclasses.py:1880-1990",
    why_not_demo="the absence of a file option is read from the launcher and plugin code; the mapping itself is "
    "replayed by `--verify` (tests/verify)",
    scope=("fsdp1", "fsdp2"))
