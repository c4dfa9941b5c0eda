"""CPU rehearsal: run any config on this machine's CPU, with two processes and the bundled script.

The point is to find out, before anyone spends GPU hours, whether accelerate and the backend accept
the config and really apply it (the effective-setup record proves the sharding). The rehearsal keeps
every answer that can run on CPU and changes only what cannot, each change listed as an
:class:`Adjustment` (written to ``summary.json`` and printed):

* two processes on one machine, on a free port (so parallel rehearsals do not collide);
* fp32 instead of bf16/fp16/fp8 mixed precision, no torch.compile, NVMe offload becomes CPU offload,
  hybrid sharding becomes its single-machine equivalent;
* the bundled model's layer class (``GPTBlock``) instead of the user's transformer-wrap classes, no MoE
  leaf classes, DeepSpeed ``zero3_init_flag`` off (it only affects Transformers' ``from_pretrained``);
* DeepSpeed JSON sections that would clash with the bundled script (its own optimizer/scheduler, fp16/bf16
  blocks in ``deepspeed.extra``) are left out.

Environment: ``CUDA_VISIBLE_DEVICES=""`` (CPU even on a GPU machine), ``OMP_NUM_THREADS`` set to share
the cores between the two ranks, ``DS_ACCELERATOR=cpu`` for DeepSpeed (which then runs over gloo as it
is). For FSDP, accelerate 1.15 silently falls back to no distribution on CPU; the rehearsal runs the
script through :mod:`wizard.run.cpu_fsdp_compat`, the clearly labelled compatibility layer, and the
effective-setup record says so (``compat_layer``).
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..core.answers import Answers
from ..core.catalog import AUTO, DEEPSPEED, FSDP1, FSDP2

REHEARSAL_PROCESSES = 2
BUNDLED_LAYER_CLASS = "GPTBlock"
COMPAT_SHIM = Path(__file__).with_name("cpu_fsdp_compat.py")
_EXTRA_DROPPED = ("optimizer", "scheduler", "fp16", "bf16", "amp", "torch_autocast")


@dataclass(frozen=True)
class Adjustment:
    setting: str
    original: Any
    rehearsal: Any
    why: str

    def to_dict(self) -> dict:
        return asdict(self)

    def render(self) -> str:
        return f"{self.setting}: {self.original!r} -> {self.rehearsal!r} ({self.why})"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rehearsal_answers(a: Answers, *, port: int | None = None) -> tuple[Answers, list[Adjustment], list[str]]:
    """The CPU-runnable version of ``a``; the changes made; arguments for the bundled script."""
    changes: dict[str, Any] = {}
    notes: list[Adjustment] = []

    def change(sid: str, value: Any, why: str, quiet: bool = False) -> None:
        if a[sid] == value:
            return
        changes[sid] = value
        if not quiet:
            notes.append(Adjustment(sid, a[sid], value, why))

    change("launch.num_processes", REHEARSAL_PROCESSES, "a rehearsal runs two processes on this machine's CPU")
    change("launch.num_machines", 1, "one machine")
    change("launch.machine_rank", 0, "one machine", quiet=True)
    change("launch.main_process_ip", None, "one machine", quiet=True)
    change("launch.main_process_port", port or free_port(), "a free local port", quiet=True)
    change("launch.rdzv_backend", "static", "one machine", quiet=True)
    change("launch.gpu_ids", "all", "no GPUs are used", quiet=True)
    change("launch.ds_multinode_launcher", "standard", "one machine", quiet=True)
    for sid in ("launch.ds_hostfile", "launch.ds_inclusion_filter", "launch.ds_exclusion_filter"):
        change(sid, None, "one machine", quiet=True)
    change("launch.script", None, "a rehearsal runs the bundled train_gpt.py", quiet=a["launch.script"] is None)
    change("launch.script_args", [], "the bundled script takes its own arguments", quiet=not a["launch.script_args"])
    change("precision.mixed_precision", "no", "CPU rehearsals run in fp32; mixed precision is checked on GPUs")
    if a["precision.ds_communication_data_type"] not in (None, "fp32"):
        change("precision.ds_communication_data_type", None, "fp32 rehearsal")
    change("launch.dynamo_backend", "no", "torch.compile is not rehearsed (minutes of CPU compilation)")
    strategy = a["sharding.strategy"]
    if strategy.startswith("hybrid_"):
        change("sharding.strategy", strategy.removeprefix("hybrid_"),
               "one machine: hybrid sharding is the same as its single-machine strategy")
    for sid in ("offload.optimizer", "offload.params"):
        if a[sid] == "nvme":
            change(sid, "cpu", "NVMe offload needs libaio and a fast disk; rehearsed as CPU offload")
    if changes.get("offload.optimizer", a["offload.optimizer"]) != "nvme" and \
            changes.get("offload.params", a["offload.params"]) != "nvme":
        change("offload.nvme_path", None, "no NVMe offload in the rehearsal", quiet=True)
    target = a.target
    if target in (FSDP1, FSDP2):
        if a["wrapping.policy"] == "transformer":
            change("wrapping.layer_classes", [BUNDLED_LAYER_CLASS],
                   f"the bundled model's layer class is {BUNDLED_LAYER_CLASS}")
        if a["wrapping.ignored_modules"] is not None:
            change("wrapping.ignored_modules", None, "the pattern names modules of your model, not the bundled one")
    else:
        if a["loading.ram_efficient"]:
            change("loading.ram_efficient", False,
                   "zero3_init_flag only affects Transformers' from_pretrained, which the bundled script does not use")
        if a["wrapping.ds_moe_layer_classes"]:
            change("wrapping.ds_moe_layer_classes", [], "the bundled model has no MoE layers")
        extra = a["deepspeed.extra"] or {}
        dropped = [k for k in extra if k in _EXTRA_DROPPED]
        if dropped:
            change("deepspeed.extra", {k: v for k, v in extra.items() if k not in dropped},
                   "left out for the bundled script: " + ", ".join(dropped))
    rehearsed = a.replace(changes) if changes else a

    script_args: list[str] = []
    gas = a["training.gradient_accumulation_steps"]
    if isinstance(gas, int) and gas > 1:
        script_args += ["--grad-accum", str(gas)]
    clip = a["training.gradient_clipping"]
    if target in (FSDP1, FSDP2):
        script_args += ["--clip", "1.0" if clip == AUTO else str(float(clip))]
    micro = a["training.micro_batch_size"]
    if target == DEEPSPEED and isinstance(micro, int):
        script_args += ["--batch-size", str(micro)]
    return rehearsed, notes, script_args


def rehearsal_env(target: str, base: dict[str, str] | None = None) -> dict[str, str]:
    """Environment overrides for a CPU rehearsal of ``target``."""
    base = os.environ if base is None else base
    cores = os.cpu_count() or 2
    env = {
        "CUDA_VISIBLE_DEVICES": "",
        "OMP_NUM_THREADS": base.get("OMP_NUM_THREADS") or str(max(1, cores // REHEARSAL_PROCESSES)),
    }
    if target == DEEPSPEED:
        env["DS_ACCELERATOR"] = "cpu"
    else:
        env["ACCELERATE_TORCH_DEVICE"] = "cpu"
    return env


def deepspeed_ops_cached(env: dict[str, str] | None = None) -> bool:
    """Whether DeepSpeed's CPU ops look built in the torch extensions folder (a cheap file check)."""
    env = os.environ if env is None else env
    root = env.get("TORCH_EXTENSIONS_DIR")
    folders = [Path(root)] if root else list((Path.home() / ".cache" / "torch_extensions").glob("py*_cpu"))
    return any((f / "cpu_adam" / "cpu_adam.so").is_file() and (f / "deepspeed_shm_comm" / "deepspeed_shm_comm.so").is_file()
               for f in folders)


def prewarm_deepspeed_ops(timeout: float = 900.0, python: str | None = None) -> subprocess.CompletedProcess:
    """JIT-compile DeepSpeed's CPU ops (shared-memory comm, CPU Adam) once, in one process, so the
    first rehearsal does not spend minutes compiling them in every rank. Honours TORCH_EXTENSIONS_DIR."""
    code = ("from deepspeed.ops.op_builder.cpu import ShareMemCommBuilder, CPUAdamBuilder\n"
            "ShareMemCommBuilder().load()\nCPUAdamBuilder().load()\nprint('deepspeed cpu ops ready')\n")
    return subprocess.run([python or sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, CUDA_VISIBLE_DEVICES="", DS_ACCELERATOR="cpu"))


if __name__ == "__main__":  # python -m wizard.run.rehearse --prewarm
    if sys.argv[1:] == ["--prewarm"]:
        proc = prewarm_deepspeed_ops()
        sys.stdout.write(proc.stdout[-2000:])
        sys.stderr.write(proc.stderr[-4000:] if proc.returncode else "")
        sys.exit(proc.returncode)
    print("usage: python -m wizard.run.rehearse --prewarm", file=sys.stderr)
    sys.exit(2)
