"""Compare the effective setup a run reported with the config it was launched with.

:func:`expected_from_config` reads what an accelerate config (and its DeepSpeed JSON) asks for;
:func:`compare` checks the effective-setup record (see :mod:`wizard.runtime`, merged per rank by the
monitor) against it and returns :class:`CheckItem` lines such as "ZeRO-3 active: each rank holds half
of the parameters" or "FSDP requested but accelerate runs with no distribution".

Statuses: ``ok``, ``fail`` (the config did not take effect), ``warn`` (took effect with a caveat),
``info``, ``unknown`` (the run did not report it) and ``not_rehearsed`` (a CPU rehearsal changed the
setting: the row names what was asked, what ran and why). In a rehearsal the "took effect" rows compare
the run with what the rehearsal asked for (its adjusted config); a row about a setting the rehearsal
changed says so in its label ("World size 2 (rehearsed; config: 8)"), so no row claims more than ran, and is not
counted among the settings that took effect.
:func:`verdict` is the one-line result ("took effect: 9 settings; not rehearsed: precision fp16 (ran
fp32), compile ..."), the same in the TUI, the headless summary and ``summary.json``.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..core.mesh import mesh_dims, mesh_text
from ..core.vocab import SHARDING_STRATEGIES, sharding_strategy_name

OK, FAIL, WARN, INFO, UNKNOWN = "ok", "fail", "warn", "info", "unknown"
NOT_REHEARSED = "not_rehearsed"
NOT_REHEARSED_PREFIX = "Not rehearsed: "
# answers setting id -> the checklist row (CheckItem.key) that compares it
_ROW_OF_SETTING = {"precision.mixed_precision": "mixed_precision", "launch.num_processes": "world_size",
                   "offload.optimizer": "offload", "offload.params": "offload",
                   "wrapping.layer_classes": "wrap_classes", "sharding.strategy": "sharding"}
_FRACTION_WORDS = {1: "all", 2: "half", 3: "a third", 4: "a quarter", 8: "an eighth"}


@dataclass
class CheckItem:
    status: str
    label: str
    detail: str = ""
    key: str = ""
    """What the row is about (``mixed_precision``, ``world_size``, ...; a setting id for not-rehearsed rows)."""
    rehearsed: bool = False
    """The row checked the value a rehearsal ran instead of the config's (its label says "(rehearsed; config: ...)");
    it is not one of the config's settings that took effect."""

    def to_dict(self) -> dict:
        return asdict(self)

    def render(self) -> str:
        mark = {OK: "[ok]  ", FAIL: "[FAIL]", WARN: "[warn]", INFO: "[info]", UNKNOWN: "[?]   ",
                NOT_REHEARSED: "[--]  "}[self.status]
        if self.status == OK and self.rehearsed:
            mark = "[~ok] "  # held at the rehearsal's value, not the config's: not counted as taken effect
        return f"{mark} {self.label}" + (f": {self.detail}" if self.detail else "")


