"""The effective model: from a config as written and the situation, what runs, key by key, and why.

:func:`effective` takes the accelerate YAML (a dict), the DeepSpeed JSON it names (a dict, or None), or a DeepSpeed
JSON alone, and a :class:`~.situation.Situation`; it returns an :class:`Effective`: ``{key: Used(value, why, ...)}``
plus what would stop the run (:class:`~.builder.Failure`). The keys are those of
:func:`wizard.core.verify.roundtrip.flatten_effective` (what the real libraries build, so ``--verify`` and the
differential test compare the two directly), plus ``runs.*``: what the engines then do with those values (the
offload a ZeRO stage really runs, FSDP's sharding as a layout, the micro batch and accumulation of the run), which the
memory estimate and the rehearsal checklist read.

Pure: stdlib and the wizard's vocabulary; nothing of torch, accelerate or deepspeed is imported.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..recordclass import field, record
from .builder import Builder, Failure
from .deepspeed import _int as whole_int
from .deepspeed import deepspeed_values
from .fsdp import fsdp_values
from .situation import Situation
from .used import DEFAULT, DERIVED, IGNORED, WRITTEN, Used

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

RUNS = "runs."
"""The prefix of the keys that say what the engines do (not read back from the libraries' objects)."""
LIBRARY_PREFIXES = ("fsdp.", "deepspeed.", "deepspeed_plugin.", "deepspeed_validated.", "parallelism.", "fp8.")
TOP_KEYS = ("distributed_type", "num_processes", "num_machines", "mixed_precision", "dynamo_backend")


@record
class Effective:
    values: dict[str, Used]
    failures: list[Failure] = field(default_factory=list)
    backend: str | None = None
    """``"fsdp"``, ``"deepspeed"``, or None (no distribution this model describes)."""
    situation: Situation = field(default_factory=Situation)

    def __getitem__(self, key: str) -> Any:
        return self.values[key].value

    def __contains__(self, key: str) -> bool:
        return key in self.values

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def get(self, key: str, default: Any = None) -> Any:
        u = self.values.get(key)
        return default if u is None else u.value

    def used(self, key: str) -> Used | None:
        return self.values.get(key)

    @property
    def ok(self) -> bool:
        return not self.failures

    def library_view(self) -> dict[str, Any]:
        """The values in :func:`wizard.core.verify.roundtrip.flatten_effective`'s keys (no ``runs.*``)."""
        return {k: u.value for k, u in self.values.items() if not k.startswith(RUNS)}

    def to_json(self) -> dict[str, Any]:
        return {"backend": self.backend, "values": {k: u.to_dict() for k, u in sorted(self.values.items())},
                "failures": [{"keys": list(f.keys), "message": f.message, "by": f.by} for f in self.failures]}


def _int(value: Any, default: int) -> int:
    number = whole_int(value)
    return default if number is None else number


def effective(accelerate: Mapping[str, Any] | None, deepspeed: Mapping[str, Any] | None = None,
              situation: Situation | None = None) -> Effective:
    """What runs for an accelerate YAML (``accelerate``) with its DeepSpeed JSON (``deepspeed``), or for a DeepSpeed
    JSON alone (``accelerate`` None): a DeepSpeed run with accelerate's defaults around it."""
    sit = situation or Situation()
    b = Builder()
    json_alone = accelerate is None
    y: Mapping[str, Any] = accelerate if isinstance(accelerate, Mapping) else {}
    raw_dist = "DEEPSPEED" if json_alone else str(y.get("distributed_type", "NO"))
    dist = raw_dist.upper()
    b.put("distributed_type", raw_dist, DEFAULT if json_alone else WRITTEN, "accelerate launch",
          () if json_alone else ("distributed_type",))
    procs = _int(y.get("num_processes"), 1)
    machines = _int(y.get("num_machines"), 1)
    for key, value in (("num_processes", procs), ("num_machines", machines)):
        b.written_or_default(key, value, key if key in y else None, "accelerate launch")
    mp = str(y.get("mixed_precision") or "no").lower()
    if "mixed_precision" not in y and y.get("fp16"):  # the old top-level flag (config_args.py converts it)
        mp = "fp16"
    dyn: Mapping[str, Any] = y["dynamo_config"] if isinstance(y.get("dynamo_config"), Mapping) else {}
    dyn_backend = str(dyn.get("dynamo_backend") or "no").upper()
    backend = None
    if dist == "FSDP":
        backend = "fsdp"
        b.written_or_default("mixed_precision", mp, "mixed_precision" if "mixed_precision" in y else None,
                             "accelerate launch")
        b.written_or_default("dynamo_backend", dyn_backend, "dynamo_config.dynamo_backend"
                             if "dynamo_backend" in dyn else None, "TorchDynamoPlugin")
        fsdp_values(y, mp, b)
        _parallelism(y, b)
        _fsdp_runs(b, sit, procs, machines)
    elif dist == "DEEPSPEED":
        backend = "deepspeed"
        if "dynamo_backend" in dyn and dyn_backend != "NO":
            b.put("dynamo_backend", "NO", IGNORED, "accelerate launch", ("dynamo_config.dynamo_backend",),
                  "accelerate launch exports no dynamo settings for DeepSpeed runs")
        else:
            b.put("dynamo_backend", "NO", DEFAULT, "TorchDynamoPlugin")
        sp, dp = _ulysses(y)
        # with Ulysses DeepSpeed's config counts processes / sp data-parallel ranks, and accelerate sets
        # train_batch_size from dp_replicate x dp_shard (claim ds-ulysses-batch-needs-dp-sizes)
        deepspeed_values(y, deepspeed, mp, procs // sp if sp > 1 else procs, sit, b, json_alone=json_alone)
        _parallelism(y, b)
        if sp > 1 and dp * sp != procs:
            b.fail(("parallelism_config.parallelism_config_sp_size",
                    "parallelism_config.parallelism_config_dp_shard_size", "num_processes"),
                   f"accelerate sizes train_batch_size by {dp} data-parallel rank(s), DeepSpeed counts "
                   f"num_processes / sp_size = {procs / sp:g}: 'Check batch related parameters'",
                   "deepspeed.initialize")
    else:
        b.written_or_default("mixed_precision", mp, "mixed_precision" if "mixed_precision" in y else None,
                             "accelerate launch")
    if not json_alone and (mp == "fp8" or "fp8_config" in y):
        from .fp8 import fp8_values  # here, not at start: few configs use fp8 (tests/start_path.py)

        fp8_values(y, mp, b, sit.fp8_installed)  # the recipe the Accelerator builds, whatever distributes the run
    return Effective(b.values, b.failures, backend, sit)


def fsdp2_shard_group(procs: int, replicate: int = 1, tp: int = 1) -> int:
    """The ranks FSDP2 shards one parameter over: accelerate's ``dp_shard_cp`` mesh dimension (dp_shard x cp), what
    is left of the processes once replication and tensor parallelism are taken out (accelerate/parallelism_config.py
    ``fsdp_dim_names``)."""
    return max(1, procs // max(1, replicate * tp))


def _ulysses(y: Mapping[str, Any]) -> tuple[int, int]:
    """(sp_size, dp_replicate x dp_shard) of DeepSpeed's Ulysses sequence parallelism; sp 1 without it."""
    pc = y.get("parallelism_config")
    if not isinstance(pc, Mapping) or pc.get("parallelism_config_sp_backend", "deepspeed") != "deepspeed":
        return 1, 1
    sp = _int(pc.get("parallelism_config_sp_size"), 1)
    dp = _int(pc.get("parallelism_config_dp_replicate_size"), 1) * _int(pc.get("parallelism_config_dp_shard_size"), 1)
    return (sp, dp) if sp > 1 else (1, 1)


def _parallelism(y: Mapping[str, Any], b: Builder) -> None:
    pc = y.get("parallelism_config")
    if not isinstance(pc, Mapping):
        return
    sizes = {}
    for name in ("dp_replicate_size", "dp_shard_size", "tp_size", "cp_size", "sp_size"):
        key = f"parallelism_config_{name}"
        sizes[name] = _int(pc.get(key), 1)
        b.written_or_default(f"parallelism.{name}", sizes[name], f"parallelism_config.{key}" if key in pc else None,
                             "ParallelismConfig")
    for name, default in (("cp_backend", "torch"), ("sp_backend", "deepspeed")):
        key = f"parallelism_config_{name}"
        b.written_or_default(f"parallelism.{name}", pc.get(key, default), f"parallelism_config.{key}" if key in pc
                             else None, "ParallelismConfig")
    total = 1
    for name in ("dp_replicate_size", "dp_shard_size", "tp_size", "cp_size", "sp_size"):
        total *= sizes[name]
    b.put("parallelism.total_size", total, DERIVED, "ParallelismConfig", tuple(
        f"parallelism_config.parallelism_config_{n}" for n in sizes if f"parallelism_config_{n}" in pc))
    # the launcher exports the context-parallel exchange only with cp_size above 1 and the sequence-parallel details
    # only with sp_size above 1 (accelerate/utils/launch.py:420-425); their handlers read them from there
    if sizes["cp_size"] > 1:
        key = "parallelism_config_cp_comm_strategy"
        b.written_or_default("parallelism.cp_comm_strategy", pc.get(key, "allgather"),
                             f"parallelism_config.{key}" if key in pc else None, "TorchContextParallelConfig")
    if sizes["sp_size"] > 1:
        key = "parallelism_config_sp_seq_length_is_variable"
        # str() of the YAML value is exported; only "true" (any case) reads as variable
        variable = str(pc.get(key, True)).lower() == "true"
        b.written_or_default("parallelism.sp_seq_length_is_variable", variable,
                             f"parallelism_config.{key}" if key in pc else None, "DeepSpeedSequenceParallelConfig")
        key = "parallelism_config_sp_seq_length"
        length = None if variable else _int(pc.get(key), 0) or None
        b.written_or_default("parallelism.sp_seq_length", length,
                             f"parallelism_config.{key}" if key in pc else None, "DeepSpeedSequenceParallelConfig")
        key = "parallelism_config_sp_attn_implementation"
        b.written_or_default("parallelism.sp_attn_implementation", pc.get(key, "sdpa"),
                             f"parallelism_config.{key}" if key in pc else None, "DeepSpeedSequenceParallelConfig")


def _fsdp_runs(b: Builder, sit: Situation, procs: int, machines: int) -> None:
    """FSDP as a layout: the sharding, its group size, the micro batch and accumulation the script runs."""
    version = b.value("fsdp.fsdp_version", 1)
    replicate = b.value("parallelism.dp_replicate_size", 1) or 1
    if version == 1:
        name = str(b.value("fsdp.sharding_strategy") or "FULL_SHARD").lstrip("_")
        hybrid = name.startswith("HYBRID")
        reshard = name in ("FULL_SHARD", "HYBRID_SHARD")
        keys = b.values["fsdp.sharding_strategy"].keys if "fsdp.sharding_strategy" in b.values else ()
        group = max(1, procs // max(1, machines)) if hybrid else procs
        b.put("runs.fsdp_strategy", name, DERIVED, "FullyShardedDataParallelPlugin", keys)
    else:
        reshard = b.value("fsdp.reshard_after_forward", True) is not False
        hybrid = replicate > 1
        keys = b.values["fsdp.reshard_after_forward"].keys if "fsdp.reshard_after_forward" in b.values else ()
        group = fsdp2_shard_group(procs, replicate, b.value("parallelism.tp_size", 1) or 1)
        b.put("runs.fsdp_strategy", ("FULL_SHARD" if reshard else "SHARD_GRAD_OP"), DERIVED, "fully_shard", keys,
              "FSDP2: reshard_after_forward true = FULL_SHARD, false = SHARD_GRAD_OP")
    b.put("runs.fsdp_reshard", reshard, DERIVED, "FSDP", keys)
    b.put("runs.fsdp_hybrid", hybrid, DERIVED, "FSDP", keys)
    b.put("runs.shard_group", group, DERIVED, "FSDP", keys)
    prefetch = version == 2 or b.value("fsdp.backward_prefetch") is not None or bool(b.value("fsdp.forward_prefetch"))
    b.put("runs.fsdp_prefetch", prefetch, DERIVED, "FSDP",
          () if version == 2 else ("fsdp_config.fsdp_backward_prefetch",),
          "FSDP2 prefetches the next unit by itself" if version == 2 else "")
    trainer = sit.trainer and sit.trainer_arguments is not None
    targs = dict(sit.trainer_arguments or {})
    if trainer and "per_device_train_batch_size" in targs:
        b.put("runs.micro_batch", int(targs["per_device_train_batch_size"]), DERIVED, "the HF Trainer")
    elif sit.micro_batch is not None:
        b.put("runs.micro_batch", sit.micro_batch, DERIVED, "the script", (), "the DataLoader's batch size")
    else:
        b.put("runs.micro_batch", None, DEFAULT, "the script", (), "the DataLoader's batch size (unknown)")
    if trainer and "gradient_accumulation_steps" in targs:
        b.put("runs.gradient_accumulation_steps", int(targs["gradient_accumulation_steps"]), DERIVED, "the HF Trainer")
    else:
        b.put("runs.gradient_accumulation_steps", sit.gradient_accumulation_steps, DERIVED if
              sit.gradient_accumulation_steps is not None else DEFAULT, "the script")
    b.put("runs.activation_checkpointing", bool(b.value("fsdp.activation_checkpointing")), DERIVED,
          "FullyShardedDataParallelPlugin", b.values["fsdp.activation_checkpointing"].keys
          if "fsdp.activation_checkpointing" in b.values else ())
    b.put("runs.activation_checkpointing_offload", bool(b.value("fsdp.activation_checkpointing_offload")), DERIVED,
          "FullyShardedDataParallelPlugin")
    off = bool(b.value("fsdp.cpu_offload"))
    okeys = b.values["fsdp.cpu_offload"].keys if "fsdp.cpu_offload" in b.values else ()
    for what in ("offload_optimizer", "offload_param"):
        b.put(f"runs.{what}", "cpu" if off else "none", DERIVED, "FSDP", okeys,
              "one switch: parameters, gradients and the optimizer step" if off else "")
    b.put("runs.zero_init", False, DEFAULT, "FSDP")
    b.put("runs.ram_efficient_loading", bool(b.value("fsdp.cpu_ram_efficient_loading")), DERIVED, "FSDP",
          b.values["fsdp.cpu_ram_efficient_loading"].keys if "fsdp.cpu_ram_efficient_loading" in b.values else ())


__all__ = ["Effective", "LIBRARY_PREFIXES", "RUNS", "effective", "fsdp2_shard_group"]
