"""One import for your own training script: report steps and the *effective* setup to fsdpds-wizard.

::

    from wizard.runtime import RunReporter

    reporter = RunReporter(accelerator)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    reporter.setup(model, optimizer)            # on every rank, right after prepare()
    for step, batch in enumerate(loader):
        ...
        reporter.step(step, loss, lr=scheduler.get_last_lr()[0], tokens=batch_tokens)
    reporter.close()

Every record is one JSON line on stdout with the marker key ``"fsdpds": 1`` and a ``kind``:

* ``setup`` (one per rank): what the libraries really did, read from the live objects: distributed
  type, backend, world size, FSDP version and sharding strategy or ZeRO stage, offload, the dtypes of
  parameters, gradients and optimizer state, and the bytes of parameters this rank holds. A second
  ``setup`` record with ``"update": true`` follows the first optimizer step, once the optimizer
  state exists (its dtype and bytes on this rank).
* ``step`` (main process only): step, loss, lr, tokens/s, step time, memory, plus anything you pass.
* ``end``: the script's own final status.

Stopping at a step boundary: when the wizard stops a run it first asks the script to stop (it creates the file
named by ``FSDPDS_STOP_FILE``), and only sends signals when the script does not end by itself.
:meth:`RunReporter.stop_requested` says whether that file exists; a script checks it once per optimizer step and,
since every rank must leave at the same step, agrees on it across ranks (the bundled script reduces the flag with
the step's other values), then ends cleanly with ``close(status="stopped")``.

``fsdpds-wizard --launch`` and its TUI parse these lines; any other tool can too. :func:`describe_record`
turns one record into the readable line the wizard shows ("step 12/20  loss 3.2100  1.2k tok/s", "setup rank
0: ZeRO-2, bf16, 2 ranks over gloo, ..."); the run's ``log.txt`` keeps the JSON lines as printed.

Rules this module keeps: it imports nothing heavy at import time (torch and accelerate are imported
inside the calls that need them), it needs nothing from the rest of the wizard, and none of its calls
is a collective, so calling :meth:`RunReporter.step` on the main process only can never hang a run.
Because it stands alone, the file can be copied next to a script as ``fsdpds_runtime.py`` where the
wizard is not installed (the bundled ``templates/train_gpt.py`` looks for it there).
"""
from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

MARKER = "fsdpds"
RECORD_VERSION = 1

# Environment variables accelerate launch exports: what the config *asked* for.
_REQUESTED_ENV = (
    "ACCELERATE_USE_FSDP", "FSDP_VERSION", "FSDP_SHARDING_STRATEGY", "FSDP_RESHARD_AFTER_FORWARD",
    "FSDP_OFFLOAD_PARAMS", "FSDP_AUTO_WRAP_POLICY", "FSDP_TRANSFORMER_CLS_TO_WRAP",
    "ACCELERATE_USE_DEEPSPEED", "ACCELERATE_DEEPSPEED_ZERO_STAGE", "ACCELERATE_DEEPSPEED_CONFIG_FILE",
    "ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE", "ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE",
    "ACCELERATE_MIXED_PRECISION", "ACCELERATE_USE_CPU", "WORLD_SIZE",
)
COMPAT_ENV = "FSDPDS_CPU_FSDP_COMPAT"
"""Set by the wizard's CPU rehearsal when its FSDP-on-CPU compatibility layer is active."""


def _rate(tokens_per_s: Any) -> str | None:
    if not isinstance(tokens_per_s, (int, float)) or tokens_per_s <= 0:
        return None
    if tokens_per_s >= 1e6:
        return f"{tokens_per_s / 1e6:.1f}M tok/s"
    return f"{tokens_per_s / 1000:.1f}k tok/s" if tokens_per_s >= 1000 else f"{tokens_per_s:.0f} tok/s"


