"""Rank configs from both backends for one model and one cluster, and say why (issue 10, "Recommend"). Pure, stdlib
only at import time, like :mod:`.estimate`.

:func:`recommend` builds candidate :class:`~wizard.core.answers.Answers` (FSDP2 full shard and reshard False, FSDP2
hybrid over several nodes, FSDP1 FULL_SHARD and NO_SHARD, FSDP2 with CPU offload, DeepSpeed ZeRO-1/2/3, ZeRO-3 hpZ
over several nodes, ZeRO-2/3 with optimizer offload, ZeRO-3 with parameter and optimizer offload), each on ``base``
when given, runs :func:`~.estimate.estimate` on each, drops those the wizard's rules call an error (as ``generate``
reports them: the answer rules and the config rules over the files written), and ranks the rest (the order is
:data:`RANKING`, written out in docs/memory.md "Recommend"):

1. fitting first (:mod:`.fit`, as ``estimate`` says it): the estimated per-rank peak leaves ``headroom`` (a fraction
   of the GPU memory) free, and, with ``host_memory_gib``, the host holds what the estimate puts there; not fitting
   ones follow, least short first;
2. least offload: none < optimizer offload < parameters and optimizer (FSDP's one switch moves both);
3. full-precision master weights before DeepSpeed's bf16 master weights (offered only where they decide fitting);
4. no activation checkpointing before activation checkpointing (offered only where it decides fitting);
   then no tensor, context or sequence parallelism before them (tried only when no layout fits without offload:
   long sequences), smaller sizes first, context and sequence parallelism before tensor parallelism (see
   :func:`parallel_why`);
5. least communication: no sharding < ZeRO-1 < ZeRO-2 / reshard False < FSDP2 hybrid (HSDP) across nodes < ZeRO-3
   hpZ across nodes < ZeRO-3 / full shard (on one node) < full shard across nodes;
6. fewer parameter bytes gathered at a time;
7. FSDP2 before FSDP1 at equal memory (see :data:`FSDP1_BELOW_FSDP2`), then more free memory.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..effective.layout import with_parallelism
from ..i18n import said
from .estimate import GIB, Estimate, EstimateError, bounded, estimate, layout_of
from .fit import DEFAULT_HEADROOM, Fit, headroom_problem, verdict

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..answers import Answers
    from ..findings import Finding

RANKING = (
    "fits (GPU with the headroom, host when its memory is given)",
    "least offload (none < optimizer < parameters and optimizer)",
    "fp32 master weights before DeepSpeed bf16 master weights",
    "no activation checkpointing before recomputing activations",
    "no tensor / context / sequence parallelism before them (smaller sizes first; context and sequence parallel "
    "before tensor parallel)",
    "least communication (no sharding < ZeRO-1 < ZeRO-2 / reshard False < HSDP across nodes < ZeRO-3 hpZ across "
    "nodes < ZeRO-3 / full shard < full shard across nodes)",
    "fewer parameter bytes gathered at a time",
    "FSDP2 before FSDP1, then more free GPU memory",
)
"""The ranking, most important first (docs/memory.md says why for each)."""


def _fsdp1_below_fsdp2() -> str:
    return said("at equal memory FSDP1 ranks below FSDP2: accelerate 1.15's own default is still FSDP1 "
                "(FSDP_VERSION defaults to 1, accelerate/utils/dataclasses.py:1830-1831, and `accelerate launch "
                "--fsdp_version` to \"1\", accelerate/commands/launch.py:512-518), but `accelerate config` proposes "
                "FSDP2 (cluster.py:400-405) and the newer features (HSDP through the parallelism config, "
                "activation-checkpoint offload) are FSDP2's only")


FSDP1_BELOW_FSDP2 = _fsdp1_below_fsdp2()
"""Why FSDP1 ranks below FSDP2 at equal memory (a note of :func:`recommend`)."""

PARALLEL_ORDER = ("cp", "sp", "tp")
"""The order a size of each is tried in: context parallelism (FSDP2) and DeepSpeed's Ulysses sequence parallelism move
keys and values (or q, k, v) once per layer, tensor parallelism all-reduces every layer's activations twice in
forward and twice in backward."""

def parallel_why(dim: str, n: int, heads: Any = "?", kv: Any = "?") -> str:
    """Why a tensor (``tp``), context (``cp``) or sequence (``sp``) parallel candidate of size ``n`` helps and what it
    costs, in one clause (``heads``, ``kv``: the model's attention and key-value heads)."""
    if dim == "cp":
        return said(f"context parallel {n}: each rank holds 1/{n} of the sequence, so activations and logits shrink "
                    f"by {n}; ring attention passes keys and values between the {n} ranks each layer; accelerate drops "
                    "the attention mask under it (full-length, unpadded, one document per sequence)")
    if dim == "sp":
        return said(f"Ulysses sequence parallel {n}: each rank holds 1/{n} of the sequence outside attention and 1/{n} "
                    f"of the heads inside it, so activations and logits shrink by {n}; four all-to-alls per layer; {n} "
                    f"divides the model's {heads} attention heads with its {kv} key-value heads")
    return said(f"tensor parallel {n}: the attention and MLP projections are split over {n} ranks (their weights, "
                "gradients, optimizer states and most of their activations, and the embedding and LM head; the norms "
                f"and the logits stay whole); activations are all-reduced twice per layer each way; {n} divides the "
                f"model's {heads} attention heads and {kv} key-value heads")


TWO_NODE_ADDRESS = ("10.0.0.1", 29500)
"""The main process address and port the two-node presets use (templates/fsdp2-two-node.yaml,
templates/zero3-two-node.yaml): a placeholder written when ``base`` gives none for a multi-node candidate."""

LAYER_CLASSES = {"gpt2": "GPT2Block", "llama": "LlamaDecoderLayer", "mistral": "MistralDecoderLayer",
                 "qwen2": "Qwen2DecoderLayer"}
"""The transformers decoder-block class of each shipped ``model_type``, for FSDP's transformer wrap policy."""

# offload levels, communication tiers
OFFLOAD_NONE, OFFLOAD_OPTIMIZER, OFFLOAD_ALL = 0, 1, 2


def offload_words(level: int) -> str:
    """What a candidate offloads, in words."""
    if level == OFFLOAD_NONE:
        return said("no offload")
    if level == OFFLOAD_OPTIMIZER:
        return said("optimizer states offloaded to CPU")
    return said("parameters and optimizer offloaded to CPU")


TIER_NONE, TIER_ZERO1, TIER_ZERO2, TIER_HYBRID, TIER_HPZ, TIER_FULL, TIER_FULL_NODES = range(7)


def tier_words(tier: int) -> str:
    """What a candidate's sharding communicates, in words."""
    if tier == TIER_NONE:
        return said("no sharding (one gradient all-reduce per step)")
    if tier == TIER_ZERO1:
        return said("optimizer sharded (gradients reduced, updated parameters all-gathered once per step)")
    if tier == TIER_ZERO2:
        return said("gradients and optimizer sharded (gradients reduce-scattered, parameters gathered once per step)")
    if tier == TIER_HYBRID:
        return said("sharded within each node and replicated across nodes (parameter all-gathers stay inside a node; "
                    "only the gradient reduction crosses nodes)")
    if tier == TIER_HPZ:
        return said("ZeRO++ hpZ (backward's parameter all-gather stays inside a node; forward's and the gradient "
                    "reduce-scatter still cross nodes)")
    if tier == TIER_FULL:
        return said("everything sharded (parameters all-gathered in forward and again in backward)")
    return said("everything sharded across all nodes (every parameter all-gather crosses nodes)")


@dataclass(frozen=True)
class Candidate:
    label: str
    """Short, one line: ``DeepSpeed ZeRO-2, bf16``."""
    answers: Answers
    """Complete answers for this candidate (built on ``base`` when given)."""
    estimate: Estimate
    """:func:`~.estimate.estimate` of ``answers`` for the same model, batch, sequence, GPU and host memory and
    headroom: its ``fit`` says whether it fits, the same way ``estimate`` and the TUI say it."""
    reason: str
    """One sentence: why it ranks where it does."""
    offload: int = OFFLOAD_NONE
    tier: int = TIER_FULL
    parallelism: tuple[tuple[str, int], ...] = ()
    """The accelerate config's ``parallelism_config`` keys and sizes this candidate's answers write (tensor, context or
    sequence parallelism: its ``parallelism.*`` answers; the config written from them holds these keys)."""
    label_parts: tuple[str, ...] = ()
    """The pieces ``label`` is made of, each its own ``said`` words (the precision as it is): a face in another language
    translates each."""
    reasons: tuple[str, ...] = ()
    """The clauses of ``reason``, each a ``said`` sentence (the first: the verdict)."""
    host_parts: tuple[tuple[str, int], ...] = ()
    """When the host is short: (part of ``Estimate.host_breakdown``, bytes), as ``reason`` lists them after the
    verdict."""

    @property
    def fit(self) -> Fit:
        assert self.estimate.fit is not None  # recommend always gives the GPU memory
        return self.estimate.fit

    @property
    def fits(self) -> bool:
        """Fits with the headroom asked for (GPU) and in the host memory when given."""
        return self.fit.fits

    @property
    def headroom_bytes(self) -> int:
        """GPU memory minus the estimated per-rank bytes (negative when short)."""
        return self.fit.free_bytes

    @property
    def max_micro_batch(self) -> int | None:
        """The largest micro batch that still leaves the headroom free (None without the model's shape)."""
        return self.fit.max_micro_batch

    @property
    def host_fits(self) -> bool | None:
        """The host holds the estimate's per-host bytes (None when no host memory was given)."""
        return self.fit.host_fits

    @property
    def shortfall_bytes(self) -> int:
        """What is missing to fit: GPU bytes beyond the headroom plus host bytes beyond the host memory (0 when it
        fits)."""
        return self.fit.short_by_bytes

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "target": self.answers.target, "fits": self.fits,
                "headroom_bytes": self.headroom_bytes, "max_micro_batch": self.max_micro_batch,
                "host_fits": self.host_fits, "shortfall_bytes": self.shortfall_bytes,
                "reason": self.reason, "decided": _decided(self.answers),
                "parallelism_config": dict(self.parallelism),
                "answers": self.answers.to_nested(), "estimate": self.estimate.to_json()}


