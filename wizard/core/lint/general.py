"""Launcher-level rules: distributed_type, process counts, GPUs, mixed precision, dynamo, FP8, parallelism."""
from __future__ import annotations

from .. import ds_schema
from ..library.accelerate_versions import TOP_LEVEL_SINCE
from ..library.launcher import FP8_PACKAGES, MESH_ORDER, PC
from ..library.transformers_tp import TP_PLAN
from ..versions import VERIFIED_AGAINST
from .base import (
    DIST_DEEPSPEED,
    DIST_FSDP,
    DOC,
    ERROR,
    INFO,
    MULTI_DEVICE_TYPES,
    WARNING,
    A,
    ConfigCheck,
    as_int,
    fmt,
    kv,
    parse_bool,
    rule,
    truthy,
)

DISTRIBUTED_TYPES = ("NO", "MULTI_CPU", "MULTI_GPU", "MULTI_NPU", "MULTI_MLU", "MULTI_SDAA", "MULTI_MUSA",
                     "MULTI_XPU", "DEEPSPEED", "FSDP", "XLA", "MEGATRON_LM", "MULTI_HPU", "MULTI_NEURON")
SAGEMAKER_TYPES = ("NO", "DATA_PARALLEL", "MODEL_PARALLEL")
COMPUTE_ENVIRONMENTS = ("LOCAL_MACHINE", "AMAZON_SAGEMAKER")
PRECISIONS = ("no", "fp8", "fp16", "bf16")  # PrecisionType, accelerate/utils/dataclasses.py:773-787
DYNAMO_BACKENDS = ("NO", "EAGER", "AOT_EAGER", "INDUCTOR", "AOT_TS_NVFUSER", "NVPRIMS_NVFUSER", "CUDAGRAPHS",
                   "OFI", "FX2TRT", "ONNXRT", "TENSORRT", "AOT_TORCHXLA_TRACE_ONCE", "TORCHXLA_TRACE_ONCE", "TVM",
                   "HPU_BACKEND", "NEURON")  # DynamoBackend, utils/dataclasses.py:690-742
# The modes torch.compile accepts (torch/_inductor/__init__.py:338-372, list_mode_options); accelerate passes the
# mode through unchecked. Its own TORCH_DYNAMO_MODES (accelerate/utils/constants.py:50) only lists what
# `accelerate config` offers, so it is not the test of a valid value.
DYNAMO_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs", "lite")
PARALLELISM = {"accelerate": ">=" + TOP_LEVEL_SINCE["parallelism_config"]}  # since then parallelism_config loads

DIST_MISSING = rule("distributed-type-missing", ERROR, "distributed_type is required",
                    DOC + "config-loading; " + A + "commands/config/config_args.py:109-110",
                    claims=("config-loader-required-and-enums",))
DIST_INVALID = rule("distributed-type-invalid", ERROR, "distributed_type is not a DistributedType value",
                    DOC + "config-loading; " + A
                    + "commands/config/config_args.py:168-175, utils/dataclasses.py:602-638",
                    claims=("config-loader-required-and-enums",))
SAGEMAKER_BROKEN = rule("sagemaker-config-cannot-launch", ERROR,
                        "An AMAZON_SAGEMAKER config: accelerate launch fails reading parallelism_config, which "
                        "SageMaker configs lack",
                        DOC + "config-loading; " + A + "commands/launch.py:1219-1248, 1410; "
                        + A + "commands/config/config_args.py:198, 234-255",
                        keys="compute_environment", versions={"accelerate": ">=1.10.0"},
                        claims=("sagemaker-config-launch-fails",))
CPU_AFFINITY_LOST = rule("cpu-affinity-not-applied", ERROR,
                         "enable_cpu_affinity: true in the config never takes effect (only the launch flag sets it)",
                         DOC + "config-loading; " + A + "commands/launch.py:210-214, 1278-1283; " + A
                         + "utils/launch.py:196-197", keys="enable_cpu_affinity",
                         claims=("yaml-cpu-affinity-never-applied",))
COMPUTE_INVALID = rule("compute-environment-invalid", ERROR, "compute_environment is not a known value",
                       DOC + "config-loading; " + A + "commands/config/config_args.py:168-169",
                       claims=("config-loader-required-and-enums",))
LEGACY_FP16 = rule("legacy-top-level-fp16", WARNING,
                   "Old top-level `fp16` key (converted to mixed_precision, or dropped with the same effect)",
                   DOC + "config-loading; " + A + "commands/config/config_args.py:113-116",
                   claims=("config-loader-legacy-keys",))
LEGACY_FP16_LOST = rule("legacy-top-level-fp16-ignored", ERROR,
                        "Old top-level `fp16` is dropped because mixed_precision is also set, and the precision "
                        "that runs differs from it",
                        DOC + "config-loading; " + A + "commands/config/config_args.py:113-116",
                        claims=("config-loader-legacy-keys",))
LEGACY_DYNAMO = rule("legacy-top-level-dynamo-backend", WARNING, "Old top-level `dynamo_backend` key",
                     DOC + "config-loading; " + A + "commands/config/config_args.py:117-119",
                     claims=("config-loader-legacy-keys",))
LEGACY_DYNAMO_LOST = rule("legacy-dynamo-backend-replaces-section", ERROR,
                          "Top-level `dynamo_backend` replaces the whole dynamo_config section",
                          DOC + "config-loading; " + A + "commands/config/config_args.py:117-119",
                          claims=("config-loader-legacy-keys",))
MP_INVALID = rule("mixed-precision-invalid", ERROR, "mixed_precision is not no/fp16/bf16/fp8",
                  DOC + "mixed-precision; " + A + "utils/launch.py:278-282, :550-555",
                  claims=("launch-mixed-precision-values",))
FP8_MISSING = rule("fp8-backend-missing", ERROR,
                   "mixed_precision fp8 without an importable FP8 backend, or without the chosen backend's package",
                   DOC + "mixed-precision; " + A + "utils/launch.py:285-290, :559-563, utils/imports.py:187-189, "
                   "utils/dataclasses.py:339-342, 407-410, accelerator.py:2637-2641",
                   claims=("launch-fp8-config", "fp8-recipe-needs-its-package"))
FP8_BACKEND_BAD = rule("fp8-backend-invalid", ERROR, "fp8_config backend must be AO, TE, MSAMP or NO (upper-case)",
                       DOC + "mixed-precision; " + A + "accelerator.py:4386-4400, utils/dataclasses.py:658-672",
                       claims=("launch-fp8-config",))
FP8_UNUSED = rule("fp8-config-unused", ERROR,
                  "fp8_config is only read with mixed_precision fp8: its settings never take effect",
                  DOC + "mixed-precision; " + A + "utils/launch.py:283-290",
                  claims=("launch-fp8-config",))
FP8_OTHER_BACKEND = rule("fp8-option-other-backend", ERROR,
                         "An fp8_config option only another backend's recipe reads: exported, never read",
                         DOC + "mixed-precision; " + A + "accelerator.py:480-504, utils/dataclasses.py:312-460",
                         keys="the option and fp8_config.backend",
                         fix="delete the option, or write the backend whose recipe reads it",
                         claims=("fp8-recipe-reads-launch-env",))
FP8_NO_BACKEND = rule("fp8-option-without-backend", WARNING,
                      "An fp8 recipe option with no backend written: it takes effect only where that recipe's package "
                      "is the first fp8 package installed",
                      DOC + "mixed-precision; " + A + "accelerator.py:480-504, utils/dataclasses.py:312-460",
                      keys="the option and fp8_config.backend", fix="write fp8_config.backend: the option's backend",
                      claims=("fp8-recipe-reads-launch-env", "fp8-auto-detect-order"))
FP8_MSAMP_FSDP = rule("fp8-msamp-fsdp", ERROR, "MS-AMP FP8 does not work with FSDP",
                      DOC + "mixed-precision; " + A + "accelerator.py:603-610",
                      claims=("fp8-backend-limits",))
FP8_AO_RAM = rule("fp8-torchao-fsdp-ram-efficient-loading", ERROR,
                  "torchao FP8 + FSDP + cpu_ram_efficient_loading (on by default) raises",
                  DOC + "mixed-precision; " + A + "accelerator.py:517-526, commands/launch.py:584-591",
                  claims=("fsdp-torchao-fp8-no-ram-efficient", "fsdp-launch-ram-efficient-default-on"))
FP8_MSAMP_Z3 = rule("fp8-msamp-zero3", ERROR, "MS-AMP FP8 does not support ZeRO-3",
                    DOC + "mixed-precision; " + A + "utils/dataclasses.py:1343-1349",
                    claims=("fp8-backend-limits",))
