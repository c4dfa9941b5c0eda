"""Per-rank GPU memory and per-host CPU memory for one set of answers and one model (issue 10). Pure, stdlib only.

:func:`estimate` breaks the per-rank peak into parts:

- ``parameters``, ``gradients``, ``optimizer_states``: the model states a rank keeps, from bytes per parameter that
  follow what each library does (see :func:`state_bytes_per_param`);
- ``gathered``: full (unsharded) parameters in flight: for ZeRO-3 and FSDP full sharding the unit being computed and
  the prefetched one (and what lies outside the layers: FSDP's root unit and, under accelerate's FSDP2, the final norm
  and output head, none resharded after forward); for SHARD_GRAD_OP the whole model
  between forward and backward;
- ``buckets``: DeepSpeed's reduce (and all-gather) buckets, FSDP's reduce-scatter input of one unit;
- ``activations``: a per-layer coefficient x s x b x h (or 2sbh per layer with full activation checkpointing, plus
  the one layer recomputed in backward);
- ``logits``: b x s x V in the compute dtype, plus the loss's fp32 log-softmax and the two fp32 gradients of its
  backward (with checkpointing, only what exceeds the recomputed layer);
- ``overhead``: a stated CUDA context constant.

- ``optimizer_step``: the optimizer step's own temporaries (DeepSpeed's gradient copy in the master dtype, the
  flattened 16-bit gradients, torch AdamW's foreach temporary).

Each part is given at its own size; the peak is the highest of three moments (:data:`PHASES`), which do not hold
every part at once: the loss (the start of backward: every saved activation and the loss's tensors, but gradients
only where they outlive the step or accumulate), the end of backward (every gradient, one layer's activations) and
the optimizer step (states, gradients and the step's temporaries; activations, logits and gathered units freed).
``per_rank.not_at_peak`` says which parts, or how much of them, the peak's moment does not hold, so
``gpu_bytes = sum(breakdown) - sum(not_at_peak)``. Every constant below is named, with its source; figures
"measured" come from ``../shared/reference/memory-and-speed.md`` (CPU runs, torch 2.13) or benchmarks/memory.py.

:func:`estimate` composes one function per part, each given the figures it needs: the model's numbers and the
arguments checked (:func:`_model`), the model states per rank (:func:`state_bytes`), DeepSpeed's parts
(:func:`_deepspeed`: hpZ, offload to CPU or NVMe, gathered parameters, buckets) or FSDP's (:func:`_fsdp`: gathered
units, the reduce-scatter input, the single offload switch), activations and logits (:func:`_activations`), the host
(:func:`_host`: model loading, offloaded parts, pinned buffers), the optimizer step's temporaries
(:func:`_optimizer_step`), the moments of the peak (:func:`_moments`, :func:`_peak`) and the fit (:func:`_fit`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..bounds import NumberError, check
from ..effective.layout import DTYPE_BYTES, Layout
from ..i18n import said
from ..library.deepspeed import (
    DS_NVME_MAX_IN_CPU,
    DS_NVME_OPTIMIZER_BUFFER_COUNT,
    DS_NVME_PARAM_BUFFER_COUNT,
    DS_NVME_PARAM_BUFFER_SIZE,
    DS_ZERO_DEFAULTS,
)
from . import deepspeed_estimator as dse
from .fit import DEFAULT_HEADROOM, Fit, fit_of, headroom_problem

if TYPE_CHECKING:
    from ..answers import Answers

GIB = 2 ** 30

# ---------------------------------------------------------------- constants (named, with sources)
CUDA_CONTEXT_BYTES = 1343 * 2 ** 20
"""The CUDA context and kernels a process holds before any tensor: 1343 MiB measured by the transformers docs with
``torch.ones(1).cuda()`` on a V100 (docs/source/en/perf_train_gpu_one.md, "model memory anatomy"). Newer drivers
with lazy module loading take less; the figure is kept as a conservative constant."""

ADAM_STATE_COUNT = 2
"""Adam/AdamW keep two states per parameter (exp_avg, exp_avg_sq), in the dtype of the parameters they update
(torch/optim/adamw.py ``_init_group``: ``torch.zeros_like(p, memory_format=torch.preserve_format)``)."""

GPT2_COEF_BASE = 64
GPT2_COEF_PER_ATTN = 6
"""transformers ``GPT2Model`` block (LayerNorm, Conv1D projections, GELU MLP of 4h, dropout 0.1, eager attention):
(64 + 6 as/h) sbh bytes per layer, our fit of saved-tensor bytes measured per layer on CPU with transformers 5.24,
bf16 (88.0 / 112.0 / 160.0 sbh at as/h = 4 / 8 / 16; benchmarks/memory.py re-measures it). Korthikanti et al.
(arXiv:2205.05198) give 34 + 5as/h for an idealised block; transformers' block saves more (extra copies around the
Conv1D views, the dropout masks as bool tensors). SDPA on a GPU saves no s x s matrices, so there this is an upper
bound; SDPA's CPU fallback with dropout saves more (66 + 12 as/h measured)."""

LLAMA_COEF_BASE = 21
LLAMA_COEF_PER_INTERMEDIATE = 8
"""transformers ``LlamaDecoderLayer`` (RMSNorm, SDPA with grouped-query attention, SwiGLU, no dropout): (21 + 8 i/h)
sbh bytes per layer, our fit of saved-tensor bytes measured per layer on CPU with transformers 5.24, bf16 (43.0 /
49.0 / 53.1 sbh at i/h = 2.75 / 3.5 / 4). The SwiGLU MLP saves four tensors of width i in 2 bytes (gate, up,
silu(gate), their product) = 8 i/h; norms, projections' inputs and the SDPA output make the 21. A hand-written
Llama-style block measured 47-53 sbh (../shared/reference/memory-and-speed.md §1.5)."""

TINYGPT_COEF_BASE = 32
TINYGPT_COEF_LSE_PER_HEAD = 4
"""The bundled script's ``GPTBlock`` (templates/train_gpt.py: LayerNorm, SDPA causal attention, 4h GELU MLP, no
dropout): (32 + 4 a/h) sbh bytes per layer. 32 is our measurement of its saved-tensor bytes on CPU (torch 2.13,
bf16: 32.07 / 32.07 / 32.09 sbh at h 512 / 1024 / 256, s 512 / 1024 / 2048; benchmarks/memory.py re-measures it);
the 4 a/h is the fp32 log-sum-exp per head and token that SDPA's flash kernels save for backward."""

LLAMA_COEF_NOT_SPLIT_BY_TP = 16
"""Of the Llama layer's (21 + 8 i/h) sbh, what tensor parallelism leaves whole on every rank: the two RMSNorms, each
saving its fp32 input (4), its bf16 output (2) and the projections' input, replicated over the TP ranks (2): 16 sbh.
The rest (q, k, v, the attention output and o_proj's input, and the MLP's 8 i/h) lies between a colwise and a rowwise
layer of the TP plan, so each rank saves 1/tp of it. Read from the tensors a transformers 5.24 ``LlamaDecoderLayer``
saves for backward (torch's saved-tensor hooks, CPU, bf16); benchmarks/memory.py measures it under tp 2."""