def expected_from_config(accelerate_cfg: dict, ds_cfg: dict | None = None, situation: Any = None) -> dict:
    """What the config asks for, in the effective setup's vocabulary: read from the effective model
    (:mod:`wizard.core.effective`), the one answer to what accelerate and DeepSpeed run for it (a ZeRO-2 JSON that
    says NVMe expects the CPU offload that runs; FSDP2's reshard_after_forward its strategy; the JSON's bf16/fp16
    sections the precision)."""
    from ..core.effective import effective

    e = effective(accelerate_cfg, ds_cfg, situation)
    dist = str(e.get("distributed_type") or "NO").upper()
    exp: dict[str, Any] = {"distributed_type": dist, "world_size": accelerate_cfg.get("num_processes"),
                           "mixed_precision": e.get("mixed_precision")}
    if dist == "FSDP" and "fsdp.fsdp_version" in e:
        exp["fsdp_version"] = e["fsdp.fsdp_version"]
        if "runs.fsdp_strategy" in e:
            exp["sharding"] = e["runs.fsdp_strategy"]
            if e["fsdp.fsdp_version"] == 2 and e.get("runs.fsdp_hybrid"):  # FSDP2 over (dp_replicate, dp_shard)
                exp["sharding"] = "HYBRID_SHARD" if e.get("runs.fsdp_reshard") else "HYBRID_SHARD_ZERO2"
        if "runs.offload_param" in e:
            exp["offload"] = {"params": e["runs.offload_param"], "optimizer": e["runs.offload_optimizer"]}
        sizes = {name.removesuffix("_size"): e.get(f"parallelism.{name}") or 1 for name in
                 ("dp_replicate_size", "dp_shard_size", "cp_size", "sp_size", "tp_size")}
        mesh = dict(mesh_dims({k: int(v) for k, v in sizes.items()}))
        if mesh and (len(mesh) > 1 or "dp_shard" not in mesh):
            exp["mesh"] = mesh  # accelerate builds this device mesh (a plain dp_shard mesh is FSDP as usual)
        classes = e.get("fsdp.transformer_cls_names_to_wrap")
        if e.get("fsdp.auto_wrap_policy") == "TRANSFORMER_BASED_WRAP" and classes:
            exp["wrap_classes"] = [c.strip() for c in classes if c.strip()]
    elif dist == "DEEPSPEED" and "runs.zero_stage" in e:
        exp["zero_stage"] = e["runs.zero_stage"]
        sp = int(e.get("parallelism.sp_size") or 1)
        if sp > 1:
            exp["sp"] = sp
        autotp = int(e.get("deepspeed.tensor_parallel.autotp_size") or 0)
        if autotp > 1:
            exp["autotp"] = autotp
        exp["offload"] = {"optimizer": e["runs.offload_optimizer"], "params": e["runs.offload_param"]}
    if dist in ("FSDP", "DEEPSPEED") and situation is not None and getattr(situation, "trainer", False):
        exp["trainer"] = _trainer_expected(e, dist, situation)
    return exp


def _trainer_expected(e: Any, dist: str, situation: Any) -> dict:
    """What the Hugging Face Trainer should run with: micro batch, accumulation and clipping (the effective model's,
    which under DeepSpeed are the values DeepSpeed validates after the Trainer filled its "auto")."""
    from ..core.effective.trainer import trainer_arguments

    targs = trainer_arguments(situation.trainer_arguments)
    micro = e.get("runs.micro_batch")
    gas = e.get("runs.gradient_accumulation_steps")
    clip = e.get("deepspeed_validated.gradient_clipping") if dist == "DEEPSPEED" else None
    return {"micro_batch": int(micro if micro is not None else targs["per_device_train_batch_size"]),
            "gradient_accumulation_steps": int(gas if gas is not None else targs["gradient_accumulation_steps"]),
            "clipping": float(clip if clip is not None else targs["max_grad_norm"])}


_TRAINER_GOT = {"DEEPSPEED": ("ds_micro_batch", "ds_gradient_accumulation_steps", "ds_gradient_clipping"),
                "FSDP": ("batch_size", "grad_accum", "trainer_max_grad_norm")}
"""Where the Trainer script's setup record puts what ran: DeepSpeed's engine's own numbers, or (FSDP, where the
Trainer accumulates and clips itself) the TrainingArguments it ran with."""


def _trainer_rows(effective: dict, expected: dict) -> list[CheckItem]:
    """A run driven by the Hugging Face Trainer: what it (and DeepSpeed's engine) took for the micro batch, the
    accumulation and the clipping, against the config with its TrainingArguments; and which optimizer ran."""
    want = expected.get("trainer")
    if not want:
        return []
    if effective.get("loop") != "hf-trainer":
        return [CheckItem(FAIL, "The Hugging Face Trainer did not drive the run",
                          f"the script reported loop {effective.get('loop') or 'none'}", key="trainer")]
    dist = str(effective.get("distributed_type") or "").upper()
    names = _TRAINER_GOT.get(dist, _TRAINER_GOT["FSDP"])
    who = "DeepSpeed's engine" if dist == "DEEPSPEED" else "the Trainer"
    rows = []
    rows_of = (("Micro batch", "micro_batch"), ("Gradient accumulation", "gradient_accumulation_steps"),
               ("Gradient clipping", "clipping"))
    for (label, key), got_key in zip(rows_of, names, strict=True):
        got, exp = effective.get(got_key), want[key]
        if got is None:
            rows.append(CheckItem(UNKNOWN, f"{label}: not reported", key="trainer"))
            continue
        same = float(got) == float(exp)
        shown = f"{float(got):g}" if key == "clipping" else str(int(got))
        rows.append(CheckItem(OK if same else FAIL, f"{label} {shown} ({who})",
                              "" if same else f"config and TrainingArguments ask for {exp:g}", key="trainer"))
    opt = effective.get("optimizer_class") or "?"
    source = ("the DeepSpeed JSON's optimizer block" if effective.get("ds_optimizer_from_config")
              else "created by the Trainer (optim in TrainingArguments)")
    rows.insert(0, CheckItem(INFO, "Trained by the Hugging Face Trainer",
                             f"TrainingArguments from {want.get('from') or 'training_arguments.json'}; optimizer "
                             f"{opt}, {source}",
                             key="trainer"))
    return rows