@dataclass(frozen=True)
class Recommendation:
    candidates: tuple[Candidate, ...]
    """Ranked, best first (fitting ones first)."""
    chosen: Candidate | None
    """The first fitting candidate, None when nothing fits."""
    notes: tuple[str, ...]
    left_out: tuple[tuple[str, str], ...] = ()
    """(label, why) of every candidate not ranked because the wizard's rules call it an error (also in ``notes``)."""
    left_out_labels: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(label, its pieces) of every candidate left out: a face in another language translates each piece."""

    def to_json(self) -> dict[str, Any]:
        return {"chosen": self.chosen.label if self.chosen else None, "ranking": list(RANKING),
                "candidates": [c.to_json() for c in self.candidates], "notes": list(self.notes)}


@dataclass(frozen=True)
class _Spec:
    name: str
    """The layout in words (``DeepSpeed ZeRO-2``), a ``said`` sentence."""
    precision: str
    changes: dict[str, Any]
    offload: int
    tier: int
    fsdp1: bool = False
    ac: bool = False
    bf16_master: bool = False
    parallel: tuple[tuple[str, int], ...] = ()
    """(dimension, size) of the tensor, context or sequence parallelism tried (``tp``, ``cp``, ``sp``)."""

    @property
    def label_parts(self) -> tuple[str, ...]:
        """The label's pieces: the layout, its parallelism, the precision, then the variants tried."""
        parts = [self.name]
        for dim, n in self.parallel:
            parts.append(said(f" + context parallel {n}") if dim == "cp" else
                         said(f" + Ulysses sequence parallel {n}") if dim == "sp" else said(f" + tensor parallel {n}"))
        parts.append(f", {self.precision}")
        if self.ac:
            parts.append(said(", activation checkpointing"))
        if self.bf16_master:
            parts.append(said(", bf16 master weights and optimizer states") if self.offload == OFFLOAD_NONE else
                         said(", bf16 master weights"))
        return tuple(parts)

    @property
    def label(self) -> str:
        """Short, one line: ``DeepSpeed ZeRO-2, bf16``."""
        return "".join(self.label_parts)