CHECKPOINT_COEF = 2
"""Full activation checkpointing keeps only each layer's input: 2sbh bytes per layer (Korthikanti et al., and
measured exactly on CPU for both block types)."""

LOSS_SAVED_FP32_BYTES = 4
LOSS_BACKWARD_FP32_BYTES = 8
"""The logits term per token: the b*s*V logits the model returns in the compute dtype (held by the output through
backward), plus what transformers' causal-LM loss adds: it upcasts the logits to fp32 (``ForCausalLMLoss`` in
transformers/loss/loss_utils.py: ``logits = logits.float()``), and cross entropy's log-softmax saves its fp32
output (4 bytes); in the loss's backward two fp32 gradients of the same size are alive at once (the one into the
log-softmax and the one out of it: 8 bytes). Measured on CPU with torch's MemTracker: 14.25 bytes per logit for a
bf16 LM head + loss (estimate 2 + 4 + 8 = 14; benchmarks/memory.py). The peak of a forward/backward is there, at
the start of backward, with every layer's saved activations alive. An fp32 model's ``.float()`` is a no-op: 4 + 12."""

CHECKPOINT_PEAKS_APART = True
"""With full activation checkpointing the one recomputed layer comes later in backward than the loss's peak, when
only the logits the output holds (compute dtype) remain of the logits term: the peak is then
kept + max(logits peak, recomputed layer + held logits), so the estimate's ``logits`` part is
max(logits peak - recomputed layer, held logits). Measured on CPU (transformers Llama and GPT-2, the bundled
TinyGPT, benchmarks/memory.py): adding both in full overstates the 4-layer Llama row by 45% (+7% as counted)."""

ZERO0_MASTER_BYTES = 4
ZERO0_STEP_FP32_GRAD_BYTES = 4
"""DeepSpeed 0.19.8 at ZeRO-0 with bf16 or fp16 (and ``data_types.grad_accum_dtype`` unset, which the answers cannot
set): ``_do_optimizer_sanity_check`` (deepspeed/runtime/engine.py:2312-2321) picks DDP_BFLOAT16 / FP16, so the
optimizer is wrapped in FP16_UnfusedOptimizer (engine.py:2360, :2599; FP16_Optimizer for a FusedAdam, same bytes):
an fp32 clone of every parameter, whole (deepspeed/runtime/fp16/unfused_optimizer.py:78), Adam on those clones, and
at the step an fp32 ``.grad`` made from each 16-bit gradient (unfused_optimizer.py:222), freed after it. Nothing is
sharded over the ranks. (BF16_Optimizer, which shards its master, runs only for ZeRO-1 with
``grad_accum_dtype: fp32``, engine.py:2305-2311, and for pipeline parallelism.) Measured on CPU with 2 ranks:
2 + (2 + 4) + 12 = 20 bytes per parameter per rank (benchmarks/memory.py)."""

DS_REDUCE_BUCKET_DEFAULT = int(DS_ZERO_DEFAULTS["reduce_bucket_size"])  # type: ignore[call-overload]
DS_ALLGATHER_BUCKET_DEFAULT = int(DS_ZERO_DEFAULTS["allgather_bucket_size"])  # type: ignore[call-overload]
DS_PREFETCH_BUCKET_DEFAULT = int(DS_ZERO_DEFAULTS["stage3_prefetch_bucket_size"])  # type: ignore[call-overload]
DS_MAX_LIVE_PARAMETERS_DEFAULT = int(DS_ZERO_DEFAULTS["stage3_max_live_parameters"])  # type: ignore[call-overload]
DS_SUB_GROUP_SIZE_DEFAULT = int(DS_ZERO_DEFAULTS["sub_group_size"])  # type: ignore[call-overload]
"""DeepSpeed 0.19.8 defaults in elements, from the library tables (wizard/core/library/deepspeed.py): the estimate reads
the effective model's values, and these only where a value is left open (an "auto" without the model's hidden size).
"auto" bucket sizes are filled as the HF integration fills them (reduce h*h, prefetch 0.9*h*h:
``hidden_size_fill`` in library/auto.py)."""

DS_NVME_PARAM_BUFFERS = DS_NVME_PARAM_BUFFER_COUNT
DS_NVME_OPTIMIZER_BUFFERS = DS_NVME_OPTIMIZER_BUFFER_COUNT
"""NVMe offload pins host buffers: offload_param buffer_count 5 x buffer_size 1e8 elements; offload_optimizer
buffer_count 4 x the largest sub-group (sub_group_size 1e9 elements, fp32) (deepspeed/runtime/zero/
offload_config.py defaults; the optimizer swapper sizes its buffers from the sub-group). With ``offload_param`` on
NVMe, ZeRO-3's optimizer copies the 16-bit parameter partitions "permanently to CPU" up to ``max_in_cpu`` elements per
rank (``DS_NVME_MAX_IN_CPU``, default 1e9, stage3.py ``_create_param_groups_fp16_flat_cpu_memory``): only what exceeds
it stays on the NVMe drive. Measured on CPU with 2 ranks (benchmarks/memory.py): the whole partition in host memory,
next to the 5 x 1e8-element swap buffers."""

STEP_GRAD_COPY = True
"""At the optimizer step DeepSpeed turns the 16-bit gradients of the partition it updates into a gradient of the
master's dtype before freeing them: ZeRO-1/2 the whole partition of each parameter group
(deepspeed/runtime/zero/stage_1_and_2.py:3118-3126, ``flat_grad_partition.to(single_partition_of_fp32_groups[i]
.dtype)``), ZeRO-3 one sub-group at a time (stage3.py:2683-2693 ``_prepare_fp32_grad_for_sub_group``; at most
``sub_group_size`` elements, 1e9 by default). The flattened 16-bit gradients it copies from live until the copy is
done, before the optimizer runs. Counted in ``optimizer_step`` when the step runs on the GPU."""

ADAM_FOREACH_TEMP_STATES = 1
"""torch's AdamW on CUDA takes the foreach path by default (torch/optim/optimizer.py ``_default_to_fused_or_foreach``;
DTensor is a foreach type, so FSDP2 too): ``torch._foreach_sqrt(exp_avg_sqs)`` allocates one temporary as large as
all second moments it updates at once (torch/optim/adam.py ``_multi_tensor_adam``). DeepSpeed's own optimizer (an
``optimizer`` block in the JSON: FusedAdam) and DeepSpeedCPUAdam under offload allocate no such temporary."""

GRADIENTS_FREED_AFTER_STEP = True
"""The gradients of one step do not live into the next forward: ``optimizer.zero_grad()`` and ``Module.zero_grad()``
set them to None by default (torch/optim/optimizer.py ``zero_grad(set_to_none=True)``; the HF Trainer calls
``model.zero_grad()`` after each step), and DeepSpeed ZeRO-1/2 free their gradient partitions in the step
(deepspeed/runtime/zero/stage_1_and_2.py ``step``: ``averaged_gradients[i] = None``, ``_release_ipg_buffers``). So
at the loss of the first micro-batch after a step no gradient exists yet: the loss's peak and the full gradients are
two moments, not one. Measured on CPU with torch's MemTracker (benchmarks/memory.py, a 4-layer transformers Llama,
bf16, AdamW): the step's peak is 211 MiB (its gradients) below parameters + gradients + optimizer states +
activations + logits at one micro-batch per step, and equal to it with two. Exceptions, which hold gradients at the
loss: ZeRO-3's gradient partitions live in one flat buffer allocated once on the GPU (stage3.py
``grad_partitions_flat_buffer``), and with gradient accumulation the micro-batches before the step leave theirs
(ZeRO-1 the full 16-bit gradients, ZeRO-2 the reduced partition; FSDP1 and FSDP2 inside ``accumulate()`` or the
Trainer skip the reduce-scatter under no_sync and keep each unit's gradients unsharded: the whole model's, in the
compute dtype, on the GPU even with CPU offload, unless ``sync_each_batch``)."""

