"""CPU rehearsal: run any config on this machine's CPU, with two processes and the bundled script.

The point is to find out, before anyone spends GPU hours, whether accelerate and the backend accept
the config and really apply it (the effective-setup record proves the sharding). The rehearsal keeps
every answer that can run on CPU and changes only what cannot. Each change is an :class:`Adjustment`
(what was asked, what ran, why): a "not rehearsed" row of the checklist, of the headless summary and of
``summary.json`` (``not_rehearsed``), and part of the result line ("took effect: 8 settings; not
rehearsed: processes 8 (ran 2), compile inductor (ran off)"). What changes:

* two processes on one machine, on a free port (so parallel rehearsals do not collide);
* no torch.compile, NVMe offload becomes CPU offload; FSDP2 hybrid sharding runs as dp_replicate 2 x dp_shard 2
  (four processes on one machine), FSDP1's and DeepSpeed's hybrid forms (which group by machine) as their
  single-machine equivalent;
* mixed precision only where it cannot run on CPU (table :data:`CPU_MIXED_PRECISION`, measured below);
* the bundled model's layer class (``GPTBlock``) instead of the user's transformer-wrap classes, no MoE
  leaf classes, DeepSpeed ``zero3_init_flag`` off (it only affects Transformers' ``from_pretrained``);
* DeepSpeed JSON sections that would clash with the bundled script (its own optimizer/scheduler, fp16/bf16
  blocks in ``deepspeed.extra``) are left out;
* the Hugging Face Trainer loop (``launch.training_loop: trainer``) is rehearsed through transformers' Trainer
  (the bundled ``train_trainer.py`` with the ``training_arguments.json`` written beside the configs: its filling of
  DeepSpeed's "auto" values and its mismatch check run for real), a bf16 config in fp32 (the Trainer refuses bf16
  without a bf16 GPU); with tensor, context or sequence parallelism it becomes the bundled own Accelerator loop;
* the user's own training script becomes the bundled ``train_gpt.py`` and its ``launch.script_args`` are
  dropped. Arguments for the bundled script (``launch.script_args`` when the answers name no script, and
  whatever follows ``--``) are kept where the bundled script's own parser (``build_parser`` in
  templates/train_gpt.py) knows them: ``--steps 7`` gives 7 steps. Every option of the bundled script runs
  on CPU; options it does not know, positional arguments and ``--help`` are dropped, each as a row.

Mixed precision on CPU, measured here (torch 2.13.0+cpu, accelerate 1.15.0, deepspeed 0.19.8, 2 ranks on
gloo, 20 steps of the bundled script):

* DeepSpeed bf16 runs (``DS_ACCELERATOR=cpu``): parameters bfloat16, DeepSpeed's bf16 optimizer with fp32
  master state; kept.
* DeepSpeed fp16 does not: the engine's sanity check raises ``ValueError: Type fp16 is not supported on
  your device.`` (deepspeed/runtime/engine.py ``_do_sanity_check``; the CPU accelerator reports no fp16).
  Rehearsed in fp32, as a "not rehearsed" row.
* FSDP1 and FSDP2 bf16 and fp16 run through :mod:`wizard.run.cpu_fsdp_compat`: fp32 parameters, compute
  and reduce in bfloat16/float16 (accelerate's MixedPrecision / MixedPrecisionPolicy; gloo reduces in
  those dtypes); kept.
* fp8: rehearsed in bf16, what fp8 runs outside the fp8 layers, as a "not rehearsed" row: the launcher refuses
  fp8 without torchao, Transformer Engine or MS-AMP installed (none is here), and accelerate expects a CUDA GPU of
  compute capability 8.9 or newer for it (accelerate/state.py:931-945). torch's own ``_scaled_mm`` does run on
  this CPU build (float8_e4m3fn inputs, bf16 out); what is missing is a backend.

Environment: ``CUDA_VISIBLE_DEVICES=""`` (CPU even on a GPU machine), ``OMP_NUM_THREADS`` set to share
the cores between the two ranks, ``DS_ACCELERATOR=cpu`` for DeepSpeed (which then runs over gloo as it
is). For FSDP, accelerate 1.15 silently falls back to no distribution on CPU; the rehearsal runs the
script through :mod:`wizard.run.cpu_fsdp_compat`, the clearly labelled compatibility layer, and the
effective-setup record says so (``compat_layer``).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import socket
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..core.answers import Answers
from ..core.catalog import AUTO, DEEPSPEED, FSDP1, FSDP2, SETTING_BY_ID, SETTINGS, fp8_options
from ..core.i18n import said
from ..core.presets import bundled_script

REHEARSAL_PROCESSES = 2
BUNDLED_LAYER_CLASS = "GPTBlock"
BUNDLED_LLAMA_LAYER_CLASS = "LlamaDecoderLayer"
"""The layer class of the bundled script's tiny Transformers Llama (``--arch llama``: what it trains when the config
asks for tensor or Ulysses sequence parallelism, which need a model with Transformers' TP plan or attention)."""
REHEARSAL_REPLICAS = 2
"""FSDP2 hybrid sharding's replicas in a rehearsal (dp_replicate 2 x dp_shard 2: four processes on one machine, each
replica standing for a machine)."""
REHEARSAL_TP = 2
"""The tensor-parallel size a rehearsal runs (the bundled model's 4 heads split over 2 ranks)."""
REHEARSAL_SP = 2
"""The Ulysses sequence-parallel size a rehearsal runs (2 ranks, each computing half of every sequence)."""
COMPAT_SHIM = Path(__file__).with_name("cpu_fsdp_compat.py")
_EXTRA_DROPPED = ("optimizer", "scheduler", "fp16", "bf16", "amp", "torch_autocast")

