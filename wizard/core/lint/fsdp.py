"""FSDP rules: what FullyShardedDataParallelPlugin makes of the fsdp_config values (docs/library-behaviour.md, FSDP).

Every value goes through ``accelerate launch`` first: the launcher exports ``str(value)`` (some lower-cased) and
always exports its own defaults for keys the YAML omits (commands/launch.py:513-610), e.g.
``FSDP_SHARDING_STRATEGY=FULL_SHARD``, ``FSDP_USE_ORIG_PARAMS=true``, ``FSDP_CPU_RAM_EFFICIENT_LOADING=true``.
"""
from __future__ import annotations

from ..context import in_spec
from ..library.accelerate_versions import FSDP_VERSION_SINCE
from ..library.fsdp import FSDP_PLAIN
from ..vocab import HYBRID_STRATEGIES, WRAP_POLICIES
from ..vocab import backward_prefetch_name as _prefetch_of
from ..vocab import sharding_strategy_name as strategy_of
from ..vocab import state_dict_type_name as _state_dict_of
from .base import DOC, ERROR, INFO, WARNING, A, ConfigCheck, fsdp_key, kv, parse_bool, parse_int, rule, truthy

D = A + "utils/dataclasses.py"
L = A + "utils/launch.py"
V2 = {"accelerate": ">=" + FSDP_VERSION_SINCE}  # FSDP2 (fsdp_version, fsdp_reshard_after_forward) exists since then

VERSION_BAD = rule("fsdp-version-invalid", ERROR, "fsdp_version must be 1 or 2",
                   DOC + "fsdp-version; " + A + "commands/launch.py:513-518, " + D + ":1830-1875",
                   claims=("fsdp-version-default-1-unchecked",), versions=V2)
VERSION_DEFAULT = rule("fsdp-version-default", INFO, "fsdp_version omitted: the launcher runs FSDP1",
                       DOC + "fsdp-version; " + A + "commands/launch.py:513-518",
                       claims=("fsdp-version-default-1-unchecked", "accelerate-config-fsdp-questions"), versions=V2)
STRATEGY_BAD = rule("fsdp1-sharding-strategy-invalid", ERROR, "FSDP1 sharding strategy not a name or 1-5",
                    DOC + "fsdp1-sharding-strategy; " + D + ":1844-1853",
                    claims=("fsdp1-reads-sharding-strategy-only", "fsdp-plugin-rejects-unknown-names"))
V2_STRATEGY_SAME = rule("fsdp2-sharding-strategy-ignored", WARNING,
                        "FSDP2 never reads fsdp_sharding_strategy (same effect as reshard_after_forward here)",
                        DOC + "fsdp2-reshard-after-forward; " + D + ":1844-1862",
                        claims=("fsdp2-ignores-v1-keys", "fsdp-reshard-after-forward"),
                      versions=V2)
V2_STRATEGY_LOST = rule("fsdp2-sharding-strategy-lost", ERROR,
                        "FSDP2 never reads fsdp_sharding_strategy and the effective sharding differs",
                        DOC + "fsdp2-reshard-after-forward; " + D + ":1844-1862; accelerate/commands/to_fsdp2.py:51-58",
                        claims=("fsdp2-ignores-v1-keys", "fsdp-reshard-after-forward",
                                "fsdp2-hybrid-from-parallelism-config"), versions=V2)
V1_RESHARD_SAME = rule("fsdp1-reshard-after-forward-ignored", WARNING,
                       "FSDP1 ignores fsdp_reshard_after_forward under launch (same strategy anyway)",
                       DOC + "fsdp1-sharding-strategy; " + L + ":313-315, " + D + ":1844-1856",
                       claims=("fsdp1-reads-sharding-strategy-only", "fsdp-version-default-1-unchecked"))
V1_RESHARD_LOST = rule("fsdp1-reshard-after-forward-lost", ERROR,
                       "FSDP1 ignores fsdp_reshard_after_forward under launch; the strategy silently differs",
                       DOC + "fsdp1-sharding-strategy; accelerate/commands/config/cluster.py:408-414; " + L
                       + ":313-315, " + D + ":1844-1856",
                       claims=("fsdp1-reads-sharding-strategy-only", "fsdp-version-default-1-unchecked",
                               "fsdp2-ignores-v1-keys"))
V2_RESHARD_BAD = rule("fsdp2-reshard-after-forward-invalid", ERROR, "FSDP2 reshard_after_forward must be a bool",
                      DOC + "fsdp2-reshard-after-forward; " + D + ":1856-1880, accelerate/utils/environment.py:59-71",
                      claims=("fsdp2-ignores-v1-keys", "fsdp-flags-str-to-bool", "fsdp-reshard-after-forward"),
                      versions=V2)
BOOL_BAD = rule("fsdp-bool-invalid", ERROR, "An FSDP flag that str_to_bool cannot parse",
                DOC + "fsdp-key-mapping; " + D + ":1887, 1939-1980; accelerate/utils/environment.py:59-71",
                keys="the fsdp_config flag, as written", claims=("fsdp-flags-str-to-bool",))
WRAP_BAD = rule("fsdp-auto-wrap-policy-invalid", ERROR, "Unknown auto wrap policy", DOC + "fsdp-auto-wrap-policy; "
                + D + ":1909-1915", claims=("fsdp-plugin-rejects-unknown-names",))
