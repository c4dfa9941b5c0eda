"""Who fills a DeepSpeed "auto" value, and with what: accelerate's ``DeepSpeedPlugin`` (the inline keys' values or
their defaults), ``Accelerator._prepare_deepspeed`` (what it can fill without the model, the hidden-size formulas,
an own loop's ``DummyOptim`` / ``DummyScheduler``) and the HF Trainer (its TrainingArguments). What the Trainer fills
per transformers release is in :mod:`.trainer_versions`.
"""
from __future__ import annotations

from .deepspeed import INLINE_TO_PATH

ACCELERATE_FILLS = {"gradient_clipping": 1.0, "zero_optimization.stage3_gather_16bit_weights_on_model_save": False}
"""What ``Accelerator._prepare_deepspeed`` puts in an "auto" it can fill without the model (accelerate/accelerator.py
``config_kwargs``)."""

DUMMY_OPTIM_FILLS = {"optimizer.params.lr": 0.001, "optimizer.params.weight_decay": 0}
DUMMY_SCHEDULER_FILLS = {"scheduler.params.warmup_min_lr": 0, "scheduler.params.warmup_max_lr": 0.001,
                         "scheduler.params.warmup_num_steps": 1}
"""What an own loop's ``DummyOptim(params)`` (lr 0.001, weight_decay 0) and ``DummyScheduler(optimizer)``
(warmup_num_steps 0, which accelerate raises to 1) put in the JSON's optimizer/scheduler "auto" values
(accelerate/utils/deepspeed.py; accelerate/accelerator.py ``_prepare_deepspeed``)."""

AUTO_REDUCE_BUCKET_PER_H2 = 1.0
AUTO_PREFETCH_BUCKET_PER_H2 = 0.9
AUTO_PERSISTENCE_PER_H = 10
HIDDEN_SIZE_AUTO_KEYS = ("zero_optimization.reduce_bucket_size", "zero_optimization.stage3_prefetch_bucket_size",
                         "zero_optimization.stage3_param_persistence_threshold")


def hidden_size_fill(key: str, hidden: int) -> int:
    """What accelerate's ``_prepare_deepspeed`` and the HF Trainer (``trainer_config_finalize``, transformers >= 4.45)
    write into a hidden-size "auto": reduce_bucket_size h*h, stage3_prefetch_bucket_size int(0.9*h*h),
    stage3_param_persistence_threshold 10*h."""
    if key.endswith("reduce_bucket_size"):
        return int(AUTO_REDUCE_BUCKET_PER_H2 * hidden * hidden)
    if key.endswith("stage3_prefetch_bucket_size"):
        return int(AUTO_PREFETCH_BUCKET_PER_H2 * hidden * hidden)
    if key.endswith("stage3_param_persistence_threshold"):
        return AUTO_PERSISTENCE_PER_H * hidden
    raise KeyError(f"{key} is not filled from the hidden size")


ACCELERATE_FILLS_FROM_RUN = ("train_micro_batch_size_per_gpu", "train_batch_size", "fp16.enabled", "bf16.enabled",
                             "scheduler.params.total_num_steps")
"""The "auto" values accelerate fills from the run itself: the batch sizes from the prepared dataloader, the
precision blocks from ``mixed_precision`` (``DeepSpeedPlugin.set_mixed_precision``), the scheduler's length from
``DummyScheduler(total_num_steps=...)`` (utils/dataclasses.py:1415-1450; accelerator.py:2178-2340)."""
AUTO_FILLED = frozenset({*ACCELERATE_FILLS_FROM_RUN, *INLINE_TO_PATH.values(), *ACCELERATE_FILLS,
                         *HIDDEN_SIZE_AUTO_KEYS, *DUMMY_OPTIM_FILLS, *DUMMY_SCHEDULER_FILLS})
"""Every "auto" accelerate fills in a plain accelerate training loop (DeepSpeedPlugin.__post_init__ and
Accelerator._prepare_deepspeed); an "auto" anywhere else reaches DeepSpeed as the string "auto" (unless the Trainer
fills it)."""
AUTO_TRAINER_ONLY = frozenset({"optimizer.params.betas", "optimizer.params.eps"})
"""Filled by the HF Trainer (transformers/integrations/deepspeed.py) but not by accelerate alone."""

TRAINER_DEFAULTS = {"per_device_train_batch_size": 8, "gradient_accumulation_steps": 1, "max_grad_norm": 1.0,
                    "bf16": False, "fp16": False, "learning_rate": 5e-05, "adam_beta1": 0.9, "adam_beta2": 0.999,
                    "adam_epsilon": 1e-08, "weight_decay": 0.0, "warmup_steps": 0, "max_steps": -1,
                    "fp16_full_eval": False, "bf16_full_eval": False, "auto_find_batch_size": False}
"""TrainingArguments defaults of the arguments the Trainer writes into DeepSpeed "auto" values or matches against
the JSON's concrete values (transformers/training_args.py; tests/verify/test_library_defaults.py reads them back
from the dataclass)."""

TRAINER_MATCHED = (
    # (DeepSpeed key, the TrainingArguments it comes from, must match: a concrete value that differs raises)
    ("train_micro_batch_size_per_gpu", ("per_device_train_batch_size",), True),
    ("gradient_accumulation_steps", ("gradient_accumulation_steps",), True),
    ("train_batch_size", ("per_device_train_batch_size", "gradient_accumulation_steps"), True),
    ("gradient_clipping", ("max_grad_norm",), True),
    ("optimizer.params.lr", ("learning_rate",), True),
    ("optimizer.params.betas", ("adam_beta1", "adam_beta2"), True),
    ("optimizer.params.eps", ("adam_epsilon",), True),
    ("optimizer.params.weight_decay", ("weight_decay",), True),
    ("scheduler.params.warmup_min_lr", (), False),
    ("scheduler.params.warmup_max_lr", ("learning_rate",), True),
    ("fp16.enabled", ("fp16", "fp16_full_eval"), True),
    ("bf16.enabled", ("bf16", "bf16_full_eval"), True),
    ("scheduler.params.total_num_steps", ("max_steps",), True),
    ("scheduler.params.warmup_num_steps", ("warmup_steps",), True),
)
"""What the HF Trainer fills into "auto" and compares with a concrete value, in its order (transformers 5.24
integrations/deepspeed.py:136-192 ``trainer_config_process``, 194-267 ``trainer_config_finalize``): the batch sizes
(not compared under ``auto_find_batch_size``), clipping, the optimizer's and scheduler's parameters, precision
(fp16/bf16 or their ``*_full_eval``), and the scheduler's length and warm-up once the number of training steps is
known. A key whose section is missing is neither filled nor compared; ``warmup_min_lr`` is only filled (0)."""
