"""The unknown-key rules: keys of an accelerate config that no release, or not the judged one, reads.

``accelerate launch`` copies every key of every section onto its argparse namespace (fsdp_config keys get
``fsdp_`` prepended when they do not start with ``fsdp``, fp8_config ``fp8_``, dynamo_config ``dynamo_``;
deepspeed_config and parallelism_config keys are copied as written), then reads only the attributes it
knows. A key nobody reads is silently ignored (commands/launch.py:1262-1277). Which keys each section has, and
since which release, are the tables of :mod:`wizard.core.library` (``launcher``, ``fsdp``, ``deepspeed``,
``accelerate_versions``).
"""
from __future__ import annotations

from .. import ds_schema
from ..context import in_spec
from ..library.accelerate_versions import DYNAMO_PREFIX_SINCE, KEY_SINCE, TOP_LEVEL_SINCE, TOP_LEVEL_UNTIL
from ..library.deepspeed import DS_INLINE_KEYS, DS_MULTINODE_KEYS, DS_NVME_PATH_KEYS
from ..library.fsdp import FSDP_KEYS, FSDP_LEGACY
from ..library.launcher import (
    CLUSTER_FIELDS,
    DYNAMO_KEYS,
    FP8_KEYS,
    FP8_MISNAMED,
    GENERAL_ARGS,
    LEGACY_TOP_LEVEL,
    PARALLELISM_ALWAYS,
    PARALLELISM_CP,
    PARALLELISM_KEYS,
    PARALLELISM_SP,
    PC,
    SAGEMAKER_FIELDS,
    SECTION_USERS,
)
from .base import (
    DIST_DEEPSPEED,
    DOC,
    ERROR,
    MULTI_DEVICE_TYPES,
    WARNING,
    A,
    ConfigCheck,
    as_int,
    fmt,
    fsdp_key,
    kv,
    rule,
)

KEY_TOO_NEW = rule("accelerate-key-too-new", ERROR,
                   "A section key the judged accelerate release does not read yet (it came later): ignored there",
                   DOC + "version-notes; " + A + "commands/launch.py and utils/launch.py of each release; "
                   "scripts/replay_accelerate_versions.py", keys="the section key, as written",
                   fix="upgrade accelerate to the release named, or drop the key",
                   claims=("accelerate-keys-arrive-per-release",), versions={"accelerate": "<1.15.0"})
TOP_TOO_NEW = rule("top-level-key-too-new", ERROR,
                   "A top-level section the judged accelerate release does not know: loading the file fails",
                   DOC + "version-notes; " + A + "commands/config/config_args.py (1.9.0: no parallelism_config "
                   "field; unknown keys raise); scripts/replay_accelerate_versions.py",
                   keys="the top-level section", fix="upgrade accelerate to the release named, or remove the section",
                   claims=("accelerate-keys-arrive-per-release", "config-sections-unchecked"),
                   versions={"accelerate": "<1.10.0"})


def _acc_before(ctx: ConfigCheck, release: str) -> bool:
    v = ctx.versions.get("accelerate")
    return v is not None and in_spec(v, "<" + release)


def _too_new(ctx: ConfigCheck, written: str, canonical: str) -> bool:
    """Emit KEY_TOO_NEW for ``written`` (section.key as written) when ``canonical`` is newer than the judged
    accelerate; True when it did (the key is then not judged further)."""
    since = KEY_SINCE.get(canonical)
    if since is None or not _acc_before(ctx, since):
        return False
    ctx.emit(KEY_TOO_NEW, written, f"`{written}` is read by `accelerate launch` only since accelerate {since}; "
             f"accelerate {ctx.versions.get('accelerate')} copies it onto the launch arguments and never reads it, "
             "so its value has no effect.", f"Upgrade accelerate to {since} or later, or delete the key.")
    return True


UNKNOWN_TOP = rule("unknown-top-level-key", ERROR, "A top-level key that is not a ClusterConfig field",
                   DOC + "config-loading; " + A + "commands/config/config_args.py:154-159",
                   keys="the unknown top-level key",
                   claims=("config-sections-unchecked", "launch-section-keys-copied-flat"))
