"""What the libraries made of one config (:class:`Effective`), as flat dotted keys, compared value by value.

:func:`flatten_effective` turns an :class:`Effective` into stable dotted keys (``fsdp.<field>``,
``deepspeed.<json path>``, ``env.<VAR>``, ...); :func:`compare` reports each expected key whose value differs as a
``verify-mismatch`` finding, with :func:`values_equal`'s equivalences (a bool and its truth word, an enum and its
name, a number and its numeric string, a torch dtype and its name, a list and its comma-separated string).

Pure: no library is imported (a torch dtype is recognised by its type's name).
"""
from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import PurePath
from typing import Any

from ..findings import ERROR, Finding
from ..vocab import FALSE_WORDS, TRUE_WORDS
from ..wizard_rules import VERIFY_MISMATCH as RULE_MISMATCH  # the registered name (docs/rules.md)

# where every verify finding points a reader (the replay's findings cite it too)
_SOURCE = "docs/library-behaviour.md#how-a-config-reaches-the-libraries; wizard/core/verify/roundtrip.py round trip"


@dataclass
class Effective:
    """What the libraries make of one accelerate config file.

    ``fsdp`` keys: fsdp_version, sharding_strategy (ShardingStrategy name, v1; None for v2),
    reshard_after_forward (bool for v2; for v1 the ShardingStrategy name of the fallback or None),
    cpu_offload, auto_wrap_policy (TRANSFORMER_BASED_WRAP / SIZE_BASED_WRAP / NO_WRAP),
    transformer_cls_names_to_wrap, min_num_params, backward_prefetch, forward_prefetch, state_dict_type,
    use_orig_params, sync_module_states, cpu_ram_efficient_loading, activation_checkpointing,
    activation_checkpointing_offload, ignored_modules, mixed_precision_policy (bool: a policy is set),
    param_dtype, reduce_dtype, buffer_dtype (v1), output_dtype (v2) (``"bfloat16"``-style names or None).

    ``deepspeed`` keys: ``config`` (the final DeepSpeed dict handed to ``deepspeed.initialize``, or the
    furthest stage reached), ``config_file`` (resolved ``deepspeed_config_file`` or None), ``zero_stage``
    and ``zero3_init_flag`` (plugin attributes), ``gradient_accumulation_steps`` (the Accelerator's value
    after ``_prepare_deepspeed``), ``validated`` (values DeepSpeedConfig derived, or None when it failed).
    """

    path: str = ""
    distributed_type: str | None = None
    num_processes: int | None = None
    num_machines: int | None = None
    env: dict[str, str] = field(default_factory=dict)
    fsdp: dict | None = None
    deepspeed: dict | None = None
    mixed_precision: str | None = None
    dynamo_backend: str | None = None
    parallelism: dict | None = None
    fp8: dict | None = None
    """The fp8 recipe accelerate built from the launch environment: ``backend`` and the recipe's fields (None: no fp8,
    or no recipe could be chosen here)."""
    fp8_installed: tuple[str, ...] | None = None
    """The fp8 backends installed where the round trip ran (None: none), which the auto pick chose from."""
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)


def flatten_effective(e: Effective) -> dict[str, object]:
    """Stable dotted keys for comparison.

    ``distributed_type``, ``num_processes``, ``num_machines``, ``mixed_precision``, ``dynamo_backend``;
    ``env.<VAR>`` for each exported variable; ``fsdp.<field>`` (see :class:`Effective`);
    ``deepspeed.<path>`` for every leaf of the final DeepSpeed dict (``deepspeed.zero_optimization.stage``,
    ``deepspeed.zero_optimization.offload_param.device``, ``deepspeed.gradient_clipping``, ...; lists and
    empty dicts are leaves); ``deepspeed_plugin.{config_file,zero_stage,zero3_init_flag,
    gradient_accumulation_steps}``; ``deepspeed_validated.<name>`` (what DeepSpeedConfig derived:
    world_size, zero_stage, offload_{param,optimizer}_{device,nvme_path}, gradient_clipping,
    gradient_accumulation_steps, train_batch_size, train_micro_batch_size_per_gpu, fp16_enabled,
    bf16_enabled, zero_allow_untested_optimizer, gather_16bit_weights_on_model_save);
    ``parallelism.<size>``; ``fp8.backend`` and ``fp8.<field>`` of the fp8 recipe. Sections that were not reached
    are absent.
    """
    out: dict[str, object] = {
        "distributed_type": e.distributed_type,
        "num_processes": e.num_processes,
        "num_machines": e.num_machines,
        "mixed_precision": e.mixed_precision,
        "dynamo_backend": e.dynamo_backend,
    }
    for name in sorted(e.env):
        out[f"env.{name}"] = e.env[name]
    if e.fsdp is not None:
        for k, v in e.fsdp.items():
            out[f"fsdp.{k}"] = v
    if e.deepspeed is not None:
        _flatten_into(e.deepspeed.get("config") or {}, "deepspeed", out)
        for k in ("config_file", "zero_stage", "zero3_init_flag", "gradient_accumulation_steps"):
            if k in e.deepspeed:
                out[f"deepspeed_plugin.{k}"] = e.deepspeed[k]
        validated = e.deepspeed.get("validated")
        if validated is not None:
            for k, v in validated.items():
                out[f"deepspeed_validated.{k}"] = v
    if e.parallelism is not None:
        for k, v in e.parallelism.items():
            out[f"parallelism.{k}"] = v
    if e.fp8 is not None:
        for k, v in e.fp8.items():
            out[f"fp8.{k}"] = v
    return out


