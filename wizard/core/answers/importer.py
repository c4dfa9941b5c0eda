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

from ..catalog import CUSTOM, DEEPSPEED, FSDP1, FSDP2, JSON, SETTING_BY_ID, YAML, ZERO3, Setting, Write, fp8_options
from ..catalog.writes import NOT_FOUND, answer_value, one_to_one
from ..findings import ERROR, INFO, Finding
from ..library.fsdp import fsdp_key
from ..library.launcher import FP8_MISNAMED
from ..lint.base import fmt
from ..lint.dsjson import accelerate_keys_in
from ..vocab import (
    SHARDING_STRATEGIES,
    as_int,
    bool_word,
    fsdp_enum_name,
    parse_bool,
    parse_int,
    sharding_strategy_name,
    whole_number,
)
from ..wizard_rules import CONFIG_UNREADABLE, IMPORT_NOTE, IMPORT_UNSUPPORTED
from .model import Answers, answers_from_mapping, coerce_value

_STAGE = {3: "full", 2: "grads_optimizer", 1: "optimizer", 0: "none"}
_BY_HAND = frozenset({"backend", "fsdp_version", "sharding.strategy", "launch.num_processes", "launch.num_machines",
                      "launch.machine_rank"})
"""Settings read by hand below, before the one-to-one keys: they decide the target and the ZeRO stage the other keys
are read for, or have notes of their own."""
_ABSENT: Any = object()
_TOP_LAUNCH = ("num_processes", "num_machines", "machine_rank", "main_process_port", "main_process_ip")
"""The top-level accelerate config keys :meth:`_Importer.top` reads into the launch answers (``launch.<key>``)."""


def _lookup(doc: Any, path: str) -> Any:
    """The value at a dotted path, or :data:`_ABSENT` (also for an explicit null)."""
    node = doc
    for part in path.split("."):
        if not isinstance(node, dict) or node.get(part) is None:
            return _ABSENT
        node = node[part]
    return node


def _take(doc: dict, path: str) -> None:
    """Remove a dotted path, and each section it leaves empty."""
    *sections, key = path.split(".")
    chain = [doc]
    for part in sections:
        chain.append(chain[-1][part])
    chain[-1].pop(key, None)
    for parent, part, node in reversed(list(zip(chain[:-1], sections, chain[1:], strict=True))):
        if not node:
            parent.pop(part, None)


def _section(doc: dict[str, Any], name: str) -> dict[str, Any]:
    """``doc[name]`` when it is a mapping, else an empty one."""
    value = doc.get(name)
    return value if isinstance(value, dict) else {}


def _is_joint(s: Setting) -> bool:
    """Written to several DeepSpeed JSON keys, each with its own map of values: read from all of them together."""
    writes = [w for w in s.writes.get(DEEPSPEED, ()) if w.file == JSON and w.when != CUSTOM]
    return len(writes) > 1 and all(w.values is not None for w in writes)


def _same(spelled: Any, raw: Any) -> bool:
    return spelled == raw and type(spelled) is type(raw)


def _copy_tree(value: Any) -> Any:
    return {k: _copy_tree(v) for k, v in value.items()} if isinstance(value, dict) else value


def _as_deepspeed_reads(s: Setting, raw: Any) -> tuple[Any, bool]:
    """``raw`` as DeepSpeed's config models read it for this setting's kind (pydantic's lax mode), and whether its
    spelling changes: ``5e8`` (a JSON float) is the whole number 500000000 as it is, ``"200000000"`` becomes one,
    ``"true"``/``1`` become true. Anything else is returned as it is, for the setting to judge."""
    if isinstance(raw, bool):
        return raw, False
    if s.kind == "int":
        exact = as_int(raw)
        if exact is not None:
            return exact, False
        if isinstance(raw, str) and parse_int(raw.strip().replace("_", "")) is not None:
            return parse_int(raw.strip().replace("_", "")), True
    if s.kind == "bool":
        word = bool_word(raw)
        if word is not None:
            return word, True
        if isinstance(raw, int) and raw in (0, 1):
            return bool(raw), True
    return raw, False


_SECTIONS_WITH_SETTINGS = ("zero_optimization", "bf16", "fp16")
"""DeepSpeed JSON sections that hold keys of wizard settings beside keys of none: named key by key in the import
note, so that a setting's key kept there is not counted among the keys without a setting."""


