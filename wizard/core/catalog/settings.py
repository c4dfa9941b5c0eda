"""Every setting the wizard knows, declared once, as data.

A :class:`~.model.Setting` says which guide group it belongs to, what kind of value it takes, its default,
where it is written for each target (FSDP1, FSDP2, DeepSpeed: :class:`~.model.Write`, the file, the dotted key,
the map between answer values and the library's spellings) and, where a target has no such setting, why. The
prose explanations live in :mod:`wizard.core.texts`, keyed by the same ids.

The same declarations drive the answers schema (:mod:`wizard.core.answers.schema`), the renderer and the importer, the
``--verify`` comparison, the key -> setting maps for findings, the ``explain`` command and the TUI forms. Adding a
one-to-one knob is one entry here plus its text in :mod:`wizard.core.texts`.
"""
from __future__ import annotations

from .. import vocab
from ..bounds import MAX_BATCH, MAX_CLIP, MAX_COUNT, MAX_MACHINES, MAX_PROCESSES, MAX_STEPS  # the answers' bounds
from .model import CUSTOM, DEEPSPEED, FSDP1, FSDP2, JSON, SET, TARGETS, YAML, ZERO3, Group, Setting, Write

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

GROUPS: tuple[Group, ...] = (
    Group("backend", "Backend", False),
    Group("launch", "Launch basics", False),
    Group("sharding", "Sharding / partitioning", True),
    Group("parallelism", "Parallelism (TP / CP / SP)", False),
    Group("offload", "Offload", True),
    Group("loading", "Model loading", True),
    Group("checkpoint", "Efficient checkpointing", True),
    Group("prefetch", "Prefetch", True),
    Group("wrapping", "Model wrapping", True),
    Group("summoning", "Parameter summoning", True),
    Group("sync", "Parameter sync", True),
    Group("training", "Training", True),
    Group("precision", "Mixed precision and dtypes", True),
    Group("deepspeed", "DeepSpeed engine (JSON)", False),
)
GROUP_BY_ID = {g.id: g for g in GROUPS}


def _s(id: str, label: str, kind: str, default: Any, **kw: Any) -> Setting:
    return Setting(id=id, label=label, kind=kind, default=default, **kw)


def _y(key: str, **kw: Any) -> Write:
    """A key of the accelerate YAML."""
    return Write(YAML, key, **kw)


def _j(key: str, **kw: Any) -> Write:
    """A key of the DeepSpeed JSON."""
    return Write(JSON, key, **kw)


def _everywhere(*writes: Write) -> dict[str, tuple[Write, ...]]:
    return {t: writes for t in TARGETS}


def _fsdp(*writes: Write) -> dict[str, tuple[Write, ...]]:
    return {FSDP1: writes, FSDP2: writes}


def _ON_EVERY_TARGET(text: str) -> dict[str, str]:
    return {t: text for t in TARGETS}


# The Accelerate guide's own mapping of sharding intents.
SHARDING = {
    # intent: (FSDP1 strategy, FSDP2 reshard_after_forward, ZeRO stage, hybrid)
    "full": ("FULL_SHARD", True, 3, False),
    "grads_optimizer": ("SHARD_GRAD_OP", False, 2, False),
    "optimizer": (None, False, 1, False),
    "none": ("NO_SHARD", None, 0, False),
    "hybrid_full": ("HYBRID_SHARD", True, 3, True),
    "hybrid_grads_optimizer": ("HYBRID_SHARD_ZERO2", False, 2, True),
}

# answer value -> the library's spelling
_BACKEND = {"fsdp": "FSDP", "deepspeed": "DEEPSPEED"}
_FSDP1_STRATEGY = {k: v[0] or "SHARD_GRAD_OP" for k, v in SHARDING.items()}  # ZeRO-1 has no FSDP1 twin
_RESHARD = {k: bool(v[1]) for k, v in SHARDING.items()}
_STAGE = {k: v[2] for k, v in SHARDING.items()}
_ZERO_STAGE = "deepspeed_validated.zero_stage"
_WRAP = dict(zip(("transformer", "size", "none"), vocab.WRAP_POLICIES, strict=True))
_PREFETCH = {"pre": "BACKWARD_PRE", "post": "BACKWARD_POST", "none": vocab.NO_PREFETCH}
_STATE_DICT_V1 = {"full": "FULL_STATE_DICT", "sharded": "SHARDED_STATE_DICT", "local": "LOCAL_STATE_DICT"}
# FSDP2 has no LOCAL_STATE_DICT (docs/library-behaviour.md#fsdp-state-dict-type)
_STATE_DICT_V2 = {**_STATE_DICT_V1, "local": "SHARDED_STATE_DICT"}
_GATHER = {"full": True, "sharded": False, "local": False}
_GATHER_EFFECTIVE = "deepspeed_validated.gather_16bit_weights_on_model_save"

FIXED_KEYS: dict[str, tuple[Any, str]] = {
    "compute_environment": ("LOCAL_MACHINE", "backend"),
    "debug": (False, "backend"),
    "downcast_bf16": ("no", "precision.mixed_precision"),
    "enable_cpu_affinity": (False, "launch.num_processes"),
    "use_cpu": (False, "backend"),
}
"""accelerate YAML keys every config gets, whatever the answers say: key -> (value, the setting a finding about
the key is blamed on)."""

_FSDP_ONLY_DS = ("DeepSpeed has no such setting: ZeRO-3 gathers each module's parameters through its own hooks, so "
                 "there are no units to choose.")

_FP8_BACKEND = {"auto": "NO", "ao": "AO", "te": "TE", "msamp": "MSAMP"}
"""``precision.fp8_backend`` -> FP8BackendType's spelling (upper-case only); "auto" (NO: the first one installed) is
not written."""
FP8_GEMMS = ("fprop", "dgrad", "wgrad")
"""The three matrix multiplies of a linear layer, in the order of ``fp8_config.override_linear_precision``."""
_MSAMP_NOT_FSDP = "MS-AMP runs under DeepSpeed only: the Accelerator refuses it with FSDP."


def _fp8_option(key: str, label: str, kind: str, default: Any, backend: str, *, name: str = "",
                versions: str = "", **kw: Any) -> Setting:
    """One option of an fp8 recipe: written as ``fp8_config.<key>`` (the name the recipe reads, utils/launch.py
    setup_fp8_env) when mixed_precision is fp8 and ``precision.fp8_backend`` is ``backend``."""
    write = _y(f"fp8_config.{key}", when=CUSTOM, versions=versions)
    not_applicable = kw.pop("not_applicable", {})
    return _s(f"precision.{name or 'fp8_' + key.removeprefix('fp8_')}", label, kind, default,
               writes={t: (write,) for t in TARGETS if t not in not_applicable},
               where_text={t: f"{{keys}} (with mixed_precision fp8 and fp8 backend {backend.lower()})"
                           for t in TARGETS if t not in not_applicable},
               not_applicable=not_applicable,
               counterpart="Same key for both backends." if not not_applicable else
               "DeepSpeed ZeRO-0/1/2 only: MS-AMP does not run with FSDP.",
               claims=("fp8-recipe-reads-launch-env",), **kw)