def compare(expected: Mapping[str, object], effective: Mapping[str, object]) -> list[Finding]:
    """One ``verify-mismatch`` ERROR per expected dotted key whose effective value differs.

    A key absent from ``effective`` counts as None. Equivalences: bools vs truth strings
    (``"true"``/``"false"``/``"yes"``/``"1"``...), enum members vs their names or values, numbers vs equal
    numbers (int/float) or numeric strings, ``Path`` vs ``str`` (normalised), torch dtypes vs their names
    (``torch.bfloat16`` ~ ``"bfloat16"``), lists vs tuples vs comma-separated strings, nested dicts.
    """
    findings = []
    for key, exp in expected.items():
        got = effective.get(key)
        if not values_equal(exp, got):
            present = key in effective
            findings.append(
                Finding(
                    ERROR,
                    RULE_MISMATCH,
                    (key,),
                    f"{key}: expected {exp!r}, effective {got!r}"
                    + ("" if present else " (not present in the effective config)"),
                    source=_SOURCE,
                )
            )
    return findings


# ==================================================================================================
# The equivalences of values_equal


def _is_dtype(x: Any) -> bool:
    t = type(x)
    return t.__name__ == "dtype" and t.__module__ == "torch"


def _scalar_norm(x: Any) -> Any:
    if _is_dtype(x):
        return str(x).removeprefix("torch.")
    if isinstance(x, PurePath):
        return os.path.normpath(str(x))
    return x


def values_equal(a: Any, b: Any) -> bool:
    """Equality with the obvious equivalences documented in :func:`compare`."""
    a, b = _scalar_norm(a), _scalar_norm(b)
    if isinstance(a, Enum) or isinstance(b, Enum):
        if isinstance(a, Enum) and isinstance(b, Enum):
            return a is b or (a.name == b.name and a.value == b.value)
        enum, other = (a, b) if isinstance(a, Enum) else (b, a)
        if isinstance(other, str):
            return other in (enum.name, str(enum.value))
        return values_equal(enum.value, other)
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        if isinstance(a, bool) and isinstance(b, bool):
            return a == b
        flag, other = (a, b) if isinstance(a, bool) else (b, a)
        if isinstance(other, str):
            low = other.strip().lower()
            return low in (TRUE_WORDS if flag else FALSE_WORDS)
        return False
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return a == b
    if isinstance(a, (int, float)) != isinstance(b, (int, float)):
        num, other = (a, b) if isinstance(a, (int, float)) else (b, a)
        if isinstance(other, str):
            try:
                return float(other) == float(num)
            except ValueError:
                return False
        return False
    if isinstance(a, str) and isinstance(b, str):
        if a == b:
            return True
        if os.sep in a or os.sep in b:
            return os.path.normpath(a) == os.path.normpath(b)
        return False
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if set(a) != set(b):
            return False
        return all(values_equal(a[k], b[k]) for k in a)
    seq = (list, tuple)
    if isinstance(a, str) and isinstance(b, seq):
        a = [s.strip() for s in a.split(",")]
    elif isinstance(b, str) and isinstance(a, seq):
        b = [s.strip() for s in b.split(",")]
    if isinstance(a, seq) and isinstance(b, seq):
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _flatten_into(node: Mapping[str, Any], prefix: str, out: dict[str, object]) -> None:
    for k, v in node.items():
        key = f"{prefix}.{k}"
        if isinstance(v, Mapping) and v:
            _flatten_into(v, key, out)
        else:
            out[key] = v