# The settings a candidate decides; everything else comes from ``base``.
_DECIDED = ("backend", "fsdp_version", "sharding.strategy", "offload.optimizer", "offload.params",
            "training.activation_checkpointing", "precision.ds_bf16_master_weights", "launch.num_processes",
            "launch.num_machines")


def _decided(a: Answers) -> dict[str, Any]:
    return {k: a[k] for k in _DECIDED}


def _specs(nodes: int, gpus_per_node: int, precision: str) -> list[_Spec]:
    fsdp2 = {"backend": "fsdp", "fsdp_version": 2, "offload.optimizer": "none", "offload.params": "none",
             "precision.ds_bf16_master_weights": None}
    fsdp1 = {**fsdp2, "fsdp_version": 1}
    ds = {"backend": "deepspeed", "offload.optimizer": "none", "offload.params": "none",
          "precision.ds_bf16_master_weights": None}
    full = TIER_FULL_NODES if nodes > 1 else TIER_FULL
    p = precision
    specs = [
        _Spec(said("FSDP2 full shard"), p, {**fsdp2, "sharding.strategy": "full"}, OFFLOAD_NONE, full),
        _Spec(said("FSDP2 reshard_after_forward=False"), p, {**fsdp2, "sharding.strategy": "grads_optimizer"},
              OFFLOAD_NONE, TIER_ZERO2),
        _Spec(said("FSDP1 FULL_SHARD"), p, {**fsdp1, "sharding.strategy": "full"}, OFFLOAD_NONE, full, fsdp1=True),
        _Spec(said("FSDP1 NO_SHARD (DDP-like)"), p, {**fsdp1, "sharding.strategy": "none"}, OFFLOAD_NONE, TIER_NONE,
              fsdp1=True),
        _Spec(said("FSDP2 full shard + CPU offload"), p,
              {**fsdp2, "sharding.strategy": "full", "offload.optimizer": "cpu", "offload.params": "cpu"},
              OFFLOAD_ALL, full),
        _Spec(said("DeepSpeed ZeRO-1"), p, {**ds, "sharding.strategy": "optimizer"}, OFFLOAD_NONE, TIER_ZERO1),
        _Spec(said("DeepSpeed ZeRO-2"), p, {**ds, "sharding.strategy": "grads_optimizer"}, OFFLOAD_NONE, TIER_ZERO2),
        _Spec(said("DeepSpeed ZeRO-3"), p, {**ds, "sharding.strategy": "full"}, OFFLOAD_NONE, full),
        _Spec(said("DeepSpeed ZeRO-2 + optimizer offload"), p,
              {**ds, "sharding.strategy": "grads_optimizer", "offload.optimizer": "cpu"}, OFFLOAD_OPTIMIZER,
              TIER_ZERO2),
        _Spec(said("DeepSpeed ZeRO-3 + optimizer offload"), p,
              {**ds, "sharding.strategy": "full", "offload.optimizer": "cpu"}, OFFLOAD_OPTIMIZER, full),
        _Spec(said("DeepSpeed ZeRO-3 + parameter and optimizer offload"), p,
              {**ds, "sharding.strategy": "full", "offload.optimizer": "cpu", "offload.params": "cpu"},
              OFFLOAD_ALL, full),
    ]
    if nodes > 1 and gpus_per_node > 1:
        specs[1:1] = [_Spec(said("FSDP2 hybrid shard (HSDP: sharded per node, replicated across)"), p,
                            {**fsdp2, "sharding.strategy": "hybrid_full"}, OFFLOAD_NONE, TIER_HYBRID)]
        specs.append(_Spec(said("DeepSpeed ZeRO-3 + hpZ (ZeRO++ secondary partition per node)"), p,
                           {**ds, "sharding.strategy": "hybrid_full"}, OFFLOAD_NONE, TIER_HPZ))
    return specs


