"""What the Hugging Face Trainer fills in a DeepSpeed JSON, per transformers release (pure data, no imports).

Read from ``transformers/integrations/deepspeed.py`` (``HfTrainerDeepSpeedConfig.trainer_config_process``, run when
``TrainingArguments`` is created, and ``trainer_config_finalize``, run by ``deepspeed_init``) of the releases
4.40.2 .. 5.24.0 and replayed by ``scripts/replay_accelerate_versions.py --transformers`` (docs/versions-accelerate.md,
"transformers"). Ranges use the specifiers of wizard/core/context.py; ``>=4.40.0`` means "as far back as we
replayed", not that older releases differ. A bound is the first release replayed that shows the new behaviour: the
change lies between it and the replayed release before it (named in the comment).
"""
from __future__ import annotations

ALL_REPLAYED = ">=4.40.0"

TRAINER_FILLS: dict[str, tuple[str, str]] = {
    # trainer_config_process (5.24.0: integrations/deepspeed.py:136-184); "matched": a concrete value that differs
    # from the argument is a mismatch (see TRAINER_MISMATCH_RAISES_SINCE)
    "train_micro_batch_size_per_gpu": ("per_device_train_batch_size (matched unless auto_find_batch_size)",
                                       ALL_REPLAYED),
    "gradient_accumulation_steps": ("gradient_accumulation_steps (matched)", ALL_REPLAYED),
    "train_batch_size": ("world_size x per_device_train_batch_size x gradient_accumulation_steps (matched unless "
                         "auto_find_batch_size)", ALL_REPLAYED),
    "gradient_clipping": ("max_grad_norm (matched)", ALL_REPLAYED),
    "optimizer.params.lr": ("learning_rate (matched)", ALL_REPLAYED),
    "optimizer.params.betas": ("[adam_beta1, adam_beta2] (matched)", ALL_REPLAYED),
    "optimizer.params.eps": ("adam_epsilon (matched)", ALL_REPLAYED),
    "optimizer.params.weight_decay": ("weight_decay (matched)", ALL_REPLAYED),
    "scheduler.params.warmup_min_lr": ("0 (fill only, never matched)", ALL_REPLAYED),
    "scheduler.params.warmup_max_lr": ("learning_rate (matched)", ALL_REPLAYED),
    "fp16.enabled": ("fp16 or fp16_full_eval (matched; before 5.0 only with fp16_backend amp)", ALL_REPLAYED),
    "bf16.enabled": ("bf16 or bf16_full_eval (matched)", ALL_REPLAYED),
    # 4.57.6 deepspeed.py:194-195; gone in 5.0.0 (apex support removed): "auto" stays "auto" and reaches DeepSpeed
    "amp.enabled": ("fp16 with fp16_backend apex (matched)", ">=4.40.0,<5.0.0"),
    "amp.opt_level": ("fp16_opt_level (matched)", ">=4.40.0,<5.0.0"),
    # trainer_config_finalize (5.24.0: deepspeed.py:194-264); the hidden size h: see TRAINER_HIDDEN_SIZE_SOURCES
    "zero_optimization.reduce_bucket_size": ("h x h (fill only)", ALL_REPLAYED),
    "zero_optimization.stage3_prefetch_bucket_size": ("0.9 x h x h at ZeRO-3 (fill only; an int since 4.45)",
                                                      ALL_REPLAYED),
    "zero_optimization.stage3_param_persistence_threshold": ("10 x h at ZeRO-3 (fill only)", ALL_REPLAYED),
    "scheduler.params.total_num_steps": ("the number of training steps (matched)", ALL_REPLAYED),
    "scheduler.params.warmup_num_steps": ("args.get_warmup_steps(steps) (matched; at least 1 since 5.18)",
                                          ALL_REPLAYED),
}
"""DeepSpeed key -> (the TrainingArguments source, in words; the transformers releases where the Trainer fills
it). A key not listed (``steps_per_print``, ``zero_optimization.stage3_gather_16bit_weights_on_model_save``, ...)
is never filled: an "auto" there reaches DeepSpeed as the string "auto"."""

TRAINER_FILL_ONLY = ("scheduler.params.warmup_min_lr", "zero_optimization.reduce_bucket_size",
                     "zero_optimization.stage3_prefetch_bucket_size",
                     "zero_optimization.stage3_param_persistence_threshold")