WRAP_NONE = rule("fsdp-no-wrap-policy", WARNING,
                 "No auto wrap policy: FSDP1 makes the whole model one unit, FSDP2 keeps all blocks in the root's",
                 DOC + "fsdp-auto-wrap-policy; " + D + ":1908-1910",
                 claims=("fsdp-wrap-policy-missing-is-no-wrap", "fsdp2-embedding-and-head-units",
                         "fsdp-collectives-per-unit"))
WRAP_NO_CLS = rule("fsdp-transformer-wrap-no-classes", INFO,
                   "TRANSFORMER_BASED_WRAP without class names uses the model's _no_split_modules",
                   DOC + "fsdp-auto-wrap-policy; " + D + ":2085-2100", claims=("fsdp-transformer-layer-classes",))
CLS_BAD = rule("fsdp-wrap-classes-invalid", ERROR, "Wrap class names that can never match a module class",
               DOC + "fsdp-auto-wrap-policy; " + D + ":1925-1926, 2090-2095, 3228-3245",
               claims=("fsdp-transformer-layer-classes", "launch-section-keys-copied-flat"))
CLS_UNUSED = rule("fsdp-wrap-classes-unused", ERROR,
                  "Class names under a size-based or no wrap policy: never read, so those classes are not wrapped",
                  DOC + "fsdp-auto-wrap-policy; " + D + ":1921-1934", claims=("fsdp-transformer-layer-classes",))
MIN_BAD = rule("fsdp-min-num-params-invalid", ERROR, "fsdp_min_num_params must be an integer (not 1e8)",
               DOC + "fsdp-min-num-params; " + L + ":317, " + D + ":1927-1934", claims=("fsdp-min-num-params-int",))
MIN_UNUSED = rule("fsdp-min-num-params-unused", ERROR,
                  "A size threshold under a transformer-based or no wrap policy: never read, so no size-based "
                  "wrapping happens", DOC + "fsdp-min-num-params; " + D
                  + ":1921-1934 (read only in the SIZE_BASED_WRAP branch)",
                  claims=("fsdp-min-num-params-size-policy-only",))
MIN_UNUSED_HARMLESS = rule("fsdp-min-num-params-unused-harmless", WARNING,
                           "fsdp_min_num_params 0 under a transformer-based or no wrap policy: never read, and 0 "
                           "(no size threshold) is what happens anyway", DOC + "fsdp-min-num-params; " + D
                           + ":1921-1934", claims=("fsdp-min-num-params-size-policy-only",))
MIN_ZERO = rule("fsdp-min-num-params-zero", ERROR, "SIZE_BASED_WRAP with min_num_params <= 0 drops the policy",
                DOC + "fsdp-min-num-params; " + D + ":2102-2107; " + A + "utils/fsdp_utils.py:935-970",
                claims=("fsdp-min-num-params-zero-no-policy",))
PREFETCH_BAD = rule("fsdp-backward-prefetch-invalid", ERROR, "Unknown backward prefetch value",
                    DOC + "fsdp-prefetch; " + D + ":1892-1902", claims=("fsdp-plugin-rejects-unknown-names",))
V2_PREFETCH_SAME = rule("fsdp2-backward-prefetch-ignored", WARNING, "FSDP2 has no backward prefetch (NO_PREFETCH)",
                        DOC + "fsdp-prefetch; " + D + ":1903-1905", claims=("fsdp2-drops-prefetch-keys",), versions=V2)
V2_PREFETCH_LOST = rule("fsdp2-backward-prefetch-lost", ERROR, "FSDP2 drops the backward prefetch setting",
                        DOC + "fsdp-prefetch; " + D + ":1903-1905",
                        claims=("fsdp2-drops-prefetch-keys", "fsdp-overlaps-on-its-own-streams"), versions=V2)
SD_BAD = rule("fsdp-state-dict-type-invalid", ERROR, "Unknown state dict type", DOC + "fsdp-state-dict-type; " + D
              + ":2047-2056", claims=("fsdp-plugin-rejects-unknown-names", "fsdp-state-dict-type-defaults"))
V2_LOCAL_SD = rule("fsdp2-local-state-dict", ERROR, "FSDP2 does not support LOCAL_STATE_DICT",
                   DOC + "fsdp-state-dict-type; " + D + ":2069-2073", claims=("fsdp-state-dict-type-defaults",),
                   versions=V2)
V2_FWD_SAME = rule("fsdp2-forward-prefetch-ignored", WARNING, "FSDP2 never reads fsdp_forward_prefetch (false)",
                   DOC + "fsdp-prefetch; " + D + ":1953-1956", claims=("fsdp2-drops-prefetch-keys",), versions=V2)
V2_FWD_LOST = rule("fsdp2-forward-prefetch-lost", ERROR, "FSDP2 silently drops fsdp_forward_prefetch: true",
                   DOC + "fsdp-prefetch; " + D + ":1953-1956", claims=("fsdp2-drops-prefetch-keys",), versions=V2)
V2_ORIG_SAME = rule("fsdp2-use-orig-params-obsolete", WARNING, "FSDP2 always uses the original parameters",
                    DOC + "fsdp2-obsolete-flags; " + D + ":1938-1942",
                    claims=("fsdp2-ignores-sync-module-states", "fsdp1-flat-fsdp2-dtensor"), versions=V2)
V2_ORIG_LOST = rule("fsdp2-use-orig-params-false", ERROR, "fsdp_use_orig_params: false cannot take effect in FSDP2",
                    DOC + "fsdp2-obsolete-flags; " + D + ":1938-1942",
                    claims=("fsdp2-ignores-sync-module-states", "fsdp1-flat-fsdp2-dtensor"), versions=V2)
