"""Answers -> accelerate config YAML dict and (where needed) DeepSpeed JSON dict.

Pure functions. The output is written around the launcher's pitfalls (docs/library-behaviour.md, cited below
by anchor):

* FSDP1 strategies go under ``fsdp_sharding_strategy`` (``accelerate launch`` ignores
  ``fsdp_reshard_after_forward`` for v1, #fsdp1-sharding-strategy); FSDP2 gets a bool
  ``fsdp_reshard_after_forward``.
* NVMe offload, hybrid ZeRO (hpZ) and every DeepSpeed engine knob go through a DeepSpeed JSON, since
  inline NVMe paths never reach DeepSpeed (#ds-nvme-offload) and unknown inline keys are dropped
  (#ds-inline-config).
* Gradient clipping is always explicit: an absent inline key becomes "auto", i.e. 1.0; and since accelerate
  drops a falsy inline value and DeepSpeed's own default is 1.0, "no clipping" (0.0) goes through a JSON.
* No ``mixed_precision`` in the YAML next to a ``deepspeed_config_file`` (#ds-config-file); the JSON carries it.
* Integers stay integers (``fsdp_min_num_params: 100000000``, never ``1e8``, #fsdp-min-num-params).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .answers import Answers
from .catalog import AUTO, DEEPSPEED, FSDP1, FSDP2, SHARDING

ACCELERATE_YAML = "accelerate_config.yaml"
DS_JSON = "ds_config.json"
ANSWERS_YAML = "answers.yaml"

_WRAP = {"transformer": "TRANSFORMER_BASED_WRAP", "size": "SIZE_BASED_WRAP", "none": "NO_WRAP"}
_PREFETCH = {"pre": "BACKWARD_PRE", "post": "BACKWARD_POST", "none": "NO_PREFETCH"}
_STATE_DICT = {"full": "FULL_STATE_DICT", "sharded": "SHARDED_STATE_DICT", "local": "LOCAL_STATE_DICT"}

# DeepSpeed JSON knobs: answer id -> path inside zero_optimization (or top level when no dot).
_DS_ZERO_KNOBS = {
    "prefetch.ds_bucket_size": "stage3_prefetch_bucket_size",
    "prefetch.ds_param_persistence_threshold": "stage3_param_persistence_threshold",
    "prefetch.ds_max_live_parameters": "stage3_max_live_parameters",
    "prefetch.ds_max_reuse_distance": "stage3_max_reuse_distance",
    "deepspeed.overlap_comm": "overlap_comm",
    "deepspeed.contiguous_gradients": "contiguous_gradients",
    "deepspeed.reduce_bucket_size": "reduce_bucket_size",
    "deepspeed.allgather_bucket_size": "allgather_bucket_size",
    "deepspeed.sub_group_size": "sub_group_size",
}
_STAGE3_ONLY = {"prefetch.ds_bucket_size", "prefetch.ds_param_persistence_threshold",
                "prefetch.ds_max_live_parameters", "prefetch.ds_max_reuse_distance", "deepspeed.sub_group_size"}


@dataclass
class Rendered:
    accelerate: dict[str, Any]
    deepspeed: dict[str, Any] | None = None
    provenance: dict[str, str] = field(default_factory=dict)
    """Rendered key path (``fsdp_config.fsdp_offload_params``, ``zero_optimization.stage``) -> answer id."""
    shared: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Keys whose value several answers decide together: path -> every one of them (FSDP's single
    ``fsdp_offload_params`` is written from both offload answers)."""