NPROC_MISSING = rule("num-processes-missing", ERROR, "num_processes missing or -1 (must then come from the CLI)",
                     DOC + "processes-and-machines; " + A
                     + "commands/launch.py:1305-1306, commands/config/config_args.py:111-112",
                     claims=("config-num-processes-default-minus-one", "launch-num-processes-minus-one"))
NPROC_INVALID = rule("num-processes-invalid", ERROR, "num_processes / num_machines must be positive integers",
                     DOC + "processes-and-machines; " + A + "utils/launch.py:212-218, :484-490",
                     keys="num_processes or num_machines",
                     claims=("launch-process-counts-as-written",))
NUMBER_AS_STRING = rule("number-as-string", WARNING, "num_processes written as a string on one machine (works)",
                        DOC + "processes-and-machines; " + A + "utils/launch.py:212-218, :484-490",
                        keys="num_processes",
                        claims=("launch-process-counts-as-written",))
NUMBER_AS_STRING_FAILS = rule("number-as-string-fails", ERROR,
                              "num_machines written as a string, or num_processes as a string on several machines: "
                              "the launcher's arithmetic raises a TypeError",
                              DOC + "processes-and-machines; " + A
                              + "utils/launch.py:216-217 (`num_machines > 1`, `num_processes // num_machines`), "
                              ":484-485",
                              claims=("launch-process-counts-as-written",))
NOT_DIVISIBLE = rule("num-processes-not-divisible", ERROR,
                     "num_processes not divisible by num_machines: the remainder ranks are never started",
                     DOC + "processes-and-machines; " + A + "utils/launch.py:216-218, :488-490",
                     claims=("launch-procs-per-node-floor",))
TOO_MANY_PROCS = rule("more-processes-than-gpus", ERROR, "More processes per machine than GPUs per machine",
                      DOC + "processes-and-machines; " + A + "utils/launch.py:225-228",
                      claims=("launch-no-gpu-count-check", "launch-surplus-ranks-fail"))
GPU_IDS_FEW = rule("gpu-ids-too-few", ERROR, "gpu_ids lists fewer GPUs than processes per machine",
                   DOC + "processes-and-machines; " + A + "commands/launch.py:1254-1258, utils/launch.py:260-277",
                   claims=("launch-gpu-ids-visible-devices", "launch-no-gpu-count-check",
                           "launch-surplus-ranks-fail"))
GPU_IDS_TYPE = rule("gpu-ids-not-string", ERROR, "gpu_ids must be a string such as \"0,1\" or \"all\"",
                    DOC + "processes-and-machines; " + A + "commands/launch.py:1251-1258",
                    claims=("launch-gpu-ids-string",))
MULTI_GPU_IDS = rule("multi-gpu-few-gpu-ids", ERROR, "Multi-GPU launch with fewer than two gpu_ids",
                     DOC + "processes-and-machines; " + A + "commands/launch.py:1258-1262",
                     claims=("launch-no-gpu-count-check",))
MULTI_GPU_ONE = rule("multi-gpu-single-process", WARNING, "MULTI_GPU with a single process on one machine",
                     DOC + "processes-and-machines; " + A + "commands/config/cluster.py:664-667",
                     claims=("launch-multi-gpu-one-process",))
SINGLE_MANY = rule("single-process-num-processes-ignored", ERROR,
                   "distributed_type NO with num_processes > 1: launched with this file, accelerate starts a single "
                   "process, so num_processes does not take effect",
                   DOC + "processes-and-machines; " + A
                   + "commands/launch.py:1217-1248 (no launcher flag set for NO), :1409-1412 (simple_launcher)",
                   claims=("launch-distributed-type-no-one-process",))
MULTINODE_IP = rule("multinode-no-main-ip", WARNING, "Multi-machine launch without main_process_ip",
                    DOC + "processes-and-machines; " + A + "utils/launch.py:216-224, :486-496",
                    claims=("launch-multinode-endpoint-needs-ip",))
GPU_UNKNOWN = rule("gpu-count-unknown", INFO, "GPU-count rules skipped: GPUs per machine unknown",
                   DOC + "processes-and-machines, " + DOC + "fsdp1-hybrid-shard; " + A
                   + "utils/launch.py:225-228, commands/launch.py:1254-1258 (the checks skipped)")
DYNAMO_BACKEND_BAD = rule("dynamo-backend-invalid", ERROR, "dynamo_backend is not a DynamoBackend name",
                          DOC + "dynamo-config; " + A + "utils/launch.py:292-297",
                          claims=("dynamo-backend-and-flags-checked", "dynamo-backend-yaml-bool-crashes"))
DYNAMO_MODE_BAD = rule("dynamo-mode-invalid", ERROR, "dynamo_mode is not a torch.compile mode",
                       DOC + "dynamo-config; " + A
                       + "commands/launch.py:221-226 (CLI choices), utils/dataclasses.py:1098-1099",
                       claims=("dynamo-mode-from-yaml-unchecked",))
RDZV_IGNORED = rule("rdzv-backend-not-applied", ERROR, "rdzv_backend in the YAML is never applied",
                    DOC + "processes-and-machines; " + A + "commands/launch.py:326-331,1278-1283",
                    keys="rdzv_backend", fix="pass --rdzv_backend on the accelerate launch command line",
                    claims=("launch-yaml-rdzv-backend-ignored",))
DYNAMO_FLAG_BAD = rule("dynamo-flag-invalid", ERROR, "A dynamo_use_* flag that is not a boolean",
                       DOC + "dynamo-config; " + A + "utils/dataclasses.py:1100-1108, utils/environment.py:59-71",
                       claims=("dynamo-backend-and-flags-checked",))
PAR_SIZE = rule("parallelism-size-invalid", ERROR, "A parallelism size that is not an integer >= 1",
                DOC + "parallelism-config; " + A + "parallelism_config.py:274-321, utils/launch.py:420-424",
                claims=("parallelism-config-checks",), versions=PARALLELISM)
PAR_TOTAL = rule("parallelism-total-mismatch", ERROR, "Product of parallelism sizes != num_processes",
                 DOC + "parallelism-config; " + A + "parallelism_config.py:366-374",
                 claims=("parallelism-config-total-is-num-processes",), versions=PARALLELISM)
PAR_FSDP1 = rule("parallelism-needs-fsdp2", ERROR, "parallelism_config with sizes > 1 requires FSDP2",
                 DOC + "parallelism-config; " + A + "parallelism_config.py:388-395",
                 claims=("parallelism-config-needs-fsdp2",), versions=PARALLELISM)
PAR_NO_SHARD = rule("parallelism-fsdp2-no-shard-dim", ERROR,
                    "FSDP2 + parallelism_config needs dp_shard_size > 1 or cp_size > 1",
                    DOC + "parallelism-config; " + A + "parallelism_config.py:376-386",
                    claims=("parallelism-config-needs-fsdp2", "fsdp2-parallelism-needs-shard-dim"),
                    versions=PARALLELISM)
PAR_COMBO = rule("parallelism-invalid-combination", ERROR,
                 "cp and sp together, or tp/cp over pure replication, are rejected",
                 DOC + "parallelism-config; " + A + "parallelism_config.py:322-340",
                 claims=("parallelism-config-checks",), versions=PARALLELISM)
PAR_BACKEND = rule("parallelism-backend-invalid", ERROR, "cp_backend must be torch and sp_backend deepspeed",
                   DOC + "parallelism-config; " + A + "parallelism_config.py:312-320",
                   claims=("parallelism-config-checks",), versions={"accelerate": ">=1.12.0"})
PAR_TP_HEADS = rule("parallelism-tp-heads", ERROR,
                    "tp_size does not divide the model's attention heads or key-value heads (each tensor-parallel "
                    "rank needs whole heads)",
                    DOC + "parallelism-heads; transformers/models/llama/modeling_llama.py:242-246",
                    keys="parallelism_config.parallelism_config_tp_size",
                    fix="Use a tp_size that divides both head counts (the message lists them).",
                    claims=("tp-whole-heads-per-rank",), versions=PARALLELISM)
PAR_TP_NO_PLAN = rule("parallelism-tp-no-plan", ERROR,
                      "tp_size above 1 for a model type that has no tensor-parallel plan in transformers",
                      DOC + "parallelism-heads; transformers/modeling_utils.py:4726-4740",
                      keys="parallelism_config.parallelism_config_tp_size",
                      fix="Use tp_size 1 (shard with FSDP only), or a model type that has a tensor-parallel plan.",
                      claims=("tp-needs-model-plan",), versions=PARALLELISM)
