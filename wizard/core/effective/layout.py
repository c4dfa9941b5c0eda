"""The memory estimate's view of the effective model: the layout that runs, in the figures ``estimate`` needs.

Everything here is read from an :class:`~.model.Effective` (never from answers), so an estimate of answers and an
estimate of the config written from them are the same estimate. ``notes`` says where the run differs from the config
as written (an offload a ZeRO stage does not do, NVMe turned into CPU offload) or what was assumed (an unknown micro
batch).
"""
from __future__ import annotations

from ..recordclass import field, record, replace
from .model import Effective, fsdp2_shard_group
from .used import CHANGED, IGNORED, OVERRIDDEN

DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}


@record(frozen=True)
class Layout:
    target: str
    """``fsdp1``, ``fsdp2`` or ``deepspeed``."""
    processes: int
    machines: int
    mixed_precision: str
    model_dtype: str
    stage: int = 0
    """DeepSpeed's ZeRO stage (0 for FSDP)."""
    fsdp_strategy: str = ""
    """FSDP's sharding in FSDP1's words (FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD, HYBRID_SHARD_ZERO2); FSDP2
    is FULL_SHARD or SHARD_GRAD_OP (reshard_after_forward), hybrid when it replicates across groups."""
    reshard: bool = True
    hybrid: bool = False
    shard_group: int = 1
    """Ranks one parameter is sharded over (FSDP; DeepSpeed's hpZ secondary partition size)."""
    offload_optimizer: str = "none"
    offload_param: str = "none"
    master_bf16: bool = False
    states_bf16: bool = False
    own_optimizer: bool = False
    reduce_bucket: int | None = None
    allgather_bucket: int | None = None
    prefetch_bucket: int | None = None
    max_live_parameters: int | None = None
    sub_group_size: int | None = None
    overlap_comm: bool = False
    prefetch: bool = True
    """FSDP prefetches the next unit (two units in flight)."""
    activation_checkpointing: bool = False
    activation_checkpointing_offload: bool = False
    ram_efficient_loading: bool = False
    """FSDP's cpu_ram_efficient_loading (one process per host reads the weights)."""
    zero_init: bool = False
    """DeepSpeed ZeRO-3 creates the model partitioned (zero.Init)."""
    micro_batch: int | None = None
    gradient_accumulation_steps: int | None = None
    """None: unknown ("auto" the script decides): counted as more than one."""
    dp_replicate: int = 1
    dp_shard: int = 1
    """The parallelism config's sizes (``parallelism.*``; 1 where not written): FSDP2 shards over dp_shard x cp."""
    tp: int = 1
    """Tensor parallelism (FSDP2 through transformers' TP plan): the planned linear layers split over tp ranks."""
    cp: int = 1
    """Context parallelism (FSDP2, torch's context_parallel): the sequence split over cp ranks."""
    sp: int = 1
    """DeepSpeed's Ulysses sequence parallelism: the sequence split over sp ranks (heads inside attention)."""
    notes: tuple[str, ...] = field(default=())

    @property
    def deepspeed(self) -> bool:
        return self.target == "deepspeed"

    @property
    def fsdp_version(self) -> int | None:
        return {"fsdp1": 1, "fsdp2": 2}.get(self.target)

    @property
    def sequence_split(self) -> int:
        """How many ranks share one sequence (context and sequence parallelism)."""
        return self.cp * self.sp