V2_SYNC = rule("fsdp2-sync-module-states-obsolete", WARNING, "FSDP2 does not read fsdp_sync_module_states",
               DOC + "fsdp2-obsolete-flags; " + D + ":1944-1951",
               claims=("fsdp2-ignores-sync-module-states", "fsdp-launch-ram-efficient-needs-sync"), versions=V2)
RAM_SYNC = rule("fsdp-ram-efficient-loading-needs-sync", ERROR,
                "cpu_ram_efficient_loading (on by default) requires sync_module_states",
                DOC + "fsdp-ram-efficient-loading; " + L + ":305-307; " + A + "commands/launch.py:584-598; " + D
                + ":1983-1988", claims=("fsdp-launch-ram-efficient-needs-sync", "fsdp1-ram-efficient-forces-sync"))
V1_NO_SYNC = rule("fsdp1-sync-module-states-off", WARNING,
                  "FSDP1 without sync_module_states: each rank keeps its own initial weights",
                  DOC + "fsdp-parameter-sync; torch/distributed/fsdp/_init_utils.py:619-640",
                  claims=("fsdp1-sync-module-states-broadcasts",))
V1_COMPILE = rule("fsdp1-compile-without-orig-params", ERROR,
                  "torch.compile with FSDP1 needs use_orig_params: true (else a graph break or an error)",
                  DOC + "fsdp1-torch-compile; torch/_dynamo/variables/builder.py:2475-2487; transformers#24641",
                  claims=("fsdp1-dynamo-needs-orig-params",))
AC_NO_POLICY = rule("fsdp2-activation-checkpointing-without-wrap-policy", ERROR,
                    "FSDP2 activation checkpointing without a wrap policy fails in prepare() (TypeError)",
                    DOC + "fsdp-activation-checkpointing; " + A + "accelerator.py:1694-1698; " + A
                    + "utils/fsdp_utils.py:718-721",
                    keys="fsdp_config.fsdp_activation_checkpointing, fsdp_config.fsdp_auto_wrap_policy, "
                         "fsdp_config.fsdp_version (and fsdp_config.fsdp_min_num_params when it is 0)",
                    fix="set fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP (or a positive min_num_params), or turn "
                        "activation checkpointing off",
                    claims=("fsdp2-ac-needs-wrap-policy", "fsdp-min-num-params-zero-no-policy"), versions=V2)
AC_OFFLOAD = rule("fsdp-activation-checkpointing-offload-requirements", ERROR,
                  "activation_checkpointing_offload needs activation_checkpointing and FSDP2",
                  DOC + "fsdp-activation-checkpointing; " + D + ":1963-1970", claims=("fsdp2-ac-offload-wrapper",),
                  versions={"accelerate": ">=1.15.0"})
HYBRID_ONE_NODE = rule("fsdp1-hybrid-shard-single-node", WARNING,
                       "HYBRID_SHARD on one machine behaves like FULL_SHARD",
                       DOC + "fsdp1-hybrid-shard; torch/distributed/fsdp/_init_utils.py:143-167",
                       claims=("fsdp1-hybrid-groups-by-visible-devices",))
HYBRID_GROUPS = rule("fsdp1-hybrid-shard-group-mismatch", ERROR,
                     "HYBRID_SHARD groups are sized by visible GPUs; the world size must be a multiple of it",
                     DOC + "fsdp1-hybrid-shard; torch/distributed/fsdp/_init_utils.py:201-247, "
                     "distributed_c10d.py new_subgroups",
                     claims=("fsdp1-hybrid-groups-by-visible-devices", "torch-hybrid-groups-need-multiple",
                             "fsdp2-hybrid-from-parallelism-config"))


VERSION_UNREAD = rule("fsdp-version-unread", ERROR,
                      "accelerate before 1.6 does not read fsdp_version: every FSDP run is FSDP1",
                      DOC + "version-notes; " + A + "utils/launch.py:280-300 (1.5.2: no FSDP_VERSION export, no "
                      "--fsdp_version argument); scripts/replay_accelerate_versions.py",
                      fix="upgrade accelerate to 1.6 or later for FSDP2, or write the FSDP1 settings you want",
                      claims=("accelerate-fsdp-version-since-1-6",), versions={"accelerate": "<1.6.0"})
VERSION_UNREAD_SAME = rule("fsdp-version-unread-harmless", INFO,
                           "accelerate before 1.6 does not read fsdp_version; 1 is what happens anyway",
                           DOC + "version-notes; " + A + "utils/launch.py:280-300 (1.5.2)",
                           claims=("accelerate-fsdp-version-since-1-6",), versions={"accelerate": "<1.6.0"})
V2_SD_SHARDED_ONLY = rule("fsdp2-state-dict-sharded-only", ERROR,
                          "accelerate 1.6 supports only SHARDED_STATE_DICT with FSDP2",
                          DOC + "version-notes; " + D + ":1879-1884 (1.6.0); scripts/replay_accelerate_versions.py",
                          claims=("accelerate-1-6-fsdp2-sharded-state-dict-only",),
                          versions={"accelerate": ">=1.6.0,<1.7.0"})

IGNORED_NOT_REDUCED = rule("fsdp-ignored-modules-not-reduced", INFO,
                           "Modules matched by fsdp_ignored_modules stay whole and their gradients are not averaged",
                           DOC + "fsdp-ignored-modules; " + A + "accelerator.py:1956-1969, " + A
                           + "utils/fsdp_utils.py:783-786", claims=("fsdp-ignored-modules",),
                           versions={"accelerate": ">=1.10.0"})