CPU_MIXED_PRECISION: dict[str, tuple[str, ...]] = {DEEPSPEED: ("bf16",), FSDP1: ("bf16", "fp16"),
                                                   FSDP2: ("bf16", "fp16")}
"""Mixed precision a CPU rehearsal runs for real, per target (measured; see the module docstring)."""


def _precision_why(target: str, mp: str) -> str | None:
    """Why a rehearsal does not run the mixed precision ``mp`` of ``target`` as asked (None: no reason of its own)."""
    if mp == "fp8":
        return said("the fp8 matrix multiplies are not rehearsed: accelerate launch refuses fp8 where none of torchao, "
                    "Transformer Engine, MS-AMP is installed, and accelerate expects a CUDA GPU of compute capability "
                    "8.9 or newer for fp8 (on an older one it falls back to fp16); everything else fp8 runs in bf16 "
                    "(FSDP's policy, DeepSpeed's bf16), which is rehearsed")
    if target == DEEPSPEED and mp == "fp16":
        return said("DeepSpeed's CPU accelerator has no fp16 (\"Type fp16 is not supported on your device.\")")
    return None

# Short names for the status line ("not rehearsed: precision bf16 (ran fp32), compile").
_LABELS = {
    "launch.num_processes": "processes", "launch.num_machines": "machines",
    "launch.script": "script", "launch.script_args": "script arguments",
    "precision.mixed_precision": "precision", "precision.ds_communication_data_type": "communication dtype",
    "launch.dynamo_backend": "compile", "sharding.strategy": "hybrid sharding",
    "offload.optimizer": "optimizer offload", "offload.params": "parameter offload",
    "wrapping.layer_classes": "wrap classes", "loading.ram_efficient": "loading (zero3_init)",
    "deepspeed.extra": "DeepSpeed JSON sections", "precision.ds_bf16_master_weights": "master weights",
    "launch.training_loop": "training loop",
    "parallelism.tp_size": "tp", "parallelism.cp_size": "cp", "parallelism.sp_size": "sp",
    "parallelism.dp_replicate_size": "dp_replicate",
    "parallelism.sp_seq_length_is_variable": "Ulysses variable length",
    "parallelism.sp_attn_implementation": "Ulysses attention", "parallelism.ds_autotp_size": "AutoTP",
    "parallelism.ds_quantized_weights": "ZeRO++ quantized weights",
    "parallelism.ds_quantized_gradients": "ZeRO++ quantized gradients",
}


