"""FSDP in accelerate 1.15: the fsdp_config keys ``accelerate launch`` reads, the environment variables it exports them
as, its argument defaults, and what ``FullyShardedDataParallelPlugin`` uses when the launcher exported nothing.
"""
from __future__ import annotations

from collections import namedtuple


class FsdpKey(namedtuple("FsdpKey", ("arg", "env", "launch_default", "field", "kind", "versions", "unread", "since",
                                     "read_back"), defaults=(None, "bool", (1, 2), "", None, True))):
    """One fsdp_config key as accelerate 1.15 reads it: the launcher's argument, the variable it is exported as,
    the launcher's default, and, for a key the plugin takes as it is (a flag or a text), the plugin field it fills.

    A *plain* key (``field`` set) needs nothing else: the effective model (:mod:`wizard.core.effective.fsdp`), the
    round trip's read-back (:mod:`wizard.core.verify.readback`), the truth-value rule of ``check`` and the release
    table (:mod:`.accelerate_versions`) are derived from its row. Keys the plugin interprets (the version, the
    sharding, the enums, the wrap policy and its arguments) have ``field`` None and code of their own there.

    A named tuple (a dataclass costs its start-up a millisecond, and this table imports nothing of the wizard):

    - ``arg``: the key as the launcher names it (``fsdp_`` prefixed, :func:`fsdp_key`);
    - ``env``: the variable ``accelerate launch`` exports it as (utils/launch.py:prepare_multi_gpu_env, :304-333);
    - ``launch_default``: the launcher's argument default (commands/launch.py ``--fsdp_*``); None: nothing is
      exported and the plugin's own default applies;
    - ``field`` (None): the plugin field a plain key fills (None: not plain);
    - ``kind`` ("bool"): how the plugin reads a plain key: ``bool`` (``str_to_bool``) or ``str`` (as written);
    - ``versions`` ((1, 2)): the FSDP versions whose plugin reads it;
    - ``unread`` (""): why the other versions do not (said when it is written under one of them);
    - ``since`` (None): the first accelerate release that reads it (older ones copy it and never read it);
    - ``read_back`` (True): the plugin keeps the value under ``field`` as it is (False: an object the read-back
      interprets).
    """

    __slots__ = ()
    arg: str
    env: str
    launch_default: object
    field: str | None
    kind: str
    versions: tuple[int, ...]
    unread: str
    since: str | None
    read_back: bool


FSDP_TABLE: tuple[FsdpKey, ...] = (
    FsdpKey("fsdp_version", "FSDP_VERSION", "1"),
    FsdpKey("fsdp_sharding_strategy", "FSDP_SHARDING_STRATEGY", "FULL_SHARD"),
    FsdpKey("fsdp_reshard_after_forward", "FSDP_RESHARD_AFTER_FORWARD", "true"),
    FsdpKey("fsdp_offload_params", "FSDP_OFFLOAD_PARAMS", "false", "cpu_offload", read_back=False),
    FsdpKey("fsdp_min_num_params", "FSDP_MIN_NUM_PARAMS", 100_000_000),
    FsdpKey("fsdp_auto_wrap_policy", "FSDP_AUTO_WRAP_POLICY", None),
    FsdpKey("fsdp_transformer_layer_cls_to_wrap", "FSDP_TRANSFORMER_CLS_TO_WRAP", None),
    FsdpKey("fsdp_backward_prefetch", "FSDP_BACKWARD_PREFETCH", None),
    FsdpKey("fsdp_state_dict_type", "FSDP_STATE_DICT_TYPE", None),
    FsdpKey("fsdp_forward_prefetch", "FSDP_FORWARD_PREFETCH", "false", "forward_prefetch", versions=(1,),
            unread="FSDP2 reads no forward_prefetch from the config"),
    FsdpKey("fsdp_use_orig_params", "FSDP_USE_ORIG_PARAMS", "true", "use_orig_params", versions=(1,),
            unread="FSDP2 has no use_orig_params"),
    FsdpKey("fsdp_cpu_ram_efficient_loading", "FSDP_CPU_RAM_EFFICIENT_LOADING", "true", "cpu_ram_efficient_loading"),
    FsdpKey("fsdp_sync_module_states", "FSDP_SYNC_MODULE_STATES", "true", "sync_module_states", versions=(1,),
            unread="FSDP2 has no sync_module_states"),
    FsdpKey("fsdp_activation_checkpointing", "FSDP_ACTIVATION_CHECKPOINTING", "false", "activation_checkpointing"),
    FsdpKey("fsdp_activation_checkpointing_offload", "FSDP_ACTIVATION_CHECKPOINTING_OFFLOAD", "false",
            "activation_checkpointing_offload", since="1.15.0"),
    FsdpKey("fsdp_ignored_modules", "FSDP_IGNORED_MODULES", None, "ignored_modules", kind="str", since="1.10.0"),
)
"""Every fsdp_config key ``accelerate launch`` reads, one row each; the tables below are derived from it."""
FSDP_PLAIN: tuple[FsdpKey, ...] = tuple(k for k in FSDP_TABLE if k.field)
"""The keys the plugin takes as they are (see :class:`FsdpKey`)."""