def with_parallelism(lay: Layout, *, tp: int = 1, cp: int = 1, sp: int = 1) -> Layout:
    """``lay`` with these tensor, context and sequence parallel sizes, the data-parallel sizes and FSDP2's shard
    group following from them as the effective model derives them (what ``recommend`` tries before the answers can
    hold the sizes)."""
    rest = max(1, lay.processes // max(1, lay.dp_replicate * tp * cp * sp))
    if lay.deepspeed:
        return replace(lay, tp=tp, cp=cp, sp=sp, dp_shard=rest)
    return replace(lay, tp=tp, cp=cp, sp=sp, dp_shard=rest,
                   shard_group=fsdp2_shard_group(lay.processes, lay.dp_replicate, tp))


class LayoutError(ValueError):
    """The effective model describes no FSDP or DeepSpeed run (or one that does not start)."""


def _notes(e: Effective, keys: tuple[str, ...]) -> tuple[str, ...]:
    out = []
    for key in keys:
        u = e.used(key)
        if u is not None and u.why in (IGNORED, CHANGED, OVERRIDDEN) and u.note:
            written = ", ".join(u.keys)
            out.append(f"{written}: {u.note}" if written else u.note)
    return tuple(dict.fromkeys(out))


def layout(e: Effective) -> Layout:
    if e.backend is None:
        raise LayoutError(f"distributed_type {e.get('distributed_type')} is neither FSDP nor DEEPSPEED: there is no "
                          "sharded layout to estimate")
    sit = e.situation
    mp = str(e.get("mixed_precision") or "no")
    sizes = {name: max(1, int(e.get(f"parallelism.{key}", 1) or 1)) for name, key in (
        ("dp_replicate", "dp_replicate_size"), ("dp_shard", "dp_shard_size"), ("tp", "tp_size"), ("cp", "cp_size"),
        ("sp", "sp_size"))}
    common = dict(processes=max(1, int(e["num_processes"])), machines=max(1, int(e["num_machines"])),
                  mixed_precision=mp, model_dtype=sit.model_dtype,
                  micro_batch=e.get("runs.micro_batch"), gradient_accumulation_steps=e.get(
                      "runs.gradient_accumulation_steps"),
                  offload_optimizer=e.get("runs.offload_optimizer", "none"),
                  offload_param=e.get("runs.offload_param", "none"),
                  activation_checkpointing=bool(e.get("runs.activation_checkpointing")),
                  activation_checkpointing_offload=bool(e.get("runs.activation_checkpointing_offload")), **sizes)
    if e.backend == "fsdp":
        version = int(e.get("fsdp.fsdp_version", 1))
        return Layout(target=f"fsdp{version}", fsdp_strategy=str(e["runs.fsdp_strategy"]),
                      reshard=bool(e["runs.fsdp_reshard"]), hybrid=bool(e["runs.fsdp_hybrid"]),
                      shard_group=int(e["runs.shard_group"]), prefetch=bool(e["runs.fsdp_prefetch"]),
                      ram_efficient_loading=bool(e.get("runs.ram_efficient_loading")),
                      notes=_notes(e, ("fsdp.sharding_strategy", "fsdp.reshard_after_forward",
                                       "fsdp.backward_prefetch")), **common)
    v = "deepspeed_validated."
    stage = int(e.get("runs.zero_stage", 0))
    hpz = int(e.get("runs.hpz_partition_size", 1) or 1)
    return Layout(target="deepspeed", stage=stage, hybrid=stage == 3 and hpz > 1, shard_group=hpz,
                  master_bf16=bool(e.get("runs.bf16_master_weights")),
                  states_bf16=bool(e.get("runs.bf16_optimizer_states")),
                  own_optimizer=bool(e.get("runs.own_optimizer")),
                  reduce_bucket=e.get(v + "reduce_bucket_size"), allgather_bucket=e.get(v + "allgather_bucket_size"),
                  prefetch_bucket=e.get(v + "prefetch_bucket_size"),
                  max_live_parameters=e.get(v + "max_live_parameters"), sub_group_size=e.get(v + "sub_group_size"),
                  overlap_comm=bool(e.get(v + "overlap_comm")), zero_init=bool(e.get("runs.zero_init")),
                  notes=_notes(e, ("runs.offload_optimizer", "runs.offload_param", "runs.hpz_partition_size",
                                   "runs.zero_init")), **common)


def config_sizes(accelerate: dict) -> tuple[dict[str, int], int] | None:
    """An FSDP accelerate config's parallelism sizes (in accelerate's mesh order) and processes per machine, as the
    effective model reads them, when tensor or context parallelism is above 1 and the sizes multiply to the processes
    (else None: nothing to picture, or a world the sizes do not describe, which the config rules report)."""
    from ..library.launcher import MESH_ORDER
    from .model import effective

    e = effective(accelerate)
    if e.backend != "fsdp" or "parallelism.total_size" not in e:
        return None
    sizes = {name: int(e.get(f"parallelism.{name}_size") or 1) for name in MESH_ORDER}
    procs, machines = e.get("num_processes"), e.get("num_machines") or 1
    if sizes["tp"] == 1 and sizes["cp"] == 1 or not isinstance(procs, int) or e["parallelism.total_size"] != procs:
        return None
    return sizes, (procs // machines if isinstance(machines, int) and machines > 1 else 0)


__all__ = ["DTYPE_BYTES", "Layout", "LayoutError", "config_sizes", "layout", "with_parallelism"]