def _with_ac(spec: _Spec) -> _Spec:
    return replace(spec, changes={**spec.changes, "training.activation_checkpointing": True}, ac=True)


def _parallel_specs(specs: list[_Spec], shape: Any, gpus_per_node: int) -> list[_Spec]:
    """FSDP2 full shard with context or tensor parallelism, DeepSpeed ZeRO-3 with Ulysses sequence parallelism: every
    size that divides one node's GPUs (a TP, CP or SP group stays inside a machine) and, for TP and SP, the model's
    heads as the check rules require (:func:`~wizard.core.lint.general.tp_sizes_for`, ``sp_sizes_for``)."""
    from ..lint.general import sp_sizes_for, tp_sizes_for

    fsdp2 = next(s for s in specs if s.label.startswith("FSDP2 full shard,"))
    zero3 = next(s for s in specs if s.label.startswith("DeepSpeed ZeRO-3,"))
    allowed = {"tp": set(tp_sizes_for(shape.num_heads, shape.num_kv_heads)),
               "sp": set(sp_sizes_for(shape.num_heads, shape.num_kv_heads))}
    out = []
    for n in (d for d in range(2, gpus_per_node + 1) if gpus_per_node % d == 0):
        for dim in PARALLEL_ORDER:
            if dim in allowed and n not in allowed[dim]:
                continue
            base = zero3 if dim == "sp" else fsdp2
            changes = {**base.changes, f"parallelism.{dim}_size": n}
            if dim == "tp":  # rank 0's state dict cannot be loaded into a TP model (parallelism-fsdp2-tp-ram-...)
                changes["loading.ram_efficient"] = False
            out.append(_Spec(base.name, base.precision, changes, base.offload, base.tier, parallel=((dim, n),)))
    return out


