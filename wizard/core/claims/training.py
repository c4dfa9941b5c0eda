"""Claims about the training loop: accumulation, clipping, batch sizes, activation-checkpoint offload and checkpoint
files (see :mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

T = "tests/claims/test_training.py::"

# ------------------------------------------------------------------------------------------------ accumulation
FSDP_ACCUMULATE = claim(
    "fsdp-accumulate-keeps-unsharded-grads",
    "Inside accelerator.accumulate(), the micro-batches before an optimizer step run under no_sync on FSDP1 and "
    "FSDP2: no reduce-scatter, and each rank keeps the unsharded gradients; GradientAccumulationPlugin("
    "sync_each_batch=True) reduces every micro-batch instead (with more than one process).",
    doc="training-loop",
    code="accelerate/accelerator.py:1133-1178, 1256-1298; "
         "torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py:588; "
         "torch/distributed/fsdp/fully_sharded_data_parallel.py:1034",
    demo=T + "test_fsdp_accumulation_skips_the_reduce_scatter_unless_sync_each_batch",
    scope=("fsdp1", "fsdp1-sync-each-batch", "fsdp2", "fsdp2-sync-each-batch"))
DS_BOUNDARY = claim(
    "ds-accumulate-drives-the-engine-step",
    "Under DeepSpeed accelerator.backward() tells the engine whether this micro-batch ends an accumulation from "
    "accelerator.sync_gradients: inside accumulate() the step falls every gradient_accumulation_steps micro-batches "
    "(the config's count), outside it every backward steps the optimizer, while the engine still divides the loss "
    "by the count.",
    doc="training-loop",
    code="accelerate/utils/deepspeed.py:264-281; accelerate/accelerator.py:1256-1298; "
         "deepspeed/runtime/engine.py:3413, 3442-3465, 3491",
    demo=T + "test_deepspeed_steps_where_accelerate_says",
    scope=("outside-accumulate", "inside-accumulate"))
LAUNCH_DS_ONLY = claim(
    "launch-accumulation-and-clipping-deepspeed-only",
    "accelerate launch exports gradient_accumulation_steps and gradient_clipping to the processes only in its "
    "DeepSpeed launcher; for FSDP nothing in the config reaches them, so the script (or the Trainer's arguments) "
    "decides.",
    doc="training-loop",
    code="accelerate/utils/launch.py:569-572; accelerate/commands/launch.py:452-463",
    demo=T + "test_only_the_deepspeed_launcher_exports_accumulation_and_clipping",
    scope=("fsdp", "deepspeed"))
TRAINER_LOOP = claim(
    "trainer-counts-accumulation-and-clips",
    "The HF Trainer counts accumulation itself from TrainingArguments.gradient_accumulation_steps (its Accelerator "
    "gets 1), runs the micro-batches before each step under no_sync unless accelerator_config's "
    "gradient_accumulation_kwargs set sync_each_batch, and calls accelerator.clip_grad_norm_ with max_grad_norm "
    "when that is above 0.",
    doc="training-loop",
    code="transformers/trainer.py:806-830, 1895-1940, 2782-2787",
    demo=T + "test_the_trainer_counts_accumulation_itself_and_clips_with_max_grad_norm",
    scope=("accelerator-gets-1", "no-sync-by-default", "sync-each-batch", "clips", "max-grad-norm-0"))
TRAINER_DS_MATCH = claim(
    "trainer-ds-values-must-match-arguments",
    "Under the HF Trainer a DeepSpeed train_micro_batch_size_per_gpu, gradient_accumulation_steps, train_batch_size "
    "or gradient_clipping that is not 'auto' must equal its TrainingArguments counterpart (per_device_train_"
    "batch_size, gradient_accumulation_steps, their product with the world size, max_grad_norm), from a JSON or the "
    "inline YAML, or training stops with a ValueError before the engine is built; 'auto' takes the argument.",
    doc="training-loop",
    code="transformers/integrations/deepspeed.py:108-161, 258-263, 642, 704-718; transformers/trainer.py:886-887",
    demo=T + "test_trainer_refuses_deepspeed_values_that_differ_from_its_arguments",
    scope=("micro-batch", "accumulation", "train-batch-size", "clipping", "auto"))
TRAINER_LR_MATCH = claim(
    "trainer-lr-and-warmup-max-lr-match-learning-rate",
    "The HF Trainer compares both a concrete optimizer.params.lr and a concrete scheduler.params.warmup_max_lr with "
    "its one learning_rate argument, so two different numbers there always fail with its mismatch ValueError; "
    "'auto' in both takes learning_rate, and the optimizer's betas, eps and weight_decay are matched the same way.",
    doc="training-loop",
    code="transformers/integrations/deepspeed.py:163-173, 258-263",
    demo=T + "test_trainer_matches_both_learning_rates_against_one_argument",
    scope=("optimizer-lr-differs", "warmup-max-lr-differs", "auto", "equal", "betas", "eps", "weight-decay"))

TRAINER_PRECISION_SCHEDULE_MATCH = claim(
    "trainer-precision-and-schedule-match-arguments",
    "The HF Trainer also compares a concrete fp16.enabled or bf16.enabled with its fp16 or bf16 argument (either "
    "that flag or its *_full_eval counts as true), and, once the number of training steps is known, a concrete "
    "scheduler.params.total_num_steps with it and scheduler.params.warmup_num_steps with the warm-up steps (at "
    "least 1); a difference fails with the same mismatch ValueError. A key whose section the JSON lacks is neither "
    "filled nor compared.",
    doc="training-loop",
    code="transformers/integrations/deepspeed.py:108-134, 183-185, 250-267; transformers/training_args.py:2154-2161",
    demo=T + "test_trainer_matches_precision_and_the_schedule_against_its_arguments",
    scope=("bf16-differs", "fp16-differs", "full-eval", "total-steps", "warmup-steps", "no-section"))

# ------------------------------------------------------------------------------------------------ clipping
FSDP_CLIP = claim(
    "fsdp-clip-grad-norm-over-shards",
    "On FSDP, accelerator.clip_grad_norm_(model.parameters(), max_norm) computes the norm over every rank's shards "
    "and clips them (FSDP1 through the wrapper's clip_grad_norm_, FSDP2 on the DTensor gradients); "
    "clip_grad_value_ raises on FSDP and DeepSpeed.",
    doc="training-loop",
    code="accelerate/accelerator.py:3014-3021, 3072-3073",
    demo=T + "test_fsdp_clip_grad_norm_clips_over_all_shards",
    scope=("fsdp1", "fsdp2"))
DS_CLIP_REPORTS = claim(
    "ds-clip-grad-norm-only-reports",
    "Under DeepSpeed accelerator.clip_grad_norm_ clips nothing and ignores its max_norm: it returns the norm the "
    "engine computed at its last step; the engine clips inside its step with the config's gradient_clipping.",
    doc="training-loop",
    code="accelerate/accelerator.py:3022-3027; accelerate/utils/deepspeed.py:286-292; "
         "deepspeed/runtime/engine.py:1357, 3502-3507",
    demo=T + "test_deepspeed_clip_grad_norm_returns_the_engines_norm",
    scope=("returns-engine-norm", "max-norm-ignored", "engine-clips"))
DS_CLIP_DEFAULT = claim(
    "ds-gradient-clipping-on-unless-json-zero",
    "DeepSpeed clips at 1.0 unless a DeepSpeed JSON says 0.0: inline, a missing gradient_clipping becomes 'auto' "
    "(filled with 1.0 by accelerate, with max_grad_norm by the HF Trainer) and a 0 is dropped, leaving DeepSpeed's "
    "default of 1.0; a JSON without the key gets that default too.",
    doc="ds-gradient-accumulation-and-clipping",
    code="accelerate/utils/dataclasses.py:1233-1235, 1321-1322; accelerate/accelerator.py:2223-2226; "
         "deepspeed/runtime/constants.py:203",
    demo=T + "test_clipping_stays_on_unless_a_json_says_zero",
    scope=("inline-zero", "inline-missing", "json-missing", "json-zero"))

# ------------------------------------------------------------------------------------------------ batch size
DS_MICRO_AUTO = claim(
    "ds-micro-batch-auto-from-dataloader",
    "The inline config always writes train_micro_batch_size_per_gpu 'auto'; in an own loop accelerate fills it "
    "from the prepared DataLoader's batch_size and prepare() raises without a DataLoader that has an integer one. "
    "accelerate fills only 'auto' values, so a fixed train_batch_size that differs from micro x accumulation x "
    "world size fails DeepSpeed's check.",
    doc="ds-batch-size",
    code="accelerate/utils/dataclasses.py:1302-1305; accelerate/accelerator.py:2178-2205, 2228-2237; "
         "deepspeed/runtime/config.py:590-640",
    demo=T + "test_auto_micro_batch_comes_from_the_dataloader",
    scope=("inline-auto", "from-dataloader", "no-dataloader", "fixed-train-batch-size"))
FSDP_NO_BATCH = claim(
    "fsdp-knows-no-batch-size",
    "FSDP has no batch-size setting: neither the FSDP plugin nor accelerate launch's FSDP environment carries one, "
    "so only the script's DataLoader decides.",
    doc="training-loop",
    code="accelerate/utils/dataclasses.py:1586-1830; accelerate/utils/launch.py:304-333",
    demo=T + "test_fsdp_has_no_batch_size",
    scope=("plugin", "launch-env"))

# ------------------------------------------------------------------------------------------------ checkpointing
AC_OFFLOAD = claim(
    "fsdp2-ac-offload-wrapper",
    "fsdp_activation_checkpointing_offload (accelerate 1.15) needs activation checkpointing and FSDP2, or the "
    "plugin raises; it wraps each checkpointed block in torch's OffloadWrapper, whose save_on_cpu(pin_memory=True) "
    "moves what the checkpoint keeps for backward, the block's input, to pinned host memory.",
    doc="training-loop",
    code="accelerate/utils/dataclasses.py:1963-1970; accelerate/utils/fsdp_utils.py:718-728; "
         "torch/distributed/algorithms/_checkpoint/checkpoint_wrapper.py:106-110",
    demo=T + "test_activation_checkpoint_offload_is_an_fsdp2_offload_wrapper",
    scope=("without-checkpointing", "fsdp1", "fsdp2-wrapper"))
DS_AC_API = claim(
    "ds-activation-checkpointing-section-api-only",
    "DeepSpeed's activation_checkpointing section (cpu_checkpointing included) is applied only when the model "
    "calls deepspeed.checkpointing.configure and checkpoints through it: the engine never configures it, and "
    "accelerate's DeepSpeed plugin has no activation-checkpointing switch.",
    doc="training-loop",
    code="deepspeed/runtime/activation_checkpointing/checkpointing.py:60, 1131, 1152-1220",
    demo=T + "test_the_engine_never_configures_deepspeed_checkpointing",
    scope=("engine", "accelerate-plugin"))
MERGE = claim(
    "fsdp-merge-weights-full-file",
    "accelerate merge-weights (merge_fsdp_weights) turns a SHARDED_STATE_DICT folder written by save_state into "
    "one full model.safetensors, without a process group.",
    doc="fsdp-state-dict-type",
    code="accelerate/utils/fsdp_utils.py:473-520; accelerate/commands/merge.py:26-33",
    demo=T + "test_merge_weights_turns_a_sharded_folder_into_one_file",
    scope=("fsdp1", "fsdp2"))
DS_CKPT = claim(
    "ds-checkpoint-16bit-weights-fp32-master-script",
    "A ZeRO-1 or ZeRO-2 DeepSpeed checkpoint with bf16 holds the 16-bit module weights and, in the per-rank "
    "optimizer-state files, the fp32 master partition; save_checkpoint copies zero_to_fp32.py into the checkpoint "
    "folder next to the tags.",
    doc="ds-checkpoint-layout",
    code="deepspeed/runtime/engine.py:5530-5567",
    demo=T + "test_a_bf16_checkpoint_holds_16bit_weights_fp32_masters_and_the_script",
    scope=("zero-1", "zero-2"))
TOOLS_MAP_ARGUMENTS = claim(
    "tools-pass-their-keys-as-training-arguments",
    "LLaMA-Factory hands the TrainingArguments fields of its training YAML to the Trainer as written; axolotl passes "
    "micro_batch_size as per_device_train_batch_size, its gradient_accumulation_steps, learning_rate, max_grad_norm, "
    "weight decay and Adam parameters under their own names, fp16 only without bf16, and a warm-up of 1 step as 2. "
    "Both open the deepspeed: JSON from the folder the run starts in.",
    doc="training-loop",
    code="transformers/hf_argparser.py:358-384 (LLaMA-Factory's parser); accelerate/utils/deepspeed.py:136-143 "
         "(the JSON path, opened as written); hiyouga/LLaMA-Factory@ff6d4d12 src/llamafactory/hparams/parser.py:117, "
         "149-161, 310-312; "
         "axolotl-ai-cloud/axolotl@067b021c src/axolotl/core/builders/base.py:235-278, 622-668, "
         "src/axolotl/utils/config/__init__.py:236-240",
    why_not_demo="LLaMA-Factory and axolotl are not installed here (their dependencies pin other torch builds); the "
                 "mapping is read from their code at the cited commits, and tests/verify/test_trainer_agreement.py "
                 "runs the mapped arguments through transformers' own matching against their example JSONs",
    scope=("llamafactory", "axolotl", "deepspeed-path"))
DS_JSON_TRAINING_NUMBERS = claim(
    "ds-config-numbers-run-as-written",
    "DeepSpeed's config object takes train_micro_batch_size_per_gpu, gradient_accumulation_steps and "
    "gradient_clipping from the config dict as written, and the engine runs those: a number there is what trains, "
    "whatever the script or another setting meant.",
    doc="ds-auto-values",
    code="deepspeed/runtime/config.py:268-270, 484-485, 508",
    demo=T + "test_deepspeed_takes_the_batch_accumulation_and_clipping_of_its_config",
    scope=("micro-batch", "accumulation", "clipping"))