def _nbytes(n: Any) -> str:
    if not isinstance(n, (int, float)):
        return "?"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def _setup_words(rec: dict) -> list[str]:
    dist = str(rec.get("distributed_type") or "")
    words = []
    if dist == "DEEPSPEED":
        words.append(f"ZeRO-{rec.get('zero_stage')}" if rec.get("zero_stage") is not None else "DeepSpeed")
    elif dist == "FSDP":
        words.append(f"FSDP{rec.get('fsdp_version') or ''} {rec.get('sharding') or ''}".strip())
    elif dist:
        words.append("no distribution" if dist == "NO" else dist)
    mp = rec.get("mixed_precision")
    if mp is not None:
        dtypes = [f"{name} {rec[key]}" for name, key in (("params", "param_dtype"), ("compute", "compute_dtype"))
                  if rec.get(key)]
        words.append(("fp32" if mp == "no" else str(mp)) + (f" ({', '.join(dtypes)})" if dtypes else ""))
    off = rec.get("offload") or {}
    moved = [f"{k} -> {v}" for k, v in off.items() if v not in (None, "none")] if isinstance(off, dict) else []
    if moved:
        words.append("offload " + ", ".join(moved))
    mesh = rec.get("mesh")
    if isinstance(mesh, dict) and mesh:
        words.append("mesh " + " x ".join(f"{k} {v}" for k, v in mesh.items()))
    if rec.get("world_size") is not None:
        words.append(f"{rec['world_size']} rank{'s' if rec['world_size'] != 1 else ''}"
                     + (f" over {rec['backend']}" if rec.get("backend") else ""))
    frac, full = rec.get("param_fraction"), rec.get("full_param_numel")
    if isinstance(frac, (int, float)) and isinstance(full, int):
        words.append(f"holds {frac:.0%} of {full:,} params")
    if rec.get("optimizer_state_dtype") or rec.get("optimizer_state_bytes"):
        words.append(f"optimizer state {rec.get('optimizer_state_dtype') or '?'} "
                     f"{_nbytes(rec.get('optimizer_state_bytes'))}")
    if rec.get("compat_layer"):
        words.append("CPU compatibility layer")
    return words


def describe_record(rec: dict, kind: str | None = None) -> str | None:
    """The readable line for one fsdpds record (None for a kind this version does not know)."""
    kind = kind or rec.get("kind")
    if kind == "step":
        step, total = rec.get("step"), rec.get("total_steps")
        n = step + 1 if isinstance(step, int) else step  # records count from 0, people from 1
        parts = [f"step {n}" + (f"/{total}" if total else "")]
        loss = rec.get("loss")
        parts.append(f"loss {loss:.4f}" if isinstance(loss, (int, float)) else f"loss {loss}")
        if isinstance(rec.get("lr"), (int, float)):
            parts.append(f"lr {rec['lr']:.2e}")
        rate = _rate(rec.get("tokens_per_s"))
        if rate:
            parts.append(rate)
        if isinstance(rec.get("step_time"), (int, float)):
            parts.append(f"{rec['step_time']:.3f} s/step")
        if "rank" in rec:
            parts.append(f"rank {rec['rank']}")
        return "  ".join(parts)
    if kind == "setup":
        who = f"setup rank {rec.get('rank', '?')}"
        if rec.get("update") and "placements" in rec:
            return f"{who}: placements of {len(rec.get('placements') or {})} parameter kinds over the device mesh"
        if rec.get("update"):
            return f"{who} after the first step: optimizer state {rec.get('optimizer_state_dtype') or '?'}, " \
                   f"{_nbytes(rec.get('optimizer_state_bytes'))} here"
        words = _setup_words(rec)
        return f"{who}: " + (", ".join(words) if words else "(no details)")
    if kind == "end":
        parts = [f"end: {rec.get('status', '?')}"]
        if rec.get("steps") is not None:
            parts.append(f"{rec['steps']} steps")
        if isinstance(rec.get("elapsed_s"), (int, float)):
            parts.append(f"in {rec['elapsed_s']:.1f} s")
        return ", ".join(parts)
    return None


def _dtype_name(dtype: Any) -> str | None:
    if dtype is None:
        return None
    return str(dtype).replace("torch.", "")


def _unwrap_optimizer(opt: Any) -> Any:
    """accelerate's wrapper -> (DeepSpeed ZeRO optimizer ->) the torch optimizer holding the state."""
    seen = 0
    while opt is not None and seen < 4:
        inner = getattr(opt, "optimizer", None)
        if inner is None or inner is opt:
            break
        opt = inner
        seen += 1
    return opt


def _tensor_local(t: Any) -> Any:
    to_local = getattr(t, "to_local", None)  # DTensor (FSDP2)
    return to_local() if callable(to_local) else t


