"""Claims about deepspeed (see :mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

T = "tests/claims/test_deepspeed.py::"

# ------------------------------------------------------------------------------------------------ loading
ZERO3_INIT_FLAG_IGNORED = claim(
    "ds-zero3-init-flag-does-not-stop-zero-init",
    "At ZeRO-3 zero3_init_flag defaults to on, and false does not stop zero.Init: creating the accelerate state "
    "always registers Transformers' HfDeepSpeedConfig, from which from_pretrained alone decides to create the model "
    "partitioned; the flag only switches accelerate's GatheredParameters helper.",
    doc="ds-zero3-flags",
    code="accelerate/utils/dataclasses.py:1327-1336, 1459-1488, 1554-1562; accelerate/state.py:978-990; "
         "accelerate/utils/operations.py:972-990; transformers/integrations/deepspeed.py:284-288; "
         "transformers/modeling_utils.py:1435-1450",
    demo=T + "test_zero3_init_flag_false_does_not_stop_zero_init",
    scope=("default-on", "flag-false", "gathered-parameters-helper"))
ZERO3_INIT_OFF_BELOW_3 = claim(
    "ds-zero3-init-flag-off-below-zero3",
    "Below ZeRO-3 the DeepSpeed plugin turns zero3_init_flag off, with a warning when it was set, so every rank "
    "loads the whole model.",
    doc="ds-zero3-flags",
    code="accelerate/utils/dataclasses.py:1337-1339",
    demo=T + "test_zero3_init_flag_is_turned_off_below_zero3",
    scope=("zero-0", "zero-1", "zero-2"))
ZERO3_INIT_ORDER = claim(
    "ds-zero3-init-needs-config-before-load",
    "zero.Init is used only by Transformers' from_pretrained and only once the DeepSpeed config is registered "
    "(Accelerator, TrainingArguments or HfDeepSpeedConfig created first); parameters it creates take DeepSpeed's "
    "dtype, not the dtype passed to from_pretrained.",
    doc="ds-zero3-flags",
    code="transformers/modeling_utils.py:1435-1450; transformers/integrations/deepspeed.py:284-288; "
         "deepspeed/runtime/zero/partition_parameters.py:397-407",
    demo=T + "test_a_model_loaded_before_the_deepspeed_state_is_not_partitioned",
    scope=("loaded-before-config", "loaded-after-config", "not-from-pretrained", "deepspeed-dtype"))

# ------------------------------------------------------------------------------------------------ training
GAS_JSON_DEFAULT_1 = claim(
    "ds-json-without-gradient-accumulation-is-1",
    "The DeepSpeed config's gradient_accumulation_steps wins over Accelerator(gradient_accumulation_steps=N) with "
    "only a warning, and a DeepSpeed JSON without the key counts as 1; the engine checks train_batch_size = micro "
    "batch x accumulation x world size.",
    doc="ds-gradient-accumulation-and-clipping",
    code="accelerate/utils/dataclasses.py:1274-1275; accelerate/accelerator.py:2207-2236",
    demo=T + "test_a_json_without_gradient_accumulation_steps_overrides_the_accelerator_argument",
    scope=("json-value-wins", "warning-only", "json-without-key-is-1", "train-batch-checked"))
GAS_INLINE_AUTO = claim(
    "ds-inline-gradient-accumulation-auto-fails",
    "An inline gradient_accumulation_steps reaches Accelerator() as an environment string that it converts with "
    "int(), so 'auto' there fails at start-up.",
    doc="ds-gradient-accumulation-and-clipping",
    code="accelerate/utils/launch.py:569-570; accelerate/accelerator.py:546-548",
    demo=T + "test_inline_auto_gradient_accumulation_fails_in_accelerator",
    scope=("auto",))

# ------------------------------------------------------------------------------------------------ offload
OFFLOAD_OPTIMIZER_MAPPED = claim(
    "ds-offload-replaces-torch-optimizer",
    "With optimizer offload accelerate replaces the script's torch optimizer by a DeepSpeed CPU optimizer built from "
    "its parameter groups, so each group keeps its own lr, weight_decay, betas and eps (only the constructor "
    "defaults are cut to lr and weight_decay): Adagrad becomes DeepSpeedCPUAdagrad, bitsandbytes Lion "
    "DeepSpeedCPULion, and every other optimizer (SGD included, its momentum then unused) DeepSpeedCPUAdam, in AdamW "
    "mode only for AdamW.",
    doc="ds-optimizer-and-scheduler",
    code="accelerate/accelerator.py:2374-2384; accelerate/utils/deepspeed.py:29-97",
    demo=T + "test_the_cpu_optimizer_keeps_each_groups_adam_settings",
    scope=("adamw_betas_eps_kept", "sgd_momentum_dropped"))
CPU_OPTIMIZER_JIT = claim(
    "ds-cpu-optimizer-built-on-first-use",
    "DeepSpeed's CPU optimizers are C++ ops compiled on first use and cached in TORCH_EXTENSIONS_DIR.",
    doc="ds-optimizer-and-scheduler",
    code="deepspeed/ops/adam/cpu_adam.py:93; deepspeed/ops/adagrad/cpu_adagrad.py:23; "
         "deepspeed/ops/lion/cpu_lion.py:59; "
         "deepspeed/ops/op_builder/builder.py:549-568",
    why_not_demo="showing the build needs an empty extensions folder and 60-100 s of compiling on two cores; the "
                 "claim tests load the cached op instead (test_the_cpu_optimizer_keeps_each_groups_adam_settings)",
    scope=("cpu-adam", "cpu-adagrad", "cpu-lion"))
NVME_BELOW_3 = claim(
    "ds-nvme-optimizer-offload-below-zero3-is-cpu",
    "At ZeRO-1/2 any optimizer offload device means CPU offload: nvme is accepted and runs as cpu, writing nothing "
    "to the NVMe folder (ZeRO-0 cannot offload: ds-offload-optimizer-stage0-asserts).",
    doc="ds-offload-and-zero-stage",
    code="deepspeed/runtime/zero/stage_1_and_2.py:220-224; deepspeed/runtime/zero/stage3.py:821-836",
    demo=T + "test_nvme_optimizer_offload_at_zero2_runs_on_cpu",
    scope=("zero-1", "zero-2"))
OFFLOAD_STAGE0 = claim(
    "ds-offload-optimizer-stage0-asserts",
    "At ZeRO-0 accelerate still swaps in DeepSpeedCPUAdam when an optimizer offload device is set, and that "
    "optimizer asserts because the parameters stay on the GPU.",
    doc="ds-offload-and-zero-stage",
    code="accelerate/accelerator.py:2374-2384; deepspeed/ops/adam/cpu_adam.py:148",
    why_not_demo="the assertion fires on GPU parameters; on a CPU-only machine the parameters are already on the "
                 "CPU and the check passes",
    scope=("zero-0",))
PARTIAL_OFFLOAD = claim(
    "ds-partial-offload-zero3-only",
    "Partial optimizer offload (offload_optimizer.ratio below 1) is refused below ZeRO-3.",
    doc="ds-offload-and-zero-stage",
    code="deepspeed/runtime/zero/config.py:395-400",
    demo=T + "test_partial_optimizer_offload_needs_zero3",
    scope=("zero-0", "zero-1", "zero-2", "zero-3-accepted"))
CONFIG_OFFERS_OFFLOAD = claim(
    "ds-accelerate-config-offload-questions",
    "accelerate config asks about optimizer and parameter offload only from ZeRO-2 on, and offers nvme there too.",
    doc="ds-zero3-flags",
    code="accelerate/commands/config/cluster.py:258-284",
    why_not_demo="the questions come from accelerate config's interactive questionnaire, which a test cannot drive "
                 "without a terminal",
    scope=("zero-0", "zero-1", "zero-2", "zero-3"))

# ------------------------------------------------------------------------------------------------ checkpoint
ZERO3_STATE_DICT = claim(
    "ds-zero3-state-dict-needs-16bit-gather",
    "At ZeRO-3 accelerator.get_state_dict and save_model raise unless stage3_gather_16bit_weights_on_model_save "
    "(zero3_save_16bit_model) is on; the sharded checkpoint plus zero_to_fp32.py is then the way to full weights.",
    doc="ds-zero3-flags",
    code="accelerate/accelerator.py:3526-3530, 4070-4091",
    demo=T + "test_zero3_get_state_dict_raises_without_16bit_gather",
    scope=("get-state-dict", "save-model", "gather-on"))
ZERO12_CHECKPOINT = claim(
    "ds-zero12-checkpoint-weights-whole",
    "At ZeRO-1/2 a DeepSpeed checkpoint holds the whole weights once (mp_rank_00_model_states.pt, written by the "
    "first rank), the optimizer state as per-rank files and zero_to_fp32.py beside them; at ZeRO-0 the optimizer "
    "has no data-parallel group, so that one file holds the weights and the whole optimizer state (fp32 masters "
    "under bf16/fp16), with no per-rank files and no zero_to_fp32.py; at ZeRO-3 every rank writes its own "
    "model-states file.",
    doc="ds-checkpoint-layout",
    code="deepspeed/runtime/engine.py:1908-1921, 4336-4360, 4928-4935, 5377-5405, 5566-5567",
    demo=T + "test_checkpoint_layout_below_zero3",
    scope=("zero0", "zero1", "zero2"))

# ------------------------------------------------------------------------------------------------ backend, prefetch
ONE_MODEL = claim(
    "ds-one-model-per-prepare",
    "Under DeepSpeed one prepare() call with two models raises; separate calls are accepted, but "
    "accelerator.backward() keeps driving the first engine (accelerate warns).",
    doc="ds-one-model-per-accelerator",
    code="accelerate/accelerator.py:1483-1491, 2481-2489",
    demo=T + "test_deepspeed_refuses_two_models_in_one_prepare_call",
    scope=("one-call-raises", "separate-calls-accepted", "backward-drives-first"))
MAX_LIVE = claim(
    "ds-max-live-parameters-caps-prefetch",
    "stage3_max_live_parameters only limits how much ZeRO-3 prefetches ahead; parameters a module needs are "
    "gathered anyway, and release follows module completion and the reuse distance, not the limit.",
    doc="ds-stage3-prefetch-limits",
    code="deepspeed/runtime/zero/partitioned_param_coordinator.py:452-454, 494-520, 624-630",
    why_not_demo="prefetching starts only after a completed trace and overlaps all-gathers on accelerator streams; "
                 "on a one-rank CPU run nothing is partitioned across ranks, so the limit's effect cannot be "
                 "observed without reading the coordinator's private counters",
    scope=("zero-3",))