PAR_TP_PLAN_UNKNOWN = rule("parallelism-tp-plan-unknown", INFO,
                           "tp_size above 1 for a model type the wizard does not know: whether transformers has a "
                           "tensor-parallel plan for it was not checked",
                           DOC + "parallelism-heads", keys="parallelism_config.parallelism_config_tp_size",
                           fix="Check that the model's config class has a base_model_tp_plan.",
                           claims=("tp-needs-model-plan",), versions=PARALLELISM)
PAR_SP_HEADS = rule("parallelism-sp-heads", ERROR,
                    "DeepSpeed sp_size does not divide the model's attention heads, or its key-value heads and "
                    "sp_size do not divide one another",
                    DOC + "parallelism-heads; deepspeed/runtime/sequence_parallel/ulysses_sp.py:130-152",
                    keys="parallelism_config.parallelism_config_sp_size",
                    fix="Use an sp_size that fits both head counts (the message lists them).",
                    claims=("ds-ulysses-heads-divide",), versions=PARALLELISM)
PAR_SP_ATTN = rule("parallelism-sp-attn-invalid", ERROR,
                   "sp_attn_implementation that sequence parallelism refuses (eager, flex_attention, an unknown name)",
                   DOC + "parallelism-heads; " + A + "utils/dataclasses.py:2289-2309",
                   keys="parallelism_config.parallelism_config_sp_attn_implementation",
                   fix="Write sdpa (the default), flash_attention_2, flash_attention_3 or a hub flash-attention "
                       "kernel.",
                   claims=("ds-sp-attn-implementation-values",), versions={"accelerate": ">=1.12.0"})
PAR_SP_NO_LENGTH = rule("parallelism-sp-seq-length-missing", ERROR,
                        "sp_seq_length_is_variable false without sp_seq_length: prepare() raises",
                        DOC + "parallelism-heads; deepspeed/runtime/sequence_parallel/ulysses_sp.py:425-436",
                        keys="parallelism_config.parallelism_config_sp_seq_length_is_variable, "
                             "parallelism_config_sp_seq_length",
                        fix="Give parallelism_config_sp_seq_length (every batch's length), or leave the length "
                            "variable.",
                        claims=("ds-sp-fixed-length-needs-seq-length",), versions={"accelerate": ">=1.12.0"})
PAR_TP_TRANSFORMERS = rule("parallelism-fsdp2-tp-transformers", ERROR,
                           "FSDP2 with tp_size above 1 under transformers 5.1 or later: accelerate's prepare() "
                           "imports a class those releases no longer have",
                           DOC + "parallelism-heads; " + A + "accelerator.py:1581-1635",
                           keys="parallelism_config.parallelism_config_tp_size",
                           fix="Train FSDP2 + TP with transformers 4.52 to 5.0.x, or set tp_size 1.",
                           claims=("accelerate-fsdp2-tp-needs-replicate-parallel",),
                           versions={"accelerate": ">=1.10.0", "transformers": ">=5.1.0"})
PAR_TP_RAM = rule("parallelism-fsdp2-tp-ram-efficient-loading", ERROR,
                  "FSDP2 with tp_size above 1 and cpu_ram_efficient_loading on (the launch default): prepare() "
                  "loads rank 0's tensor-parallel shards as whole weights and fails",
                  DOC + "parallelism-heads; " + A + "utils/fsdp_utils.py:574-666, :887-895",
                  keys="parallelism_config.parallelism_config_tp_size, fsdp_config.fsdp_cpu_ram_efficient_loading",
                  fix="Set fsdp_config.fsdp_cpu_ram_efficient_loading: false (with TP every rank loads its own shard "
                      "through transformers), or tp_size 1.",
                  claims=("accelerate-fsdp2-tp-ram-efficient-loading-fails", "fsdp-launch-ram-efficient-default-on"))
PAR_DS_UNUSED = rule("parallelism-unused-under-deepspeed", ERROR,
                     "parallelism_config sizes DeepSpeed does not use (dp_replicate, cp, tp; dp_shard at ZeRO-0): "
                     "accelerate accepts them, the engine trains plain data parallel over every rank",
                     DOC + "parallelism-heads; " + A + "accelerator.py:1532-1550",
                     keys="parallelism_config.parallelism_config_{dp_replicate,dp_shard,cp,tp}_size",
                     fix="Remove them (DeepSpeed partitions over every rank by its ZeRO stage; its tensor parallelism "
                         "is tensor_parallel.autotp_size in the DeepSpeed JSON), or use FSDP2.",
                     claims=("ds-parallelism-sizes-unused",), versions=PARALLELISM)
PAR_DS_SHARD_HARMLESS = rule("parallelism-dp-shard-under-deepspeed", WARNING,
                             "parallelism_config_dp_shard_size under DeepSpeed ZeRO-1/2/3: not read, and ZeRO "
                             "partitions over every rank anyway",
                             DOC + "parallelism-heads",
                             keys="parallelism_config.parallelism_config_dp_shard_size",
                             fix="Remove it: the ZeRO stage decides the partitioning.",
                             claims=("ds-parallelism-sizes-unused",), versions=PARALLELISM)
PAR_CP_WINDOWED = rule("parallelism-cp-windowed-attention", ERROR,
                       "cp_size above 1 for a model with sliding-window (or chunked) attention layers: accelerate "
                       "refuses it at prepare()",
                       DOC + "parallelism-heads; " + A + "big_modeling.py:787-826",
                       keys="parallelism_config.parallelism_config_cp_size",
                       fix="Use cp_size 1 for this model, or a model whose layers all use full causal attention.",
                       claims=("accelerate-cp-refuses-windowed-attention",), versions={"accelerate": ">=1.15.0"})
PAR_CP_MASK = rule("parallelism-cp-drops-attention-mask", WARNING,
                   "cp_size above 1: accelerate drops every attention mask and runs plain causal attention",
                   DOC + "parallelism-heads; " + A + "big_modeling.py:828-850",
                   keys="parallelism_config.parallelism_config_cp_size",
                   fix="Train context-parallel on batches that need no mask: unpadded, one document per sequence.",
                   claims=("accelerate-cp-drops-attention-mask",), versions=PARALLELISM)
PAR_MESH = rule("parallelism-mesh-layout", INFO,
                "The device mesh accelerate builds: which ranks form each tensor, context and data-parallel group",
                DOC + "parallelism-heads; " + A + "parallelism_config.py:211-272",
                keys="parallelism_config.parallelism_config_*_size",
                fix="Nothing to change; keep each tensor- and context-parallel group inside one machine.",
                claims=("accelerate-mesh-rank-order",), versions=PARALLELISM)
PAR_SPANS = rule("parallelism-group-spans-machines", WARNING,
                 "Tensor- or context-parallel groups that span machines: their per-layer collectives cross the network",
                 DOC + "parallelism-heads; " + A + "parallelism_config.py:260-272",
                 keys="parallelism_config.parallelism_config_tp_size or _cp_size, num_processes, num_machines",
                 fix="Keep tp_size x cp_size within one machine's processes (a divisor of them).",
                 claims=("accelerate-mesh-rank-order",), versions=PARALLELISM)
PAR_HEADS_UNCHECKED = rule("parallelism-heads-unchecked", INFO,
                           "tp_size or sp_size above 1 and the model unknown: whether they divide its attention "
                           "heads was not checked (check --model)",
                           DOC + "parallelism-heads",
                           keys="parallelism_config.parallelism_config_tp_size, parallelism_config_sp_size",
                           fix="Run check again with --model CONFIG.json|NAME.",
                           claims=("tp-whole-heads-per-rank", "ds-ulysses-heads-divide"),
                           versions=PARALLELISM)
PAR_DS_SP_TOTAL = rule("parallelism-ds-sp-total-mismatch", ERROR,
                       "DeepSpeed Ulysses: dp_replicate x dp_shard x sp != num_processes (the batch size check fails)",
                       DOC + "parallelism-heads; " + A + "accelerator.py:2357-2365; "
                       "deepspeed/runtime/config.py:456-463, 595-606",
                       keys="parallelism_config.parallelism_config_sp_size, _dp_shard_size, _dp_replicate_size, "
                            "num_processes",
                       fix="Set parallelism_config_dp_shard_size to num_processes / sp_size.",
                       claims=("ds-ulysses-batch-needs-dp-sizes",), versions={"accelerate": ">=1.12.0"})
PAR_CP_FSDP = rule("parallelism-cp-needs-fsdp2", ERROR, "Context parallelism (cp_size > 1) needs FSDP2",
                   DOC + "parallelism-config; " + A + "state.py:990-1005",
                   claims=("parallelism-config-needs-fsdp2",), versions=PARALLELISM)


