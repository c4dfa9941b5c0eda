"""Converting between targets (FSDP1, FSDP2, DeepSpeed): the switch report both the TUI and ``fsdpds-wizard
convert`` show, and the conversion of an imported config into answers for another target, with a finding for
everything whose meaning changes or that cannot carry over (docs/convert.md).

:func:`switch_report` says, for a change of target, what carried over (and how it is written now), what was dropped
and what carried with another meaning (:func:`wizard.core.texts.meaning_changes`). The TUI's switch screen
(``wizard.tui.shared.switch``) shows it; :func:`convert_answers` builds on it.

A conversion keeps the answers' intent and writes what the new target really does: where the new target has no exact
twin (ZeRO-1 on FSDP, partial offload on FSDP, NVMe on FSDP, HYBRID_SHARD_ZERO2 on DeepSpeed, ...), the converted
answers hold the closest value the new config writes, so ``answers.yaml`` and the written config say the same thing,
and a finding names the change. Settings the new target has no place for are reset to their defaults and listed.

:func:`round_trip` converts the written config back (rendered, re-imported, converted to the source target) and
compares the *intent*: the settings that both targets' config files hold (:func:`intent_ids`).

Pure and light: stdlib plus the wizard's core (no torch, accelerate, deepspeed or transformers).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..catalog import DEEPSPEED, FSDP1, FSDP2, SETTING_BY_ID, SETTINGS, SHARDING, TARGET_LABELS
from ..findings import ERROR, WARNING, Finding, dedupe, sort_findings
from .model import Answers
from .render import Rendered, processes_per_node, render, zero_stage

_ALWAYS_SHOWN = ("sharding.strategy", "offload.optimizer", "offload.params", "loading.ram_efficient",
                 "checkpoint.format", "precision.mixed_precision")
"""Shown in a switch report's "carried" list whenever their written form changes, stated or not."""


# ------------------------------------------------------------------------------------------------ the switch report
@dataclass(frozen=True)
class CarryLine:
    setting_id: str
    label: str
    value: str
    before: str
    after: str
    reason: str = ""


@dataclass(frozen=True)
class MeaningLine:
    setting_id: str
    value: str
    text: str


@dataclass(frozen=True)
class SwitchReport:
    before: str
    after: str
    carried: tuple[CarryLine, ...]
    dropped: tuple[CarryLine, ...]
    new_findings: tuple[Finding, ...]
    changed_meaning: tuple[MeaningLine, ...] = ()
    """Answers that carried over but behave differently on the new target (a loss to report, too)."""

    @property
    def empty(self) -> bool:
        return not (self.carried or self.dropped or self.new_findings or self.changed_meaning)

    @property
    def lossless(self) -> bool:
        """Nothing dropped, nothing new to fix, nothing that means something else now."""
        return not (self.dropped or self.new_findings or self.changed_meaning)


_MISSING = object()


def rendered_value(rendered: Rendered, path: str) -> tuple[str, Any] | None:
    """(file, value) for a provenance path of the rendered accelerate YAML (``yaml``) or DeepSpeed JSON (``json``)."""
    for name, data in (("yaml", rendered.accelerate), ("json", rendered.deepspeed)):
        node: Any = data
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                node = _MISSING
                break
            node = node[part]
        if node is not _MISSING and not isinstance(node, dict):
            return name, node
    return None


def written_for(rendered: Rendered, setting_id: str) -> list[tuple[str, str, Any]]:
    """Every (file, key, value) the setting produced in this render: the keys the catalogue declares for it, in
    that order, where this render wrote them for it (a setting without declared keys, ``deepspeed.extra``: every key
    it wrote)."""
    from ..catalog.writes import keys_of

    declared = keys_of(setting_id)
    paths = [key for _, key in declared] if declared else list(rendered.provenance)
    out = []
    for path in paths:
        sid = rendered.provenance.get(path)
        if sid != setting_id and setting_id not in rendered.shared.get(path, ()):
            continue
        found = rendered_value(rendered, path)
        if found is not None:
            out.append((found[0], path, found[1]))
    return out


def show_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)


def _written_text(rendered: Rendered, sid: str, target: str) -> str:
    items = written_for(rendered, sid)
    if not items:
        s = SETTING_BY_ID[sid]
        if s.applies_to(target):
            return f"(via {s.where[target].split('.', 1)[-1]})"
        return "(not written)"
    return ", ".join(f"{path.rsplit('.', 1)[-1] if file == 'yaml' else path}: {show_value(v)}"
                     for file, path, v in items[:2])


