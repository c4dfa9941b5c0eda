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

from ..core.i18n import said
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

    def render(self, lang: str | None = None) -> str:
        """``[ok]   World size 2: every process joined one process group``; English unless ``lang`` names another
        language (then the label and detail as :func:`in_language` shows them)."""
        mark = {OK: "[ok]  ", FAIL: "[FAIL]", WARN: "[warn]", INFO: "[info]", UNKNOWN: "[?]   ",
                NOT_REHEARSED: "[--]  "}[self.status]
        if self.status == OK and self.rehearsed:
            mark = "[~ok] "  # held at the rehearsal's value, not the config's: not counted as taken effect
        label, detail = (self.label, self.detail) if lang is None else (in_language(self.label, lang),
                                                                        in_language(self.detail, lang))
        return f"{mark} {label}" + (f": {detail}" if detail else "")


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
        return [CheckItem(FAIL, said("The Hugging Face Trainer did not drive the run"),
                          said(f"the script reported loop {effective.get('loop') or 'none'}"), key="trainer")]
    dist = str(effective.get("distributed_type") or "").upper()
    names = _TRAINER_GOT.get(dist, _TRAINER_GOT["FSDP"])
    who = "DeepSpeed's engine" if dist == "DEEPSPEED" else "the Trainer"
    rows = []
    rows_of = ("micro_batch", "gradient_accumulation_steps", "clipping")
    for key, got_key in zip(rows_of, names, strict=True):
        got, exp = effective.get(got_key), want[key]
        if got is None:
            rows.append(CheckItem(UNKNOWN, said("Micro batch: not reported" if key == "micro_batch" else
                                                "Gradient accumulation: not reported" if key == rows_of[1] else
                                                "Gradient clipping: not reported"), key="trainer"))
            continue
        same = float(got) == float(exp)
        shown = f"{float(got):g}" if key == "clipping" else str(int(got))
        label = said(f"Micro batch {shown} ({who})" if key == "micro_batch" else
                     f"Gradient accumulation {shown} ({who})" if key == "gradient_accumulation_steps" else
                     f"Gradient clipping {shown} ({who})")
        rows.append(CheckItem(OK if same else FAIL, label,
                              "" if same else said(f"config and TrainingArguments ask for {exp:g}"), key="trainer"))
    opt = effective.get("optimizer_class") or "?"
    source = ("the DeepSpeed JSON's optimizer block" if effective.get("ds_optimizer_from_config")
              else "created by the Trainer (optim in TrainingArguments)")
    rows.insert(0, CheckItem(INFO, said("Trained by the Hugging Face Trainer"),
                             said(f"TrainingArguments from {want.get('from') or 'training_arguments.json'}; optimizer "
                                  f"{opt}, {source}"),
                             key="trainer"))
    return rows


def _fraction_text(world: int) -> str:
    return _FRACTION_WORDS.get(world, f"1/{world}")


def _holds_parameters(fsdp: bool, n: int) -> str:
    """``FSDP sharding active: each rank holds half of the parameters`` (ZeRO-3's with ``fsdp`` false): each share in
    words its own sentence, so a translation says the share in its words."""
    f = _fraction_text(n)
    head = "FSDP sharding active" if fsdp else "ZeRO-3 active"
    return said(f"{head}: each rank holds half of the parameters" if n == 2 else
                f"{head}: each rank holds a third of the parameters" if n == 3 else
                f"{head}: each rank holds a quarter of the parameters" if n == 4 else
                f"{head}: each rank holds an eighth of the parameters" if n == 8 else
                f"{head}: each rank holds {f} of the parameters")