PHASES = ("loss", "backward", "optimizer_step")
"""The moments the peak is taken over (``per_rank.phases``): ``loss`` (the start of backward), ``backward`` (its end:
every gradient, one layer's activations, the logits the output holds), ``optimizer_step``."""

DEFAULT_SEQ = 2048
DEFAULT_BATCH = 1
"""Used when neither the command line nor the answers give them (micro_batch_size "auto"); a model with learned
position embeddings (GPT-2: 1024, the bundled TinyGPT: its --seq-len) defaults to that many tokens when fewer."""

BREAKDOWN_KEYS = ("parameters", "gradients", "optimizer_states", "gathered", "buckets", "activations", "logits",
                  "optimizer_step", "overhead")
"""The per-rank parts, each at its own size. No moment holds all of them (see :data:`PHASES`):
``per_rank.not_at_peak`` names what the peak's moment lacks, and ``gpu_bytes`` is the sum less that."""
HOST_KEYS = ("offloaded_parameters", "offloaded_gradients", "offloaded_optimizer_states", "offloaded_activations",
             "pinned_buffers", "model_load")


class EstimateError(ValueError):
    """Input the estimate cannot use (a count below one, a batch of zero): the message says which and why."""


@dataclass(frozen=True)
class PerRank:
    gpu_bytes: int
    """The peak: the highest of ``phases``."""
    breakdown: dict[str, int]
    """Every part at its own size (:data:`BREAKDOWN_KEYS`)."""
    phase: str = "loss"
    """The moment of the peak (one of :data:`PHASES`)."""
    phases: dict[str, int] = field(default_factory=dict)
    """Bytes held at each moment of :data:`PHASES`."""
    not_at_peak: dict[str, int] = field(default_factory=dict)
    """Bytes of each part the peak's moment does not hold (only parts with some)."""


@dataclass(frozen=True)
class Estimate:
    target: str
    layout: str
    """The sharding as the library sees it, in words (``ZeRO-3 over 8 ranks``, ``FSDP FULL_SHARD over 8 ranks``)."""
    params: int
    largest_layer_params: int
    batch: int
    seq: int
    ranks: int
    ranks_per_host: int
    shard_degree: int
    bytes_per_param: dict[str, float]
    """Model-state bytes per parameter on one rank's GPU (parameters, gradients, optimizer_states)."""
    per_rank: PerRank
    host_bytes: int
    host_breakdown: dict[str, int]
    fit: Fit | None
    """Whether it fits one GPU with a share kept free, and the largest micro batch (:mod:`.fit`); None without the
    GPU memory."""
    deepspeed_estimator: dict[str, Any] | None
    shape: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def gpu_memory_bytes(self) -> int | None:
        return self.fit.gpu_bytes if self.fit is not None else None

    @property
    def fits(self) -> bool | None:
        """:attr:`.fit.Fit.fits` (None without the GPU memory)."""
        return self.fit.fits if self.fit is not None else None

    @property
    def max_micro_batch(self) -> int | None:
        """:attr:`.fit.Fit.max_micro_batch` (None without the GPU memory or the model's shape)."""
        return self.fit.max_micro_batch if self.fit is not None else None

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target, "layout": self.layout,
            "model": {"name": self.shape, "params": self.params, "largest_layer_params": self.largest_layer_params},
            "batch": self.batch, "seq": self.seq, "ranks": self.ranks, "ranks_per_host": self.ranks_per_host,
            "shard_degree": self.shard_degree, "bytes_per_param": self.bytes_per_param,
            "per_rank": {"gpu_bytes": self.per_rank.gpu_bytes, "breakdown": dict(self.per_rank.breakdown),
                         "phase": self.per_rank.phase, "phases": dict(self.per_rank.phases),
                         "not_at_peak": dict(self.per_rank.not_at_peak)},
            "host_bytes": self.host_bytes, "host_breakdown": dict(self.host_breakdown),
            "gpu_memory_bytes": self.gpu_memory_bytes, "fits": self.fits, "max_micro_batch": self.max_micro_batch,
            "fit": self.fit.to_json() if self.fit is not None else None,
            "deepspeed_estimator": self.deepspeed_estimator, "notes": list(self.notes),
        }


@dataclass(frozen=True)
class _States:
    """Bytes per parameter before sharding, and what each part is divided by."""

    param: float
    grad: float
    optim: float
    param_div: int
    grad_div: int
    optim_div: int


def layout_of(source: Answers | Layout, *, hidden_size: int | None = None) -> Layout:
    """The layout that runs: a :class:`Layout` as it is; answers through the effective model of the files written from
    them (wizard/core/effective), so answers and their written config are one estimate."""
    if isinstance(source, Layout):
        return source
    from ..answers.of_answers import of_answers
    from ..effective import layout
    from ..effective.layout import LayoutError

    try:
        return layout(of_answers(source, hidden_size=hidden_size))
    except LayoutError as exc:
        raise EstimateError(str(exc)) from exc


def _compute_bytes(lay: Layout) -> int:
    """Bytes of the dtype the forward/backward runs in: bf16/fp16 under mixed precision (fp8 keeps bf16 weights and
    activations outside its matmuls), otherwise the load dtype."""
    if lay.mixed_precision in ("bf16", "fp16", "fp8"):
        return 2
    return DTYPE_BYTES[lay.model_dtype]


def _no_shard(lay: Layout) -> bool:
    """FSDP1's NO_SHARD: every rank keeps everything (FSDP2 has no such mode)."""
    return not lay.deepspeed and lay.fsdp_strategy == "NO_SHARD"


