"""The conversion of answers to another target, one step per settings group (:func:`target_answers`).

Each step reads the source as it ran (:func:`~.effect.in_effect`) and the answers built so far, sets the closest values
the new config really writes, and emits a ``convert-*`` finding for each change. The steps run in the order of
:data:`STEPS`: sharding first, since the ZeRO stage it settles decides what the others can write."""
from __future__ import annotations

import re
from collections.abc import Callable

from ..answers import Answers
from ..answers.render import processes_per_node, zero_stage
from ..catalog import DEEPSPEED, FSDP1, FSDP2, SETTING_BY_ID, SETTINGS, SHARDING, TARGET_LABELS
from ..findings import Finding
from ..i18n import said
from ..recordclass import record
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
from .common import Out, leaf_keys, native, nonhybrid, prefetch_name, show_value
from .effect import in_effect

_PREFETCH_DS = ("prefetch.ds_bucket_size", "prefetch.ds_param_persistence_threshold",
                "prefetch.ds_model_persistence_threshold", "prefetch.ds_max_live_parameters",
                "prefetch.ds_max_reuse_distance")
_PREFETCH_FSDP1 = ("prefetch.backward", "prefetch.forward")
_SPECIFIC = frozenset({*_PREFETCH_DS, *_PREFETCH_FSDP1, "deepspeed.extra", "offload.nvme_path", "deepspeed.config_file",
                       "precision.ds_bf16_master_weights", "training.activation_checkpointing",
                       "training.activation_checkpointing_offload"})
"""Dropped settings with a finding of their own (not the generic ``convert-dropped``); ``deepspeed.config_file`` only
says how the DeepSpeed settings were written (a JSON file or inline), which FSDP has no use for."""


@record
class Step:
    """What every step reads: the source as it ran, the target, the answers built so far."""

    source: Answers
    to: str
    out: Out
    source_ds: dict | None
    """The original DeepSpeed JSON, when there was one (names the raw keys in the messages)."""

    @property
    def t0(self) -> str:
        return self.source.target

    @property
    def v(self) -> dict:
        return self.out.values

    @property
    def label0(self) -> str:
        return TARGET_LABELS[self.t0]

    @property
    def label1(self) -> str:
        return TARGET_LABELS[self.to]

    @property
    def to_fsdp(self) -> bool:
        return self.to in (FSDP1, FSDP2)

    @property
    def from_ds(self) -> bool:
        return self.t0 == DEEPSPEED

    @property
    def machines(self) -> int:
        return self.v["launch.num_machines"]

    @property
    def per_node(self) -> int:
        return processes_per_node(self.source)

    @property
    def stage(self) -> int:
        """The ZeRO stage of the strategy the answers hold now (after the sharding step: the converted one)."""
        return SHARDING[self.v["sharding.strategy"]][2]


def sharding(c: Step) -> None:
    """Sharding: the strategy closest to the source's, where the new target has no twin."""
    out, v, to, t0, source_ds = c.out, c.v, c.to, c.t0, c.source_ds
    label0, label1, machines, per_node = c.label0, c.label1, c.machines, c.per_node
    to_fsdp, from_ds = c.to_fsdp, c.from_ds
    strategy = v["sharding.strategy"]
    if strategy.startswith("hybrid") and machines == 1:  # DeepSpeed sources: see in_effect
        out.set("sharding.strategy", nonhybrid(strategy))
        was = ("FSDP1's HYBRID_SHARD groups the GPUs of one machine, so on one machine it is FULL_SHARD already"
               if t0 == FSDP1 else "FSDP2's replicate groups inside one machine (parallelism_config "
               f"dp_replicate_size, parallelism.dp_replicate_size) have no form on {label1}, whose hybrid forms "
               "replicate across machines only (FSDP1's HYBRID_SHARD, DeepSpeed's hpZ)")
        out.emit(CONVERT_HYBRID_ONE_MACHINE, ("sharding.strategy", "launch.num_machines"),
                 f"{strategy} with launch.num_machines 1: {was}; the {label1} config writes {nonhybrid(strategy)} "
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


def offload(c: Step) -> None:
    """Offload: FSDP's one switch against DeepSpeed's separate optimizer and parameter devices (and NVMe)."""
    out, v, source, to, t0 = c.out, c.v, c.source, c.to, c.t0
    to_fsdp, from_ds, stage = c.to_fsdp, c.from_ds, c.stage
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
                   "for DeepSpeedCPUAdam (Adagrad and Lion get their CPU versions), built from its parameter "
                   "groups, so an SGD ran as Adam (claim ds-offload-replaces-torch-optimizer)")
            out.emit(CONVERT_CPU_OPTIMIZER, ("offload.optimizer",),
                     f"{how}. Under FSDP offload the script's own torch optimizer steps on the CPU as it is "
                     "(SGD stays SGD)")
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
                         "get their CPU versions), built from its parameter groups, so an SGD runs as Adam (claim "
                         "ds-offload-replaces-torch-optimizer); a C++ op compiled on first use")
    elif to_fsdp and t0 in (FSDP1, FSDP2):
        pass  # same single switch on both versions