FSDP_ENV_TO_ARG: dict[str, str] = {k.env: k.arg for k in FSDP_TABLE}
"""The environment variable ``accelerate launch`` exports for each fsdp_config argument it reads
(utils/launch.py:prepare_multi_gpu_env, :304-333)."""
FSDP_KEYS = frozenset(FSDP_ENV_TO_ARG.values())
"""Every fsdp_config key the launcher reads (as an argument name: ``fsdp_`` prefixed)."""
FSDP_BOOL_KEYS = tuple(k.arg for k in FSDP_PLAIN if k.kind == "bool" and k.versions == (1, 2))
"""Flags both FSDP versions parse with ``str_to_bool``."""
FSDP1_BOOL_KEYS = tuple(k.arg for k in FSDP_PLAIN if k.kind == "bool" and k.versions == (1,))
"""Flags only FSDP1 reads (FSDP2 drops or ignores them)."""
FSDP_LEGACY = {"fsdp_backward_prefetch_policy": "fsdp_backward_prefetch"}
"""Old fsdp_config key names no longer read (utils/launch.py:322-323; accelerate#2275) -> the name read now."""


def fsdp_key(name: str) -> str:
    """How the launcher names an fsdp_config key (commands/launch.py:1270-1271): ``fsdp_`` prepended unless the
    key starts with ``fsdp``."""
    return name if name.startswith("fsdp") else "fsdp_" + name


LAUNCH_FSDP_DEFAULTS: dict[str, object] = {k.arg: k.launch_default for k in FSDP_TABLE}
"""``accelerate launch``'s argument defaults for the fsdp_config keys (accelerate/commands/launch.py
``launch_command_parser``, the ``--fsdp_*`` arguments). A key the YAML leaves out takes this value; ``None``: the
launcher exports nothing and the plugin's own default applies (:data:`PLUGIN_FSDP_DEFAULTS`)."""

PLUGIN_FSDP_DEFAULTS: dict[str, object] = {
    "fsdp_auto_wrap_policy": "NO_WRAP",
    "fsdp_backward_prefetch": None,
}
FSDP_STATE_DICT_DEFAULT = {1: "FULL_STATE_DICT", 2: "SHARDED_STATE_DICT"}
"""``FullyShardedDataParallelPlugin.__post_init__`` defaults when the launcher exported nothing
(accelerate/utils/dataclasses.py: ``FSDP_AUTO_WRAP_POLICY`` "NO_WRAP", ``FSDP_BACKWARD_PREFETCH`` None,
``set_state_dict_type``: FULL_STATE_DICT for FSDP1, SHARDED_STATE_DICT for FSDP2)."""

FSDP_MIXED_PRECISION_DTYPE = {"bf16": "bfloat16", "fp16": "float16", "fp8": "bfloat16"}
"""``FullyShardedDataParallelPlugin.set_mixed_precision``'s map (fp8 computes its matmuls in fp8 and the rest in
bf16); "no" sets no policy."""