IGNORED_OLD_TORCH = rule("fsdp2-ignored-modules-dropped", ERROR,
                         "FSDP2 on torch older than 2.7 drops fsdp_ignored_modules",
                         DOC + "fsdp-ignored-modules; " + D + ":2020-2025",
                         claims=("fsdp2-ignored-modules-needs-torch-2-7",), versions={"accelerate": ">=1.10.0"})


def acc_before(ctx: ConfigCheck, release: str) -> bool:
    """Whether the accelerate version judged for is known and older than ``release``."""
    v = ctx.versions.get("accelerate")
    return v is not None and in_spec(v, "<" + release)


def derive(ctx: ConfigCheck) -> None:
    fc = {}
    for k, v in ctx.section("fsdp_config").items():
        fc[fsdp_key(str(k))] = (str(k), v)  # later duplicates win, as with setattr
    ctx.fsdp = fc
    raw = fc.get("fsdp_version", (None, "1"))[1]
    n = parse_int(raw)
    ctx.fsdp_version = n if n in (1, 2) else None
    if acc_before(ctx, FSDP_VERSION_SINCE):  # not read: the plugin is FSDP1 whatever is written
        ctx.fsdp_version = 1


def check(ctx: ConfigCheck) -> None:
    fc = ctx.fsdp
    v = ctx.fsdp_version

    def has(name):
        return name in fc

    def key(name):  # as written; a setting that is not written is named by its canonical key
        return "fsdp_config." + (fc[name][0] if name in fc else name)

    def val(name, default=None):
        return fc[name][1] if name in fc else default

    if has("fsdp_version") and acc_before(ctx, FSDP_VERSION_SINCE):
        written = parse_int(val("fsdp_version"))
        acc = ctx.versions.get("accelerate")
        if written == 1:
            ctx.emit(VERSION_UNREAD_SAME, key("fsdp_version"),
                     f"accelerate {acc} does not read `fsdp_version` (it arrived in 1.6.0); the run is FSDP1, "
                     "which is what `fsdp_version: 1` asks for.", "Nothing to change; the key takes effect from "
                     "accelerate 1.6 on.")
        else:
            ctx.emit(VERSION_UNREAD, key("fsdp_version"),
                     f"{kv(key('fsdp_version'), val('fsdp_version'))} has no effect on accelerate {acc}: its "
                     "launcher has no fsdp_version (that arrived in 1.6.0), so the run is FSDP1, and the "
                     "settings are read the FSDP1 way (sharding strategy, prefetch, use_orig_params).",
                     "Upgrade accelerate to 1.6 or later for FSDP2, or write the FSDP1 settings you want.")
    if has("fsdp_version") and v is None:
        ctx.emit(VERSION_BAD, key("fsdp_version"),
                 f"{kv(key('fsdp_version'), val('fsdp_version'))} is not 1 or 2. The launcher passes it through "
                 "unchecked and the FSDP plugin then fails (for 3, with a confusing KeyError 'TRUE').",
                 "Write `fsdp_version: 2` (recommended) or `fsdp_version: 1`.")
    if not has("fsdp_version"):
        ctx.emit(VERSION_DEFAULT, "fsdp_config.fsdp_version",
                 "`fsdp_version` is not written, so `accelerate launch` runs FSDP1 (its default is 1, although "
                 "`accelerate config` suggests 2).", "Write `fsdp_version: 2` for FSDP2, or 1 to make it explicit.")

    # ---- bool flags read by both versions (or v1 only)
    flags = [k.arg for k in FSDP_PLAIN if k.kind == "bool" and (k.versions == (1, 2) or v in k.versions)]
    for name in flags:
        if has(name) and parse_bool(val(name)) is None:
            ctx.emit(BOOL_BAD, key(name), f"{kv(key(name), val(name))} is not a boolean the plugin can parse "
                     "(true/false, yes/no, on/off, 1/0); it raises 'invalid truth value'.", "Write true or false.")

    # ---- sharding
    if has("fsdp_sharding_strategy"):
        s = strategy_of(val("fsdp_sharding_strategy"))
        if v == 1 and s is None:
            ctx.emit(STRATEGY_BAD, key("fsdp_sharding_strategy"),
                     f"{kv(key('fsdp_sharding_strategy'), val('fsdp_sharding_strategy'))} is not an FSDP1 sharding "
                     "strategy; the plugin raises (KeyError for a name).", "Use FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, "
                     "HYBRID_SHARD or HYBRID_SHARD_ZERO2 (or 1-5).")
        if v == 2:
            reshard = parse_bool(str(val("fsdp_reshard_after_forward", "true")).lower())
            same = {"FULL_SHARD": True, "SHARD_GRAD_OP": False}.get(s) if s else None
            if reshard is None:
                pass  # no sharding follows: the plugin raises on the value (fsdp2-reshard-after-forward-invalid)
            elif same is not None and same == reshard:
                ctx.emit(V2_STRATEGY_SAME, key("fsdp_sharding_strategy"),
                         f"FSDP2 never reads {kv(key('fsdp_sharding_strategy'), val('fsdp_sharding_strategy'))}; "
                         f"the effective `fsdp_reshard_after_forward: {str(reshard).lower()}` happens to mean the "
                         "same thing.", "Delete `fsdp_sharding_strategy`; FSDP2 uses `fsdp_reshard_after_forward`.")
            else:
                eff = "true" if reshard else "false"
                ctx.emit(V2_STRATEGY_LOST, (key("fsdp_sharding_strategy"), key("fsdp_reshard_after_forward"),
                                            key("fsdp_version")),
                         f"FSDP2 never reads {kv(key('fsdp_sharding_strategy'), val('fsdp_sharding_strategy'))}; "
                         f"sharding follows `fsdp_reshard_after_forward` ({eff}), which does not match what this "
                         "strategy asks for.", "Use `fsdp_reshard_after_forward: true` (FULL_SHARD) or false "
                         "(SHARD_GRAD_OP); hybrid sharding needs parallelism_config dp_replicate/dp_shard sizes; "
                         "NO_SHARD has no FSDP2 form (use MULTI_GPU).")
    if has("fsdp_reshard_after_forward"):
        raw = val("fsdp_reshard_after_forward")
        if v == 1:
            asked = strategy_of(raw)
            if asked is None:
                b = parse_bool(raw)
                asked = None if b is None else ("FULL_SHARD" if b else "SHARD_GRAD_OP")
            eff = strategy_of(val("fsdp_sharding_strategy", "FULL_SHARD")) or "FULL_SHARD"
            why = ("" if has("fsdp_version") else " (no fsdp_version, so FSDP1)")
            if asked != eff:
                ctx.emit(V1_RESHARD_LOST, (key("fsdp_reshard_after_forward"),) + tuple(
                    key(n) for n in ("fsdp_sharding_strategy", "fsdp_version") if has(n)),
                         f"Under FSDP1{why} {kv(key('fsdp_reshard_after_forward'), raw)} is ignored by "
                         "`accelerate launch`: the launcher always exports a sharding strategy "
                         f"({'fsdp_sharding_strategy' if has('fsdp_sharding_strategy') else 'default FULL_SHARD'}), "
                         f"which wins, so training runs {eff}"
                         + (f", not {asked}." if asked else "; the written value is not a strategy at all."),
                         f"Write `fsdp_sharding_strategy: {asked or 'SHARD_GRAD_OP'}` instead (FSDP1), or set "
                         "`fsdp_version: 2` and a true/false value.")
            else:
                ctx.emit(V1_RESHARD_SAME, key("fsdp_reshard_after_forward"),
                         f"Under FSDP1{why} {kv(key('fsdp_reshard_after_forward'), raw)} is ignored by `accelerate "
                         f"launch`; the effective strategy is {eff} anyway.",
                         "Write the strategy as `fsdp_sharding_strategy` (FSDP1) or set `fsdp_version: 2`.")
        elif v == 2 and parse_bool(str(raw).lower()) is None:
            # one account with the sharding strategy: neither key decides the sharding, the run stops at the plugin
            strategy = has("fsdp_sharding_strategy")
            asked = strategy_of(raw) or (strategy_of(val("fsdp_sharding_strategy")) if strategy else None)
            flag = {"FULL_SHARD": "true", "SHARD_GRAD_OP": "false"}.get(asked or "")
            ctx.emit(V2_RESHARD_BAD, (key("fsdp_reshard_after_forward"),)
                     + ((key("fsdp_sharding_strategy"),) if strategy else ()),
                     f"FSDP2 needs true/false in {kv(key('fsdp_reshard_after_forward'), raw)}; strategy names are "
                     "FSDP1 only and the plugin raises 'invalid truth value', so the run stops before any sharding."
                     + (f" {kv(key('fsdp_sharding_strategy'), val('fsdp_sharding_strategy'))} cannot stand in for "
                        "it: FSDP2 never reads it." if strategy else ""),
                     (f"Write `fsdp_reshard_after_forward: {flag}` (what {asked} means in FSDP2)" if flag else
                      "Use true (like FULL_SHARD) or false (like SHARD_GRAD_OP)")
                     + (" and delete `fsdp_sharding_strategy`." if strategy else "."))

    _check_wrap(ctx, has, key, val)
    _check_prefetch_and_state(ctx, has, key, val, v)
    _check_obsolete_and_sync(ctx, has, key, val, v)

    if parse_bool(val("fsdp_activation_checkpointing_offload", "false")):
        ac_off = not parse_bool(val("fsdp_activation_checkpointing", "false"))
        if ac_off or v != 2:
            keys = [key("fsdp_activation_checkpointing_offload")]
            if ac_off:
                keys.append(key("fsdp_activation_checkpointing"))
            if v != 2:
                keys.append(key("fsdp_version"))
            ctx.emit(AC_OFFLOAD, tuple(keys), "`fsdp_activation_checkpointing_offload: true` needs activation "
                     "checkpointing on and fsdp_version 2, but "
                     + ("`fsdp_activation_checkpointing` is not true and this is not FSDP2" if ac_off and v != 2
                        else "`fsdp_activation_checkpointing` is not true" if ac_off else "this is not FSDP2")
                     + "; the plugin raises.",
                     "Set `fsdp_activation_checkpointing: true` and `fsdp_version: 2`, or drop the offload flag.")
    if v == 2 and parse_bool(val("fsdp_activation_checkpointing", "false")):
        _check_ac_policy(ctx, has, key, val)
    _check_hybrid(ctx, has, key, val, v)
    _check_ignored_modules(ctx, has, key, val, v)


