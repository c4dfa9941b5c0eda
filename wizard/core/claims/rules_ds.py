"""Claims stated by the DeepSpeed config rules (wizard/core/lint/ds.py and dszero.py): how accelerate's DeepSpeed
plugin reads the inline keys, and which DeepSpeed JSON values DeepSpeed itself refuses (see
:mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

_T = "tests/claims/test_rules_ds.py::"

# ------------------------------------------------------------------------------------------ inline deepspeed_config
STAGE_VALUES = claim(
    "ds-zero-stage-values",
    "The plugin converts an inline zero_stage with int(), so text that is no whole number fails when it is built; "
    "DeepSpeed accepts only stages 0 to 3 and refuses any other number when it reads the config.",
    doc="ds-inline-config", code="accelerate/utils/dataclasses.py:1237-1238; deepspeed/runtime/zero/config.py:81-98",
    demo=_T + "test_zero_stage_must_be_0_to_3",
    scope=("not-whole-number", "above-3", "below-0", "0-to-3-accepted"))
OFFLOAD_DEVICE_VALUES = claim(
    "ds-offload-device-values",
    "An offload device must be none, cpu or nvme: accelerate launch lower-cases the inline value, and DeepSpeed's "
    "config refuses any other device.",
    doc="ds-inline-config",
    code="accelerate/utils/launch.py:573-576; deepspeed/runtime/zero/offload_config.py:14-18, 24, 58",
    demo=_T + "test_offload_devices_are_none_cpu_or_nvme",
    scope=("launch-lower-cases", "none-cpu-nvme-accepted", "other-refused"))
GAS_WHOLE_POSITIVE = claim(
    "ds-inline-gradient-accumulation-whole-positive",
    "An inline gradient_accumulation_steps reaches Accelerator() as text that it converts with int(): anything but "
    "a whole number fails there; 0 or less passes that point, and DeepSpeed refuses it when the engine is built (0 by "
    "its check, a negative number, which the plugin leaves as text, by a TypeError).",
    doc="ds-gradient-accumulation-and-clipping",
    code="accelerate/utils/launch.py:569-570; accelerate/accelerator.py:546-548; "
    "accelerate/utils/dataclasses.py:1229-1231; deepspeed/runtime/config.py:590-605",
    demo=_T + "test_inline_gradient_accumulation_must_be_a_positive_whole_number",
    scope=("not-whole-number", "zero", "negative"))
CLIP_FLOAT = claim(
    "ds-inline-gradient-clipping-float",
    "The plugin converts an inline gradient_clipping other than auto with float(): text that is no number fails "
    "when the plugin is built.",
    doc="ds-gradient-accumulation-and-clipping", code="accelerate/utils/dataclasses.py:1233-1235",
    demo=_T + "test_inline_gradient_clipping_must_be_a_number",
    scope=("not-a-number", "number", "auto"))
INIT_FLAG_BOOL = claim(
    "ds-zero3-init-flag-truth-words",
    "The plugin reads zero3_init_flag with accelerate's str_to_bool: any text other than y/yes/t/true/on/1 or "
    "n/no/f/false/off/0 raises 'invalid truth value'.",
    doc="ds-zero3-flags", code="accelerate/utils/dataclasses.py:1327-1336; accelerate/utils/environment.py:59-71",
    demo=_T + "test_zero3_init_flag_must_be_a_truth_word",
    scope=("true-words", "false-words", "other-raises"))
INIT_STAGE_INT = claim(
    "ds-zero3-check-wants-the-number-3",
    "accelerate's plugin counts a DeepSpeed JSON as ZeRO-3 only when zero_optimization.stage is the number 3: a "
    "stage written as the string \"3\" is not, so zero3_init_flag is turned off with the below-ZeRO-3 warning.",
    doc="ds-zero3-flags",
    code="accelerate/utils/dataclasses.py:1337-1339; accelerate/utils/deepspeed.py:162-166, 246-247",
    demo=_T + "test_a_string_stage_is_not_zero3_for_the_init_flag",
    scope=("string-3", "number-3"))
SAVE16_TRUE_ONLY = claim(
    "ds-zero3-save-16bit-exact-true",
    "The plugin turns zero3_save_16bit_model on only when the exported text is 'true' (accelerate launch "
    "lower-cases the YAML value); any other text, 'yes' or '1' included, is read as false.",
    doc="ds-zero3-flags", code="accelerate/utils/dataclasses.py:1254-1257; accelerate/utils/launch.py:579-580",
    demo=_T + "test_zero3_save_16bit_model_is_on_only_for_true",
    scope=("launch-lower-cases", "true", "yes", "1", "on"))
GATHER16_ZERO3_ONLY = claim(
    "ds-16bit-gather-zero3-only",
    "stage3_gather_16bit_weights_on_model_save (inline: zero3_save_16bit_model) is read only at ZeRO-3 or with "
    "tensor parallelism: below ZeRO-3 get_state_dict, save_model and the engine's save_16bit_model return the "
    "whole module weights with or without it.",
    doc="ds-zero3-flags",
    code="accelerate/accelerator.py:4070-4093; deepspeed/runtime/engine.py:5730-5742; "
    "deepspeed/runtime/zero/config.py:257-263",
    demo=_T + "test_16bit_gathering_is_not_read_below_zero3",
    scope=("zero-0", "zero-1", "zero-2"))
LAUNCHER_NAMES = claim(
    "ds-multinode-launcher-names",
    "With several machines accelerate handles the launchers 'standard' and 'nossh' itself (exact spelling) and "
    "passes any other name to DeepSpeed's runner, which lower-cases it and knows pdsh, openmpi, mpich, impi, "
    "mvapich and slurm; another name raises 'Unknown launcher' when the runner starts the nodes.",
    doc="ds-multinode-launcher",
    code="accelerate/utils/launch.py:448-460; deepspeed/launcher/runner.py:565-580; "
    "deepspeed/launcher/constants.py:6-13",
    demo=_T + "test_the_runner_refuses_an_unknown_launcher",
    scope=("standard", "nossh", "other-spelling-to-runner", "pdsh", "openmpi", "mpich", "impi", "mvapich", "slurm",
           "unknown-raises"))

# ------------------------------------------------------------------------------------------ DeepSpeed JSON values
FP16_BF16_EXCLUSIVE = claim(
    "ds-fp16-bf16-exclusive",
    "DeepSpeed refuses a config that enables both fp16 and bf16 ('cannot be simultaneously enabled').",
    doc="ds-precision", code="deepspeed/runtime/config.py:509-512",
    demo=_T + "test_precision_values_deepspeed_refuses",
    scope=("both-enabled",))
LOSS_SCALE_CHECKED = claim(
    "ds-fp16-loss-scale-checked",
    "DeepSpeed's fp16 block refuses a loss_scale that is not a number >= 0 (0 means dynamic scaling), a boolean "
    "loss_scale_window or min_loss_scale, and, with fp16 enabled and dynamic scaling, a window or minimum of 0 or "
    "less.",
    doc="ds-precision", code="deepspeed/runtime/precision_config.py:115-197",
    demo=_T + "test_precision_values_deepspeed_refuses",
    scope=("loss-scale", "window-boolean", "min-boolean", "dynamic-window", "dynamic-min"))
FP16_MASTER_ZERO = claim(
    "ds-fp16-master-weights-zero-stages",
    "DeepSpeed's config refuses fp16.fp16_master_weights_and_grads unless ZeRO is 1, 2 or 3.",
    doc="ds-precision", code="deepspeed/runtime/config.py:702-705",
    demo=_T + "test_precision_values_deepspeed_refuses",
    scope=("master-weights-zero-0", "master-weights-zero-1-2-3"))
DTYPE_NAMES = claim(
    "ds-dtype-names",
    "DeepSpeed knows the dtype names fp32/float32/float, fp16/float16/half, bf16/bfloat16 and int8, and "
    "torch.float32, torch.float16, torch.bfloat16 and torch.int8 (not torch.half or torch.bf16); another name "
    "raises: in torch_autocast.dtype when the config is read, in data_types when the engine is built (buffer_dtype "
    "only when fp16 or bf16 is enabled).",
    doc="ds-precision",
    code="deepspeed/runtime/config.py:143-168, 185-194; "
    "deepspeed/runtime/engine.py:1806-1810, 1818-1829, 1845-1847, 2080-2088",
    demo=_T + "test_the_engine_refuses_bad_json_values",
    scope=("dtype-names-read-with-config", "dtype-names-at-engine-build"))
PARAM_DTYPE_MATCH = claim(
    "ds-param-dtype-must-match",
    "The engine asserts at start-up when data_types.param_dtype differs from the precision the fp16/bf16 blocks "
    "enable (fp32 when neither).",
    doc="ds-precision", code="deepspeed/runtime/engine.py:2009, 1812-1829",
    demo=_T + "test_the_engine_refuses_bad_json_values",
    scope=("param-dtype-conflict", "param-dtype-matches"))
KEEP_FP32_LIST = claim(
    "ds-keep-in-fp32-modules-list",
    "DeepSpeed's config refuses a data_types.keep_in_fp32_modules that is neither \"auto\" nor a list of strings.",
    doc="ds-precision", code="deepspeed/runtime/config.py:562-567",
    demo=_T + "test_precision_values_deepspeed_refuses",
    scope=("keep-in-fp32-string", "keep-in-fp32-non-string-item", "keep-in-fp32-auto-or-strings"))
COMPUTE_GRAD_NORM = claim(
    "ds-compute-grad-norm-false-limits",
    "zero_optimization.compute_grad_norm false is refused unless the stage is 1 or 2 (when the config is read), and "
    "the ZeRO-1/2 optimizer refuses it with optimizer offload or with gradient clipping above 0 (DeepSpeed's "
    "default is 1.0).",
    doc="ds-zero-options",
    code="deepspeed/runtime/zero/config.py:389-393; deepspeed/runtime/zero/stage_1_and_2.py:212-218; "
    "deepspeed/runtime/constants.py:203",
    demo=_T + "test_the_engine_refuses_bad_json_values",
    scope=("grad-norm-stage-1-2-only", "grad-norm-offload", "grad-norm-clipping"))
ALLREDUCE_OP = claim(
    "ds-gradient-allreduce-op-values",
    "gradient_allreduce_op must be mean or sum (any case); sum is refused with ZeRO-3, ZenFlow and DeepCompile.",
    doc="ds-zero-options", code="deepspeed/runtime/config.py:241-249, 695-700; deepspeed/runtime/constants.py:261-265",
    demo=_T + "test_json_values_deepspeed_refuses_when_it_reads_the_config",
    scope=("allreduce-other-refused", "allreduce-mean-sum-any-case", "sum-zero-3", "sum-zenflow", "sum-deepcompile"))
COMM_DTYPE_VALUES = claim(
    "ds-communication-data-type-values",
    "DeepSpeed refuses a communication_data_type (or seq_parallel_communication_data_type) other than fp16, bf16 "
    "or fp32 (any case) when it reads the config.",
    doc="ds-precision", code="deepspeed/runtime/config.py:216-230",
    demo=_T + "test_json_values_deepspeed_refuses_when_it_reads_the_config",
    scope=("communication_data_type", "seq_parallel_communication_data_type"))
CHECKPOINT_VALUES = claim(
    "ds-checkpoint-options-checked",
    "DeepSpeed refuses checkpoint.tag_validation other than Warn, Ignore or Fail (any case) and a "
    "checkpoint.parallel_write.pipeline_stage other than true or false.",
    doc="ds-zero-options", code="deepspeed/runtime/config.py:387-405; deepspeed/runtime/constants.py:354",
    demo=_T + "test_json_values_deepspeed_refuses_when_it_reads_the_config",
    scope=("tag_validation", "pipeline_stage"))
CPU_OFFLOAD_OLD = claim(
    "ds-deprecated-cpu-offload-client-optimizer",
    "The deprecated zero_optimization.cpu_offload true becomes CPU optimizer offload inside DeepSpeed, but "
    "accelerate swaps the script's torch optimizer for a DeepSpeed CPU optimizer only when it finds "
    "offload_optimizer.device, so the engine refuses the torch optimizer (unless zero_force_ds_cpu_optimizer is "
    "false).",
    doc="ds-optimizer-and-scheduler",
    code="deepspeed/runtime/zero/config.py:209-219; accelerate/accelerator.py:2374-2384; "
    "deepspeed/runtime/engine.py:2339-2346",
    demo=_T + "test_the_engine_refuses_bad_json_values",
    scope=("cpu-offload-refuses-torch-optimizer", "cpu-offload-force-false"))
OPTIMIZER_TYPE = claim(
    "ds-optimizer-type-known",
    "Without an optimizer from the script DeepSpeed builds optimizer.type only when it is one of its own optimizers "
    "(any case) or a torch.optim class name, and asserts otherwise.",
    doc="ds-optimizer-and-scheduler",
    code="deepspeed/runtime/config.py:518-520; deepspeed/runtime/engine.py:1985-1986, 2016-2019",
    demo=_T + "test_the_engine_refuses_bad_json_values",
    scope=("optimizer-own-any-case", "optimizer-torch-name", "optimizer-unknown-asserts"))
OPTIMIZER_MAX_NORM = claim(
    "ds-optimizer-max-grad-norm-refused",
    "DeepSpeed raises when optimizer.params holds max_grad_norm; clipping is the top-level gradient_clipping.",
    doc="ds-optimizer-and-scheduler", code="deepspeed/runtime/engine.py:2476-2484",
    demo=_T + "test_the_engine_refuses_bad_json_values",
    scope=("max-grad-norm",))
LAMB_DYNAMIC = claim(
    "ds-lamb-needs-dynamic-loss-scale",
    "The engine asserts that an optimizer of type Lamb comes with dynamic loss scaling: an fp16.loss_scale other "
    "than 0 fails even with fp16 disabled.",
    doc="ds-optimizer-and-scheduler", code="deepspeed/runtime/engine.py:1781-1782, 2021-2023",
    demo=_T + "test_the_engine_refuses_bad_json_values",
    scope=("lamb-fp16-off",))
SCHEDULER_LOOKUP = claim(
    "ds-scheduler-type-and-params",
    "DeepSpeed looks scheduler.type up by its exact name among its own schedulers, then in "
    "torch.optim.lr_scheduler, and asserts when neither has it; it passes scheduler.params as keywords to the "
    "constructor, so a parameter it does not take raises a TypeError.",
    doc="ds-optimizer-and-scheduler", code="deepspeed/runtime/engine.py:1923-1936",
    demo=_T + "test_the_engine_refuses_bad_json_values",
    scope=("scheduler-not-exact-name", "scheduler-torch", "scheduler-unexpected-param"))
CONFIG_CLIPPING_QUESTION = claim(
    "ds-accelerate-config-clipping-question",
    "accelerate config writes gradient_clipping into the inline DeepSpeed settings only when the answer to its "
    "gradient-clipping question is yes; after no the key is absent.",
    doc="ds-gradient-accumulation-and-clipping", code="accelerate/commands/config/cluster.py:290-300",
    why_not_demo="the question belongs to accelerate config's interactive questionnaire, which a test cannot drive "
    "without a terminal",
    scope=("answer-yes", "answer-no"))