def switch_report(before: Answers, after: Answers, r_before: Rendered, r_after: Rendered,
                  f_before: list[Finding], f_after: list[Finding]) -> SwitchReport:
    """What a change of backend or FSDP version did to each stated intent."""
    from ..texts import meaning_changes

    t0, t1 = before.target, after.target
    carried: list[CarryLine] = []
    dropped: list[CarryLine] = []
    meaning: list[MeaningLine] = []
    for s in SETTINGS:
        if s.group == "backend":
            continue
        stated = before.is_set(s.id) or s.id in _ALWAYS_SHOWN
        if not stated:
            continue
        value = show_value(before[s.id])
        if s.applies_to(t0) and not s.applies_to(t1):
            if before.is_set(s.id):
                dropped.append(CarryLine(s.id, s.label, value, _written_text(r_before, s.id, t0), "(not written)",
                                         s.not_applicable.get(t1, "")))
            continue
        if s.applies_to(t1):
            b, a = _written_text(r_before, s.id, t0), _written_text(r_after, s.id, t1)
            if b != a:
                carried.append(CarryLine(s.id, s.label, value, b, a))
            if s.applies_to(t0):
                meaning.extend(MeaningLine(s.id, value, text) for text in meaning_changes(s.id, before[s.id], t0, t1))
    old = {(f.rule, f.keys) for f in f_before}
    new = tuple(f for f in f_after if (f.rule, f.keys) not in old and f.severity in (ERROR, WARNING))
    return SwitchReport(TARGET_LABELS[t0], TARGET_LABELS[t1], tuple(carried), tuple(dropped), new, tuple(meaning))


# ------------------------------------------------------------------------------------------------ conversion
TARGET_CHOICES = ("deepspeed", "fsdp")
"""What ``--to`` takes; ``fsdp`` with an FSDP version (default 2)."""

_SCRIPT_SIDE = frozenset(s.id for s in SETTINGS if not any(t in s.writes for t in (FSDP1, FSDP2)))
"""Settings no FSDP config file holds (training values, the script, the loop): on FSDP they live in answers.yaml only
(and the script)."""

_PREFETCH_DS = ("prefetch.ds_bucket_size", "prefetch.ds_param_persistence_threshold",
                "prefetch.ds_model_persistence_threshold", "prefetch.ds_max_live_parameters",
                "prefetch.ds_max_reuse_distance")
_PREFETCH_FSDP1 = ("prefetch.backward", "prefetch.forward")
_SPECIFIC = frozenset({*_PREFETCH_DS, *_PREFETCH_FSDP1, "deepspeed.extra", "offload.nvme_path", "deepspeed.config_file",
                       "precision.ds_bf16_master_weights", "training.activation_checkpointing",
                       "training.activation_checkpointing_offload"})
"""Dropped settings with a finding of their own (not the generic ``convert-dropped``); ``deepspeed.config_file`` only
says how the DeepSpeed settings were written (a JSON file or inline), which FSDP has no use for."""


def target_for(to: str, fsdp_version: int | None = None) -> str:
    """``--to deepspeed|fsdp`` (+ ``--fsdp-version``, default 2) -> a target id."""
    if to == "deepspeed":
        return DEEPSPEED
    return FSDP1 if fsdp_version == 1 else FSDP2


def intent_ids(a: str, b: str) -> tuple[str, ...]:
    """The settings both targets' config files hold: the intent a conversion there and back keeps. Settings that
    only answers.yaml (and the script) hold on one side, such as gradient accumulation on FSDP, are not in it."""
    out = []
    for s in SETTINGS:
        if s.group == "backend" or not (s.applies_to(a) and s.applies_to(b)):
            continue
        if s.id in _SCRIPT_SIDE and DEEPSPEED in (a, b) and a != b:
            continue
        if not (a in s.writes and b in s.writes):
            continue
        out.append(s.id)
    return tuple(out)


def intent(answers: Answers, other: str) -> dict[str, Any]:
    """The answers restricted to :func:`intent_ids` of their target and ``other``."""
    return {sid: answers[sid] for sid in intent_ids(answers.target, other)}


@dataclass
class _Out:
    """The converted values and the findings about them, built up by :func:`target_answers`."""

    values: dict[str, Any]
    explicit: set[str]
    findings: list[Finding] = field(default_factory=list)

    def emit(self, rule: str, keys: tuple[str, ...] | list[str], message: str, fix: str = "") -> None:
        from ..rules import RULES

        info = RULES[rule]
        self.findings.append(Finding(info.severity, rule, tuple(keys), message, fix or info.fix,
                                     "fsdpds-wizard convert"))

    def set(self, sid: str, value: Any) -> None:
        self.values[sid] = value
        self.explicit.add(sid)

    def reset(self, sid: str) -> None:
        self.values[sid] = SETTING_BY_ID[sid].default
        self.explicit.discard(sid)

    def answers(self) -> Answers:
        return Answers(self.values, frozenset(self.explicit))


def _nonhybrid(strategy: str) -> str:
    return {"hybrid_full": "full", "hybrid_grads_optimizer": "grads_optimizer"}.get(strategy, strategy)