def _check_ignored_modules(ctx: ConfigCheck, has, key, val, v) -> None:
    pattern = val("fsdp_ignored_modules")
    if pattern in (None, ""):
        return
    torch = ctx.versions.get("torch")
    if v == 2 and torch is not None and in_spec(torch, "<2.7"):
        ctx.emit(IGNORED_OLD_TORCH, (key("fsdp_ignored_modules"), key("fsdp_version")),
                 f"{kv(key('fsdp_ignored_modules'), pattern)} is dropped with a warning: the FSDP2 plugin passes "
                 f"ignored modules on torch 2.7 and later only (judged for torch {torch}), so every module is "
                 "sharded.", "Upgrade torch to 2.7 or later, or use fsdp_version 1, or drop the key.")
        return
    on_old_torch = "" if v != 2 or torch is not None else (" (FSDP2 needs torch 2.7 or later for it; older torch "
                                                          "drops it with a warning)")
    ctx.emit(IGNORED_NOT_REDUCED, key("fsdp_ignored_modules"),
             f"Modules whose names match {kv(key('fsdp_ignored_modules'), pattern)} keep a whole copy on every "
             "rank, and FSDP does not average their gradients across ranks" + on_old_torch + ": right for frozen "
             "modules, but trained ones drift apart rank by rank.",
             "Freeze the matched modules (requires_grad False), or all-reduce their gradients yourself.")


