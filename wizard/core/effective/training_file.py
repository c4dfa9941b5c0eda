"""The training files of the tools built on the Hugging Face Trainer, read as the Trainer's arguments (issue 25): a
LLaMA-Factory training YAML and an axolotl YAML. Each names a DeepSpeed JSON (``deepspeed:``) and sets the values the
Trainer matches against it; :func:`training_file_from` maps the file's keys onto TrainingArguments the way that tool
does, so the pair can be judged as in ``check --training-args`` (:mod:`.trainer`).

How each tool does it (the snapshots cited in docs/corpus.md, "Trainer pairs"):

- LLaMA-Factory (hiyouga/LLaMA-Factory ff6d4d12, src/llamafactory/hparams/parser.py:117, 149-161, 310-312): the YAML is
  parsed by HfArgumentParser into its dataclasses, TrainingArguments among them, so a key that is a TrainingArguments
  field is that argument, as written (no type conversion), and ``deepspeed`` is TrainingArguments' own, opened
  from the folder the run starts in (accelerate/utils/deepspeed.py:136-143, HfDeepSpeedConfig: os.path.exists on
  the path as written).
- axolotl (axolotl-ai-cloud/axolotl 067b021c, src/axolotl/core/builders/base.py): ``micro_batch_size`` ->
  ``per_device_train_batch_size`` (:668), ``gradient_accumulation_steps``, ``learning_rate``, ``max_grad_norm``,
  ``weight_decay``, ``adam_beta1``/``adam_beta2``/``adam_epsilon`` passed when set (:622-660), ``max_steps`` when set
  (:677; else axolotl computes it from the dataset), precision (:270-278: ``fp16`` only without ``bf16``;
  ``bf16: full`` -> ``bf16_full_eval``; ``bf16: auto`` is resolved on the GPU, src/axolotl/utils/config/
  __init__.py resolve_dtype: true where bf16 is available), warm-up (:235-268: ``warmup_steps``, else
  ``warmup_ratio`` as a fraction of the steps, else 3% of them; 1 becomes 2). Its numbers pass through pydantic,
  which reads ``2e-5`` written as text as a number. ``deepspeed:`` is opened from the folder the run starts in
  (src/axolotl/utils/config/__init__.py:236-240, os.path.exists on the path as written).

Pure: no transformers import; the arguments are checked by :func:`.trainer.argument_problems`.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..library.auto import TRAINER_DEFAULTS
from ..training_kinds import AXOLOTL, KIND_LABELS, KINDS, LLAMAFACTORY, detect_kind

_AXOLOTL_OWN = ("per_device_train_batch_size", "bf16", "fp16", "bf16_full_eval", "fp16_full_eval", "warmup_steps",
                "auto_find_batch_size")
"""The matched arguments axolotl sets from keys of its own (or not at all): below."""
_AXOLOTL_SAME = tuple(k for k in TRAINER_DEFAULTS if k not in _AXOLOTL_OWN)
"""axolotl keys passed to TrainingArguments under the same name when set (core/builders/base.py:622-660, 677):
accumulation, learning rate, clipping, the Adam parameters, weight decay, max_steps."""


@dataclass(frozen=True)
class TrainingFile:
    """A tool's training file, as the Trainer will get it."""

    kind: str
    """:data:`LLAMAFACTORY` or :data:`AXOLOTL`."""
    arguments: dict[str, Any]
    """The TrainingArguments the tool passes, of those the Trainer matches against a DeepSpeed JSON."""
    mapped: tuple[tuple[str, str], ...] = ()
    """(key in the file, TrainingArguments field) for each argument whose name differs."""
    notes: tuple[str, ...] = ()
    """What was assumed (``bf16: auto`` on a bf16-capable GPU, a warm-up that needs the step count)."""
    deepspeed: Any = None
    """The file's ``deepspeed:`` value: a path as written, a mapping (axolotl takes one inline), or None."""
    fsdp: dict[str, Any] = field(default_factory=dict)
    """The FSDP keys it sets instead (axolotl ``fsdp``, ``fsdp_config``, ``fsdp_version``), as written."""


def _number(value: Any) -> Any:
    """pydantic's lax reading of a number written as text (axolotl): ``"2e-5"`` -> 2e-05; anything else as is."""
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return value
    return value