def _value_text(setting: str, value: Any) -> str:
    if setting == "precision.mixed_precision" and value == "no":
        return "fp32"
    if setting == "launch.dynamo_backend" and value == "no":
        return "off"
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None or value == [] or value == {}:
        return "none"
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(str(k) for k in value) or "none"
    return str(value)


@dataclass(frozen=True)
class Adjustment:
    """One thing the rehearsal did not rehearse as asked: the setting, what was asked, what ran, why."""

    setting: str
    original: Any
    rehearsal: Any
    why: str
    label: str = ""
    """Short name for status lines; default: from the setting id."""

    @property
    def name(self) -> str:
        s = SETTING_BY_ID.get(self.setting)
        return self.label or _LABELS.get(self.setting) or (s.short if s else "") or self.setting

    @property
    def asked(self) -> str:
        return _value_text(self.setting, self.original)

    @property
    def ran(self) -> str:
        return _value_text(self.setting, self.rehearsal)

    def to_dict(self) -> dict:
        return {"setting": self.setting, "name": self.name, "original": self.original, "rehearsal": self.rehearsal,
                "asked": self.asked, "ran": self.ran, "why": self.why, "short": self.short()}

    def short(self) -> str:
        """``precision fp16 (ran fp32)``; for a dropped script argument ``argument --foo 3 (dropped)``."""
        if self.rehearsal == "dropped":
            return f"{self.name} {self.asked} (dropped)"
        return f"{self.name} {self.asked} (ran {self.ran})"

    def render(self) -> str:
        return f"{self.setting}: {self.asked} -> {self.ran} ({self.why})"


_DROPPED = " (dropped)"
_RAN = " (ran "


def short_in_language(short: str, lang: str | None = None) -> str:
    """An adjustment's short name (:meth:`Adjustment.short`, as the records keep it: ``precision bf16 (ran fp32)``,
    ``argument --foo 3 (dropped)``) in the language (the current one when None): the name's words and the frame's
    are the run screen's (``short.name.*``, ``short.ran``, ``short.dropped``), the values as written. A name the
    run screen does not list (a setting id, a name such as ``tp``) stays as it is; English: ``short`` itself."""
    from ..core import localized
    from ..core.i18n import ENGLISH, language
    from ..core.localized.screens import words

    lang = language() if lang is None else lang
    if lang == ENGLISH:
        return short
    if short.endswith(_DROPPED):
        head, key, values = short[:-len(_DROPPED)], "short.dropped", {}
    else:
        head, sep, ran = short.rpartition(_RAN)
        if not sep or not ran.endswith(")"):
            return short
        key, values = "short.ran", {"ran": ran[:-1]}
    names = sorted((k.removeprefix("short.name.") for k in words("run") if k.startswith("short.name.")),
                   key=len, reverse=True)
    for name in names:
        if head == name or head.startswith(name + " "):
            head = localized.screen("run", f"short.name.{name}", lang) + head[len(name):]
            break
    return localized.screen("run", key, lang, what=head, **values)


