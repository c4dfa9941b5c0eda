"""What ``accelerate launch`` and ``FullyShardedDataParallelPlugin`` make of an accelerate YAML's fsdp_config
(accelerate 1.15): the launcher turns each key into an argument (``fsdp_`` prefixed), exports it as a string, and the
plugin parses the strings with its own defaults. Keys of :func:`..verify.roundtrip.flatten_effective`'s ``fsdp.*``.
"""
from __future__ import annotations

from collections.abc import Mapping

from ..i18n import said
from ..library.fsdp import (
    FSDP_MIXED_PRECISION_DTYPE,
    FSDP_PLAIN,
    FSDP_STATE_DICT_DEFAULT,
    LAUNCH_FSDP_DEFAULTS,
    PLUGIN_FSDP_DEFAULTS,
    fsdp_key,
)
from ..vocab import (
    backward_prefetch_name,
    parse_bool,
    sharding_strategy_name,
    state_dict_type_name,
    wrap_policy_name,
)
from .builder import Builder
from .used import DEFAULT, DERIVED, IGNORED, OVERRIDDEN, WRITTEN

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

LAUNCH = "accelerate launch"
PLUGIN = "FullyShardedDataParallelPlugin"
STATE_DICT_DEFAULT = FSDP_STATE_DICT_DEFAULT
_TORCH_SHARDING_NAME = {"HYBRID_SHARD_ZERO2": "_HYBRID_SHARD_ZERO2"}
"""torch spells the last ShardingStrategy member with a leading underscore."""


class _Args:
    """The launcher's fsdp arguments: the YAML's value (and the key it was written under) or the launch default."""

    def __init__(self, section: Mapping[str, Any]) -> None:
        self.written: dict[str, tuple[str, Any]] = {}
        for key, value in section.items():
            self.written[fsdp_key(str(key))] = (f"fsdp_config.{key}", value)

    def get(self, name: str) -> tuple[Any, str | None]:
        if name in self.written:
            key, value = self.written[name]
            return value, key
        return LAUNCH_FSDP_DEFAULTS.get(name), None

    def env(self, name: str, lower: bool = True) -> tuple[str | None, str | None]:
        """The string the launcher exports for ``name`` (None: nothing exported), and the written key."""
        value, key = self.get(name)
        if value is None:
            return None, key
        text = str(value)
        return (text.lower() if lower else text), key


def _keys(key: str | None) -> tuple[str, ...]:
    return (key,) if key else ()