def in_effect(a: Answers, *, quiet: bool = False) -> tuple[Answers, list[Finding]]:
    """The answers as their own target really runs them: values the backend does not apply (parameter offload below
    ZeRO-3, an optimizer offload at ZeRO-0, NVMe below ZeRO-3, zero3_init_flag below ZeRO-3 and off at ZeRO-3,
    torch.compile under DeepSpeed, hpZ on one machine, a wrap threshold or class list the wrap policy does not read)
    replaced by what runs, with one ``convert-not-in-effect`` finding per stated value (none when ``quiet``)."""
    from ..wizard_rules import CONVERT_NOT_IN_EFFECT

    out = _Out(dict(a.values), set(a.explicit))
    t = a.target
    changes: list[tuple[str, str]] = []

    def becomes(sid: str, value: Any, why: str) -> None:
        if a[sid] == value:
            return
        if a.is_set(sid):
            changes.append((sid, f"{sid} = {show_value(a[sid])} {why}"))
        out.set(sid, value)

    if t == DEEPSPEED:
        stage = zero_stage(a)
        if stage < 3:
            becomes("offload.params", "none", f"(ZeRO-{stage} reads no parameter offload)")
        if stage == 0:
            becomes("offload.optimizer", "none", "(ZeRO-0 cannot offload: DeepSpeedCPUAdam asserts at start)")
        elif stage < 3 and a["offload.optimizer"] == "nvme":
            becomes("offload.optimizer", "cpu", f"(ZeRO-{stage} offloads to CPU whatever the device)")
        becomes("loading.ram_efficient", stage == 3, "(zero3_init_flag is off below ZeRO-3, and at ZeRO-3 false "
                "does not stop from_pretrained's zero.Init)")
        if stage < 3:
            becomes("checkpoint.format", SETTING_BY_ID["checkpoint.format"].default,
                    "(zero3_save_16bit_model is read at ZeRO-3 only)")
        if a["launch.dynamo_backend"] != "no":
            becomes("launch.dynamo_backend", "no", "(accelerate launch passes no dynamo_config to DeepSpeed runs)")
            for s in SETTINGS:
                if s.id.startswith("launch.dynamo_") and s.id != "launch.dynamo_backend":
                    becomes(s.id, s.default, "(no torch.compile from the config under DeepSpeed)")
        if a["sharding.strategy"].startswith("hybrid") and a["launch.num_machines"] == 1:
            becomes("sharding.strategy", _nonhybrid(a["sharding.strategy"]),
                    "(the wizard writes hpZ for several machines only; hpZ's secondary partition on one machine "
                    "has no FSDP form)")
    else:
        if t == FSDP2 and a["checkpoint.format"] == "local":
            becomes("checkpoint.format", "sharded", "(FSDP2 has no LOCAL_STATE_DICT; the wizard writes SHARDED)")
        policy = a["wrapping.policy"]
        if policy != "size":
            becomes("wrapping.min_num_params", SETTING_BY_ID["wrapping.min_num_params"].default,
                    f"(read only by the size policy, not by {policy})")
        if policy != "transformer":
            becomes("wrapping.layer_classes", [], f"(read only by the transformer policy, not by {policy})")
    if changes and not quiet:
        out.emit(CONVERT_NOT_IN_EFFECT, tuple(sid for sid, _ in changes),
                 f"the original {TARGET_LABELS[t]} config states values it did not apply: "
                 + "; ".join(text for _, text in changes) + ". Converted as the backend applied them")
    return out.answers(), out.findings


