"""What the Hugging Face Trainer does with a DeepSpeed JSON and its TrainingArguments (transformers 5.24,
integrations/deepspeed.py ``HfTrainerDeepSpeedConfig.trainer_config_process`` and ``trainer_config_finalize``):
each key of :data:`~..library.auto.TRAINER_MATCHED` written "auto" is filled from the arguments, and a concrete
value that differs from what the arguments give is a mismatch (the Trainer collects them and raises one
ValueError, "Please correct the following DeepSpeed config values that mismatch TrainingArguments values").

:func:`trainer_matches` says it key by key. The arguments are the user's (a mapping of TrainingArguments fields);
a field not given takes the dataclass default (``TRAINER_DEFAULTS``). Two things no argument says are parameters:
the world size (``train_batch_size`` is world x micro batch x accumulation) and the number of training steps (the
scheduler's length; known from ``max_steps`` when it is positive, else from the dataset, which no file shows).
What depends on an unknown one is reported as ``unknown``, never guessed.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..i18n import said
from ..library.auto import TRAINER_DEFAULTS, TRAINER_MATCHED

FILLED = "filled"
"""Written "auto": the Trainer writes ``value`` there (None, with ``needs``: from what is not known here)."""
MATCH = "match"
"""A concrete value equal to what the arguments give."""
MISMATCH = "mismatch"
"""A concrete value that differs: the Trainer raises."""
UNKNOWN = "unknown"
"""A concrete value, but what the arguments give depends on the world size or the number of training
steps, which are not known here."""
NOT_COMPARED = "not compared"
"""A concrete value the Trainer leaves alone (``warmup_min_lr``; the batch sizes under ``auto_find_batch_size``)."""

_ABSENT = object()


@dataclass(frozen=True)
class TrainerMatch:
    """One DeepSpeed key the Trainer fills or compares."""

    path: str
    """The DeepSpeed key (dotted path in the JSON)."""
    arguments: tuple[str, ...]
    """The TrainingArguments it comes from, for messages and findings' keys (for precision the ``*_full_eval`` one
    only when it is given)."""
    written: Any
    """The JSON's value ("auto" or concrete)."""
    value: Any
    """What the Trainer computes from the arguments (None: unknown)."""
    verdict: str
    """:data:`FILLED`, :data:`MATCH`, :data:`MISMATCH`, :data:`UNKNOWN` or :data:`NOT_COMPARED`."""
    needs: str = ""
    """For :data:`UNKNOWN`: what is missing (``the number of processes``, ``the number of training steps``)."""


