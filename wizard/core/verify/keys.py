"""Key bookkeeping for :mod:`wizard.core.verify`.

Attributes an exception raised by accelerate or DeepSpeed to the config key that caused it, through the three names a
setting has on its way through the libraries (YAML key -> launcher argument -> exported environment variable), from
the tables of :mod:`wizard.core.library` (``fsdp.FSDP_ENV_TO_ARG``, ``deepspeed.DS_ENV_TO_KEY``, ...).

Pure Python: imports nothing from torch, accelerate or deepspeed.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..library.deepspeed import DS_ENV_TO_KEY, DS_FILE_CONFLICTING_FIELDS, DS_MODEL_PREFIX, PATH_TO_INLINE
from ..library.fsdp import FSDP_ENV_TO_ARG, fsdp_key
from ..library.launcher import FP8_PARSE, FP8_RECIPE_KEYS


def fsdp_yaml_key(raw: Mapping[str, Any] | None, arg: str) -> str:
    """The dotted YAML key that feeds launcher argument ``arg`` (``fsdp_config.<key as written>``)."""
    section = (raw or {}).get("fsdp_config") or {}
    if isinstance(section, Mapping):
        for key in section:
            key_s = str(key)
            normalised = fsdp_key(key_s)
            if normalised == arg:
                return f"fsdp_config.{key_s}"
    return f"fsdp_config.{arg}"


def fp8_yaml_keys(raw: Mapping[str, Any] | None) -> dict[str, str]:
    """Launcher argument (``fp8_margin``) -> the dotted YAML key that feeds it (``fp8_config.margin``)."""
    from ..effective.fp8 import launch_arg

    section = (raw or {}).get("fp8_config") or {}
    return {launch_arg(str(k)): f"fp8_config.{k}" for k in section} if isinstance(section, Mapping) else {}


def fp8_error_keys(exc: BaseException, raw: Mapping[str, Any] | None, backend: str) -> list[str]:
    """The fp8_config keys behind a recipe's refusal: the field it names (in backticks), else the written fields it
    parses the way that failed (a truth word, an integer); ``fp8_config`` when none is written."""
    from ..effective.fp8 import launch_arg

    written = fp8_yaml_keys(raw)
    text = str(exc)
    fields = [f for f in FP8_RECIPE_KEYS[backend] if f"`{f}`" in text]
    if not fields:
        kinds = ("flag", "flags3") if "truth value" in text else ("int",) if "int()" in text else ()
        fields = [f for f in FP8_RECIPE_KEYS[backend] if FP8_PARSE[f] in kinds]
    return [written[launch_arg(f)] for f in fields if launch_arg(f) in written] or ["fp8_config"]


def ds_yaml_key(key: str) -> str:
    if key == "mixed_precision":
        return "mixed_precision"
    return f"deepspeed_config.{key}"


# --------------------------------------------------------------------------------------------------
# Attribution of exceptions to keys


def _quoted_tokens(text: str) -> list[str]:
    return re.findall(r"'([^']*)'", text)


def _value_tokens(exc: BaseException) -> list[str]:
    """Candidate offending values mentioned by the exception."""
    text = str(exc)
    tokens: list[str] = []
    if isinstance(exc, KeyError) and exc.args:
        tokens.append(str(exc.args[0]))
    m = re.search(r"invalid truth value (\S+)", text)
    if m:
        tokens.append(m.group(1))
    m = re.search(r"could not convert string to float: '([^']*)'", text)
    if m:
        tokens.append(m.group(1))
    m = re.search(r"invalid literal for int\(\) with base \d+: '([^']*)'", text)
    if m:
        tokens.append(m.group(1))
    return tokens


def _match_env_by_value(tokens: Iterable[str], env: Mapping[str, str], names: Iterable[str]) -> list[str]:
    """Env var names (among ``names``) whose value equals one of ``tokens``: exact first, then case-insensitive."""
    names = [n for n in names if n in env]
    for exact in (True, False):
        hits = []
        for name in names:
            value = env[name]
            for tok in tokens:
                if (value == tok) if exact else (value.lower() == tok.lower()):
                    hits.append(name)
                    break
        if hits:
            return hits
    return []


_FSDP_MESSAGE_KEYS: tuple[tuple[str, str], ...] = (
    ("FSDP2 requires PyTorch", "fsdp_version"),
    ("reshard_after_forward", "fsdp_reshard_after_forward"),
    ("Invalid auto wrap policy", "fsdp_auto_wrap_policy"),
    ("min_num_params", "fsdp_min_num_params"),
    ("activation_checkpointing_offload", "fsdp_activation_checkpointing_offload"),
    ("LOCAL_STATE_DICT", "fsdp_state_dict_type"),
    ("forward_prefetch", "fsdp_forward_prefetch"),
    ("cpu_offload", "fsdp_offload_params"),
)


def fsdp_error_keys(exc: BaseException, env: Mapping[str, str], raw: Mapping[str, Any] | None) -> list[str]:
    """Keys for an exception raised while building FullyShardedDataParallelPlugin from ``env``."""
    version = env.get("FSDP_VERSION")
    if version is not None and version not in ("1", "2"):
        # An out-of-range version falls through both branches and fails somewhere unrelated
        # (docs/library-behaviour.md#fsdp-version).
        return [fsdp_yaml_key(raw, "fsdp_version")]
    text = str(exc)
    for needle, arg in _FSDP_MESSAGE_KEYS:
        if needle in text:
            return [fsdp_yaml_key(raw, arg)]
    hits = _match_env_by_value(_value_tokens(exc), env, FSDP_ENV_TO_ARG)
    if len(hits) == 1:
        return [fsdp_yaml_key(raw, FSDP_ENV_TO_ARG[hits[0]])]
    return []


def ds_plugin_error_keys(exc: BaseException, env: Mapping[str, str]) -> list[str]:
    """Keys for an exception raised by DeepSpeedPlugin() / set_mixed_precision."""
    text = str(exc)
    if "When using `deepspeed_config_file`" in text:
        fields = [f for f in env.get("ACCELERATE_CONFIG_DS_FIELDS", "").split(",") if f]
        bad = [ds_yaml_key(f) for f in fields if f in DS_FILE_CONFLICTING_FIELDS]
        return bad or ["deepspeed_config.deepspeed_config_file"]
    if "--mixed_precision` arg cannot be set" in text or "MS-AMP" in text:
        return ["mixed_precision"]
    if (
        "ZeRO optimization config" in text
        or "existing deepspeed config" in text
        or type(exc).__name__ == "JSONDecodeError"
    ):
        return ["deepspeed_config.deepspeed_config_file"]
    if "could not convert string to float" in text:
        return ["deepspeed_config.gradient_clipping"]
    hits = _match_env_by_value(_value_tokens(exc), env, DS_ENV_TO_KEY)
    if len(hits) == 1:
        return [ds_yaml_key(DS_ENV_TO_KEY[hits[0]])]
    return []


def ds_config_error_keys(exc: BaseException, config: Mapping[str, Any] | None, inline: bool) -> list[str]:
    """Keys for an exception raised while filling "auto" values or by deepspeed's DeepSpeedConfig.

    ``inline``: the DeepSpeed dict was built from YAML ``deepspeed_config`` keys, so DS paths are
    translated back to YAML keys where a mapping exists; otherwise the DS path (a key of the JSON file)
    is returned.
    """
    paths = _ds_paths_for(exc, config or {})
    if not inline:
        return paths
    out = []
    for p in paths:
        if p in PATH_TO_INLINE:
            out.append(ds_yaml_key(PATH_TO_INLINE[p]))
        elif p in ("fp16.enabled", "bf16.enabled"):
            out.append("mixed_precision")
        # other DS paths have no inline YAML key: the caller falls back to the file
    return list(dict.fromkeys(out))


def _ds_paths_for(exc: BaseException, config: Mapping[str, Any]) -> list[str]:
    text = str(exc)
    # pydantic ValidationError: title names the model, errors() the location inside it.
    errors = getattr(exc, "errors", None)
    title = getattr(exc, "title", None)
    if callable(errors) and title is not None:
        prefix = DS_MODEL_PREFIX.get(str(title), "")
        paths = []
        try:
            for err in errors():
                loc = ".".join(str(part) for part in err.get("loc", ()))
                paths.append(".".join(x for x in (prefix, loc) if x))
        except Exception:  # pragma: no cover - defensive
            paths = []
        if paths:
            return list(dict.fromkeys(paths))
        if prefix:
            return [prefix]
    m = re.search(r"`([\w.]+)` not found in kwargs", text)
    if m:
        return [m.group(1)]
    if "model.config" in text or "hidden_size" in text:
        listed = re.search(r"\[([^\]]*)\]", text)
        if listed:
            keys = _quoted_tokens(listed.group(1))
            if keys:
                return keys
    if "train_batch_size" in text or "Check batch related parameters" in text or "Micro batch size" in text:
        return ["train_batch_size"]
    if "Gradient accumulation steps" in text:
        return ["gradient_accumulation_steps"]
    if "bfloat16 and fp16" in text:
        return ["fp16.enabled", "bf16.enabled"]
    if "communication_data_type" in text:
        return ["communication_data_type"]
    if "gradient_allreduce_op" in text:
        return ["gradient_allreduce_op"]
    if "Partial offloading" in text:
        return ["zero_optimization.offload_optimizer.ratio"]
    if "compute_grad_norm" in text:
        return ["zero_optimization.compute_grad_norm"]
    if type(exc).__name__ == "DeepSpeedConfigError":
        removed = _removed_key_present(config)
        if removed:
            return [removed]
    return []


def _removed_key_present(config: Mapping[str, Any]) -> str | None:
    try:  # only called after deepspeed was imported by verify
        from deepspeed.runtime import config as ds_config_mod
    except Exception:  # pragma: no cover
        return None
    for key in getattr(ds_config_mod, "_REMOVED_TOP_LEVEL_CONFIG_KEYS", {}):
        if key in config:
            return key
    zero = config.get("zero_optimization")
    if isinstance(zero, Mapping):
        for key in getattr(ds_config_mod, "_REMOVED_ZERO_CONFIG_KEYS", {}):
            if key in zero:
                return f"zero_optimization.{key}"
    return None


def load_error_keys(exc: BaseException) -> list[str]:
    text = str(exc)
    m = re.search(r"had unknown keys \((\[[^\]]*\])\)", text)
    if m:
        return _quoted_tokens(m.group(1))
    if "`distributed_type` must be specified" in text:
        return ["distributed_type"]
    if "is not a valid DistributedType" in text or "is not a valid ComputeEnvironment" in text:
        return ["distributed_type" if "DistributedType" in text else "compute_environment"]
    return []


def launch_error_keys(exc: BaseException, raw: Mapping[str, Any] | None) -> list[str]:
    text = str(exc)
    if "mixed_precision" in text or "FP8 is not available" in text:
        return ["mixed_precision"]
    if "dynamo backend" in text:
        return ["dynamo_config.dynamo_backend"]
    if "fsdp_cpu_ram_efficient_loading" in text:
        return [
            fsdp_yaml_key(raw, "fsdp_cpu_ram_efficient_loading"),
            fsdp_yaml_key(raw, "fsdp_sync_module_states"),
        ]
    if "num_processes" in text:
        return ["num_processes"]
    if "GPU ids" in text:
        return ["gpu_ids"]
    if "--use_parallelism_config" in text:
        return ["parallelism_config"]
    if "nossh" in text:
        return ["deepspeed_config.deepspeed_multinode_launcher"]
    if "main_process_port" in text:
        return ["main_process_port"]
    return []
