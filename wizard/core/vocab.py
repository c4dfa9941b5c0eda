"""The libraries' own spellings, in one place: enum names, legacy codes, truth words, and how accelerate parses a
YAML value. Which keys the libraries read, their environment variables, defaults and releases are tables of
:mod:`wizard.core.library`.

Everything here is what accelerate 1.15, torch 2.13 and DeepSpeed 0.19 spell or accept (file:line references
relative to site-packages); the wizard's own vocabulary (answer values such as ``full`` or ``pre``) lives in the
catalogue, which maps it onto these names. Pure data and pure functions: no import of the libraries, no import of
the rest of the wizard, so the linter, the importer, ``--verify``, the DeepSpeed schema and the run checklist can
all use it.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

# ----------------------------------------------------------------------------------------------------------------
# truth words
# ----------------------------------------------------------------------------------------------------------------
TRUE_WORDS = frozenset({"y", "yes", "t", "true", "on", "1"})
FALSE_WORDS = frozenset({"n", "no", "f", "false", "off", "0"})
"""accelerate's ``str_to_bool`` (utils/environment.py:59-71) and pydantic's lax bool parsing (DeepSpeed's config
models) accept the same words, compared lower-case."""


def parse_bool(value: Any) -> bool | None:
    """accelerate's ``str_to_bool(str(value))``: True/False, or None when it would raise."""
    s = str(value).lower()
    if s in TRUE_WORDS:
        return True
    if s in FALSE_WORDS:
        return False
    return None


def is_true_word(value: Any) -> bool:
    """A string that reads as true once stripped and lower-cased (``" Yes"``); anything else, False."""
    return isinstance(value, str) and value.strip().lower() in TRUE_WORDS


def bool_word(value: Any) -> bool | None:
    """A string that is a truth word once stripped and lower-cased: its bool, else None."""
    if not isinstance(value, str):
        return None
    s = value.strip().lower()
    return True if s in TRUE_WORDS else False if s in FALSE_WORDS else None


# ----------------------------------------------------------------------------------------------------------------
# numbers as accelerate reads them
# ----------------------------------------------------------------------------------------------------------------
def parse_int(value: Any) -> int | None:
    """``int(str(value))`` as the plugins do: ``1e8`` (a string in YAML) and ``2.0`` fail."""
    if isinstance(value, bool):
        return None
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def as_int(value: Any) -> int | None:
    """A YAML/JSON number that is a whole number (bool excluded)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def whole_number(value: Any) -> int | None:
    """A whole number, also from a numeric string such as ``'1e8'`` (which accelerate itself would reject): what
    a config *means*, for the importer."""
    number = as_int(value)
    if number is not None or not isinstance(value, str):
        return number
    try:
        parsed = float(value)
    except ValueError:
        return None
    return int(parsed) if parsed.is_integer() else None


# ----------------------------------------------------------------------------------------------------------------
# FSDP enum names (torch.distributed.fsdp, accelerate/utils/constants.py)
# ----------------------------------------------------------------------------------------------------------------
SHARDING_STRATEGIES = ("FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD", "HYBRID_SHARD", "HYBRID_SHARD_ZERO2")
"""FSDP1 ``ShardingStrategy`` names, in the order of their legacy digit codes 1-5 (utils/dataclasses.py:1844-1853).
torch spells the last member with a leading underscore (``ShardingStrategy._HYBRID_SHARD_ZERO2``)."""
HYBRID_STRATEGIES = ("HYBRID_SHARD", "HYBRID_SHARD_ZERO2")
WRAP_POLICIES = ("TRANSFORMER_BASED_WRAP", "SIZE_BASED_WRAP", "NO_WRAP")
BACKWARD_PREFETCH = ("BACKWARD_PRE", "BACKWARD_POST")
"""``BackwardPrefetch`` names, in the order of their legacy digit codes 1-2 (utils/dataclasses.py:1892-1902)."""
NO_PREFETCH = "NO_PREFETCH"
"""accelerate's name for "no backward prefetch" (the plugin stores None)."""
STATE_DICT_TYPES = ("FULL_STATE_DICT", "LOCAL_STATE_DICT", "SHARDED_STATE_DICT")
"""``StateDictType`` names, in the order of their legacy digit codes 1-3 (utils/dataclasses.py:2047-2056)."""


def _legacy(value: Any, names: tuple[str, ...]) -> str | None:
    """A name of ``names`` (any case), or its 1-based digit code, as the plugin reads ``str(value)``."""
    s = str(value)
    if s.upper() in names:
        return s.upper()
    if s.isdigit():  # what the plugin tests; int() then refuses digits such as "¹" (the plugin raises too)
        try:
            n = int(s)
        except ValueError:
            return None
        return names[n - 1] if 1 <= n <= len(names) else None
    return None


def sharding_strategy_name(value: Any) -> str | None:
    """The ShardingStrategy name FSDP1 makes of a value (a name, 1-5, torch's ``_HYBRID_SHARD_ZERO2``), or None
    when the plugin would raise."""
    name = _legacy(value, SHARDING_STRATEGIES)
    if name is None and str(value).upper() == "_HYBRID_SHARD_ZERO2":
        return "HYBRID_SHARD_ZERO2"
    return name


def backward_prefetch_name(value: Any) -> tuple[bool, str | None]:
    """(valid, BACKWARD_PRE/BACKWARD_POST/None) as the plugin parses a value (NO_PREFETCH means None)."""
    if str(value).upper() == NO_PREFETCH:
        return True, None
    name = _legacy(value, BACKWARD_PREFETCH)
    return (name is not None), name


def state_dict_type_name(value: Any) -> str | None:
    """The StateDictType name of a value (a name or 1-3), or None when the plugin would raise."""
    return _legacy(value, STATE_DICT_TYPES)


def wrap_policy_name(value: Any) -> str | None:
    """The auto wrap policy name of a string value (any case; no digit codes), or None."""
    return value.upper() if isinstance(value, str) and value.upper() in WRAP_POLICIES else None


def fsdp_enum_name(key: str, value: Any) -> Any:
    """The canonical spelling of an enum-valued fsdp_config value (``fsdp_backward_prefetch: 1`` -> BACKWARD_PRE),
    or the value unchanged when ``key`` is not enum-valued; None for a value the plugin cannot read."""
    if key == "fsdp_sharding_strategy":
        return sharding_strategy_name(value)
    if key in ("fsdp_backward_prefetch", "fsdp_backward_prefetch_policy"):
        valid, name = backward_prefetch_name(value)
        return (name or NO_PREFETCH) if valid else None
    if key == "fsdp_state_dict_type":
        return state_dict_type_name(value)
    if key == "fsdp_auto_wrap_policy":
        return wrap_policy_name(value)
    return value
