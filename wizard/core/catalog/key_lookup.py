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

For ``explain`` a name may also be a key's last part alone (``zero3_init_flag``: :func:`settings_for_name`), words the
settings' ids, titles and keys hold (``dynamo``: :func:`settings_mentioning`, the palette's search) or a typo of
either (:func:`near_names`).
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


def _leaf_names(key: str) -> tuple[str, ...]:
    """A key's last part, and as it may be typed without accelerate's section prefix (``fsdp_``, ``dynamo_``)."""
    leaf = key.rsplit(".", 1)[-1]
    return tuple(dict.fromkeys((leaf, leaf.removeprefix("fsdp_"), leaf.removeprefix("dynamo_"))))


def settings_for_name(name: str) -> dict[str, tuple[str, ...]]:
    """setting id -> the keys it writes that ``name`` names: a key in full, read as accelerate reads it
    (``fsdp_config.min_num_params``, ``zero_optimization.stage``, ``deepspeed_config.zero3_init_flag``), or its last
    part alone (``zero3_init_flag``, ``min_num_params``). Empty when ``name`` is no key the settings write (a setting
    id is not a key: :func:`setting_for_key` takes both)."""
    from .settings import SETTING_BY_ID, SETTINGS

    if "." in name and name not in SETTING_BY_ID:
        sid = setting_for_key(name)
        if sid is not None:
            return {sid: (name,)}
    found: dict[str, list[str]] = {}
    for s in SETTINGS:
        for writes in s.writes.values():
            for w in writes:
                if name in _leaf_names(w.key) and w.key not in found.get(s.id, []):
                    found.setdefault(s.id, []).append(w.key)
    return {sid: tuple(keys) for sid, keys in found.items()}


def settings_mentioning(query: str) -> list[str]:
    """The settings whose id, title or config keys hold every word of ``query`` (case-insensitive), in catalogue
    order: the search of the TUI's command palette, for ``explain``."""
    from .settings import SETTINGS

    words = query.lower().split()
    if not words:
        return []
    out = []
    for s in SETTINGS:
        keys = " ".join(w.key for writes in s.writes.values() for w in writes)
        text = f"{s.id} {s.label} {keys}".lower()
        if all(word in text for word in words):
            out.append(s.id)
    return out


def near_names(name: str, n: int = 3) -> list[tuple[str, tuple[str, ...]]]:
    """(name, setting ids) of the setting ids and config key names closest to ``name`` (a typo's did-you-mean). A
    key name comes with every setting that writes it, the one a finding is blamed on first
    (:data:`.writes.SHARED_KEY_BLAME`): FSDP's ``fsdp_offload_params`` is written by offload.params and
    offload.optimizer alike."""
    import difflib

    from .settings import SETTINGS
    from .writes import SHARED_KEY_BLAME

    ids = {s.id for s in SETTINGS}
    names: dict[str, list[str]] = {}
    for s in SETTINGS:
        names.setdefault(s.id, [s.id])
        for writes in s.writes.values():
            for w in writes:
                for leaf in _leaf_names(w.key):
                    sids = names.setdefault(leaf, [])
                    if s.id not in sids and leaf not in ids:
                        sids.append(s.id)
    for key, first in SHARED_KEY_BLAME.items():
        for leaf in _leaf_names(key):
            if first in names.get(leaf, ()):
                names[leaf] = [first, *(sid for sid in names[leaf] if sid != first)]
    return [(c, tuple(names[c])) for c in difflib.get_close_matches(name, list(names), n=n)]