def _holds_optimizer_state(stage: int, n: int) -> str:
    """``ZeRO-2 active: each rank holds half of the optimizer state; parameters are replicated``."""
    f = _fraction_text(n)
    return said(f"ZeRO-{stage} active: each rank holds half of the optimizer state; parameters are replicated" if n == 2
                else f"ZeRO-{stage} active: each rank holds a third of the optimizer state; parameters are replicated"
                if n == 3 else
                f"ZeRO-{stage} active: each rank holds a quarter of the optimizer state; parameters are replicated"
                if n == 4 else
                f"ZeRO-{stage} active: each rank holds an eighth of the optimizer state; parameters are replicated"
                if n == 8 else
                f"ZeRO-{stage} active: each rank holds {f} of the optimizer state; parameters are replicated")


def _should_leave(stage: int, n: int) -> str:
    """``ZeRO-2 should leave half``: the share of the optimizer state a rank should hold."""
    f = _fraction_text(n)
    return said(f"ZeRO-{stage} should leave half" if n == 2 else f"ZeRO-{stage} should leave a third" if n == 3 else
                f"ZeRO-{stage} should leave a quarter" if n == 4 else
                f"ZeRO-{stage} should leave an eighth" if n == 8 else f"ZeRO-{stage} should leave {f}")


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
        rows.append(CheckItem(NOT_REHEARSED, said(f"Not rehearsed: {short}"), str(adj.get("why") or ""),
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
            item.label = said(f"{item.label} (rehearsed; config: {', '.join(asked[item.key])})")
            item.rehearsed = True


def compare(effective: dict | None, expected: dict, *, not_rehearsed: list[dict] | None = None,
            unknown_why: str | None = None) -> list[CheckItem]:
    """The checklist rows; ``not_rehearsed``: the rehearsal's changes (each becomes a row); ``unknown_why``:
    why there is no effective setup, when ``effective`` is empty (the run was stopped, or crashed, first)."""
    if not effective:
        why = unknown_why or said("the script reported none (call wizard.runtime.RunReporter.setup after prepare())")
        return [CheckItem(UNKNOWN, said("Effective setup unknown"), why, key="effective_setup"),
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
        return CheckItem(FAIL, said(f"Tensor parallelism (tp {tp}) did not split any parameter"),
                         said("every parameter is whole on the tp dimension: accelerate skips TP for a model that was "
                              "not loaded with a TP plan (from_pretrained(..., tp_plan=\"auto\", device_mesh=...))"),
                         key="mesh")
    parts = [_split_part("/".join(dict.fromkeys(names)), p) for p, names in split.items()]
    if whole:
        parts.append(said(f"whole on every tp rank: {', '.join(dict.fromkeys(whole))}"))
    return CheckItem(OK, said(f"Tensor parallelism active over tp {tp}"), "; ".join(parts), key="mesh")


def _split_part(names: str, placement: str) -> str:
    """``q_proj/k_proj: Shard(dim=0) (column-wise)``: how tensor parallelism split these parameters."""
    if placement == "Shard(dim=0)":
        return said(f"{names}: {placement} (column-wise)")
    if placement == "Shard(dim=1)":
        return said(f"{names}: {placement} (row-wise)")
    return f"{names}: {placement}"


def _replicate_row(placements: dict, replicas: int) -> CheckItem:
    """Hybrid sharding: every parameter whole (Replicate) across the dp_replicate dimension."""
    on_dim = {name: by_dim.get("dp_replicate") for name, by_dim in placements.items()}
    kept = [name for name, p in on_dim.items() if p == "Replicate()"]
    if on_dim and len(kept) == len(on_dim):
        return CheckItem(OK, said(f"Hybrid sharding replicates over dp_replicate {replicas}"),
                         said(f"all {len(kept)} parameter kinds are whole across the {replicas} replicas (Replicate()) "
                              "and sharded within each"), key="mesh")
    other = sorted({str(p) for p in on_dim.values() if p != "Replicate()"})
    return CheckItem(FAIL, said(f"Hybrid sharding: not every parameter is replicated over dp_replicate {replicas}"),
                     said(f"{len(on_dim) - len(kept)} of {len(on_dim)} parameter kinds are {', '.join(other)} on it"),
                     key="mesh")


def _mesh_rows(effective: dict, expected: dict) -> list[CheckItem]:
    """The device mesh the run built against the config's, and the placements it gave the parameters."""
    want = expected.get("mesh")
    if not want:
        return []
    got = effective.get("mesh")
    if got is None:
        return [CheckItem(FAIL, said(f"Device mesh {mesh_text(want)} requested, the run built none"),
                          said("accelerate read no parallelism_config"), key="mesh")]
    rows = [CheckItem(OK if dict(got) == want else FAIL, said(f"Device mesh {mesh_text(got)}"),
                      "" if dict(got) == want else said(f"config asks for {mesh_text(want)}"), key="mesh")]
    placements = effective.get("placements") or {}
    if want.get("tp", 1) > 1:
        rows.append(_tp_rows(placements, want["tp"]))
    if want.get("dp_replicate", 1) > 1 and placements:
        rows.append(_replicate_row(placements, want["dp_replicate"]))
    fsdp_dim = next((d for by_dim in placements.values() for d in by_dim if d in _FSDP_DIMS), None)
    if fsdp_dim is not None:
        sharded = sum(1 for by_dim in placements.values() if "Shard" in by_dim.get(fsdp_dim, ""))
        rows.append(CheckItem(OK if sharded else FAIL, said(f"FSDP shards over the {fsdp_dim} dimension"),
                              said(f"{sharded} of {len(placements)} parameter kinds sharded along it"), key="mesh"))
    return rows


def _sp_rows(effective: dict, expected: dict) -> list[CheckItem]:
    """DeepSpeed Ulysses: the share of each sequence one rank computed (the bundled script reports it on its first
    batch), against the sp size asked for."""
    sp = expected.get("sp")
    if not sp:
        return []
    tokens, seq = effective.get("sp_tokens_per_rank"), effective.get("seq_len")
    if tokens is None or not seq:
        return [CheckItem(UNKNOWN, said(f"Sequence parallelism (sp {sp})"),
                          said("the script did not report the length of the sequences a rank computes"), key="sp")]
    if int(tokens) * int(sp) == int(seq):
        return [CheckItem(OK, said(f"Sequence parallelism active over sp {sp}"),
                          said(f"each rank computes {tokens} of the {seq} tokens of every sequence (Ulysses)"),
                          key="sp")]
    return [CheckItem(FAIL, said(f"Sequence parallelism sp {sp} did not split the sequences as asked"),
                      said(f"each rank computed {tokens} of {seq} tokens"), key="sp")]


def _autotp_rows(effective: dict, expected: dict) -> list[CheckItem]:
    """DeepSpeed AutoTP: the layers the engine replaced with its tensor-parallel ones."""
    size = expected.get("autotp")
    if not size:
        return []
    layers = effective.get("autotp_layers") or {}
    if not layers:
        return [CheckItem(FAIL, said(f"DeepSpeed AutoTP (autotp_size {size}) replaced no layer"),
                          said("every linear layer is whole on every rank"), key="autotp")]
    detail = "; ".join(_autotp_part(n, cls) for cls, n in sorted(layers.items()))
    return [CheckItem(OK, said(f"DeepSpeed AutoTP active over tp {size}"), detail, key="autotp")]


def _autotp_part(n: int, cls: str) -> str:
    """``4 x LinearLayer (split by output rows)``: how many layers AutoTP replaced with one of its classes."""
    if cls == "LinearLayer":
        return said(f"{n} x {cls} (split by output rows)")
    if cls == "LinearAllreduce":
        return said(f"{n} x {cls} (split by input columns, summed over tp)")
    return f"{n} x {cls} (?)"


def _compare(effective: dict, expected: dict) -> list[CheckItem]:
    items: list[CheckItem] = []
    want = expected.get("distributed_type")
    got = str(effective.get("distributed_type") or "NO").upper()
    world = int(effective.get("world_size") or 1)
    launched = effective.get("launched_world_size") or effective.get("dist_world_size")
    exp_world = expected.get("world_size")

    # --- distribution
    if want in ("FSDP", "DEEPSPEED") and got != want:
        label = "FSDP" if want == "FSDP" else "DeepSpeed"
        detail = f"distributed_type={got}"
        if got == "NO" and launched and int(launched) > 1:
            detail = said(f"distributed_type={got}; the launcher started {launched} processes and each trains its own "
                          "unsynchronised copy (accelerate found no GPU: rehearse this config with --rehearse)")
        elif got == "MULTI_CPU":
            detail = said(f"distributed_type={got}; ACCELERATE_USE_CPU turned it into plain data parallelism")
        items.append(CheckItem(FAIL, said(f"{label} requested but accelerate runs with no distribution") if got == "NO"
                               else said(f"{label} requested but accelerate runs with {got}"), detail))
    elif want:
        items.append(CheckItem(OK, said(f"Distributed type {got}"), said(f"backend {effective.get('backend')}")))

    # --- world size
    if exp_world:
        if world == int(exp_world):
            items.append(CheckItem(OK, said(f"World size {world}"), said("every process joined one process group"),
                                   key="world_size"))
        else:
            items.append(CheckItem(FAIL, said(f"World size {world}, config asks for {exp_world}"),
                                   said(f"processes launched: {launched}") if launched else "", key="world_size"))
    reported = effective.get("ranks_reported")
    if reported is not None and reported < world:
        items.append(CheckItem(WARN, said(f"{reported} of {world} ranks reported their setup")))

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
                                   "" if v_want == v_got else said(f"config asks for FSDP{v_want}")))
        s_want, s_got = expected.get("sharding"), effective.get("sharding")
        s_got = sharding_strategy_name(s_got) or s_got  # torch names FSDP1's member _HYBRID_SHARD_ZERO2
        if s_want:
            same = s_want == s_got or (s_want.startswith("HYBRID") and s_got in ("FULL_SHARD", "SHARD_GRAD_OP"))
            items.append(CheckItem(OK if same else FAIL, said(f"Sharding strategy {s_got}"),
                                   "" if s_want == s_got else said(f"config asks for {s_want}"), key="sharding"))
        if s_got in SHARDING_STRATEGIES and s_got != "NO_SHARD":
            # hybrid sharding shards within each replica: a rank holds 1/(world / dp_replicate)
            group = max(1, world // int((expected.get("mesh") or {}).get("dp_replicate", 1)))
            if _sharded_fraction_ok(worst, group):
                items.append(CheckItem(OK, _holds_parameters(True, group),
                                       said(f"{local:,} of {full:,} on rank 0") if full else ""))
            elif world > 1:
                items.append(CheckItem(FAIL, said("Parameters are not sharded"),
                                       said(f"rank 0 holds {worst:.0%} of them") if worst is not None
                                       else said("no numbers")))
        items += _mesh_rows(effective, expected)
        wrap_want = expected.get("wrap_classes")
        units = effective.get("wrapped_units") or {}
        if wrap_want:
            found = [c for c in wrap_want if units.get(c)]
            if found:
                items.append(CheckItem(OK, said(f"Wrapped {', '.join(f'{units[c]} x {c}' for c in found)}"),
                                       key="wrap_classes"))
            else:
                items.append(CheckItem(FAIL, said(f"No layer was wrapped with {', '.join(wrap_want)}"),
                                       said("only the root module is an FSDP unit: one big all-gather"),
                                       key="wrap_classes"))
    # --- DeepSpeed
    if want == "DEEPSPEED" and got == "DEEPSPEED":
        z_want, z_got = expected.get("zero_stage"), effective.get("zero_stage")
        if z_want is not None:
            items.append(CheckItem(OK if z_want == z_got else FAIL, said(f"ZeRO stage {z_got}"),
                                   "" if z_want == z_got else said(f"config asks for stage {z_want}")))
        if z_got == 3:
            if _sharded_fraction_ok(worst, world):
                items.append(CheckItem(OK, _holds_parameters(False, world),
                                       said(f"{local:,} of {full:,} on rank 0") if full else ""))
            elif world > 1:
                items.append(CheckItem(FAIL, said("ZeRO-3 requested but parameters are not partitioned"),
                                       said(f"rank 0 holds {worst:.0%}") if worst is not None else ""))
        items += _sp_rows(effective, expected) + _autotp_rows(effective, expected)
        if z_got in (1, 2) and world > 1:
            opt_bytes = effective.get("optimizer_state_bytes") or 0
            if full and opt_bytes:
                # AdamW keeps two fp32 tensors per parameter
                share = opt_bytes / (2 * 4 * full)
                if share <= 1.0 / world + 0.05:
                    items.append(CheckItem(OK, _holds_optimizer_state(z_got, world),
                                           said(f"{opt_bytes:,} bytes of optimizer state on rank 0")))
                else:
                    items.append(CheckItem(WARN, said(f"Optimizer state on rank 0 is {share:.0%} of a full copy"),
                                           _should_leave(z_got, world)))
            else:
                items.append(CheckItem(UNKNOWN, said("Optimizer-state partitioning"),
                                       said("no optimizer state reported yet (it appears after the first step)")))

    items += _trainer_rows(effective, expected)

    # --- offload
    off_want = expected.get("offload")
    off_got = effective.get("offload")
    if off_want and off_got and got in ("FSDP", "DEEPSPEED"):
        same = all(str(off_want.get(k, "none")) == str(off_got.get(k, "none")) for k in ("params", "optimizer"))
        text = ", ".join(f"{k} -> {off_got.get(k, 'none')}" for k in ("params", "optimizer"))
        items.append(CheckItem(OK if same else FAIL, f"Offload: {text}",
                               "" if same else said("config asks for " + ", ".join(f"{k} -> {off_want.get(k)}"
                                                                                  for k in ("params", "optimizer"))),
                               key="offload"))

    # --- precision and dtypes
    mp_want = expected.get("mixed_precision")
    mp_got = effective.get("mixed_precision")
    if mp_want is not None and mp_got is not None:
        items.append(CheckItem(OK if str(mp_want) == str(mp_got) else FAIL, said(f"Mixed precision {mp_got}"),
                               "" if str(mp_want) == str(mp_got) else said(f"config asks for {mp_want}"),
                               key="mixed_precision"))
    dtypes = [f"{name} {effective.get(key)}" for name, key in
              (("parameters", "param_dtype"), ("compute", "compute_dtype"), ("gradients", "grad_dtype"),
               ("reduce", "reduce_dtype"), ("optimizer state", "optimizer_state_dtype"))
              if effective.get(key)]
    if dtypes:
        items.append(CheckItem(INFO, "dtypes: " + ", ".join(dtypes)))
    if effective.get("compat_layer"):
        items.append(CheckItem(INFO, said("Ran through the CPU rehearsal compatibility layer"),
                               str(effective["compat_layer"])))
    return items


def checklist_ok(items: list[CheckItem]) -> bool:
    return not any(i.status == FAIL for i in items)


def verdict(items: list[CheckItem], lang: str | None = None) -> str:
    """One line: which settings took effect and which were not rehearsed (never a bare "took effect"). A row that
    checked the rehearsal's value in place of the config's is not counted as taking effect: the setting is among
    those not rehearsed. English (the records' and scripts' line) unless ``lang`` names another language: then each
    of its parts, and the rows' labels it names, in that language (:func:`in_language`)."""
    if not items:
        return ""

    def shown(text: str) -> str:
        return text if lang is None else in_language(text, lang)

    fails = [shown(i.label) for i in items if i.status == FAIL]
    oks = [i for i in items if i.status == OK and not i.rehearsed]
    skipped = [i.label.removeprefix(NOT_REHEARSED_PREFIX) for i in items if i.status == NOT_REHEARSED]
    if lang is not None and skipped:  # the short names in the run screen's words, as their own rows say them
        from .rehearse import short_in_language

        skipped = [short_in_language(s, lang) for s in skipped]
    unknown = next((i for i in items if i.status == UNKNOWN and i.key == "effective_setup"), None)
    parts = []
    if unknown is not None:
        parts.append(said(f"effective setup unknown ({shown(unknown.detail)})"))
    if fails:  # in capitals in English (the records' line); the translations stress it in their own way
        joined = "; ".join(fails)
        parts.append(f"SETTINGS DID NOT ALL TAKE EFFECT: {joined}" if lang is None else
                     said(f"Settings did not all take effect: {joined}"))
    if unknown is None:
        parts.append(said(f"took effect: {len(oks)} setting" + ("" if len(oks) == 1 else "s")))
    if skipped:
        listed = "、".join(skipped) if lang is not None and _wide(skipped) else ", ".join(skipped)
        parts.append(said(f"not rehearsed: {listed}"))
    if lang is None:
        return "; ".join(parts)
    shown_parts = [_said(part, lang) for part in parts]
    return ("；" if _wide(shown_parts) else "; ").join(shown_parts)


def _wide(texts: list[str]) -> bool:
    """Whether any of ``texts`` is Chinese (two cells a character): its lists are joined by 、 and ；."""
    from ..core.i18n.cells import has_wide

    return any(has_wide(t) for t in texts)


def _said(text: str, lang: str | None) -> str:
    from ..core import localized

    return localized.said(text, lang)


_REHEARSED = " (rehearsed; config: "
_WORD_ROWS = (("Wrapped ", "row.wrapped", "units"), ("Offload: ", "row.offload", "moves"),
              ("dtypes: ", "row.dtypes", "dtypes"))
"""Rows of one word and values (no sentence for a template): their words are the run screen's (part
``screen-run``), under these keys."""
_DTYPE_NAMES = {"parameters": "dtype.parameters", "compute": "dtype.compute", "gradients": "dtype.gradients",
                "reduce": "dtype.reduce", "optimizer state": "dtype.optimizer_state"}


def _word_row(text: str, lang: str | None) -> str | None:
    """A row of :data:`_WORD_ROWS` in the language (None for another text): its word translated, values as written;
    in the dtypes row each dtype's name too."""
    from ..core import localized

    for prefix, key, name in _WORD_ROWS:
        if text.startswith(prefix):
            rest = text[len(prefix):]
            if key == "row.dtypes":
                parts = []
                for part in rest.split(", "):
                    what, _, dtype = part.rpartition(" ")
                    word = localized.screen("run", _DTYPE_NAMES[what], lang) if what in _DTYPE_NAMES else what
                    parts.append(f"{word} {dtype}")
                rest = ", ".join(parts)
            return localized.screen("run", key, lang, **{name: rest})
    return None


def in_language(text: str, lang: str | None = None) -> str:
    """A row's label or detail as a screen shows it in the language (the rows keep the English: the records and
    scripts read them): its template's translation (``localized.said``) with keys and values as written. A row the
    rehearsal held at its own value has its label translated and then the " (rehearsed; config: ...)" note; a detail
    of parts joined by "; " (tensor parallelism's placements) has each part translated."""
    if not text:
        return text
    base, sep, rest = text.rpartition(_REHEARSED)
    if sep and base and rest.endswith(")"):
        return _said(said(f"{in_language(base, lang)} (rehearsed; config: {rest[:-1]})"), lang)
    from ..core import localized

    if text.startswith("Not rehearsed: "):  # not_rehearsed_items: the short name in the run screen's words too
        from .rehearse import short_in_language

        return localized.said("Not rehearsed: " + short_in_language(text.removeprefix("Not rehearsed: "), lang), lang)
    row = _word_row(text, lang)
    if row is not None:
        return row
    whole = localized.said(text, lang)
    if whole == text and "; " in text:
        return "; ".join(localized.said(part, lang) for part in text.split("; "))
    return whole
