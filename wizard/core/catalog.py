"""Every setting the wizard knows, declared once, as data.

A :class:`Setting` says which guide group it belongs to, what kind of value it takes, its default,
where it is written for each target (FSDP1, FSDP2, DeepSpeed) and, where a target has no such
setting, why. The prose explanations live in :mod:`wizard.core.texts`, keyed by the same ids.

The same declarations drive the answers schema (:mod:`wizard.core.answers`), the renderers, the
``explain`` command and the TUI forms.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

FSDP1 = "fsdp1"
FSDP2 = "fsdp2"
DEEPSPEED = "deepspeed"
TARGETS = (FSDP1, FSDP2, DEEPSPEED)
TARGET_LABELS = {FSDP1: "FSDP1", FSDP2: "FSDP2", DEEPSPEED: "DeepSpeed"}

AUTO = "auto"


@dataclass(frozen=True)
class Group:
    id: str
    label: str
    guide: bool
    """True for the groups of the Accelerate concept guide "FSDP vs DeepSpeed"."""


GROUPS: tuple[Group, ...] = (
    Group("backend", "Backend", False),
    Group("launch", "Launch basics", False),
    Group("sharding", "Sharding / partitioning", True),
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


@dataclass(frozen=True)
class Setting:
    id: str
    """``group.name``; settings of the ``backend`` group have no dot and sit at the top level."""
    label: str
    kind: str
    """bool, int, float, choice, str, list, dict."""
    default: Any
    where: dict[str, str]
    """Target -> where the value is written (YAML key, or DeepSpeed JSON path)."""
    not_applicable: dict[str, str] = field(default_factory=dict)
    """Target -> why the setting has no effect there."""
    choices: tuple = ()
    nullable: bool = False
    """``null`` is allowed (it means: do not write it; the library default applies)."""
    allow_auto: bool = False
    """The string ``auto`` is allowed (filled by accelerate at run time)."""
    minimum: float | None = None
    maximum: float | None = None
    counterpart: str = ""
    """One line: the nearest setting on the other backend, or why there is none."""

    @property
    def group(self) -> str:
        return self.id.split(".", 1)[0] if "." in self.id else "backend"

    @property
    def path(self) -> tuple[str, ...]:
        """Where the value sits in answers.yaml."""
        return tuple(self.id.split(".", 1)) if "." in self.id else (self.id,)

    def applies_to(self, target: str) -> bool:
        return target in self.where and target not in self.not_applicable


def _s(id: str, label: str, kind: str, default: Any, **kw: Any) -> Setting:
    return Setting(id=id, label=label, kind=kind, default=default, **kw)


def _everywhere(key: str) -> dict[str, str]:
    return {t: key for t in TARGETS}


# Upper bounds of the integer settings (answers validation, the JSON schema, docs/answers.md, the TUI's field errors).
# Each is far above any real value, so nothing legitimate is refused, and a typo (or a 2,770-digit number) is.
MAX_PROCESSES = 2**20
"""1,048,576 processes: more than the largest training clusters have GPUs."""
MAX_MACHINES = 2**16
"""65,536 machines (nodes)."""
MAX_COUNT = 10**12
"""Element / parameter counts (bucket sizes, thresholds, wrap sizes): a trillion, more than any model has."""
MAX_STEPS = 100_000
"""Gradient accumulation steps."""
MAX_BATCH = 1_000_000
"""Samples in one micro-batch per GPU."""
MAX_CLIP = 1_000_000.0
"""A max grad norm above this never clips in practice: 0 is how clipping is turned off."""

_FSDP_ONLY_DS = ("DeepSpeed has no such setting: ZeRO-3 gathers each module's parameters through its own hooks, so "
                 "there are no units to choose.")

SETTINGS: tuple[Setting, ...] = (
    # ---------------------------------------------------------------- backend
    _s("backend", "Backend", "choice", "fsdp", choices=("fsdp", "deepspeed"),
       where={FSDP1: "distributed_type: FSDP", FSDP2: "distributed_type: FSDP", DEEPSPEED: "distributed_type: DEEPSPEED"},
       counterpart="Switching keeps the intent of every other answer and lists what cannot carry over."),
    _s("fsdp_version", "FSDP version", "choice", 2, choices=(1, 2),
       where={FSDP1: "fsdp_config.fsdp_version", FSDP2: "fsdp_config.fsdp_version"},
       not_applicable={DEEPSPEED: "DeepSpeed has one implementation; the ZeRO stage is the knob."},
       counterpart="DeepSpeed: no versions; ZeRO stage 1/2/3 chooses what is partitioned."),
    # ---------------------------------------------------------------- launch
    _s("launch.num_processes", "Processes (GPUs) in total", "int", 2, minimum=1, maximum=MAX_PROCESSES,
       where=_everywhere("num_processes"), counterpart="Same key for both backends."),
    _s("launch.num_machines", "Machines (nodes)", "int", 1, minimum=1, maximum=MAX_MACHINES,
       where=_everywhere("num_machines"), counterpart="Same key for both backends."),
    _s("launch.machine_rank", "This machine's rank", "int", 0, minimum=0, maximum=MAX_MACHINES - 1,
       where=_everywhere("machine_rank"), counterpart="Same key for both backends."),
    _s("launch.main_process_ip", "Main process address", "str", None, nullable=True,
       where=_everywhere("main_process_ip"), counterpart="Same key for both backends."),
    _s("launch.main_process_port", "Main process port", "int", None, nullable=True, minimum=1, maximum=65535,
       where=_everywhere("main_process_port"), counterpart="Same key for both backends."),
    _s("launch.rdzv_backend", "Rendezvous backend", "choice", "static", choices=("static", "c10d", "etcd", "etcd-v2"),
       where=_everywhere("rdzv_backend"), counterpart="Same key for both backends."),
    _s("launch.same_network", "Machines share a network", "bool", True,
       where=_everywhere("same_network"), counterpart="Same key for both backends."),
    _s("launch.gpu_ids", "GPU ids", "str", "all",
       where=_everywhere("gpu_ids"), counterpart="Same key for both backends."),
    _s("launch.main_training_function", "Main training function", "str", "main",
       where=_everywhere("main_training_function"), counterpart="Same key for both backends."),
    _s("launch.ds_multinode_launcher", "DeepSpeed multi-node launcher", "choice", "standard",
       choices=("standard", "pdsh", "openmpi", "mvapich", "mpich", "nossh", "slurm"),
       where={DEEPSPEED: "deepspeed_config.deepspeed_multinode_launcher"},
       not_applicable={FSDP1: "FSDP always starts through torchrun on every machine.",
                       FSDP2: "FSDP always starts through torchrun on every machine."},
       counterpart="FSDP: torchrun on each machine, like DeepSpeed's 'standard' launcher."),
    _s("launch.ds_hostfile", "DeepSpeed hostfile", "str", None, nullable=True,
       where={DEEPSPEED: "deepspeed_config.deepspeed_hostfile"},
       not_applicable={FSDP1: "FSDP has no hostfile: start the launcher on each machine.",
                       FSDP2: "FSDP has no hostfile: start the launcher on each machine."},
       counterpart="FSDP: none; each machine runs accelerate launch with its machine_rank."),
    _s("launch.ds_inclusion_filter", "DeepSpeed inclusion filter", "str", None, nullable=True,
       where={DEEPSPEED: "deepspeed_config.deepspeed_inclusion_filter"},
       not_applicable={FSDP1: "No hostfile filters in FSDP.", FSDP2: "No hostfile filters in FSDP."},
       counterpart="FSDP: choose GPUs with gpu_ids on each machine."),
    _s("launch.ds_exclusion_filter", "DeepSpeed exclusion filter", "str", None, nullable=True,
       where={DEEPSPEED: "deepspeed_config.deepspeed_exclusion_filter"},
       not_applicable={FSDP1: "No hostfile filters in FSDP.", FSDP2: "No hostfile filters in FSDP."},
       counterpart="FSDP: choose GPUs with gpu_ids on each machine."),
    _s("launch.dynamo_backend", "torch.compile backend", "choice", "no",
       choices=("no", "inductor", "eager", "aot_eager", "cudagraphs"),
       where=_everywhere("dynamo_config.dynamo_backend"),
       counterpart="Both backends compile through the same dynamo_config; FSDP1 needs use_orig_params."),
    _s("launch.dynamo_mode", "torch.compile mode", "choice", "default",
       choices=("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"),
       where=_everywhere("dynamo_config.dynamo_mode"), counterpart="Same key for both backends."),
    _s("launch.dynamo_fullgraph", "torch.compile fullgraph", "bool", False,
       where=_everywhere("dynamo_config.dynamo_use_fullgraph"), counterpart="Same key for both backends."),
    _s("launch.dynamo_dynamic", "torch.compile dynamic shapes", "bool", False,
       where=_everywhere("dynamo_config.dynamo_use_dynamic"), counterpart="Same key for both backends."),
    _s("launch.dynamo_regional", "Regional compilation", "bool", False,
       where=_everywhere("dynamo_config.dynamo_use_regional_compilation"), counterpart="Same key for both backends."),
    _s("launch.script", "Training script", "str", None, nullable=True,
       where=_everywhere("(command line of accelerate launch)"),
       counterpart="Not part of either config: it is what accelerate launch runs."),
    _s("launch.script_args", "Script arguments", "list", [],
       where=_everywhere("(command line of accelerate launch)"),
       counterpart="Not part of either config: passed to the script."),
    # ---------------------------------------------------------------- sharding
    _s("sharding.strategy", "What to shard", "choice", "full",
       choices=("full", "grads_optimizer", "optimizer", "none", "hybrid_full", "hybrid_grads_optimizer"),
       where={FSDP1: "fsdp_config.fsdp_sharding_strategy",
              FSDP2: "fsdp_config.fsdp_reshard_after_forward (+ parallelism_config for hybrid)",
              DEEPSPEED: "zero_stage / zero_optimization.stage (+ zero_hpz_partition_size for hybrid)"},
       counterpart="full = FULL_SHARD = ZeRO-3; grads_optimizer = SHARD_GRAD_OP = ZeRO-2; optimizer = ZeRO-1 "
                   "(no FSDP twin); none = NO_SHARD = ZeRO-0; hybrid_full = HYBRID_SHARD ~ ZeRO++ hpZ."),
    # ---------------------------------------------------------------- offload
    _s("offload.optimizer", "Offload optimizer state to", "choice", "none", choices=("none", "cpu", "nvme"),
       where={FSDP1: "fsdp_config.fsdp_offload_params (all or nothing)",
              FSDP2: "fsdp_config.fsdp_offload_params (all or nothing)",
              DEEPSPEED: "offload_optimizer_device / zero_optimization.offload_optimizer.device"},
       counterpart="FSDP offloads parameters, gradients and the optimizer step together, or nothing; "
                   "DeepSpeed offloads the optimizer and the parameters separately, to CPU or NVMe."),
    _s("offload.params", "Offload parameters to", "choice", "none", choices=("none", "cpu", "nvme"),
       where={FSDP1: "fsdp_config.fsdp_offload_params (all or nothing)",
              FSDP2: "fsdp_config.fsdp_offload_params (all or nothing)",
              DEEPSPEED: "offload_param_device / zero_optimization.offload_param.device"},
       counterpart="DeepSpeed: ZeRO-3 only; FSDP: the single offload switch."),
    _s("offload.nvme_path", "NVMe folder", "str", None, nullable=True,
       where={DEEPSPEED: "zero_optimization.offload_*.nvme_path in the DeepSpeed JSON; never the inline "
                         "offload_optimizer_nvme_path / offload_param_nvme_path, which accelerate launch drops"},
       not_applicable={FSDP1: "FSDP cannot offload to NVMe.", FSDP2: "FSDP cannot offload to NVMe."},
       counterpart="FSDP: no NVMe offload at all."),
    _s("offload.pin_memory", "Pin offloaded memory", "bool", True,
       where={DEEPSPEED: "zero_optimization.offload_*.pin_memory (DeepSpeed JSON only)"},
       not_applicable={FSDP1: "accelerate gives FSDP no pin-memory switch.",
                       FSDP2: "accelerate always pins with FSDP2's CPU offload policy."},
       counterpart="FSDP2's CPU offload pins host memory by itself."),
    # ---------------------------------------------------------------- loading
    _s("loading.ram_efficient", "Load weights on one rank only", "bool", True,
       where={FSDP1: "fsdp_config.fsdp_cpu_ram_efficient_loading",
              FSDP2: "fsdp_config.fsdp_cpu_ram_efficient_loading",
              DEEPSPEED: "deepspeed_config.zero3_init_flag"},
       counterpart="FSDP: cpu_ram_efficient_loading (needs sync_module_states); DeepSpeed: zero3_init_flag, "
                   "ZeRO-3 only."),
    # ---------------------------------------------------------------- checkpoint
    _s("checkpoint.format", "Checkpoint format", "choice", "sharded", choices=("sharded", "full", "local"),
       where={FSDP1: "fsdp_config.fsdp_state_dict_type", FSDP2: "fsdp_config.fsdp_state_dict_type",
              DEEPSPEED: "zero3_save_16bit_model / zero_optimization.stage3_gather_16bit_weights_on_model_save"},
       counterpart="FULL_STATE_DICT ~ ZeRO-3 with zero3_save_16bit_model; SHARDED_STATE_DICT ~ ZeRO-3 shards "
                   "consolidated later with zero_to_fp32.py."),
    # ---------------------------------------------------------------- prefetch
    _s("prefetch.backward", "Backward prefetch", "choice", "pre", choices=("pre", "post", "none"),
       where={FSDP1: "fsdp_config.fsdp_backward_prefetch"},
       not_applicable={FSDP2: "FSDP2 has no prefetch knobs; it prefetches the next module by itself.",
                       DEEPSPEED: "DeepSpeed prefetches by itself (ZeRO-3 bucket and persistence knobs)."},
       counterpart="DeepSpeed ZeRO-3: stage3_prefetch_bucket_size and friends."),
    _s("prefetch.forward", "Forward prefetch", "bool", False,
       where={FSDP1: "fsdp_config.fsdp_forward_prefetch"},
       not_applicable={FSDP2: "FSDP2 has no prefetch knobs (accelerate drops it).",
                       DEEPSPEED: "DeepSpeed prefetches by itself."},
       counterpart="DeepSpeed: implicit."),
    _s("prefetch.ds_bucket_size", "ZeRO-3 prefetch bucket size", "int", None, nullable=True, allow_auto=True,
       minimum=0, maximum=MAX_COUNT, where={DEEPSPEED: "zero_optimization.stage3_prefetch_bucket_size"},
       not_applicable={FSDP1: "FSDP1 uses backward/forward prefetch instead.", FSDP2: "FSDP2 has no prefetch knobs."},
       counterpart="FSDP1: backward_prefetch."),
    _s("prefetch.ds_param_persistence_threshold", "ZeRO-3 persistence threshold", "int", None, nullable=True,
       allow_auto=True, minimum=0, maximum=MAX_COUNT,
       where={DEEPSPEED: "zero_optimization.stage3_param_persistence_threshold"},
       not_applicable={FSDP1: "FSDP keeps no small parameters unsharded.", FSDP2: "FSDP keeps no small parameters unsharded."},
       counterpart="FSDP: only a loose analogy, ignored_modules (kept whole, but also left out of gradient "
                   "reduction)."),
    _s("prefetch.ds_max_live_parameters", "ZeRO-3 max live parameters", "int", None, nullable=True, minimum=0,
       maximum=MAX_COUNT,
       where={DEEPSPEED: "zero_optimization.stage3_max_live_parameters"},
       not_applicable={FSDP1: "FSDP frees per wrapped module instead.", FSDP2: "FSDP frees per wrapped module instead."},
       counterpart="FSDP: the wrapping granularity bounds what is gathered."),
    _s("prefetch.ds_max_reuse_distance", "ZeRO-3 max reuse distance", "int", None, nullable=True, minimum=0,
       maximum=MAX_COUNT,
       where={DEEPSPEED: "zero_optimization.stage3_max_reuse_distance"},
       not_applicable={FSDP1: "FSDP reshards after each module by strategy.", FSDP2: "FSDP2: reshard_after_forward."},
       counterpart="FSDP: reshard after forward (strategy)."),
    # ---------------------------------------------------------------- wrapping
    _s("wrapping.policy", "Auto-wrap policy", "choice", "transformer", choices=("transformer", "size", "none"),
       where={FSDP1: "fsdp_config.fsdp_auto_wrap_policy", FSDP2: "fsdp_config.fsdp_auto_wrap_policy"},
       not_applicable={DEEPSPEED: _FSDP_ONLY_DS}, counterpart="DeepSpeed: transparent, nothing to choose."),
    _s("wrapping.layer_classes", "Layer classes to wrap", "list", [],
       where={FSDP1: "fsdp_config.fsdp_transformer_layer_cls_to_wrap", FSDP2: "fsdp_config.fsdp_transformer_layer_cls_to_wrap"},
       not_applicable={DEEPSPEED: _FSDP_ONLY_DS}, counterpart="DeepSpeed: transparent."),
    _s("wrapping.min_num_params", "Size-wrap threshold (parameters)", "int", 100_000_000, minimum=1,
       maximum=MAX_COUNT,
       where={FSDP1: "fsdp_config.fsdp_min_num_params", FSDP2: "fsdp_config.fsdp_min_num_params"},
       not_applicable={DEEPSPEED: _FSDP_ONLY_DS}, counterpart="DeepSpeed: transparent."),
    _s("wrapping.ignored_modules", "Modules kept out of sharding (regex)", "str", None, nullable=True,
       where={FSDP1: "fsdp_config.fsdp_ignored_modules", FSDP2: "fsdp_config.fsdp_ignored_modules"},
       not_applicable={DEEPSPEED: "DeepSpeed has no regex; small parameters stay whole below the persistence threshold."},
       counterpart="DeepSpeed: only a loose analogy, stage3_param_persistence_threshold (small parameters kept "
                   "whole, still reduced)."),
    _s("wrapping.ds_moe_layer_classes", "MoE layer classes (ZeRO-3 leaf modules)", "list", [],
       where={DEEPSPEED: "deepspeed_config.deepspeed_moe_layer_cls_names"},
       not_applicable={FSDP1: "FSDP has no MoE leaf setting.", FSDP2: "FSDP has no MoE leaf setting."},
       counterpart="FSDP: wrap the expert block class instead."),
    # ---------------------------------------------------------------- summoning
    _s("summoning.use_orig_params", "Keep original parameters (use_orig_params)", "bool", True,
       where={FSDP1: "fsdp_config.fsdp_use_orig_params"},
       not_applicable={FSDP2: "FSDP2 always keeps the original parameters (as DTensors).",
                       DEEPSPEED: "DeepSpeed keeps the module's own parameters; transparent."},
       counterpart="DeepSpeed: transparent; FSDP2: always on."),
    # ---------------------------------------------------------------- sync
    _s("sync.module_states", "Broadcast rank 0's weights (sync_module_states)", "bool", True,
       where={FSDP1: "fsdp_config.fsdp_sync_module_states"},
       not_applicable={FSDP2: "Obsolete in FSDP2: accelerate broadcasts itself when loading on one rank.",
                       DEEPSPEED: "DeepSpeed broadcasts the initial weights itself."},
       counterpart="DeepSpeed: transparent."),
    # ---------------------------------------------------------------- training
    _s("training.gradient_accumulation_steps", "Gradient accumulation steps", "int", 1, minimum=1, maximum=MAX_STEPS,
       allow_auto=True,
       where={FSDP1: "Accelerator(gradient_accumulation_steps=...) in the script",
              FSDP2: "Accelerator(gradient_accumulation_steps=...) in the script",
              DEEPSPEED: "gradient_accumulation_steps"},
       counterpart="FSDP: set in the script; DeepSpeed: in the config (it overrides the script)."),
    _s("training.gradient_clipping", "Gradient clipping (max norm, 0 = off)", "float", 1.0, minimum=0, maximum=MAX_CLIP,
       allow_auto=True,
       where={FSDP1: "accelerator.clip_grad_norm_(...) in the script",
              FSDP2: "accelerator.clip_grad_norm_(...) in the script",
              DEEPSPEED: "gradient_clipping"},
       counterpart="FSDP: call clip_grad_norm_ in the script; DeepSpeed: the engine clips from the config."),
    _s("training.micro_batch_size", "Micro-batch size per GPU", "int", "auto", minimum=1, maximum=MAX_BATCH,
       allow_auto=True,
       where={DEEPSPEED: "train_micro_batch_size_per_gpu (DeepSpeed JSON)",
              FSDP1: "the DataLoader's batch_size in the script", FSDP2: "the DataLoader's batch_size in the script"},
       counterpart="FSDP: only the DataLoader decides; DeepSpeed checks it against the batch identity."),
    _s("training.activation_checkpointing", "Activation checkpointing", "bool", False,
       where={FSDP1: "fsdp_config.fsdp_activation_checkpointing", FSDP2: "fsdp_config.fsdp_activation_checkpointing"},
       not_applicable={DEEPSPEED: "No accelerate switch for DeepSpeed: call model.gradient_checkpointing_enable()."},
       counterpart="DeepSpeed: enable gradient checkpointing on the model."),
    _s("training.activation_checkpointing_offload", "Offload checkpointed activations", "bool", False,
       where={FSDP2: "fsdp_config.fsdp_activation_checkpointing_offload"},
       not_applicable={FSDP1: "Only FSDP2 can offload checkpointed activations.",
                       DEEPSPEED: "Only through DeepSpeed's own activation_checkpointing API (Megatron-style models)."},
       counterpart="DeepSpeed: activation_checkpointing.cpu_checkpointing for models that use its API."),
    # ---------------------------------------------------------------- precision
    _s("precision.mixed_precision", "Mixed precision", "choice", "bf16", choices=("no", "fp16", "bf16", "fp8"),
       where={FSDP1: "mixed_precision", FSDP2: "mixed_precision",
              DEEPSPEED: "mixed_precision, or bf16/fp16 sections of the DeepSpeed JSON"},
       counterpart="Same intent; FSDP keeps parameters in the load dtype unless mixed precision upcasts, "
                   "DeepSpeed ZeRO-1/2/3 keep fp32 master weights."),
    _s("precision.model_dtype", "dtype the model is loaded in", "choice", "fp32", choices=("fp32", "bf16", "fp16"),
       where={FSDP1: "(your script: from_pretrained(torch_dtype=...))", FSDP2: "(your script: from_pretrained(torch_dtype=...))",
              DEEPSPEED: "(your script: from_pretrained(torch_dtype=...))"},
       counterpart="Decides FSDP's parameter and optimizer dtype without mixed precision; DeepSpeed ZeRO-1/2/3 "
                   "keep an fp32 master copy whatever the load dtype."),
    _s("precision.ds_communication_data_type", "Gradient reduction dtype", "choice", None, nullable=True,
       choices=("fp32", "bf16", "fp16"), where={DEEPSPEED: "communication_data_type (DeepSpeed JSON)"},
       not_applicable={FSDP1: "accelerate derives FSDP's reduce dtype from mixed_precision.",
                       FSDP2: "accelerate derives FSDP's reduce dtype from mixed_precision."},
       counterpart="FSDP: MixedPrecision reduce_dtype, set from mixed_precision."),
    # ---------------------------------------------------------------- deepspeed engine
    _s("deepspeed.config_file", "Write a DeepSpeed JSON", "choice", "auto", choices=("auto", "yes", "no"),
       where={DEEPSPEED: "deepspeed_config.deepspeed_config_file"},
       not_applicable={FSDP1: "FSDP is configured in the accelerate YAML only.",
                       FSDP2: "FSDP is configured in the accelerate YAML only."},
       counterpart="FSDP: everything lives in fsdp_config."),
    _s("deepspeed.overlap_comm", "Overlap communication", "bool", None, nullable=True,
       where={DEEPSPEED: "zero_optimization.overlap_comm"},
       not_applicable={FSDP1: "FSDP always overlaps.", FSDP2: "FSDP always overlaps."}, counterpart="FSDP: built in."),
    _s("deepspeed.contiguous_gradients", "Contiguous gradients", "bool", None, nullable=True,
       where={DEEPSPEED: "zero_optimization.contiguous_gradients"},
       not_applicable={FSDP1: "FSDP1 flat parameters are contiguous already.", FSDP2: "No such knob in FSDP2."},
       counterpart="FSDP: none."),
    _s("deepspeed.reduce_bucket_size", "Reduce bucket size", "int", None, nullable=True, allow_auto=True, minimum=1,
       maximum=MAX_COUNT,
       where={DEEPSPEED: "zero_optimization.reduce_bucket_size"},
       not_applicable={FSDP1: "FSDP reduces per wrapped module.", FSDP2: "FSDP reduces per wrapped module."},
       counterpart="FSDP: the wrapping granularity."),
    _s("deepspeed.allgather_bucket_size", "All-gather bucket size", "int", None, nullable=True, minimum=1,
       maximum=MAX_COUNT,
       where={DEEPSPEED: "zero_optimization.allgather_bucket_size"},
       not_applicable={FSDP1: "FSDP gathers per wrapped module.", FSDP2: "FSDP gathers per wrapped module."},
       counterpart="FSDP: the wrapping granularity."),
    _s("deepspeed.sub_group_size", "Optimizer sub-group size", "int", None, nullable=True, minimum=1,
       maximum=MAX_COUNT,
       where={DEEPSPEED: "zero_optimization.sub_group_size"},
       not_applicable={FSDP1: "No such knob in FSDP.", FSDP2: "No such knob in FSDP."},
       counterpart="FSDP: none."),
    _s("deepspeed.extra", "Extra DeepSpeed JSON (merged, validated)", "dict", {},
       where={DEEPSPEED: "merged into the DeepSpeed JSON"},
       not_applicable={FSDP1: "DeepSpeed-only.", FSDP2: "DeepSpeed-only."},
       counterpart="FSDP: none."),
)

SETTING_BY_ID: dict[str, Setting] = {s.id: s for s in SETTINGS}


def settings_in(group: str) -> list[Setting]:
    return [s for s in SETTINGS if s.group == group]


def target_of(backend: str, fsdp_version: int) -> str:
    if backend == "deepspeed":
        return DEEPSPEED
    return FSDP1 if fsdp_version == 1 else FSDP2


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