def target_answers(source: Answers, to: str, *, source_ds: dict | None = None,
                   quiet: bool = False) -> tuple[Answers, list[Finding]]:
    """``source`` converted for target ``to``: the closest values the new config really writes, the settings it has
    no place for reset to their defaults, and a finding for each change (rules ``convert-*``). ``source_ds``: the
    original DeepSpeed JSON, when there was one (names the raw keys in the messages). The source is first taken as
    it really ran (:func:`in_effect`)."""
    from ..wizard_rules import (
        CONVERT_AC,
        CONVERT_BF16_MASTER,
        CONVERT_COMPILE,
        CONVERT_CPU_OPTIMIZER,
        CONVERT_DROPPED,
        CONVERT_DS_EXTRA,
        CONVERT_DS_OPTIMIZER,
        CONVERT_HYBRID,
        CONVERT_HYBRID_ONE_MACHINE,
        CONVERT_HYBRID_ZERO2,
        CONVERT_NVME,
        CONVERT_OFFLOAD_ALL,
        CONVERT_OFFLOAD_STAGE,
        CONVERT_PRECISION,
        CONVERT_PREFETCH,
        CONVERT_ZERO0,
        CONVERT_ZERO1,
        CONVERT_ZERO3_ONLY,
    )

    source, first = in_effect(source, quiet=quiet)
    t0 = source.target
    backend = "deepspeed" if to == DEEPSPEED else "fsdp"
    out = _Out(dict(source.values), set(source.explicit), list(first))
    out.set("backend", backend)
    if to != DEEPSPEED:
        out.set("fsdp_version", 1 if to == FSDP1 else 2)
    else:
        out.reset("fsdp_version")
    v = out.values
    label0, label1 = TARGET_LABELS[t0], TARGET_LABELS[to]
    machines = v["launch.num_machines"]
    per_node = processes_per_node(source)
    to_fsdp, from_ds = to in (FSDP1, FSDP2), t0 == DEEPSPEED

    # ---- sharding
    strategy = v["sharding.strategy"]
    if strategy.startswith("hybrid") and machines == 1:  # DeepSpeed sources: see in_effect
        out.set("sharding.strategy", _nonhybrid(strategy))
        was = ("FSDP1's HYBRID_SHARD groups the GPUs of one machine, so on one machine it is FULL_SHARD already"
               if t0 == FSDP1 else "FSDP2's replicate groups inside one machine (parallelism_config "
               "dp_replicate_size) have no form in the answers, which replicate across machines only")
        out.emit(CONVERT_HYBRID_ONE_MACHINE, ("sharding.strategy", "launch.num_machines"),
                 f"{strategy} with launch.num_machines 1: {was}; the {label1} config writes {_nonhybrid(strategy)} "
                 "(hybrid forms need launch.num_machines above 1)")
    elif strategy == "optimizer" and to_fsdp:
        out.set("sharding.strategy", "grads_optimizer")
        closest = "fsdp_sharding_strategy: SHARD_GRAD_OP" if to == FSDP1 else "fsdp_reshard_after_forward: false"
        out.emit(CONVERT_ZERO1, ("sharding.strategy",),
                 f"ZeRO-1 shards only the optimizer state (fp32 master weights and Adam moments) and keeps full "
                 f"16-bit parameters and gradients on every GPU; FSDP has no such mode, so the {label1} config "
                 f"writes the closest, {closest} (= ZeRO-2 in memory terms): gradients are sharded too, and "
                 "parameters are sharded between steps and all-gathered for each forward, then kept until the "
                 "backward is done. Per GPU that is less memory than ZeRO-1 (gradients and, at rest, parameters "
                 "divided by the GPU count) for one parameter all-gather per step more")
    elif strategy == "none" and to == FSDP2:
        out.set("sharding.strategy", "grads_optimizer")
        out.emit(CONVERT_ZERO0, ("sharding.strategy",),
                 f"{label0} kept every parameter, gradient and optimizer state whole on each GPU; FSDP2 has no "
                 "NO_SHARD, so the config writes fsdp_reshard_after_forward: false, which shards gradients and "
                 "optimizer state and, between steps, the parameters (less memory, more communication)")
    elif strategy == "hybrid_grads_optimizer" and to == DEEPSPEED:
        out.set("sharding.strategy", "grads_optimizer")
        out.emit(CONVERT_HYBRID_ZERO2, ("sharding.strategy", "launch.num_machines"),
                 "HYBRID_SHARD_ZERO2 sharded gradients and optimizer state within each machine and replicated "
                 "them across machines; DeepSpeed has no hybrid ZeRO-2 (hpZ is a ZeRO-3 option), so the config "
                 f"writes plain ZeRO-2 over all {v['launch.num_processes']} GPUs: less memory per GPU, and the "
                 "gradient reduce-scatter now crosses machines")
    elif strategy == "hybrid_full" and machines > 1:
        hpz = None
        if from_ds and isinstance(source_ds, dict):
            z = source_ds.get("zero_optimization")
            hpz = z.get("zero_hpz_partition_size") if isinstance(z, dict) else None
        if to == DEEPSPEED:
            out.emit(CONVERT_HYBRID, ("sharding.strategy", "launch.num_machines", "launch.num_processes"),
                     f"{label0}'s hybrid sharding (shard within each machine, replicate across the "
                     f"{machines} machines) becomes ZeRO-3 with ZeRO++ hpZ, zero_hpz_partition_size: {per_node}: "
                     "hpZ keeps a second copy of the parameter shards within each machine for the backward "
                     "all-gather, but gradients and optimizer state are partitioned over all "
                     f"{v['launch.num_processes']} GPUs, not replicated per machine. Per GPU: less optimizer and "
                     "gradient memory than HYBRID_SHARD, plus the secondary parameter partition "
                     f"(parameters / {per_node}); the gradient reduce-scatter crosses machines")
        else:
            what = (f"zero_hpz_partition_size: {hpz}" if hpz is not None else "ZeRO++ hpZ")
            form = ("fsdp_sharding_strategy: HYBRID_SHARD" if to == FSDP1 else
                    f"parallelism_config dp_replicate_size {machines} x dp_shard_size {per_node}")
            differs = (f"; hpZ grouped {hpz} ranks, HYBRID_SHARD groups the {per_node} GPUs of each machine"
                       if isinstance(hpz, int) and not isinstance(hpz, bool) and hpz != per_node else "")
            out.emit(CONVERT_HYBRID, ("sharding.strategy", "launch.num_machines", "launch.num_processes"),
                     f"ZeRO-3 with {what} becomes {form}: parameters, gradients and optimizer state are sharded "
                     f"within each machine's {per_node} GPUs and replicated across the {machines} machines, where "
                     "hpZ partitioned gradients and optimizer state over every GPU and kept only a second copy of "
                     "the parameter shards per machine. Per GPU: more optimizer and gradient memory than hpZ, no "
                     f"secondary partition; gradients are all-reduced across machines{differs}")
    strategy = v["sharding.strategy"]
    stage = SHARDING[strategy][2]

    # ---- offload
    opt, par = v["offload.optimizer"], v["offload.params"]
    if to_fsdp and from_ds:
        eff_opt, eff_par = opt, par  # as DeepSpeed ran them (in_effect)
        if "nvme" in (eff_opt, eff_par):
            keys = [k for k in ("offload.optimizer", "offload.params") if v[k] == "nvme"]
            out.emit(CONVERT_NVME, (*keys, "offload.nvme_path"),
                     "FSDP cannot offload to NVMe: what DeepSpeed kept on NVMe "
                     f"({', '.join(k.split('.')[1] for k in keys)}) is CPU offload now and must fit in host RAM; "
                     f"offload.nvme_path {show_value(source['offload.nvme_path'])} is not written")
        if (eff_opt == "none") != (eff_par == "none"):
            only = "the optimizer state" if eff_par == "none" else "the parameters"
            out.emit(CONVERT_OFFLOAD_ALL, ("offload.optimizer", "offload.params"),
                     f"DeepSpeed offloaded only {only}; FSDP's one switch (fsdp_offload_params: true) also moves "
                     "the parameters and gradients to the CPU and runs the optimizer step there: less GPU memory "
                     "than before, a slower step (every step copies gradients to the CPU and parameters back)")
        if eff_opt != "none" or eff_par != "none":
            out.set("offload.optimizer", "cpu")
            out.set("offload.params", "cpu")
        else:
            out.set("offload.optimizer", "none")
            out.set("offload.params", "none")
        if eff_opt != "none":
            block = isinstance((source["deepspeed.extra"] or {}).get("optimizer"), dict)
            how = ("DeepSpeed built its CPU optimizer from the JSON's optimizer block" if block else
                   "DeepSpeed stepped in its own CPU optimizer: accelerate swapped the script's torch optimizer "
                   "for DeepSpeedCPUAdam (Adagrad and Lion get their CPU versions; only lr and weight_decay are "
                   "kept)")
            out.emit(CONVERT_CPU_OPTIMIZER, ("offload.optimizer",),
                     f"{how}. Under FSDP offload the script's own torch optimizer steps on the CPU, with its own "
                     "arguments (betas, eps, and SGD stays SGD)")
    elif to == DEEPSPEED and not from_ds:
        fsdp_on = opt != "none" or par != "none"
        if fsdp_on:
            out.set("offload.optimizer", "cpu")
            out.set("offload.params", "cpu")
            if stage == 0:
                out.set("offload.optimizer", "none")
                out.set("offload.params", "none")
                out.emit(CONVERT_OFFLOAD_STAGE, ("offload.optimizer", "offload.params", "sharding.strategy"),
                         "FSDP offloaded parameters, gradients and the optimizer step; ZeRO-0 cannot offload "
                         "anything (DeepSpeedCPUAdam would assert, the parameters stay on the GPU), so the "
                         "DeepSpeed config offloads nothing: the whole training state stays on each GPU")
            elif stage < 3:
                out.set("offload.params", "none")
                out.emit(CONVERT_OFFLOAD_STAGE, ("offload.params", "sharding.strategy"),
                         f"FSDP offloaded the parameters too; ZeRO-{stage} reads no parameter offload, so the "
                         "DeepSpeed config offloads only the optimizer (offload_optimizer.device: cpu): the "
                         "16-bit parameters and gradients stay on the GPU, more GPU memory than the FSDP run")
            if v["offload.optimizer"] != "none":
                out.emit(CONVERT_CPU_OPTIMIZER, ("offload.optimizer",),
                         "FSDP's offload ran the script's own torch optimizer step on the CPU; with DeepSpeed "
                         "optimizer offload accelerate swaps that optimizer for DeepSpeedCPUAdam (Adagrad and Lion "
                         "get their CPU versions; only lr and weight_decay are kept), a C++ op compiled on first "
                         "use")
    elif to_fsdp and t0 in (FSDP1, FSDP2):
        pass  # same single switch on both versions

    # ---- settings read only at ZeRO-3 by DeepSpeed
    if to == DEEPSPEED and stage < 3:
        for sid, default_says in (("loading.ram_efficient", "every rank loads the whole model (zero3_init_flag "
                                   "is off below ZeRO-3)"),
                                  ("checkpoint.format", "the full save is a ZeRO-3 option; ZeRO-0/1/2 checkpoints "
                                   "hold the whole weights once and per-rank optimizer state")):
            target_value = False if sid == "loading.ram_efficient" else SETTING_BY_ID[sid].default
            if v[sid] != target_value:
                stated = show_value(v[sid])
                out.set(sid, target_value)
                if sid == "checkpoint.format":
                    out.reset(sid)
                out.emit(CONVERT_ZERO3_ONLY, (sid, "sharding.strategy"),
                         f"{sid} = {stated} has no ZeRO-{stage} form: {default_says}; the converted answers say "
                         f"{show_value(out.values[sid])}")

    if to == DEEPSPEED and stage == 3 and not v["loading.ram_efficient"]:
        out.set("loading.ram_efficient", True)
        out.emit(CONVERT_ZERO3_ONLY, ("loading.ram_efficient", "sharding.strategy"),
                 f"loading.ram_efficient = false has no ZeRO-3 form: at ZeRO-3 from_pretrained creates the model "
                 f"partitioned (zero.Init) whatever zero3_init_flag says, so the converted answers say true; "
                 f"{label0} loaded the whole model on every rank")

    # ---- precision
    mp = v["precision.mixed_precision"]
    if mp in ("bf16", "fp16", "fp8") and (to == DEEPSPEED) != (t0 == DEEPSPEED):
        if to_fsdp:
            text = (f"DeepSpeed cast the model to {mp if mp != 'fp8' else 'bf16'} and kept fp32 master weights and "
                    "Adam state in its optimizer partition (16 bytes per parameter: 2 weight, 2 gradient, 4 master, "
                    f"8 moments); {label1} with mixed precision upcasts the trainable parameters to fp32 and casts "
                    "them for each forward and backward (fp32 weight 4, fp32 gradient 4, moments 8: 16 bytes per "
                    "parameter, sharded by the strategy), so checkpoints hold fp32 weights")
        else:
            text = (f"{label0} kept fp32 trainable parameters and gradients and cast them per forward and backward; "
                    "DeepSpeed casts the model itself to 16 bits and keeps an fp32 master copy in the optimizer "
                    "partition (2 weight, 2 gradient, 4 master, 8 moments: 16 bytes per parameter); a model loaded "
                    "in fp32 is cast to 16 bits and its fp32 master is a second copy (20 bytes per parameter)")
        out.emit(CONVERT_PRECISION, ("precision.mixed_precision", "sharding.strategy"), text)
    if to_fsdp and source["precision.ds_bf16_master_weights"] not in (None, "fp32") and from_ds:
        kind = source["precision.ds_bf16_master_weights"]
        states = kind == "bf16_with_states"
        fsdp_keeps = (f"with mixed_precision {mp} it keeps fp32 weights, gradients and Adam state (16 bytes per "
                      "parameter), more memory than before" if mp != "no" else
                      "with mixed_precision no it keeps weights, gradients and Adam state in the dtype the script "
                      "loads the model in (loaded in bf16: 8 bytes per parameter, no separate master copy)")
        out.emit(CONVERT_BF16_MASTER, ("precision.ds_bf16_master_weights", "precision.mixed_precision"),
                 f"DeepSpeed kept bf16 master weights{' and bf16 Adam state' if states else ''} "
                 f"(bf16.bf16_master_weights_and_grads{', bf16_optimizer_states' if states else ''}); FSDP has no "
                 f"such option: {fsdp_keeps}. Not written")

    # ---- prefetch
    if to_fsdp and from_ds:
        knobs = [sid for sid in _PREFETCH_DS if source.is_set(sid)]
        if knobs and zero_stage(source) == 3:
            there = ("FSDP1 prefetches one unit ahead: the config writes fsdp_backward_prefetch "
                     f"{_prefetch_name(v['prefetch.backward'])} and fsdp_forward_prefetch "
                     f"{show_value(v['prefetch.forward'])}" if to == FSDP1 else
                     "FSDP2 has no prefetch options in the config (only set_modules_to_forward_prefetch and "
                     "set_modules_to_backward_prefetch in code); it prefetches the next unit by itself")
            shown = ", ".join(f"{_native(sid)} {show_value(source[sid])}" for sid in knobs)
            out.emit(CONVERT_PREFETCH, tuple(knobs),
                     f"ZeRO-3's prefetch and persistence knobs do not carry over ({shown}): {there}; what is "
                     "gathered at once is bounded by the wrapping units instead. Not written")
    elif t0 == FSDP1 and to != FSDP1:
        knobs = [sid for sid in _PREFETCH_FSDP1 if source.is_set(sid)]
        if knobs:
            shown = ", ".join(f"{_native(sid)} {show_value(source[sid])}" for sid in knobs)
            there = ("ZeRO-3 prefetches by itself once it has recorded a step's module order, up to "
                     "stage3_prefetch_bucket_size elements (default 50,000,000)" if to == DEEPSPEED and stage == 3
                     else "DeepSpeed below ZeRO-3 gathers nothing, so there is nothing to prefetch"
                     if to == DEEPSPEED else "FSDP2 prefetches the next unit by itself and has no config option")
            out.emit(CONVERT_PREFETCH, tuple(knobs), f"FSDP1's prefetch settings do not carry over ({shown}): "
                     f"{there}. Not written")

    # ---- DeepSpeed-only JSON keys
    extra = source["deepspeed.extra"] if from_ds else {}
    if to_fsdp and extra:
        # each leaf key, except the optimizer and scheduler blocks, named as blocks (their own finding follows)
        listed = sorted(_leaf_keys({k: val for k, val in extra.items() if k not in ("optimizer", "scheduler")})
                        + [k for k in ("optimizer", "scheduler") if k in extra])
        out.emit(CONVERT_DS_EXTRA, ("deepspeed.extra",),
                 f"{len(listed)} DeepSpeed JSON key(s) without a wizard setting have no FSDP place and are dropped: "
                 + ", ".join(listed))
        blocks = [b for b in ("optimizer", "scheduler") if isinstance(extra.get(b), dict)]
        if blocks:
            kinds = ", ".join(f"{b} ({extra[b].get('type', 'no type')})" for b in blocks)
            out.emit(CONVERT_DS_OPTIMIZER, ("deepspeed.extra", "launch.training_loop"),
                     f"the DeepSpeed JSON built the {' and the '.join(blocks)} itself ({kinds}); FSDP has nothing "
                     "like it. In an own Accelerator loop the script must now create a torch optimizer"
                     f"{' and scheduler' if 'scheduler' in blocks else ''} (DummyOptim/DummyScheduler do not work "
                     "without DeepSpeed); under the HF Trainer they come from TrainingArguments (optim, "
                     "learning_rate, lr_scheduler_type)")

    # ---- activation checkpointing (FSDP config key, no DeepSpeed key)
    if to == DEEPSPEED and t0 != DEEPSPEED and source["training.activation_checkpointing"]:
        keys = ["training.activation_checkpointing"] + (
            ["training.activation_checkpointing_offload"] if source["training.activation_checkpointing_offload"]
            else [])
        out.emit(CONVERT_AC, tuple(keys),
                 f"{label0} checkpointed activations from the config (fsdp_activation_checkpointing); accelerate "
                 "has no DeepSpeed switch for it, so unless the script calls model.gradient_checkpointing_enable() "
                 "(the HF Trainer: gradient_checkpointing=True) every activation is kept: much more GPU memory. "
                 "Not written")

    # ---- torch.compile: DeepSpeed launches never get dynamo_config
    if to == DEEPSPEED and source["launch.dynamo_backend"] != "no":
        keys = [s.id for s in SETTINGS if s.id.startswith("launch.dynamo_") and source.is_set(s.id)]
        out.emit(CONVERT_COMPILE, tuple(keys) or ("launch.dynamo_backend",),
                 f"{label0} compiled the model from the config (dynamo_config, backend "
                 f"{source['launch.dynamo_backend']}); accelerate launch exports no dynamo settings for DeepSpeed, "
                 "so the converted run is not compiled unless the script calls torch.compile. Not written")
        for s in SETTINGS:
            if s.id.startswith("launch.dynamo_"):
                out.reset(s.id)

    # ---- everything else the new target has no place for: reset, and say so
    for s in SETTINGS:
        if s.group == "backend" or s.applies_to(to):
            continue
        if source.is_set(s.id) and s.applies_to(t0) and s.id not in _SPECIFIC:
            why = s.not_applicable.get(to, "")
            counterpart = f" {label1}'s counterpart: {s.counterpart}" if s.counterpart else ""
            out.emit(CONVERT_DROPPED, (s.id,), f"{s.id} = {show_value(source[s.id])} ({_native(s.id, t0)}) has "
                     f"no place on {label1}: {why}{counterpart} Not written")
        out.reset(s.id)
    return out.answers(), out.findings