def derive(ctx: ConfigCheck) -> None:
    y = ctx.y
    dist = y.get("distributed_type")
    if dist is False:  # an unquoted NO, which YAML reads as false: accelerate launches it as NO (one process)
        dist = "NO"
    ctx.dist = dist if isinstance(dist, str) and dist in DISTRIBUTED_TYPES else None
    ctx.kind = None if ctx.dist is None else ("fsdp" if ctx.dist == DIST_FSDP else
                                               "deepspeed" if ctx.dist == DIST_DEEPSPEED else "other")
    nm = y.get("num_machines", 1)
    nm_int = as_int(nm)
    ctx.nmach = nm_int if nm_int is not None and nm_int >= 1 else (
        int(nm) if isinstance(nm, str) and nm.strip().isdigit() and int(nm) >= 1 else 1)
    np_ = y.get("num_processes", 1 if ctx.dist == "NO" else -1)
    n = as_int(np_)
    if n is None and isinstance(np_, str) and np_.strip().isdigit():
        n = int(np_)
    ctx.nproc = n if n is not None and n >= 1 else None
    mp = y.get("mixed_precision")
    if mp is None:
        ctx.mp = "no"
    elif isinstance(mp, str) and mp.lower() in PRECISIONS:
        ctx.mp = mp.lower()
    else:
        ctx.mp = None


def check_distributed_type(ctx: ConfigCheck) -> None:
    y = ctx.y
    env = y.get("compute_environment", "LOCAL_MACHINE")
    if env not in COMPUTE_ENVIRONMENTS:
        ctx.emit(COMPUTE_INVALID, "compute_environment",
                 f"{kv('compute_environment', env)} is not a compute environment accelerate knows; loading fails.",
                 "Use LOCAL_MACHINE (or delete the key).")
    if "distributed_type" not in y:
        ctx.emit(DIST_MISSING, "distributed_type", "The file has no `distributed_type`; accelerate refuses to "
                 "load it ('A `distributed_type` must be specified').", "Add `distributed_type: FSDP` or "
                 "`distributed_type: DEEPSPEED` (or MULTI_GPU / NO).")
        return
    if env == "AMAZON_SAGEMAKER":
        ctx.emit(SAGEMAKER_BROKEN, "compute_environment", "`compute_environment: AMAZON_SAGEMAKER`: `accelerate "
                 f"launch --config_file` of accelerate {ctx.versions.get('accelerate') or '1.15'} reads the config's "
                 "`parallelism_config` before it chooses a launcher, and a SageMaker config has no such field: it "
                 "stops with an AttributeError before the SageMaker launcher runs (accelerate 1.10 and later).",
                 "Launch the SageMaker job another way (the SageMaker Python SDK), or use accelerate before 1.10 "
                 "for it.")
    dist = y["distributed_type"]
    allowed = SAGEMAKER_TYPES if env == "AMAZON_SAGEMAKER" else DISTRIBUTED_TYPES
    if dist is False and env != "AMAZON_SAGEMAKER":
        return  # `distributed_type: NO` unquoted: YAML's false, which the launcher treats like NO
    if not (isinstance(dist, str) and dist in allowed):
        best = ds_schema.did_you_mean(str(dist), allowed)
        ctx.emit(DIST_INVALID, "distributed_type",
                 f"{kv('distributed_type', dist)} is not a distributed type (the names are upper-case and exact); "
                 "loading the config fails." + (f" Did you mean `{best}`?" if best else ""),
                 "Use one of: " + ", ".join(allowed) + ".")


def check_rdzv_backend(ctx: ConfigCheck) -> None:
    """accelerate copies a top-level YAML value only onto a launch argument that is still None, and --rdzv_backend
    defaults to "static": a YAML rdzv_backend never reaches torchrun."""
    value = ctx.y.get("rdzv_backend")
    if value is not None and str(value) != "static":
        ctx.emit(RDZV_IGNORED, "rdzv_backend",
                 f"{kv('rdzv_backend', value)} never takes effect: accelerate launch keeps its own default "
                 "`static` for this key (it only fills in values the command line left unset, and this one is "
                 "never unset), so torchrun uses static rendezvous at main_process_ip:main_process_port.",
                 f"Pass `--rdzv_backend {value}` on the `accelerate launch` command line, and set "
                 "`rdzv_backend: static` (or delete it) in the file.")


def check_legacy_top_level(ctx: ConfigCheck) -> None:
    y = ctx.y
    if "fp16" in y:
        if "mixed_precision" in y and ctx.mp is not None and truthy(y["fp16"]) != (ctx.mp == "fp16"):
            ctx.emit(LEGACY_FP16_LOST, ("fp16", "mixed_precision"),
                     f"{kv('fp16', y['fp16'])} is an old spelling that accelerate drops when `mixed_precision` is "
                     f"also present, so it has no effect: the run uses mixed_precision {fmt(ctx.mp)}"
                     + (", not fp16." if truthy(y["fp16"]) else ", which is fp16."),
                     "Delete `fp16` and set `mixed_precision` to the precision you want.")
        elif "mixed_precision" in y:
            ctx.emit(LEGACY_FP16, "fp16", f"{kv('fp16', y['fp16'])} is an old spelling that accelerate drops because "
                     "`mixed_precision` is also set; it agrees with mixed_precision, so it has no effect.",
                     "Remove `fp16`.")
        else:
            ctx.emit(LEGACY_FP16, "fp16", f"{kv('fp16', y['fp16'])} is an old spelling of `mixed_precision`.",
                     "Write `mixed_precision: fp16` (or 'no') instead.")
    if "dynamo_backend" in y:
        if ctx.section("dynamo_config"):
            ctx.emit(LEGACY_DYNAMO_LOST, ("dynamo_backend", "dynamo_config"),
                     f"Top-level {kv('dynamo_backend', y['dynamo_backend'])} makes accelerate rebuild "
                     "`dynamo_config` from it alone, so the settings written in `dynamo_config` are dropped.",
                     "Delete the top-level `dynamo_backend` and keep `dynamo_config.dynamo_backend`.")
        else:
            ctx.emit(LEGACY_DYNAMO, "dynamo_backend", "Top-level `dynamo_backend` is an old spelling.",
                     "Write it as `dynamo_config: {dynamo_backend: ...}`.")