def zero3_only(c: Step) -> None:
    """Loading and the full save, which DeepSpeed reads at ZeRO-3 only."""
    out, v, to, label0, stage = c.out, c.v, c.to, c.label0, c.stage
    if to == DEEPSPEED and stage < 3:
        for sid, default_says in (("loading.ram_efficient", said("every rank loads the whole model "
                                                                  "(zero3_init_flag is off below ZeRO-3)")),
                                  ("checkpoint.format", said("the full save is a ZeRO-3 option; ZeRO-0/1/2 "
                                                             "checkpoints hold the whole weights once and per-rank "
                                                             "optimizer state"))):
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


def precision(c: Step) -> None:
    """Mixed precision across backends, and DeepSpeed's bf16 master weights."""
    out, v, source, to, t0 = c.out, c.v, c.source, c.to, c.t0
    label0, label1, to_fsdp, from_ds = c.label0, c.label1, c.to_fsdp, c.from_ds
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


def prefetch(c: Step) -> None:
    """Prefetch: ZeRO-3's knobs and FSDP1's modes, which no other target has."""
    out, v, source, to, t0 = c.out, c.v, c.source, c.to, c.t0
    to_fsdp, from_ds, stage = c.to_fsdp, c.from_ds, c.stage
    if to_fsdp and from_ds:
        knobs = [sid for sid in _PREFETCH_DS if source.is_set(sid)]
        if knobs and zero_stage(source) == 3:
            there = (said("FSDP1 prefetches one unit ahead: the config writes fsdp_backward_prefetch "
                          f"{prefetch_name(v['prefetch.backward'])} and fsdp_forward_prefetch "
                          f"{show_value(v['prefetch.forward'])}") if to == FSDP1 else
                     said("FSDP2 has no prefetch options in the config (only set_modules_to_forward_prefetch and "
                          "set_modules_to_backward_prefetch in code); it prefetches the next unit by itself"))
            shown = ", ".join(f"{native(sid)} {show_value(source[sid])}" for sid in knobs)
            out.emit(CONVERT_PREFETCH, tuple(knobs),
                     f"ZeRO-3's prefetch and persistence knobs do not carry over ({shown}): {there}; what is "
                     "gathered at once is bounded by the wrapping units instead. Not written")
    elif t0 == FSDP1 and to != FSDP1:
        knobs = [sid for sid in _PREFETCH_FSDP1 if source.is_set(sid)]
        if knobs:
            shown = ", ".join(f"{native(sid)} {show_value(source[sid])}" for sid in knobs)
            there = (said("ZeRO-3 prefetches by itself once it has recorded a step's module order, up to "
                          "stage3_prefetch_bucket_size elements (default 50,000,000)") if to == DEEPSPEED and stage == 3
                     else said("DeepSpeed below ZeRO-3 gathers nothing, so there is nothing to prefetch")
                     if to == DEEPSPEED else said("FSDP2 prefetches the next unit by itself and has no config option"))
            out.emit(CONVERT_PREFETCH, tuple(knobs), f"FSDP1's prefetch settings do not carry over ({shown}): "
                     f"{there}. Not written")


