"""Answers reach the effective model through the renderer: what runs for a set of answers is what runs for the files
the wizard writes from them (so the two can never disagree), in the situation the answers describe.

It sits beside the answer rules, which read it (the ZeRO stage that runs), so that the effective model itself
reads written configs only and stands below the answers (docs/architecture.md)."""
from __future__ import annotations

from ..context import LOOP_ACCELERATE, LOOP_HF
from ..effective.model import Effective, effective
from ..effective.situation import Situation
from .model import Answers
from .render import render, trainer_loop, training_arguments


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def situation_of(a: Answers, *, hidden_size: int | None = None, micro_batch: int | None = None) -> Situation:
    """What the answers say about the script and the loop (the parts no config key holds). ``micro_batch``
    overrides the answers' micro batch (``estimate --batch``)."""
    trainer = trainer_loop(a)
    return Situation(
        loop=LOOP_HF if trainer else LOOP_ACCELERATE,
        trainer_arguments=training_arguments(a) if trainer else None,
        micro_batch=micro_batch if micro_batch is not None else _count(a["training.micro_batch_size"]),
        gradient_accumulation_steps=_count(a["training.gradient_accumulation_steps"]),
        model_dtype=a["precision.model_dtype"],
        activation_checkpointing=bool(a["training.activation_checkpointing"]),
        hidden_size=hidden_size,
    )


def of_answers(a: Answers, *, hidden_size: int | None = None, micro_batch: int | None = None) -> Effective:
    """The effective model of the files rendered from ``a``."""
    r = render(a, ds_config_ref="ds_config.json")
    return effective(r.accelerate, r.deepspeed, situation_of(a, hidden_size=hidden_size, micro_batch=micro_batch))


__all__ = ["of_answers", "situation_of"]