def _kept_names(extra: dict[str, Any], known: set[str]) -> list[str]:
    """The keys of ``extra`` (a section of :data:`_SECTIONS_WITH_SETTINGS` key by key) other than ``known``."""
    out = []
    for key, value in extra.items():
        if key in _SECTIONS_WITH_SETTINGS and isinstance(value, dict):
            out += [f"{key}.{sub}" for sub in value if f"{key}.{sub}" not in known]
        elif key not in known:
            out.append(key)
    return sorted(out)


class _Importer:
    def __init__(self, *, bare_ds: bool = False) -> None:
        self.bare_ds = bare_ds
        """A DeepSpeed JSON alone is imported: no accelerate config holds the launch answers."""
        self.doc: dict[str, Any] = {}
        self.findings: list[Finding] = []
        self.kept: dict[str, tuple[str, str]] = {}
        """JSON key of a setting -> (the setting, why its value stays in ``deepspeed.extra`` instead)."""
        self.hpz: int | None = None
        """The JSON's ``zero_hpz_partition_size`` imported as hybrid_full, which writes the processes per machine."""

    def set(self, group: str | None, name: str, value: Any) -> None:
        if group is None:
            self.doc[name] = value
        else:
            self.doc.setdefault(group, {})[name] = value

    def set_id(self, setting_id: str, value: Any) -> None:
        group, _, name = setting_id.rpartition(".")
        self.set(group or None, name, value)

    def note(self, keys: list[str], message: str, fix: str = "") -> None:
        """A note about the translation (rule ``import``, always info: the file's faults are the config rules)."""
        self.findings.append(Finding(INFO, IMPORT_NOTE, tuple(keys), message, fix, "wizard importer"))

    @property
    def zero_stage(self) -> int | None:
        from ..catalog import SHARDING

        strategy = self.doc.get("sharding", {}).get("strategy")
        return SHARDING[strategy][2] if strategy in SHARDING else None

    # ------------------------------------------------------------------ the one-to-one keys, from the catalogue
    def yaml_keys(self, y: dict[str, Any], targets: tuple[str, ...], *, sections: tuple[str, ...]) -> None:
        """Every one-to-one accelerate YAML key of ``targets`` (the file's first) at the top level or in
        ``sections``, read the way the launcher reads it; a key that is absent means the library's default for the
        file's own target, and no answer for another's."""
        seen: set[str] = set()
        for target in targets:
            for s, w in one_to_one(target):
                section = w.key.rpartition(".")[0]
                if s.id in _BY_HAND or w.file != YAML or w.key in seen or section not in ("", *sections):
                    continue
                if w.when == ZERO3 and self.zero_stage != 3:
                    continue
                seen.add(w.key)
                raw = _lookup(y, w.key)
                if raw is _ABSENT:
                    if w.library_default is None or target != targets[0]:  # the other version's: not stated
                        continue
                    raw = w.library_default
                value = self._yaml_value(s, w, target, raw)
                if value is not NOT_FOUND:
                    self.set_id(s.id, value)

    @staticmethod
    def _yaml_value(s: Setting, w: Write, target: str, raw: Any) -> Any:
        if w.values is not None:
            if all(isinstance(v, bool) for v in w.values.values()):
                spelled = parse_bool(raw)
            elif w.key.startswith("fsdp_config."):
                spelled = fsdp_enum_name(w.key.split(".", 1)[1], raw)
            else:
                spelled = raw
            return NOT_FOUND if spelled is None else answer_value(s, target, w.key, spelled)
        if s.kind == "bool":
            flag = parse_bool(raw)
            return NOT_FOUND if flag is None else flag
        if (s.kind in ("str", "choice") and isinstance(raw, (str, int)) and not isinstance(raw, bool)
                and str(raw).strip()):
            return str(raw)
        return NOT_FOUND

    def json_keys(self, ds: dict[str, Any], rest: dict[str, Any]) -> None:
        """Every one-to-one DeepSpeed JSON key: imported when the setting can hold the value (and the ZeRO stage is
        one that reads it), otherwise left in ``rest`` (``deepspeed.extra``), as written. A setting written to several
        keys with a map of values each is read from all of them together (:meth:`joint_keys`)."""
        joint: dict[str, list[Write]] = {}
        for s, w in one_to_one(DEEPSPEED):
            if s.id in _BY_HAND or w.file != JSON:
                continue
            if _is_joint(s):
                joint.setdefault(s.id, []).append(w)
                continue
            raw = _lookup(ds, w.key)
            if raw is _ABSENT:
                continue
            if w.when == ZERO3 and self.zero_stage != 3:
                self.kept[w.key] = (s.id, f"is written at ZeRO-3 only, and this JSON runs ZeRO-{self.zero_stage}")
                continue
            spelled, respelled = (raw, False) if w.values is not None else _as_deepspeed_reads(s, raw)
            value = answer_value(s, DEEPSPEED, w.key, spelled)
            problem = coerce_value(s, value)[1] if value is not NOT_FOUND else None
            if value is NOT_FOUND or problem is not None:
                why = (f"cannot hold it ({problem.message.split('; ', 1)[-1]})" if problem is not None
                       else "has no value written that way")
                self.kept[w.key] = (s.id, why)
                continue
            self.set_id(s.id, value)
            _take(rest, w.key)
            if respelled:
                self.note([w.key, s.id], f"`{w.key}: {fmt(raw)}` is imported into {s.id} as {fmt(value)}, the value "
                          "DeepSpeed reads it as; the regenerated JSON spells it so")
        for sid, writes in joint.items():
            self.joint_keys(SETTING_BY_ID[sid], writes, ds, rest)

    def joint_keys(self, s: Setting, writes: list[Write], ds: dict[str, Any], rest: dict[str, Any]) -> None:
        """The answer value whose spellings match every key at once (an absent key: its ``library_default``); the
        keys stay in ``rest`` when none does (``bf16_optimizer_states`` without ``bf16_master_weights_and_grads``,
        which DeepSpeed refuses)."""
        raws = {w.key: _lookup(ds, w.key) for w in writes}
        if all(raw is _ABSENT for raw in raws.values()):
            return
        if any(w.when == ZERO3 for w in writes) and self.zero_stage != 3:
            return
        for value in s.choices:
            if all(w.values is not None and _same(w.values[value], w.library_default if raws[w.key] is _ABSENT
                                                  else raws[w.key]) for w in writes):
                self.set_id(s.id, value)
                for key, raw in raws.items():
                    if raw is not _ABSENT:
                        _take(rest, key)
                return

    # ------------------------------------------------------------------ top level
    def top(self, y: dict[str, Any]) -> None:
        for key in _TOP_LAUNCH:
            if key != "main_process_ip" and y.get(key) is not None:
                v = whole_number(y[key])
                if v is None or v < 0:
                    self.note([key], f"{key}: {y[key]!r} is not a usable integer; default kept")
                elif key == "num_processes" and v < 1:
                    self.note([key], f"num_processes {v} must be given on the command line; default kept")
                else:
                    self.set("launch", key, v)
        if isinstance(y.get("main_process_ip"), (str, int)) and str(y["main_process_ip"]).strip():
            self.set("launch", "main_process_ip", str(y["main_process_ip"]))
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

    def fp8(self, y: dict[str, Any]) -> None:
        """fp8_config: the backend and the options of every recipe, under the names the launcher exports (with or
        without the ``fp8_`` it prepends); a name no recipe reads (``accelerate config``'s own
        ``amax_history_length`` and the like) is not imported, with a note: the run never used it."""
        raw = _section(y, "fp8_config")
        if not raw:
            return
        by_key: dict[str, list[Setting]] = {}
        for s in (SETTING_BY_ID["precision.fp8_backend"], *fp8_options()):
            key = next(w.key for ws in s.writes.values() for w in ws).removeprefix("fp8_config.")
            by_key.setdefault(key, []).append(s)
        for key, value in raw.items():
            if not isinstance(key, str):
                continue
            name = key if key.startswith("fp8_") else "fp8_" + key
            settings = by_key.get(key) or by_key.get(name.removeprefix("fp8_")) or by_key.get(name, [])
            if name in FP8_MISNAMED:
                read = FP8_MISNAMED[name]
                self.note([f"fp8_config.{key}", f"precision.fp8_{read}"],
                          f"`fp8_config.{key}` is not imported: no fp8 recipe reads that name (it reads `{read}`), "
                          "so the run used the recipe's default", f"set precision.fp8_{read} if you meant it")
                continue
            if not settings or value is None:
                continue
            if len(settings) > 1:  # override_linear_precision: fprop, dgrad, wgrad
                flags = [parse_bool(v) for v in value] if isinstance(value, (list, tuple)) else []
                if len(flags) == len(settings) and None not in flags:
                    for s, flag in zip(settings, flags, strict=True):
                        self.set_id(s.id, flag)
                continue
            s = settings[0]
            w = next(w for ws in s.writes.values() for w in ws)
            v: Any
            if s.kind == "bool":
                v = parse_bool(value)
            elif s.kind == "int":
                v = whole_number(value)
            elif w.values is not None:
                v = answer_value(s, DEEPSPEED, w.key, value)
                v = None if v is NOT_FOUND else v
            elif isinstance(value, str):  # the TE recipe upper-cases the format and lower-cases the algorithm
                v = next((c for c in s.choices if c.lower() == value.lower()), value)
            else:
                v = None
            if v is not None:
                self.set_id(s.id, v)

    # ------------------------------------------------------------------ FSDP
    def fsdp(self, y: dict[str, Any]) -> None:
        raw = _section(y, "fsdp_config")
        f = {fsdp_key(k): v for k, v in raw.items() if isinstance(k, str)}
        self.set(None, "backend", "fsdp")
        version = whole_number(f.get("fsdp_version", 1))
        version = version if version in (1, 2) else 1
        self.set(None, "fsdp_version", version)
        if version == 1:
            strategy = f.get("fsdp_sharding_strategy")
            via_reshard = f.get("fsdp_reshard_after_forward")
            if strategy is None and isinstance(via_reshard, str) and via_reshard.upper() in SHARDING_STRATEGIES:
                strategy = via_reshard
                if via_reshard.upper() != "FULL_SHARD":
                    self.note(["fsdp_config.fsdp_reshard_after_forward"],
                              f"the original config asks for {via_reshard.upper()} under fsdp_reshard_after_forward, "
                              "which accelerate launch ignores for FSDP1 (it ran FULL_SHARD); imported as asked",
                              "the regenerated config writes it under fsdp_sharding_strategy")
            name = sharding_strategy_name(strategy) if strategy is not None else "FULL_SHARD"
            value = NOT_FOUND if name is None else answer_value(SETTING_BY_ID["sharding.strategy"], FSDP1,
                                                                "fsdp_config.fsdp_sharding_strategy", name)
            if value is not NOT_FOUND:
                self.set("sharding", "strategy", value)
            else:
                self.note(["fsdp_config.fsdp_sharding_strategy"], f"unknown strategy {strategy!r}; full kept")
        else:
            reshard = parse_bool(f.get("fsdp_reshard_after_forward", True))
            pc = _section(y, "parallelism_config")
            replicate = whole_number(pc.get("parallelism_config_dp_replicate_size", 1)) or 1
            base = "full" if reshard is not False else "grads_optimizer"
            self.set("sharding", "strategy", ("hybrid_" + base if base == "full" else "hybrid_grads_optimizer")
                     if replicate > 1 else base)
            machines = whole_number(y.get("num_machines", 1)) or 1
            if replicate > 1 and replicate != machines:  # not one replica per machine: the size is an answer
                self.set("parallelism", "dp_replicate_size", replicate)
        off = parse_bool(f.get("fsdp_offload_params", False))
        if off:
            self.set("offload", "optimizer", "cpu")
            self.set("offload", "params", "cpu")
        classes = f.get("fsdp_transformer_layer_cls_to_wrap")
        if isinstance(classes, str) and classes.strip():
            self.set("wrapping", "layer_classes", [c.strip() for c in classes.split(",") if c.strip()])
        elif isinstance(classes, list):
            self.set("wrapping", "layer_classes", [str(c) for c in classes])
        if "fsdp_min_num_params" in f:
            n = whole_number(f["fsdp_min_num_params"])
            if n is not None and n > 0:
                self.set("wrapping", "min_num_params", n)
                if not isinstance(f["fsdp_min_num_params"], int):
                    self.note(["fsdp_config.fsdp_min_num_params"],
                              f"fsdp_min_num_params {f['fsdp_min_num_params']!r} crashes accelerate; imported as {n}")
        # the file's own version first, then the other version's keys (kept for a switch)
        self.yaml_keys({**y, "fsdp_config": f}, (FSDP1, FSDP2) if version == 1 else (FSDP2, FSDP1),
                       sections=("fsdp_config",))

    # ------------------------------------------------------------------ DeepSpeed
    def deepspeed(self, y: dict[str, Any], ds: dict[str, Any] | None) -> None:
        d = _section(y, "deepspeed_config")
        self.set(None, "backend", "deepspeed")
        if d.get("zero3_init_flag") is not None:
            flag = parse_bool(d["zero3_init_flag"])
            if flag is not None:
                self.set("loading", "ram_efficient", flag)
        moe = d.get("deepspeed_moe_layer_cls_names")
        if isinstance(moe, str) and moe.strip():
            self.set("wrapping", "ds_moe_layer_classes", [c.strip() for c in moe.split(",") if c.strip()])
        for key, name in (("deepspeed_multinode_launcher", "ds_multinode_launcher"),
                          ("deepspeed_hostfile", "ds_hostfile"),
                          ("deepspeed_inclusion_filter", "ds_inclusion_filter"),
                          ("deepspeed_exclusion_filter", "ds_exclusion_filter")):
            if isinstance(d.get(key), str) and d[key].strip() and d[key] != "none":
                self.set("launch", name, d[key])
        if d.get("deepspeed_config_file") not in (None, "none"):
            self.set("deepspeed", "config_file", "yes")
            self.yaml_keys(y, (DEEPSPEED,), sections=())
            if isinstance(ds, dict):
                self.ds_json(ds)
            else:
                self.note(["deepspeed_config.deepspeed_config_file"],
                          "the DeepSpeed JSON could not be read: its settings are not imported")
            return
        stage = whole_number(d.get("zero_stage", 2))
        self.set("sharding", "strategy", _STAGE.get(stage, "grads_optimizer") if stage is not None
                 else "grads_optimizer")
        if stage not in _STAGE:
            self.note(["deepspeed_config.zero_stage", "sharding.strategy"], f"`deepspeed_config.zero_stage: "
                      f"{fmt(d['zero_stage'])}` is not a ZeRO stage (0 to 3): sharding.strategy is imported as "
                      "grads_optimizer (stage 2, accelerate's default)",
                      "set sharding.strategy to the ZeRO stage meant")
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
        if gas is None:  # accelerate then takes the Accelerator's value (utils/dataclasses.py:1229-1231)
            self.set("training", "gradient_accumulation_steps", "auto")
        else:
            steps = gas if gas == "auto" else whole_number(gas)
            if steps is None or steps == 0:
                steps = 1
                self.note(["deepspeed_config.gradient_accumulation_steps", "training.gradient_accumulation_steps"],
                          f"`deepspeed_config.gradient_accumulation_steps: {fmt(gas)}` is not a number of steps: "
                          "training.gradient_accumulation_steps is imported as 1",
                          "set training.gradient_accumulation_steps to the accumulation meant")
            self.set("training", "gradient_accumulation_steps", steps)
        clip = d.get("gradient_clipping")
        if clip is None:
            self.set("training", "gradient_clipping", "auto")
        elif clip == "auto" or isinstance(clip, (int, float)) and not isinstance(clip, bool):
            self.set("training", "gradient_clipping", clip)
        else:
            kept = SETTING_BY_ID["training.gradient_clipping"].default
            self.note(["deepspeed_config.gradient_clipping", "training.gradient_clipping"],
                      f"`deepspeed_config.gradient_clipping: {fmt(clip)}` is not imported (not a number): "
                      f"training.gradient_clipping keeps its default, {fmt(kept)}",
                      "set training.gradient_clipping to the clipping meant")
        self.yaml_keys(y, (DEEPSPEED,), sections=("deepspeed_config",))

    # ------------------------------------------------------------------ parallelism_config
    def parallelism(self, y: dict[str, Any]) -> None:
        """tp, cp and its exchange (FSDP2), Ulysses sp and its details (DeepSpeed) from ``parallelism_config``; the
        dp_shard size is not an answer (the renderer derives it: the processes left over), nor dp_replicate when it
        is one replica per machine (the FSDP branch sets parallelism.dp_replicate_size otherwise). A value an
        answer cannot hold is dropped with a note by :func:`import_mapping`."""
        pc = _section(y, "parallelism_config")
        p = "parallelism_config_"
        for name in ("tp_size", "cp_size", "sp_size", "sp_seq_length"):
            if pc.get(p + name) is None or pc.get(p + name) == "None":
                continue
            n = whole_number(pc[p + name])
            self.set("parallelism", name, n if n is not None else pc[p + name])
        for name in ("cp_comm_strategy", "sp_attn_implementation"):
            if isinstance(pc.get(p + name), str):
                self.set("parallelism", name, pc[p + name])
        if p + "sp_seq_length_is_variable" in pc:
            # the launcher exports str() of the value and accelerate reads only "true" (any case) as variable
            self.set("parallelism", "sp_seq_length_is_variable",
                     str(pc[p + "sp_seq_length_is_variable"]).lower() == "true")

    def ds_json(self, ds: dict[str, Any]) -> None:
        extra = _copy_tree(ds)
        z = _section(ds, "zero_optimization")
        stage = whole_number(z.get("stage", 0))
        hpz = whole_number(z.get("zero_hpz_partition_size", 1)) or 1
        strategy = _STAGE.get(stage, "none") if stage is not None else "none"
        if stage not in _STAGE:
            self.note(["zero_optimization.stage", "sharding.strategy"], f"`zero_optimization.stage: "
                      f"{fmt(z['stage'])}` is not a ZeRO stage (0 to 3): sharding.strategy is imported as none "
                      "(stage 0)", "set sharding.strategy to the ZeRO stage meant")
        if stage == 3 and hpz > 1:
            strategy = "hybrid_full"
            self.hpz = hpz
        elif hpz > 1:
            self.note(["zero_optimization.zero_hpz_partition_size", "sharding.strategy"],
                      f"`zero_optimization.zero_hpz_partition_size: {fmt(z['zero_hpz_partition_size'])}` is not "
                      f"carried: hpZ (the secondary partition) is ZeRO-3's, and this JSON runs ZeRO-{stage}",
                      "set sharding.strategy hybrid_full for ZeRO-3 with hpZ")
        self.set("sharding", "strategy", strategy)
        if not isinstance(extra.get("zero_optimization"), dict):
            extra.pop("zero_optimization", None)
        zrest = extra.get("zero_optimization", {})
        for key in ("stage", "zero_hpz_partition_size"):
            zrest.pop(key, None)
        for block, name in (("offload_optimizer", "optimizer"), ("offload_param", "params")):
            b = z.get(block)
            if isinstance(b, dict):
                rest = zrest[block]
                if isinstance(b.get("device"), str):
                    self.set("offload", name, rest.pop("device"))
                if isinstance(b.get("nvme_path"), str):
                    self.set("offload", "nvme_path", rest.pop("nvme_path"))
                if isinstance(b.get("pin_memory"), bool):
                    self.set("offload", "pin_memory", rest.pop("pin_memory"))
                if not rest:
                    zrest.pop(block)
        self.json_keys(ds, extra)
        if not extra.get("zero_optimization", True):
            extra.pop("zero_optimization")
        for key, group, name in (("gradient_accumulation_steps", "training", "gradient_accumulation_steps"),
                                 ("gradient_clipping", "training", "gradient_clipping"),
                                 ("train_micro_batch_size_per_gpu", "training", "micro_batch_size")):
            if key in ds:
                self.set(group, name, ds[key])
                extra.pop(key)
        self.precision(ds)
        for key in ("bf16", "fp16"):  # what the one-to-one keys above left of the sections
            rest = {k: v for k, v in _section(extra, key).items() if k not in ("enabled", "auto_cast")}
            extra.pop(key, None)
            if rest:
                extra[key] = rest
        if "train_batch_size" in extra:
            total = extra.pop("train_batch_size")
            if total != "auto":
                self.note(["train_batch_size", "training.micro_batch_size"],
                          f"`train_batch_size: {fmt(total)}` is not carried: the answers hold no total batch (only "
                          "training.micro_batch_size and training.gradient_accumulation_steps), and the regenerated "
                          "DeepSpeed JSON writes \"auto\" there, which accelerate fills as micro batch x gradient "
                          "accumulation x processes",
                          "set training.micro_batch_size and training.gradient_accumulation_steps so that their "
                          "product with the process count is the batch you want")
        if "steps_per_print" in extra:
            value = extra.pop("steps_per_print")
            self.note(["steps_per_print"], f"`steps_per_print: {fmt(value)}` is not carried: accelerate replaces it "
                      "with infinity in every DeepSpeed config it handles (accelerate/utils/dataclasses.py:1326), so "
                      "it never took effect; only DeepSpeed's own progress lines depended on it",
                      "log from the training loop instead (e.g. every N steps with accelerator.print)")
        self.launch_keys(extra)
        if extra:
            self.set("deepspeed", "extra", extra)
            unknown = _kept_names(extra, set(self.kept))
            if unknown:
                self.note(["deepspeed.extra"], "DeepSpeed JSON keys without a wizard setting are kept in "
                          "deepspeed.extra as they are: " + ", ".join(unknown))
        for key, (sid, why) in self.kept.items():
            self.note([key, "deepspeed.extra"], f"`{key}: {fmt(_lookup(ds, key))}` stays in deepspeed.extra as "
                      f"written: its setting, {sid}, {why}",
                      f"leave it, or drop it from deepspeed.extra and set {sid} in the wizard")

    def precision(self, ds: dict[str, Any]) -> None:
        """``precision.mixed_precision`` from the bf16/fp16 sections, with a note where the answers cannot hold what
        the JSON says: both enabled (DeepSpeed refuses it), ``"auto"`` (the answers have no "auto" precision), fp16
        without its ``auto_cast`` (the regenerated JSON turns it on)."""
        mp = SETTING_BY_ID["precision.mixed_precision"]
        raw = {key: _lookup(ds, key) for key in ("bf16.enabled", "fp16.enabled")}
        on = {key: parse_bool(value) is True for key, value in raw.items()}
        auto = [key for key, value in raw.items() if value == "auto"]
        if on["bf16.enabled"]:
            self.set("precision", "mixed_precision", "bf16")
            if on["fp16.enabled"]:
                self.note(["bf16.enabled", "fp16.enabled", mp.id],
                          f"`bf16.enabled: {fmt(raw['bf16.enabled'])}` and `fp16.enabled: {fmt(raw['fp16.enabled'])}` "
                          f"are both on, which DeepSpeed refuses; the answers hold one precision: {mp.id} is "
                          "imported as bf16, and the regenerated JSON writes `fp16.enabled: false`",
                          f"set {mp.id} to fp16 if the run is meant to train in fp16")
        elif on["fp16.enabled"]:
            self.set("precision", "mixed_precision", "fp16")
            cast = _lookup(ds, "fp16.auto_cast")
            if parse_bool(cast) is not True:
                stated = (f"`fp16.auto_cast: {fmt(cast)}`" if cast is not _ABSENT
                          else "`fp16.auto_cast` (not written: DeepSpeed's default, false)")
                self.note(["fp16.auto_cast", mp.id], f"{stated} becomes true: {mp.id} fp16 is written with "
                          "`fp16.auto_cast: true` (DeepSpeed then casts the model's inputs to fp16)",
                          "edit the regenerated ds_config.json if the model must see its inputs uncast")
        elif auto:
            written = ", ".join(f"`{key}: \"auto\"`" for key in auto)
            self.note([*auto, mp.id, "launch.training_loop"],
                      f"{written}: the answers have no \"auto\" precision, so {mp.id} keeps {fmt(mp.default)} (its "
                      f"default); the regenerated JSON writes `bf16.enabled: {fmt(mp.default in ('bf16', 'fp8'))}` in "
                      "an own Accelerator loop, and \"auto\" again under the Hugging Face Trainer "
                      "(launch.training_loop trainer). In the file, \"auto\" is filled at launch: by accelerate "
                      "from the launch's mixed_precision ('no' when none is given), by the Trainer from its bf16/fp16 "
                      "arguments",
                      f"set {mp.id} to the precision the run used, or launch.training_loop trainer to keep \"auto\"")
        else:
            self.set("precision", "mixed_precision", "no")

    def launch_keys(self, extra: dict[str, Any]) -> None:
        """The accelerate config keys at the JSON's top level (an axolotl-style ``num_processes``), which nothing
        reads there: taken out of ``extra``, so they are never written back into a DeepSpeed JSON. A JSON alone
        gives the launch answers it holds (launch.num_processes, ...); beside an accelerate config, its own keys
        decide, and the JSON's are dropped. A note names each."""
        for key in accelerate_keys_in(extra):
            value = extra.pop(key)
            what = f"`{key}: {fmt(value)}` in the DeepSpeed JSON is an accelerate config key, which nothing reads there"
            if self.bare_ds and key in _TOP_LAUNCH:
                self.top({key: value})
                if _lookup(self.doc, f"launch.{key}") is not _ABSENT:
                    self.note([key, f"launch.{key}"], f"{what}; imported into launch.{key}: the wizard writes it "
                              "in accelerate_config.yaml, not in ds_config.json")
                continue
            where = (f"the accelerate config's own settings decide it (launch.{key} in the wizard)"
                     if key in _TOP_LAUNCH else "it belongs in the accelerate config")
            self.note([key], f"{what}; not carried: {where}",
                      "set it in the accelerate config or on the launch command line")


    def hpz_note(self, answers: Answers) -> None:
        """hybrid_full writes the processes per machine as ``zero_hpz_partition_size``: a note when the JSON's
        differs."""
        from .render import processes_per_node

        if self.hpz is not None and answers["sharding.strategy"] == "hybrid_full" \
                and processes_per_node(answers) != self.hpz:
            self.note(["zero_optimization.zero_hpz_partition_size", "sharding.strategy", "launch.num_processes"],
                      f"`zero_optimization.zero_hpz_partition_size: {self.hpz}` is imported as sharding.strategy "
                      f"hybrid_full, which writes the processes per machine there: {processes_per_node(answers)} "
                      f"({answers['launch.num_processes']} processes on {answers['launch.num_machines']} "
                      "machine(s)), not the file's value",
                      "set launch.num_processes and launch.num_machines so that each machine runs the secondary "
                      "partition's size, or edit the regenerated ds_config.json")