SECTION_NOT_MAPPING = rule("section-not-mapping", ERROR, "A config section that is not a mapping is ignored",
                           DOC + "launch-copies-section-keys; " + A + "commands/launch.py:1265-1281",
                           keys="the section (fsdp_config, deepspeed_config, ...) and the items written in it",
                           claims=("launch-section-keys-copied-flat",))
SECTION_IGNORED = rule("section-ignored", ERROR,
                       "A filled-in section the distributed_type never reads: none of its values take effect",
                       DOC + "launch-copies-section-keys; " + A + "commands/launch.py:1390-1403",
                       claims=("launch-distributed-type-picks-section", "launch-other-sections-per-distributed-type"))
UNKNOWN_FSDP = rule("unknown-fsdp-key", ERROR, "An fsdp_config key the launcher never reads (ignored)",
                    DOC + "launch-copies-section-keys; " + A + "commands/launch.py:1270-1277, utils/launch.py:304-333",
                    claims=("launch-section-keys-copied-flat", "config-sections-unchecked",
                            "fsdp-offload-single-switch"))
FSDP_LEGACY_KEY = rule("fsdp-legacy-key", ERROR, "An old fsdp_config key name that is no longer read",
                       DOC + "fsdp-key-mapping, " + DOC + "version-notes; accelerate#2275; " + A
                       + "utils/launch.py:322-323", claims=("fsdp-backward-prefetch-old-name-ignored",))
FSDP_TWICE = rule("fsdp-key-written-twice", ERROR,
                  "The same FSDP setting written with and without the fsdp_ prefix, with different values (the "
                  "earlier one is overridden)", DOC + "launch-copies-section-keys; " + A
                  + "commands/launch.py:1270-1277", claims=("launch-section-keys-copied-flat",))
FSDP_TWICE_SAME = rule("fsdp-key-written-twice-same-value", WARNING,
                       "The same FSDP setting written with and without the fsdp_ prefix, with the same value",
                       DOC + "launch-copies-section-keys; " + A + "commands/launch.py:1270-1277",
                       claims=("launch-section-keys-copied-flat",))
UNKNOWN_DS = rule("unknown-deepspeed-key", ERROR, "A deepspeed_config key accelerate never reads (ignored)",
                  DOC + "ds-inline-config; " + A + "utils/launch.py:565-586; accelerate#2298",
                  claims=("ds-inline-unknown-dropped", "ds-config-file-exported", "ds-json-owns-its-keys"))
DS_MULTINODE_UNUSED = rule("deepspeed-multinode-key-unused", WARNING,
                           "A DeepSpeed hostfile or host filter on one machine, or a hostfile with the `standard` "
                           "launcher: never read, and nothing it could change applies to this launch",
                           DOC + "ds-multinode-launcher; " + A + "utils/launch.py:450-476",
                           claims=("ds-multinode-runner-or-torchrun", "ds-runner-num-gpus-and-filters"))
DS_FILTER_LOST = rule("deepspeed-multinode-filter-ignored", ERROR,
                      "A multi-node DeepSpeed host filter that is never applied (standard launcher, or an inclusion "
                      "filter next to an exclusion filter): hosts/GPUs it names are used anyway",
                      DOC + "ds-multinode-launcher; " + A
                      + "utils/launch.py:450-476 (--exclude wins over --include; standard uses torchrun)",
                      claims=("ds-multinode-runner-or-torchrun", "ds-runner-num-gpus-and-filters",
                              "launch-gpu-ids-visible-devices"))
UNKNOWN_PARALLELISM = rule("unknown-parallelism-key", ERROR,
                           "A parallelism_config key the launcher never reads (ignored)",
                           DOC + "parallelism-config; " + A + "utils/launch.py:403-427; commands/launch.py:1265-1277",
                           claims=("launch-section-keys-copied-flat", "launch-other-sections-per-distributed-type"))
UNKNOWN_DYNAMO = rule("unknown-dynamo-key", ERROR, "A dynamo_config key the launcher never reads (ignored)",
                      DOC + "dynamo-config; " + A + "commands/launch.py:1274-1275, utils/launch.py:298-302",
                      claims=("launch-section-keys-copied-flat",))