def _check_ac_policy(ctx: ConfigCheck, has, key, val) -> None:
    raw = val("fsdp_auto_wrap_policy")
    policy = "NO_WRAP" if raw is None else str(raw).upper()
    keys = [key("fsdp_activation_checkpointing"), key("fsdp_auto_wrap_policy"), key("fsdp_version")]
    if policy == "SIZE_BASED_WRAP":
        n = parse_int(val("fsdp_min_num_params"))
        if n is None or n > 0:  # not written: the launcher exports 100000000
            return
        keys.append(key("fsdp_min_num_params"))
        why = f"SIZE_BASED_WRAP with {kv(key('fsdp_min_num_params'), val('fsdp_min_num_params'))} (no policy)"
    elif policy == "NO_WRAP":
        why = "NO_WRAP" + ("" if has("fsdp_auto_wrap_policy") else " (no policy written)")
    else:
        return
    ctx.emit(AC_NO_POLICY, tuple(keys), f"FSDP2 with `fsdp_activation_checkpointing: true` and {why}: accelerate "
             "applies checkpointing through the wrap policy, which is none here, so prepare() fails with "
             "TypeError: 'NoneType' object is not callable.",
             "Set `fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP` with the block class (or SIZE_BASED_WRAP with a "
             "positive `fsdp_min_num_params`), or turn activation checkpointing off.")


def _check_wrap(ctx: ConfigCheck, has, key, val) -> None:
    policy = None
    if has("fsdp_auto_wrap_policy") and val("fsdp_auto_wrap_policy") is not None:
        raw = val("fsdp_auto_wrap_policy")
        policy = str(raw).upper()
        if policy not in WRAP_POLICIES:
            ctx.emit(WRAP_BAD, key("fsdp_auto_wrap_policy"), f"{kv(key('fsdp_auto_wrap_policy'), raw)} is not an "
                     "auto wrap policy; the plugin raises 'Invalid auto wrap policy'.",
                     "Use TRANSFORMER_BASED_WRAP, SIZE_BASED_WRAP or NO_WRAP.")
            policy = "INVALID"
    else:
        ctx.emit(WRAP_NONE, "fsdp_config.fsdp_auto_wrap_policy",
                 "No `fsdp_auto_wrap_policy`, so NO_WRAP: FSDP1 makes the whole model one unit; FSDP2 gives only "
                 "the embedding and the output head units of their own. All the blocks' parameters are then "
                 "gathered at once, which saves little memory.",
                 "Set `fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP` (or SIZE_BASED_WRAP).")
    effective = policy or "NO_WRAP"
    cls_set = has("fsdp_transformer_layer_cls_to_wrap") and val("fsdp_transformer_layer_cls_to_wrap") is not None
    if effective == "TRANSFORMER_BASED_WRAP":
        if not cls_set:
            ctx.emit(WRAP_NO_CLS, "fsdp_config.fsdp_transformer_layer_cls_to_wrap",
                     "TRANSFORMER_BASED_WRAP without `fsdp_transformer_layer_cls_to_wrap` wraps the classes listed "
                     "in the model's `_no_split_modules` (Transformers models); a model without it gets none of its "
                     "blocks wrapped.",
                     "Name the layer class explicitly if the model is not a Transformers model.")
        else:
            raw = val("fsdp_transformer_layer_cls_to_wrap")
            names = str(raw).split(",")
            bad = [n for n in names if not n.isidentifier()]
            if bad:
                why = ("a YAML list is turned into the text of the list" if isinstance(raw, (list, tuple)) else
                       "names are split on ',' and compared exactly, spaces included")
                ctx.emit(CLS_BAD, key("fsdp_transformer_layer_cls_to_wrap"),
                         f"{kv(key('fsdp_transformer_layer_cls_to_wrap'), raw)} gives class names "
                         f"{', '.join(repr(b) for b in bad)} that no module can have ({why}); prepare() fails with "
                         "'Could not find the transformer layer class'.",
                         "Write one string with comma-separated class names and no spaces, e.g. "
                         "`LlamaDecoderLayer,MistralDecoderLayer`.")
    elif cls_set and effective != "INVALID" and str(val("fsdp_transformer_layer_cls_to_wrap")).strip():
        ctx.emit(CLS_UNUSED, (key("fsdp_transformer_layer_cls_to_wrap"), key("fsdp_auto_wrap_policy")),
                 f"{kv(key('fsdp_transformer_layer_cls_to_wrap'), val('fsdp_transformer_layer_cls_to_wrap'))} is "
                 f"only read with TRANSFORMER_BASED_WRAP; the policy here is {effective}"
                 + ("" if has("fsdp_auto_wrap_policy") else " (no policy written)") + ", so these classes are "
                 "not wrapped as their own FSDP units.",
                 "Set `fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP`, or delete the class names.")
    if has("fsdp_min_num_params"):
        raw = val("fsdp_min_num_params")
        if effective == "SIZE_BASED_WRAP":
            n = parse_int(raw)
            if n is None:
                extra = (" (YAML reads 1e8 as a string)" if isinstance(raw, str) else
                         " (a float)" if isinstance(raw, float) else "")
                ctx.emit(MIN_BAD, key("fsdp_min_num_params"), f"{kv(key('fsdp_min_num_params'), raw)}{extra}: "
                         "the plugin does int() on it and raises.", "Write a plain integer, e.g. "
                         "`fsdp_min_num_params: 100000000`.")
            elif n <= 0:
                ctx.emit(MIN_ZERO, (key("fsdp_min_num_params"), key("fsdp_auto_wrap_policy")),
                         f"{kv(key('fsdp_min_num_params'), raw)} with "
                         "SIZE_BASED_WRAP: accelerate drops the policy on FSDP1 and FSDP2 alike, so nothing below "
                         "the root becomes its own unit.", "Use a positive parameter count such as 100000000.")
        elif effective != "INVALID":
            n = parse_int(raw)
            keys = (key("fsdp_min_num_params"), key("fsdp_auto_wrap_policy"))
            if n is not None and n <= 0:
                ctx.emit(MIN_UNUSED_HARMLESS, keys, f"{kv(key('fsdp_min_num_params'), raw)} is only read with "
                         f"SIZE_BASED_WRAP (the policy here is {effective}); it has no effect, and no size threshold "
                         "is what happens anyway.", "Remove it.")
            else:
                ctx.emit(MIN_UNUSED, keys, f"{kv(key('fsdp_min_num_params'), raw)} is only read with "
                         f"SIZE_BASED_WRAP; the policy here is {effective}, so modules are not wrapped by size.",
                         "Delete it, or set `fsdp_auto_wrap_policy: SIZE_BASED_WRAP`.")