def check_mixed_precision(ctx: ConfigCheck, fp8_available) -> None:
    y = ctx.y
    mp = y.get("mixed_precision")
    if mp is not None and ctx.mp is None:
        if isinstance(mp, bool):
            msg = (f"{kv('mixed_precision', mp)}: YAML reads an unquoted `no`/`yes`/`off` as a boolean, and the "
                   "launcher then fails calling `.lower()` on it.")
            fix = "Quote it: `mixed_precision: 'no'` (or fp16 / bf16)."
        else:
            msg = f"{kv('mixed_precision', mp)} is not a precision accelerate knows; the launch fails."
            fix = "Use one of 'no', fp16, bf16, fp8."
        ctx.emit(MP_INVALID, "mixed_precision", msg, fix)
    if ctx.mp != "fp8":
        if ctx.section("fp8_config") and ctx.mp is not None and ctx.fp8_ignored():
            ctx.emit(FP8_UNUSED, ("fp8_config", "mixed_precision"), f"`fp8_config` is filled in but "
                     f"mixed_precision is {fmt(ctx.mp)}, so the FP8 settings are never exported and none of them "
                     "takes effect.", "Delete `fp8_config` or use `mixed_precision: fp8`.")
        return
    if not fp8_available():
        ctx.emit(FP8_MISSING, "mixed_precision",
                 "`mixed_precision: fp8` needs torchao, Transformer Engine or MS-AMP, and none of them can be "
                 "imported in this Python environment; the launcher raises 'FP8 is not available'.",
                 "Install an FP8 backend where you launch (e.g. `pip install torchao`), or use bf16.")
    fp8 = ctx.fp8()  # the effective model's fp8 keys: which recipe runs, what each written key becomes
    _fp8_options(ctx, fp8)
    used = fp8.values.get("fp8.backend")
    if used is None or not used.keys:
        return
    name = used.keys[0].removeprefix("fp8_config.")  # the backend's key as written: backend or fp8_backend
    written_key = f"fp8_config.{name}"
    written = ctx.section("fp8_config").get(name)
    backend = used.value  # AO, TE or MSAMP as written (None: the first installed, or a value accelerate refuses)
    package = FP8_PACKAGES.get(backend) if isinstance(backend, str) else None
    if package is not None and fp8_available() and not fp8_available(package[0]):
        ctx.emit(FP8_MISSING, (written_key, "mixed_precision"),
                 f"{kv(written_key, written)} needs {package[1]}, which cannot be imported in "
                 "this Python environment: another FP8 package lets accelerate launch pass, then "
                 + ("prepare() raises ImportError." if backend == "MSAMP" else
                    "the Accelerator raises ImportError building the recipe."),
                 f"Install {package[1]} where you launch, or write the backend that is installed.")
    if ctx.fp8_backend_refused():
        ctx.emit(FP8_BACKEND_BAD, written_key,
                 f"{kv(written_key, written)}: accelerate turns this value into an FP8 backend "
                 "type that only accepts AO, TE, MSAMP or NO (use the first one installed) in upper case, so the "
                 "Accelerator fails to start.",
                 "Write AO, TE or MSAMP (or NO to let accelerate pick).")
    if backend == "MSAMP" and ctx.kind == "fsdp":
        ctx.emit(FP8_MSAMP_FSDP, (written_key, "distributed_type"),
                 "MS-AMP FP8 cannot be combined with FSDP; the Accelerator raises at start-up.",
                 "Use backend AO or TE with FSDP, or switch to DeepSpeed.")
    if backend == "MSAMP" and ctx.kind == "deepspeed" and ctx.stage == 3:
        stage_key = "zero_optimization.stage" if ctx.ds_file_mode else "deepspeed_config.zero_stage"
        ctx.emit(FP8_MSAMP_Z3, (written_key, stage_key), "MS-AMP FP8 does not support ZeRO stage 3; "
                 "the DeepSpeed plugin raises.", "Use ZeRO stage 0-2 with MS-AMP, or the TE / AO FP8 backend.")
    if backend == "AO" and ctx.kind == "fsdp":
        k, on = _ram_efficient_loading(ctx)
        if on:
            keys = (written_key,) + ((f"fsdp_config.{k}",) if k is not None else ())
            ctx.emit(FP8_AO_RAM, keys, "torchao FP8 with FSDP does not support cpu_ram_efficient_loading, which "
                     "is on" + (" (launch default)" if k is None else "") + "; the Accelerator raises.",
                     "Set `fsdp_config.fsdp_cpu_ram_efficient_loading: false`.")


def _fp8_options(ctx: ConfigCheck, fp8) -> None:
    """The recipe options the effective model sets aside: another backend's (ignored), or with no backend written
    (the packages installed where the run starts decide whether their recipe runs)."""
    from ..effective.fp8 import OWNER
    from ..effective.used import IGNORED, OVERRIDDEN

    backend = fp8.values.get("fp8.backend")
    for key, u in fp8.values.items():
        field = key.removeprefix("fp8.")
        if field not in OWNER or not u.keys:
            continue
        option, owner = u.keys[0], OWNER[field]
        if u.why == IGNORED and backend is not None and backend.keys:
            ctx.emit(FP8_OTHER_BACKEND, (option, backend.keys[0]),
                     f"`{option}` is read only by the {owner} fp8 recipe, but the {backend.value} recipe runs "
                     f"({kv(backend.keys[0], backend.value)}): accelerate launch exports it and nothing reads it.",
                     f"Delete `{option}`, or write `fp8_config.backend: {owner}` if that recipe is meant.")
        elif u.why == OVERRIDDEN and not ctx.fp8_backend_refused():
            ctx.emit(FP8_NO_BACKEND, (option, "fp8_config.backend"),
                     f"`{option}` is read only by the {owner} fp8 recipe, and no backend is written: accelerate "
                     "builds the recipe of the first fp8 package installed (torchao, then Transformer Engine, then "
                     "MS-AMP), so where another one comes first the option is ignored.",
                     f"Write `fp8_config.backend: {owner}`.")


def _ram_efficient_loading(ctx: ConfigCheck) -> tuple[str | None, bool]:
    """FSDP's cpu_ram_efficient_loading: the key as written (None: not written) and whether it is on (the launch
    default is on)."""
    k, v = ctx.fsdp.get("fsdp_cpu_ram_efficient_loading", (None, "true"))
    return k, bool(parse_bool(v))


def _ds_runner(ctx: ConfigCheck) -> bool:
    """DeepSpeed on several machines through its runner (any launcher but `standard`): the runner sets each node's
    CUDA_VISIBLE_DEVICES from the hostfile slots (replacing gpu_ids) and needs no main_process_ip."""
    return ctx.kind == "deepspeed" and ctx.nmach > 1 and str(
        ctx.section("deepspeed_config").get("deepspeed_multinode_launcher", "pdsh")) != "standard"


def check_processes(ctx: ConfigCheck) -> None:
    y = ctx.y
    aff = y.get("enable_cpu_affinity")
    if aff is True or (isinstance(aff, str) and aff.strip().lower() == "true"):
        ctx.emit(CPU_AFFINITY_LOST, "enable_cpu_affinity", f"{kv('enable_cpu_affinity', aff)} never takes effect: "
                 "accelerate launch copies a config value only onto an argument that is still unset, and "
                 "--enable_cpu_affinity is a flag that is False unless given, so the processes are not pinned.",
                 "Pass --enable_cpu_affinity on the `accelerate launch` command line (and set the key to false or "
                 "delete it).")
    raw = y.get("num_processes")
    if ctx.dist is not None and ctx.dist != "NO" and ("num_processes" not in y or as_int(raw) == -1):
        ctx.emit(NPROC_MISSING, "num_processes",
                 "`num_processes` is " + ("missing" if "num_processes" not in y else "-1") + "; `accelerate launch "
                 "--config_file` then stops with 'You need to manually pass in `--num_processes`'.",
                 "Write the total number of processes (GPUs over all machines), or always pass --num_processes.")
    elif ctx.dist is not None and ctx.dist != "NO" and raw is None:
        ctx.emit(NPROC_INVALID, "num_processes", "`num_processes: null` gives the launcher no process count: it "
                 "hands torchrun 'None' processes per machine (or fails dividing it by num_machines), and nothing "
                 "starts.", "Write the total number of processes (GPUs over all machines).")
    if "num_machines" in y and y["num_machines"] is None and ctx.dist is not None:
        ctx.emit(NPROC_INVALID, "num_machines", "`num_machines: null` reaches the launcher as None, and it compares "
                 "it with 1 (`num_machines > 1`): a TypeError before any process starts.",
                 "Write `num_machines: 1` (or the number of machines), or delete the key.")
    for key, value in (("num_processes", raw), ("num_machines", y.get("num_machines"))):
        if value is None or (key == "num_processes" and as_int(value) == -1):
            continue
        n = as_int(value)
        if n is not None and n >= 1:
            continue
        if isinstance(value, str) and value.strip().isdigit() and int(value) >= 1:
            launched = ctx.dist is not None and ctx.dist != "NO"
            if launched and (key == "num_machines" or ctx.nmach > 1):
                why = ("the launcher compares it with the number 1 (`num_machines > 1`)" if key == "num_machines"
                       else "the launcher divides it by num_machines")
                keys = (key,) + (("num_machines",) if key == "num_processes" else ())
                ctx.emit(NUMBER_AS_STRING_FAILS, keys, f"{kv(key, value)} is a string and {why}, which raises a "
                         "TypeError before any process starts.", f"Write it as a number: `{key}: {int(value)}`.")
            else:
                ctx.emit(NUMBER_AS_STRING, key, f"{kv(key, value)} is a string; it works here only because the "
                         "launcher passes it on as text on one machine (with several machines it fails).",
                         f"Write it as a number: `{key}: {int(value)}`.")
            continue
        ctx.emit(NPROC_INVALID, key, f"{kv(key, value)} is not a positive whole number; the launcher cannot use it.",
                 f"Write `{key}` as an integer >= 1.")
    if ctx.dist == "NO" and ctx.nproc is not None and ctx.nproc > 1:
        ctx.emit(SINGLE_MANY, ("distributed_type", "num_processes"),
                 f"`distributed_type: NO` with `num_processes: {ctx.nproc}`: launched with this file, `accelerate "
                 "launch` starts a single process however many GPUs the machine has, so num_processes has no "
                 "effect (it switches to multi-GPU on its own only when no config file is used).",
                 "Use MULTI_GPU, FSDP or DEEPSPEED for several processes, or set `num_processes: 1`.")
    multi = ctx.dist in MULTI_DEVICE_TYPES
    if multi and ctx.nproc == 1 and ctx.nmach <= 1:
        ctx.emit(MULTI_GPU_ONE, ("distributed_type", "num_processes"),
                 f"`distributed_type: {ctx.dist}` with one process on one machine "
                 "starts torchrun with a single process: one-GPU training, through a one-rank process group and "
                 "DDP that only add overhead.",
                 "Set num_processes to the GPU count, or use `distributed_type: NO`.")
    gpu_ids = y.get("gpu_ids")
    if gpu_ids is not None and not isinstance(gpu_ids, str):
        ctx.emit(GPU_IDS_TYPE, "gpu_ids", f"{kv('gpu_ids', gpu_ids)} is not a string; the launcher calls "
                 "`.split(',')` on it and crashes.", "Quote it: `gpu_ids: '0'` or `gpu_ids: '0,1'` or `all`.")
    elif isinstance(gpu_ids, str) and gpu_ids != "all":
        count = len(gpu_ids.split(","))
        if multi and ctx.nmach <= 1 and count < 2:
            ctx.emit(MULTI_GPU_IDS, ("gpu_ids", "distributed_type"),
                     f"{kv('gpu_ids', gpu_ids)} names fewer than two GPUs for a multi-GPU launch; "
                     "the launcher refuses it.",
                     "List at least two ids, or use `gpu_ids: all`.")
        ppn = ctx.nproc_per_node
        if ctx.fsdp_like and ppn is not None and count < ppn and not _ds_runner(ctx):
            ctx.emit(GPU_IDS_FEW, ("gpu_ids", "num_processes") + (("num_machines",) if ctx.nmach > 1 else ()),
                     f"{kv('gpu_ids', gpu_ids)} makes {count} GPU(s) visible but {ppn} processes start on each "
                     "machine; the extra ranks share GPUs with other ranks and fail at start-up.",
                     "List one GPU id per process, or lower num_processes.")
    if not ctx.fsdp_like or ctx.nproc is None:
        return
    if ctx.nmach > 1 and ctx.nproc % ctx.nmach:
        ctx.emit(NOT_DIVISIBLE, ("num_processes", "num_machines"), f"`num_processes: {ctx.nproc}` is not a multiple of "
                 f"`num_machines: {ctx.nmach}`; each machine starts {ctx.nproc // ctx.nmach} processes, so the job "
                 f"runs with {ctx.nproc // ctx.nmach * ctx.nmach} ranks, not {ctx.nproc}.",
                 "Make num_processes = processes per machine x num_machines.")
    if ctx.nmach > 1 and not y.get("main_process_ip") and not _ds_runner(ctx):
        ctx.emit(MULTINODE_IP, ("main_process_ip", "num_machines"),
                 f"{ctx.nmach} machines but no `main_process_ip`: the machines cannot find the rank-0 host unless it "
                 "is passed on the command line.",
                 "Write the rank-0 machine's address, or pass --main_process_ip at launch.")
    ppn = ctx.nproc_per_node
    if ctx.gpus_per_node is None:
        return
    if ppn is not None and ppn > ctx.gpus_per_node:
        ctx.emit(TOO_MANY_PROCS, ("num_processes",) + (("num_machines",) if ctx.nmach > 1 else ()),
                 f"{ppn} processes per machine (num_processes {ctx.nproc} / num_machines {ctx.nmach}) but only "
                 f"{ctx.gpus_per_node} GPU(s) per machine (counted on this machine, or given by --gpus-per-node); "
                 "on machines like that the extra ranks share GPUs with other ranks and fail at start-up.",
                 f"Use at most {ctx.gpus_per_node * ctx.nmach} processes, or pass --gpus-per-node with the GPU "
                 "count of the machines you train on.")