def _prefetch_name(value: str) -> str:
    return {"pre": "BACKWARD_PRE", "post": "BACKWARD_POST", "none": "NO_PREFETCH"}.get(value, value)


def _native(sid: str, target: str | None = None) -> str:
    """The config key a setting is written to (for ``target``, else its first), for messages."""
    s = SETTING_BY_ID[sid]
    targets = [target] if target else [t for t in (DEEPSPEED, FSDP1, FSDP2) if t in s.writes]
    for t in targets:
        for w in s.writes.get(t, ()):
            return w.key.rsplit(".", 1)[-1] if w.key.startswith(("deepspeed_config.", "fsdp_config.")) else w.key
    return sid


def _leaf_keys(tree: dict, prefix: str = "") -> list[str]:
    out: list[str] = []
    for k, val in tree.items():
        if isinstance(val, dict) and val:
            out.extend(_leaf_keys(val, f"{prefix}{k}."))
        else:
            out.append(f"{prefix}{k}")
    return out


@dataclass(frozen=True)
class Difference:
    setting_id: str
    before: Any
    after: Any

    def to_dict(self) -> dict:
        return {"setting": self.setting_id, "before": self.before, "after": self.after}


@dataclass
class Conversion:
    source: Answers
    """The answers imported from the original config."""
    answers: Answers
    """The converted answers (written as answers.yaml)."""
    report: SwitchReport
    findings: list[Finding]
    """The conversion's findings (``convert-*``) and the import notes, then the converted answers' own findings."""
    generated: Any
    """The :class:`~wizard.core.answers.generate.Generated` files for the output folder."""
    differences: tuple[Difference, ...] = ()
    """What converting the written config back changes in the intent of the original as it ran
    (:func:`round_trip`)."""

    @property
    def carried(self) -> tuple[CarryLine, ...]:
        """The switch report's carried lines whose value the conversion kept (the ones it changed have findings)."""
        ran, _ = in_effect(self.source, quiet=True)
        return tuple(c for c in self.report.carried if ran[c.setting_id] == self.answers[c.setting_id])

    @property
    def round_trip_stable(self) -> bool:
        return not self.differences

    @property
    def ok(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)


