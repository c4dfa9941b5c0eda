"""What accelerate, the HF Trainer and DeepSpeed make of a DeepSpeed configuration (accelerate 1.15, transformers
5.24, DeepSpeed 0.19.8): ``DeepSpeedPlugin`` builds the DeepSpeed dict from the inline keys or the JSON, the Trainer
(when it drives) and ``Accelerator._prepare_deepspeed`` fill its "auto" values, ``DeepSpeedConfig`` validates it, and
the engine then runs some values differently from how they read (``runs.*``).

Keys: ``deepspeed.<path>`` (the final dict), ``deepspeed_plugin.*``, ``deepspeed_validated.*`` as in
:func:`..verify.roundtrip.flatten_effective`, and ``runs.*`` for what the engine does with them.
"""
from __future__ import annotations

import copy
from collections.abc import Mapping

from ..i18n import said
from ..library.auto import (
    ACCELERATE_FILLS,
    DUMMY_OPTIM_FILLS,
    DUMMY_SCHEDULER_FILLS,
    HIDDEN_SIZE_AUTO_KEYS,
    TRAINER_DEFAULTS,
    hidden_size_fill,
)
from ..library.deepspeed import (
    DS_DEFAULT_CLIPPING,
    DS_DEFAULT_GAS,
    DS_DEFAULT_STAGE,
    DS_FILE_CONFLICTING_FIELDS,
    DS_ZERO_DEFAULTS,
    INLINE_TO_PATH,
    LAUNCH_DEEPSPEED_DEFAULTS,
    overlap_comm_default,
)
from ..vocab import TRUE_WORDS, as_int, parse_int
from .builder import Builder
from .situation import Situation
from .used import AUTO, CHANGED, DEFAULT, DERIVED, IGNORED, OVERRIDDEN, WRITTEN

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

PLUGIN = "DeepSpeedPlugin"
PREPARE = "Accelerator.prepare"
TRAINER = "the HF Trainer"
CONFIG = "DeepSpeedConfig"
ENGINE = "the DeepSpeed engine"
_MISSING = object()
_TRAINER_FOLLOWED = ("train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "train_batch_size",
                     "gradient_clipping", "fp16.enabled", "bf16.enabled")
"""The keys of the Trainer's fill (effective/trainer.py) this model follows into the DeepSpeed dict."""


def get_path(d: Any, path: str, default: Any = _MISSING) -> Any:
    node = d
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None if default is _MISSING else default
        node = node[part]
    return node


def _set_path(d: dict, path: str, value: Any) -> None:
    *sections, key = path.split(".")
    node = d
    for name in sections:
        nxt = node.get(name)
        if not isinstance(nxt, dict):
            return  # fill_match finds no node: nothing filled
        node = nxt
    node[key] = value


def _is_auto(d: Any, path: str) -> bool:
    return get_path(d, path) == "auto"


class _Origins:
    """Where each path of the final dict came from: (why, by, written keys, note)."""

    def __init__(self) -> None:
        self.of: dict[str, tuple[str, str, tuple[str, ...], str]] = {}

    def set(self, path: str, why: str, by: str, keys: tuple[str, ...] = (), note: str = "") -> None:
        self.of[path] = (why, by, keys, note)


def _int(value: Any) -> int | None:
    """A whole number as DeepSpeed's config takes it: a YAML/JSON number (``vocab.as_int``) or a string of digits."""
    if isinstance(value, str):
        return parse_int(value.strip()) if value.strip().isdigit() else None
    return as_int(value)