def report_gpu_unknown(ctx: ConfigCheck) -> None:
    if ctx.gpus_per_node is None and ctx.fsdp_like and not truthy(ctx.y.get("use_cpu", False)):
        ctx.emit(GPU_UNKNOWN, "num_processes", "GPUs per machine are unknown here (none detected and no "
                 "--gpus-per-node), so the checks that compare process counts with GPUs were skipped.",
                 "Pass --gpus-per-node N to run them.")


def _dynamo_section(ctx: ConfigCheck) -> tuple[dict, bool]:
    """dynamo_config as accelerate's loader leaves it, and whether it comes from the top level: a top-level (old
    spelling) ``dynamo_backend`` replaces the section with ``{dynamo_backend: value}``, or an empty one for exactly
    "NO" (commands/config/config_args.py:117-119)."""
    if "dynamo_backend" in ctx.y:
        legacy = ctx.y["dynamo_backend"]
        return ({} if legacy == "NO" else {"dynamo_backend": legacy}), True
    return ctx.section("dynamo_config"), False


def check_dynamo(ctx: ConfigCheck) -> None:
    dyn, top = _dynamo_section(ctx)
    if not dyn or ctx.dist == DIST_DEEPSPEED:
        return
    vals = {(str(k) if str(k).startswith("dynamo_") else "dynamo_" + str(k)): (str(k), v) for k, v in dyn.items()}
    key, backend = vals.get("dynamo_backend", (None, "no"))
    enabled = False
    if key is not None and backend is not None:  # null: the launcher puts in 'no' (commands/launch.py:1303-1304)
        written = "dynamo_backend" if top else f"dynamo_config.{key}"
        if isinstance(backend, bool):
            ctx.emit(DYNAMO_BACKEND_BAD, "dynamo_backend" if top else f"dynamo_config.{key}",
                     f"{kv(written, backend)}: YAML reads an unquoted `no`/`off`/`false` (or `yes`/`on`/`true`) "
                     "as a boolean, and the launcher then calls `.upper()` on it: `accelerate launch` stops with "
                     "\"AttributeError: 'bool' object has no attribute 'upper'\" before any process starts.",
                     "Quote it: `dynamo_backend: 'no'` (no compiling), or name a backend such as INDUCTOR.")
        elif not isinstance(backend, str) or backend.upper() not in DYNAMO_BACKENDS:
            best = ds_schema.did_you_mean(str(backend).upper(), DYNAMO_BACKENDS)
            ctx.emit(DYNAMO_BACKEND_BAD, "dynamo_backend" if top else f"dynamo_config.{key}",
                     f"{kv(written, backend)} is not a dynamo backend; the launcher raises "
                     "'Unknown dynamo backend'." + (f" Did you mean `{best}`?" if best else ""),
                     "Use e.g. INDUCTOR (or NO); the name is case-insensitive.")
        else:
            enabled = backend.upper() != "NO"
    mkey, mode = vals.get("dynamo_mode", (None, "default"))
    if mkey is not None and enabled and mode not in DYNAMO_MODES:
        ctx.emit(DYNAMO_MODE_BAD, f"dynamo_config.{mkey}",
                 f"{kv('dynamo_config.' + mkey, mode)} is not a torch.compile mode; compilation fails when the "
                 "model is prepared.",
                 "Use default, reduce-overhead, max-autotune, max-autotune-no-cudagraphs or lite.")
    for flag in ("dynamo_use_fullgraph", "dynamo_use_dynamic", "dynamo_use_regional_compilation"):
        if flag in vals and parse_bool(vals[flag][1]) is None:
            fkey, value = vals[flag]
            ctx.emit(DYNAMO_FLAG_BAD, f"dynamo_config.{fkey}",
                     f"{kv('dynamo_config.' + fkey, value)} is not a boolean; the Accelerator fails to parse it.",
                     "Write true or false.")


def size_key(name: str) -> str:
    """The written key of a parallelism size: ``tp`` -> ``parallelism_config.parallelism_config_tp_size``."""
    return f"parallelism_config.{PC}{name}_size"


def _pc_sizes(ctx: ConfigCheck) -> dict[str, int] | None:
    pc = ctx.section("parallelism_config")
    sizes, ok = {}, True
    for name in MESH_ORDER:
        key = f"{PC}{name}_size"
        value = pc.get(key, 1)
        n = as_int(value)
        if n is None or n < 1:
            ok = False
            ctx.emit(PAR_SIZE, f"parallelism_config.{key}",
                     f"{kv('parallelism_config.' + key, value)} must be a whole number >= 1; the launcher or "
                     "ParallelismConfig rejects it.", "Write a positive integer (1 turns the dimension off).")
        else:
            sizes[name] = n
    return sizes if ok else None