DYNAMO_UNDER_DS = rule("dynamo-ignored-under-deepspeed", ERROR,
                       "dynamo_config is never exported by the DeepSpeed launcher, so torch.compile stays off",
                       DOC + "dynamo-config; " + A
                       + "utils/launch.py:430-586 (no ACCELERATE_DYNAMO_* there), utils/dataclasses.py:1093-1096",
                       claims=("dynamo-not-exported-under-deepspeed", "dynamo-deepspeed-engine-compile"))
UNKNOWN_FP8 = rule("unknown-fp8-key", ERROR, "An fp8_config key no FP8 recipe reads (ignored)",
                   DOC + "mixed-precision; " + A + "utils/launch.py:82-97, utils/dataclasses.py:312-480",
                   claims=("launch-section-keys-copied-flat", "fp8-config-names-unread"))
MISPLACED = rule("section-key-misplaced", WARNING,
                 "A top-level launch setting written inside a section (it still overrides the top level)",
                 DOC + "launch-copies-section-keys; " + A + "commands/launch.py:1265-1277",
                 claims=("launch-section-keys-copied-flat",))

# The sentences below add " Did you mean `x`?" inline, `(f" Did you mean `{best}`?" if best else "")`, and choose
# their other added sentences by `a if c else b` of literals: the templates' reader
# (wizard/core/localized/messages.py) then reads every variant as words to translate, not as a computed English part.


def check_top_level(ctx: ConfigCheck) -> None:
    sagemaker = ctx.y.get("compute_environment") == "AMAZON_SAGEMAKER"
    fields = SAGEMAKER_FIELDS if sagemaker else CLUSTER_FIELDS
    acc = ctx.versions.get("accelerate")
    if not sagemaker and acc is not None:  # the field set of the judged release
        fields = frozenset(f for f in fields if not _acc_before(ctx, TOP_LEVEL_SINCE.get(f, "0")))
        fields |= {f for f, (first, end) in TOP_LEVEL_UNTIL.items() if in_spec(acc, f">={first},<{end}")}
    for key in ctx.y:
        if key in fields or key in LEGACY_TOP_LEVEL:
            continue
        if key in TOP_LEVEL_SINCE and not sagemaker:
            ctx.emit(TOP_TOO_NEW, str(key), f"`{key}` is a top-level section only since accelerate "
                     f"{TOP_LEVEL_SINCE[key]}; accelerate {acc} does not know it, so loading the file fails with "
                     "'had unknown keys'.", f"Upgrade accelerate to {TOP_LEVEL_SINCE[key]} or later, or remove "
                     f"`{key}`.")
            continue
        name = str(key)
        best = ds_schema.did_you_mean(name, fields)
        move = (" It is an FSDP setting: move it under `fsdp_config`." if name.startswith("fsdp_")
                else " It is a DeepSpeed setting: move it under `deepspeed_config`." if name in DS_INLINE_KEYS
                else " Move it under `parallelism_config`." if name.startswith(PC)
                else " Move it under `dynamo_config`." if name in DYNAMO_KEYS else "")
        ctx.emit(UNKNOWN_TOP, name,
                 f"`{name}` is not a valid top-level key of an accelerate config; loading the file fails with "
                 "'had unknown keys'." + move + (f" Did you mean `{best}`?" if best else ""),
                 "Remove the key or move it into the section it belongs to.")
    for sec in ("fsdp_config", "deepspeed_config", "parallelism_config", "dynamo_config", "fp8_config",
                "megatron_lm_config", "mpirun_config"):
        value = ctx.y.get(sec)
        if value is not None and not isinstance(value, dict):
            items = [f"{sec}.{v}" for v in value if isinstance(v, (str, int, float))] \
                if isinstance(value, (list, tuple)) else []
            ctx.emit(SECTION_NOT_MAPPING, (sec, *items),
                     f"`{sec}` is {fmt(value)}, not a mapping of keys; the launcher only copies keys out of a "
                     "mapping, so nothing in it is used.", f"Write `{sec}:` followed by indented `key: value` "
                     "lines (or delete it).")


