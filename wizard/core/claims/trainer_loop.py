"""Claims about the Hugging Face Trainer as the training loop (``launch.training_loop: trainer``): what it hands to
accelerate and DeepSpeed from its TrainingArguments (see :mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

T = "tests/claims/test_trainer_loop.py::"

TRAINER_PRECISION = claim(
    "trainer-passes-precision-to-accelerate",
    "TrainingArguments starts from the launcher's ACCELERATE_MIXED_PRECISION and replaces it by fp16 or bf16 when "
    "those arguments are true; the Trainer builds its Accelerator with that precision, and under DeepSpeed it "
    "requires a fp16.enabled / bf16.enabled that is not 'auto' to equal its fp16 / bf16 argument.",
    doc="training-loop",
    code="transformers/training_args.py:1612-1618; transformers/trainer.py:741-746; "
         "transformers/integrations/deepspeed.py:183-184, 258-263",
    demo=T + "test_the_trainer_precision_comes_from_its_arguments",
    scope=("from-launcher", "argument-wins", "accelerator", "ds-concrete-must-equal", "ds-auto"))
TRAINER_FSDP_SAVE = claim(
    "trainer-fsdp-save-model-full-only",
    "Under FSDP the Trainer's save_model writes the weights only when fsdp_state_dict_type is FULL_STATE_DICT; with "
    "SHARDED_STATE_DICT (FSDP2's default) it writes no weights file, and only its checkpoints (save_state) hold them.",
    doc="fsdp-state-dict-type",
    code="transformers/trainer.py:4105-4108",
    why_not_demo="needs a Trainer run on accelerate's FSDP path; that path runs on CPU only through the rehearsal "
                 "shim, which the Trainer's own Accelerator does not install",
    scope=("full-state-dict", "sharded-state-dict"))
TRAINER_OPTIMIZER = claim(
    "trainer-builds-the-ds-optimizer-itself",
    "The Trainer needs nothing from the script for DeepSpeed's optimizer: with an optimizer block in the JSON it "
    "passes accelerate a DummyOptim (DeepSpeed builds the optimizer), without one it creates its own torch "
    "optimizer from TrainingArguments.optim and allows it (zero_allow_untested_optimizer).",
    doc="training-loop",
    code="transformers/integrations/deepspeed.py:559-611",
    demo=T + "test_the_trainer_picks_the_deepspeed_optimizer_from_the_json",
    scope=("optimizer-block", "no-optimizer-block"))
TRAINER_BF16_GPU = claim(
    "trainer-bf16-needs-a-bf16-gpu",
    "TrainingArguments(bf16=True) raises unless a GPU with bf16 (or an XLA device) is present or use_cpu is set, and "
    "use_cpu makes the Trainer's PartialState a plain CPU one: no DeepSpeed or FSDP. A CPU rehearsal through the "
    "Trainer therefore runs a bf16 config in fp32; fp16=True is accepted on a CPU.",
    doc="training-loop",
    code="transformers/training_args.py:1776-1780, 1876-1879",
    demo=T + "test_the_trainer_refuses_bf16_without_a_bf16_gpu",
    scope=("bf16-refused", "use-cpu-no-distribution", "fp16-accepted"))