def check_parallelism(ctx: ConfigCheck) -> None:
    pc = ctx.section("parallelism_config")
    if not pc or ctx.dist not in MULTI_DEVICE_TYPES | {DIST_FSDP, DIST_DEEPSPEED}:
        return
    for key, allowed in ((PC + "cp_backend", "torch"), (PC + "sp_backend", "deepspeed")):
        if key in pc and pc[key] != allowed:
            ctx.emit(PAR_BACKEND, f"parallelism_config.{key}", f"{kv('parallelism_config.' + key, pc[key])}: the "
                     f"only accepted value is {allowed}.", f"Write `{key}: {allowed}` or delete the key.")
    sizes = _pc_sizes(ctx)
    if sizes is None:
        return
    total = 1
    for n in sizes.values():
        total *= n
    pkeys = tuple(f"parallelism_config.{k}" for k in pc if str(k).endswith("_size") and str(k).startswith(PC))
    if sizes["cp"] > 1 and sizes["sp"] > 1:
        ctx.emit(PAR_COMBO, pkeys, "Context parallelism and sequence parallelism cannot both be > 1.",
                 "Set one of cp_size / sp_size to 1.")
    if (sizes["tp"] > 1 or sizes["cp"] > 1) and sizes["dp_replicate"] > 1 and sizes["dp_shard"] == 1:
        ctx.emit(PAR_COMBO, pkeys, "tp/cp > 1 cannot be combined with pure replication (dp_replicate_size > 1 and "
                 "dp_shard_size 1).", "Use dp_shard_size > 1 (FSDP + TP/CP) or keep dp_replicate_size at 1.")
    version = ctx.fsdp_version if ctx.kind == "fsdp" else None
    if total > 1 and ctx.kind == "fsdp" and version == 1:
        ctx.emit(PAR_FSDP1, pkeys + (("fsdp_config." + ctx.fsdp["fsdp_version"][0],) if "fsdp_version" in ctx.fsdp
                                     else ()),
                 "`parallelism_config` with sizes above 1 only works with FSDP2, but this file runs FSDP1"
                 + ("" if "fsdp_version" in ctx.fsdp else " (fsdp_version omitted, so 1)") + "; the Accelerator "
                 "raises.", "Set `fsdp_config.fsdp_version: 2`, or remove parallelism_config.")
    if sizes["cp"] > 1 and ctx.dist in MULTI_DEVICE_TYPES:
        ctx.emit(PAR_CP_FSDP, (f"parallelism_config.{PC}cp_size", "distributed_type"),
                 "cp_size > 1 needs an FSDP plugin (FSDP2); with "
                 f"`distributed_type: {ctx.dist}` the Accelerator raises.", "Use FSDP with fsdp_version 2.")
    if total > 1 and ctx.kind == "fsdp" and version == 2 and sizes["dp_shard"] == 1 and sizes["cp"] == 1:
        ctx.emit(PAR_NO_SHARD, pkeys, "FSDP2 with parallelism_config needs a dimension to shard over "
                 "(dp_shard_size > 1 or cp_size > 1); both are 1, so the Accelerator raises.",
                 "Raise parallelism_config_dp_shard_size (for hybrid sharding: the processes on each machine, so "
                 "run several per machine), or remove parallelism_config for plain full sharding.")
    _check_heads(ctx, sizes)
    fsdp2 = ctx.kind == "fsdp" and version == 2
    if fsdp2 and (sizes["tp"] > 1 or sizes["cp"] > 1) and total > 1:
        _check_mesh(ctx, sizes, total)
    if fsdp2 and sizes["cp"] > 1:
        _check_cp(ctx, sizes["cp"])
    if ctx.kind == "deepspeed":
        _check_deepspeed_sizes(ctx, sizes)
    if fsdp2 and sizes["tp"] > 1:
        tv, av = (ctx.versions.get(lib) or VERIFIED_AGAINST[lib] for lib in ("transformers", "accelerate"))
        ctx.emit(PAR_TP_TRANSFORMERS, size_key("tp"),
                 f"{kv(size_key('tp'), sizes['tp'])} with FSDP2: accelerate {av} "
                 "prepares a model loaded tensor-parallel with transformers' ReplicateParallel, which transformers "
                 f"{tv} no longer has (gone since 5.1.0), so prepare() stops with an ImportError before the first "
                 "step.",
                 "Train FSDP2 + TP with transformers 4.52 to 5.0.x, or set tp_size 1 and shard with FSDP alone.")
    if fsdp2 and sizes["tp"] > 1:
        k, on = _ram_efficient_loading(ctx)
        if on:
            ctx.emit(PAR_TP_RAM, (size_key("tp"),) + ((f"fsdp_config.{k}",) if k is not None else ()),
                     f"{kv(size_key('tp'), sizes['tp'])} with cpu_ram_efficient_loading on"
                     + (" (the launch default)" if k is None else "") + ": accelerate's prepare() loads rank 0's "
                     "state dict into the full-size parameters, but each rank holds only its tensor-parallel shard of "
                     "the split weights, so rank 0 fails with a size mismatch before the first step.",
                     "Set `fsdp_config.fsdp_cpu_ram_efficient_loading: false`: with TP every rank loads its own "
                     "shard through transformers.")
    if sizes["sp"] > 1:
        _check_sp_settings(ctx, pc)
    skip_total = sizes["sp"] > 1 and pc.get(PC + "sp_backend", "deepspeed") == "deepspeed"
    if skip_total and ctx.kind == "deepspeed" and ctx.nproc is not None and total != ctx.nproc:
        dp = sizes["dp_replicate"] * sizes["dp_shard"]
        ctx.emit(PAR_DS_SP_TOTAL, pkeys + ("num_processes",),
                 f"With sp_size {sizes['sp']} accelerate sets DeepSpeed's train_batch_size from {dp} data-parallel "
                 f"rank(s) (dp_replicate x dp_shard), but DeepSpeed counts num_processes / sp_size = "
                 f"{ctx.nproc / sizes['sp']:g}; deepspeed.initialize raises 'Check batch related parameters'.",
                 "Set parallelism_config_dp_shard_size to num_processes / sp_size"
                 + (f" ({ctx.nproc // sizes['sp']})." if ctx.nproc % sizes["sp"] == 0 else
                    "; sp_size must divide num_processes."))
    if total > 1 and not skip_total and ctx.nproc is not None and total != ctx.nproc:
        ctx.emit(PAR_TOTAL, pkeys + ("num_processes",),
                 f"The parallelism sizes multiply to {total} but num_processes is {ctx.nproc}; the Accelerator "
                 "raises 'total_size does not match num_processes'.",
                 "Make dp_replicate x dp_shard x tp x cp x sp equal num_processes.")


def tp_sizes_for(heads: int, kv: int) -> list[int]:
    """The tensor-parallel sizes that give every rank whole attention and key-value heads (claim
    tp-whole-heads-per-rank): the divisors of both."""
    return [n for n in range(1, min(heads, kv) + 1) if heads % n == 0 and kv % n == 0]


def sp_sizes_for(heads: int, kv: int) -> list[int]:
    """The Ulysses sequence-parallel sizes DeepSpeed accepts (claim ds-ulysses-heads-divide): divisors of the
    attention heads that the key-value heads divide by, or that are a multiple of them."""
    return [n for n in range(1, heads + 1) if heads % n == 0 and (kv % n == 0 or n % kv == 0)]