def check_ignored_sections(ctx: ConfigCheck) -> None:
    if ctx.dist is None:
        return
    for sec, users in SECTION_USERS.items():
        if ctx.section(sec) and ctx.dist not in users:
            ctx.emit(SECTION_IGNORED, (sec, "distributed_type"),
                     f"`{sec}` is filled in but `distributed_type: {ctx.dist}` never reads it, so none of its "
                     f"{len(ctx.section(sec))} setting(s) take effect.",
                     f"Delete `{sec}`, or set `distributed_type` to the backend it configures.")
    if ctx.section("parallelism_config") and ctx.dist not in MULTI_DEVICE_TYPES | {"FSDP", DIST_DEEPSPEED}:
        ctx.emit(SECTION_IGNORED, ("parallelism_config", "distributed_type"),
                 f"`parallelism_config` is only exported for FSDP, DeepSpeed and multi-GPU launches, not for "
                 f"`distributed_type: {ctx.dist}`.", "Delete `parallelism_config` or change `distributed_type`.")


def check_fsdp_keys(ctx: ConfigCheck) -> None:
    seen: dict[str, str] = {}
    fc = ctx.section("fsdp_config")
    for key in fc:
        name = str(key)
        norm = fsdp_key(name)
        if norm in seen:
            first = seen[norm]
            earlier, later = fc[first], fc[key]
            keys = (f"fsdp_config.{first}", f"fsdp_config.{name}")
            if str(earlier) == str(later):  # the launcher exports str(value): same text, same effect
                ctx.emit(FSDP_TWICE_SAME, keys,
                         f"`fsdp_config.{first}` and `fsdp_config.{name}` both set `{norm}` (the launcher adds the "
                         f"`fsdp_` prefix) to the same value {fmt(later)}; the repeat has no effect.",
                         "Remove one of the two keys.")
            else:
                ctx.emit(FSDP_TWICE, keys,
                         f"`fsdp_config.{first}: {fmt(earlier)}` and `fsdp_config.{name}: {fmt(later)}` both set "
                         f"`{norm}` (the launcher adds the `fsdp_` prefix); the later one silently replaces the "
                         f"earlier, so {fmt(earlier)} never takes effect.",
                         "Keep one key, with the value you want.")
        seen[norm] = name
        if norm in FSDP_KEYS:
            _too_new(ctx, f"fsdp_config.{name}", f"fsdp_config.{norm}")
            continue
        if norm in FSDP_LEGACY:
            ctx.emit(FSDP_LEGACY_KEY, f"fsdp_config.{name}",
                     f"`fsdp_config.{name}` is an old key name that accelerate no longer reads; its value is "
                     "ignored.", f"Rename it to `{FSDP_LEGACY[norm]}`.")
            continue
        best = ds_schema.did_you_mean(norm, FSDP_KEYS)
        ds_only = "zero" in norm or "offload_optimizer" in norm or "nvme" in norm or norm == "fsdp_offload_param_device"
        ctx.emit(UNKNOWN_FSDP, f"fsdp_config.{name}",
                 f"`fsdp_config.{name}` is not an FSDP setting accelerate reads (the launcher looks for "
                 f"`{norm}`), so it is silently ignored."
                 + (" FSDP has no separate optimizer or NVMe offload: `fsdp_offload_params: true` moves parameters, "
                    "gradients and the optimizer step to CPU together." if ds_only else "")
                 + (f" Did you mean `{best}`?" if best else ""), "Fix the key name or delete it.")


def check_deepspeed_keys(ctx: ConfigCheck) -> None:
    multinode_read = ctx.nmach > 1 and _ds_launcher(ctx) != "standard"
    dc = ctx.section("deepspeed_config")
    for key in dc:
        name = str(key)
        if name in DS_NVME_PATH_KEYS:
            continue  # reported by the inline NVMe path rules (ds.py: NVME_PATH_LOST, NVME_INLINE)
        if name in DS_MULTINODE_KEYS:
            shadowed = name == "deepspeed_inclusion_filter" and dc.get("deepspeed_exclusion_filter") is not None
            if not multinode_read or shadowed:
                _multinode_unused(ctx, dc, name, shadowed)
            continue
        if name in DS_INLINE_KEYS:
            continue
        if name in GENERAL_ARGS:
            ctx.emit(MISPLACED, f"deepspeed_config.{name}",
                     f"`deepspeed_config.{name}` is a top-level launch setting; the launcher copies section keys "
                     "flat, so it still overrides the top-level value, but it is easy to miss here.",
                     f"Move `{name}` to the top level of the file.")
            continue
        json_key = name in ds_schema.top_level_keys() or name in ("stage", "offload_optimizer", "offload_param")
        best = None if json_key else ds_schema.did_you_mean(name, DS_INLINE_KEYS)
        ctx.emit(UNKNOWN_DS, f"deepspeed_config.{name}",
                 f"`deepspeed_config.{name}` is not one of the DeepSpeed settings accelerate reads from its "
                 "config, so it is silently ignored (accelerate#2298)."
                 + (" It is a DeepSpeed JSON setting: put it in a DeepSpeed JSON and point "
                    "`deepspeed_config.deepspeed_config_file` at that file (then drop the inline DeepSpeed keys)."
                    if json_key else f" Did you mean `{best}`?" if best else ""), "Fix the key name or remove it.")