def _check_prefetch_and_state(ctx: ConfigCheck, has, key, val, v) -> None:
    if has("fsdp_backward_prefetch") and val("fsdp_backward_prefetch") is not None:
        raw = val("fsdp_backward_prefetch")
        ok, eff = _prefetch_of(raw)
        if not ok:
            ctx.emit(PREFETCH_BAD, key("fsdp_backward_prefetch"), f"{kv(key('fsdp_backward_prefetch'), raw)} is not "
                     "a backward prefetch policy; the plugin raises (KeyError for a name).",
                     "Use BACKWARD_PRE, BACKWARD_POST or NO_PREFETCH.")
        elif v == 2 and eff is None:
            ctx.emit(V2_PREFETCH_SAME, key("fsdp_backward_prefetch"), f"FSDP2 has no backward prefetch option; "
                     f"{kv(key('fsdp_backward_prefetch'), raw)} changes nothing.", "Delete the key (FSDP1 only).")
        elif v == 2:
            ctx.emit(V2_PREFETCH_LOST, (key("fsdp_backward_prefetch"), key("fsdp_version")),
                     f"FSDP2 has no backward prefetch option: "
                     f"{kv(key('fsdp_backward_prefetch'), raw)} is reset to none with a warning.",
                     "Delete the key (FSDP2 prefetches on its own), or use fsdp_version 1.")
    if has("fsdp_state_dict_type") and val("fsdp_state_dict_type") is not None:
        raw = val("fsdp_state_dict_type")
        sd = _state_dict_of(raw)
        if sd is None:
            ctx.emit(SD_BAD, key("fsdp_state_dict_type"), f"{kv(key('fsdp_state_dict_type'), raw)} is not a state "
                     "dict type; the plugin raises (KeyError for a name).",
                     "Use SHARDED_STATE_DICT or FULL_STATE_DICT (LOCAL_STATE_DICT: FSDP1 only).")
        elif sd == "LOCAL_STATE_DICT" and v == 2:
            ctx.emit(V2_LOCAL_SD, (key("fsdp_state_dict_type"), key("fsdp_version")),
                     "FSDP2 does not support LOCAL_STATE_DICT; the plugin "
                     "raises.", "Use SHARDED_STATE_DICT or FULL_STATE_DICT.")
        elif sd == "FULL_STATE_DICT" and v == 2:  # accelerate 1.6.0 only (the rule's range)
            ctx.emit(V2_SD_SHARDED_ONLY, (key("fsdp_state_dict_type"), key("fsdp_version")),
                     f"accelerate {ctx.versions.get('accelerate')} supports only SHARDED_STATE_DICT with FSDP2, so "
                     f"{kv(key('fsdp_state_dict_type'), raw)} makes the plugin raise (FULL_STATE_DICT came in "
                     "1.7.0).", "Use SHARDED_STATE_DICT (FSDP2's default), or upgrade accelerate to 1.7 or later.")