"""Keys the Trainer fills when "auto" and never compares when concrete (``fill_only``)."""
TRAINER_NOT_MATCHED_WITH_AUTO_FIND_BATCH_SIZE = ("train_micro_batch_size_per_gpu", "train_batch_size")
"""With ``auto_find_batch_size`` these are filled but not compared (``must_match=not auto_find_batch_size``)."""

TRAINER_MISMATCH_RAISES_SINCE = "4.40.0"
"""Every replayed release (4.40.2 .. 5.24.0) collects each concrete value that differs from its argument
(``ds_val != hf_val``: the string "2" differs from the int 2) and ``trainer_config_finalize`` raises one ValueError
listing them all ("Please correct the following DeepSpeed config values that mismatch TrainingArguments values")."""
TRAINER_OVERRIDES = {"checkpoint.use_node_local_storage": ("save_on_each_node, set when it is true", ALL_REPLAYED)}
"""Keys the Trainer writes whatever the JSON says (not an "auto" fill)."""

TRAINER_HIDDEN_SIZE_SOURCES: tuple[tuple[str, str], ...] = (
    ("model.config.hidden_size", ALL_REPLAYED),
    ("max(model.config.hidden_sizes)", ALL_REPLAYED),
    ("model.config.text_config.hidden_size", ">=4.46.0"),
    ("max(model.config.text_config.hidden_sizes)", ">=4.46.0"),
)
"""Where trainer_config_finalize takes h, first match wins, only when one of the hidden-size keys is "auto";
none found: ValueError ("The model's config file has neither `hidden_size` nor `hidden_sizes` entry")."""
TRAINER_TEXT_CONFIG_HIDDEN_SIZE_SINCE = "4.46.0"
"""4.45.2 has no text_config fallback (a multimodal model's "auto" bucket sizes raise), 4.46.3 has it."""
TRAINER_MODEL_WITHOUT_CONFIG_VALUEERROR_SINCE = "4.57.0"
"""A model object without ``.config``: AttributeError up to 4.56.2, the ValueError above from 4.57.6 on."""
TRAINER_PREFETCH_BUCKET_INT_SINCE = "4.45.0"
"""Up to 4.44.2 stage3_prefetch_bucket_size is ``0.9 * h * h``, a float: with h = 4096 it is 15099494.4, which
DeepSpeed 0.19.8 (pydantic 2, ``prefetch_bucket_size: int``) rejects as "got a number with a fractional part";
4.45.2 writes ``int(0.9 * h * h)``."""

TRAINER_WARMUP_AT_LEAST_ONE_SINCE = "5.18.0"
"""warmup_num_steps "auto" gets ``max(1, get_warmup_steps(steps))`` from 5.18.0 (5.17.0: 0 for no warm-up, which
deepspeed >= 0.19.6 rejects as a non-positive warmup_num_steps)."""
TRAINER_WARMUP_FRACTION_SINCE = "5.0.0"
"""``warmup_steps`` below 1 is a fraction of the training steps from 5.0.0; before, warmup_steps had to be a
non-negative int (4.44.2 .. 4.57.6 raise in TrainingArguments; 4.40.2-4.41.2 passed a float through) and the
fraction came from ``warmup_ratio``."""
TRAINER_WARMUP_RATIO_REMOVED_IN = "5.15.0"
"""``warmup_ratio`` is deprecated from 5.0.0 (mapped onto warmup_steps) and gone from TrainingArguments in 5.15
(5.14.1 still has it; 5.15.1 raises TypeError for it)."""

TRAINER_AMP_FILLED_BEFORE = "5.0.0"
"""amp.enabled / amp.opt_level are filled up to 4.57.6 and left as they are from 5.0.0 (see TRAINER_FILLS)."""
TRAINER_DEFAULT_DTYPE_FP32_SINCE = "5.0.0"
"""The dtype the Trainer derives (``hf_deepspeed_config.dtype()``, used e.g. for zero.Init) when neither
bf16.enabled nor fp16.enabled is true: before 5.0.0 float16 unless fp16.enabled is explicitly false (a JSON without
an fp16 section counts as fp16), from 5.0.0 float32."""