def _optimizer_state(optimizer: Any) -> tuple[str | None, int]:
    base = _unwrap_optimizer(optimizer)
    state = getattr(base, "state", None)
    dtype = None
    total = 0
    if not state:
        return None, 0
    try:
        values = list(state.values())
    except Exception:  # noqa: BLE001 - some optimizers keep exotic state containers
        return None, 0
    for per_param in values:
        if not isinstance(per_param, dict):
            continue
        for key, t in per_param.items():
            if not hasattr(t, "element_size") or key == "step":
                continue
            local = _tensor_local(t)
            total += local.numel() * local.element_size()
            if dtype is None or key == "exp_avg":
                dtype = _dtype_name(local.dtype)
    return dtype, total


def _offload_device(cfg: Any) -> str:
    """DeepSpeed offload config -> 'none' / 'cpu' / 'nvme' (an enum, or its value with use_enum_values)."""
    device = getattr(cfg, "device", None) if cfg is not None else None
    device = getattr(device, "value", device)
    return str(device) if device else "none"


def _fsdp1_units(model: Any) -> list:
    try:
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    except ImportError:
        return []
    return [m for m in model.modules() if isinstance(m, FSDP)]


def _fsdp2_units(model: Any) -> list:
    try:
        from torch.distributed.fsdp import FSDPModule
    except ImportError:
        return []
    return [m for m in model.modules() if isinstance(m, FSDPModule)]


def _deepspeed_engine(model: Any) -> Any:
    mod = sys.modules.get("deepspeed")
    if mod is None:
        return None
    try:
        from deepspeed import DeepSpeedEngine
    except ImportError:
        return None
    return model if isinstance(model, DeepSpeedEngine) else None


def _autotp_layers(module: Any) -> dict[str, int]:
    """DeepSpeed AutoTP's replacement layers in ``module`` by class (LinearLayer: split by output rows,
    LinearAllreduce: split by input columns, its output summed over the tp ranks)."""
    counts: dict[str, int] = {}
    for m in module.modules():
        cls = type(m)
        if cls.__module__.startswith("deepspeed.module_inject") and cls.__name__ in ("LinearLayer", "LinearAllreduce"):
            counts[cls.__name__] = counts.get(cls.__name__, 0) + 1
    return counts


def _class_name_of_unit(m: Any, prefix: str = "") -> str:
    inner = getattr(m, "module", None) if prefix == "" else None
    name = type(inner if inner is not None else m).__name__
    if prefix and name.startswith(prefix):
        name = name[len(prefix):]
    return name


def _mesh_of(accelerator: Any) -> dict | None:
    """The Accelerator's device mesh as {dimension: size}, in its order; None without one."""
    mesh = getattr(accelerator, "torch_device_mesh", None)
    names = getattr(mesh, "mesh_dim_names", None)
    if mesh is None or not names:
        return None
    return {str(n): int(s) for n, s in zip(names, tuple(mesh.shape), strict=True)}


def _layer_pattern(name: str) -> str:
    """``model.layers.3.self_attn.q_proj.weight`` -> ``model.layers.N.self_attn.q_proj.weight``."""
    return ".".join("N" if part.isdigit() else part for part in name.split("."))


PLACEMENT_KINDS = 24
"""The most parameter kinds (names with layer indices folded) the placements record lists."""


def placements_of(model: Any) -> dict | None:
    """For each DTensor parameter (layer indices folded into N): {mesh dimension: placement}, e.g.
    ``{"model.layers.N.self_attn.q_proj.weight": {"dp_shard": "Shard(dim=0)", "tp": "Shard(dim=0)"}}``.
    None when no parameter is a DTensor (no FSDP2 or tensor parallelism)."""
    try:
        from torch.distributed.tensor import DTensor
    except ImportError:
        return None
    out: dict[str, dict[str, str]] = {}
    for name, p in model.named_parameters():
        if not isinstance(p, DTensor):
            continue
        dims = p.device_mesh.mesh_dim_names or tuple(f"dim{i}" for i in range(p.device_mesh.ndim))
        out.setdefault(_layer_pattern(name), {str(d): repr(pl) for d, pl in zip(dims, p.placements, strict=True)})
    return out or None