def meaning_findings(report: SwitchReport, handled: set[str]) -> list[Finding]:
    """The switch report's "carried over with another meaning" lines as findings (rule ``convert-meaning-changed``),
    except for settings a specific ``convert-*`` finding explains already."""
    from ..rules import RULES
    from ..wizard_rules import CONVERT_MEANING

    info = RULES[CONVERT_MEANING]
    return [Finding(info.severity, CONVERT_MEANING, (m.setting_id,), f"{m.setting_id} = {m.value}: {m.text}",
                    info.fix, "fsdpds-wizard convert")
            for m in report.changed_meaning if m.setting_id not in handled]


def convert_answers(source: Answers, to: str, out_dir: Path | None = None, *, source_ds: dict | None = None,
                    notes: list[Finding] | None = None, ds_path: str = "auto",
                    launch_dir: str | Path | None = None) -> Conversion:
    """Convert imported answers to target ``to`` and render the files for ``out_dir`` (see the module doc)."""
    from .generate import generate

    answers, conv = target_answers(source, to, source_ds=source_ds)
    g0 = generate(source, None)
    g1 = generate(answers, out_dir, ds_path=ds_path, launch_dir=launch_dir)
    report = switch_report(source, answers, g0.rendered, g1.rendered, g0.findings, g1.findings)
    handled = {k for f in conv for k in f.keys if f.rule != "convert-meaning-changed"}
    findings = list(notes or []) + conv + meaning_findings(report, handled) + g1.findings
    conversion = Conversion(source, answers, report, sort_findings(dedupe(findings)), g1)
    conversion.differences = round_trip(source, answers)
    return conversion