def trainer_arguments(given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The arguments the Trainer runs with: the given ones over the dataclass defaults."""
    return {**TRAINER_DEFAULTS, **dict(given or {})}


_WHOLE = ("per_device_train_batch_size", "gradient_accumulation_steps", "max_steps")


def argument_problems(given: Mapping[str, Any]) -> list[str]:
    """What is wrong with the given values of the arguments the Trainer matches (the others are not read here):
    a flag that is not true/false, a count that is not a whole number, a number that is not one. One line each,
    naming the argument."""
    out = []
    for name, value in given.items():
        default = TRAINER_DEFAULTS.get(str(name), _ABSENT)
        if default is _ABSENT:
            continue
        if isinstance(default, bool):
            if not isinstance(value, bool):
                out.append(said(f"{name}: {value!r} must be true or false"))
        elif name in _WHOLE:
            if isinstance(value, bool) or not isinstance(value, int):
                out.append(said(f"{name}: {value!r} must be a whole number"))
            elif name != "max_steps" and value < 1:
                out.append(said(f"{name}: {value!r} must be 1 or more"))
        elif isinstance(value, str):
            out.append(said(f"{name}: {value!r} must be a number (YAML reads a number like 1e-5 as text: write "
                            "1.0e-5)"))
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            out.append(said(f"{name}: {value!r} must be a number"))
    return out


def read_training_arguments(path) -> dict[str, Any]:
    """The TrainingArguments fields in a YAML or JSON file (a ``.json`` name is JSON). Raises the shared
    ``InputError`` for a file that cannot be used, and ValueError (one line per argument) for a value of an argument
    the Trainer matches that it could not run with. Other fields are kept as they are: not read here."""
    from ..inputs import TRAINING_ARGS, load_mapping_file

    return checked_arguments({str(k): v for k, v in load_mapping_file(path, TRAINING_ARGS).items()})


def checked_arguments(given: dict[str, Any]) -> dict[str, Any]:
    """``given``, or ValueError naming each argument the Trainer could not run with (:func:`argument_problems`)."""
    problems = argument_problems(given)
    if problems:
        raise ValueError("; ".join(problems))
    return given


def warmup_steps(args: Mapping[str, Any], num_training_steps: int | None) -> int | None:
    """``TrainingArguments.get_warmup_steps``: a whole number of steps when ``warmup_steps`` >= 1, else that
    fraction of the training steps rounded up (None: the steps are unknown)."""
    ws = args.get("warmup_steps", TRAINER_DEFAULTS["warmup_steps"])
    if ws >= 1 or ws == 0:  # 0: no warm-up whatever the number of steps
        return int(ws)
    if num_training_steps is None:
        return None
    return math.ceil(num_training_steps * ws)


def training_steps(args: Mapping[str, Any]) -> int | None:
    """The number of optimizer steps the Trainer schedules, when the arguments say it (``max_steps`` > 0)."""
    n = args.get("max_steps", TRAINER_DEFAULTS["max_steps"])
    return int(n) if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None


def _node(ds: Mapping[str, Any], path: str):
    """The JSON's value at ``path``: ``_ABSENT`` when its section is missing (the Trainer then skips the key),
    None when the section is there without the key."""
    *sections, key = path.split(".")
    node: Any = ds
    for name in sections:
        node = node.get(name) if isinstance(node, Mapping) else None
        if node is None:
            return _ABSENT
    if not isinstance(node, Mapping):
        return _ABSENT
    return node.get(key)


def _computed(path: str, args: Mapping[str, Any], world: int | None, steps: int | None) -> tuple[Any, str]:
    """What the Trainer puts at ``path`` from the arguments, and what is missing to know it ("" when known)."""
    if path == "train_micro_batch_size_per_gpu":
        return args["per_device_train_batch_size"], ""
    if path == "gradient_accumulation_steps":
        return args["gradient_accumulation_steps"], ""
    if path == "train_batch_size":
        if world is None:
            return None, said("the number of processes")
        return world * args["per_device_train_batch_size"] * args["gradient_accumulation_steps"], ""
    if path == "gradient_clipping":
        return args["max_grad_norm"], ""
    if path in ("optimizer.params.lr", "scheduler.params.warmup_max_lr"):
        return args["learning_rate"], ""
    if path == "optimizer.params.betas":
        return [args["adam_beta1"], args["adam_beta2"]], ""
    if path == "optimizer.params.eps":
        return args["adam_epsilon"], ""
    if path == "optimizer.params.weight_decay":
        return args["weight_decay"], ""
    if path == "scheduler.params.warmup_min_lr":
        return 0, ""
    if path == "fp16.enabled":
        return bool(args["fp16"] or args["fp16_full_eval"]), ""
    if path == "bf16.enabled":
        return bool(args["bf16"] or args["bf16_full_eval"]), ""
    if path == "scheduler.params.total_num_steps":
        return (steps, "") if steps is not None else (None, said("the number of training steps"))
    if path == "scheduler.params.warmup_num_steps":
        w = warmup_steps(args, steps)
        return (max(1, w), "") if w is not None else (None, said("the number of training steps"))
    raise KeyError(path)


def _named(path: str, names: tuple[str, ...], given: Mapping[str, Any]) -> tuple[str, ...]:
    """The arguments a finding names: for precision the flag, and its ``*_full_eval`` only when that one is set."""
    if path in ("fp16.enabled", "bf16.enabled"):
        return tuple(n for n in names if n == names[0] or given.get(n))
    return names


def _whole_batches(written: Any, args: Mapping[str, Any]) -> int | None:
    """For a concrete train_batch_size and an unknown world size: the world size it needs (None: none can match)."""
    unit = args["per_device_train_batch_size"] * args["gradient_accumulation_steps"]
    if isinstance(written, bool) or not isinstance(written, (int, float)) or unit <= 0:
        return None
    if written < unit or written % unit:
        return None
    return int(written // unit)


def trainer_matches(ds: Mapping[str, Any], given: Mapping[str, Any] | None, *, world_size: int | None,
                    num_training_steps: int | None = None) -> list[TrainerMatch]:
    """Every key of TRAINER_MATCHED that the JSON writes (its section present and the key given), with the Trainer's
    verdict for the arguments ``given`` (defaults for the rest). ``num_training_steps`` None: from ``max_steps``
    when positive, else unknown."""
    args = trainer_arguments(given)
    steps = num_training_steps if num_training_steps is not None else training_steps(args)
    auto_batch = bool(args.get("auto_find_batch_size"))
    out: list[TrainerMatch] = []
    for path, names, must_match in TRAINER_MATCHED:
        written = _node(ds, path)
        if written is _ABSENT or written is None:
            continue
        value, needs = _computed(path, args, world_size, steps)
        compared = must_match and not (auto_batch and path in ("train_micro_batch_size_per_gpu", "train_batch_size"))
        named = _named(path, names, given or {})
        if needs and path == "train_batch_size" and compared and written != "auto":
            world = _whole_batches(written, args)
            if world is None:  # no number of processes makes world x micro x accumulation equal it
                out.append(TrainerMatch(path, named, written, None, MISMATCH, needs))
                continue
            needs = said(f"the number of processes (it matches with {world})")
        if written == "auto":  # filled whatever it is: from what is missing here when ``needs`` says so
            verdict = FILLED
        elif needs:
            verdict = UNKNOWN if compared else NOT_COMPARED
        elif not compared:
            verdict = NOT_COMPARED
        else:
            verdict = MATCH if written == value else MISMATCH
        out.append(TrainerMatch(path, named, written, value, verdict, needs))
    return out


__all__ = ["FILLED", "MATCH", "MISMATCH", "NOT_COMPARED", "UNKNOWN", "TrainerMatch", "argument_problems",
           "read_training_arguments", "trainer_arguments", "trainer_matches", "training_steps", "warmup_steps"]