# ----------------------------------------------------------------------------- the bundled script's arguments
@lru_cache(maxsize=4)
def _bundled_parser(path: str) -> argparse.ArgumentParser:
    """The bundled script's own parser (``build_parser`` in templates/train_gpt.py: stdlib only at import)."""
    spec = importlib.util.spec_from_file_location("fsdpds_bundled_train_gpt", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_parser()


def bundled_parser() -> argparse.ArgumentParser:
    return _bundled_parser(str(bundled_script()))


def split_bundled_args(tokens: list[str]) -> tuple[list[str], list[tuple[list[str], str]]]:
    """Separate argv tokens into those the bundled script understands (kept, in order) and the rest.

    Every option of the bundled script runs on CPU, so what is dropped is what it does not know (with the
    values that follow an unknown option), positional arguments, and ``--help`` (which would end the run).
    Returns ``(kept, [(dropped tokens, why), ...])``.
    """
    parser = bundled_parser()
    actions = parser._option_string_actions  # noqa: SLF001 - argparse has no public lookup
    kept: list[str] = []
    dropped: list[tuple[list[str], str]] = []
    i = 0
    while i < len(tokens):
        tok = str(tokens[i])
        if tok == "--":
            if tokens[i + 1:]:
                dropped.append((list(tokens[i:]), said("the bundled script takes no positional arguments")))
            break
        if not tok.startswith("-") or tok == "-":
            dropped.append(([tok], said("the bundled script takes no positional arguments")))
            i += 1
            continue
        name, eq, _ = tok.partition("=")
        action = actions.get(name)
        if action is None and name.startswith("--"):
            matches = {a for opt, a in actions.items() if opt.startswith(name)}
            action = matches.pop() if len(matches) == 1 else None
        if action is None:
            j = i + 1
            while not eq and j < len(tokens) and not str(tokens[j]).startswith("-"):
                j += 1
            dropped.append(([str(t) for t in tokens[i:j]], said("the bundled script has no such option")))
            i = j
            continue
        if isinstance(action, argparse._HelpAction):  # noqa: SLF001
            dropped.append(([tok], said("--help would end the run before it starts")))
            i += 1
            continue
        takes = 0 if action.nargs == 0 else 1
        n = 1 if eq else 1 + takes
        kept.extend(str(t) for t in tokens[i:i + n])
        i += n
    return kept, dropped


def _is_bundled(script: str | None, cwd: Path | None = None) -> bool:
    if script is None:
        return True
    path = Path(script).expanduser()
    if not path.is_absolute():
        path = (cwd or Path.cwd()) / path
    try:
        return path.resolve() == bundled_script().resolve()
    except OSError:
        return False


EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
LOWEST_PORT = 20000


def _ephemeral_low() -> int:
    """The lowest port the kernel hands out by itself (a bind to port 0, the local end of a connection)."""
    try:
        return int(EPHEMERAL_RANGE_FILE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


def free_ports_below_ephemeral(count: int = 1) -> int | None:
    """The first of ``count`` consecutive ports that are free now and lie below the kernel's ephemeral range, chosen
    at random, so no bind to port 0 and no connection this machine opens is given one of them between their choice
    and their use (a process connecting to one too early can never connect to itself); None when 200 tries found
    none."""
    import random

    high = max(_ephemeral_low(), LOWEST_PORT + 1000) - count + 1
    rng = random.SystemRandom()
    for _ in range(200):
        first = rng.randrange(LOWEST_PORT, high)
        if all(_bindable(port) for port in range(first, first + count)):
            return first
    return None


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))  # no SO_REUSEADDR: fails while any socket holds the port
        except OSError:
            return False
    return True


