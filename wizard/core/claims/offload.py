"""Claims about the backend choice, FSDP versions, sharding and offload (see :mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

T = "tests/claims/test_offload.py::"

# ------------------------------------------------------------------------------------------------ backend
DISTRIBUTED_TYPE_PICKS_SECTION = claim(
    "launch-distributed-type-picks-section",
    "distributed_type alone decides which section accelerate launch reads: with FSDP only fsdp_config becomes FSDP_* "
    "variables and a deepspeed_config next to it is never exported; with DEEPSPEED the reverse.",
    doc="how-a-config-reaches-the-libraries",
    code="accelerate/commands/launch.py:1228, 1245; accelerate/utils/launch.py:304-333, 565-586",
    demo=T + "test_distributed_type_decides_which_section_is_read",
    scope=("fsdp", "deepspeed"))

# ------------------------------------------------------------------------------------------------ FSDP versions
FLAT_VS_DTENSOR = claim(
    "fsdp1-flat-fsdp2-dtensor",
    "FSDP1 packs each unit's parameters into one FlatParameter and, without use_orig_params, refuses a unit that "
    "mixes frozen and trainable parameters; FSDP2's fully_shard makes every parameter its own DTensor shard and "
    "accepts such mixes.",
    doc="fsdp-version",
    code="torch/distributed/fsdp/_flat_param.py:798-830; torch/distributed/fsdp/_fully_shard/_fsdp_param.py:228-326",
    demo=T + "test_fsdp1_flattens_and_fsdp2_shards_each_parameter",
    scope=("fsdp1-flat", "fsdp1-mixed-refused", "fsdp1-mixed-orig-params", "fsdp2-mixed"))
FSDP2_MEMORY = claim(
    "fsdp2-frees-without-record-stream",
    "FSDP1 keeps its all-gathered buffers alive with tensor.record_stream, so the CUDA caching allocator reuses them "
    "late; FSDP2 frees each all-gather result after an event wait instead, which gives a lower and more predictable "
    "memory peak.",
    scope=("fsdp1", "fsdp2"),
    doc="fsdp-version",
    code="torch/distributed/fsdp/_flat_param.py:1486, 1543, 1818; "
         "torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py:428-432",
    why_not_demo="streams and the caching allocator exist only on a GPU; on CPU the collectives run in order and "
                 "memory is freed at once, so the peak cannot differ")
VERSION_DEFAULT = claim(
    "fsdp-version-default-1-unchecked",
    "accelerate launch and the FSDP plugin take fsdp_version 1 when the key is missing; a YAML value is not checked "
    "against 1 and 2 and fails only when the plugin is built: another integer (0, 3) with KeyError: 'TRUE', a "
    "non-integer (2.0, \"two\", true) with a ValueError from int().",
    doc="fsdp-version",
    code="accelerate/commands/launch.py:513-518; accelerate/utils/launch.py:309; "
         "accelerate/utils/dataclasses.py:1830-1831, 1855-1875",
    demo=T + "test_a_bad_version_fails_in_the_plugin_by_its_kind",
    scope=("missing_is_1", "other_integer_3", "other_integer_0", "float_2.0", "word", "boolean"))
CONFIG_QUESTIONS = claim(
    "accelerate-config-fsdp-questions",
    "accelerate config proposes FSDP version 2 and, for FSDP1, stores the sharding strategy answer under "
    "fsdp_reshard_after_forward (not fsdp_sharding_strategy).",
    scope=("version-default-2", "fsdp1-strategy-key"),
    doc="fsdp1-sharding-strategy",
    code="accelerate/commands/config/cluster.py:399-421",
    why_not_demo="the questions come from accelerate config's interactive questionnaire, which reads a terminal; "
                 "the effect of what it writes is demonstrated by test_fsdp1_runs_fsdp_sharding_strategy_only")
FSDP2_TORCH = claim(
    "fsdp2-needs-torch-2-6",
    "accelerate refuses FSDP2 below torch 2.6.",
    doc="fsdp-version",
    code="accelerate/utils/constants.py:46; accelerate/utils/dataclasses.py:1833-1835; "
         "accelerate/accelerator.py:399-401",
    demo=T + "test_fsdp2_needs_torch_2_6",
    scope=("below-2-6", "2-6"))
FSDP2_PREPARE = claim(
    "fsdp2-prepare-model-with-optimizer",
    "Under FSDP2, Accelerator.prepare() raises unless the model and its optimizer come in the same call, and it "
    "takes only one model.",
    doc="fsdp-version",
    code="accelerate/accelerator.py:1507-1523",
    demo=T + "test_fsdp2_prepare_needs_one_model_with_its_optimizer",
    scope=("model-alone", "two-models", "model-with-optimizer"))
FSDP2_V1_KEYS = claim(
    "fsdp2-ignores-v1-keys",
    "The FSDP2 plugin never reads FSDP_SHARDING_STRATEGY or FSDP_FORWARD_PREFETCH, drops a backward prefetch with "
    "only a logged warning, and wants a boolean reshard_after_forward (a strategy name raises); activation-"
    "checkpoint offload is refused on FSDP1.",
    doc="fsdp2-reshard-after-forward",
    code="accelerate/utils/dataclasses.py:1844-1853, 1865-1880, 1892-1905, 1953-1970, 2027-2028",
    demo=T + "test_fsdp2_ignores_the_v1_keys",
    scope=("sharding-strategy", "forward-prefetch", "backward-prefetch",
           "reshard-strategy-name", "ac-offload"))
FSDP1_STRATEGY = claim(
    "fsdp1-reads-sharding-strategy-only",
    "Under accelerate launch FSDP1 runs the strategy named in fsdp_sharding_strategy (a name or its number 1-5; 1 is "
    "FULL_SHARD); the launcher exports FULL_SHARD when the key is missing, so a strategy written under "
    "fsdp_reshard_after_forward is never used.",
    doc="fsdp1-sharding-strategy",
    code="accelerate/commands/launch.py:533-544; accelerate/utils/launch.py:313-315; "
         "accelerate/utils/dataclasses.py:1844-1864; accelerate/utils/constants.py:38; accelerate/accelerator.py:1947",
    demo=T + "test_fsdp1_runs_fsdp_sharding_strategy_only",
    scope=("missing-reshard-key-unused", "name", "name-lowercase", "number-1", "number-2",
           "number-3", "number-4", "number-5"))
RESHARD = claim(
    "fsdp-reshard-after-forward",
    "FSDP2 with reshard_after_forward true frees each unit's gathered parameters after its forward and gathers them "
    "again in backward; with false they stay gathered from forward to backward (like FSDP1's SHARD_GRAD_OP); between "
    "steps only the shards are kept either way, so neither is unsharded data parallelism.",
    doc="fsdp2-reshard-after-forward",
    code="torch/distributed/fsdp/_fully_shard/_fully_shard.py:102-200; torch/distributed/fsdp/_flat_param.py:112-120; "
         "torch/distributed/fsdp/_runtime_utils.py:494-500, 822-828",
    demo=T + "test_reshard_after_forward_keeps_parameters_gathered_until_backward",
    scope=("reshard-true", "reshard-false"))
FSDP2_ROOT_TAIL = claim(
    "fsdp2-accelerate-keeps-root-and-tail-gathered",
    "accelerate's FSDP2 prepare() never reshards the root unit or the final norm with the output head (and a tied "
    "input embedding) after forward, whatever fsdp_reshard_after_forward says: true frees the wrapped blocks only, "
    "and those parts stay gathered from forward to backward (sharded between steps all the same).",
    doc="fsdp2-reshard-after-forward",
    code="accelerate/utils/fsdp_utils.py:868-885",
    demo=T + "test_reshard_true_holds_for_the_blocks_only",
    scope=("block_resharded", "final_norm_gathered", "head_gathered", "root_gathered"))
FSDP2_HYBRID = claim(
    "fsdp2-hybrid-from-parallelism-config",
    "FSDP2 shards hybrid when parallelism_config has dp_replicate_size above 1: accelerate applies fully_shard over a "
    "two-dimensional mesh (dp_replicate, dp_shard_cp), replicating across the first and sharding within the second.",
    doc="parallelism-config",
    code="accelerate/parallelism_config.py:157-163; accelerate/utils/fsdp_utils.py:775-780; "
         "accelerate/utils/launch.py:403-415",
    demo=T + "test_fsdp2_hybrid_comes_from_the_parallelism_config",
    scope=("replicate-above-1", "replicate-1", "launch-exports"))
FSDP1_HYBRID = claim(
    "fsdp1-hybrid-groups-by-visible-devices",
    "accelerate passes FSDP1 no device mesh, so HYBRID_SHARD shards within groups of as many ranks as one machine "
    "has visible GPUs and replicates across them; on a single machine that is FULL_SHARD.",
    scope=("multi-machine", "single-machine"),
    doc="fsdp1-hybrid-shard",
    code="torch/distributed/fsdp/_init_utils.py:143-167, 201-215, 254-270; accelerate/accelerator.py:1943-1960",
    why_not_demo="the group size is the CUDA device count (device_count()), which is 0 on a CPU-only machine")

# ------------------------------------------------------------------------------------------------ ZeRO stages
ZERO_STAGES = claim(
    "ds-zero-stages-partition",
    "ZeRO-1 partitions the optimizer state (fp32 master weights and Adam moments) over the data-parallel ranks, "
    "ZeRO-2 the gradients as well, ZeRO-3 the 16-bit parameters too; ZeRO-0 partitions nothing and steps the "
    "script's optimizer directly.",
    doc="ds-zero-stages",
    code="deepspeed/runtime/engine.py:2633-2708, 2709-2798; deepspeed/runtime/zero/stage_1_and_2.py:267",
    demo=T + "test_what_each_zero_stage_partitions",
    scope=("zero0", "zero1", "zero2", "zero3"))
STAGE_DEFAULTS = claim(
    "ds-missing-stage-defaults",
    "An inline config without zero_stage runs ZeRO-2 (accelerate's default); a DeepSpeed JSON without "
    "zero_optimization.stage runs ZeRO-0 (DeepSpeed's default), while accelerate's plugin still reports 2.",
    doc="ds-zero-stages",
    code="accelerate/utils/dataclasses.py:1237-1238, 1280-1300; deepspeed/runtime/zero/config.py:95",
    demo=T + "test_a_missing_stage_is_2_inline_and_0_in_a_json",
    scope=("inline", "json"))
HPZ = claim(
    "ds-hpz-secondary-partition",
    "zero_hpz_partition_size (ZeRO++ hpZ) is read only by ZeRO-3: it keeps a second copy of the parameter shards "
    "partitioned within groups of that many ranks and all-gathers from it in backward, while gradients and "
    "optimizer state stay partitioned over all data-parallel ranks.",
    scope=("zero3", "zero1-2-unread"),
    doc="ds-zero-stages",
    code="deepspeed/runtime/engine.py:2718-2720, 2787; deepspeed/runtime/zero/partition_parameters.py:1118-1119, "
         "1338-1354",
    why_not_demo="the secondary partition needs a group of at least two ranks per replica (four gloo ranks for a "
                 "visible difference) and a DeepSpeed ZeRO-3 engine on each, beyond a short CPU test")

# ------------------------------------------------------------------------------------------------ offload
FSDP_OFFLOAD = claim(
    "fsdp-offload-single-switch",
    "fsdp_offload_params is FSDP's only offload switch: the plugin makes CPUOffload(offload_params=True) for FSDP1 "
    "or CPUOffloadPolicy() for FSDP2, neither of which has a device or an optimizer-only option; parameters and "
    "gradients then live on the CPU, so the optimizer step runs there too.",
    doc="fsdp-cpu-offload",
    code="accelerate/utils/dataclasses.py:1886-1890, 2178-2191; torch/distributed/fsdp/api.py:230-241; "
         "torch/distributed/fsdp/_fully_shard/_fsdp_api.py:183-199",
    demo=T + "test_fsdp_offload_is_one_switch",
    scope=("fsdp1", "fsdp2"))
FSDP_PINS = claim(
    "fsdp-offload-pins",
    "FSDP pins offloaded memory by itself: FSDP1 pins each offloaded shard and its CPU gradient, and accelerate "
    "builds FSDP2's CPUOffloadPolicy with its default pin_memory=True; accelerate has no key to change it.",
    doc="fsdp-cpu-offload",
    code="torch/distributed/fsdp/_flat_param.py:1258-1266; torch/distributed/fsdp/_fully_shard/_fsdp_api.py:199; "
         "accelerate/utils/dataclasses.py:2184-2189",
    demo=T + "test_fsdp_offload_is_one_switch",
    scope=("fsdp1", "fsdp2"))
DS_OFFLOAD_BLOCKS = claim(
    "ds-offload-blocks-independent",
    "DeepSpeed configures optimizer offload (zero_optimization.offload_optimizer) and parameter offload "
    "(offload_param) in two separate blocks, each with its own device (none, cpu or nvme), nvme_path and pin_memory; "
    "the inline offload_optimizer_device and offload_param_device fill the two devices.",
    doc="ds-offload-and-zero-stage",
    code="deepspeed/runtime/zero/offload_config.py:14-75; deepspeed/runtime/zero/config.py:164, 171; "
         "accelerate/utils/dataclasses.py:1305-1318",
    demo=T + "test_the_two_offload_blocks_are_independent",
    scope=("optimizer-block", "param-block", "inline-devices"))
PARAM_OFFLOAD_ZERO3 = claim(
    "ds-param-offload-zero3-only",
    "Only the ZeRO-3 optimizer reads offload_param: at ZeRO-1/2 the block is accepted and changes nothing.",
    doc="ds-offload-and-zero-stage",
    code="deepspeed/runtime/engine.py:2655-2708, 2731, 2773; deepspeed/runtime/zero/offload_config.py:21-22",
    demo=T + "test_parameter_offload_below_zero3_is_unused",
    scope=("zero-1", "zero-2", "zero-3"))
DS_PIN_DEFAULT = claim(
    "ds-offload-pin-memory-default",
    "DeepSpeed 0.19's offload blocks pin host memory by default (pin_memory true), so only false changes anything.",
    doc="ds-offload-and-zero-stage",
    code="deepspeed/runtime/zero/offload_config.py:45, 75; deepspeed/runtime/zero/stage3.py:821-832",
    demo=T + "test_the_two_offload_blocks_are_independent",
    scope=("optimizer-block", "param-block"))
NVME_INLINE = claim(
    "ds-inline-nvme-path-not-exported",
    "accelerate launch exports no inline offload_optimizer_nvme_path or offload_param_nvme_path, so with an nvme "
    "device the plugin writes nvme_path 'none', a folder relative to the working directory.",
    doc="ds-nvme-offload",
    code="accelerate/utils/launch.py:565-586; accelerate/utils/dataclasses.py:1246-1252, 1308-1317",
    demo=T + "test_inline_nvme_paths_never_reach_deepspeed",
    scope=("optimizer-nvme-path", "param-nvme-path"))
NVME_AIO = claim(
    "ds-nvme-needs-aio-and-path",
    "ZeRO-3 swaps to NVMe through DeepSpeed's async_io op, which needs libaio; the config does not require an "
    "nvme_path, and a missing one fails only while ZeRO-3 sets up (a TypeError in the optimizer swapper, an "
    "assertion in zero.Init for parameters).",
    scope=("aio-op", "optimizer-path-missing", "param-path-missing"),
    doc="ds-nvme-offload",
    code="deepspeed/runtime/swap_tensor/partitioned_optimizer_swapper.py:29; "
         "deepspeed/runtime/swap_tensor/partitioned_param_swapper.py:96; deepspeed/runtime/zero/stage3.py:839-841; "
         "deepspeed/runtime/zero/partition_parameters.py:1225-1230; deepspeed/runtime/zero/offload_config.py:30, 64",
    why_not_demo="reaching the swapper builds the async_io op (needs libaio headers and 60-100 s of compiling) and a "
                 "ZeRO-3 engine with optimizer offload, which also builds cpu_adam")