def processes_per_node(a: Answers) -> int:
    machines = max(1, a["launch.num_machines"])
    return max(1, a["launch.num_processes"] // machines)


def zero_stage(a: Answers) -> int:
    return SHARDING[a["sharding.strategy"]][2]


def is_hybrid(a: Answers) -> bool:
    return SHARDING[a["sharding.strategy"]][3]


def fsdp_offload(a: Answers) -> bool:
    """FSDP offload is all-or-nothing: on when anything is offloaded."""
    return a["offload.params"] != "none" or a["offload.optimizer"] != "none"


def ds_offload_optimizer(a: Answers) -> str:
    device = a["offload.optimizer"]
    stage = zero_stage(a)
    if stage == 0:
        return "none"  # nothing moves params to CPU at stage 0; CPUAdam would assert (#ds-offload-and-zero-stage)
    if device == "nvme" and stage < 3:
        return "cpu"  # ZeRO-1/2 turn any device into CPU offload (#ds-offload-and-zero-stage); say so, write what happens
    return device


def ds_offload_params(a: Answers) -> str:
    return a["offload.params"] if zero_stage(a) == 3 else "none"  # stage 3 only (#ds-offload-and-zero-stage)


def ds_json_reasons(a: Answers) -> list[str]:
    """Why this DeepSpeed config needs a JSON file (empty: inline keys suffice)."""
    reasons = []
    if a["deepspeed.config_file"] == "yes":
        reasons.append("deepspeed.config_file is 'yes'")
    if "nvme" in (ds_offload_optimizer(a), ds_offload_params(a)):
        reasons.append("NVMe offload (inline NVMe paths never reach DeepSpeed)")
    if (ds_offload_optimizer(a) != "none" or ds_offload_params(a) != "none") and not a["offload.pin_memory"]:
        reasons.append("offload.pin_memory false (DeepSpeed pins by default)")
    if is_hybrid(a) and a["launch.num_machines"] > 1 and zero_stage(a) == 3:
        reasons.append("hybrid sharding (zero_hpz_partition_size)")
    for sid in _DS_ZERO_KNOBS:
        if a[sid] is not None and (sid not in _STAGE3_ONLY or zero_stage(a) == 3):
            reasons.append(sid)
    clip = a["training.gradient_clipping"]
    if clip != AUTO and float(clip) == 0.0:
        # inline, accelerate drops a falsy clipping value and DeepSpeed's own default (1.0) applies
        reasons.append("training.gradient_clipping 0 (no clipping is only possible in a DeepSpeed JSON)")
    if isinstance(a["training.micro_batch_size"], int):
        reasons.append("training.micro_batch_size")
    if a["precision.ds_communication_data_type"] is not None:
        reasons.append("precision.ds_communication_data_type")
    if a["deepspeed.extra"]:
        reasons.append("deepspeed.extra")
    return reasons


def uses_ds_json(a: Answers) -> bool:
    return a.target == DEEPSPEED and a["deepspeed.config_file"] != "no" and bool(ds_json_reasons(a))


def render(a: Answers, ds_config_ref: str = DS_JSON) -> Rendered:
    """Render answers; ``ds_config_ref`` is the path written into ``deepspeed_config_file``."""
    out = Rendered(accelerate={})
    y = out.accelerate
    prov = out.provenance

    def put(d: dict, key: str, value: Any, answer_id: str, prefix: str = "") -> None:
        d[key] = value
        prov[prefix + key] = answer_id

    target = a.target
    put(y, "compute_environment", "LOCAL_MACHINE", "backend")
    put(y, "debug", False, "backend")
    put(y, "distributed_type", "DEEPSPEED" if target == DEEPSPEED else "FSDP", "backend")
    put(y, "downcast_bf16", "no", "precision.mixed_precision")
    put(y, "enable_cpu_affinity", False, "launch.num_processes")
    put(y, "gpu_ids", a["launch.gpu_ids"], "launch.gpu_ids")
    put(y, "machine_rank", a["launch.machine_rank"], "launch.machine_rank")
    put(y, "main_training_function", a["launch.main_training_function"], "launch.main_training_function")
    put(y, "num_machines", a["launch.num_machines"], "launch.num_machines")
    put(y, "num_processes", a["launch.num_processes"], "launch.num_processes")
    put(y, "rdzv_backend", a["launch.rdzv_backend"], "launch.rdzv_backend")
    put(y, "same_network", a["launch.same_network"], "launch.same_network")
    put(y, "use_cpu", False, "backend")
    if a["launch.num_machines"] > 1 or a["launch.main_process_ip"] is not None:
        if a["launch.main_process_ip"] is not None:
            put(y, "main_process_ip", a["launch.main_process_ip"], "launch.main_process_ip")
        put(y, "main_process_port", a["launch.main_process_port"] or 29500, "launch.main_process_port")
    elif a["launch.main_process_port"] is not None:
        put(y, "main_process_port", a["launch.main_process_port"], "launch.main_process_port")
    if a["launch.dynamo_backend"] != "no" and target != DEEPSPEED:
        # accelerate launch never exports dynamo_config for DeepSpeed runs (see rule ds-compile-not-passed)
        dyn: dict[str, Any] = {}
        p = "dynamo_config."
        put(dyn, "dynamo_backend", a["launch.dynamo_backend"].upper(), "launch.dynamo_backend", p)
        put(dyn, "dynamo_mode", a["launch.dynamo_mode"], "launch.dynamo_mode", p)
        put(dyn, "dynamo_use_dynamic", a["launch.dynamo_dynamic"], "launch.dynamo_dynamic", p)
        put(dyn, "dynamo_use_fullgraph", a["launch.dynamo_fullgraph"], "launch.dynamo_fullgraph", p)
        put(dyn, "dynamo_use_regional_compilation", a["launch.dynamo_regional"], "launch.dynamo_regional", p)
        y["dynamo_config"] = dyn

    if target in (FSDP1, FSDP2):
        _render_fsdp(a, out, put)
        put(y, "mixed_precision", a["precision.mixed_precision"], "precision.mixed_precision")
    else:
        _render_deepspeed(a, out, put, ds_config_ref)
    return out


def _render_fsdp(a: Answers, out: Rendered, put) -> None:
    target = a.target
    f: dict[str, Any] = {}
    p = "fsdp_config."
    strategy = a["sharding.strategy"]
    v1_strategy, reshard, _, hybrid = SHARDING[strategy]
    put(f, "fsdp_version", 1 if target == FSDP1 else 2, "fsdp_version", p)
    if target == FSDP1:
        put(f, "fsdp_sharding_strategy", v1_strategy or "SHARD_GRAD_OP", "sharding.strategy", p)
    else:
        put(f, "fsdp_reshard_after_forward", bool(reshard), "sharding.strategy", p)
        if hybrid and a["launch.num_machines"] > 1:
            pc: dict[str, Any] = {}
            q = "parallelism_config."
            put(pc, "parallelism_config_dp_replicate_size", a["launch.num_machines"], "sharding.strategy", q)
            put(pc, "parallelism_config_dp_shard_size", processes_per_node(a), "sharding.strategy", q)
            out.accelerate["parallelism_config"] = pc
    offload_id = "offload.params" if a["offload.params"] != "none" else "offload.optimizer"
    put(f, "fsdp_offload_params", fsdp_offload(a), offload_id, p)
    out.shared[p + "fsdp_offload_params"] = ("offload.optimizer", "offload.params")
    policy = a["wrapping.policy"]
    put(f, "fsdp_auto_wrap_policy", _WRAP[policy], "wrapping.policy", p)
    if policy == "transformer" and a["wrapping.layer_classes"]:
        put(f, "fsdp_transformer_layer_cls_to_wrap", ",".join(a["wrapping.layer_classes"]), "wrapping.layer_classes", p)
    if policy == "size":
        put(f, "fsdp_min_num_params", int(a["wrapping.min_num_params"]), "wrapping.min_num_params", p)
    if a["wrapping.ignored_modules"] is not None:
        put(f, "fsdp_ignored_modules", a["wrapping.ignored_modules"], "wrapping.ignored_modules", p)
    fmt = a["checkpoint.format"]
    if target == FSDP2 and fmt == "local":
        fmt = "sharded"  # FSDP2 has no LOCAL_STATE_DICT (#fsdp-state-dict-type)
    put(f, "fsdp_state_dict_type", _STATE_DICT[fmt], "checkpoint.format", p)
    put(f, "fsdp_cpu_ram_efficient_loading", a["loading.ram_efficient"], "loading.ram_efficient", p)
    put(f, "fsdp_activation_checkpointing", a["training.activation_checkpointing"], "training.activation_checkpointing", p)
    if target == FSDP1:
        put(f, "fsdp_backward_prefetch", _PREFETCH[a["prefetch.backward"]], "prefetch.backward", p)
        put(f, "fsdp_forward_prefetch", a["prefetch.forward"], "prefetch.forward", p)
        put(f, "fsdp_use_orig_params", a["summoning.use_orig_params"], "summoning.use_orig_params", p)
        put(f, "fsdp_sync_module_states", a["sync.module_states"], "sync.module_states", p)
    else:
        put(f, "fsdp_activation_checkpointing_offload", a["training.activation_checkpointing_offload"],
            "training.activation_checkpointing_offload", p)
    out.accelerate["fsdp_config"] = dict(sorted(f.items()))


def _render_deepspeed(a: Answers, out: Rendered, put, ds_config_ref: str) -> None:
    y = out.accelerate
    d: dict[str, Any] = {}
    p = "deepspeed_config."
    stage = zero_stage(a)
    gas = a["training.gradient_accumulation_steps"]
    clip = a["training.gradient_clipping"]
    json_mode = uses_ds_json(a)
    if json_mode:
        put(d, "deepspeed_config_file", ds_config_ref, "deepspeed.config_file", p)
        out.deepspeed = _ds_json(a, out.provenance)
    else:
        if gas != AUTO:
            put(d, "gradient_accumulation_steps", gas, "training.gradient_accumulation_steps", p)
        if clip != AUTO:
            put(d, "gradient_clipping", float(clip), "training.gradient_clipping", p)
        put(d, "offload_optimizer_device", ds_offload_optimizer(a), "offload.optimizer", p)
        put(d, "offload_param_device", ds_offload_params(a), "offload.params", p)
        put(d, "zero_stage", stage, "sharding.strategy", p)
        if stage == 3:
            put(d, "zero3_save_16bit_model", a["checkpoint.format"] == "full", "checkpoint.format", p)
        put(y, "mixed_precision", a["precision.mixed_precision"], "precision.mixed_precision")
    put(d, "zero3_init_flag", bool(a["loading.ram_efficient"]) and stage == 3, "loading.ram_efficient", p)
    if a["wrapping.ds_moe_layer_classes"]:
        put(d, "deepspeed_moe_layer_cls_names", ",".join(a["wrapping.ds_moe_layer_classes"]),
            "wrapping.ds_moe_layer_classes", p)
    if a["launch.num_machines"] > 1:
        launcher = a["launch.ds_multinode_launcher"]
        put(d, "deepspeed_multinode_launcher", launcher, "launch.ds_multinode_launcher", p)
        if launcher != "standard":
            if a["launch.ds_hostfile"] is not None:
                put(d, "deepspeed_hostfile", a["launch.ds_hostfile"], "launch.ds_hostfile", p)
            if a["launch.ds_inclusion_filter"] is not None:
                put(d, "deepspeed_inclusion_filter", a["launch.ds_inclusion_filter"], "launch.ds_inclusion_filter", p)
            if a["launch.ds_exclusion_filter"] is not None:
                put(d, "deepspeed_exclusion_filter", a["launch.ds_exclusion_filter"], "launch.ds_exclusion_filter", p)
    y["deepspeed_config"] = dict(sorted(d.items()))


def _ds_json(a: Answers, prov: dict[str, str]) -> dict[str, Any]:
    stage = zero_stage(a)
    mp = a["precision.mixed_precision"]
    j: dict[str, Any] = {}

    def put(d: dict, key: str, value: Any, answer_id: str, prefix: str = "") -> None:
        d[key] = value
        prov[prefix + key] = answer_id

    put(j, "train_batch_size", AUTO, "training.micro_batch_size")
    put(j, "train_micro_batch_size_per_gpu", a["training.micro_batch_size"], "training.micro_batch_size")
    put(j, "gradient_accumulation_steps", a["training.gradient_accumulation_steps"], "training.gradient_accumulation_steps")
    clip = a["training.gradient_clipping"]
    put(j, "gradient_clipping", clip if clip == AUTO else float(clip), "training.gradient_clipping")
    bf16 = mp in ("bf16", "fp8")
    j["bf16"] = {"enabled": bf16}
    prov["bf16.enabled"] = "precision.mixed_precision"
    j["fp16"] = {"enabled": True, "auto_cast": True} if mp == "fp16" else {"enabled": False}
    prov["fp16.enabled"] = "precision.mixed_precision"
    if a["precision.ds_communication_data_type"] is not None:
        put(j, "communication_data_type", a["precision.ds_communication_data_type"], "precision.ds_communication_data_type")
    z: dict[str, Any] = {}
    zp = "zero_optimization."
    put(z, "stage", stage, "sharding.strategy", zp)
    for key, device, sid in (("offload_optimizer", ds_offload_optimizer(a), "offload.optimizer"),
                             ("offload_param", ds_offload_params(a), "offload.params")):
        if device == "none":
            continue
        block: dict[str, Any] = {}
        bp = f"{zp}{key}."
        put(block, "device", device, sid, bp)
        if device == "nvme":
            put(block, "nvme_path", a["offload.nvme_path"], "offload.nvme_path", bp)
        put(block, "pin_memory", a["offload.pin_memory"], "offload.pin_memory", bp)
        z[key] = block
    if stage == 3:
        put(z, "stage3_gather_16bit_weights_on_model_save", a["checkpoint.format"] == "full", "checkpoint.format", zp)
    if is_hybrid(a) and a["launch.num_machines"] > 1 and stage == 3:
        put(z, "zero_hpz_partition_size", processes_per_node(a), "sharding.strategy", zp)
    for sid, key in _DS_ZERO_KNOBS.items():
        if a[sid] is not None and (sid not in _STAGE3_ONLY or stage == 3):
            put(z, key, a[sid], sid, zp)
    j["zero_optimization"] = dict(sorted(z.items()))
    extra = a["deepspeed.extra"]
    if extra:
        _merge(j, extra, prov, "")
    return dict(sorted(j.items()))


def _merge(base: dict, extra: dict, prov: dict[str, str], prefix: str) -> None:
    for key, value in extra.items():
        path = prefix + key
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value, prov, path + ".")
            base[key] = dict(sorted(base[key].items()))
        else:
            base[key] = value
            prov[path] = "deepspeed.extra"