def _parallelism_keys(spec: _Spec, answers: Answers) -> dict[str, Any]:
    """The ``parallelism_config`` the candidate's accelerate config needs (keys without the section)."""
    from ..answers.render import processes_per_node

    if not spec.parallel:
        return {}
    procs = answers["launch.num_processes"]
    split = 1
    keys: dict[str, Any] = {}
    for dim, n in spec.parallel:
        keys[f"parallelism_config_{dim}_size"] = n
        split *= n
    if spec.changes["backend"] == "fsdp":
        replicate = max(1, answers["launch.num_machines"]) if answers["sharding.strategy"].startswith("hybrid") else 1
        keys = {"parallelism_config_dp_replicate_size": replicate,
                "parallelism_config_dp_shard_size": max(1, procs // (replicate * split)), **keys}
        if replicate == 1:
            keys.pop("parallelism_config_dp_replicate_size")
        assert processes_per_node(answers) % split == 0
    else:  # accelerate sizes DeepSpeed's batch by dp_replicate x dp_shard: their product with sp is the processes
        keys = {"parallelism_config_dp_shard_size": max(1, procs // split), **keys,
                "parallelism_config_sp_backend": "deepspeed"}
    return keys


def _with_bf16_master(spec: _Spec) -> _Spec:
    """DeepSpeed's bf16 master weights: with the optimizer on the GPU also bf16 Adam states (``bf16_with_states``;
    ``bf16`` alone needs offload), with optimizer offload bf16 masters next to fp32 states on the CPU (``bf16``;
    ``bf16_with_states`` there needs an optimizer block in the JSON, rule ds-bf16-states-offload-swap)."""
    value = "bf16_with_states" if spec.offload == OFFLOAD_NONE else "bf16"
    return replace(spec, changes={**spec.changes, "precision.ds_bf16_master_weights": value}, bf16_master=True)


def _check(*, gpus_per_node: Any, gpu_memory_gib: Any, nodes: Any, host_memory_gib: Any, headroom: Any) -> None:
    """Every number in its bound (core/bounds.py), in the one wording naming the option."""
    from ..bounds import MAX_PROCESSES

    bounded("gpus_per_node", gpus_per_node, "--gpus-per-node")
    bounded("nodes", nodes, "--nodes")
    if gpus_per_node * nodes > MAX_PROCESSES:
        raise EstimateError(f"--gpus-per-node {gpus_per_node} x --nodes {nodes}: too many; give at most "
                            f"{MAX_PROCESSES:,} processes in total")
    bounded("gpu_memory", gpu_memory_gib, "--gpu-memory")
    if host_memory_gib is not None:
        bounded("host_memory", host_memory_gib, "--host-memory")
    problem = headroom_problem(headroom)
    if problem:
        raise EstimateError(problem)


def _gib(n: float) -> str:
    return f"{n / GIB:.1f} GiB"


def recommend(*, shape: Any = None, params: int | None = None, largest_layer_params: int | None = None,
              gpus_per_node: int, gpu_memory_gib: float, nodes: int = 1, host_memory_gib: float | None = None,
              batch: int | None = None, seq: int | None = None, base: Answers | None = None,
              headroom: float = DEFAULT_HEADROOM, versions: Mapping[str, str | None] | None = None) -> Recommendation:
    """Candidates from both backends for the model (``shape``, or ``params`` and ``largest_layer_params``) on
    ``nodes`` x ``gpus_per_node`` GPUs of ``gpu_memory_gib``, ranked (see the module docstring). A candidate with an
    error is left out, judged for ``versions`` (library -> version, as ``generate`` takes them; default: those the
    wizard was verified against). Raises :class:`~.estimate.EstimateError` for unusable input, with a message naming
    the option."""
    _check(gpus_per_node=gpus_per_node, gpu_memory_gib=gpu_memory_gib, nodes=nodes, host_memory_gib=host_memory_gib,
           headroom=headroom)
    from ..answers import default_answers
    from ..answers.generate import answer_findings
    from ..findings import ERROR

    base = base if base is not None else default_answers()
    notes: list[str] = []
    common: dict[str, Any] = {"launch.num_processes": gpus_per_node * nodes, "launch.num_machines": nodes}
    if base["launch.machine_rank"] >= nodes:
        common["launch.machine_rank"] = 0
    if nodes > 1 and not base["launch.main_process_ip"]:
        ip, port = TWO_NODE_ADDRESS
        common["launch.main_process_ip"] = ip
        if not base["launch.main_process_port"]:
            common["launch.main_process_port"] = port
        notes.append(said(f"launch.main_process_ip {ip} is a placeholder (the two-node presets'): set it to the "
                          "address of machine 0, and launch.machine_rank on each machine"))
    precision = base["precision.mixed_precision"] if "precision.mixed_precision" in base.explicit else "bf16"
    common["precision.mixed_precision"] = precision
    if batch is not None:
        common["training.micro_batch_size"] = batch
    kind = getattr(shape, "kind", None)
    wrap: dict[str, Any] = {}  # FSDP candidates only: DeepSpeed has no place for layer classes
    if not base["wrapping.layer_classes"] and kind in LAYER_CLASSES and not getattr(shape, "approximate", False):
        wrap["wrapping.layer_classes"] = [LAYER_CLASSES[kind]]
    if nodes > 1 and gpus_per_node < 2:
        notes.append(said("hybrid sharding is not proposed: with one GPU per node there is nothing to shard within "
                          "a node"))
    if shape is None:
        notes.append(said("without the model's shape (--model) activations and logits are not counted, and "
                          "activation checkpointing is not considered"))

    host_bytes = int(host_memory_gib * GIB) if host_memory_gib is not None else None

    tried: dict[str, tuple[str, ...]] = {}  # label -> its pieces

    def evaluate(spec: _Spec) -> tuple[Candidate, list[Finding]]:
        tried[spec.label] = spec.label_parts
        answers = base.replace({**common, **(wrap if spec.changes["backend"] == "fsdp" else {}), **spec.changes})
        errors = [f for f in answer_findings(answers, versions=versions) if f.severity == ERROR]
        source: Any = answers
        keys = _parallelism_keys(spec, answers)
        if spec.parallel:  # the sizes are answers; the config rules again with the model (its heads, its attention)
            sizes = dict(spec.parallel)
            source = with_parallelism(layout_of(answers, hidden_size=shape.hidden_size), **sizes)
            errors += _parallel_errors(answers, keys, shape, versions)
        e = estimate(source, params=params, largest_layer_params=largest_layer_params, shape=shape, batch=batch,
                     seq=seq, gpu_memory_gib=gpu_memory_gib, headroom=headroom, host_memory_gib=host_memory_gib)
        return Candidate(spec.label, answers, e, "", spec.offload, spec.tier, tuple(keys.items())), errors

    built: list[tuple[_Spec, Candidate]] = []
    left_out: list[tuple[str, str]] = []
    specs = _specs(nodes, gpus_per_node, precision)
    _try(specs, evaluate, built, left_out, notes, shape=shape, base=base, precision=precision, host_bytes=host_bytes)
    if shape is not None and not any(c.fits and s.offload == OFFLOAD_NONE for s, c in built):
        # long sequences: the activations and logits outgrow the GPU however the states are sharded
        done: set[str] = set()
        for spec in _parallel_specs(specs, shape, gpus_per_node):
            dim = spec.parallel[0][0]
            if dim in done:  # a smaller size of this dimension already fits, or the rules refuse it
                continue
            before, refused = len(built), len(left_out)
            _try([spec], evaluate, built, left_out, notes, shape=shape, base=base, precision=precision,
                 host_bytes=host_bytes)
            if any(c.fits for _, c in built[before:]) or len(left_out) > refused:
                done.add(dim)

    # Keep a variant (activation checkpointing, bf16 masters) only where it decides fitting: the plain layout does
    # not fit and the variant does; the best-fitting attempt of a layout that never fits is kept as well.
    kept = _keep_deciding(built)
    ranked = sorted(kept, key=lambda sc: _key(sc[0], sc[1]))
    candidates = tuple(_with_reason(s, c, shape) for s, c in ranked)
    chosen = next((c for c in candidates if c.fits), None)
    if any(s.fsdp1 for s, _ in ranked):
        notes.append(FSDP1_BELOW_FSDP2)
    notes.append(said("NVMe offload is not proposed (it needs a fast local NVMe folder): see the zero3-nvme-offload "
                      "preset"))
    if chosen is None:
        notes.append(said("nothing fits: more GPUs or nodes, a smaller micro batch or sequence, or a smaller model"))
    labels = tuple((name, tried[name]) for name, _ in left_out)
    return Recommendation(candidates, chosen, tuple(notes), tuple(left_out), labels)


def _try(specs: list[_Spec], evaluate: Any, built: list, left_out: list, notes: list, *, shape: Any, base: Answers,
         precision: str, host_bytes: int | None) -> None:
    """Evaluate each layout and its variants in order of preference, up to the first that fits."""
    for spec in specs:
        tried = [spec]
        if shape is not None and not base["training.activation_checkpointing"]:  # counted: it can decide fitting
            tried.append(_with_ac(spec))
        # bf16 masters shrink the GPU's optimizer states without offload, and the host's with optimizer offload
        # (tried there only when the host memory is given: that is where they can decide fitting)
        if spec.changes["backend"] == "deepspeed" and precision == "bf16" and (
                spec.offload == OFFLOAD_NONE or host_bytes is not None):
            tried += [_with_bf16_master(s) for s in list(tried)]
        for s in tried:  # in order of preference; the first that fits ends the layout's list
            cand, errors = evaluate(s)
            if errors:
                f = errors[0]
                why = said(f"our rules find an error ({f.rule}: {f.message})")
                left_out.append((s.label, why))
                notes.append(said(f"left out {s.label}: {why}"))
                break
            built.append((s, cand))
            if cand.fits:
                break


def _parallel_errors(answers: Answers, keys: dict[str, Any], shape: Any,
                     versions: Mapping[str, str | None] | None = None) -> list[Finding]:
    """The config rules' errors over the files written from ``answers`` with ``keys`` added to their
    parallelism_config, judged with the model (its heads, its attention) and ``versions`` (default: those the
    wizard's knowledge was verified against), as ``generate`` judges answers."""
    from ..answers.render import processes_per_node, render, trainer_loop
    from ..context import LOOP_ACCELERATE, LOOP_HF, Context
    from ..findings import ERROR
    from ..lint import lint

    rendered = render(answers)
    y = dict(rendered.accelerate)
    y["parallelism_config"] = {**dict(y.get("parallelism_config") or {}), **keys}
    context = Context(loop=LOOP_HF if trainer_loop(answers) else LOOP_ACCELERATE, loop_source="answers",
                      versions=dict(versions or {}))
    return [f for f in lint(y, rendered.deepspeed, gpus_per_node=processes_per_node(answers), context=context,
                            model=shape) if f.severity == ERROR]


def _layout(spec: _Spec) -> str:
    """The layout a spec belongs to: its label without the variant suffixes."""
    return spec.label.split(", activation checkpointing")[0].split(", bf16 master")[0]


def _keep_deciding(built: list[tuple[_Spec, Candidate]]) -> list[tuple[_Spec, Candidate]]:
    by_layout: dict[str, list[tuple[_Spec, Candidate]]] = {}
    for s, c in built:
        by_layout.setdefault(_layout(s), []).append((s, c))
    kept = []
    for group in by_layout.values():
        plain = group[0]
        if plain[1].fits or len(group) == 1:
            kept.append(plain)
            continue
        fitting = [sc for sc in group if sc[1].fits]
        if fitting:  # the first variant that fits (evaluation stops there), next to the plain layout
            kept += [plain, fitting[0]]
        else:  # nothing fits: the plain layout and the variant that comes closest
            closest = max(group[1:], key=lambda sc: sc[1].headroom_bytes)
            kept += [plain, closest] if closest[1].headroom_bytes > plain[1].headroom_bytes else [plain]
    return kept


def _key(s: _Spec, c: Candidate) -> tuple:
    if not c.fits:  # least short first (GPU and host shortfalls added up)
        return (1, c.shortfall_bytes, s.offload, s.tier)
    size = 1
    for _, n in s.parallel:
        size *= n
    order = min((PARALLEL_ORDER.index(d) for d, _ in s.parallel), default=-1)
    return (0, s.offload, s.bf16_master, s.ac, size, order, s.tier, c.estimate.per_rank.breakdown["gathered"],
            s.fsdp1, -c.headroom_bytes)


def _with_reason(s: _Spec, c: Candidate, shape: Any = None) -> Candidate:
    e = c.estimate
    head = verdict(c.fit)
    host_parts = tuple((k, v) for k, v in e.host_breakdown.items() if v) if c.host_fits is False else ()
    parts = [head, offload_words(s.offload)]
    if s.bf16_master and s.offload == OFFLOAD_NONE:
        parts.append(said(("fits only with" if c.fits else "even with") + " DeepSpeed's bf16 master weights and bf16 "
                          "Adam states (less precise updates)"))
    elif s.bf16_master:
        parts.append(said(("fits the host only with" if c.fits else "even with") + " DeepSpeed's bf16 master weights "
                          "(fp32 Adam states on the CPU; less precise updates)"))
    if s.ac:
        parts.append(said(("needs" if c.fits else "even with") + " activation checkpointing (about a third more "
                          "compute" + ("; DeepSpeed has no config switch for it: call "
                                       "model.gradient_checkpointing_enable() in the script)"
                                       if c.answers.backend == "deepspeed" else ")")))
    for dim, n in s.parallel:
        parts.append(said(("fits only with " if c.fits else "even with ") + parallel_why(
            dim, n, getattr(shape, "num_heads", "?"), getattr(shape, "num_kv_heads", "?"))))
        parts.append("parallelism_config: " + ", ".join(f"{k}: {v}" for k, v in c.parallelism))
    parts.append(tier_words(s.tier))
    gathered = e.per_rank.breakdown["gathered"]
    if gathered and s.tier == TIER_NONE:  # nothing is gathered: the estimate's part is the 16-bit compute copy
        parts.append(said(f"{_gib(gathered)} for the 16-bit compute copy of the parameters"))
    elif gathered:
        parts.append(said(f"{_gib(gathered)} of parameters gathered at a time"))
    if s.fsdp1:
        parts.append(said("FSDP1, ranked below FSDP2 at equal memory"))
    return replace(c, reason=reason_sentence(parts, host_parts), label_parts=s.label_parts, reasons=tuple(parts),
                   host_parts=host_parts)


def host_part_words(key: str) -> str:
    """A part of ``Estimate.host_breakdown`` as a reason names it (``offloaded optimizer states``)."""
    return key.replace("_", " ")


def reason_sentence(parts: tuple[str, ...] | list[str], host_parts: tuple[tuple[str, int], ...] = ()) -> str:
    """A candidate's reason: its clauses joined, the host's parts after the first (the verdict) when the host is
    short, as one sentence."""
    head = parts[0]
    if host_parts:  # what the host holds, part by part
        head += " (" + ", ".join(host_part_words(k) + " " + _gib(v) for k, v in host_parts) + ")"
    sentence = "; ".join([head, *parts[1:]])
    return sentence[0].upper() + sentence[1:] + "."


__all__ = ["Candidate", "RANKING", "Recommendation", "recommend"]