def round_trip(source: Answers, converted: Answers) -> tuple[Difference, ...]:
    """Convert the config written for ``converted`` back to ``source``'s target (rendered, re-imported, converted)
    and compare the intent (:func:`intent_ids`) with the source's as it ran (:func:`in_effect`): the differences, in
    catalogue order."""
    from .importer import import_mapping

    rendered = render(converted)
    back, _ = import_mapping(rendered.accelerate, rendered.deepspeed)
    if back is None:  # cannot happen for a rendered config; say everything differs rather than hide it
        return tuple(Difference(sid, source[sid], None) for sid in intent_ids(source.target, converted.target))
    again, _ = target_answers(back, source.target, source_ds=rendered.deepspeed, quiet=True)
    ran, _ = in_effect(source, quiet=True)
    ids = intent_ids(source.target, converted.target)
    return tuple(Difference(sid, ran[sid], again[sid]) for sid in ids
                 if effective_value(ran, sid) != effective_value(again, sid))


def effective_value(a: Answers, sid: str) -> Any:
    """An answer as it runs, for the round-trip comparison: a missing port with several machines is 29500."""
    if sid == "launch.main_process_port" and a[sid] is None and a["launch.num_machines"] > 1:
        return 29500
    return a[sid]


__all__ = ["CarryLine", "Conversion", "Difference", "MeaningLine", "SwitchReport", "TARGET_CHOICES",
           "convert_answers", "effective_value", "in_effect", "intent", "intent_ids", "meaning_findings",
           "rendered_value", "round_trip", "show_value", "switch_report", "target_answers", "target_for", "written_for"]
