"""Claims stated by the DeepSpeed JSON rules of wizard/core/lint/dsjson.py (keys and value types, "auto" values,
batch sizes) that no other area states (see :mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

_T = "tests/claims/test_rules_dsjson.py::"

ZERO_BLOCK_REQUIRED = claim(
    "ds-plugin-needs-zero-optimization",
    "accelerate's DeepSpeed plugin refuses a DeepSpeed config without a zero_optimization block ('Please specify "
    "the ZeRO optimization config').",
    doc="ds-config-file", code="accelerate/utils/dataclasses.py:1268-1277",
    demo=_T + "test_a_json_without_zero_optimization_is_refused",
    scope=("without-block", "with-block"))
REMOVED_ZERO_KEYS = claim(
    "ds-removed-zero-keys-raise",
    "DeepSpeed 0.19 also refuses zero_optimization keys of removed features (mics_shard_size, "
    "mics_hierarchical_params_gather, zeropp_loco_param) instead of ignoring them.",
    doc="ds-removed-features", code="deepspeed/runtime/config.py:123-141,454",
    demo=_T + "test_zero_keys_of_removed_features_raise",
    scope=("mics_shard_size", "mics_hierarchical_params_gather", "zeropp_loco_param"))
ACCELERATE_KEYS_UNUSED = claim(
    "ds-json-accelerate-keys-unused",
    "A DeepSpeed JSON that also carries accelerate config keys (num_processes, num_machines, as some projects ship "
    "them) is accepted as it is by DeepSpeed, by accelerate's DeepSpeed plugin and by the HF Trainer's DeepSpeed "
    "config; none of them reads those keys, so they change nothing.",
    doc="ds-json-validation", code="deepspeed/runtime/config.py:436-592; accelerate/utils/dataclasses.py:1264-1277; "
    "transformers/integrations/deepspeed.py:85-170",
    demo=_T + "test_accelerate_keys_in_a_deepspeed_json_change_nothing",
    scope=("deepspeed", "accelerate-plugin", "trainer-config"))
UNREAD_KEYS_IGNORED = claim(
    "ds-unread-keys-ignored",
    "DeepSpeed looks up the top-level keys of its config and the sub-keys of the sections it parses by hand (aio, "
    "activation_checkpointing, flops_profiler, checkpoint, ...) by name, so a key it does not know there (aio's old "
    "thread_count, say) is ignored without a message and the sub-key's default applies (aio's intra_op_parallelism, "
    "which replaced thread_count, is 1).",
    doc="ds-json-validation",
    code="deepspeed/runtime/config.py:436-592; deepspeed/runtime/swap_tensor/aio_config.py:21-40; "
    "deepspeed/runtime/swap_tensor/constants.py:20-30; deepspeed/runtime/activation_checkpointing/config.py:28-43; "
    "deepspeed/profiling/config.py:10-50",
    demo=_T + "test_keys_deepspeed_does_not_read_are_ignored_silently",
    scope=("top-level", "aio", "activation_checkpointing", "flops_profiler", "checkpoint"))
BFLOAT16_SHADOWED = claim(
    "ds-bfloat16-shadowed-by-bf16",
    "DeepSpeed reads the old 'bfloat16' block only when the config has no 'bf16' block, and accelerate always adds "
    "a 'bf16' block (enabled false unless bf16 mixed precision) before DeepSpeed reads the config, so a 'bfloat16' "
    "block is ignored.",
    doc="ds-config-file",
    code="deepspeed/runtime/precision_config.py:34-38; accelerate/utils/dataclasses.py:1415-1446",
    demo=_T + "test_the_old_bfloat16_block_is_shadowed",
    scope=("read-without-bf16-block", "mixed-precision-no", "mixed-precision-bf16"))
MODELS_VALIDATE = claim(
    "ds-config-models-validate-values",
    "DeepSpeed checks zero_optimization, its offload blocks, fp16, bf16 and its other model-backed sections with "
    "pydantic: a value of the wrong type or outside its choices or range makes building the config fail, while a "
    "value pydantic can convert (the string \"true\" for a flag) is accepted converted. A section that is not a "
    "JSON object fails too, in DeepSpeed or in accelerate's lookups (the old boolean zero_optimization included).",
    doc="ds-json-validation",
    code="deepspeed/runtime/config_utils.py:54-58,105-113; deepspeed/runtime/zero/config.py:71-78; "
    "deepspeed/runtime/zero/offload_config.py:14-75; accelerate/utils/deepspeed.py:181-201",
    demo=_T + "test_config_models_refuse_or_convert_values",
    scope=("zero_optimization", "offload", "fp16", "bf16", "converted", "not-an-object",
           "old-boolean-zero-optimization"))
ALIAS_AND_NAME = claim(
    "ds-alias-and-name-rejected",
    "A DeepSpeed setting written under both of its spellings (stage3_gather_16bit_weights_on_model_save and "
    "gather_16bit_weights_on_model_save, say) is refused: the second one counts as an extra key.",
    doc="ds-json-validation", code="deepspeed/runtime/zero/config.py:257; deepspeed/runtime/config_utils.py:105-113",
    demo=_T + "test_a_setting_under_both_spellings_is_refused",
    scope=("alias-alone", "both-spellings"))
STRING_STAGE = claim(
    "ds-string-stage-not-zero3-for-accelerate",
    "A zero_optimization.stage written as a string (\"3\") is converted to the number by DeepSpeed, but accelerate "
    "compares the stage with the number 3, so it does not treat the run as ZeRO-3 (zero3_init_flag off, no "
    "zero.Init for from_pretrained, no ZeRO-3 handling in its helpers).",
    doc="ds-json-validation",
    code="accelerate/utils/deepspeed.py:162-166,246-247; accelerate/utils/dataclasses.py:1327-1339; "
    "deepspeed/runtime/zero/config.py:81-95",
    demo=_T + "test_a_string_stage_is_not_zero3_for_accelerate",
    scope=("deepspeed-runs-zero3", "zero3-init-flag-off", "no-zero-init-for-from-pretrained", "is-zero3-helper-false"))
DEPRECATED_CONVERTED = claim(
    "ds-deprecated-keys-converted",
    "DeepSpeed converts a deprecated zero_optimization key (cpu_offload, cpu_offload_param, "
    "stage3_gather_fp16_weights_on_model_save) to the key that replaced it, with a warning, and asserts when that "
    "key is written too; cpu_offload_use_pin_memory has no replacement: it is warned about and changes nothing.",
    doc="ds-json-validation",
    code="deepspeed/runtime/config_utils.py:60-101; deepspeed/runtime/zero/config.py:187-221,287-291",
    demo=_T + "test_deprecated_keys_are_converted_or_ignored",
    scope=("cpu_offload", "cpu_offload_param", "stage3_gather_fp16_weights_on_model_save",
           "cpu_offload_use_pin_memory"))
SCALARS_UNCHECKED = claim(
    "ds-top-level-scalars-unchecked",
    "DeepSpeed takes top-level flags and numbers (memory_breakdown, gradient_clipping, the batch sizes, ...) as "
    "written, without checking their type: a string flag such as \"false\" counts as true, and a number written "
    "as a string fails where DeepSpeed compares or multiplies it.",
    doc="ds-json-validation", code="deepspeed/runtime/config.py:245-300,487-534,590-606",
    demo=_T + "test_top_level_scalars_are_taken_as_written",
    scope=("string-flag", "string-number-kept", "string-number-fails"))
AUTO_PLUGIN_DEFAULTS = claim(
    "ds-json-auto-plugin-defaults",
    "In a DeepSpeed JSON, accelerate's plugin fills an \"auto\" zero_optimization.stage with its default 2, an "
    "\"auto\" offload device with none and an \"auto\" nvme_path with the text 'none', a folder relative to the "
    "working directory.",
    doc="ds-auto-values", code="accelerate/utils/dataclasses.py:1237-1252, 1280-1296",
    demo=_T + "test_auto_stage_offload_device_and_nvme_path_take_the_plugin_defaults",
    scope=("stage", "offload_optimizer-device", "offload_param-device", "offload_optimizer-nvme_path",
           "offload_param-nvme_path"))
BATCH_ASSERTIONS = claim(
    "ds-batch-sizes-positive-and-given",
    "DeepSpeed asserts that train_batch_size, train_micro_batch_size_per_gpu and gradient_accumulation_steps are "
    "above 0 and that train_batch_size or the micro batch is given.",
    doc="ds-batch-size", code="deepspeed/runtime/config.py:596-606,646-650",
    demo=_T + "test_deepspeed_asserts_positive_batch_sizes_and_one_of_them_given",
    scope=("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "one-of-them-given"))
AUTO_TOTAL_NEEDS_MICRO = claim(
    "ds-auto-train-batch-needs-micro",
    "In an own Accelerator loop accelerate fills an \"auto\" train_batch_size only from the micro batch, so without "
    "train_micro_batch_size_per_gpu prepare() raises 'not found in kwargs'; the HF Trainer fills it from its "
    "arguments and DeepSpeed derives the micro batch.",
    doc="ds-batch-size",
    code="accelerate/accelerator.py:2179-2237; accelerate/utils/dataclasses.py:1357-1372; "
    "transformers/integrations/deepspeed.py:142-161; deepspeed/runtime/config.py:608-640",
    demo=_T + "test_an_auto_train_batch_size_without_micro_batch",
    scope=("own-loop", "trainer"))
NULL_GAS = claim(
    "ds-null-accumulation-fails-in-prepare",
    "accelerate writes gradient_accumulation_steps = 1 only when the key is missing; a JSON null stays, and "
    "prepare() multiplies it into train_batch_size, which fails with a TypeError (in an own loop and under the "
    "Trainer alike).",
    doc="ds-batch-size", code="accelerate/utils/dataclasses.py:1272-1273; accelerate/accelerator.py:2207-2235",
    demo=_T + "test_a_null_accumulation_fails_in_prepare",
    scope=("own-loop", "trainer"))
STEPS_PER_PRINT = claim(
    "ds-steps-per-print-infinity",
    "accelerate's DeepSpeed plugin replaces steps_per_print with infinity, whatever the JSON says, which silences "
    "DeepSpeed's periodic progress logging.",
    doc="ds-steps-per-print", code="accelerate/utils/dataclasses.py:1325-1326",
    demo=_T + "test_steps_per_print_is_replaced_by_infinity",
    scope=("json-value", "json-without-key"))
MSAMP_BLOCK = claim(
    "ds-msamp-block-for-ms-amp",
    "The top-level msamp block is MS-AMP's: accelerate writes it into the DeepSpeed config itself when the fp8 "
    "backend is MS-AMP (and leaves one the JSON already has), and only MS-AMP's DeepSpeed integration reads it; "
    "DeepSpeed's own config never looks it up.",
    doc="ds-json-validation", code="accelerate/utils/dataclasses.py:1345-1356; deepspeed/runtime/config.py:436-592",
    demo=_T + "test_accelerate_writes_the_msamp_block_for_ms_amp",
    scope=("written-for-ms-amp", "kept-when-present", "deepspeed-never-reads"))
WARMUP_POSITIVE = claim(
    "ds-warmup-steps-positive-int",
    "DeepSpeed's WarmupLR (and WarmupDecayLR, built on it) raise when warmup_num_steps is not a positive int "
    "(0, a negative number, a float); releases before 0.19.3 turned such a value into 2.",
    doc="ds-optimizer-and-scheduler", code="deepspeed/runtime/lr_schedules.py:729-744, 819-826",
    demo=_T + "test_warmup_lr_takes_only_a_positive_int",
    scope=("zero", "negative", "float"))