def _check_heads(ctx: ConfigCheck, sizes: dict[str, int]) -> None:
    """tp_size (FSDP2's tensor parallelism) and sp_size (DeepSpeed's Ulysses) against the model's heads."""
    tp = sizes["tp"] if ctx.kind == "fsdp" else 1
    sp = sizes["sp"] if ctx.kind == "deepspeed" else 1
    if tp == 1 and sp == 1:
        return
    keys = tuple(size_key(n) for n, size in (("tp", tp), ("sp", sp)) if size > 1)
    model = ctx.model
    if model is None:
        ctx.emit(PAR_HEADS_UNCHECKED, keys,
                 "Tensor and sequence parallelism split the attention by heads, so these sizes must divide the "
                 "model's attention heads (and fit its key-value heads); the model is unknown here, so that was not "
                 "checked. A tp_size that does not fit fails at the first forward, an sp_size at prepare().",
                 "Run check again with --model CONFIG.json|NAME (the model's config.json or a shipped shape name).")
        return
    heads, n_kv, name = model.num_heads, model.num_kv_heads, model.name or "the model"
    tp_key, sp_key = size_key("tp"), size_key("sp")
    # the computed parts of the sentences below are numbers and names only: their words are literal variants
    counts = (f"the {heads} attention heads and {n_kv} key-value heads of {model.name}" if model.name else
              f"the {heads} attention heads and {n_kv} key-value heads of the model")
    fit = tp_sizes_for(heads, n_kv) if tp > 1 else sp_sizes_for(heads, n_kv)  # never both (one per backend)
    fits = f"{', '.join(map(str, fit[:-1]))} or {fit[-1]}" if len(fit) > 1 else f"{fit[0]}"
    if tp > 1:
        plan = TP_PLAN.get(model.kind)
        if plan is False:
            ctx.emit(PAR_TP_NO_PLAN, tp_key,
                     f"{kv(tp_key, tp)}: {name} is a {model.kind} model, which has no tensor-parallel plan in "
                     "transformers, so loading it tensor-parallel (from_pretrained with tp_plan=\"auto\") raises "
                     "ValueError before training starts.",
                     "Use tp_size 1 and shard with FSDP alone (dp_shard_size = the processes), or a model type "
                     "with a tensor-parallel plan (Llama, Mistral, Qwen2, ...).")
        elif plan is None:
            ctx.emit(PAR_TP_PLAN_UNKNOWN, tp_key,
                     f"{kv(tp_key, tp)}: whether transformers has a tensor-parallel plan for model type "
                     f"{model.kind!r} is not known to the wizard; without one from_pretrained refuses tp_size "
                     "above 1.", "Check that the model's config class has a base_model_tp_plan.")
    if tp > 1 and (heads % tp or n_kv % tp):
        ctx.emit(PAR_TP_HEADS, tp_key,
                 f"{kv(tp_key, tp)} does not divide " + counts + ": each tensor-parallel rank must hold whole heads. "
                 "The model loads, then its first forward fails (RuntimeError: shape ... is invalid).",
                 "Use a tp_size that divides both (" + fits + ") and keep the product of the parallelism sizes "
                 "equal to num_processes.")
    if sp > 1 and (heads % sp or (n_kv % sp and sp % n_kv)):
        ctx.emit(PAR_SP_HEADS, sp_key,
                 f"{kv(sp_key, sp)} does not fit " + counts + ": DeepSpeed's Ulysses attention needs sp_size to "
                 "divide the attention heads, and the key-value heads and sp_size to divide one another; it "
                 "raises ValueError at prepare(), after the model has loaded.",
                 "Use an sp_size from " + fits + ".")


SP_ATTN_BUILTIN = ("flash_attention_2", "flash_attention_3", "sdpa")
"""The sequence-parallel attention names accelerate takes besides hub flash-attention kernels (claim
ds-sp-attn-implementation-values)."""


def _check_sp_settings(ctx: ConfigCheck, pc: dict) -> None:
    """The sequence-parallel details the launcher exports when sp_size is above 1."""
    attn_key, var_key, len_key = (PC + "sp_attn_implementation", PC + "sp_seq_length_is_variable",
                                  PC + "sp_seq_length")
    attn = pc.get(attn_key)
    if attn is not None and str(attn) not in SP_ATTN_BUILTIN and not ("/" in str(attn) and "flash-attn" in str(attn)):
        why = ("eager and flex_attention do not work with sequence parallelism" if str(attn) in
               ("eager", "flex_attention") else "it is not one of the names accelerate takes")
        ctx.emit(PAR_SP_ATTN, f"parallelism_config.{attn_key}",
                 f"{kv('parallelism_config.' + attn_key, attn)}: {why}; the Accelerator raises ValueError when it "
                 "reads the sequence-parallel settings.",
                 "Write sdpa (the default), flash_attention_2, flash_attention_3 or a hub flash-attention kernel "
                 "such as kernels-community/flash-attn2, and load the model with the same attention.")
    # the launcher exports the value as text; accelerate takes only "true" (any case) as variable
    fixed = var_key in pc and str(pc[var_key]).lower() != "true"
    if ctx.kind == "deepspeed" and fixed and pc.get(len_key) in (None, "None", ""):
        ctx.emit(PAR_SP_NO_LENGTH, (f"parallelism_config.{var_key}", f"parallelism_config.{len_key}"),
                 f"{kv('parallelism_config.' + var_key, pc[var_key])} says every batch has one fixed length, but "
                 f"`{len_key}` is not given: the launcher exports it as None and prepare() raises ValueError when it "
                 "sets up DeepSpeed's Ulysses attention.",
                 f"Give `{len_key}` (the length of every batch, divisible by sp_size), or set `{var_key}: true`.")


def _check_deepspeed_sizes(ctx: ConfigCheck, sizes: dict[str, int]) -> None:
    """The parallelism_config sizes other than sp under DeepSpeed (claim ds-parallelism-sizes-unused)."""
    key = {n: size_key(n) for n in sizes}
    unused = [n for n in ("dp_replicate", "cp", "tp") if sizes[n] > 1]
    if sizes["dp_shard"] > 1 and ctx.stage == 0:
        unused.insert(0, "dp_shard")
    if unused:
        said = {"dp_replicate": "dp_replicate does not replicate: ZeRO partitions over every rank",
                "cp": "cp splits no sequence: the engine trains the cp ranks as data parallel",
                "tp": "tp is not DeepSpeed's tensor parallelism (that is tensor_parallel.autotp_size in the JSON), and "
                      "prepare() fails on an own loop's DataLoader (its batch size comes out None)",
                "dp_shard": "ZeRO-0 partitions nothing"}
        ctx.emit(PAR_DS_UNUSED, tuple(key[n] for n in unused),
                 "Under DeepSpeed accelerate accepts these parallelism_config sizes and builds their device mesh, but "
                 "the engine trains plain data parallel over every rank as its ZeRO stage says: "
                 + "; ".join(said[n] for n in unused) + ".",
                 "Remove them (only parallelism_config_sp_size is DeepSpeed's), or use FSDP2 for these dimensions.")
    elif sizes["dp_shard"] > 1 and sizes["sp"] == 1:  # with Ulysses it sizes the batch (ds-ulysses-batch-...)
        ctx.emit(PAR_DS_SHARD_HARMLESS, key["dp_shard"],
                 f"{kv(key['dp_shard'], sizes['dp_shard'])} is not read under DeepSpeed; ZeRO-{ctx.stage} partitions "
                 "over every rank anyway, so it has no effect.", "Remove it: the ZeRO stage decides the partitioning.")


def _check_cp(ctx: ConfigCheck, cp: int) -> None:
    """Context parallelism (FSDP2) against what accelerate does to attention."""
    key = size_key("cp")
    model = ctx.model
    if model is not None and model.windowed_attention:
        ctx.emit(PAR_CP_WINDOWED, key,
                 f"{kv(key, cp)}: {model.name} has attention layers of type {model.windowed_attention} (not full "
                 "causal); context parallelism can only run full causal attention, so accelerate refuses the model "
                 "with a ValueError at prepare().",
                 "Use cp_size 1 for this model (shard with dp_shard_size instead), or a full-attention model.")
    ctx.emit(PAR_CP_MASK, key,
             f"{kv(key, cp)}: under context parallelism accelerate drops the attention_mask every attention layer is "
             "given and runs plain causal attention, so padding tokens are attended to and packed documents see "
             "each other. Training runs, but not on what such batches mean.",
             "Give context-parallel runs batches that need no mask: full-length, unpadded, one document per sequence.")


def _check_mesh(ctx: ConfigCheck, sizes: dict[str, int], total: int) -> None:
    """FSDP2 with tensor or context parallelism: the groups of accelerate's mesh, and groups that cross machines."""
    from ..mesh import groups_sentence, mesh_dims, mesh_groups, mesh_text, spans_machines

    if ctx.nproc is not None and total != ctx.nproc:
        return  # the sizes do not describe this world: parallelism-total-mismatch says so
    groups = mesh_groups(sizes)
    keys = tuple(size_key(d) for d, _ in mesh_dims(sizes))
    shape = mesh_text(mesh_dims(sizes))
    ctx.emit(PAR_MESH, keys,
             f"accelerate's mesh for {total} processes: {shape} (the last dimension varies fastest). "
             + "; ".join(groups_sentence(d, g) for d, g in groups.items()) + ".",
             "Nothing to change; keep each tensor- and context-parallel group inside one machine.")
    per_machine = (ctx.nproc // ctx.nmach) if ctx.nproc and ctx.nmach > 1 else 0
    if not per_machine:
        return
    for dim in ("tp", "cp"):
        crossing = [g for g in groups.get(dim, []) if spans_machines(g, per_machine)]
        if crossing:
            ctx.emit(PAR_SPANS, (size_key(dim), "num_processes", "num_machines"),
                     f"With {per_machine} processes per machine, {len(crossing)} of the {len(groups[dim])} {dim} "
                     f"groups span machines (e.g. ranks {list(crossing[0])}): {dim} exchanges activations in every "
                     "layer, so those exchanges cross the network instead of staying inside a machine.",
                     f"Keep tp_size x cp_size a divisor of {per_machine}, and replicate or shard across machines.")