_PC = "parallelism_config.parallelism_config_"
_PC_FSDP1 = "parallelism_config needs FSDP2: with FSDP1 the Accelerator raises."
_SP_ONLY = "A detail of DeepSpeed's Ulysses sequence parallelism (parallelism.sp_size)."
_NO_QUANT = "FSDP has no quantized collectives."

SETTINGS: tuple[Setting, ...] = (
    # ---------------------------------------------------------------- backend
    _s("backend", "Backend", "choice", "fsdp", choices=("fsdp", "deepspeed"),
       writes=_everywhere(_y("distributed_type", values=_BACKEND, effective="distributed_type")),
       where_text={FSDP1: "{keys}: FSDP", FSDP2: "{keys}: FSDP", DEEPSPEED: "{keys}: DEEPSPEED"},
       counterpart="distributed_type alone decides which section is read. Switching keeps the intent of every "
                   "other answer and lists what cannot carry over.",
       claims=("launch-distributed-type-picks-section",)),
    _s("fsdp_version", "FSDP version", "choice", 2, choices=(1, 2),
       writes=_fsdp(_y("fsdp_config.fsdp_version", effective="fsdp.fsdp_version")),
       not_applicable={DEEPSPEED: "DeepSpeed has one implementation; the ZeRO stage is the knob."},
       counterpart="DeepSpeed: no versions; ZeRO stage 1/2/3 chooses what is partitioned.",
       claims=("ds-zero-stages-partition",)),
    # ---------------------------------------------------------------- launch
    _s("launch.num_processes", "Processes (GPUs) in total", "int", 2, minimum=1, maximum=MAX_PROCESSES,
       writes=_everywhere(_y("num_processes", effective="num_processes")), counterpart="Same key for both backends.",
       claims=("launch-procs-per-node-floor",)),
    _s("launch.num_machines", "Machines (nodes)", "int", 1, minimum=1, maximum=MAX_MACHINES,
       writes=_everywhere(_y("num_machines", effective="num_machines")), counterpart="Same key for both backends.",
       claims=("launch-torchrun-per-machine", "ds-multinode-runner-or-torchrun")),
    _s("launch.machine_rank", "This machine's rank", "int", 0, minimum=0, maximum=MAX_MACHINES - 1,
       writes=_everywhere(_y("machine_rank")), counterpart="Same key for both backends.",
       claims=("launch-torchrun-per-machine", "ds-nossh-launcher")),
    _s("launch.main_process_ip", "Main process address", "str", None, nullable=True,
       writes=_everywhere(_y("main_process_ip", when=CUSTOM)), counterpart="Same key for both backends.",
       claims=("launch-address-and-port", "ds-runner-num-gpus-and-filters")),
    _s("launch.main_process_port", "Main process port", "int", None, nullable=True, minimum=1, maximum=65535,
       writes=_everywhere(_y("main_process_port", when=CUSTOM)), counterpart="Same key for both backends.",
       claims=("launch-address-and-port", "ds-runner-num-gpus-and-filters")),
    _s("launch.hosts", "Machine host names", "list", [],
       where_text=_ON_EVERY_TARGET("(the DeepSpeed hostfile and the per-machine commands; not in the config)"),
       counterpart="Same answer for both backends: one name per machine, machine 0 first. DeepSpeed's runner "
                   "launchers read them from the hostfile; FSDP and DeepSpeed's standard launcher take machine "
                   "0's name as the main address when main_process_ip is not set.",
       claims=("ds-hostfile-every-host-used", "ds-hostfile-bad-lines-raise", "launch-address-and-port")),
    _s("launch.rdzv_backend", "Rendezvous backend", "choice", "static", choices=("static", "c10d", "etcd", "etcd-v2"),
       writes=_everywhere(_y("rdzv_backend")),
       counterpart="Same key for both backends; only the command-line flag takes effect.",
       claims=("launch-yaml-rdzv-backend-ignored", "ds-multinode-runner-or-torchrun")),
    _s("launch.same_network", "Machines share a network", "bool", True,
       writes=_everywhere(_y("same_network")),
       counterpart="Same key for both backends; only the command-line flag takes effect.",
       claims=("launch-yaml-same-network-ignored", "ds-multinode-runner-or-torchrun")),
    _s("launch.gpu_ids", "GPU ids", "str", "all",
       writes=_everywhere(_y("gpu_ids")), counterpart="Same key for both backends.",
       claims=("launch-gpu-ids-visible-devices",)),
    _s("launch.main_training_function", "Main training function", "str", "main",
       writes=_everywhere(_y("main_training_function")), counterpart="Same key for both backends.",
       claims=("launch-main-training-function-tpu-only",)),
    _s("launch.ds_multinode_launcher", "DeepSpeed multi-node launcher", "choice", "standard",
       choices=("standard", "pdsh", "openmpi", "mvapich", "mpich", "nossh", "slurm"),
       writes={DEEPSPEED: (_y("deepspeed_config.deepspeed_multinode_launcher", when=CUSTOM),)},
       not_applicable={FSDP1: "FSDP always starts through torchrun on every machine.",
                       FSDP2: "FSDP always starts through torchrun on every machine."},
       counterpart="FSDP: torchrun on each machine, like DeepSpeed's 'standard' launcher.",
       claims=("ds-multinode-runner-or-torchrun", "launch-torchrun-per-machine")),
    _s("launch.ds_hostfile", "DeepSpeed hostfile", "str", None, nullable=True,
       writes={DEEPSPEED: (_y("deepspeed_config.deepspeed_hostfile", when=CUSTOM),)},
       not_applicable={FSDP1: "FSDP has no hostfile: start the launcher on each machine.",
                       FSDP2: "FSDP has no hostfile: start the launcher on each machine."},
       counterpart="FSDP: none; each machine runs accelerate launch with its machine_rank.",
       claims=("ds-multinode-runner-or-torchrun", "launch-torchrun-per-machine")),
    _s("launch.ds_inclusion_filter", "DeepSpeed inclusion filter", "str", None, nullable=True,
       writes={DEEPSPEED: (_y("deepspeed_config.deepspeed_inclusion_filter", when=CUSTOM),)},
       not_applicable={FSDP1: "No hostfile filters in FSDP.", FSDP2: "No hostfile filters in FSDP."},
       counterpart="FSDP: choose GPUs with gpu_ids on each machine.",
       claims=("ds-runner-num-gpus-and-filters", "launch-gpu-ids-visible-devices")),
    _s("launch.ds_exclusion_filter", "DeepSpeed exclusion filter", "str", None, nullable=True,
       writes={DEEPSPEED: (_y("deepspeed_config.deepspeed_exclusion_filter", when=CUSTOM),)},
       not_applicable={FSDP1: "No hostfile filters in FSDP.", FSDP2: "No hostfile filters in FSDP."},
       counterpart="FSDP: choose GPUs with gpu_ids on each machine.",
       claims=("ds-runner-num-gpus-and-filters", "launch-gpu-ids-visible-devices")),
    _s("launch.dynamo_backend", "torch.compile backend", "choice", "no",
       choices=("no", "inductor", "eager", "aot_eager", "cudagraphs"),
       writes=_everywhere(_y("dynamo_config.dynamo_backend", when=CUSTOM)),
       counterpart="FSDP only (FSDP1 needs use_orig_params); DeepSpeed runs compile from the script.",
       claims=("dynamo-fsdp-exported", "dynamo-not-exported-under-deepspeed", "dynamo-fsdp1-needs-orig-params")),
    _s("launch.dynamo_mode", "torch.compile mode", "choice", "default",
       choices=("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"),
       writes=_everywhere(_y("dynamo_config.dynamo_mode", when=CUSTOM)),
       counterpart="FSDP only; DeepSpeed runs set it in the script.",
       claims=("dynamo-fsdp-exported", "dynamo-not-exported-under-deepspeed")),
    _s("launch.dynamo_fullgraph", "torch.compile fullgraph", "bool", False,
       writes=_everywhere(_y("dynamo_config.dynamo_use_fullgraph", when=CUSTOM)),
       counterpart="FSDP only; DeepSpeed runs set it in the script.",
       claims=("dynamo-fsdp-exported", "dynamo-not-exported-under-deepspeed")),
    _s("launch.dynamo_dynamic", "torch.compile dynamic shapes", "bool", False,
       writes=_everywhere(_y("dynamo_config.dynamo_use_dynamic", when=CUSTOM)),
       counterpart="FSDP only; DeepSpeed runs set it in the script.",
       claims=("dynamo-fsdp-exported", "dynamo-not-exported-under-deepspeed")),
    _s("launch.dynamo_regional", "Regional compilation", "bool", False,
       writes=_everywhere(_y("dynamo_config.dynamo_use_regional_compilation", when=CUSTOM)),
       counterpart="FSDP only; DeepSpeed runs set it in the script.",
       claims=("dynamo-fsdp-exported", "dynamo-not-exported-under-deepspeed")),
    _s("launch.script", "Training script", "str", None, nullable=True,
       where_text=_ON_EVERY_TARGET("(command line of accelerate launch)"),
       counterpart="Not part of either config: it is what accelerate launch runs.",
       claims=("launch-script-args-passed",)),
    _s("launch.script_args", "Script arguments", "list", [],
       where_text=_ON_EVERY_TARGET("(command line of accelerate launch)"),
       counterpart="Not part of either config: passed to the script.",
       claims=("launch-script-args-passed",)),
    _s("launch.training_loop", "Training loop", "choice", "accelerate", choices=("accelerate", "trainer"),
       where_text={FSDP1: "(your script; with the Trainer: training_arguments.json)",
                   FSDP2: "(your script; with the Trainer: training_arguments.json)",
                   DEEPSPEED: "(your script) decides which DeepSpeed values are written 'auto'; with the Trainer: "
                              "training_arguments.json"},
       counterpart="Same question for both backends: an own Accelerator loop passes what the config says; the "
                   "Hugging Face Trainer passes its TrainingArguments (batch, accumulation, clipping, precision) "
                   "to accelerate, and under DeepSpeed fills the JSON's 'auto' values from them.",
       claims=("trainer-counts-accumulation-and-clips", "trainer-ds-values-must-match-arguments",
               "trainer-fills-more-auto", "trainer-passes-precision-to-accelerate")),
    _s("launch.trainer_tool", "Tool on the Trainer", "choice", "transformers",
       choices=("transformers", "llamafactory", "axolotl"),
       where_text=_ON_EVERY_TARGET("(with the Trainer: beside the configs, training_arguments.json and, for "
                                   "LLaMA-Factory or axolotl, llamafactory_args.yaml / axolotl_args.yaml: the keys of "
                                   "that tool's training file that match them)"),
       counterpart="Same question for both backends: which file carries the Trainer's arguments (a Trainer script's "
                   "TrainingArguments, a LLaMA-Factory or an axolotl training YAML).",
       claims=("trainer-ds-values-must-match-arguments", "tools-pass-their-keys-as-training-arguments")),
    # ---------------------------------------------------------------- sharding
    _s("sharding.strategy", "What to shard", "choice", "full",
       choices=("full", "grads_optimizer", "optimizer", "none", "hybrid_full", "hybrid_grads_optimizer"),
       writes={FSDP1: (_y("fsdp_config.fsdp_sharding_strategy", values=_FSDP1_STRATEGY),),
               FSDP2: (_y("fsdp_config.fsdp_reshard_after_forward", values=_RESHARD,
                          effective="fsdp.reshard_after_forward"),
                       _y("parallelism_config.parallelism_config_dp_replicate_size", when=CUSTOM),
                       _y("parallelism_config.parallelism_config_dp_shard_size", when=CUSTOM)),
               DEEPSPEED: (_y("deepspeed_config.zero_stage", values=_STAGE, effective=_ZERO_STAGE),
                           _j("zero_optimization.stage", values=_STAGE, effective=_ZERO_STAGE),
                           _j("zero_optimization.zero_hpz_partition_size", when=CUSTOM))},
       where_text={FSDP2: "fsdp_config.fsdp_reshard_after_forward (+ parallelism_config for hybrid)",
                  DEEPSPEED: "zero_stage / zero_optimization.stage (+ zero_hpz_partition_size for hybrid)"},
       counterpart="full = FULL_SHARD = ZeRO-3; grads_optimizer = SHARD_GRAD_OP = ZeRO-2; optimizer = ZeRO-1 "
                   "(no FSDP twin); none = NO_SHARD = ZeRO-0; hybrid_full = HYBRID_SHARD ~ ZeRO++ hpZ.",
       claims=("ds-zero-stages-partition", "fsdp1-reads-sharding-strategy-only", "fsdp-reshard-after-forward",
               "ds-hpz-secondary-partition", "fsdp1-hybrid-groups-by-visible-devices")),
    # ---------------------------------------------------------------- parallelism
    _s("parallelism.dp_replicate_size", "Hybrid replicas (dp_replicate)", "int", None, nullable=True, minimum=1,
       maximum=MAX_PROCESSES, empty="one per machine",
       writes={FSDP2: (_y(_PC + "dp_replicate_size", when=CUSTOM),)},
       where_text={FSDP2: "{keys} (with hybrid sharding; empty: one replica per machine; dp_shard_size becomes "
                          "processes / (dp_replicate x tp x cp))"},
       not_applicable={FSDP1: "FSDP1's HYBRID_SHARD takes no size: it shards within the GPUs one machine shows and "
                              "replicates across machines.",
                       DEEPSPEED: "DeepSpeed replicates nothing by a mesh: hybrid ZeRO-3 is the hpZ secondary "
                                  "partition (zero_hpz_partition_size, one per machine); accelerate's dp_replicate "
                                  "is not used by the engine."},
       counterpart="DeepSpeed: ZeRO++ hpZ (zero_hpz_partition_size) keeps a secondary copy of the parameters per "
                   "machine; it gathers within a machine but still shards the optimizer state over every GPU.",
       claims=("fsdp2-hybrid-from-parallelism-config", "ds-hpz-secondary-partition",
               "ds-parallelism-sizes-unused")),
    _s("parallelism.tp_size", "Tensor-parallel size (tp)", "int", 1, minimum=1, maximum=MAX_PROCESSES,
       writes={FSDP2: (_y(_PC + "tp_size", when=CUSTOM),)},
       where_text={FSDP2: "{keys} (written when above 1; dp_shard_size becomes processes / (dp_replicate x tp x cp))"},
       not_applicable={FSDP1: _PC_FSDP1,
                       DEEPSPEED: "accelerate would build a tp mesh, but the DeepSpeed engine does not use it and "
                                  "prepare() fails on an own loop's DataLoader; DeepSpeed's tensor parallelism is "
                                  "AutoTP (parallelism.ds_autotp_size)."},
       counterpart="DeepSpeed: AutoTP, tensor_parallel.autotp_size in the DeepSpeed JSON (DeepSpeed's own sharding "
                   "of the linear layers, not transformers' plan).",
       claims=("parallelism-config-needs-fsdp2", "ds-parallelism-sizes-unused", "ds-autotp-size-from-json",
               "tp-whole-heads-per-rank")),
    _s("parallelism.cp_size", "Context-parallel size (cp)", "int", 1, minimum=1, maximum=MAX_PROCESSES,
       writes={FSDP2: (_y(_PC + "cp_size", when=CUSTOM),)},
       where_text={FSDP2: "{keys} (written when above 1)"},
       not_applicable={FSDP1: _PC_FSDP1,
                       DEEPSPEED: "Under DeepSpeed cp splits no sequence: the engine trains the cp ranks as data "
                                  "parallel. DeepSpeed splits the sequence with Ulysses (parallelism.sp_size)."},
       counterpart="DeepSpeed: Ulysses sequence parallelism (parallelism.sp_size) also splits the sequence, but "
                   "exchanges heads by all-to-all around attention; not the same mechanism, so no carry-over.",
       claims=("parallelism-config-needs-fsdp2", "ds-parallelism-sizes-unused", "ds-ulysses-heads-divide")),
    _s("parallelism.cp_comm_strategy", "Context-parallel exchange", "choice", "allgather",
       choices=("allgather", "alltoall"),
       writes={FSDP2: (_y(_PC + "cp_comm_strategy", when=CUSTOM),)},
       where_text={FSDP2: "{keys} (written only when cp_size is above 1, as the launcher exports it only then)"},
       not_applicable={FSDP1: _PC_FSDP1, DEEPSPEED: "DeepSpeed has no context parallelism; Ulysses always "
                                                    "exchanges by all-to-all."},
       counterpart="DeepSpeed: none (Ulysses has one exchange, all-to-all).",
       claims=("launch-other-sections-per-distributed-type", "ds-ulysses-heads-divide")),
    _s("parallelism.sp_size", "Sequence-parallel size (Ulysses sp)", "int", 1, minimum=1, maximum=MAX_PROCESSES,
       writes={DEEPSPEED: (_y(_PC + "sp_size", when=CUSTOM),
                           _y(_PC + "sp_backend", when=CUSTOM),
                           _y(_PC + "dp_shard_size", when=CUSTOM))},
       where_text={DEEPSPEED: "{keys} (written when above 1, dp_shard_size = processes / sp; needs "
                              "deepspeed>=0.18.2)"},
       not_applicable={FSDP1: _PC_FSDP1,
                       FSDP2: "accelerate's sequence parallelism is DeepSpeed's Ulysses only (sp_backend takes "
                              "only deepspeed); FSDP2 splits the sequence with context parallelism "
                              "(parallelism.cp_size)."},
       counterpart="FSDP2: context parallelism (parallelism.cp_size) also splits the sequence, by another "
                   "mechanism; no carry-over.",
       claims=("parallelism-config-checks", "ds-ulysses-heads-divide", "parallelism-config-total-is-num-processes")),
    _s("parallelism.sp_seq_length", "Ulysses fixed sequence length", "int", None, nullable=True, minimum=1,
       maximum=MAX_COUNT,
       writes={DEEPSPEED: (_y(_PC + "sp_seq_length", when=CUSTOM),)},
       where_text={DEEPSPEED: "{keys} (written when sp_size is above 1 and a length is given)"},
       not_applicable={FSDP1: _SP_ONLY, FSDP2: _SP_ONLY},
       counterpart="FSDP2: none; context parallelism takes the length from each batch.",
       claims=("ds-sp-fixed-length-needs-seq-length", "launch-other-sections-per-distributed-type")),
    _s("parallelism.sp_seq_length_is_variable", "Ulysses batches vary in length", "bool", True,
       writes={DEEPSPEED: (_y(_PC + "sp_seq_length_is_variable", when=CUSTOM),)},
       where_text={DEEPSPEED: "{keys} (written when sp_size is above 1, as a YAML bool: the command-line flag "
                              "would read any text as true)"},
       not_applicable={FSDP1: _SP_ONLY, FSDP2: _SP_ONLY},
       counterpart="FSDP2: none.",
       claims=("ds-sp-fixed-length-needs-seq-length", "launch-sp-variable-flag-type-bool")),
    _s("parallelism.sp_attn_implementation", "Ulysses attention kernel", "choice", "sdpa",
       choices=("sdpa", "flash_attention_2", "flash_attention_3"),
       writes={DEEPSPEED: (_y(_PC + "sp_attn_implementation", when=CUSTOM),)},
       where_text={DEEPSPEED: "{keys} (written when sp_size is above 1)"},
       not_applicable={FSDP1: _SP_ONLY, FSDP2: _SP_ONLY},
       counterpart="FSDP2: none; context parallelism runs torch's SDPA.",
       claims=("ds-sp-attn-implementation-values",)),
    _s("parallelism.ds_autotp_size", "DeepSpeed AutoTP size", "int", None, nullable=True, minimum=1,
       maximum=MAX_PROCESSES,
       writes={DEEPSPEED: (_j("tensor_parallel.autotp_size", when=SET),)},
       where_text={DEEPSPEED: "{keys} (DeepSpeed JSON)"},
       not_applicable={FSDP1: "FSDP1 has no tensor parallelism.",
                       FSDP2: "FSDP2's tensor parallelism is transformers' plan over the mesh "
                              "(parallelism.tp_size)."},
       counterpart="FSDP2: parallelism.tp_size (transformers' tensor-parallel plan).",
       claims=("ds-autotp-size-from-json", "parallelism-config-needs-fsdp2")),
    _s("parallelism.ds_quantized_weights", "ZeRO++ quantized weight all-gather (qwZ)", "bool", None, nullable=True,
       writes={DEEPSPEED: (_j("zero_optimization.zero_quantized_weights", when=ZERO3),)},
       where_text={DEEPSPEED: "{keys} (DeepSpeed JSON, ZeRO-3)"},
       not_applicable={FSDP1: _NO_QUANT, FSDP2: _NO_QUANT},
       counterpart="FSDP: none; FSDP gathers parameters in their own (or the mixed-precision) dtype.",
       claims=("ds-zeropp-quantized-weights-zero3", "fsdp-policy-from-mixed-precision")),
    _s("parallelism.ds_quantized_gradients", "ZeRO++ quantized gradient reduction (qgZ)", "bool", None,
       nullable=True,
       writes={DEEPSPEED: (_j("zero_optimization.zero_quantized_gradients", when=ZERO3),)},
       where_text={DEEPSPEED: "{keys} (DeepSpeed JSON, ZeRO-3)"},
       not_applicable={FSDP1: _NO_QUANT, FSDP2: _NO_QUANT},
       counterpart="FSDP: none; FSDP reduces gradients in the reduce dtype of mixed precision.",
       claims=("ds-zeropp-quantized-gradients-zero3", "fsdp-policy-from-mixed-precision")),
    # ---------------------------------------------------------------- offload
    _s("offload.optimizer", "Offload optimizer state to", "choice", "none", choices=("none", "cpu", "nvme"),
       writes={**_fsdp(_y("fsdp_config.fsdp_offload_params", when=CUSTOM)),
               DEEPSPEED: (_y("deepspeed_config.offload_optimizer_device", when=CUSTOM),
                           _j("zero_optimization.offload_optimizer.device", when=CUSTOM))},
       where_text={FSDP1: "{keys} (all or nothing)", FSDP2: "{keys} (all or nothing)"},
       counterpart="FSDP offloads parameters, gradients and the optimizer step together, or nothing; "
                   "DeepSpeed offloads the optimizer and the parameters separately, to CPU or NVMe.",
       claims=("fsdp-offload-single-switch", "ds-offload-blocks-independent")),
    _s("offload.params", "Offload parameters to", "choice", "none", choices=("none", "cpu", "nvme"),
       writes={**_fsdp(_y("fsdp_config.fsdp_offload_params", when=CUSTOM)),
               DEEPSPEED: (_y("deepspeed_config.offload_param_device", when=CUSTOM),
                           _j("zero_optimization.offload_param.device", when=CUSTOM))},
       where_text={FSDP1: "{keys} (all or nothing)", FSDP2: "{keys} (all or nothing)"},
       counterpart="DeepSpeed: ZeRO-3 only; FSDP: the single offload switch.",
       claims=("ds-param-offload-zero3-only", "fsdp-offload-single-switch")),
    _s("offload.nvme_path", "NVMe folder", "str", None, nullable=True,
       writes={DEEPSPEED: (_j("zero_optimization.offload_optimizer.nvme_path", when=CUSTOM),
                           _j("zero_optimization.offload_param.nvme_path", when=CUSTOM))},
       where_text={DEEPSPEED: "zero_optimization.offload_*.nvme_path in the DeepSpeed JSON; never the inline "
                             "offload_optimizer_nvme_path / offload_param_nvme_path, which accelerate launch drops"},
       not_applicable={FSDP1: "FSDP cannot offload to NVMe.", FSDP2: "FSDP cannot offload to NVMe."},
       counterpart="FSDP: no NVMe offload at all.",
       claims=("ds-inline-nvme-path-not-exported", "fsdp-offload-single-switch")),
    _s("offload.pin_memory", "Pin offloaded memory", "bool", True,
       writes={DEEPSPEED: (_j("zero_optimization.offload_optimizer.pin_memory", when=CUSTOM),
                           _j("zero_optimization.offload_param.pin_memory", when=CUSTOM))},
       where_text={DEEPSPEED: "zero_optimization.offload_*.pin_memory (DeepSpeed JSON only)"},
       not_applicable={FSDP1: "accelerate gives FSDP no pin-memory switch.",
                       FSDP2: "accelerate always pins with FSDP2's CPU offload policy."},
       counterpart="FSDP2's CPU offload pins host memory by itself.",
       claims=("fsdp-offload-pins", "ds-inline-unknown-dropped")),
    # ---------------------------------------------------------------- loading
    _s("loading.ram_efficient", "Load weights on one rank only", "bool", True,
       writes={**_fsdp(_y("fsdp_config.fsdp_cpu_ram_efficient_loading",
                              effective="fsdp.cpu_ram_efficient_loading")),
               DEEPSPEED: (_y("deepspeed_config.zero3_init_flag", when=CUSTOM),)},
       counterpart="FSDP: cpu_ram_efficient_loading (needs sync_module_states); DeepSpeed: zero3_init_flag, "
                   "ZeRO-3 only.",
       claims=("fsdp-launch-ram-efficient-needs-sync", "ds-zero3-init-flag-off-below-zero3")),
    # ---------------------------------------------------------------- checkpoint
    _s("checkpoint.format", "Checkpoint format", "choice", "sharded", choices=("sharded", "full", "local"),
       writes={FSDP1: (_y("fsdp_config.fsdp_state_dict_type", values=_STATE_DICT_V1,
                          effective="fsdp.state_dict_type", library_default="FULL_STATE_DICT"),),
               FSDP2: (_y("fsdp_config.fsdp_state_dict_type", values=_STATE_DICT_V2,
                          effective="fsdp.state_dict_type", library_default="SHARDED_STATE_DICT"),),
               DEEPSPEED: (_y("deepspeed_config.zero3_save_16bit_model", values=_GATHER, when=ZERO3,
                              effective=_GATHER_EFFECTIVE),
                           _j("zero_optimization.stage3_gather_16bit_weights_on_model_save", values=_GATHER,
                              when=ZERO3, effective=_GATHER_EFFECTIVE))},
       counterpart="FULL_STATE_DICT ~ ZeRO-3 with zero3_save_16bit_model; SHARDED_STATE_DICT ~ ZeRO-3 shards "
                   "consolidated later with zero_to_fp32.py.",
       claims=("ds-zero3-state-dict-needs-16bit-gather", "ds-checkpoint-16bit-weights-fp32-master-script",
               "fsdp-state-dict-type-defaults")),
    # ---------------------------------------------------------------- prefetch
    _s("prefetch.backward", "Backward prefetch", "choice", "pre", choices=("pre", "post", "none"),
       writes={FSDP1: (_y("fsdp_config.fsdp_backward_prefetch", values=_PREFETCH,
                          library_default=vocab.NO_PREFETCH),)},
       not_applicable={FSDP2: "FSDP2 has no prefetch knobs; it prefetches the next module by itself.",
                       DEEPSPEED: "DeepSpeed prefetches by itself (ZeRO-3 bucket and persistence knobs)."},
       counterpart="DeepSpeed ZeRO-3: stage3_prefetch_bucket_size and friends.",
       claims=("fsdp2-drops-prefetch-keys", "fsdp-overlaps-on-its-own-streams", "ds-zero3-prefetch-after-trace")),
    _s("prefetch.forward", "Forward prefetch", "bool", False,
       writes={FSDP1: (_y("fsdp_config.fsdp_forward_prefetch", effective="fsdp.forward_prefetch"),)},
       not_applicable={FSDP2: "FSDP2 has no prefetch knobs (accelerate drops it).",
                       DEEPSPEED: "DeepSpeed prefetches by itself."},
       counterpart="DeepSpeed: implicit.",
       claims=("fsdp2-drops-prefetch-keys", "ds-zero3-prefetch-after-trace")),
    _s("prefetch.ds_bucket_size", "ZeRO-3 prefetch bucket size", "int", None, nullable=True, allow_auto=True,
       minimum=0, maximum=MAX_COUNT,
       writes={DEEPSPEED: (_j("zero_optimization.stage3_prefetch_bucket_size", when=ZERO3),)},
       not_applicable={FSDP1: "FSDP1 uses backward/forward prefetch instead.", FSDP2: "FSDP2 has no prefetch knobs."},
       counterpart="FSDP1: backward_prefetch.",
       claims=("fsdp1-prefetch-modes", "fsdp2-prefetch-control-code-only")),
    _s("prefetch.ds_param_persistence_threshold", "ZeRO-3 persistence threshold", "int", None, nullable=True,
       allow_auto=True, minimum=0, maximum=MAX_COUNT,
       writes={DEEPSPEED: (_j("zero_optimization.stage3_param_persistence_threshold", when=ZERO3),)},
       not_applicable={FSDP1: "FSDP keeps no small parameters unsharded.",
                       FSDP2: "FSDP keeps no small parameters unsharded."},
       counterpart="FSDP: only a loose analogy, ignored_modules (kept whole, but also left out of gradient "
                   "reduction).",
       claims=("fsdp-collectives-per-unit", "fsdp-ignored-modules", "ds-persistent-params-still-reduced")),
    _s("prefetch.ds_model_persistence_threshold", "ZeRO-3 persistence budget", "int", None, nullable=True,
       minimum=0, maximum=MAX_COUNT,
       writes={DEEPSPEED: (_j("zero_optimization.stage3_model_persistence_threshold", when=ZERO3),)},
       not_applicable={FSDP1: "FSDP keeps no small parameters unsharded.",
                       FSDP2: "FSDP keeps no small parameters unsharded."},
       counterpart="FSDP: none; it keeps no parameters unsharded.",
       claims=("fsdp-collectives-per-unit",)),
    _s("prefetch.ds_max_live_parameters", "ZeRO-3 max live parameters", "int", None, nullable=True, minimum=0,
       maximum=MAX_COUNT,
       writes={DEEPSPEED: (_j("zero_optimization.stage3_max_live_parameters", when=ZERO3),)},
       not_applicable={FSDP1: "FSDP frees per wrapped module instead.",
                       FSDP2: "FSDP frees per wrapped module instead."},
       counterpart="FSDP: the wrapping granularity bounds what is gathered.",
       claims=("fsdp-collectives-per-unit",)),
    _s("prefetch.ds_max_reuse_distance", "ZeRO-3 max reuse distance", "int", None, nullable=True, minimum=0,
       maximum=MAX_COUNT,
       writes={DEEPSPEED: (_j("zero_optimization.stage3_max_reuse_distance", when=ZERO3),)},
       not_applicable={FSDP1: "FSDP reshards after each module by strategy.", FSDP2: "FSDP2: reshard_after_forward."},
       counterpart="FSDP: reshard after forward (strategy).",
       claims=("fsdp-collectives-per-unit",)),
    # ---------------------------------------------------------------- wrapping
    _s("wrapping.policy", "Auto-wrap policy", "choice", "transformer", choices=("transformer", "size", "none"),
       writes=_fsdp(_y("fsdp_config.fsdp_auto_wrap_policy", values=_WRAP, effective="fsdp.auto_wrap_policy",
                    library_default="NO_WRAP")),
       not_applicable={DEEPSPEED: _FSDP_ONLY_DS}, counterpart="DeepSpeed: transparent, nothing to choose.",
       claims=("ds-zero3-gathers-per-module",)),
    _s("wrapping.layer_classes", "Layer classes to wrap", "list", [],
       writes=_fsdp(_y("fsdp_config.fsdp_transformer_layer_cls_to_wrap", when=CUSTOM)),
       not_applicable={DEEPSPEED: _FSDP_ONLY_DS}, counterpart="DeepSpeed: transparent.",
       claims=("ds-zero3-gathers-per-module",)),
    _s("wrapping.min_num_params", "Size-wrap threshold (parameters)", "int", 100_000_000, minimum=1,
       maximum=MAX_COUNT,
       writes=_fsdp(_y("fsdp_config.fsdp_min_num_params", when=CUSTOM)),
       not_applicable={DEEPSPEED: _FSDP_ONLY_DS}, counterpart="DeepSpeed: transparent.",
       claims=("ds-zero3-gathers-per-module",)),
    _s("wrapping.ignored_modules", "Modules kept out of sharding (regex)", "str", None, nullable=True,
       writes={FSDP1: (_y("fsdp_config.fsdp_ignored_modules", when=SET),),
               FSDP2: (_y("fsdp_config.fsdp_ignored_modules", when=SET, versions="torch>=2.7"),)},
       not_applicable={DEEPSPEED: "DeepSpeed has no regex; small parameters stay whole below the persistence "
                                  "threshold."},
       counterpart="DeepSpeed: only a loose analogy, stage3_param_persistence_threshold (small parameters kept "
                   "whole, still reduced).",
       claims=("ds-zero3-persistence", "ds-persistent-params-still-reduced"),
       rehearsal="the pattern names modules of your model, not the bundled one", short="ignored modules"),
    _s("wrapping.ds_moe_layer_classes", "MoE layer classes (ZeRO-3 leaf modules)", "list", [],
       writes={DEEPSPEED: (_y("deepspeed_config.deepspeed_moe_layer_cls_names", when=CUSTOM,
                              versions="deepspeed>=0.14.0"),)},
       not_applicable={FSDP1: "FSDP has no MoE leaf setting.", FSDP2: "FSDP has no MoE leaf setting."},
       counterpart="FSDP: wrap the expert block class instead.",
       claims=("fsdp-collectives-per-unit",), rehearsal="the bundled model has no MoE layers",
       short="MoE leaf classes"),
    # ---------------------------------------------------------------- summoning
    _s("summoning.use_orig_params", "Keep original parameters (use_orig_params)", "bool", True,
       writes={FSDP1: (_y("fsdp_config.fsdp_use_orig_params", effective="fsdp.use_orig_params"),)},
       not_applicable={FSDP2: "FSDP2 always keeps the original parameters (as DTensors).",
                       DEEPSPEED: "DeepSpeed keeps the module's own parameters; transparent."},
       counterpart="DeepSpeed: transparent; FSDP2: always on.",
       claims=("fsdp2-ignores-sync-module-states", "fsdp1-flat-gradients", "ds-zero3-gathers-per-module")),
    # ---------------------------------------------------------------- sync
    _s("sync.module_states", "Broadcast rank 0's weights (sync_module_states)", "bool", True,
       writes={FSDP1: (_y("fsdp_config.fsdp_sync_module_states"),)},
       not_applicable={FSDP2: "Obsolete in FSDP2: accelerate broadcasts itself when loading on one rank.",
                       DEEPSPEED: "DeepSpeed broadcasts the initial weights itself."},
       counterpart="DeepSpeed: transparent.",
       claims=("fsdp1-sync-module-states-broadcasts", "fsdp2-ignores-sync-module-states",
               "fsdp2-no-broadcast-unless-ram-efficient", "ds-engine-broadcasts-params")),
    # ---------------------------------------------------------------- training
    _s("training.gradient_accumulation_steps", "Gradient accumulation steps", "int", 1, minimum=1, maximum=MAX_STEPS,
       allow_auto=True,
       writes={DEEPSPEED: (_y("deepspeed_config.gradient_accumulation_steps", when=CUSTOM),
                           _j("gradient_accumulation_steps", when=CUSTOM))},
       where_text={FSDP1: "Accelerator(gradient_accumulation_steps=...) in the script",
                  FSDP2: "Accelerator(gradient_accumulation_steps=...) in the script"},
       counterpart="FSDP: set in the script or TrainingArguments; DeepSpeed: in the config (it overrides an own "
                   "loop's Accelerator argument; the Trainer requires it to match).",
       claims=("launch-accumulation-and-clipping-deepspeed-only", "ds-json-without-gradient-accumulation-is-1",
               "trainer-ds-values-must-match-arguments")),
    _s("training.gradient_clipping", "Gradient clipping (max norm, 0 = off)", "float", 1.0, minimum=0, maximum=MAX_CLIP,
       allow_auto=True,
       writes={DEEPSPEED: (_y("deepspeed_config.gradient_clipping", when=CUSTOM),
                           _j("gradient_clipping", when=CUSTOM))},
       where_text={FSDP1: "accelerator.clip_grad_norm_(...) in the script",
                  FSDP2: "accelerator.clip_grad_norm_(...) in the script"},
       counterpart="FSDP: clip_grad_norm_ in the script (the Trainer calls it with max_grad_norm); DeepSpeed: the "
                   "engine clips from the config.",
       claims=("launch-accumulation-and-clipping-deepspeed-only", "trainer-counts-accumulation-and-clips",
               "ds-clip-grad-norm-only-reports")),
    _s("training.micro_batch_size", "Micro-batch size per GPU", "int", "auto", minimum=1, maximum=MAX_BATCH,
       allow_auto=True,
       writes={DEEPSPEED: (_j("train_batch_size", when=CUSTOM), _j("train_micro_batch_size_per_gpu", when=CUSTOM))},
       where_text={DEEPSPEED: "train_micro_batch_size_per_gpu (DeepSpeed JSON)",
                  FSDP1: "the DataLoader's batch_size in the script",
                  FSDP2: "the DataLoader's batch_size in the script"},
       counterpart="FSDP: only the DataLoader decides; DeepSpeed checks it against the batch identity.",
       claims=("fsdp-knows-no-batch-size", "ds-batch-size-uses-world-size")),
    _s("training.activation_checkpointing", "Activation checkpointing", "bool", False,
       writes=_fsdp(_y("fsdp_config.fsdp_activation_checkpointing", effective="fsdp.activation_checkpointing")),
       not_applicable={DEEPSPEED: "No accelerate switch for DeepSpeed: call model.gradient_checkpointing_enable()."},
       counterpart="DeepSpeed: enable gradient checkpointing on the model.",
       claims=("ds-activation-checkpointing-section-api-only",)),
    _s("training.activation_checkpointing_offload", "Offload checkpointed activations", "bool", False,
       writes={FSDP2: (_y("fsdp_config.fsdp_activation_checkpointing_offload",
                          effective="fsdp.activation_checkpointing_offload", versions="accelerate>=1.15"),)},
       not_applicable={FSDP1: "Only FSDP2 can offload checkpointed activations.",
                       DEEPSPEED: "Only through DeepSpeed's own activation_checkpointing API (Megatron-style models)."},
       counterpart="DeepSpeed: activation_checkpointing.cpu_checkpointing for models that use its API.",
       claims=("fsdp2-ac-offload-wrapper", "ds-activation-checkpointing-section-api-only")),
    # ---------------------------------------------------------------- precision
    _s("precision.mixed_precision", "Mixed precision", "choice", "bf16", choices=("no", "fp16", "bf16", "fp8"),
       writes={**_fsdp(_y("mixed_precision", effective="mixed_precision")),
               DEEPSPEED: (_y("mixed_precision", effective="mixed_precision"), _j("bf16.enabled", when=CUSTOM),
                           _j("fp16.enabled", when=CUSTOM))},
       where_text={DEEPSPEED: "mixed_precision, or bf16/fp16 sections of the DeepSpeed JSON"},
       counterpart="Same intent; FSDP keeps parameters in the load dtype unless mixed precision upcasts, "
                   "DeepSpeed ZeRO-1/2/3 keep fp32 master weights by default.",
       claims=("fsdp-no-mixed-precision-keeps-load-dtype", "fsdp2-upcast-per-parameter", "fsdp1-upcast-per-unit",
               "ds-module-cast-fp32-master", "ds-bf16-master-weights-option")),
    _s("precision.model_dtype", "dtype the model is loaded in", "choice", "fp32", choices=("fp32", "bf16", "fp16"),
       where_text=_ON_EVERY_TARGET("(your script: from_pretrained(torch_dtype=...))"),
       counterpart="Decides FSDP's parameter and optimizer dtype without mixed precision; DeepSpeed ZeRO-1/2/3 "
                   "keep an fp32 master copy whatever the load dtype (unless bf16 master weights are chosen).",
       claims=("fsdp-no-mixed-precision-keeps-load-dtype", "ds-module-cast-fp32-master",
               "ds-bf16-master-weights-option")),
    _s("precision.ds_communication_data_type", "Gradient reduction dtype", "choice", None, nullable=True,
       choices=("fp32", "bf16", "fp16"), writes={DEEPSPEED: (_j("communication_data_type", when=SET),)},
       where_text={DEEPSPEED: "{keys} (DeepSpeed JSON)"},
       not_applicable={FSDP1: "accelerate derives FSDP's reduce dtype from mixed_precision.",
                       FSDP2: "accelerate derives FSDP's reduce dtype from mixed_precision."},
       counterpart="FSDP: MixedPrecision reduce_dtype, set from mixed_precision.",
       claims=("fsdp-policy-from-mixed-precision", "ds-communication-dtype-default")),
    _s("precision.ds_bf16_master_weights", "ZeRO master weights dtype", "choice", None, nullable=True,
       choices=("fp32", "bf16", "bf16_with_states"),
       writes={DEEPSPEED: (_j("bf16.bf16_master_weights_and_grads", when=SET, library_default=False,
                              values={"fp32": False, "bf16": True, "bf16_with_states": True}),
                           _j("bf16.bf16_optimizer_states", when=SET, library_default=False,
                              values={"fp32": False, "bf16": False, "bf16_with_states": True}))},
       where_text={DEEPSPEED: "{keys} (DeepSpeed JSON)"},
       not_applicable={FSDP1: "FSDP keeps master weights in the load dtype: load in bf16 and set "
                              "mixed_precision no.",
                       FSDP2: "FSDP keeps master weights in the load dtype: load in bf16 and set "
                              "mixed_precision no."},
       counterpart="FSDP: load the model in bf16 and set mixed_precision no (bf16 weights, grads and Adam "
                   "state).",
       claims=("master-weights-fsdp-load-dtype", "master-weights-bf16-dtypes")),
    # the fp8 backend and its recipe's options, last in the group: they matter only with mixed_precision fp8
    _s("precision.fp8_backend", "fp8 backend", "choice", "auto", choices=("auto", "ao", "te", "msamp"),
       writes=_everywhere(_y("fp8_config.backend", values=_FP8_BACKEND, when=CUSTOM)),
       where_text=_ON_EVERY_TARGET("{keys} (with mixed_precision fp8; auto: not written, accelerate takes the first "
                                   "installed of torchao, Transformer Engine, MS-AMP)"),
       counterpart="Same key for both backends; MS-AMP runs under DeepSpeed ZeRO-0/1/2 only, never with FSDP.",
       claims=("fp8-recipe-reads-launch-env", "fp8-backend-limits")),
    _fp8_option("fp8_format", "fp8 format (TE)", "choice", "HYBRID", "TE", choices=("HYBRID", "E4M3", "E5M2")),
    _fp8_option("margin", "fp8 scaling margin (TE)", "int", 0, "TE", minimum=0, maximum=MAX_STEPS),
    _fp8_option("interval", "fp8 scaling interval (TE)", "int", 1, "TE", minimum=1, maximum=MAX_STEPS),
    _fp8_option("amax_history_len", "fp8 amax history length (TE)", "int", 1024, "TE", minimum=1,
                 maximum=MAX_STEPS),
    _fp8_option("amax_compute_algo", "fp8 amax algorithm (TE)", "choice", "most_recent", "TE",
                 choices=("most_recent", "max")),
    *(_fp8_option("override_linear_precision", f"Run {gemm} in higher precision (TE)", "bool", False, "TE",
                  name=f"fp8_override_{gemm}") for gemm in FP8_GEMMS),
    _fp8_option("use_autocast_during_eval", "fp8 autocast in eval mode (TE)", "bool", False, "TE"),
    _fp8_option("opt_level", "MS-AMP optimization level", "choice", "O2", "MSAMP", choices=("O1", "O2"),
                 not_applicable={FSDP1: _MSAMP_NOT_FSDP, FSDP2: _MSAMP_NOT_FSDP}),
    _fp8_option("enable_fsdp_float8_all_gather", "fp8 all-gather of FSDP2 shards (torchao)", "bool", True, "AO",
                 versions="accelerate>=1.13"),
    _fp8_option("pad_inner_dim", "Pad fp8 matrix dimensions (torchao)", "bool", True, "AO",
                 versions="accelerate>=1.13"),
    # ---------------------------------------------------------------- deepspeed engine
    _s("deepspeed.config_file", "Write a DeepSpeed JSON", "choice", "auto", choices=("auto", "yes", "no"),
       writes={DEEPSPEED: (_y("deepspeed_config.deepspeed_config_file", when=CUSTOM),)},
       not_applicable={FSDP1: "FSDP is configured in the accelerate YAML only.",
                       FSDP2: "FSDP is configured in the accelerate YAML only."},
       counterpart="FSDP: everything lives in fsdp_config.",
       claims=("fsdp-config-yaml-only", "ds-json-owns-its-keys")),
    _s("deepspeed.overlap_comm", "Overlap communication", "bool", None, nullable=True,
       writes={DEEPSPEED: (_j("zero_optimization.overlap_comm", when=SET),)},
       not_applicable={FSDP1: "FSDP always overlaps.", FSDP2: "FSDP always overlaps."}, counterpart="FSDP: built in.",
       claims=("fsdp-overlaps-on-its-own-streams",)),
    _s("deepspeed.contiguous_gradients", "Contiguous gradients", "bool", None, nullable=True,
       writes={DEEPSPEED: (_j("zero_optimization.contiguous_gradients", when=SET),)},
       not_applicable={FSDP1: "FSDP1 flat parameters are contiguous already.", FSDP2: "No such knob in FSDP2."},
       counterpart="FSDP: none.",
       claims=("fsdp1-flat-gradients",)),
    _s("deepspeed.reduce_bucket_size", "Reduce bucket size", "int", None, nullable=True, allow_auto=True, minimum=1,
       maximum=MAX_COUNT,
       writes={DEEPSPEED: (_j("zero_optimization.reduce_bucket_size", when=SET),)},
       not_applicable={FSDP1: "FSDP reduces per wrapped module.", FSDP2: "FSDP reduces per wrapped module."},
       counterpart="FSDP: the wrapping granularity.",
       claims=("fsdp-collectives-per-unit",)),
    _s("deepspeed.allgather_bucket_size", "All-gather bucket size", "int", None, nullable=True, minimum=1,
       maximum=MAX_COUNT,
       writes={DEEPSPEED: (_j("zero_optimization.allgather_bucket_size", when=SET),)},
       not_applicable={FSDP1: "FSDP gathers per wrapped module.", FSDP2: "FSDP gathers per wrapped module."},
       counterpart="FSDP: the wrapping granularity.",
       claims=("fsdp-collectives-per-unit",)),
    _s("deepspeed.sub_group_size", "Optimizer sub-group size", "int", None, nullable=True, minimum=1,
       maximum=MAX_COUNT,
       writes={DEEPSPEED: (_j("zero_optimization.sub_group_size", when=ZERO3),)},
       not_applicable={FSDP1: "No such knob in FSDP.", FSDP2: "No such knob in FSDP."},
       counterpart="FSDP: none.",
       claims=("ds-sub-group-size-zero3",)),
    _s("deepspeed.extra", "Extra DeepSpeed JSON (merged, validated)", "dict", {},
       where_text={DEEPSPEED: "merged into the DeepSpeed JSON"},
       not_applicable={FSDP1: "DeepSpeed-only.", FSDP2: "DeepSpeed-only."},
       counterpart="FSDP: none.",
       claims=("fsdp-config-yaml-only",)),
)