def rehearsal_port() -> int:
    """A port for the rehearsal's main process (:func:`free_ports_below_ephemeral`). On one machine the rendezvous is
    torchrun's standalone one and this port is only what accelerate probes; a SLURM rehearsal's first node listens
    on it."""
    port = free_ports_below_ephemeral()
    if port is not None:
        return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:  # a crowded machine: any free port
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rehearsal_answers(a: Answers, *, port: int | None = None, extra_args: list[str] | None = None,
                      cwd: Path | None = None) -> tuple[Answers, list[Adjustment], list[str]]:
    """The CPU-runnable version of ``a``; the changes made (each one "not rehearsed"); the arguments for the
    bundled script. ``extra_args`` are the argv tokens given after ``--``: they are for the script that runs,
    the bundled one, and kept where it understands them (as are ``launch.script_args`` when the answers'
    script is the bundled one; the arguments of the user's own script are dropped with it)."""
    changes: dict[str, Any] = {}
    notes: list[Adjustment] = []

    def change(sid: str, value: Any, why: str, quiet: bool = False) -> None:
        if a[sid] == value:
            return
        changes[sid] = value
        if not quiet:
            notes.append(Adjustment(sid, a[sid], value, why))

    def bundled_model_cannot_run() -> None:
        """The target's settings whose stated value the bundled model cannot run (the catalogue's ``rehearsal``)."""
        for s in SETTINGS:
            if s.rehearsal and s.applies_to(a.target):
                change(s.id, s.default, s.rehearsal)

    tensor_parallel = a.target == FSDP2 and a["parallelism.tp_size"] > 1
    strategy = a["sharding.strategy"]
    # FSDP2 hybrid sharding (without TP, which takes the other two ranks): dp_replicate 2 x dp_shard 2 on one machine
    hsdp = a.target == FSDP2 and strategy.startswith("hybrid_") and not tensor_parallel
    if tensor_parallel:  # FSDP2 x TP: the smallest mesh with both dimensions
        change("launch.num_processes", REHEARSAL_PROCESSES * REHEARSAL_TP,
               said(f"a rehearsal runs dp_shard {REHEARSAL_PROCESSES} x tp {REHEARSAL_TP} = "
                    f"{REHEARSAL_PROCESSES * REHEARSAL_TP} processes on this machine's CPU"))
    elif hsdp:
        change("launch.num_processes", REHEARSAL_REPLICAS * REHEARSAL_PROCESSES,
               said(f"a rehearsal runs dp_replicate {REHEARSAL_REPLICAS} x dp_shard {REHEARSAL_PROCESSES} = "
                    f"{REHEARSAL_REPLICAS * REHEARSAL_PROCESSES} processes on this machine's CPU"))
        replicas = a["parallelism.dp_replicate_size"]
        change("parallelism.dp_replicate_size", REHEARSAL_REPLICAS,
               said(f"a rehearsal replicates over {REHEARSAL_REPLICAS} groups of {REHEARSAL_PROCESSES} processes"),
               quiet=replicas in (None, REHEARSAL_REPLICAS))
    else:
        change("launch.num_processes", REHEARSAL_PROCESSES,
               said("a rehearsal runs two processes on this machine's CPU"))
    change("launch.num_machines", 1, said(f"one machine: the {REHEARSAL_REPLICAS} hybrid replicas stand for machines"
                                          if hsdp else "one machine"))
    change("launch.machine_rank", 0, "one machine", quiet=True)
    change("launch.main_process_ip", None, "one machine", quiet=True)
    change("launch.main_process_port", port or rehearsal_port(), "a free local port", quiet=True)
    change("launch.rdzv_backend", "static", "one machine", quiet=True)
    change("launch.gpu_ids", "all", "no GPUs are used", quiet=True)
    change("launch.ds_multinode_launcher", "standard", "one machine", quiet=True)
    for sid in ("launch.ds_hostfile", "launch.ds_inclusion_filter", "launch.ds_exclusion_filter"):
        change(sid, None, "one machine", quiet=True)
    trainer = trainer_rehearsal(a)
    if a["launch.training_loop"] == "trainer" and not trainer:
        change("launch.training_loop", "accelerate", said("the Trainer rehearsal runs no tensor, context or sequence "
               "parallelism: rehearsed through the bundled own Accelerator loop, without the Trainer's filling of "
               "\"auto\" values from TrainingArguments and its mismatch check"))
    own_script = not _is_bundled(a["launch.script"], cwd)
    change("launch.script", None, said("a rehearsal runs the bundled " + ("train_trainer.py (the Hugging Face Trainer)"
                                                                           if trainer else "train_gpt.py")),
           quiet=not own_script)
    answer_args = [str(t) for t in a["launch.script_args"]]
    if own_script:
        change("launch.script_args", [], said("arguments of your script; the bundled script runs instead"),
               quiet=not answer_args)
        given = list(extra_args or [])
    else:
        changes["launch.script_args"] = []  # they go on the command line below, filtered
        given = answer_args + list(extra_args or [])
    kept_args, dropped_args = split_bundled_args(given)
    if trainer:
        kept_args, dropped_args = _trainer_args(kept_args, dropped_args)
    for tokens, why in dropped_args:
        notes.append(Adjustment("launch.script_args", tokens, "dropped", why, label="argument"))
    target = a.target
    mp = a["precision.mixed_precision"]
    if mp == "fp8":  # bf16 is what fp8 runs outside the fp8 layers; the backend and its options are not written
        change("precision.mixed_precision", "bf16", _precision_why(target, mp) or "")
        for s in (SETTING_BY_ID["precision.fp8_backend"], *fp8_options()):
            change(s.id, s.default, "fp8 is not rehearsed", quiet=True)
    elif trainer and mp == "bf16":
        change("precision.mixed_precision", "no", said("the Trainer refuses bf16=True without a GPU that has bf16 "
               "(TrainingArguments' own check) unless use_cpu, which would also turn FSDP and DeepSpeed off; "
               "rehearsed in fp32 (claim trainer-bf16-needs-a-bf16-gpu)"))
        if a["precision.ds_communication_data_type"] not in (None, "fp32"):
            change("precision.ds_communication_data_type", None, "fp32 rehearsal")
    elif mp != "no" and mp not in CPU_MIXED_PRECISION.get(target, ()):
        change("precision.mixed_precision", "no", _precision_why(target, mp)
               or said(f"{mp} does not run on CPU with this backend; rehearsed in fp32"))
        if a["precision.ds_communication_data_type"] not in (None, "fp32"):
            change("precision.ds_communication_data_type", None, "fp32 rehearsal")
    change("launch.dynamo_backend", "no", said("torch.compile is not rehearsed (minutes of CPU compilation)"))
    if strategy.startswith("hybrid_") and not hsdp:
        change("sharding.strategy", strategy.removeprefix("hybrid_"),
               said("one machine: hybrid sharding is the same as its single-machine strategy"
                    + ("; with tensor parallelism a rehearsal has no ranks left to replicate over" if tensor_parallel
                       else "")))
    for sid in ("offload.optimizer", "offload.params"):
        if a[sid] == "nvme":
            change(sid, "cpu", said("NVMe offload needs libaio and a fast disk; rehearsed as CPU offload"))
    if changes.get("offload.optimizer", a["offload.optimizer"]) != "nvme" and \
            changes.get("offload.params", a["offload.params"]) != "nvme":
        change("offload.nvme_path", None, "no NVMe offload in the rehearsal", quiet=True)
    _parallelism(a, change)
    llama = trainer or tensor_parallel or (target == DEEPSPEED and (a["parallelism.sp_size"] > 1
                                                         or (a["parallelism.ds_autotp_size"] or 0) > 1))
    layer_class = BUNDLED_LLAMA_LAYER_CLASS if llama else BUNDLED_LAYER_CLASS
    if target in (FSDP1, FSDP2):
        if a["wrapping.policy"] == "transformer":
            change("wrapping.layer_classes", [layer_class],
                   said(f"the bundled model's layer class is {layer_class}"
                        + (" (its tiny Llama, the model it trains tensor-parallel)" if tensor_parallel else
                           " (the tiny Llama the Trainer trains)" if trainer else "")))
        bundled_model_cannot_run()
    else:
        if a["loading.ram_efficient"]:
            change("loading.ram_efficient", False,
                   said("zero3_init_flag only affects Transformers' from_pretrained, which the bundled script does "
                        "not use"))
        bundled_model_cannot_run()
        extra = a["deepspeed.extra"] or {}
        dropped = [k for k in extra if k in _EXTRA_DROPPED]
        if dropped:
            change("deepspeed.extra", {k: v for k, v in extra.items() if k not in dropped},
                   said("left out for the bundled script: " + ", ".join(dropped)))
        if (a["precision.ds_bf16_master_weights"] == "bf16_with_states" and "optimizer" in dropped
                and changes.get("offload.optimizer", a["offload.optimizer"]) != "none"):
            # without the optimizer block, accelerate swaps the bundled AdamW for a CPU Adam with fp32 moments,
            # which DeepSpeed refuses next to bf16 optimizer states (rule ds-bf16-states-offload-swap)
            change("precision.ds_bf16_master_weights", "bf16", said("the bundled script's torch AdamW becomes a CPU "
                   "Adam with fp32 moments under offload; rehearsed with bf16 master weights and fp32 moments"))
    rehearsed = a.replace(changes) if changes else a

    if trainer:  # batch, accumulation and clipping reach the Trainer as TrainingArguments (training_arguments.json)
        return rehearsed, notes, kept_args
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
    return rehearsed, notes, script_args + kept_args


