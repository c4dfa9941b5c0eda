"""What the catalogue's :class:`~.model.Write` declarations add up to: the rules of the one-to-one keys, and the
maps the rest of the wizard derives from them (key -> setting, the one table of it; library spelling -> answer value;
the library names people bring to answers.yaml). Everything here is computed on first use, never at import."""
from __future__ import annotations

from functools import cache, lru_cache

from ..library.deepspeed import DS_FILE_CONFLICTING_FIELDS
from .model import CUSTOM, DEEPSPEED, JSON, TARGETS, YAML, Setting, Write
from .settings import FIXED_KEYS, SETTINGS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

NOT_FOUND: Any = object()
"""What :func:`answer_value` returns for a spelling no answer value is written as."""


def inline_only(write: Write, target: str) -> bool:
    """A YAML key that accelerate refuses beside a DeepSpeed JSON (``zero_stage``, ``mixed_precision``): written only
    when there is no JSON (the JSON then carries the value)."""
    if target != DEEPSPEED or write.file != YAML:
        return False
    section, _, name = write.key.rpartition(".")
    return section in ("", "deepspeed_config") and name in DS_FILE_CONFLICTING_FIELDS


def needs_json(setting: Setting, write: Write, target: str) -> bool:
    """A one-to-one DeepSpeed JSON key with no inline twin: accelerate drops unknown inline keys
    (docs/library-behaviour.md#ds-inline-config), so a value for it makes the DeepSpeed JSON necessary."""
    return (target == DEEPSPEED and write.file == JSON and write.when != CUSTOM
            and not any(inline_only(w, target) for w in setting.writes.get(target, ())))


@cache
def one_to_one(target: str) -> tuple[tuple[Setting, Write], ...]:
    """Every (setting, write) the catalogue's rule writes on ``target`` (not :data:`~.model.CUSTOM`), in catalogue
    order."""
    return tuple((s, w) for s in SETTINGS for w in s.writes.get(target, ()) if w.when != CUSTOM)


def spelling(write: Write, value: Any) -> Any:
    """How the library spells an answer value at this key."""
    return write.values[value] if write.values is not None else value


def effective_key(write: Write) -> str:
    """Where ``--verify`` reads this key's value back ("" when it is not compared one-to-one)."""
    if write.effective:
        return write.effective
    return "deepspeed." + write.key if write.file == JSON and write.when != CUSTOM else ""


def answer_value(setting: Setting, target: str, key: str, spelled: Any) -> Any:
    """The answer value that ``spelled`` at ``key`` stands for: the inverse of the target's map, then of the other
    targets' maps of the same key (an FSDP2 file may still say ``LOCAL_STATE_DICT``); the spelling itself when the key
    is written as it is; :data:`NOT_FOUND` when no answer value is written that way."""
    for t in (target, *(t for t in TARGETS if t != target)):
        for w in setting.writes.get(t, ()):
            if w.key != key:
                continue
            if w.values is None:
                return spelled
            for value, spelled_as in w.values.items():
                if spelled_as == spelled and type(spelled_as) is type(spelled):
                    return value
    return NOT_FOUND


SHARED_KEY_BLAME = {"fsdp_config.fsdp_offload_params": "offload.params",
                    "fp8_config.override_linear_precision": "precision.fp8_override_fprop",
                    "parallelism_config.parallelism_config_dp_shard_size": "sharding.strategy",
                    "parallelism_config.parallelism_config_dp_replicate_size": "sharding.strategy"}
"""A key several settings write -> the one a finding about the key is blamed on (where the TUI jumps, what ``check``
and ``--headless`` name) when no answer decided it alone. FSDP's one offload switch is named for the parameters, and
the optimizer step follows them; dp_shard_size is FSDP2's sharding (DeepSpeed's Ulysses writes it too, as processes
/ sp); dp_replicate_size is written by hybrid sharding, its size an answer of its own only when given. A key
several settings write must be listed here (tests/unit/test_key_lookup.py)."""


@lru_cache(maxsize=1)
def settings_of_key() -> dict[str, tuple[str, ...]]:
    """Every key the wizard writes (accelerate YAML dotted path, or DeepSpeed JSON path) -> every setting that writes
    it, on any target: the one a finding is blamed on first (:data:`SHARED_KEY_BLAME`), then catalogue order. The one
    table of "which setting writes this key": :func:`key_to_setting`, :func:`.key_lookup.setting_for_key` and the
    renderer's ``Rendered.shared`` read it."""
    out: dict[str, list[str]] = {key: [sid] for key, (_, sid) in FIXED_KEYS.items()}
    for s in SETTINGS:
        for t in TARGETS:
            for w in s.writes.get(t, ()):
                sids = out.setdefault(w.key, [])
                if s.id not in sids:
                    sids.append(s.id)
    for key, first in SHARED_KEY_BLAME.items():
        out[key] = [first, *(sid for sid in out[key] if sid != first)]
    return {key: tuple(sids) for key, sids in out.items()}


@lru_cache(maxsize=1)
def key_to_setting() -> dict[str, str]:
    """Every key the wizard writes -> the setting a finding about it is blamed on (the first of
    :func:`settings_of_key`)."""
    return {key: sids[0] for key, sids in settings_of_key().items()}


@cache
def keys_of(setting_id: str) -> tuple[tuple[str, str], ...]:
    """(file, key) of every key a setting is written to, on any target, in declaration order."""
    from .settings import SETTING_BY_ID

    s = SETTING_BY_ID[setting_id]
    found: dict[tuple[str, str], None] = {}
    for t in TARGETS:
        for w in s.writes.get(t, ()):
            found.setdefault((w.file, w.key), None)
    return tuple(found)


def _word(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


@lru_cache(maxsize=1)
def native_names() -> dict[str, str]:
    """A library's name for a key (its last part, also without ``fsdp_``) -> where the same intent lives in
    answers.yaml, with the map of values when the library spells them differently: ``zero_stage`` ->
    ``sharding.strategy (full = 3, grads_optimizer = 2, ...)``."""
    ids: dict[str, list[str]] = {}
    detail: dict[str, str] = {}
    for s in SETTINGS:
        for t in TARGETS:
            for w in s.writes.get(t, ()):
                leaf = w.key.rsplit(".", 1)[-1]
                for name in dict.fromkeys((leaf, leaf.removeprefix("fsdp_"))):
                    sids = ids.setdefault(name, [])
                    if s.id not in sids:
                        sids.append(s.id)
                    if (w.values is not None and name not in detail
                            and any(_word(v) != _word(sp) for v, sp in w.values.items())):
                        detail[name] = ", ".join(f"{v} = {_word(sp)}" for v, sp in w.values.items())
    out = {}
    for name, sids in ids.items():
        text = " and ".join(sids)
        if len(sids) == 1 and name in detail:
            text += f" ({detail[name]})"
        out[name] = text
    return out