SETTING_BY_ID: dict[str, Setting] = {s.id: s for s in SETTINGS}


def fp8_options(backend: str | None = None) -> tuple[Setting, ...]:
    """The options of the fp8 recipe of ``backend`` (``ao``, ``te``, ``msamp``; None: of every backend), in catalogue
    order: the settings written into ``fp8_config`` besides the backend itself."""
    from ..library.launcher import FP8_RECIPE_KEYS  # here, not at start: explain and check start without it

    keys = {k for b, ks in FP8_RECIPE_KEYS.items() if backend is None or b == _FP8_BACKEND[backend] for k in ks}
    return tuple(s for s in SETTINGS if s.id != "precision.fp8_backend"
                 and any(w.key.removeprefix("fp8_config.") in keys for ws in s.writes.values() for w in ws
                         if w.key.startswith("fp8_config.")))


def fp8_backend_of(setting_id: str) -> str:
    """The fp8 backend (``ao``, ``te``, ``msamp``) whose recipe reads this option."""
    return next(b for b in _FP8_BACKEND if b != "auto" and any(s.id == setting_id for s in fp8_options(b)))


def settings_in(group: str) -> list[Setting]:
    return [s for s in SETTINGS if s.group == group]


def target_of(backend: str, fsdp_version: int) -> str:
    if backend == "deepspeed":
        return DEEPSPEED
    return FSDP1 if fsdp_version == 1 else FSDP2