def _fraction_text(world: int) -> str:
    return _FRACTION_WORDS.get(world, f"1/{world}")


def _sharded_fraction_ok(fraction: float | None, world: int) -> bool:
    if fraction is None or world < 2:
        return False
    # shards are padded to equal sizes, so allow a little more than 1/world
    return fraction <= 1.0 / world + 0.05


def not_rehearsed_items(adjustments: list[dict] | None) -> list[CheckItem]:
    """One row per rehearsal change (dicts of :meth:`wizard.run.rehearse.Adjustment.to_dict`)."""
    rows = []
    for adj in adjustments or []:
        short = adj.get("short") or f"{adj.get('name') or adj.get('setting')} {adj.get('asked')} (ran {adj.get('ran')})"
        rows.append(CheckItem(NOT_REHEARSED, NOT_REHEARSED_PREFIX + short, str(adj.get("why") or ""),
                              key=str(adj.get("setting") or "")))
    return rows


def _mark_rehearsed(items: list[CheckItem], adjustments: list[dict]) -> None:
    """A row about a setting the rehearsal changed says that it checked the rehearsal's value."""
    asked: dict[str, list[str]] = {}
    for adj in adjustments:
        row = _ROW_OF_SETTING.get(str(adj.get("setting")))
        if row:
            asked.setdefault(row, []).append(str(adj.get("asked")))
    for item in items:
        if item.key in asked and item.status != NOT_REHEARSED:
            item.label += f" (rehearsed; config: {', '.join(asked[item.key])})"
            item.rehearsed = True


def compare(effective: dict | None, expected: dict, *, not_rehearsed: list[dict] | None = None,
            unknown_why: str | None = None) -> list[CheckItem]:
    """The checklist rows; ``not_rehearsed``: the rehearsal's changes (each becomes a row); ``unknown_why``:
    why there is no effective setup, when ``effective`` is empty (the run was stopped, or crashed, first)."""
    if not effective:
        why = unknown_why or "the script reported none (call wizard.runtime.RunReporter.setup after prepare())"
        return [CheckItem(UNKNOWN, "Effective setup unknown", why, key="effective_setup"),
                *not_rehearsed_items(not_rehearsed)]
    items = _compare(effective, expected)
    if not_rehearsed:
        _mark_rehearsed(items, not_rehearsed)
        items += not_rehearsed_items(not_rehearsed)
    return items


_FSDP_DIMS = ("dp_shard", "dp_shard_cp", "dp_cp")
"""Names of the mesh dimension FSDP2 shards parameters over (accelerate flattens dp_shard with cp)."""


def _tp_rows(placements: dict, tp: int) -> CheckItem:
    """Which parameters tensor parallelism split (a Shard placement on the tp dimension) and which it left whole."""
    split: dict[str, list[str]] = {}
    whole: list[str] = []
    for name, by_dim in placements.items():
        short = name.removesuffix(".weight").removesuffix(".bias").rsplit(".", 1)[-1]
        placement = by_dim.get("tp")
        if placement is None:
            continue
        if "Shard" in placement:
            split.setdefault(placement, []).append(short)
        else:
            whole.append(short)
    if not split:
        return CheckItem(FAIL, f"Tensor parallelism (tp {tp}) did not split any parameter",
                         "every parameter is whole on the tp dimension: accelerate skips TP for a model that was not "
                         "loaded with a TP plan (from_pretrained(..., tp_plan=\"auto\", device_mesh=...))", key="mesh")
    words = {"Shard(dim=0)": "column-wise", "Shard(dim=1)": "row-wise"}
    parts = [f"{'/'.join(dict.fromkeys(names))}: {p}" + (f" ({words[p]})" if p in words else "")
             for p, names in split.items()]
    if whole:
        parts.append("whole on every tp rank: " + ", ".join(dict.fromkeys(whole)))
    return CheckItem(OK, f"Tensor parallelism active over tp {tp}", "; ".join(parts), key="mesh")