def inspect_setup(accelerator: Any, model: Any, optimizer: Any = None) -> dict:
    """The effective setup of this rank, read from the live objects. Never raises: what cannot be read
    is left out and the reason is added to ``notes``."""
    notes: list[str] = []
    rec: dict[str, Any] = {}
    import torch

    state = getattr(accelerator, "state", None)
    dist_type = str(getattr(accelerator, "distributed_type", "NO")).split(".")[-1]
    rec["distributed_type"] = dist_type
    rec["world_size"] = int(getattr(accelerator, "num_processes", 1))
    rec["rank"] = int(getattr(accelerator, "process_index", 0))
    rec["local_rank"] = int(getattr(accelerator, "local_process_index", 0))
    rec["backend"] = getattr(state, "backend", None)
    rec["device"] = str(getattr(accelerator, "device", ""))
    rec["mixed_precision"] = str(getattr(accelerator, "mixed_precision", "no"))
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        rec["dist_world_size"] = dist.get_world_size()
        rec["dist_backend"] = str(dist.get_backend())
    else:
        rec["dist_world_size"] = None
    env_ws = os.environ.get("WORLD_SIZE")
    rec["launched_world_size"] = int(env_ws) if env_ws and env_ws.isdigit() else None
    rec["model_class"] = type(model).__name__
    rec["fsdp_version"] = None
    rec["sharding"] = None
    rec["zero_stage"] = None
    offload = {"params": "none", "optimizer": "none"}
    param_dtype = grad_dtype = reduce_dtype = None
    wrapped: list[str] = []

    params = list(model.parameters())
    local_numel = sum(_tensor_local(p).numel() for p in params)
    local_bytes = sum(_tensor_local(p).numel() * _tensor_local(p).element_size() for p in params)
    full_numel = sum(p.numel() for p in params)
    if params:
        param_dtype = _dtype_name(params[0].dtype)

    engine = _deepspeed_engine(model)
    f1 = _fsdp1_units(model) if engine is None else []
    f2 = _fsdp2_units(model) if engine is None and not f1 else []
    try:
        if engine is not None:
            rec["zero_stage"] = int(engine.zero_optimization_stage())
            oo, op = engine.zero_offload_optimizer(), engine.zero_offload_param()
            offload["optimizer"], offload["params"] = _offload_device(oo), _offload_device(op)
            model_dtype, accum_dtype = engine.get_data_types()
            grad_dtype = _dtype_name(accum_dtype)
            reduce_dtype = _dtype_name(engine.communication_data_type)
            autotp = _autotp_layers(engine.module)
            if autotp:
                rec["autotp_layers"] = autotp
            ds_params = [p for p in engine.module.parameters() if hasattr(p, "ds_tensor")]
            if ds_params:  # ZeRO-3: the module's tensors are empty; each rank holds ds_tensor
                local_numel = sum(p.ds_tensor.numel() for p in ds_params)
                local_bytes = sum(p.ds_tensor.numel() * p.ds_tensor.element_size() for p in ds_params)
                full_numel = sum(int(p.ds_numel) for p in ds_params)
                param_dtype = _dtype_name(ds_params[0].ds_tensor.dtype)
            else:
                param_dtype = _dtype_name(model_dtype) if params else param_dtype
        elif f1:
            root = f1[0]
            rec["fsdp_version"] = 1
            rec["sharding"] = getattr(getattr(root, "sharding_strategy", None), "name", None)
            co = getattr(root, "cpu_offload", None)
            if co is not None and getattr(co, "offload_params", False):
                offload = {"params": "cpu", "optimizer": "cpu"}
            mp = getattr(root, "mixed_precision", None)
            flats = []
            for unit in f1:
                fp = getattr(unit, "_flat_param", None)
                if fp is not None:
                    flats.append(fp)
                if unit is not root:
                    wrapped.append(_class_name_of_unit(unit))
            if flats:
                local_numel = sum(fp.numel() for fp in flats)
                local_bytes = sum(fp.numel() * fp.element_size() for fp in flats)
                full_numel = sum(fp._unpadded_unsharded_size.numel() for fp in flats)
                param_dtype = _dtype_name(flats[0].dtype)
            grad_dtype = param_dtype
            if mp is not None:
                reduce_dtype = _dtype_name(getattr(mp, "reduce_dtype", None)) or param_dtype
                if getattr(mp, "keep_low_precision_grads", False) and getattr(mp, "param_dtype", None) is not None:
                    grad_dtype = _dtype_name(mp.param_dtype)
                if getattr(mp, "param_dtype", None) is not None:
                    rec["compute_dtype"] = _dtype_name(mp.param_dtype)
        elif f2:
            rec["fsdp_version"] = 2
            root = f2[0]
            group = None
            try:
                group = root._get_fsdp_state()._fsdp_param_group
            except Exception:  # noqa: BLE001 - private API; fall back to the placements
                notes.append("FSDP2 state not readable; sharding read from parameter placements")
            placements = []
            for p in params:
                pl = getattr(p, "placements", None)
                if pl is not None:
                    placements = [type(x).__name__ for x in pl]
                    break
            sharded = "Shard" in placements
            reshard = None
            if group is not None:
                reshard = bool(getattr(group, "post_forward_mesh_info", None) is not None)
            else:
                plugin = getattr(state, "fsdp_plugin", None)
                reshard = getattr(plugin, "reshard_after_forward", None)
            rec["reshard_after_forward"] = reshard
            if len(placements) == 2 and placements[0] == "Replicate" and sharded:
                rec["sharding"] = "HYBRID_SHARD" if reshard else "HYBRID_SHARD_ZERO2"
            elif sharded:
                rec["sharding"] = "FULL_SHARD" if reshard else "SHARD_GRAD_OP"
            else:
                rec["sharding"] = "NO_SHARD"
            rec["placements"] = placements
            if group is not None:
                pol = getattr(group, "offload_policy", None)
                if pol is not None and type(pol).__name__ == "CPUOffloadPolicy":
                    offload = {"params": "cpu", "optimizer": "cpu"}
                mp = getattr(group, "mp_policy", None)
                if mp is not None:
                    reduce_dtype = _dtype_name(getattr(mp, "reduce_dtype", None))
                    if getattr(mp, "param_dtype", None) is not None:
                        rec["compute_dtype"] = _dtype_name(mp.param_dtype)
            for unit in f2[1:]:
                wrapped.append(_class_name_of_unit(unit, prefix="FSDP"))
            grad_dtype = param_dtype
            reduce_dtype = reduce_dtype or param_dtype
        else:
            grad_dtype = param_dtype
    except Exception as exc:  # noqa: BLE001 - a report must never kill the run
        notes.append(f"could not read every detail: {type(exc).__name__}: {exc}")

    rec["offload"] = offload
    rec["param_dtype"] = param_dtype
    rec["grad_dtype"] = grad_dtype
    rec["reduce_dtype"] = reduce_dtype
    rec["optimizer_state_dtype"], rec["optimizer_state_bytes"] = (None, 0)
    if optimizer is not None:
        try:
            rec["optimizer_state_dtype"], rec["optimizer_state_bytes"] = _optimizer_state(optimizer)
        except Exception as exc:  # noqa: BLE001
            notes.append(f"optimizer state not readable: {exc}")
        rec["optimizer_class"] = type(_unwrap_optimizer(optimizer)).__name__
    rec["local_param_numel"] = int(local_numel)
    rec["local_param_bytes"] = int(local_bytes)
    rec["full_param_numel"] = int(full_numel)
    rec["param_fraction"] = round(local_numel / full_numel, 6) if full_numel else None
    if wrapped:
        counts: dict[str, int] = {}
        for name in wrapped:
            counts[name] = counts.get(name, 0) + 1
        rec["wrapped_units"] = counts
    try:
        mesh = _mesh_of(accelerator)
        if mesh:
            rec["mesh"] = mesh
    except Exception as exc:  # noqa: BLE001 - a report must never kill the run
        notes.append(f"device mesh not readable: {type(exc).__name__}: {exc}")
    rec["requested"] = {k: os.environ[k] for k in _REQUESTED_ENV if k in os.environ}
    rec["compat_layer"] = os.environ.get(COMPAT_ENV) or None
    rec["versions"] = _versions()
    if notes:
        rec["notes"] = notes
    return rec


