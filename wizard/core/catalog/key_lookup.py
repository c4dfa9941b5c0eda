"""Config key -> the setting behind it, for a finding's key (the TUI's jump, ``check``'s findings mapped to answers).

A finding about a config names the file's keys (``fsdp_config.fsdp_min_num_params``, ``zero_optimization.stage``,
``deepspeed_config.zero_stage``). The one table of which setting writes which key is the catalogue's
(:func:`wizard.core.catalog.writes.key_to_setting`); this module only reads a key the way accelerate does before
looking it up there:

* the spellings accelerate treats the same (``fsdp_config.min_num_params`` without the prefix);
* a deepspeed_config or parallelism_config key named like a top-level launch setting (``num_processes``) is that
  setting: the launcher copies those sections' keys flat onto its arguments;
* a DeepSpeed key under ``deepspeed_config``: an inline key stands for its path in the DeepSpeed dict
  (``offload_param_nvme_path``), a DeepSpeed JSON key written inline for itself;
* a key inside a block the table knows (``zero_optimization.offload_param.buffer_size``), and an offload block named
  as a whole, by where its device is written.
"""
from __future__ import annotations

from ..library.deepspeed import INLINE_TO_PATH
from ..library.launcher import CLUSTER_FIELDS, GENERAL_ARGS


def _spellings(key: str) -> list[str]:
    """The key as written, then the spellings accelerate treats the same."""
    out = [key]
    section, _, name = key.partition(".")
    if section == "fsdp_config" and name and not name.startswith("fsdp_"):
        out.append(f"fsdp_config.fsdp_{name}")
    if section == "dynamo_config" and name and not name.startswith("dynamo_"):
        out.append(f"dynamo_config.dynamo_{name}")
    if section == "parallelism_config" and name and not name.startswith("parallelism_config_"):
        out.append(f"parallelism_config.parallelism_config_{name}")
    if section in ("deepspeed_config", "parallelism_config") and name in GENERAL_ARGS:
        out.append(name)
    elif section == "deepspeed_config" and name and name not in CLUSTER_FIELDS:
        out.append(INLINE_TO_PATH.get(name, name))
    return out


def _candidates(spelling: str) -> list[str]:
    """The key, then the blocks around it (never a whole section), each also by the key of its device."""
    out = [spelling]
    parent = spelling
    while parent.count(".") > 1:
        parent = parent.rsplit(".", 1)[0]
        out.append(parent)
    return [k for c in out for k in (c, c + ".device")]


def setting_for_key(key: str) -> str | None:
    """The setting that controls ``key`` (a config key or an answer id), or None."""
    from .settings import SETTING_BY_ID
    from .writes import key_to_setting

    if key in SETTING_BY_ID:
        return key
    table = key_to_setting()
    for spelling in _spellings(key):
        for candidate in _candidates(spelling):
            if candidate in table:
                return table[candidate]
    return None