def trainer_rehearsal(a: Answers) -> bool:
    """Whether a rehearsal of ``a`` runs through the Hugging Face Trainer (the bundled ``train_trainer.py``): the
    answers' loop is the Trainer and no tensor, context or sequence dimension is asked for (the Trainer rehearsal
    trains a plain data-parallel layout)."""
    if a["launch.training_loop"] != "trainer":
        return False
    split = ("parallelism.tp_size", "parallelism.cp_size", "parallelism.sp_size")
    return not any(a[sid] > 1 for sid in split) and (a["parallelism.ds_autotp_size"] or 0) <= 1


_TRAINER_SCRIPT_OPTIONS = frozenset({"--steps", "--seq-len", "--vocab", "--d-model", "--n-layers", "--n-heads",
                                     "--seed", "--step-sleep"})
"""The bundled own-loop script's options that the Trainer script (templates/train_trainer.py) takes too; its batch,
accumulation, clipping, learning rate and checkpoint options are TrainingArguments under the Trainer."""


def _trainer_args(kept: list[str], dropped: list[tuple[list[str], str]]
                  ) -> tuple[list[str], list[tuple[list[str], str]]]:
    """Of the arguments the own-loop script understands, those the Trainer script takes too; the rest dropped."""
    out: list[str] = []
    i = 0
    while i < len(kept):
        tok = kept[i]
        name = tok.partition("=")[0]
        takes_value = "=" not in tok and i + 1 < len(kept) and not kept[i + 1].startswith("--")
        group = kept[i:i + 2] if takes_value else [tok]
        if name in _TRAINER_SCRIPT_OPTIONS:
            out += group
        else:
            dropped.append((group, said("the Trainer takes this from TrainingArguments (training_arguments.json), "
                                        "not from the script's options")))
        i += len(group)
    return out, dropped


