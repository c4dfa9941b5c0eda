"""Claims about fsdp (see :mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

T = "tests/claims/test_fsdp.py::"

MIN_ZERO_NO_POLICY = claim(
    "fsdp-min-num-params-zero-no-policy",
    "SIZE_BASED_WRAP with min_num_params 0 (or less) sets the wrap policy to none on FSDP1 and FSDP2 alike: nothing "
    "below the root becomes its own unit.",
    doc="fsdp-min-num-params",
    code="accelerate/utils/dataclasses.py:2102-2107; accelerate/utils/fsdp_utils.py:921-970",
    demo=T + "test_min_num_params_zero_drops_the_policy_on_both_versions",
    scope=("zero", "negative", "fsdp1", "fsdp2"))
SIZE_COUNTS = claim(
    "fsdp-size-policy-counts",
    "The size policies count differently: FSDP1 wraps a module at >= min_num_params, counting only parameters not "
    "already in a wrapped child; FSDP2 selects every module whose whole subtree holds > min_num_params.",
    doc="fsdp-min-num-params",
    code="torch/distributed/fsdp/wrap.py:341-395; accelerate/utils/fsdp_utils.py:962-966",
    demo=T + "test_size_policies_count_differently",
    scope=("fsdp1", "fsdp2"))
MIN_INT = claim(
    "fsdp-min-num-params-int",
    "The plugin converts FSDP_MIN_NUM_PARAMS with int(): a value written as 1e8 fails when the plugin is built.",
    doc="fsdp-min-num-params",
    code="accelerate/utils/dataclasses.py:1927-1934",
    demo=T + "test_min_num_params_must_be_a_plain_integer",
    scope=("exponent-1e8", "plain-integer"))
LAUNCH_DEFAULTS = claim(
    "fsdp-launch-exports-defaults",
    "accelerate launch exports FSDP_MIN_NUM_PARAMS=100000000 and FSDP_SYNC_MODULE_STATES=true when the YAML omits "
    "them, whatever the policy and version.",
    doc="fsdp-min-num-params",
    code="accelerate/commands/launch.py:526-531, 593-598; accelerate/utils/launch.py:317, 329",
    demo=T + "test_launch_exports_defaults_and_refuses_ram_efficient_without_sync",
    scope=("transformer-policy", "size-policy", "no-wrap", "fsdp1", "fsdp2"))
LAUNCH_RAM_SYNC = claim(
    "fsdp-launch-ram-efficient-needs-sync",
    "accelerate launch refuses fsdp_cpu_ram_efficient_loading with fsdp_sync_module_states false, for FSDP2 too.",
    doc="fsdp-ram-efficient-loading",
    code="accelerate/utils/launch.py:305-307",
    demo=T + "test_launch_exports_defaults_and_refuses_ram_efficient_without_sync",
    scope=("fsdp1", "fsdp2"))
AC_NEEDS_POLICY = claim(
    "fsdp2-ac-needs-wrap-policy",
    "On FSDP2, activation checkpointing without a wrap policy (NO_WRAP, or SIZE_BASED_WRAP with min_num_params 0) "
    "makes prepare() fail with TypeError: 'NoneType' object is not callable.",
    doc="fsdp-activation-checkpointing",
    code="accelerate/accelerator.py:1694-1698; accelerate/utils/fsdp_utils.py:718-722",
    demo=T + "test_fsdp2_activation_checkpointing_without_a_wrap_policy_fails",
    scope=("no-wrap", "size-min-0"))
AC_PLACEMENT = claim(
    "fsdp-ac-placement",
    "FSDP1 adds non-reentrant checkpoint wrappers after wrapping, inside the units its wrap policy made; FSDP2 wraps "
    "the modules its policy selects before fully_shard (and before torch.compile).",
    doc="fsdp-activation-checkpointing",
    code="accelerate/accelerator.py:1694-1712, 1967-1981; accelerate/utils/fsdp_utils.py:701-730",
    demo=T + "test_where_each_version_puts_checkpoint_wrappers",
    scope=("fsdp1", "fsdp2"))
AC_NO_RNG = claim(
    "fsdp2-ac-no-rng-state",
    "FSDP2's checkpoint wrappers pass preserve_rng_state=False, so dropout draws new masks when a block is "
    "recomputed; FSDP1's keep torch's default (True).",
    doc="fsdp-activation-checkpointing",
    code="accelerate/utils/fsdp_utils.py:722; accelerate/accelerator.py:1974-1981",
    demo=T + "test_where_each_version_puts_checkpoint_wrappers",
    scope=("fsdp1", "fsdp2"))
GET_STATE_DICT_FULL = claim(
    "fsdp-get-state-dict-full",
    "On FSDP, accelerator.get_state_dict and save_model always gather a full state dict (plain tensors, one "
    "model.safetensors) whatever fsdp_state_dict_type says; only save_state follows it (SHARDED: a "
    "torch.distributed.checkpoint folder).",
    doc="fsdp-state-dict-type",
    code="accelerate/accelerator.py:4096-4107; accelerate/utils/fsdp_utils.py:100-175",
    demo=T + "test_get_state_dict_is_full_whatever_the_state_dict_type",
    scope=("fsdp1", "fsdp2", "sharded", "full"))
SAVED_FP32 = claim(
    "fsdp-saved-weights-fp32",
    "With bf16 or fp16 mixed precision FSDP keeps and saves in fp32 what accelerate upcast at prepare() (FSDP1: "
    "every unit holding a trainable parameter; FSDP2: each trainable parameter); frozen parameters outside those "
    "stay in the dtype they were loaded in, so for LoRA most of a saved file keeps the load dtype.",
    doc="fsdp-state-dict-type",
    code="accelerate/utils/fsdp_utils.py:812-824; accelerate/accelerator.py:2022-2037",
    demo=T + "test_only_trainable_parameters_are_saved_in_fp32",
    scope=("trainable", "trainable_root", "frozen", "fsdp1", "fsdp2"))
SD_DEFAULTS = claim(
    "fsdp-state-dict-type-defaults",
    "The plugin's default state dict type is FULL_STATE_DICT (rank 0 only, offloaded to CPU) for FSDP1 and "
    "SHARDED_STATE_DICT for FSDP2; FSDP2 refuses LOCAL_STATE_DICT.",
    doc="fsdp-state-dict-type",
    code="accelerate/utils/dataclasses.py:2047-2073",
    demo=T + "test_state_dict_type_defaults",
    scope=("fsdp1", "fsdp2", "fsdp2-local-refused"))
FSDP1_SYNC = claim(
    "fsdp1-sync-module-states-broadcasts",
    "FSDP1 with sync_module_states broadcasts rank 0's parameters and buffers when it wraps the model; without it "
    "each rank keeps its own values and the gathered model mixes them.",
    doc="fsdp-parameter-sync",
    code="torch/distributed/fsdp/_init_utils.py:619-640, 1110-1160",
    demo=T + "test_who_makes_the_ranks_start_identical",
    scope=("fsdp1-sync", "fsdp1-no-sync"))
FSDP2_NO_BROADCAST = claim(
    "fsdp2-no-broadcast-unless-ram-efficient",
    "fully_shard never broadcasts: each rank's shard comes from that rank's own weights. accelerate broadcasts "
    "rank 0's state dict on FSDP2 only with cpu_ram_efficient_loading.",
    doc="fsdp-parameter-sync",
    code="accelerate/utils/fsdp_utils.py:826-895, 574-660",
    demo=T + "test_who_makes_the_ranks_start_identical",
    scope=("fsdp2-ram-efficient", "fsdp2-plain"))
FSDP2_NO_SYNC_KEY = claim(
    "fsdp2-ignores-sync-module-states",
    "The FSDP2 plugin never reads FSDP_SYNC_MODULE_STATES (or FSDP_USE_ORIG_PARAMS): both stay unset.",
    doc="fsdp2-obsolete-flags",
    code="accelerate/utils/dataclasses.py:1938-1951",
    demo=T + "test_fsdp2_ignores_sync_module_states",
    scope=("sync-module-states", "use-orig-params"))
DS_BROADCAST = claim(
    "ds-engine-broadcasts-params",
    "The DeepSpeed engine broadcasts every parameter (not the buffers) from the first rank of its data-parallel "
    "group when it is created, except for a ZeRO-3 model built under zero.Init, which is partitioned already.",
    scope=("zero0", "zero1", "zero2", "zero3", "zero3-zero-init"),
    doc="fsdp-parameter-sync",
    code="deepspeed/runtime/engine.py:2038-2061, 2077-2078, 2194-2195",
    why_not_demo="needs a two-rank DeepSpeed engine, which on CPU first JIT-builds its shm comm op (60-100 s); "
                 "read from _broadcast_model and its call site")
HF_NEEDS_GROUP = claim(
    "transformers-fsdp-loading-needs-process-group",
    "Transformers treats loading as FSDP RAM-efficient only when ACCELERATE_USE_FSDP and "
    "FSDP_CPU_RAM_EFFICIENT_LOADING are true and the process group exists, so the Accelerator must be created "
    "before from_pretrained.",
    doc="fsdp-ram-efficient-loading",
    code="transformers/distributed/fsdp.py:45-51; transformers/distributed/utils.py:49-52, 81-82",
    demo=T + "test_transformers_fsdp_loading",
    scope=("no-process-group", "process-group", "accelerate-use-fsdp-false", "ram-efficient-false"))
HF_EVERY_RANK = claim(
    "transformers-fsdp-loading-every-rank-reads",
    "Transformers 5 reads the checkpoint on every rank (safetensors memory-mapped); with FSDP RAM-efficient "
    "loading on, ranks other than local rank 0 only leave weights missing from the checkpoint on the meta device.",
    doc="fsdp-ram-efficient-loading",
    code="transformers/modeling_utils.py:4554-4596, 4862-4866, 4898-4905",
    demo=T + "test_transformers_fsdp_loading",
    scope=("local-rank-0", "other-local-rank"))
TORCHAO_RAM = claim(
    "fsdp-torchao-fp8-no-ram-efficient",
    "Accelerator refuses torchao fp8 on FSDP, either version, together with cpu_ram_efficient_loading (ValueError "
    "at start, although its message names FSDP2 only).",
    doc="fsdp-ram-efficient-loading",
    code="accelerate/accelerator.py:518-526",
    demo=T + "test_torchao_fp8_refuses_ram_efficient_loading_on_either_version",
    scope=("ram_efficient", "plain", "fsdp1", "fsdp2"))