def state_bytes(source: Answers | Layout, n: int | None = None, shard: int | None = None) -> _States:
    """Model-state bytes per parameter (Adam), and their divisors, for the layout that runs (answers: the layout of
    their written config; ``n`` and ``shard`` default to its ranks and shard group).

    FSDP (accelerate >= 0.30): with mixed precision accelerate upcasts the sharded parameters to fp32 ("aligned
    mode"), so parameters 4 + gradients 4 + Adam 8 = 16 bytes, all sharded; without mixed precision everything stays
    in the load dtype (bf16: 2 + 2 + 4 = 8). DeepSpeed ZeRO keeps fp32 master weights and fp32 Adam states
    (4 + 8 = 12 bytes, sharded from stage 1) next to the 16-bit parameters (sharded at stage 3) and gradients
    (sharded from stage 2); ``bf16_master_weights_and_grads`` makes the master bf16 (2 + 8) and
    ``bf16_optimizer_states`` the Adam states too (2 + 4). Stage 0 with bf16 or fp16 runs DeepSpeed's
    FP16_UnfusedOptimizer: fp32 master 4 + Adam 8 and an fp32 gradient copy at the step, none of it sharded.
    """
    lay = layout_of(source)
    n = lay.processes if n is None else n
    shard = (lay.shard_group if not lay.deepspeed else n) if shard is None else shard
    cb = _compute_bytes(lay)
    if not lay.deepspeed:
        if lay.mixed_precision == "no":
            p = float(DTYPE_BYTES[lay.model_dtype])
        else:
            p = 4.0  # accelerate upcasts to fp32 under mixed precision
        div = 1 if _no_shard(lay) else shard
        return _States(p, p, ADAM_STATE_COUNT * p, div, div, div)
    stage = lay.stage
    if cb == 4:
        master, moments = 4.0, 8.0
    else:
        master = 2.0 if lay.master_bf16 else 4.0
        moments = 4.0 if lay.states_bf16 else 8.0
    if stage == 0:
        if cb == 4:  # plain torch optimizer on fp32 parameters, nothing sharded
            return _States(4, 4, 8, 1, 1, 1)
        # FP16_UnfusedOptimizer for bf16 and fp16 alike: an fp32 copy of every parameter with Adam on it, nothing
        # sharded, and an fp32 copy of every gradient during the step (see ZERO0_STEP_FP32_GRAD_BYTES)
        return _States(cb, cb + ZERO0_STEP_FP32_GRAD_BYTES, ZERO0_MASTER_BYTES + ADAM_STATE_COUNT * 4, 1, 1, 1)
    return _States(cb, cb, master + moments, n if stage >= 3 else 1, n if stage >= 2 else 1, n)


def _layout_text(lay: Layout, n: int, shard: int) -> str:
    """The sharding in words: one ``said`` sentence per shape (the hybrid and parallel parts are its variants)."""
    tp = f", tensor parallel {lay.tp}" if lay.tp > 1 else ""
    cp = f", context parallel {lay.cp}" if lay.cp > 1 else ""
    sp = f", sequence parallel (Ulysses) {lay.sp}" if lay.sp > 1 else ""
    if lay.deepspeed:
        hpz = f", hpZ secondary partition over {lay.shard_group} ranks per host" if lay.hybrid else ""
        return said(f"DeepSpeed ZeRO-{lay.stage} over {n} ranks" + hpz + tp + cp + sp)
    if lay.fsdp_version == 1:
        across = f" (sharded within each host, replicated across {n // shard})" if lay.hybrid else ""
        return said(f"FSDP1 {lay.fsdp_strategy} over {n if _no_shard(lay) else shard} ranks" + across)
    replicated = f", replicated across {n // (shard * lay.tp)}" if lay.hybrid else ""
    return said(f"FSDP2 fully_shard(reshard_after_forward={lay.reshard}) over {shard} ranks" + replicated + tp + cp
                + sp)


def _size(value: int | None, default: int) -> int:
    """A ZeRO size as the effective model has it; the library default where it is left open ("auto" unfilled)."""
    return default if value is None else int(value)


def _activation_coef(shape: Any, seq: int) -> float:
    """Bytes per (s x b x h) one layer saves for backward, with 2-byte activations."""
    if shape.kind == "tinygpt":
        return TINYGPT_COEF_BASE + TINYGPT_COEF_LSE_PER_HEAD * shape.num_heads / shape.hidden_size
    if shape.family == "gpt2":
        return GPT2_COEF_BASE + GPT2_COEF_PER_ATTN * shape.num_heads * seq / shape.hidden_size
    return LLAMA_COEF_BASE + LLAMA_COEF_PER_INTERMEDIATE * shape.intermediate_size / shape.hidden_size


def _model_numbers(shape: Any) -> tuple[int, int, int]:
    """(total params, params of one transformer layer, params outside the layers) from the shape."""
    from . import shapes as model

    total = int(model.param_count(shape))
    layer = int(model.per_layer_params(shape))
    return total, layer, max(0, total - layer * shape.num_layers)