def fsdp_values(y: Mapping[str, Any], mixed_precision: str, b: Builder) -> None:
    section = y.get("fsdp_config")
    args = _Args(section if isinstance(section, Mapping) else {})
    why = lambda key: WRITTEN if key else DEFAULT  # noqa: E731

    # ---- version
    raw, vkey = args.get("fsdp_version")
    try:
        version = int(str(raw))
    except ValueError:
        b.fail(_keys(vkey), f"fsdp_version {raw!r} is not a number (FSDP_VERSION is read with int())", PLUGIN)
        return
    b.put("fsdp.fsdp_version", version, why(vkey), LAUNCH if not vkey else PLUGIN, _keys(vkey))

    # ---- launcher check (utils/launch.py prepare_multi_gpu_env)
    ram, ram_key = args.env("fsdp_cpu_ram_efficient_loading")
    sync, sync_key = args.env("fsdp_sync_module_states")
    ram_on, sync_on = bool(args.get("fsdp_cpu_ram_efficient_loading")[0]), bool(args.get("fsdp_sync_module_states")[0])
    if ram_on and not sync_on:  # the launcher tests the arguments' truth as Python values
        b.fail(_keys(ram_key) + _keys(sync_key), "cpu_ram_efficient_loading needs sync_module_states: the launcher "
               "raises ValueError", LAUNCH)

    # ---- sharding
    if version == 1:
        s, skey = args.env("fsdp_sharding_strategy", lower=False)
        name = sharding_strategy_name(s)
        if name is None:
            b.fail(_keys(skey), f"fsdp_sharding_strategy {s!r} is not a ShardingStrategy", PLUGIN)
        else:
            b.put("fsdp.sharding_strategy", _TORCH_SHARDING_NAME.get(name, name), why(skey), PLUGIN, _keys(skey))
        _, rkey = args.get("fsdp_reshard_after_forward")
        if rkey:
            b.put("fsdp.reshard_after_forward", None, IGNORED, PLUGIN, (rkey,),
                  said("FSDP1 reads fsdp_sharding_strategy (default FULL_SHARD); reshard_after_forward is not read"))
        else:
            b.put("fsdp.reshard_after_forward", None, DEFAULT, PLUGIN)
    else:
        _, skey = args.get("fsdp_sharding_strategy")
        b.put("fsdp.sharding_strategy", None, IGNORED if skey else DEFAULT, PLUGIN, _keys(skey),
              said("FSDP2 reads fsdp_reshard_after_forward" if skey else ""))
        r, rkey = args.env("fsdp_reshard_after_forward")
        flag = parse_bool(r or "")
        if flag is None:
            b.fail(_keys(rkey), f"fsdp_reshard_after_forward {r!r} is not true/false (FSDP2 reads a bool)", PLUGIN)
        else:
            b.put("fsdp.reshard_after_forward", flag, why(rkey), PLUGIN, _keys(rkey))

    # ---- prefetch
    p, pkey = args.env("fsdp_backward_prefetch", lower=False)
    if p is None:
        b.put("fsdp.backward_prefetch", PLUGIN_FSDP_DEFAULTS["fsdp_backward_prefetch"], DEFAULT, PLUGIN)
    else:
        valid, name = backward_prefetch_name(p)
        if not valid:
            b.fail(_keys(pkey), f"fsdp_backward_prefetch {p!r} is not a BackwardPrefetch", PLUGIN)
        elif version == 2:
            b.put("fsdp.backward_prefetch", None, IGNORED if name else WRITTEN, PLUGIN, _keys(pkey),
                  said("FSDP2 has no backward_prefetch: it prefetches the next unit by itself" if name else ""))
        else:
            b.put("fsdp.backward_prefetch", name, WRITTEN, PLUGIN, _keys(pkey))

    # ---- state dict
    t, tkey = args.env("fsdp_state_dict_type", lower=False)
    if t is None:
        b.put("fsdp.state_dict_type", STATE_DICT_DEFAULT[version], DEFAULT, PLUGIN)
    else:
        name = state_dict_type_name(t)
        if name is None:
            b.fail(_keys(tkey), f"fsdp_state_dict_type {t!r} is not a StateDictType", PLUGIN)
        elif version == 2 and name == "LOCAL_STATE_DICT":
            b.fail(_keys(tkey), "FSDP2 has no LOCAL_STATE_DICT", PLUGIN)
        else:
            b.put("fsdp.state_dict_type", name, WRITTEN, PLUGIN, _keys(tkey))

    # ---- wrapping
    w, wkey = args.env("fsdp_auto_wrap_policy", lower=False)
    policy = PLUGIN_FSDP_DEFAULTS["fsdp_auto_wrap_policy"] if w is None else wrap_policy_name(w)
    if policy is None:
        b.fail(_keys(wkey), f"fsdp_auto_wrap_policy {w!r} is not TRANSFORMER_BASED_WRAP, SIZE_BASED_WRAP or "
               "NO_WRAP", PLUGIN)
        policy = "NO_WRAP"
    b.put("fsdp.auto_wrap_policy", policy, why(wkey), PLUGIN, _keys(wkey))
    c, ckey = args.env("fsdp_transformer_layer_cls_to_wrap", lower=False)
    if policy == "TRANSFORMER_BASED_WRAP":
        b.put("fsdp.transformer_cls_names_to_wrap", None if c is None else c.split(","), why(ckey), PLUGIN,
              _keys(ckey), "" if c is not None else "the model's _no_split_modules at prepare()")
    else:
        b.put("fsdp.transformer_cls_names_to_wrap", None, IGNORED if ckey else DEFAULT, PLUGIN, _keys(ckey),
              f"read by TRANSFORMER_BASED_WRAP only, not {policy}" if ckey else "")
    m, mkey = args.env("fsdp_min_num_params", lower=False)
    if policy == "SIZE_BASED_WRAP":
        try:
            b.put("fsdp.min_num_params", int(str(m)), why(mkey), PLUGIN, _keys(mkey))
        except ValueError:
            b.fail(_keys(mkey), f"fsdp_min_num_params {m!r} is read with int() (write an integer, not 1e8)", PLUGIN)
    else:
        b.put("fsdp.min_num_params", None, IGNORED if mkey else DEFAULT, PLUGIN, _keys(mkey),
              f"read by SIZE_BASED_WRAP only, not {policy}" if mkey else "")

    # ---- the plain keys: each taken as it is by the versions that read it (library.fsdp.FSDP_TABLE)
    for row in FSDP_PLAIN:
        text, key = args.env(row.arg, lower=row.kind == "bool")
        name = f"fsdp.{row.field}"
        if version not in row.versions:
            b.put(name, None, IGNORED if key else DEFAULT, PLUGIN, _keys(key), row.unread if key else "")
        elif row.kind == "str":
            b.put(name, text, why(key), PLUGIN, _keys(key))
        elif (flag := parse_bool(text or "")) is None:
            b.fail(_keys(key), f"{row.arg} {text!r} is not true/false", PLUGIN)
        else:
            b.put(name, flag, why(key), PLUGIN, _keys(key))
    if version == 1 and b.value("fsdp.cpu_ram_efficient_loading") and b.value("fsdp.sync_module_states") is False:
        b.put("fsdp.sync_module_states", True, OVERRIDDEN, PLUGIN,
              b.values["fsdp.sync_module_states"].keys + b.values["fsdp.cpu_ram_efficient_loading"].keys,
              "cpu_ram_efficient_loading turns it on")
    if b.value("fsdp.activation_checkpointing_offload"):
        if not b.value("fsdp.activation_checkpointing"):
            b.fail(b.values["fsdp.activation_checkpointing_offload"].keys,
                   "activation_checkpointing_offload needs activation_checkpointing", PLUGIN)
        elif version != 2:
            b.fail(b.values["fsdp.activation_checkpointing_offload"].keys,
                   "activation_checkpointing_offload needs FSDP2", PLUGIN)

    # ---- mixed precision policy (Accelerator -> FullyShardedDataParallelPlugin.set_mixed_precision)
    dtype = FSDP_MIXED_PRECISION_DTYPE.get(mixed_precision)
    mkeys = ("mixed_precision",) if dtype else ()
    note = f"from mixed_precision {mixed_precision}" if dtype else ""
    b.put("fsdp.mixed_precision_policy", dtype is not None, DERIVED if dtype else DEFAULT, "Accelerator", mkeys, note)
    b.put("fsdp.param_dtype", dtype, DERIVED if dtype else DEFAULT, "Accelerator", mkeys,
          f"parameters cast to {dtype} for compute, {note}" if dtype else "")
    b.put("fsdp.reduce_dtype", dtype, DERIVED if dtype else DEFAULT, "Accelerator", mkeys, note)
    b.put("fsdp.buffer_dtype", dtype if version == 1 else None, DERIVED if dtype else DEFAULT, "Accelerator", mkeys,
          note)
    b.put("fsdp.output_dtype", dtype if version == 2 else None, DERIVED if dtype else DEFAULT, "Accelerator", mkeys,
          note)


__all__ = ["fsdp_values"]
