"""Claims about DeepSpeed's bf16 master weights and optimizer states, and FSDP's bf16-without-mixed-precision
counterpart (see :mod:`wizard.core.claims`; setting ``precision.ds_bf16_master_weights``)."""
from __future__ import annotations

from .registry import claim

_DEMO = "tests/claims/test_master_weights.py::"

ZERO_STAGES = claim(
    "master-weights-zero-stages",
    "DeepSpeed's config refuses bf16_master_weights_and_grads and bf16_optimizer_states unless ZeRO is 1, 2 or 3, "
    "and refuses bf16_optimizer_states without bf16_master_weights_and_grads.",
    doc="ds-bf16-master-weights",
    code="deepspeed/runtime/config.py:706-714; deepspeed/runtime/precision_config.py:63-71",
    demo=_DEMO + "test_the_config_refuses_zero0_and_states_without_master",
    scope=("zero-0", "zero-1", "zero-2", "zero-3", "states-without-master"))

BF16_DTYPES = claim(
    "master-weights-bf16-dtypes",
    "With both flags on, ZeRO-1/2/3 keep the master weights, the gradients they step on and Adam's two moments in "
    "bf16 instead of fp32, without any offload; the master stays a separate bf16 copy of the weights, so Adam costs "
    "about 10 bytes per parameter (2 weights, 2 gradients, 2 master, 4 moments) instead of about 16.",
    doc="ds-bf16-master-weights",
    code="deepspeed/runtime/base_optimizer.py:484-530; deepspeed/runtime/zero/stage_1_and_2.py:336-344, 559-561; "
         "deepspeed/runtime/zero/stage3.py:304-310, 1162-1172",
    demo=_DEMO + "test_both_flags_keep_master_grads_and_adam_state_in_bf16",
    scope=("zero-1", "zero-2", "zero-3"))

FP32_STATES_NEED_OFFLOAD = claim(
    "master-weights-fp32-states-need-offload",
    "bf16 master weights with fp32 optimizer states (bf16_optimizer_states off) only start with the optimizer "
    "offloaded and DeepSpeedCPUAdam as the optimizer; otherwise the ZeRO optimizer asserts in "
    "deepspeed.initialize.",
    doc="ds-bf16-master-weights",
    code="deepspeed/runtime/base_optimizer.py:507-512; deepspeed/runtime/zero/stage_1_and_2.py:331-342; "
         "deepspeed/runtime/zero/stage3.py:299-310",
    demo=_DEMO + "test_master_without_states_needs_offload_and_cpu_adam",
    scope=("zero-1", "zero-2", "zero-3", "offloaded-cpu-adam"))

OFFLOADED_STATES_NEED_BF16_CPU_ADAM = claim(
    "master-weights-offloaded-states-need-bf16-cpu-adam",
    "With both flags and optimizer offload, DeepSpeed asserts unless its CPU Adam keeps bf16 moments "
    "(fp32_optimizer_states=False): it builds it so from an optimizer block of the JSON, but accelerate swaps a "
    "script's optimizer for a DeepSpeedCPUAdam with fp32 moments, which is refused.",
    doc="ds-bf16-master-weights",
    code="deepspeed/runtime/base_optimizer.py:513-518; deepspeed/runtime/engine.py:2388-2400; "
         "deepspeed/ops/adam/cpu_adam.py:24; accelerate/utils/deepspeed.py:29-97; accelerate/accelerator.py:2374-2384",
    demo=_DEMO + "test_offloaded_bf16_states_need_cpu_adam_with_bf16_moments",
    scope=("accelerate-swap-refused", "json-optimizer-block"))

READ_WITHOUT_BF16 = claim(
    "master-weights-read-without-bf16",
    "The flags are read whatever bf16.enabled says: with bf16 off, an fp32 model gets a bf16 master copy and bf16 "
    "Adam moments, so its updates are computed below the weights' own precision.",
    doc="ds-bf16-master-weights",
    code="deepspeed/runtime/engine.py:1681-1685, 2700-2702, 2784-2786",
    demo=_DEMO + "test_the_flags_apply_with_bf16_off",
    scope=("bf16-off",))

FSDP_LOAD_DTYPE = claim(
    "master-weights-fsdp-load-dtype",
    "With mixed_precision no, accelerate gives FSDP no mixed-precision policy, and FSDP keeps parameters, gradients "
    "and Adam's moments in the load dtype: loaded in bf16, 8 bytes per parameter with no separate master copy.",
    doc="ds-bf16-master-weights",
    code="accelerate/state.py:1014-1015; torch/distributed/fsdp/_fully_shard/_fsdp_api.py:14-52",
    demo=_DEMO + "test_fsdp2_without_policy_trains_in_bf16",
    scope=("fsdp1", "fsdp2"))