def _replicate_row(placements: dict, replicas: int) -> CheckItem:
    """Hybrid sharding: every parameter whole (Replicate) across the dp_replicate dimension."""
    on_dim = {name: by_dim.get("dp_replicate") for name, by_dim in placements.items()}
    kept = [name for name, p in on_dim.items() if p == "Replicate()"]
    if on_dim and len(kept) == len(on_dim):
        return CheckItem(OK, f"Hybrid sharding replicates over dp_replicate {replicas}",
                         f"all {len(kept)} parameter kinds are whole across the {replicas} replicas (Replicate()) "
                         "and sharded within each", key="mesh")
    other = sorted({str(p) for p in on_dim.values() if p != "Replicate()"})
    return CheckItem(FAIL, f"Hybrid sharding: not every parameter is replicated over dp_replicate {replicas}",
                     f"{len(on_dim) - len(kept)} of {len(on_dim)} parameter kinds are {', '.join(other)} on it",
                     key="mesh")


def _mesh_rows(effective: dict, expected: dict) -> list[CheckItem]:
    """The device mesh the run built against the config's, and the placements it gave the parameters."""
    want = expected.get("mesh")
    if not want:
        return []
    got = effective.get("mesh")
    if got is None:
        return [CheckItem(FAIL, f"Device mesh {mesh_text(want)} requested, the run built none",
                          "accelerate read no parallelism_config", key="mesh")]
    rows = [CheckItem(OK if dict(got) == want else FAIL, f"Device mesh {mesh_text(got)}",
                      "" if dict(got) == want else f"config asks for {mesh_text(want)}", key="mesh")]
    placements = effective.get("placements") or {}
    if want.get("tp", 1) > 1:
        rows.append(_tp_rows(placements, want["tp"]))
    if want.get("dp_replicate", 1) > 1 and placements:
        rows.append(_replicate_row(placements, want["dp_replicate"]))
    fsdp_dim = next((d for by_dim in placements.values() for d in by_dim if d in _FSDP_DIMS), None)
    if fsdp_dim is not None:
        sharded = sum(1 for by_dim in placements.values() if "Shard" in by_dim.get(fsdp_dim, ""))
        rows.append(CheckItem(OK if sharded else FAIL, f"FSDP shards over the {fsdp_dim} dimension",
                              f"{sharded} of {len(placements)} parameter kinds sharded along it", key="mesh"))
    return rows


def _sp_rows(effective: dict, expected: dict) -> list[CheckItem]:
    """DeepSpeed Ulysses: the share of each sequence one rank computed (the bundled script reports it on its first
    batch), against the sp size asked for."""
    sp = expected.get("sp")
    if not sp:
        return []
    tokens, seq = effective.get("sp_tokens_per_rank"), effective.get("seq_len")
    if tokens is None or not seq:
        return [CheckItem(UNKNOWN, f"Sequence parallelism (sp {sp})",
                          "the script did not report the length of the sequences a rank computes", key="sp")]
    if int(tokens) * int(sp) == int(seq):
        return [CheckItem(OK, f"Sequence parallelism active over sp {sp}",
                          f"each rank computes {tokens} of the {seq} tokens of every sequence (Ulysses)", key="sp")]
    return [CheckItem(FAIL, f"Sequence parallelism sp {sp} did not split the sequences as asked",
                      f"each rank computed {tokens} of {seq} tokens", key="sp")]


def _autotp_rows(effective: dict, expected: dict) -> list[CheckItem]:
    """DeepSpeed AutoTP: the layers the engine replaced with its tensor-parallel ones."""
    size = expected.get("autotp")
    if not size:
        return []
    layers = effective.get("autotp_layers") or {}
    if not layers:
        return [CheckItem(FAIL, f"DeepSpeed AutoTP (autotp_size {size}) replaced no layer",
                          "every linear layer is whole on every rank", key="autotp")]
    words = {"LinearLayer": "split by output rows", "LinearAllreduce": "split by input columns, summed over tp"}
    detail = "; ".join(f"{n} x {cls} ({words.get(cls, '?')})" for cls, n in sorted(layers.items()))
    return [CheckItem(OK, f"DeepSpeed AutoTP active over tp {size}", detail, key="autotp")]