def deepspeed_values(y: Mapping[str, Any], ds: Mapping[str, Any] | None, mixed_precision: str, world: int,
                     situation: Situation, b: Builder, *, json_alone: bool = False) -> None:
    """``json_alone``: a DeepSpeed JSON with no accelerate YAML (its paths are the keys the user wrote)."""
    section = y.get("deepspeed_config")
    dc: Mapping[str, Any] = section if isinstance(section, Mapping) else {}
    file_key = "deepspeed_config.deepspeed_config_file"
    file_mode = json_alone or (dc.get("deepspeed_config_file") not in (None, "none"))
    origins = _Origins()
    yk = (lambda k: f"deepspeed_config.{k}")  # noqa: E731

    # ---- DeepSpeedPlugin: inline values (or their defaults)
    plugin: dict[str, Any] = {}
    for name, default in LAUNCH_DEEPSPEED_DEFAULTS.items():
        plugin[name] = _plugin_value(name, dc[name]) if dc.get(name) is not None else default
    if plugin["zero_stage"] is None:
        b.fail((yk("zero_stage"),), f"zero_stage {dc.get('zero_stage')!r} is read with int()", PLUGIN)
        return
    if file_mode:
        if ds is None:
            b.fail((file_key,), "the DeepSpeed JSON named by deepspeed_config_file was not read", PLUGIN)
            return
        clash = [k for k in DS_FILE_CONFLICTING_FIELDS if k in dc or (k == "mixed_precision" and
                                                                    y.get("mixed_precision") not in (None, "no"))]
        clash = [k for k in clash if not (k == "mixed_precision" and json_alone)]
        if clash and not json_alone:
            b.fail(tuple(yk(k) if k != "mixed_precision" else k for k in clash) + (file_key,),
                   "accelerate refuses these keys next to a deepspeed_config_file (the JSON must say them)", PLUGIN)
            return
        config: dict[str, Any] = copy.deepcopy(dict(ds))
        for path in _leaves(config):
            origins.set(path, WRITTEN, "DeepSpeed JSON", (path,))
        if "gradient_accumulation_steps" not in config:
            config["gradient_accumulation_steps"] = 1
            origins.set("gradient_accumulation_steps", DEFAULT, PLUGIN, (), "accelerate adds 1 to a JSON without it")
        if not isinstance(config.get("zero_optimization"), dict):
            b.fail(("zero_optimization",), "accelerate needs a zero_optimization section in the DeepSpeed JSON",
                   PLUGIN)
            return
        # fill_match of the plugin's (default) values into "auto"
        for name, path in INLINE_TO_PATH.items():
            if _is_auto(config, path) and plugin.get(name) is not None:
                _set_path(config, path, plugin[name])
                origins.set(path, AUTO, PLUGIN, (path,), "filled with accelerate's default")
    else:
        gas = plugin["gradient_accumulation_steps"]
        clip = plugin["gradient_clipping"]
        config = {
            "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
            "gradient_accumulation_steps": gas,
            "zero_optimization": {
                "stage": plugin["zero_stage"],
                # the launcher exports no NVMe path: the plugin's "none" is what DeepSpeed gets
                "offload_optimizer": {"device": plugin["offload_optimizer_device"],
                                      "nvme_path": "none" if plugin["offload_optimizer_device"] == "nvme" else None},
                "offload_param": {"device": plugin["offload_param_device"],
                                  "nvme_path": "none" if plugin["offload_param_device"] == "nvme" else None},
                "stage3_gather_16bit_weights_on_model_save": bool(str(plugin["zero3_save_16bit_model"]).lower()
                                                                  == "true"),
            },
        }
        if clip and clip != 0:
            config["gradient_clipping"] = clip if clip == "auto" else float(clip)
        for name, path in INLINE_TO_PATH.items():
            if name.endswith("nvme_path"):
                if name in dc and get_path(config, path) is not None:
                    origins.set(path, IGNORED, "accelerate launch", (yk(name),),
                                "the launcher exports no inline NVMe path: DeepSpeed gets \"none\"")
                elif get_path(config, path) is not None:
                    origins.set(path, DEFAULT, PLUGIN)
            elif name in dc:
                origins.set(path, WRITTEN, PLUGIN, (yk(name),))
            elif get_path(config, path) is not None:
                origins.set(path, DEFAULT, PLUGIN)
        if "gradient_clipping" in dc and "gradient_clipping" not in config:
            b.put("deepspeed.gradient_clipping", None, IGNORED, PLUGIN, (yk("gradient_clipping"),),
                  "accelerate drops a falsy inline gradient_clipping (DeepSpeed's default, no clipping, applies)")
    config["steps_per_print"] = float("inf")
    origins.set("steps_per_print", OVERRIDDEN, PLUGIN, ("steps_per_print",) if "steps_per_print" in (ds or {}) else (),
                "accelerate silences DeepSpeed's step log")

    # plugin attributes read back from the config (file mode)
    stage_raw = get_path(config, "zero_optimization.stage")
    stage = _int(stage_raw)
    if stage_raw is None:  # the plugin keeps its own default; DeepSpeed runs its own (ZeRO-0)
        b.put("deepspeed_plugin.zero_stage", plugin["zero_stage"], DEFAULT, PLUGIN, (),
              "accelerate's default; the JSON says no stage, so DeepSpeed runs ZeRO-0")
    else:
        b.put("deepspeed_plugin.zero_stage", stage if stage is not None else stage_raw,
              *_origin(origins, "zero_optimization.stage", PLUGIN))

    # zero3_init_flag
    init_written = "zero3_init_flag" in dc
    init = (str(dc["zero3_init_flag"]).lower() in TRUE_WORDS) if init_written else situation.transformers
    if init and stage != 3:
        b.put("deepspeed_plugin.zero3_init_flag", False, IGNORED if init_written else DEFAULT, PLUGIN,
              (yk("zero3_init_flag"),) if init_written else (), "zero.Init is a ZeRO-3 feature")
    else:
        b.put("deepspeed_plugin.zero3_init_flag", init, WRITTEN if init_written else DEFAULT, PLUGIN,
              (yk("zero3_init_flag"),) if init_written else (),
              "" if init_written else "on when transformers is installed")

    # ---- the Trainer's fill (TrainingArguments)
    trainer = situation.trainer
    targs = {**TRAINER_DEFAULTS, **dict(situation.trainer_arguments or {})}
    gas_unknown = False
    """Accumulation left to the script: "auto" filled from an Accelerator or TrainingArguments no file shows."""
    if trainer:
        from .trainer import FILLED, MISMATCH, trainer_matches  # in here: not on the start path of every command

        # what the Trainer writes and compares: effective/trainer.py, for the keys this model follows
        matched = {m.path: m for m in trainer_matches(config, situation.trainer_arguments, world_size=world)}
        mismatches = []
        for path in _TRAINER_FOLLOWED:
            m = matched.get(path)
            if m is None:
                continue
            if m.verdict == FILLED:
                _set_path(config, path, float(m.value) if path == "gradient_clipping" else m.value)
                origins.set(path, AUTO, TRAINER, origins.of.get(path, ("", "", (), ""))[2],
                            "filled from TrainingArguments")
                if path == "gradient_accumulation_steps" and path not in (situation.trainer_arguments or {}):
                    gas_unknown = True  # the user's own TrainingArguments decide (its default 1 is assumed)
            elif m.verdict == MISMATCH and path not in ("fp16.enabled", "bf16.enabled"):
                mismatches.append(path)  # precision: only where the arguments are known (check --training-args)
        if mismatches:
            b.fail(tuple(mismatches), "the Trainer refuses DeepSpeed values that differ from TrainingArguments",
                   TRAINER)
        if situation.hidden_size:
            _fill_hidden(config, origins, situation.hidden_size, TRAINER)

    # ---- AcceleratorState: the precision (the Trainer's TrainingArguments decide it under the Trainer)
    mp = ("bf16" if targs["bf16"] else "fp16" if targs["fp16"] else "no") if trainer else mixed_precision
    for dtype, on in (("fp16", mp == "fp16"), ("bf16", mp in ("bf16", "fp8"))):
        if on and dtype not in config:
            config[dtype] = {"enabled": True} if dtype == "bf16" else {"enabled": True, "auto_cast": True}
            origins.set(f"{dtype}.enabled", DERIVED, "Accelerator", ("mixed_precision",),
                        f"mixed_precision {mp} adds the section")
    if mp != "no":
        other = "bf16" if mp == "fp16" else "fp16"
        if str(get_path(config, f"{other}.enabled", "False")).lower() == "true":
            b.fail(("mixed_precision", f"{other}.enabled"), f"mixed_precision {mp} next to {other}.enabled true",
                   PLUGIN)
            return
    for dtype in ("fp16", "bf16"):
        if dtype not in config:
            config[dtype] = {"enabled": False}
    for dtype, on in (("fp16", mp == "fp16"), ("bf16", mp in ("bf16", "fp8"))):
        if _is_auto(config, f"{dtype}.enabled"):
            _set_path(config, f"{dtype}.enabled", on)
            origins.set(f"{dtype}.enabled", AUTO, "Accelerator", (f"{dtype}.enabled",),
                        f"filled from mixed_precision {mp}")
    if get_path(config, "fp16.enabled") is True:
        eff_mp = "fp16"
    elif get_path(config, "bf16.enabled") is True:
        eff_mp = "bf16"
    else:
        eff_mp = "no"
    if mp == "fp8":
        eff_mp = "fp8"
    b.put("mixed_precision", eff_mp, WRITTEN if eff_mp == mixed_precision else OVERRIDDEN, "AcceleratorState",
          ("mixed_precision",) if eff_mp == mixed_precision else ("bf16.enabled", "fp16.enabled"),
          "" if eff_mp == mixed_precision else "the DeepSpeed dict's bf16/fp16 sections decide")

    # ---- Accelerator._prepare_deepspeed: what is still "auto"
    script_gas = situation.gradient_accumulation_steps
    accel_gas = 1 if trainer else _int(dc.get("gradient_accumulation_steps")) or script_gas or 1
    if _is_auto(config, "train_micro_batch_size_per_gpu"):
        micro = situation.micro_batch if situation.micro_batch is not None else 1
        note = "the DataLoader's batch size" + ("" if situation.micro_batch is not None else " (unknown: 1 assumed)")
        config["train_micro_batch_size_per_gpu"] = micro
        origins.set("train_micro_batch_size_per_gpu", AUTO, PREPARE, ("train_micro_batch_size_per_gpu",), note)
    if _is_auto(config, "gradient_accumulation_steps"):
        gas_unknown = script_gas is None  # the script's Accelerator(gradient_accumulation_steps=...): 1 if not given
        config["gradient_accumulation_steps"] = accel_gas
        origins.set("gradient_accumulation_steps", AUTO, PREPARE, ("gradient_accumulation_steps",),
                    "the Accelerator's gradient_accumulation_steps")
    fills = dict(ACCELERATE_FILLS)
    if not trainer:  # an own loop: DummyOptim() / DummyScheduler() with their defaults fill the blocks' "auto"
        if isinstance(config.get("optimizer"), Mapping):
            fills.update(DUMMY_OPTIM_FILLS)
        if isinstance(config.get("scheduler"), Mapping):
            fills.update(DUMMY_SCHEDULER_FILLS)
    for path, value in fills.items():
        if _is_auto(config, path):
            _set_path(config, path, value)
            origins.set(path, AUTO, PREPARE, origins.of.get(path, ("", "", (), ""))[2], "accelerate's fill")
    fill_micro = _int(config.get("train_micro_batch_size_per_gpu"))
    fill_gas = _int(config.get("gradient_accumulation_steps"))
    if _is_auto(config, "train_batch_size") and fill_micro is not None and fill_gas is not None:
        config["train_batch_size"] = fill_micro * fill_gas * world
        origins.set("train_batch_size", AUTO, PREPARE, ("train_batch_size",), "micro batch x accumulation x world")
    if situation.hidden_size:
        _fill_hidden(config, origins, situation.hidden_size, PREPARE)
    for path in HIDDEN_SIZE_AUTO_KEYS:
        if _is_auto(config, path):
            origins.set(path, AUTO, PREPARE, (path,), "filled from the model's hidden size at prepare()")

    if "optimizer" not in config:  # a torch optimizer (the script's, or the Trainer's) under ZeRO
        config["zero_allow_untested_optimizer"] = True
        origins.set("zero_allow_untested_optimizer", DERIVED, TRAINER if trainer else PREPARE, (),
                    "a torch optimizer, not one of DeepSpeed's own")
    b.put("deepspeed_plugin.gradient_accumulation_steps", _int(config.get("gradient_accumulation_steps")),
          *_origin(origins, "gradient_accumulation_steps", PREPARE))

    # ---- the final dict, key by key
    for path in _leaves(config):
        value = get_path(config, path)
        why, by, keys, note = origins.of.get(path, (DERIVED, PLUGIN, (), ""))
        b.put(f"deepspeed.{path}", None if value == "auto" else value, why, by, keys, note)

    # ---- DeepSpeedConfig: validated values
    _validated(config, world, origins, b)
    _runs(config, b, situation, trainer, gas_unknown)