def training_file_from(data: Mapping[str, Any], kind: str) -> TrainingFile:
    """The file's TrainingArguments as ``kind``'s tool passes them (module docstring)."""
    if kind == LLAMAFACTORY:
        given = {k: data[k] for k in TRAINER_DEFAULTS if k in data and data[k] is not None}
        said: list[str] = []
        if "warmup_ratio" in data:
            said.append("warmup_ratio is not a TrainingArguments field in transformers 5.24 (warmup_steps below 1 "
                         "is the fraction there): not carried")
        return TrainingFile(kind, given, (), tuple(said), data.get("deepspeed"), {})
    if kind != AXOLOTL:
        raise ValueError(f"unknown training file kind {kind!r} (use one of: {', '.join(KINDS)})")
    args: dict[str, Any] = {}
    mapped: list[tuple[str, str]] = []
    notes: list[str] = []
    if data.get("micro_batch_size") is not None:
        args["per_device_train_batch_size"] = data["micro_batch_size"]
        mapped.append(("micro_batch_size", "per_device_train_batch_size"))
    for key in _AXOLOTL_SAME:
        if data.get(key) is not None:
            args[key] = _number(data[key]) if key not in ("gradient_accumulation_steps", "max_steps") else data[key]
    bf16, fp16 = data.get("bf16"), data.get("fp16")
    if bf16 is None:
        bf16 = data.get("bfloat16")
    if bf16 == "full":
        args["bf16_full_eval"] = True
        mapped.append(("bf16: full", "bf16_full_eval"))
    elif bf16 == "auto":
        args["bf16"] = True
        mapped.append(("bf16: auto", "bf16"))
        notes.append("bf16: auto is taken as true, what axolotl resolves it to on a GPU with bf16 (Ampere or later)")
    elif bf16 is not None:
        args["bf16"] = bf16
    if fp16 is not None:
        args["fp16"] = bool(fp16 and not bf16)
    if data.get("warmup_steps") is not None:
        ws = data["warmup_steps"]
        args["warmup_steps"] = 2 if ws == 1 else ws
    else:
        ratio = data.get("warmup_ratio")
        args["warmup_steps"] = _number(ratio) if ratio is not None else 0.03
        mapped.append(("warmup_ratio" if ratio is not None else "(no warm-up given: 3%)", "warmup_steps"))
    fsdp = {k: data[k] for k in ("fsdp", "fsdp_config", "fsdp_version") if data.get(k) not in (None, False, [], {})}
    return TrainingFile(kind, args, tuple(mapped), tuple(notes), data.get("deepspeed"), fsdp)


def tool_keys(kind: str, arguments: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The keys of ``kind``'s training file that give the Trainer ``arguments`` (the inverse of
    :func:`training_file_from`: read back, they are ``arguments`` again), and what cannot be said that way.
    LLaMA-Factory takes TrainingArguments fields as they are; axolotl names the micro batch ``micro_batch_size``,
    passes the others it has under their own names, and turns a warm-up of 1 step into 2."""
    if kind == LLAMAFACTORY:
        return dict(arguments), ()
    if kind != AXOLOTL:
        raise ValueError(f"unknown training file kind {kind!r} (use one of: {', '.join(KINDS)})")
    keys: dict[str, Any] = {}
    cannot: list[str] = []
    for name, value in arguments.items():
        if name == "per_device_train_batch_size":
            keys["micro_batch_size"] = value
        elif name in _AXOLOTL_SAME or name in ("bf16", "fp16"):
            keys[name] = value
        elif name == "warmup_steps" and value != 1:
            keys[name] = value
        else:
            cannot.append(f"{name}: {value!r} (axolotl " + ("turns a warm-up of 1 step into 2" if name == "warmup_steps"
                                                              else "has no key for it") + ")")
    return keys, tuple(cannot)


def trainer_arguments_of_file(path: Path) -> tuple[str, dict[str, Any]]:
    """(what the file is, the TrainingArguments it gives the Trainer) for a file of TrainingArguments fields (YAML or
    JSON), a LLaMA-Factory training YAML or an axolotl YAML (recognised by its keys). Raises the shared
    ``InputError`` for a file that cannot be used and ValueError for an argument the Trainer could not run with."""
    from ..inputs import TRAINING_ARGS, load_mapping_file
    from .trainer import checked_arguments

    data = {str(k): v for k, v in load_mapping_file(path, TRAINING_ARGS).items()}
    kind = detect_kind(data)
    if kind is None:
        args = data
        what = "TrainingArguments"
    else:
        args = dict(training_file_from(data, kind).arguments)
        what = KIND_LABELS[kind]
    return what, checked_arguments(args)


def deepspeed_path(value: str, cwd: Path) -> Path:
    """Where the tool opens ``deepspeed: value``: as written, from the folder the run starts in (both tools)."""
    p = Path(value).expanduser()
    return p if p.is_absolute() else cwd / p


__all__ = ["AXOLOTL", "KINDS", "KIND_LABELS", "LLAMAFACTORY", "TrainingFile", "deepspeed_path", "detect_kind",
           "tool_keys", "trainer_arguments_of_file", "training_file_from"]