def _multinode_unused(ctx: ConfigCheck, dc: dict, name: str, shadowed: bool) -> None:
    value = dc[name]
    key = f"deepspeed_config.{name}"
    if ctx.nmach <= 1:
        keys = (key,) + (("num_machines",) if "num_machines" in ctx.y else ())
        ctx.emit(DS_MULTINODE_UNUSED, keys, f"`{key}` has no effect: with one machine `accelerate launch` starts "
                 "the processes itself and never calls the DeepSpeed multi-node runner that reads it.",
                 "Remove it (keep it only in the multi-node version of this config).")
        return
    standard = _ds_launcher(ctx) == "standard"
    if standard and (name == "deepspeed_hostfile" or value is None or str(value).strip() == ""):
        ctx.emit(DS_MULTINODE_UNUSED, (key, "deepspeed_config.deepspeed_multinode_launcher"),
                 f"`{key}` has no effect: the `standard` launcher runs torchrun on each machine you start it on, "
                 "which reads no hostfile.", "Remove it, or use a launcher that reads a hostfile (pdsh, openmpi, ...).")
    elif standard:
        ctx.emit(DS_FILTER_LOST, (key, "deepspeed_config.deepspeed_multinode_launcher"),
                 f"{kv(key, value)} is never applied: the `standard` launcher runs torchrun, which has no host "
                 "filter, so the hosts and GPUs it would leave out are used anyway.",
                 "Use gpu_ids / CUDA_VISIBLE_DEVICES on each machine, or a launcher that takes filters (pdsh, ...).")
    elif shadowed and value is not None and str(value).strip() != "":
        ctx.emit(DS_FILTER_LOST, (key, "deepspeed_config.deepspeed_exclusion_filter"),
                 f"{kv(key, value)} is dropped: when both filters are written, accelerate passes only `--exclude` "
                 "to the DeepSpeed runner, so hosts/GPUs outside the inclusion filter are used too.",
                 "Keep one of the two filters (express the selection as an exclusion or as an inclusion).")
    elif shadowed:
        ctx.emit(DS_MULTINODE_UNUSED, (key, "deepspeed_config.deepspeed_exclusion_filter"),
                 f"`{key}` is empty and dropped anyway (the exclusion filter wins); it has no effect.",
                 "Remove it.")


def _ds_launcher(ctx: ConfigCheck) -> str:
    value = ctx.section("deepspeed_config").get("deepspeed_multinode_launcher")
    return "pdsh" if value is None else str(value)