def _plugin_value(name: str, value: Any) -> Any:
    """How DeepSpeedPlugin reads the string the launcher exported for an inline key (None: it raises)."""
    text = str(value)
    if name == "zero_stage":
        return int(text) if text.strip().lstrip("-").isdigit() else None
    if name == "gradient_accumulation_steps":
        return int(text) if text.isdigit() else text
    if name == "gradient_clipping":
        low = text.lower()
        if low == "auto":
            return "auto"
        try:
            return float(low)
        except ValueError:
            return None
    return text.lower()


def _fill_hidden(config: dict, origins: _Origins, hidden: int, by: str) -> None:
    for path in HIDDEN_SIZE_AUTO_KEYS:
        if _is_auto(config, path):
            _set_path(config, path, hidden_size_fill(path, hidden))
            origins.set(path, AUTO, by, (path,), f"from hidden size {hidden}")


def _origin(origins: _Origins, path: str, by: str) -> tuple[str, str, tuple[str, ...], str]:
    return origins.of.get(path, (DEFAULT, by, (), ""))


def _leaves(d: Mapping[str, Any], prefix: str = "") -> list[str]:
    out: list[str] = []
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping) and v:
            out.extend(_leaves(v, key + "."))
        else:
            out.append(key)
    return out


def _validated(config: dict, world: int, origins: _Origins, b: Builder) -> None:
    v = "deepspeed_validated."

    def put(name: str, value: Any, path: str | None, default_note: str = "") -> None:
        if path is not None and get_path(config, path, _MISSING) is not _MISSING:
            why, by, keys, note = origins.of.get(path, (WRITTEN, CONFIG, (), ""))
            b.put(v + name, value, why, by, keys, note)
        else:
            b.put(v + name, value, DEFAULT, CONFIG, (), default_note)

    stage = _int(get_path(config, "zero_optimization.stage"))
    put("zero_stage", DS_DEFAULT_STAGE if stage is None else stage, "zero_optimization.stage")
    b.put(v + "world_size", world, DERIVED, CONFIG, ("num_processes",))
    z0: Mapping[str, Any] = config["zero_optimization"] if isinstance(config.get("zero_optimization"), Mapping) \
        else {}
    for block, legacy in (("offload_optimizer", "cpu_offload"), ("offload_param", "cpu_offload_param")):
        node = get_path(config, f"zero_optimization.{block}")
        device = None if not isinstance(node, Mapping) else str(node.get("device", "none")).lower()
        if node is None and z0.get(legacy) is True:  # DeepSpeedZeroConfig turns the old flags into a CPU block
            b.put(f"{v}{block}_device", "cpu", WRITTEN, CONFIG, (f"zero_optimization.{legacy}",),
                  f"the deprecated {legacy}: true")
            continue
        put(f"{block}_device", device, f"zero_optimization.{block}.device")
        nvme = None if not isinstance(node, Mapping) or node.get("nvme_path") is None else str(node["nvme_path"])
        put(f"{block}_nvme_path", nvme, f"zero_optimization.{block}.nvme_path")
    clip = config.get("gradient_clipping")
    put("gradient_clipping", DS_DEFAULT_CLIPPING if clip is None else clip, "gradient_clipping")
    gas = _int(config.get("gradient_accumulation_steps"))
    put("gradient_accumulation_steps", DS_DEFAULT_GAS if gas is None else gas, "gradient_accumulation_steps")
    micro, total = _int(config.get("train_micro_batch_size_per_gpu")), _int(config.get("train_batch_size"))
    g = DS_DEFAULT_GAS if gas is None else gas
    if micro is not None and total is None:
        total = micro * g * world
    elif micro is None and total is not None:
        micro = total // (g * world)
    if micro is None and total is None:
        b.fail(("train_batch_size", "train_micro_batch_size_per_gpu"), "DeepSpeed needs train_batch_size or "
               "train_micro_batch_size_per_gpu (accelerate fills them only when they say \"auto\")", CONFIG)
    if micro is not None and total is not None and total != micro * g * world:
        b.fail(("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps"),
               f"train_batch_size {total} is not micro batch {micro} x accumulation {g} x world {world}", CONFIG)
    put("train_micro_batch_size_per_gpu", micro, "train_micro_batch_size_per_gpu")
    put("train_batch_size", total, "train_batch_size")
    put("fp16_enabled", get_path(config, "fp16.enabled") is True, "fp16.enabled")
    put("bf16_enabled", get_path(config, "bf16.enabled") is True, "bf16.enabled")
    gather = next((z0[k] for k in ("stage3_gather_16bit_weights_on_model_save", "gather_16bit_weights_on_model_save",
                                   "stage3_gather_fp16_weights_on_model_save") if z0.get(k) is not None), None)
    put("zero_allow_untested_optimizer", config.get("zero_allow_untested_optimizer") is True,
        "zero_allow_untested_optimizer")
    put("gather_16bit_weights_on_model_save", bool(gather) if gather is not None else False,
        "zero_optimization.stage3_gather_16bit_weights_on_model_save")
    z = z0
    s = DS_DEFAULT_STAGE if stage is None else stage
    for name, alias in (("reduce_bucket_size", "reduce_bucket_size"), ("allgather_bucket_size",
                                                                       "allgather_bucket_size"),
                        ("prefetch_bucket_size", "stage3_prefetch_bucket_size"),
                        ("max_live_parameters", "stage3_max_live_parameters"),
                        ("param_persistence_threshold", "stage3_param_persistence_threshold"),
                        ("sub_group_size", "sub_group_size"), ("zero_hpz_partition_size", "zero_hpz_partition_size")):
        value = z.get(alias, z.get(name))  # DeepSpeedZeroConfig takes the field name and its alias alike
        if value is None or value == "auto":
            put(name, None if value == "auto" else DS_ZERO_DEFAULTS[alias], None if value is None else
                f"zero_optimization.{alias}")
        else:
            put(name, _int(value) if _int(value) is not None else value, f"zero_optimization.{alias}")
    overlap = z.get("overlap_comm")
    if overlap is None:
        b.put(v + "overlap_comm", overlap_comm_default(s), DEFAULT, CONFIG, (), "on at ZeRO-3, off below")
    else:
        put("overlap_comm", bool(overlap), "zero_optimization.overlap_comm")