def _compare(effective: dict, expected: dict) -> list[CheckItem]:
    items: list[CheckItem] = []
    want = expected.get("distributed_type")
    got = str(effective.get("distributed_type") or "NO").upper()
    world = int(effective.get("world_size") or 1)
    launched = effective.get("launched_world_size") or effective.get("dist_world_size")
    exp_world = expected.get("world_size")

    # --- distribution
    if want in ("FSDP", "DEEPSPEED") and got != want:
        how = "no distribution" if got == "NO" else got
        label = "FSDP" if want == "FSDP" else "DeepSpeed"
        extra = ""
        if got == "NO" and launched and int(launched) > 1:
            extra = (f"; the launcher started {launched} processes and each trains its own unsynchronised copy "
                     "(accelerate found no GPU: rehearse this config with --rehearse)")
        elif got == "MULTI_CPU":
            extra = "; ACCELERATE_USE_CPU turned it into plain data parallelism"
        items.append(CheckItem(FAIL, f"{label} requested but accelerate runs with {how}",
                               f"distributed_type={got}{extra}"))
    elif want:
        items.append(CheckItem(OK, f"Distributed type {got}", f"backend {effective.get('backend')}"))

    # --- world size
    if exp_world:
        if world == int(exp_world):
            items.append(CheckItem(OK, f"World size {world}", "every process joined one process group",
                                   key="world_size"))
        else:
            items.append(CheckItem(FAIL, f"World size {world}, config asks for {exp_world}",
                                   f"processes launched: {launched}" if launched else "", key="world_size"))
    reported = effective.get("ranks_reported")
    if reported is not None and reported < world:
        items.append(CheckItem(WARN, f"{reported} of {world} ranks reported their setup"))

    fraction = effective.get("param_fraction")
    ranks = effective.get("ranks") or []
    fractions = [r.get("param_fraction") for r in ranks if r.get("param_fraction") is not None] or [fraction]
    worst = max((f for f in fractions if f is not None), default=None)
    full = effective.get("full_param_numel")
    local = effective.get("local_param_numel")

    # --- FSDP
    if want == "FSDP" and got == "FSDP":
        v_want, v_got = expected.get("fsdp_version"), effective.get("fsdp_version")
        if v_want is not None:
            items.append(CheckItem(OK if v_want == v_got else FAIL, f"FSDP{v_got} active",
                                   "" if v_want == v_got else f"config asks for FSDP{v_want}"))
        s_want, s_got = expected.get("sharding"), effective.get("sharding")
        s_got = sharding_strategy_name(s_got) or s_got  # torch names FSDP1's member _HYBRID_SHARD_ZERO2
        if s_want:
            same = s_want == s_got or (s_want.startswith("HYBRID") and s_got in ("FULL_SHARD", "SHARD_GRAD_OP"))
            items.append(CheckItem(OK if same else FAIL, f"Sharding strategy {s_got}",
                                   "" if s_want == s_got else f"config asks for {s_want}", key="sharding"))
        if s_got in SHARDING_STRATEGIES and s_got != "NO_SHARD":
            # hybrid sharding shards within each replica: a rank holds 1/(world / dp_replicate)
            group = max(1, world // int((expected.get("mesh") or {}).get("dp_replicate", 1)))
            if _sharded_fraction_ok(worst, group):
                items.append(CheckItem(OK, f"FSDP sharding active: each rank holds {_fraction_text(group)} of the "
                                           "parameters", f"{local:,} of {full:,} on rank 0" if full else ""))
            elif world > 1:
                items.append(CheckItem(FAIL, "Parameters are not sharded",
                                       f"rank 0 holds {worst:.0%} of them" if worst is not None else "no numbers"))
        items += _mesh_rows(effective, expected)
        wrap_want = expected.get("wrap_classes")
        units = effective.get("wrapped_units") or {}
        if wrap_want:
            found = [c for c in wrap_want if units.get(c)]
            if found:
                items.append(CheckItem(OK, "Wrapped " + ", ".join(f"{units[c]} x {c}" for c in found),
                                       key="wrap_classes"))
            else:
                items.append(CheckItem(FAIL, "No layer was wrapped with " + ", ".join(wrap_want),
                                       "only the root module is an FSDP unit: one big all-gather", key="wrap_classes"))
    # --- DeepSpeed
    if want == "DEEPSPEED" and got == "DEEPSPEED":
        z_want, z_got = expected.get("zero_stage"), effective.get("zero_stage")
        if z_want is not None:
            items.append(CheckItem(OK if z_want == z_got else FAIL, f"ZeRO stage {z_got}",
                                   "" if z_want == z_got else f"config asks for stage {z_want}"))
        if z_got == 3:
            if _sharded_fraction_ok(worst, world):
                items.append(CheckItem(OK, f"ZeRO-3 active: each rank holds {_fraction_text(world)} of the "
                                           "parameters", f"{local:,} of {full:,} on rank 0" if full else ""))
            elif world > 1:
                items.append(CheckItem(FAIL, "ZeRO-3 requested but parameters are not partitioned",
                                       f"rank 0 holds {worst:.0%}" if worst is not None else ""))
        items += _sp_rows(effective, expected) + _autotp_rows(effective, expected)
        if z_got in (1, 2) and world > 1:
            opt_bytes = effective.get("optimizer_state_bytes") or 0
            if full and opt_bytes:
                # AdamW keeps two fp32 tensors per parameter
                share = opt_bytes / (2 * 4 * full)
                if share <= 1.0 / world + 0.05:
                    items.append(CheckItem(OK, f"ZeRO-{z_got} active: each rank holds {_fraction_text(world)} of "
                                               "the optimizer state; parameters are replicated",
                                           f"{opt_bytes:,} bytes of optimizer state on rank 0"))
                else:
                    items.append(CheckItem(WARN, f"Optimizer state on rank 0 is {share:.0%} of a full copy",
                                           f"ZeRO-{z_got} should leave {_fraction_text(world)}"))
            else:
                items.append(CheckItem(UNKNOWN, "Optimizer-state partitioning",
                                       "no optimizer state reported yet (it appears after the first step)"))

    items += _trainer_rows(effective, expected)

    # --- offload
    off_want = expected.get("offload")
    off_got = effective.get("offload")
    if off_want and off_got and got in ("FSDP", "DEEPSPEED"):
        same = all(str(off_want.get(k, "none")) == str(off_got.get(k, "none")) for k in ("params", "optimizer"))
        text = ", ".join(f"{k} -> {off_got.get(k, 'none')}" for k in ("params", "optimizer"))
        items.append(CheckItem(OK if same else FAIL, f"Offload: {text}",
                               "" if same else "config asks for " + ", ".join(f"{k} -> {off_want.get(k)}"
                                                                             for k in ("params", "optimizer")),
                               key="offload"))

    # --- precision and dtypes
    mp_want = expected.get("mixed_precision")
    mp_got = effective.get("mixed_precision")
    if mp_want is not None and mp_got is not None:
        items.append(CheckItem(OK if str(mp_want) == str(mp_got) else FAIL, f"Mixed precision {mp_got}",
                               "" if str(mp_want) == str(mp_got) else f"config asks for {mp_want}",
                               key="mixed_precision"))
    dtypes = [f"{name} {effective.get(key)}" for name, key in
              (("parameters", "param_dtype"), ("compute", "compute_dtype"), ("gradients", "grad_dtype"),
               ("reduce", "reduce_dtype"), ("optimizer state", "optimizer_state_dtype"))
              if effective.get(key)]
    if dtypes:
        items.append(CheckItem(INFO, "dtypes: " + ", ".join(dtypes)))
    if effective.get("compat_layer"):
        items.append(CheckItem(INFO, "Ran through the CPU rehearsal compatibility layer",
                               str(effective["compat_layer"])))
    return items


def checklist_ok(items: list[CheckItem]) -> bool:
    return not any(i.status == FAIL for i in items)


def verdict(items: list[CheckItem]) -> str:
    """One line: which settings took effect and which were not rehearsed (never a bare "took effect"). A row that
    checked the rehearsal's value in place of the config's is not counted as taking effect: the setting is among
    those not rehearsed."""
    if not items:
        return ""
    fails = [i.label for i in items if i.status == FAIL]
    oks = [i for i in items if i.status == OK and not i.rehearsed]
    skipped = [i.label.removeprefix(NOT_REHEARSED_PREFIX) for i in items if i.status == NOT_REHEARSED]
    unknown = next((i for i in items if i.status == UNKNOWN and i.key == "effective_setup"), None)
    parts = []
    if unknown is not None:
        parts.append(f"effective setup unknown ({unknown.detail})")
    if fails:
        parts.append("SETTINGS DID NOT ALL TAKE EFFECT: " + "; ".join(fails))
    if unknown is None:
        parts.append(f"took effect: {len(oks)} setting" + ("" if len(oks) == 1 else "s"))
    if skipped:
        parts.append("not rehearsed: " + ", ".join(skipped))
    return "; ".join(parts)