def _parallelism(a: Answers, change: Any) -> None:
    """The parallelism dimensions on the CPU: FSDP2's tensor parallelism at tp 2 over the bundled tiny Llama,
    DeepSpeed's Ulysses at sp 2 (both run on gloo); context parallelism and what needs CUDA kernels become
    "not rehearsed"."""
    if a.target == FSDP2:
        if a["parallelism.cp_size"] > 1:
            change("parallelism.cp_size", 1, said("context parallelism does not run on a CPU: torch has no sharding "
                                                  "rule for its CPU attention kernel (claim "
                                                  "torch-cp-no-cpu-attention); rehearsed without it"))
        if a["parallelism.tp_size"] > 1:
            change("parallelism.tp_size", REHEARSAL_TP, said(f"the bundled tiny Llama is split over {REHEARSAL_TP} "
                   "tensor-parallel ranks"))
    if a.target != DEEPSPEED:
        return
    if a["parallelism.sp_size"] > 1:
        change("parallelism.sp_size", REHEARSAL_SP,
               said(f"a rehearsal splits every sequence over {REHEARSAL_SP} ranks"))
        if not a["parallelism.sp_seq_length_is_variable"]:
            change("parallelism.sp_seq_length_is_variable", True, said("the bundled script's sequences are short; "
                   "rehearsed with a variable length"))
            change("parallelism.sp_seq_length", None, "rehearsed with a variable length", quiet=True)
        if a["parallelism.sp_attn_implementation"] != "sdpa":
            change("parallelism.sp_attn_implementation", "sdpa",
                   said(f"{a['parallelism.sp_attn_implementation']} needs a GPU; rehearsed with sdpa"))
    if a["parallelism.ds_autotp_size"] not in (None, 1, REHEARSAL_TP):
        change("parallelism.ds_autotp_size", REHEARSAL_TP, said(f"the bundled tiny Llama is split over "
               f"{REHEARSAL_TP} AutoTP ranks"))
    for sid in ("parallelism.ds_quantized_weights", "parallelism.ds_quantized_gradients"):
        if a[sid]:
            change(sid, None, said("ZeRO++ quantized communication uses DeepSpeed's quantizer kernels, which its "
                                   "CPU accelerator does not build (deepspeed/ops/op_builder/cpu has no quantizer)"))