def _versions() -> dict:
    out = {}
    for name in ("torch", "accelerate", "deepspeed"):
        mod = sys.modules.get(name)
        if mod is not None:
            out[name] = getattr(mod, "__version__", None)
    return out


STOP_FILE_ENV = "FSDPDS_STOP_FILE"
"""The environment variable naming the file whose existence asks the script to stop after its current step."""


def stop_requested() -> bool:
    """True once the wizard has asked the run to stop (the file named by ``FSDPDS_STOP_FILE`` exists); one stat."""
    path = os.environ.get(STOP_FILE_ENV)
    return path is not None and path != "" and os.path.exists(path)


class RunReporter:
    """Emit fsdpds JSON records from a training script. Cheap, never a collective, never raises."""

    def __init__(self, accelerator: Any = None, *, stream: Any = None, all_ranks_steps: bool = False):
        self.acc = accelerator
        self.stream = stream
        self.all_ranks_steps = all_ranks_steps
        self._model = None
        self._optimizer = None
        self._updated = False
        self._last: float | None = None
        self._t0 = time.perf_counter()

    # ---------------------------------------------------------------- helpers
    @property
    def rank(self) -> int:
        if self.acc is not None:
            return int(getattr(self.acc, "process_index", 0))
        return int(os.environ.get("RANK", "0") or 0)

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def emit(self, kind: str, **fields: Any) -> dict:
        rec = {MARKER: RECORD_VERSION, "kind": kind}
        rec.update(fields)
        try:
            line = json.dumps(rec, default=str, allow_nan=True)
        except (TypeError, ValueError):
            line = json.dumps({MARKER: RECORD_VERSION, "kind": kind, "error": "unserialisable record"})
        out = self.stream or sys.stdout
        try:
            out.write(line + "\n")  # one write: lines from several ranks stay whole in a shared pipe
            out.flush()
        except (OSError, ValueError):
            pass
        return rec

    # ---------------------------------------------------------------- API
    def setup(self, model: Any, optimizer: Any = None, **extra: Any) -> dict | None:
        """Call on every rank after ``accelerator.prepare``: one ``setup`` record per rank."""
        self._model, self._optimizer = model, optimizer
        try:
            rec = inspect_setup(self.acc, model, optimizer)
        except Exception as exc:  # noqa: BLE001
            rec = {"rank": self.rank, "notes": [f"setup inspection failed: {type(exc).__name__}: {exc}"]}
        rec.update(extra)
        rec["time_since_start_s"] = round(time.perf_counter() - self._t0, 3)
        out = self.emit("setup", **rec)
        try:
            placements = placements_of(model)
        except Exception as exc:  # noqa: BLE001 - a report must never kill the run
            placements = {"(not readable)": {"error": f"{type(exc).__name__}: {exc}"[:200]}}
        if placements:
            # a record of its own, so the setup line stays well under the monitor's line limit; at most
            # PLACEMENT_KINDS parameter kinds (layer indices are folded already)
            kept = dict(list(placements.items())[:PLACEMENT_KINDS])
            self.emit("setup", rank=rec.get("rank", self.rank), update=True, placements=kept,
                      placements_cut=len(placements) - len(kept))
        return out

    def step(self, step: int, loss: Any, *, lr: float | None = None, tokens: int | None = None,
             step_time: float | None = None, **extra: Any) -> dict | None:
        """Report one optimizer step (main process only unless ``all_ranks_steps``)."""
        now = time.perf_counter()
        if not self._updated and self._model is not None:
            self._updated = True
            self._update_setup()
        if step_time is None and self._last is not None:
            step_time = now - self._last
        self._last = now
        if not (self.is_main or self.all_ranks_steps):
            return None
        try:
            loss_value = float(loss.item() if hasattr(loss, "item") else loss)
        except (TypeError, ValueError, RuntimeError):
            loss_value = None
        rec: dict[str, Any] = {"step": int(step), "loss": loss_value}
        if lr is not None:
            rec["lr"] = float(lr)
        if step_time is not None:
            rec["step_time"] = round(float(step_time), 6)
            if tokens and step_time > 0:
                rec["tokens_per_s"] = round(tokens / step_time, 1)
        if tokens is not None:
            rec["tokens"] = int(tokens)
        if "mem_bytes" not in extra:
            mem = _memory()
            if mem:
                extra.update(mem)
        rec.update(extra)
        if self.all_ranks_steps:
            rec["rank"] = self.rank
        return self.emit("step", **rec)

    def _update_setup(self) -> None:
        if self._optimizer is None:
            return
        try:
            dtype, nbytes = _optimizer_state(self._optimizer)
        except Exception:  # noqa: BLE001
            return
        if dtype is None and not nbytes:
            return
        self.emit("setup", update=True, rank=self.rank, optimizer_state_dtype=dtype, optimizer_state_bytes=nbytes)

    def stop_requested(self) -> bool:
        """Whether the wizard asked the run to stop after this step (local to this rank: agree across ranks before
        acting on it, or one rank leaves while the others wait in a collective)."""
        return stop_requested()

    def close(self, status: str = "completed", **extra: Any) -> None:
        if self.is_main:
            self.emit("end", status=status, elapsed_s=round(time.perf_counter() - self._t0, 3), **extra)


def _memory() -> dict:
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        return {"mem_bytes": torch.cuda.memory_allocated(), "peak_mem_bytes": torch.cuda.max_memory_allocated()}
    try:
        with open("/proc/self/statm") as f:
            return {"mem_bytes": int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")}
    except (OSError, ValueError, IndexError):
        return {}