def split_extra(extra: dict[str, Any], zero_stage: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """An edited ``deepspeed.extra`` read as the importer reads a DeepSpeed JSON at ``zero_stage``: ``({setting id:
    value}, the rest)``, where the first holds each one-to-one key a setting can hold (``overlap_comm`` goes to
    deepspeed.overlap_comm) and the rest stays in ``deepspeed.extra``. The accelerate launch keys the launch answers
    hold go there, as from a DeepSpeed JSON alone (``num_processes`` -> launch.num_processes). The keys read by hand
    on import (the stage, the offload devices, bf16/fp16 enabled, the batch sizes) stay in the rest, where the answer
    rules judge them."""
    imp = _Importer(bare_ds=True)
    imp.set("sharding", "strategy", _STAGE.get(zero_stage, "none"))
    rest = _copy_tree(extra)
    imp.json_keys(extra, rest)
    for key in accelerate_keys_in(rest):
        if key in _TOP_LAUNCH:
            imp.top({key: rest[key]})
            if _lookup(imp.doc, f"launch.{key}") is not _ABSENT:
                rest.pop(key)
    changes = {f"{group}.{name}": value for group, names in imp.doc.items() if isinstance(names, dict)
               for name, value in names.items() if f"{group}.{name}" != "sharding.strategy"}
    return changes, rest


def import_mapping(y: Any, ds: Any = None, *, bare_ds: bool = False) -> tuple[Answers | None, list[Finding]]:
    """Import from already parsed dicts. ``bare_ds``: ``ds`` is a DeepSpeed JSON alone (``y`` the smallest accelerate
    config naming it, ``LoadedConfig.bare_ds``), so the launch keys it holds give the launch answers."""
    imp = _Importer(bare_ds=bare_ds)
    if not isinstance(y, dict):
        return None, [Finding(ERROR, IMPORT_UNSUPPORTED, ("config",), "the accelerate config is not a mapping",
                              "write the accelerate config as a mapping (`accelerate config` writes one)",
                              "wizard importer")]
    dtype = str(y.get("distributed_type", "")).upper()
    imp.top(y)
    imp.fp8(y)
    if dtype == "FSDP":
        imp.fsdp(y)
    elif dtype == "DEEPSPEED":
        imp.deepspeed(y, ds if isinstance(ds, dict) else None)
    else:
        return None, [Finding(ERROR, IMPORT_UNSUPPORTED, ("distributed_type",),
                              f"distributed_type {y.get('distributed_type')!r}: only FSDP and DEEPSPEED configs can be "
                              "imported", "start from a preset instead")]
    imp.parallelism(y)
    answers, findings = answers_from_mapping(imp.doc)
    if answers is not None:
        imp.hpz_note(answers)
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
    from ..inputs import InputError
    from ..lint import load_config_files

    try:
        loaded = load_config_files(yaml_path)
    except InputError as exc:
        return None, [exc.finding(CONFIG_UNREADABLE, "config")]
    answers, findings = import_mapping(loaded.yaml, loaded.ds, bare_ds=loaded.bare_ds)
    return answers, list(loaded.findings) + findings