def ds_json_keys(c: Step) -> None:
    """DeepSpeed JSON keys without a wizard setting (and its optimizer and scheduler blocks)."""
    out, source, to_fsdp, from_ds = c.out, c.source, c.to_fsdp, c.from_ds
    extra = source["deepspeed.extra"] if from_ds else {}
    if to_fsdp and extra:
        # each leaf key, except the optimizer and scheduler blocks, named as blocks (their own finding follows)
        listed = sorted(leaf_keys({k: val for k, val in extra.items() if k not in ("optimizer", "scheduler")})
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


def activation_checkpointing(c: Step) -> None:
    """Activation checkpointing: an FSDP config key, no DeepSpeed one."""
    out, source, to, t0, label0 = c.out, c.source, c.to, c.t0, c.label0
    if to == DEEPSPEED and t0 != DEEPSPEED and source["training.activation_checkpointing"]:
        keys = ["training.activation_checkpointing"] + (
            ["training.activation_checkpointing_offload"] if source["training.activation_checkpointing_offload"]
            else [])
        out.emit(CONVERT_AC, tuple(keys),
                 f"{label0} checkpointed activations from the config (fsdp_activation_checkpointing); accelerate "
                 "has no DeepSpeed switch for it, so unless the script calls model.gradient_checkpointing_enable() "
                 "(the HF Trainer: gradient_checkpointing=True) every activation is kept: much more GPU memory. "
                 "Not written")


def torch_compile(c: Step) -> None:
    """torch.compile: DeepSpeed launches never get dynamo_config."""
    out, source, to, label0 = c.out, c.source, c.to, c.label0
    if to == DEEPSPEED and source["launch.dynamo_backend"] != "no":
        keys = [s.id for s in SETTINGS if s.id.startswith("launch.dynamo_") and source.is_set(s.id)]
        out.emit(CONVERT_COMPILE, tuple(keys) or ("launch.dynamo_backend",),
                 f"{label0} compiled the model from the config (dynamo_config, backend "
                 f"{source['launch.dynamo_backend']}); accelerate launch exports no dynamo settings for DeepSpeed, "
                 "so the converted run is not compiled unless the script calls torch.compile. Not written")
        for s in SETTINGS:
            if s.id.startswith("launch.dynamo_"):
                out.reset(s.id)


_BACKEND_PART = re.compile(r"; (?=(?:DeepSpeed|FSDP[12]?): )")


def _counterpart_on(counterpart: str, label: str) -> tuple[bool, str]:
    """The catalogue's counterpart line said for the target ``label``: (True, the part written for that backend
    ("DeepSpeed: ...", "FSDP: ..." for FSDP1 and FSDP2) without its name, which the sentence already says), or
    (False, the whole line) when no part is that backend's; without the final period, which the sentence writes
    (" DeepSpeed's counterpart: transparent."). (False, "") when there is none."""
    if not counterpart:
        return False, ""
    for part in _BACKEND_PART.split(counterpart):
        name, sep, rest = part.partition(": ")
        if sep and name in (label, "FSDP" if label.startswith("FSDP") else label):
            return True, rest.rstrip(".")
    return False, counterpart.rstrip(".")


def dropped(c: Step) -> None:
    """Everything else the new target has no place for: reset, and said so."""
    out, source, to, t0, label1 = c.out, c.source, c.to, c.t0, c.label1
    for s in SETTINGS:
        if s.group == "backend" or s.applies_to(to):
            continue
        # hybrid replicas inside one machine: convert-hybrid-single-machine (the sharding step) said it already
        told = s.id == "parallelism.dp_replicate_size" and c.machines == 1
        if source.is_set(s.id) and s.applies_to(t0) and s.id not in _SPECIFIC and not told:
            why = s.not_applicable.get(to, "")  # the catalogue's texts, each a placeholder of its own (translated)
            mine, counterpart = _counterpart_on(s.counterpart, label1)
            head = f"{s.id} = {show_value(source[s.id])} ({native(s.id, t0)}) has no place on {label1}: "
            # the target's name as words of the sentence, not a placeholder: after {why} and a space it could not
            # be told from the reason's own words
            owner = "DeepSpeed's" if to == DEEPSPEED else "FSDP1's" if to == FSDP1 else "FSDP2's"
            out.emit(CONVERT_DROPPED, (s.id,), head + (f"{why} {owner} counterpart: {counterpart}. Not written"
                                                       if mine else f"{why} Counterpart: {counterpart}. Not written"
                                                       if counterpart else f"{why} Not written"))
        out.reset(s.id)


STEPS: tuple[Callable[[Step], None], ...] = (sharding, offload, zero3_only, precision, prefetch, ds_json_keys,
                                            activation_checkpointing, torch_compile, dropped)
"""The steps of a conversion, in order."""


def target_answers(source: Answers, to: str, *, source_ds: dict | None = None,
                   quiet: bool = False) -> tuple[Answers, list[Finding]]:
    """``source`` converted for target ``to``: the closest values the new config really writes, the settings it has
    no place for reset to their defaults, and a finding for each change (rules ``convert-*``). ``source_ds``: the
    original DeepSpeed JSON, when there was one (names the raw keys in the messages). The source is first taken as
    it really ran (:func:`in_effect`)."""
    ran, first = in_effect(source, quiet=quiet)
    out = Out(dict(ran.values), set(ran.explicit), list(first))
    out.set("backend", "deepspeed" if to == DEEPSPEED else "fsdp")
    if to != DEEPSPEED:
        out.set("fsdp_version", 1 if to == FSDP1 else 2)
    else:
        out.reset("fsdp_version")
    step = Step(ran, to, out, source_ds)
    for run in STEPS:
        run(step)
    return out.answers(), out.findings