def check_parallelism_keys(ctx: ConfigCheck) -> None:
    pc = ctx.section("parallelism_config")
    if not pc or ctx.dist not in MULTI_DEVICE_TYPES | {"FSDP", DIST_DEEPSPEED}:
        return
    if _acc_before(ctx, TOP_LEVEL_SINCE["parallelism_config"]):
        return  # the file does not load there (TOP_TOO_NEW)
    cp = as_int(pc.get(PC + "cp_size", 1))
    sp = as_int(pc.get(PC + "sp_size", 1))
    for key in pc:
        name = str(key)
        if name in PARALLELISM_KEYS and _too_new(ctx, f"parallelism_config.{name}", f"parallelism_config.{name}"):
            continue
        if name in PARALLELISM_ALWAYS:
            continue
        if name in PARALLELISM_CP and cp is not None and cp > 1:
            continue
        if name in PARALLELISM_SP and sp is not None and sp > 1:
            continue
        if name in PARALLELISM_CP | PARALLELISM_SP:
            size = "cp_size" if name in PARALLELISM_CP else "sp_size"
            ctx.emit(UNKNOWN_PARALLELISM, (f"parallelism_config.{name}", f"parallelism_config.{PC}{size}"),
                     f"`parallelism_config.{name}` is only exported when `{PC}{size}` is greater than 1; here it "
                     "is not, so the value is ignored.", f"Delete it, or raise `{PC}{size}`.")
            continue
        if name in GENERAL_ARGS:
            ctx.emit(MISPLACED, f"parallelism_config.{name}",
                     f"`parallelism_config.{name}` is a top-level launch setting; it still overrides the top-level "
                     "value because section keys are copied flat, but it belongs at the top level.",
                     f"Move `{name}` to the top level of the file.")
            continue
        prefixed = PC + name
        best = None if prefixed in PARALLELISM_KEYS else ds_schema.did_you_mean(name, PARALLELISM_KEYS)
        ctx.emit(UNKNOWN_PARALLELISM, f"parallelism_config.{name}",
                 f"`parallelism_config.{name}` is not read by the launcher (parallelism_config keys are copied "
                 "as written, with no prefix added), so it is silently ignored."
                 + (f" parallelism_config keys must keep their prefix: write `{prefixed}`." if prefixed in
                    PARALLELISM_KEYS else f" Did you mean `{best}`?" if best else ""),
                 "Rename the key to its full `parallelism_config_...` name.")


def check_dynamo_keys(ctx: ConfigCheck) -> None:
    dyn = ctx.section("dynamo_config")
    for key in dyn:
        name = str(key)
        norm = name if name.startswith("dynamo_") else "dynamo_" + name
        if ctx.dist == DIST_DEEPSPEED:
            ctx.emit(DYNAMO_UNDER_DS, f"dynamo_config.{name}",
                     f"`dynamo_config.{name}: {fmt(dyn[key])}` has no effect with `distributed_type: DEEPSPEED`: "
                     "the DeepSpeed launcher does not export the dynamo settings, so nothing is compiled unless "
                     "the training script asks for it.",
                     "Delete `dynamo_config`; to compile under DeepSpeed, call torch.compile / the DeepSpeed "
                     "engine's compile in the training script.")
            continue
        if norm in DYNAMO_KEYS:
            if norm != name and _acc_before(ctx, DYNAMO_PREFIX_SINCE):
                ctx.emit(KEY_TOO_NEW, f"dynamo_config.{name}", f"`dynamo_config.{name}` without the `dynamo_` "
                         f"prefix is read only since accelerate {DYNAMO_PREFIX_SINCE}; accelerate "
                         f"{ctx.versions.get('accelerate')} copies it as `{name}`, which nothing reads, so its "
                         "value has no effect.", f"Write `{norm}`.")
            else:
                _too_new(ctx, f"dynamo_config.{name}", f"dynamo_config.{norm}")
            continue
        best = ds_schema.did_you_mean(norm, DYNAMO_KEYS)
        ctx.emit(UNKNOWN_DYNAMO, f"dynamo_config.{name}",
                 f"`dynamo_config.{name}` is not a dynamo setting (the launcher looks for `{norm}`), so it is "
                 "silently ignored." + (f" Did you mean `{best}`?" if best else ""), "Fix the key name or delete it.")


def check_fp8_keys(ctx: ConfigCheck) -> None:
    if ctx.mp != "fp8":
        return
    for key in ctx.section("fp8_config"):
        name = str(key)
        norm = name if name.startswith("fp8") else "fp8_" + name
        if not ctx.fp8_unread(name):  # the effective model: a name the launcher exports for a recipe to read
            _too_new(ctx, f"fp8_config.{name}", f"fp8_config.{norm}")
            continue
        best = None if norm in FP8_MISNAMED else ds_schema.did_you_mean(norm, FP8_KEYS)
        ctx.emit(UNKNOWN_FP8, f"fp8_config.{name}",
                 f"`fp8_config.{name}` is exported as `ACCELERATE_{norm.upper()}`, which no FP8 recipe reads, so "
                 "it is ignored." + (f" The reader uses `{FP8_MISNAMED[norm]}` (this name comes from `accelerate "
                                     "config` itself)." if norm in FP8_MISNAMED
                                     else f" Did you mean `{best}`?" if best else ""), "Rename the key or delete it.")