def _runs(config: dict, b: Builder, situation: Situation, trainer: bool, gas_unknown: bool) -> None:
    """What the engine runs: the offload a stage really does, the master weights, the optimizer."""
    v = "deepspeed_validated."
    stage = b.value(v + "zero_stage") or 0
    b.put("runs.zero_stage", stage, DERIVED, ENGINE, b.values[v + "zero_stage"].keys)
    opt = b.value(v + "offload_optimizer_device") or "none"
    par = b.value(v + "offload_param_device") or "none"
    okeys = b.values[v + "offload_optimizer_device"].keys
    pkeys = b.values[v + "offload_param_device"].keys
    if opt != "none" and stage == 0:
        b.put("runs.offload_optimizer", "none", IGNORED, ENGINE, okeys, said("ZeRO-0 offloads nothing"))
    elif opt == "nvme" and stage < 3:
        b.put("runs.offload_optimizer", "cpu", CHANGED, ENGINE, okeys,
              said(f"ZeRO-{stage} offloads the optimizer to the CPU whatever the device"))
    else:
        b.put("runs.offload_optimizer", opt, DERIVED, ENGINE, okeys)
    if par != "none" and stage < 3:
        b.put("runs.offload_param", "none", IGNORED, ENGINE, pkeys, said(f"ZeRO-{stage} offloads no parameters"))
    else:
        b.put("runs.offload_param", par, DERIVED, ENGINE, pkeys)
    hpz = b.value(v + "zero_hpz_partition_size") or 1
    b.put("runs.hpz_partition_size", hpz if stage == 3 else 1, DERIVED if stage == 3 or hpz == 1 else IGNORED,
          ENGINE, b.values[v + "zero_hpz_partition_size"].keys, said("" if stage == 3 or hpz == 1 else
                                                                    "hpZ is a ZeRO-3 option"))
    master = get_path(config, "bf16.bf16_master_weights_and_grads") is True
    states = get_path(config, "bf16.bf16_optimizer_states") is True
    b.put("runs.bf16_master_weights", master and b.value(v + "bf16_enabled") is True, DERIVED, CONFIG,
          ("bf16.bf16_master_weights_and_grads",) if master else ())
    b.put("runs.bf16_optimizer_states", states and master and b.value(v + "bf16_enabled") is True, DERIVED, CONFIG,
          ("bf16.bf16_optimizer_states",) if states else ())
    b.put("runs.own_optimizer", isinstance(config.get("optimizer"), Mapping), DERIVED, ENGINE,
          ("optimizer",) if "optimizer" in config else ())
    b.put("runs.micro_batch", b.value(v + "train_micro_batch_size_per_gpu"), DERIVED, CONFIG,
          b.values[v + "train_micro_batch_size_per_gpu"].keys)
    if gas_unknown:  # DeepSpeed gets the script's value, which no file shows
        b.put("runs.gradient_accumulation_steps", None, AUTO, TRAINER if trainer else PREPARE,
              b.values[v + "gradient_accumulation_steps"].keys, "\"auto\": the script's accumulation steps, unknown")
    else:
        b.put("runs.gradient_accumulation_steps", b.value(v + "gradient_accumulation_steps"), DERIVED, CONFIG,
              b.values[v + "gradient_accumulation_steps"].keys)
    init = b.value("deepspeed_plugin.zero3_init_flag")
    b.put("runs.zero_init", stage == 3 and situation.transformers, DERIVED if init or stage != 3 else OVERRIDDEN,
          "transformers from_pretrained", b.values["deepspeed_plugin.zero3_init_flag"].keys,
          said("" if init or stage != 3 else "at ZeRO-3 from_pretrained creates the model under zero.Init whatever "
               "zero3_init_flag says"))
    ac = bool(situation.activation_checkpointing)
    b.put("runs.activation_checkpointing", ac, DERIVED, "the script", (),
          "model.gradient_checkpointing_enable()" if ac else "no config switch under DeepSpeed")
    b.put("runs.activation_checkpointing_offload", False, DEFAULT, "the script")


__all__ = ["deepspeed_values", "get_path"]