def rehearsal_env(target: str, base: Mapping[str, str] | None = None, machines: int = 1) -> dict[str, str]:
    """Environment overrides for a CPU rehearsal of ``target`` on ``machines`` machines.

    On one machine the processes meet through torchrun's standalone rendezvous (``PET_STANDALONE=1``, read by the
    torchrun that ``accelerate launch`` runs): its launcher binds the store to a port the kernel gives it before any
    rank starts, so no other program on this machine (another rehearsal, a training job, a test suite) can take the
    port between its choice and its use. The ``main_process_port`` in the rehearsal's config is then only the port
    accelerate probes before it starts torchrun. Several machines (a SLURM rehearsal) meet at the main address and
    port the batch script passes."""
    if base is None:
        base = os.environ
    cores = os.cpu_count() or 2
    env = {
        "CUDA_VISIBLE_DEVICES": "",
        "OMP_NUM_THREADS": base.get("OMP_NUM_THREADS") or str(max(1, cores // REHEARSAL_PROCESSES)),
    }
    if machines == 1:
        env["PET_STANDALONE"] = "1"
    if target == DEEPSPEED:
        env["DS_ACCELERATOR"] = "cpu"
    else:
        env["ACCELERATE_TORCH_DEVICE"] = "cpu"
    return env


_OPS = ("cpu_adam", "deepspeed_shm_comm")
STALE_LOCK_S = 15 * 60
"""A build lock older than this is a stopped build's: one op builds in 1-3 minutes on 2 cores."""


def _extension_folders(env: Mapping[str, str] | None) -> list[Path]:
    if env is None:
        env = os.environ
    root = env.get("TORCH_EXTENSIONS_DIR")
    return [Path(root)] if root else list((Path.home() / ".cache" / "torch_extensions").glob("py*_cpu"))


def deepspeed_ops_cached(env: Mapping[str, str] | None = None) -> bool:
    """Whether DeepSpeed's CPU ops look built in the torch extensions folder (a cheap file check)."""
    return any(all((f / op / f"{op}.so").is_file() for op in _OPS) for f in _extension_folders(env))


def stale_build_locks(env: Mapping[str, str] | None = None, *, now: float | None = None) -> list[Path]:
    """torch's build locks (``<extensions>/<op>/lock``) older than :data:`STALE_LOCK_S`. torch takes the lock
    before building an op and removes it after; a build that was killed leaves it, and every later process that
    loads the op waits for it forever, in silence."""
    import time

    now = time.time() if now is None else now
    found = []
    for folder in _extension_folders(env):
        for lock in sorted(folder.glob("*/lock")):
            try:
                age = now - lock.lstat().st_mtime
            except FileNotFoundError:
                continue
            if age > STALE_LOCK_S:
                found.append(lock)
    return found


def ops_notes(env: Mapping[str, str] | None = None) -> list[str]:
    """What to know before a DeepSpeed rehearsal about its CPU ops: a first build's wait, and build locks left by
    a stopped build (the ranks would wait for them forever)."""
    notes = []
    for lock in stale_build_locks(env):
        notes.append(said(f"{lock} is older than {STALE_LOCK_S // 60} minutes: a stopped build left it, and the "
                          "ranks will wait for it without end. If no other build is running, remove it: "
                          f"rm {shlex.quote(str(lock))}"))
    if not deepspeed_ops_cached(env):
        notes.append(said("DeepSpeed JIT-compiles its CPU ops on first use (1-3 minutes without output); build "
                          "them ahead with: python -m wizard.run.rehearse --prewarm"))
    return notes


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