def _check_obsolete_and_sync(ctx: ConfigCheck, has, key, val, v) -> None:
    if v == 2:
        if has("fsdp_forward_prefetch"):
            b = parse_bool(val("fsdp_forward_prefetch"))
            if b:
                ctx.emit(V2_FWD_LOST, (key("fsdp_forward_prefetch"), key("fsdp_version")),
                         "FSDP2 has no forward prefetch and the launch "
                         "path silently skips `fsdp_forward_prefetch: true`.", "Delete it, or use fsdp_version 1.")
            else:
                ctx.emit(V2_FWD_SAME, key("fsdp_forward_prefetch"), f"`{key('fsdp_forward_prefetch')}` is an FSDP1 "
                         "setting that FSDP2 never reads.", "Delete it.")
        if has("fsdp_use_orig_params"):
            b = parse_bool(val("fsdp_use_orig_params"))
            if b is False or b is None:
                ctx.emit(V2_ORIG_LOST, (key("fsdp_use_orig_params"), key("fsdp_version")),
                         f"{kv(key('fsdp_use_orig_params'), val('fsdp_use_orig_params'))} "
                         "cannot take effect: FSDP2 always works on the original parameters and never reads it.",
                         "Delete the key (it is FSDP1 only).")
            else:
                ctx.emit(V2_ORIG_SAME, key("fsdp_use_orig_params"), "`fsdp_use_orig_params` is obsolete in FSDP2, "
                         "which always uses the original parameters.", "Delete the key.")
        if has("fsdp_sync_module_states"):
            ctx.emit(V2_SYNC, key("fsdp_sync_module_states"), "`fsdp_sync_module_states` is an FSDP1 setting that "
                     "FSDP2 does not read (the launcher still checks it against cpu_ram_efficient_loading).",
                     "Delete it (and leave cpu_ram_efficient_loading as you need it).")
    # the launcher tests the raw YAML values for truth (#fsdp-ram-efficient-loading)
    # (launch defaults are the string "true")
    ram_raw = val("fsdp_cpu_ram_efficient_loading", "true")
    sync_raw = val("fsdp_sync_module_states", "true")
    ram_on = truthy(ram_raw)
    keys = (key("fsdp_sync_module_states"), key("fsdp_cpu_ram_efficient_loading"))
    if ram_on and not truthy(sync_raw):
        default = "" if has("fsdp_cpu_ram_efficient_loading") else " (on by default under accelerate launch)"
        ctx.emit(RAM_SYNC, keys, f"cpu_ram_efficient_loading is on{default} but "
                 f"{kv(key('fsdp_sync_module_states'), sync_raw)}; `accelerate launch` refuses this combination "
                 "(whatever the FSDP version).", "Set `fsdp_sync_module_states: true`, or "
                 "`fsdp_cpu_ram_efficient_loading: false` if you really want each rank to load its own weights.")
    elif v == 1 and parse_bool(ram_raw) and parse_bool(sync_raw) is False:
        ctx.emit(RAM_SYNC, keys, f"{kv(key('fsdp_sync_module_states'), sync_raw)} is a quoted string, so the "
                 "launcher's check passes, but FSDP1 then forces sync_module_states back to true because "
                 "cpu_ram_efficient_loading is on.", "Write `fsdp_sync_module_states: true` (unquoted booleans).")
    elif v == 1 and not parse_bool(ram_raw) and parse_bool(sync_raw) is False:
        ctx.emit(V1_NO_SYNC, key("fsdp_sync_module_states"), "FSDP1 with sync_module_states off: nothing "
                 "broadcasts rank 0's weights, so every rank keeps its own initial values; unless each rank builds "
                 "or loads identical weights, the ranks start from different models.",
                 "Set `fsdp_sync_module_states: true` unless every rank loads identical weights itself.")
    if v == 1:
        dyn = ctx.section("dynamo_config")
        backend = next((b for k, b in dyn.items() if str(k) in ("dynamo_backend", "backend")), "no")
        if isinstance(backend, str) and backend.upper() not in ("NO", "") and \
                parse_bool(val("fsdp_use_orig_params", "true")) is False:
            ctx.emit(V1_COMPILE, (key("fsdp_use_orig_params"), "dynamo_config.dynamo_backend"),
                     f"torch.compile (dynamo backend {backend}) with FSDP1 and `fsdp_use_orig_params: false`: "
                     "Dynamo refuses such modules, so the model runs uncompiled (graph break) or fails with "
                     "fullgraph.", "Set `fsdp_use_orig_params: true`, or move to fsdp_version 2.")


def _check_hybrid(ctx: ConfigCheck, has, key, val, v) -> None:
    if v != 1 or not has("fsdp_sharding_strategy"):
        return
    s = strategy_of(val("fsdp_sharding_strategy"))
    if s not in HYBRID_STRATEGIES:
        return
    ppn = ctx.nproc_per_node
    world = ppn * ctx.nmach if ppn is not None else None
    gpu_ids = ctx.y.get("gpu_ids")
    visible = len(str(gpu_ids).split(",")) if gpu_ids not in (None, "all") else ctx.gpus_per_node
    if visible is not None and world is not None and (world < visible or world % visible):
        keys = (key("fsdp_sharding_strategy"), "num_processes") + tuple(
            k for k in ("num_machines", "gpu_ids") if k in ctx.y)
        ctx.emit(HYBRID_GROUPS, keys,
                 f"{s} under FSDP1 builds its sharding groups from the visible GPU count ({visible}) because "
                 f"accelerate passes no device mesh; with {world} processes in total torch cannot form such groups "
                 "and raises.", "Run one process per visible GPU on every machine, or use FSDP2 with "
                 "parallelism_config dp_replicate/dp_shard sizes.")
    elif ctx.nmach <= 1:
        ctx.emit(HYBRID_ONE_NODE, (key("fsdp_sharding_strategy"),) + (("num_machines",) if "num_machines" in ctx.y
                                                                     else ()),
                 f"{s} shards inside a machine and replicates across machines; with one machine it is the same as "
                 f"{'FULL_SHARD' if s == 'HYBRID_SHARD' else 'SHARD_GRAD_OP'}.", "Use FULL_SHARD (or SHARD_GRAD_OP) "
                 "on a single machine.")
