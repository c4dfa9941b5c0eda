"""The explanations of the group ``training``: its settings (``TEXTS``) and its overview (``GROUP``)."""
from __future__ import annotations

from .model import GroupText, Text

TEXTS: dict[str, Text] = {
    "training.gradient_accumulation_steps": Text(
        what="Micro-batches whose gradients are summed before each optimizer step; effective batch = micro "
             "batch x steps x data-parallel ranks. Raises the effective batch without more activation memory; "
             "time per optimizer step grows accordingly.",
        fsdp="Own loop: Accelerator(gradient_accumulation_steps=N) and `with accelerator.accumulate(model):`; "
             "Trainer: TrainingArguments(gradient_accumulation_steps=N). Between optimizer steps both FSDP "
             "versions skip the reduce-scatter and keep unsharded gradients; sync_each_batch=True "
             "(GradientAccumulationPlugin, or the Trainer's accelerator_config) reduces every micro-batch to save "
             "that memory, at some speed cost.",
        deepspeed="gradient_accumulation_steps in the config. Own loop: the value wins over the Accelerator "
                  "argument (only a warning), a JSON without the key counts as 1, 'auto' takes the script's N; "
                  "the engine steps only where accelerator.accumulate() says, so a loop without it steps every "
                  "micro-batch. Trainer: a fixed value must equal TrainingArguments' (else a ValueError); use "
                  "'auto'. It enters train_batch_size = micro batch x steps x world size.",
        versions="Inline in the accelerate YAML it must be an integer: 'auto' is exported as text and "
                 "Accelerator fails converting it. 'auto' works only inside a DeepSpeed JSON.",
        claims=("ds-json-without-gradient-accumulation-is-1", "ds-inline-gradient-accumulation-auto-fails",
                "fsdp-accumulate-keeps-unsharded-grads", "trainer-counts-accumulation-and-clips",
                "ds-accumulate-drives-the-engine-step", "trainer-ds-values-must-match-arguments"),
    ),
    "training.gradient_clipping": Text(
        what="Rescales all gradients when their global norm exceeds this value; 0 switches it off. 1.0 is a "
             "common setting for transformers. Guards against loss spikes for one extra norm reduction per step.",
        fsdp="Own loop: accelerator.clip_grad_norm_(model.parameters(), max_norm) before optimizer.step(); "
             "the Trainer calls it with max_grad_norm. The norm covers all shards (FSDP1 in its wrapper, FSDP2 "
             "through DTensor) when given exactly the model's parameters. Nothing in the YAML; clip_grad_value_ "
             "raises.",
        deepspeed="gradient_clipping in the config; the engine clips inside its step. Under DeepSpeed "
                  "accelerator.clip_grad_norm_ ignores its max_norm and only returns the norm, so the config "
                  "value is the one that counts. Trainer: a fixed value must equal max_grad_norm (else a "
                  "ValueError); 'auto' takes it.",
        versions="Leaving the key out does not mean off: inline, accelerate treats it as 'auto' and fills 1.0 "
                 "(Trainer: max_grad_norm); a JSON without it gets DeepSpeed's default, 1.0. 0.0 inline does not "
                 "help either: accelerate drops a zero. Only 0.0 inside a DeepSpeed JSON turns clipping off, so "
                 "the wizard writes a JSON for it; under the Trainer also set max_grad_norm=0.",
        claims=("fsdp-clip-grad-norm-over-shards", "trainer-counts-accumulation-and-clips",
                "ds-clip-grad-norm-only-reports", "ds-gradient-clipping-on-unless-json-zero",
                "trainer-ds-values-must-match-arguments"),
    ),
    "training.micro_batch_size": Text(
        what="Samples per GPU in one forward/backward. Activation memory grows about linearly with it; bigger "
             "batches use the GPU better until memory runs out.",
        fsdp="Only the DataLoader's batch_size in your script (Trainer: per_device_train_batch_size); FSDP "
             "neither knows nor checks it.",
        deepspeed="train_micro_batch_size_per_gpu. Own loop: 'auto' makes accelerate read the prepared "
                  "DataLoader's batch_size; Trainer: per_device_train_batch_size, and a fixed value must equal "
                  "it. DeepSpeed then checks train_batch_size = micro x accumulation x world size. An integer "
                  "needs the DeepSpeed JSON: inline mode always writes 'auto'.",
        versions="'auto' fails when prepare() gets no DataLoader with an integer batch_size (custom batch "
                 "samplers); write a number then. accelerate never overwrites non-'auto' values, so a fixed "
                 "train_batch_size next to 'auto' pieces can break the check.",
        claims=("fsdp-knows-no-batch-size", "ds-micro-batch-auto-from-dataloader",
                "trainer-ds-values-must-match-arguments", "ds-batch-size-uses-world-size"),
    ),
    "training.activation_checkpointing": Text(
        what="Re-runs each block's forward during backward instead of keeping its activations. Stored "
             "activations per layer drop from roughly 34-53 x seq x batch x hidden bytes (bf16) to about 2 x "
             "seq x batch x hidden, for roughly a third more compute.",
        fsdp="fsdp_activation_checkpointing. FSDP1 checkpoints the auto-wrap units (non-reentrant) after "
             "sharding; FSDP2 the modules its wrap policy selects, before sharding and torch.compile, without "
             "saving the RNG state, so dropout masks differ on recompute. FSDP2 needs a wrap policy for it. Use "
             "this or the model's gradient_checkpointing_enable(), not both.",
        deepspeed="No accelerate switch: call model.gradient_checkpointing_enable() (Transformers) or use "
                  "torch.utils.checkpoint in the model. DeepSpeed's activation_checkpointing JSON section only "
                  "affects models written against deepspeed.checkpointing.",
        tips="On for long sequences or large micro-batches.",
        claims=("fsdp-ac-placement", "fsdp2-ac-no-rng-state", "fsdp2-ac-needs-wrap-policy"),
    ),
    "training.activation_checkpointing_offload": Text(
        what="FSDP2 only. Moves the tensors kept at each checkpoint boundary (the block inputs, about 2 x seq x "
             "batch x hidden bytes per layer) to pinned host memory during forward and back for backward. "
             "Helps at very long sequences, where even checkpointed inputs fill the GPU; costs PCIe traffic.",
        fsdp="fsdp_activation_checkpointing_offload; requires fsdp_activation_checkpointing: true and "
             "fsdp_version: 2 (the plugin raises otherwise).",
        deepspeed="No accelerate switch. DeepSpeed's activation_checkpointing.cpu_checkpointing does the same "
                  "only for models that use DeepSpeed's checkpointing API.",
        versions="New in accelerate 1.15; not available for FSDP1.",
        claims=("fsdp2-ac-offload-wrapper", "ds-activation-checkpointing-section-api-only"),
    ),
}

