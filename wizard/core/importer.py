"""An existing accelerate config (and the DeepSpeed JSON it names) -> answers.

The answers keep what the file *asks for*; where accelerate would silently do something else (an FSDP1
strategy under ``fsdp_reshard_after_forward``, inline NVMe paths), the importer says so in a finding and
the regenerated config honours the request. DeepSpeed JSON keys with no catalogue setting are kept in
``deepspeed.extra`` so nothing is lost. Two keys are not carried, and a note names each: ``steps_per_print``,
which accelerate replaces with infinity in every DeepSpeed config it handles (so it never took effect,
docs/library-behaviour.md#ds-steps-per-print), and a fixed ``train_batch_size``, since the regenerated JSON
writes ``"auto"`` there (accelerate fills it from the micro batch size; docs/library-behaviour.md#ds-auto-values).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .answers import Answers, answers_from_mapping
from .lint.base import as_int, fmt, parse_bool
from .findings import ERROR, INFO, Finding
from .wizard_rules import CONFIG_UNREADABLE, IMPORT_NOTE, IMPORT_UNSUPPORTED

_V1_STRATEGY = {"FULL_SHARD": "full", "SHARD_GRAD_OP": "grads_optimizer", "NO_SHARD": "none",
                "HYBRID_SHARD": "hybrid_full", "HYBRID_SHARD_ZERO2": "hybrid_grads_optimizer"}
_V1_DIGITS = {"1": "FULL_SHARD", "2": "SHARD_GRAD_OP", "3": "NO_SHARD", "4": "HYBRID_SHARD", "5": "HYBRID_SHARD_ZERO2"}
_STAGE = {3: "full", 2: "grads_optimizer", 1: "optimizer", 0: "none"}
_WRAP = {"TRANSFORMER_BASED_WRAP": "transformer", "SIZE_BASED_WRAP": "size", "NO_WRAP": "none"}
_PREFETCH = {"BACKWARD_PRE": "pre", "BACKWARD_POST": "post", "NO_PREFETCH": "none", "1": "pre", "2": "post"}
_STATE = {"FULL_STATE_DICT": "full", "SHARDED_STATE_DICT": "sharded", "LOCAL_STATE_DICT": "local",
          "1": "full", "2": "local", "3": "sharded"}
_DS_KNOBS = {
    "stage3_prefetch_bucket_size": ("prefetch", "ds_bucket_size"),
    "stage3_param_persistence_threshold": ("prefetch", "ds_param_persistence_threshold"),
    "stage3_max_live_parameters": ("prefetch", "ds_max_live_parameters"),
    "stage3_max_reuse_distance": ("prefetch", "ds_max_reuse_distance"),
    "overlap_comm": ("deepspeed", "overlap_comm"),
    "contiguous_gradients": ("deepspeed", "contiguous_gradients"),
    "reduce_bucket_size": ("deepspeed", "reduce_bucket_size"),
    "allgather_bucket_size": ("deepspeed", "allgather_bucket_size"),
    "sub_group_size": ("deepspeed", "sub_group_size"),
}


def _int(value: Any) -> int | None:
    """A whole number, also from a numeric string such as '1e8' (which accelerate itself would reject)."""
    number = as_int(value)
    if number is not None or not isinstance(value, str):
        return number
    try:
        parsed = float(value)
    except ValueError:
        return None
    return int(parsed) if parsed.is_integer() else None


class _Importer:
    def __init__(self) -> None:
        self.doc: dict[str, Any] = {}
        self.findings: list[Finding] = []

    def set(self, group: str | None, name: str, value: Any) -> None:
        if group is None:
            self.doc[name] = value
        else:
            self.doc.setdefault(group, {})[name] = value

    def note(self, keys: list[str], message: str, fix: str = "") -> None:
        """A note about the translation (rule ``import``, always info: the file's faults are the config rules)."""
        self.findings.append(Finding(INFO, IMPORT_NOTE, tuple(keys), message, fix, "wizard importer"))

    # ------------------------------------------------------------------ top level
    def top(self, y: dict[str, Any]) -> None:
        for key, name in (("num_processes", "num_processes"), ("num_machines", "num_machines"),
                          ("machine_rank", "machine_rank"), ("main_process_port", "main_process_port")):
            if y.get(key) is not None:
                v = _int(y[key])
                if v is None or v < 0:
                    self.note([key], f"{key}: {y[key]!r} is not a usable integer; default kept")
                elif key == "num_processes" and v < 1:
                    self.note([key], f"num_processes {v} must be given on the command line; default kept")
                else:
                    self.set("launch", name, v)
        for key in ("main_process_ip", "rdzv_backend", "gpu_ids", "main_training_function"):
            if isinstance(y.get(key), (str, int)) and str(y[key]).strip():
                self.set("launch", key, str(y[key]))
        if isinstance(y.get("same_network"), bool):
            self.set("launch", "same_network", y["same_network"])
        mp = y.get("mixed_precision")
        if isinstance(mp, str):
            self.set("precision", "mixed_precision", mp)
        dyn = y.get("dynamo_config")
        if isinstance(dyn, dict):
            d = {(k if k.startswith("dynamo_") else "dynamo_" + k): v for k, v in dyn.items() if isinstance(k, str)}
            backend = d.get("dynamo_backend")
            if isinstance(backend, str):
                self.set("launch", "dynamo_backend", backend.lower())
            for src, dst in (("dynamo_mode", "dynamo_mode"), ("dynamo_use_fullgraph", "dynamo_fullgraph"),
                             ("dynamo_use_dynamic", "dynamo_dynamic"),
                             ("dynamo_use_regional_compilation", "dynamo_regional")):
                if src in d and d[src] is not None:
                    value = d[src] if src == "dynamo_mode" else parse_bool(d[src])
                    if value is not None:
                        self.set("launch", dst, value)

    # ------------------------------------------------------------------ FSDP
    def fsdp(self, y: dict[str, Any]) -> None:
        raw = y.get("fsdp_config") if isinstance(y.get("fsdp_config"), dict) else {}
        f = {(k if k.startswith("fsdp") else "fsdp_" + k): v for k, v in raw.items() if isinstance(k, str)}
        self.set(None, "backend", "fsdp")
        version = _int(f.get("fsdp_version", 1))
        version = version if version in (1, 2) else 1
        self.set(None, "fsdp_version", version)
        if version == 1:
            strategy = f.get("fsdp_sharding_strategy")
            via_reshard = f.get("fsdp_reshard_after_forward")
            if strategy is None and isinstance(via_reshard, str) and via_reshard.upper() in _V1_STRATEGY:
                strategy = via_reshard
                if via_reshard.upper() != "FULL_SHARD":
                    self.note(["fsdp_config.fsdp_reshard_after_forward"],
                              f"the original config asks for {via_reshard.upper()} under fsdp_reshard_after_forward, "
                              "which accelerate launch ignores for FSDP1 (it ran FULL_SHARD); imported as asked",
                              "the regenerated config writes it under fsdp_sharding_strategy")
            name = _V1_DIGITS.get(str(strategy), str(strategy).upper()) if strategy is not None else "FULL_SHARD"
            if name in _V1_STRATEGY:
                self.set("sharding", "strategy", _V1_STRATEGY[name])
            else:
                self.note(["fsdp_config.fsdp_sharding_strategy"], f"unknown strategy {strategy!r}; full kept")
        else:
            reshard = parse_bool(f.get("fsdp_reshard_after_forward", True))
            pc = y.get("parallelism_config") if isinstance(y.get("parallelism_config"), dict) else {}
            replicate = _int(pc.get("parallelism_config_dp_replicate_size", 1)) or 1
            base = "full" if reshard is not False else "grads_optimizer"
            self.set("sharding", "strategy", ("hybrid_" + base if base == "full" else "hybrid_grads_optimizer")
                     if replicate > 1 else base)
        off = parse_bool(f.get("fsdp_offload_params", False))
        if off:
            self.set("offload", "optimizer", "cpu")
            self.set("offload", "params", "cpu")
        policy = f.get("fsdp_auto_wrap_policy")
        if isinstance(policy, str) and policy.upper() in _WRAP:
            self.set("wrapping", "policy", _WRAP[policy.upper()])
        elif policy is None:
            self.set("wrapping", "policy", "none")
        classes = f.get("fsdp_transformer_layer_cls_to_wrap")
        if isinstance(classes, str) and classes.strip():
            self.set("wrapping", "layer_classes", [c.strip() for c in classes.split(",") if c.strip()])
        elif isinstance(classes, list):
            self.set("wrapping", "layer_classes", [str(c) for c in classes])
        if "fsdp_min_num_params" in f:
            n = _int(f["fsdp_min_num_params"])
            if n is not None and n > 0:
                self.set("wrapping", "min_num_params", n)
                if not isinstance(f["fsdp_min_num_params"], int):
                    self.note(["fsdp_config.fsdp_min_num_params"],
                              f"fsdp_min_num_params {f['fsdp_min_num_params']!r} crashes accelerate; imported as {n}")
        prefetch = f.get("fsdp_backward_prefetch")
        self.set("prefetch", "backward", _PREFETCH.get(str(prefetch).upper(), "none") if prefetch else "none")
        for key, group, name, default in (
            ("fsdp_forward_prefetch", "prefetch", "forward", False),
            ("fsdp_use_orig_params", "summoning", "use_orig_params", True),
            ("fsdp_cpu_ram_efficient_loading", "loading", "ram_efficient", True),
            ("fsdp_sync_module_states", "sync", "module_states", True),
            ("fsdp_activation_checkpointing", "training", "activation_checkpointing", False),
            ("fsdp_activation_checkpointing_offload", "training", "activation_checkpointing_offload", False),
        ):
            value = parse_bool(f.get(key, default))
            self.set(group, name, default if value is None else value)
        sdt = f.get("fsdp_state_dict_type")
        if sdt is None:
            self.set("checkpoint", "format", "full" if version == 1 else "sharded")
        elif str(sdt).upper() in _STATE:
            self.set("checkpoint", "format", _STATE[str(sdt).upper()])
        if isinstance(f.get("fsdp_ignored_modules"), str):
            self.set("wrapping", "ignored_modules", f["fsdp_ignored_modules"])

    # ------------------------------------------------------------------ DeepSpeed
    def deepspeed(self, y: dict[str, Any], ds: dict[str, Any] | None) -> None:
        d = y.get("deepspeed_config") if isinstance(y.get("deepspeed_config"), dict) else {}
        self.set(None, "backend", "deepspeed")
        if d.get("zero3_init_flag") is not None:
            flag = parse_bool(d["zero3_init_flag"])
            if flag is not None:
                self.set("loading", "ram_efficient", flag)
        moe = d.get("deepspeed_moe_layer_cls_names")
        if isinstance(moe, str) and moe.strip():
            self.set("wrapping", "ds_moe_layer_classes", [c.strip() for c in moe.split(",") if c.strip()])
        for key, name in (("deepspeed_multinode_launcher", "ds_multinode_launcher"), ("deepspeed_hostfile", "ds_hostfile"),
                          ("deepspeed_inclusion_filter", "ds_inclusion_filter"),
                          ("deepspeed_exclusion_filter", "ds_exclusion_filter")):
            if isinstance(d.get(key), str) and d[key].strip() and d[key] != "none":
                self.set("launch", name, d[key])
        if d.get("deepspeed_config_file") not in (None, "none"):
            self.set("deepspeed", "config_file", "yes")
            if isinstance(ds, dict):
                self.ds_json(ds)
            else:
                self.note(["deepspeed_config.deepspeed_config_file"],
                          "the DeepSpeed JSON could not be read: its settings are not imported")
            return
        stage = _int(d.get("zero_stage", 2))
        self.set("sharding", "strategy", _STAGE.get(stage, "grads_optimizer"))
        if "zero3_init_flag" not in d:
            self.set("loading", "ram_efficient", stage == 3)
        for key, name in (("offload_optimizer_device", "optimizer"), ("offload_param_device", "params")):
            if isinstance(d.get(key), str):
                self.set("offload", name, d[key].lower())
        for key in ("offload_optimizer_nvme_path", "offload_param_nvme_path"):
            if isinstance(d.get(key), str) and d[key] not in ("none", ""):
                self.set("offload", "nvme_path", d[key])
                self.note([f"deepspeed_config.{key}"], "inline NVMe paths never reach DeepSpeed; the "
                          "regenerated config carries the path in a DeepSpeed JSON")
        gas = d.get("gradient_accumulation_steps")
        if gas is not None:
            self.set("training", "gradient_accumulation_steps", gas if gas == "auto" else _int(gas) or 1)
        clip = d.get("gradient_clipping")
        if clip is None:
            self.set("training", "gradient_clipping", "auto")
        elif clip == "auto" or isinstance(clip, (int, float)) and not isinstance(clip, bool):
            self.set("training", "gradient_clipping", clip)
        if stage == 3:
            self.set("checkpoint", "format", "full" if parse_bool(d.get("zero3_save_16bit_model", False)) else "sharded")

    def ds_json(self, ds: dict[str, Any]) -> None:
        extra = {k: v for k, v in ds.items()}
        z = ds.get("zero_optimization") if isinstance(ds.get("zero_optimization"), dict) else {}
        zrest = dict(z)
        stage = _int(z.get("stage", 0))
        hpz = _int(z.get("zero_hpz_partition_size", 1)) or 1
        strategy = _STAGE.get(stage, "none")
        if stage == 3 and hpz > 1:
            strategy = "hybrid_full"
        self.set("sharding", "strategy", strategy)
        for key in ("stage", "zero_hpz_partition_size"):
            zrest.pop(key, None)
        for block, name in (("offload_optimizer", "optimizer"), ("offload_param", "params")):
            b = z.get(block)
            if isinstance(b, dict):
                rest = dict(b)
                if isinstance(b.get("device"), str):
                    self.set("offload", name, rest.pop("device"))
                if isinstance(b.get("nvme_path"), str):
                    self.set("offload", "nvme_path", rest.pop("nvme_path"))
                if isinstance(b.get("pin_memory"), bool):
                    self.set("offload", "pin_memory", rest.pop("pin_memory"))
                if rest:
                    zrest[block] = rest
                else:
                    zrest.pop(block)
        if "stage3_gather_16bit_weights_on_model_save" in z:
            self.set("checkpoint", "format", "full" if parse_bool(z["stage3_gather_16bit_weights_on_model_save"]) else "sharded")
            zrest.pop("stage3_gather_16bit_weights_on_model_save")
        for key, (group, name) in _DS_KNOBS.items():
            if key in z and (z[key] == "auto" or isinstance(z[key], (bool, int))):
                self.set(group, name, z[key])
                zrest.pop(key)
        extra.pop("zero_optimization", None)
        if zrest:
            extra["zero_optimization"] = zrest
        for key, group, name in (("gradient_accumulation_steps", "training", "gradient_accumulation_steps"),
                                 ("gradient_clipping", "training", "gradient_clipping"),
                                 ("train_micro_batch_size_per_gpu", "training", "micro_batch_size"),
                                 ("communication_data_type", "precision", "ds_communication_data_type")):
            if key in ds:
                self.set(group, name, ds[key])
                extra.pop(key)
        bf16 = ds.get("bf16", {}) if isinstance(ds.get("bf16"), dict) else {}
        fp16 = ds.get("fp16", {}) if isinstance(ds.get("fp16"), dict) else {}
        if parse_bool(bf16.get("enabled")):
            self.set("precision", "mixed_precision", "bf16")
        elif parse_bool(fp16.get("enabled")):
            self.set("precision", "mixed_precision", "fp16")
        elif bf16.get("enabled") == "auto" or fp16.get("enabled") == "auto":
            self.note(["bf16.enabled"], "precision is 'auto' in the JSON (taken from --mixed_precision); "
                      "imported as the answers' mixed precision")
        else:
            self.set("precision", "mixed_precision", "no")
        for key, block in (("bf16", bf16), ("fp16", fp16)):
            rest = {k: v for k, v in block.items() if k not in ("enabled", "auto_cast")}
            extra.pop(key, None)
            if rest:
                extra[key] = rest
        if "train_batch_size" in extra:
            total = extra.pop("train_batch_size")
            if total != "auto":
                self.note(["train_batch_size"], f"`train_batch_size: {fmt(total)}` is not carried: the regenerated "
                          "DeepSpeed JSON writes \"auto\", which accelerate fills as micro batch x gradient "
                          "accumulation x processes",
                          "set training.micro_batch_size and training.gradient_accumulation_steps so that their "
                          "product with the process count is the batch you want")
        if "steps_per_print" in extra:
            value = extra.pop("steps_per_print")
            self.note(["steps_per_print"], f"`steps_per_print: {fmt(value)}` is not carried: accelerate replaces it "
                      "with infinity in every DeepSpeed config it handles (accelerate/utils/dataclasses.py:1326), so "
                      "it never took effect; only DeepSpeed's own progress lines depended on it",
                      "log from the training loop instead (e.g. every N steps with accelerator.print)")
        if extra:
            self.set("deepspeed", "extra", extra)
            self.note(["deepspeed.extra"], "DeepSpeed JSON keys without a wizard setting are kept as they are: "
                      + ", ".join(sorted(extra)))


def import_mapping(y: Any, ds: Any = None) -> tuple[Answers | None, list[Finding]]:
    """Import from already parsed dicts."""
    imp = _Importer()
    if not isinstance(y, dict):
        return None, [Finding(ERROR, IMPORT_UNSUPPORTED, ("config",), "the accelerate config is not a mapping",
                              "write the accelerate config as a mapping (`accelerate config` writes one)",
                              "wizard importer")]
    dtype = str(y.get("distributed_type", "")).upper()
    imp.top(y)
    if dtype == "FSDP":
        imp.fsdp(y)
    elif dtype == "DEEPSPEED":
        imp.deepspeed(y, ds if isinstance(ds, dict) else None)
    else:
        return None, [Finding(ERROR, IMPORT_UNSUPPORTED, ("distributed_type",),
                              f"distributed_type {y.get('distributed_type')!r}: only FSDP and DEEPSPEED configs can be "
                              "imported", "start from a preset instead")]
    answers, findings = answers_from_mapping(imp.doc)
    if answers is None:
        # values that passed the library but not our schema: drop them one by one and say so
        doc = imp.doc
        for f in findings:
            for key in f.keys:
                group, _, name = key.partition(".")
                if name and isinstance(doc.get(group), dict):
                    doc[group].pop(name, None)
                else:
                    doc.pop(group, None)
            imp.note(list(f.keys), f"not imported: {f.message}", "set it again in the wizard")
        answers, more = answers_from_mapping(doc)
        findings = [f for f in more if f.severity != ERROR]
        if answers is None:
            return None, imp.findings + more
    return answers, imp.findings + findings


def import_config(yaml_path: str | Path) -> tuple[Answers | None, list[Finding]]:
    """Read an accelerate config and its DeepSpeed JSON; answers plus load and import findings."""
    from .lint import load_config_files
    from .loading import InputError

    try:
        loaded = load_config_files(yaml_path)
    except InputError as exc:
        return None, [exc.finding(CONFIG_UNREADABLE, "config")]
    answers, findings = import_mapping(loaded.yaml, loaded.ds)
    return answers, list(loaded.findings) + findings