def estimate(source: Answers | Layout, *, params: int | None = None, largest_layer_params: int | None = None,
             shape: Any = None, batch: int | None = None, seq: int | None = None,
             gpu_memory_gib: float | None = None, headroom: float = DEFAULT_HEADROOM,
             host_memory_gib: float | None = None) -> Estimate:
    """The estimate for the layout that runs (``source``: a :class:`Layout` from the effective model, or answers,
    taken as the config written from them) on a model given by ``params`` (and ``largest_layer_params``) or by
    ``shape`` (a :class:`~.shapes.ModelShape`; activations and logits need it). ``batch`` defaults to the run's micro
    batch (1 when unknown), ``seq`` to 2048 (or the model's learned positions when fewer). Raises
    :class:`EstimateError` for unusable numbers."""
    lay = layout_of(source, hidden_size=getattr(shape, "hidden_size", None))
    whole = _model(lay, params=params, largest_layer_params=largest_layer_params, shape=shape, batch=batch, seq=seq)
    _check_memory(gpu_memory_gib=gpu_memory_gib, headroom=headroom, host_memory_gib=host_memory_gib)
    m = _split_by_tp(lay, shape, whole)  # what one tensor-parallel rank holds of the model
    n = lay.processes
    per_host = max(1, n // lay.machines)
    shard = n if lay.deepspeed else lay.shard_group
    cb = _compute_bytes(lay)

    st = state_bytes(lay, n, shard)
    states = _rank_states(m.params, st)
    if lay.deepspeed:
        sharding = _deepspeed(lay, states, params=m.params, largest_layer_params=m.largest_layer_params, cb=cb,
                              per_host=per_host)
    else:
        sharding = _fsdp(lay, states, params=m.params, unit=m.unit, root_params=m.root_params, cb=cb,
                         param_bytes=st.param, per_host=per_host)
    act = _activations(lay, shape, seq=m.seq, cb=cb)
    host = _host(lay, sharding.host, offloaded_activations=act.offloaded * m.batch * per_host, params=m.params,
                 largest_layer_params=m.largest_layer_params, per_host=per_host)
    step = _optimizer_step(lay, st, params=m.params, optimizer_on_gpu=sharding.states.optimizer, cb=cb)
    moments = _moments(lay, sharding, act, optimizer_step=step, params=m.params, cb=cb)
    per_rank = _peak(moments, m.batch)
    fit, fit_notes = _fit(moments, peak_bytes=per_rank.gpu_bytes, gpu_memory_gib=gpu_memory_gib, headroom=headroom,
                          host_memory_gib=host_memory_gib, host_bytes=sum(host.values()))

    held = sharding.states
    return Estimate(
        target=lay.target, layout=_layout_text(lay, n, shard), params=int(whole.params),
        largest_layer_params=int(m.largest_layer_params), batch=m.batch, seq=m.seq, ranks=n, ranks_per_host=per_host,
        shard_degree=shard,
        bytes_per_param={"parameters": int(held.parameters) / whole.params,
                         "gradients": int(held.gradients) / whole.params,
                         "optimizer_states": int(held.optimizer) / whole.params},
        per_rank=per_rank, host_bytes=sum(host.values()), host_breakdown=host, fit=fit,
        deepspeed_estimator=_deepspeed_side_by_side(lay, m.params, m.largest_layer_params, per_host, lay.machines,
                                                    lay.stage) if lay.deepspeed else None,
        shape=getattr(shape, "name", None),
        notes=[*lay.notes, *m.notes, *sharding.notes, *act.notes, *moments.notes, *fit_notes])


# ---------------------------------------------------------------- the model's numbers, and the arguments checked
@dataclass(slots=True)
class _Model:
    """The model and the micro batch the estimate counts, checked."""

    params: int
    largest_layer_params: int
    """0 when unknown (gathered units are then counted as 0)."""
    unit: int
    """Parameters of one unit FSDP gathers: a transformer layer of the shape, or else the largest layer."""
    root_params: int | None
    """Parameters outside the transformer layers (FSDP's root unit); None without the shape."""
    batch: int
    seq: int
    notes: tuple[str, ...] = ()


def _model(lay: Layout, *, params: int | None, largest_layer_params: int | None, shape: Any, batch: int | None,
           seq: int | None) -> _Model:
    """The model's numbers (from ``shape`` where the arguments leave them open), the micro batch and the sequence;
    raises :class:`EstimateError` for unusable ones."""
    notes: list[str] = []
    layer_params = root_params = None
    if shape is not None:
        total, layer_params, root_params = _model_numbers(shape)
        params = params or total
        if largest_layer_params is None:
            from . import shapes as model

            largest_layer_params = int(model.largest_layer_params(shape))
    if params is None:
        raise EstimateError(said("the model needs at least one parameter: give --params N (N >= 1) or --model"))
    params = bounded("params", params, "--params")
    if largest_layer_params is None:
        largest_layer_params = 0
        notes.append(said("largest layer unknown (give --largest-layer N or --model): gathered units counted as 0"))
    largest_layer_params = bounded("largest_layer", largest_layer_params, "--largest-layer")
    if largest_layer_params > params:
        raise EstimateError(said(f"--largest-layer {largest_layer_params} must be between 0 and the parameter count "
                            f"{params}"))
    batch = batch if batch is not None else (lay.micro_batch or DEFAULT_BATCH)
    positions = getattr(shape, "max_positions", 0) or 0  # learned position embeddings bound the sequence
    if seq is None:
        seq = min(DEFAULT_SEQ, positions) if positions else DEFAULT_SEQ
    elif positions and seq > positions:
        notes.append(said(f"--seq {seq} is longer than the model's {positions} learned positions; counted as given"))
    batch, seq = bounded("batch", batch, "--batch"), bounded("seq", seq, "--seq")
    unit = layer_params if layer_params else largest_layer_params
    return _Model(params, largest_layer_params, unit, root_params, batch, seq, tuple(notes))


def _split_by_tp(lay: Layout, shape: Any, m: _Model) -> _Model:
    """What one tensor-parallel rank holds of the model: the layers transformers' TP plan splits (projections,
    embedding, LM head), 1/tp of them; the norms (and a rowwise layer's bias) whole (:func:`.shapes.tp_split_params`).
    FSDP then shards that over its own group."""
    if lay.tp <= 1:
        return m
    if shape is None:
        note = said(f"tensor parallel {lay.tp}: which layers it splits needs the model's shape (give --model); the "
                    "model states are counted unsplit")
        return replace(m, notes=(*m.notes, note))
    from . import shapes as model

    block, head = model.tp_split_params(shape)
    if not block:
        note = said(f"tensor parallel {lay.tp}: transformers has no tensor-parallel plan for {shape.kind} "
                    "(from_pretrained refuses it); counted unsplit")
        return replace(m, notes=(*m.notes, note))
    saved_block = block - block // lay.tp
    saved_head = head - head // lay.tp
    saved = saved_block * shape.num_layers + saved_head
    note = (said(f"tensor parallel {lay.tp}: transformers' TP plan splits the attention and MLP projections, the "
            f"embedding and the LM head ({(block * shape.num_layers + head) / m.params:.0%} of the parameters) over "
            "the tensor-parallel ranks; the norms stay whole on each of them, and FSDP shards what each holds over "
            "its dp_shard x cp ranks"))
    return replace(m, params=m.params - saved, unit=max(0, m.unit - saved_block),
                   root_params=None if m.root_params is None else max(0, m.root_params - saved_head),
                   notes=(*m.notes, note))


def _check_memory(*, gpu_memory_gib: float | None, headroom: float, host_memory_gib: float | None) -> None:
    """Raises :class:`EstimateError` for a GPU memory, a share kept free or a host memory outside its bound."""
    if gpu_memory_gib is not None:
        bounded("gpu_memory", gpu_memory_gib, "--gpu-memory")
    problem = headroom_problem(headroom)
    if problem:
        raise EstimateError(problem)
    if host_memory_gib is not None:
        bounded("host_memory", host_memory_gib, "--host-memory")


def bounded(name: str, value: Any, flag: str) -> Any:
    """``value`` in the bound of ``name`` (core/bounds.py), else :class:`EstimateError` in its one wording."""
    try:
        return check(name, value)
    except NumberError as exc:
        raise EstimateError(exc.said_by(flag)) from None


# ---------------------------------------------------------------- the model states and their sharding
@dataclass(slots=True)
class _RankStates:
    """Bytes of the model states one rank's GPU holds."""

    parameters: float
    gradients: float
    optimizer: float


def _rank_states(params: int, st: _States) -> _RankStates:
    """Each state's bytes per parameter over what it is divided by (:func:`state_bytes`)."""
    return _RankStates(params * st.param / st.param_div, params * st.grad / st.grad_div,
                       params * st.optim / st.optim_div)


@dataclass(slots=True)
class _Sharding:
    """What the library's sharding leaves on one rank's GPU, and what it puts on the host."""

    states: _RankStates
    """The model states left on the GPU (offloaded ones are 0)."""
    gathered: float
    buckets: float
    host: dict[str, float]
    """Per host: the offloaded states and the pinned buffers (keys of :data:`HOST_KEYS`)."""
    notes: tuple[str, ...] = ()


# ---------------------------------------------------------------- DeepSpeed: hpZ, offload to CPU or NVMe, buffers
def _deepspeed(lay: Layout, states: _RankStates, *, params: int, largest_layer_params: int, cb: int,
               per_host: int) -> _Sharding:
    """ZeRO's parts: the hpZ copy, what goes to the CPU or an NVMe drive, the gathered parameters and the buckets."""
    notes: list[str] = []
    if cb == 2 and lay.master_bf16 and not lay.states_bf16 and lay.offload_optimizer == "none":
        notes.append(said("bf16 master weights with fp32 optimizer states: DeepSpeed 0.19 refuses this without "
                          "optimizer offload to DeepSpeedCPUAdam (base_optimizer.py _configure_master_weights); "
                          "counted as written"))
    if lay.hybrid:  # ZeRO++ hpZ: a secondary 16-bit copy partitioned within the host
        states = replace(states, parameters=states.parameters + params * cb / lay.shard_group)
    states, host = _deepspeed_offload(lay, states, params=params, cb=cb, per_host=per_host)
    gathered, buckets = _deepspeed_buffers(lay, params=params, largest_layer_params=largest_layer_params, cb=cb)
    return _Sharding(states, gathered, buckets, host, tuple(notes))


def _deepspeed_offload(lay: Layout, states: _RankStates, *, params: int, cb: int,
                       per_host: int) -> tuple[_RankStates, dict[str, float]]:
    """The states left on the GPU, and the host's share (offloaded states, pinned NVMe buffers). The layout's offload
    is what the stage runs (none at ZeRO-0, CPU for NVMe below 3; parameters only at ZeRO-3)."""
    n, stage = lay.processes, lay.stage
    parameters, gradients, optimizer = states.parameters, states.gradients, states.optimizer
    host: dict[str, float] = {}
    pinned = 0.0
    if lay.offload_optimizer != "none":
        if lay.offload_optimizer == "cpu":
            host["offloaded_optimizer_states"] = optimizer * per_host
            # the fp32 gradient partition the CPU step reads; ZeRO-3 also moves its 16-bit gradient partition
            # (stage3.py: grad_partitions_flat_buffer on self.device, the CPU under optimizer offload)
            grads_host = params * 4 / n + (params * cb / n if stage == 3 else 0)
            host["offloaded_gradients"] = grads_host * per_host
        else:
            sub = _size(lay.sub_group_size, DS_SUB_GROUP_SIZE_DEFAULT)
            pinned += DS_NVME_OPTIMIZER_BUFFERS * min(sub, params // n + 1) * 4 * per_host
            if stage == 3:  # the 16-bit gradient partition stays in host memory (the fp32 one is swapped)
                host["offloaded_gradients"] = params * cb / n * per_host
        optimizer = 0.0
        if stage >= 2:  # the gradient partition goes to the host bucket by bucket; the buckets stay
            gradients = 0.0
    if lay.offload_param != "none":  # ZeRO-3 only (the layout says none below)
        if lay.offload_param == "cpu":
            host["offloaded_parameters"] = parameters * per_host
        else:  # the swap buffers, and the partition up to max_in_cpu kept in host memory
            pinned += (DS_NVME_PARAM_BUFFERS * DS_NVME_PARAM_BUFFER_SIZE * cb * per_host)
            host["offloaded_parameters"] = min(parameters, DS_NVME_MAX_IN_CPU * cb) * per_host
        parameters = 0.0
    host["pinned_buffers"] = pinned
    return _RankStates(parameters, gradients, optimizer), host


def _deepspeed_buffers(lay: Layout, *, params: int, largest_layer_params: int, cb: int) -> tuple[float, float]:
    """(gathered, buckets): ZeRO-3's gathered parameters (the unit computed and the prefetch bucket, bounded by
    max_live_parameters) and its reduce bucket; ZeRO-1/2's reduce bucket (twice with overlap_comm) and all-gather
    bucket; ZeRO-0's reduce bucket."""
    reduce = min(params, _size(lay.reduce_bucket, DS_REDUCE_BUCKET_DEFAULT))
    if lay.stage == 3:
        prefetch = min(params, _size(lay.prefetch_bucket, DS_PREFETCH_BUCKET_DEFAULT))
        live = _size(lay.max_live_parameters, DS_MAX_LIVE_PARAMETERS_DEFAULT)
        gathered = min(largest_layer_params + prefetch, max(live, largest_layer_params)) * cb
        return gathered, reduce * cb
    if lay.stage in (1, 2):
        allgather = min(params, _size(lay.allgather_bucket, DS_ALLGATHER_BUCKET_DEFAULT))
        return 0.0, reduce * cb * (2 if lay.overlap_comm else 1) + allgather * cb
    return 0.0, reduce * cb


# ---------------------------------------------------------------- FSDP: gathered units, buckets, the offload switch
def _fsdp(lay: Layout, states: _RankStates, *, params: int, unit: int, root_params: int | None, cb: int,
          param_bytes: float, per_host: int) -> _Sharding:
    """FSDP's parts: the units gathered (``unit`` parameters each, the root's ``root_params``), the reduce-scatter
    input, and the single CPU offload switch."""
    if _no_shard(lay):
        gathered = params * cb if cb < param_bytes else 0.0  # a low-precision copy for compute
        buckets = 0.0
    else:
        in_flight = 2 if lay.prefetch else 1
        if lay.reshard:  # FULL_SHARD / reshard_after_forward=True: units come and go; the root stays gathered
            gathered = (in_flight * unit + (root_params or 0)) * cb
        else:  # SHARD_GRAD_OP: every unit stays gathered from its forward to its backward
            gathered = params * cb
        buckets = unit * cb  # one unit's unsharded gradients, the reduce-scatter input
    host: dict[str, float] = {}
    if "cpu" in (lay.offload_optimizer, lay.offload_param):
        # FSDP's single switch: parameters, gradients and the optimizer step on the CPU
        host = {"offloaded_parameters": states.parameters * per_host,
                "offloaded_gradients": states.gradients * per_host,
                "offloaded_optimizer_states": states.optimizer * per_host}
        states = _RankStates(0.0, 0.0, 0.0)
    return _Sharding(states, gathered, buckets, host)


# ---------------------------------------------------------------- activations and logits
@dataclass(slots=True)
class _Activations:
    """Bytes per sample of the micro batch, as the loss holds them and as the end of backward does."""

    activations: float = 0.0
    """What the layers save for backward (with checkpointing: the checkpoints and one recomputed layer)."""
    logits: float = 0.0
    """The logits and the loss's tensors (with checkpointing: what exceeds the recomputed layer)."""
    layer: float = 0.0
    """One layer's activations: what remains of ``activations`` at the end of backward."""
    held_logits: float = 0.0
    """The logits the model's output holds: what remains of ``logits`` at the end of backward."""
    offloaded: float = 0.0
    """Checkpoints offloaded to the host (activation_checkpointing_offload)."""
    notes: tuple[str, ...] = ()


def _activations(lay: Layout, shape: Any, *, seq: int, cb: int) -> _Activations:
    """Activations and logits per sample (none without the model's shape). Context and sequence parallelism give each
    rank 1/(cp x sp) of the sequence, everywhere; tensor parallelism splits what lies inside attention and the MLP
    (:data:`LLAMA_COEF_NOT_SPLIT_BY_TP`), not the norms, the layer's input or the logits (gathered whole)."""
    if shape is None:
        return _Activations(notes=(said("activations and logits need the model's shape (give --model): not counted"),))
    local = -(-seq // lay.sequence_split)  # the tokens of one sequence this rank holds
    sbh = local * shape.hidden_size * cb / 2  # coefficients are for 2-byte activations
    coef = _activation_coef(shape, seq)
    from .shapes import tp_split_params

    tp_split = lay.tp > 1 and any(tp_split_params(shape))
    if tp_split:
        coef = LLAMA_COEF_NOT_SPLIT_BY_TP + (coef - LLAMA_COEF_NOT_SPLIT_BY_TP) / lay.tp
    buffers, notes = _parallel_buffers(lay, shape, local=local, seq=seq, cb=cb, tp_split=tp_split)
    full_layer = coef * sbh + buffers
    held_logits = local * shape.vocab_size * cb  # the logits the model's output holds
    logits = held_logits + local * shape.vocab_size * (LOSS_SAVED_FP32_BYTES + LOSS_BACKWARD_FP32_BYTES)
    if not lay.activation_checkpointing:
        return _Activations(full_layer * shape.num_layers, logits, full_layer, held_logits, notes=notes)
    kept = CHECKPOINT_COEF * sbh * shape.num_layers
    offloaded = 0.0
    if lay.activation_checkpointing_offload:
        offloaded, kept = kept, 0.0
    # the checkpoints and one layer recomputed in backward; the recomputed layer and the loss's peak come one after
    # the other (CHECKPOINT_PEAKS_APART)
    if CHECKPOINT_PEAKS_APART:
        logits = max(logits - full_layer, held_logits)
    return _Activations(kept + full_layer, logits, full_layer, held_logits, offloaded, notes)


def _parallel_buffers(lay: Layout, shape: Any, *, local: int, seq: int, cb: int,
                      tp_split: bool) -> tuple[float, tuple[str, ...]]:
    """Bytes per sample of the communication buffers one layer of TP, CP or SP holds while it runs (counted with that
    layer's activations), and what the split leaves whole, in words."""
    buffers = 0.0
    notes: list[str] = []
    h = shape.hidden_size
    kv = shape.num_kv_heads * shape.head_width
    q = shape.num_heads * shape.head_width
    if lay.tp > 1 and tp_split:
        tp_buf = local * h * cb  # a rowwise layer's partial output, all-reduced over the TP ranks
        buffers += tp_buf
        notes.append(said(f"tensor parallel {lay.tp}: each rank saves 1/{lay.tp} of what attention and the MLP save "
                     f"({_coef_text(shape, seq)} sbh less the {LLAMA_COEF_NOT_SPLIT_BY_TP} sbh of the norms and the "
                     "projections' input, which every rank keeps whole); the logits are gathered whole on every rank "
                     "(the LM head's colwise_gather_output); one rowwise layer's output in flight for its all-reduce "
                     "(s x h) is counted with the layer's activations"))
    if lay.cp > 1:
        gathered_kv = 2 * seq * kv * cb  # torch's default rotation gathers every rank's keys and values
        buffers += gathered_kv
        notes.append(said(f"context parallel {lay.cp}: each rank holds {local} of the {seq} tokens, so activations and "
                     "logits are 1/cp of one rank's; ring attention (torch's default all-gather rotation, "
                     "cp_comm_strategy allgather) gathers the whole sequence's keys and values for the layer it runs "
                     f"(2 x s x {kv} per sample), counted with the layer's activations"))
    if lay.sp > 1:
        a2a = local * (2 * q + 2 * kv) * cb  # all-to-all receive buffers: q, k, v in, the attention output back
        buffers += a2a
        notes.append(said(f"sequence parallel {lay.sp} (Ulysses): each rank holds {local} of the {seq} tokens outside "
                     "attention, and inside it the whole sequence for 1/sp of the heads (the same bytes), so "
                     "activations and logits are 1/sp of one rank's; the all-to-all buffers of q, k, v and the "
                     "attention output are counted with the layer's activations"))
    if lay.tp > 1 and not tp_split:
        notes.append(said(f"tensor parallel {lay.tp}: {shape.kind} has no tensor-parallel plan the estimate knows; "
                     "activations counted unsplit"))
    return buffers, tuple(notes)


def _coef_text(shape: Any, seq: int) -> str:
    return f"{_activation_coef(shape, seq):.1f}"


# ---------------------------------------------------------------- the host
def _host(lay: Layout, offloaded: dict[str, float], *, offloaded_activations: float, params: int,
          largest_layer_params: int, per_host: int) -> dict[str, int]:
    """Per host (:data:`HOST_KEYS`): the sharding's offloaded states and pinned buffers, the offloaded activations,
    and loading the model."""
    host = dict.fromkeys(HOST_KEYS, 0.0)
    host.update(offloaded)
    host["offloaded_activations"] = offloaded_activations
    host["model_load"] = _model_load(lay, params=params, largest_layer_params=largest_layer_params,
                                     per_host=per_host)
    return {k: int(v) for k, v in host.items()}


def _model_load(lay: Layout, *, params: int, largest_layer_params: int, per_host: int) -> int:
    """Host bytes while the model is loaded."""
    model_bytes = DTYPE_BYTES[lay.model_dtype]
    if lay.deepspeed and lay.zero_init:  # zero.Init: each process materialises its share, a layer at a time
        return largest_layer_params * model_bytes * per_host
    if not lay.deepspeed and lay.ram_efficient_loading:  # cpu_ram_efficient_loading: one process per host reads
        return params * model_bytes
    return params * model_bytes * per_host


# ---------------------------------------------------------------- the optimizer step
def _optimizer_step(lay: Layout, st: _States, *, params: int, optimizer_on_gpu: float, cb: int) -> float:
    """The optimizer step's temporaries on the GPU (none when the optimizer is offloaded: it steps on the CPU)."""
    if not optimizer_on_gpu > 0:
        return 0.0
    ds = lay.deepspeed
    rank_elements = params / st.optim_div  # the elements this rank's optimizer updates
    state_dtype = st.optim / ADAM_STATE_COUNT if not ds else (2.0 if cb == 2 and lay.states_bf16 else 4.0)
    step_temp = 0.0
    if ds and lay.stage >= 1 and STEP_GRAD_COPY:
        master = 2.0 if (cb == 2 and lay.master_bf16) else 4.0
        group = rank_elements
        if lay.stage == 3:
            group = min(rank_elements, _size(lay.sub_group_size, DS_SUB_GROUP_SIZE_DEFAULT))
        step_temp += group * master
        flat = group * cb  # the flattened 16-bit gradients, alive while they are copied, freed before the step
    else:
        group = rank_elements
        flat = 0.0
    adam_temp = 0.0 if (ds and lay.own_optimizer) else ADAM_FOREACH_TEMP_STATES * group * state_dtype
    step_temp += max(flat, adam_temp)  # one after the other
    return step_temp


# ---------------------------------------------------------------- the moments of the peak
@dataclass(slots=True)
class _Moments:
    """The parts at their own size and what each moment of :data:`PHASES` lacks of them, at any micro batch."""

    fixed: dict[str, int]
    """The parts that do not grow with the micro batch (all of :data:`BREAKDOWN_KEYS` but activations and logits)."""
    act: _Activations
    grads_at_loss: float
    """The gradients held at the loss."""
    loss_lacks_gradients: int
    """What the loss lacks of the breakdown's gradients (all of them when none outlive the step)."""
    extra_at_loss: int
    """Gradients the loss holds beyond the breakdown's (no_sync's unsharded ones)."""
    notes: tuple[str, ...] = ()

    def breakdown(self, b: int) -> dict[str, int]:
        """Every part at its own size at micro batch ``b``."""
        out = {k: self.fixed.get(k, 0) for k in BREAKDOWN_KEYS}
        out["activations"] = int(self.act.activations * b)
        out["logits"] = int(self.act.logits * b)
        return out

    def lacks(self, b: int) -> dict[str, dict[str, int]]:
        """What each moment of PHASES lacks of the breakdown at micro batch ``b``."""
        act, logit = int(self.act.activations * b), int(self.act.logits * b)
        step = self.fixed["optimizer_step"]
        return {
            "loss": {"gradients": self.loss_lacks_gradients, "optimizer_step": step},
            "backward": {"activations": act - min(act, int(self.act.layer * b)),
                         "logits": logit - min(logit, int(self.act.held_logits * b)), "optimizer_step": step},
            "optimizer_step": {"gathered": self.fixed["gathered"], "activations": act, "logits": logit},
        }

    def phases_at(self, b: int) -> dict[str, int]:
        """Bytes held at each moment of PHASES at micro batch ``b``."""
        whole = sum(self.fixed.values()) + int(self.act.activations * b) + int(self.act.logits * b)
        out = {ph: whole - sum(lack.values()) for ph, lack in self.lacks(b).items()}
        out["loss"] += self.extra_at_loss
        return out


def _moments(lay: Layout, sharding: _Sharding, act: _Activations, *, optimizer_step: float, params: int,
             cb: int) -> _Moments:
    """The parts and the gradients each moment holds: gradients at the loss only where they outlive the step
    (ZeRO-3's flat buffer) or accumulate (FSDP's no_sync: unsharded)."""
    held = sharding.states
    gradients = held.gradients
    notes: list[str] = []
    ga = lay.gradient_accumulation_steps
    accumulates = ga is None or ga > 1
    if lay.deepspeed:  # ZeRO-3's flat gradient buffer lives on the GPU for good; ZeRO-1/2 keep theirs in between
        grads_at_loss = gradients if (lay.stage == 3 or accumulates) else 0.0
    elif accumulates and lay.processes > 1 and not _no_shard(lay):  # no_sync: every unit's gradients, unsharded
        grads_at_loss = float(params * cb)
        notes.append(said(f"gradient accumulation ({ga if ga is not None else 'auto'} micro-batches): inside "
                     "accelerator.accumulate() or the Trainer FSDP skips the reduce-scatter before the last "
                     "micro-batch, so each rank holds the whole "
                     f"model's unsharded gradients ({_gib_text(grads_at_loss)}) at the loss; "
                     "GradientAccumulationPlugin(sync_each_batch=True) reduces every micro-batch instead"))
    else:
        grads_at_loss = gradients if accumulates else 0.0
    if ga is None:
        notes.append(said("gradient_accumulation_steps 'auto': counted as more than one micro-batch (gradients held at "
                     "the loss); with 1 the loss holds none"))
    parts = {"parameters": held.parameters, "gradients": gradients, "optimizer_states": held.optimizer,
             "gathered": sharding.gathered, "buckets": sharding.buckets, "optimizer_step": optimizer_step,
             "overhead": float(CUDA_CONTEXT_BYTES)}
    fixed = {k: int(parts[k]) for k in BREAKDOWN_KEYS if k in parts}
    loss_lacks = fixed["gradients"] - int(grads_at_loss) if grads_at_loss <= gradients else 0
    extra = max(0, int(grads_at_loss) - fixed["gradients"])
    return _Moments(fixed, act, grads_at_loss, loss_lacks, extra, tuple(notes))


def _peak(moments: _Moments, batch: int) -> PerRank:
    """The peak at micro batch ``batch``: the highest moment, and what it does not hold."""
    phases = moments.phases_at(batch)
    phase = max(PHASES, key=lambda ph: phases[ph])  # the first of equal ones
    breakdown = moments.breakdown(batch)
    not_at_peak = {k: v for k, v in moments.lacks(batch)[phase].items() if v > 0}
    if moments.extra_at_loss and phase == "loss":
        breakdown["gradients"] = int(moments.grads_at_loss)  # the unsharded ones are what the peak holds
        not_at_peak.pop("gradients", None)
    return PerRank(phases[phase], breakdown, phase, phases, not_at_peak)


# ---------------------------------------------------------------- fits (one definition: .fit)
def _fit(moments: _Moments, *, peak_bytes: int, gpu_memory_gib: float | None, headroom: float,
         host_memory_gib: float | None, host_bytes: int) -> tuple[Fit | None, tuple[str, ...]]:
    """Whether the peak fits one GPU with ``headroom`` kept free (and the host bytes the host), and the largest micro
    batch that does (:func:`.fit.fit_of`); None without the GPU memory."""
    if gpu_memory_gib is None:
        return None, ()
    peak_at = None
    notes: tuple[str, ...] = ()
    if moments.act.activations + moments.act.logits > 0:  # the peak grows with the micro batch
        peak_at = lambda b: max(moments.phases_at(b).values())  # noqa: E731
    else:
        notes = (said("max_micro_batch needs the activations (give --model)"),)
    fit = fit_of(gpu_bytes=int(gpu_memory_gib * GIB), peak_bytes=peak_bytes, headroom=headroom, peak_at=peak_at,
                 host_memory_bytes=None if host_memory_gib is None else int(host_memory_gib * GIB),
                 host_peak_bytes=host_bytes)
    return fit, notes


def _gib_text(x: float) -> str:
    return f"{x / GIB:.2f} GiB"


def _deepspeed_side_by_side(lay: Layout, params: int, largest: int, per_host: int, machines: int,
                            stage: int) -> dict[str, Any] | None:
    """What DeepSpeed 0.19.8's own estimator gives for the same model and GPUs (ZeRO-2 and ZeRO-3 only)."""
    cpu_offload = lay.offload_optimizer != "none"
    if stage == 2:
        cpu, gpu = dse.estimate_zero2_model_states_mem_needs(params, per_host, machines, cpu_offload=cpu_offload)
        return {"function": "estimate_zero2_model_states_mem_needs", "deepspeed_version": dse.DEEPSPEED_VERSION,
                "arguments": {"total_params": params, "num_gpus_per_node": per_host, "num_nodes": machines,
                              "cpu_offload": cpu_offload, "additional_buffer_factor": dse.ADDITIONAL_BUFFER_FACTOR},
                "gpu_bytes": gpu, "cpu_bytes": cpu, "counts": "model states only"}
    if stage == 3:
        offload_params = lay.offload_param != "none"
        zero_init = lay.zero_init
        cpu, gpu, layer = dse.estimate_zero3_model_states_mem_needs(
            params, largest, per_host, machines, cpu_offload=cpu_offload, cpu_offload_params=offload_params,
            zero_init=zero_init)
        return {"function": "estimate_zero3_model_states_mem_needs", "deepspeed_version": dse.DEEPSPEED_VERSION,
                "arguments": {"total_params": params, "largest_layer_params": largest, "num_gpus_per_node": per_host,
                              "num_nodes": machines, "cpu_offload": cpu_offload,
                              "cpu_offload_params": offload_params, "zero_init": zero_init,
                              "additional_buffer_factor": dse.ADDITIONAL_BUFFER_FACTOR},
                "gpu_bytes": gpu, "cpu_bytes": cpu, "largest_layer_bytes": layer, "counts": "model states only"}
    return None


__all__ = ["BREAKDOWN_KEYS", "CUDA_CONTEXT_BYTES", "Estimate", "EstimateError", "HOST_KEYS", "Layout", "PerRank",
           "bounded", "estimate", "layout_of", "state_bytes"]