GROUP = GroupText(
        summary="Loop-level settings. DeepSpeed takes accumulation, clipping and the micro-batch size from its "
                "config (the Trainer requires them to match its arguments); FSDP leaves them to your script or "
                "the Trainer. Activation checkpointing is an FSDP config key but a model call with DeepSpeed.",
        fsdp="Accelerator(gradient_accumulation_steps=...)\naccelerator.clip_grad_norm_(...)\n"
             "DataLoader(batch_size=...) (or TrainingArguments)\nfsdp_activation_checkpointing\n"
             "fsdp_activation_checkpointing_offload (v2)",
        deepspeed="gradient_accumulation_steps, gradient_clipping\n"
                  "train_micro_batch_size_per_gpu, train_batch_size\nmodel.gradient_checkpointing_enable()",
        no_counterpart="Activation-checkpoint offload exists only in FSDP2. DeepSpeed's batch-size check has no "
                       "FSDP counterpart. Under DeepSpeed the max_norm in your script is ignored.",
        claims=("launch-accumulation-and-clipping-deepspeed-only", "trainer-ds-values-must-match-arguments",
                "fsdp-knows-no-batch-size", "fsdp2-ac-offload-wrapper", "ds-activation-checkpointing-section-api-only",
                "ds-clip-grad-norm-only-reports", "ds-batch-size-uses-world-size", "fsdp-ac-placement"),
    )
