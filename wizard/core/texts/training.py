"""The explanations of the group ``training``: its settings (``TEXTS``) and its overview (``GROUP``)."""
from __future__ import annotations

from .model import GroupText, Text

TEXTS: dict[str, Text] = {
    "training.gradient_accumulation_steps": Text(
        what="Micro-batches whose gradients are summed before each optimizer step; effective batch = micro "
             "batch x steps x data-parallel ranks. Raises the effective batch without more activation memory; "
             "time per optimizer step grows accordingly.",
        fsdp="In the script: Accelerator(gradient_accumulation_steps=N) and `with accelerator.accumulate(model):`. "
             "Between optimizer steps both FSDP versions skip the reduce-scatter and keep unsharded gradients; "
             "GradientAccumulationPlugin(sync_each_batch=True) reduces every micro-batch to save that memory, "
             "at some speed cost.",
        deepspeed="gradient_accumulation_steps in the config; the engine counts micro-batches itself. The value "
                  "wins over the Accelerator argument (accelerate only warns on a mismatch), and a DeepSpeed JSON "
                  "without the key counts as 1, so Accelerator(gradient_accumulation_steps=N) becomes 1; 'auto' "
                  "takes the script's N. It enters the check train_batch_size = micro batch x steps x world size.",
        versions="Inline in the accelerate YAML it must be an integer: 'auto' is exported as text and "
                 "Accelerator fails converting it. 'auto' works only inside a DeepSpeed JSON.",
        claims=("ds-json-without-gradient-accumulation-is-1", "ds-inline-gradient-accumulation-auto-fails"),
    ),
    "training.gradient_clipping": Text(
        what="Rescales all gradients when their global norm exceeds this value; 0 switches it off. 1.0 is a "
             "common setting for transformers. Guards against loss spikes for one extra norm reduction per step.",
        fsdp="In the script: accelerator.clip_grad_norm_(model.parameters(), max_norm) before optimizer.step(). "
             "FSDP1 computes the norm over shards in its wrapper, FSDP2 through DTensor. Nothing in the YAML; "
             "clip_grad_value_ is not supported.",
        deepspeed="gradient_clipping in the config; the engine clips inside step(). Under DeepSpeed "
                  "accelerator.clip_grad_norm_ ignores its max_norm and only returns the norm, so the config "
                  "value is the one that counts.",
        versions="Leaving the key out does not mean off: accelerate treats it as 'auto' and fills 1.0 (Trainer "
                 "fills its max_grad_norm). Writing 0.0 inline does not help either: accelerate drops a zero and "
                 "DeepSpeed 0.19's own default is 1.0. Only 0.0 inside a DeepSpeed JSON turns clipping off, so "
                 "the wizard writes a JSON for it. The guide's 'auto' advice means 1.0 outside Trainer.",
    ),
    "training.micro_batch_size": Text(
        what="Samples per GPU in one forward/backward. Activation memory grows about linearly with it; bigger "
             "batches use the GPU better until memory runs out.",
        fsdp="Only the DataLoader's batch_size in your script; FSDP neither knows nor checks it.",
        deepspeed="train_micro_batch_size_per_gpu. 'auto' makes accelerate read the prepared DataLoader's "
                  "batch_size; DeepSpeed then checks train_batch_size = micro x accumulation x world size. An "
                  "integer needs the DeepSpeed JSON: inline mode always writes 'auto'.",
        versions="'auto' fails when prepare() gets no DataLoader with an integer batch_size (custom batch "
                 "samplers); write a number then. accelerate never overwrites non-'auto' values, so a fixed "
                 "train_batch_size next to 'auto' pieces can break the check.",
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
             "batch x hidden bytes per layer) to host memory during forward and brings them back for backward. "
             "Helps at very long sequences, where even checkpointed inputs fill the GPU; costs PCIe traffic.",
        fsdp="fsdp_activation_checkpointing_offload; requires fsdp_activation_checkpointing: true and "
             "fsdp_version: 2 (the plugin raises otherwise).",
        deepspeed="No accelerate switch. DeepSpeed's activation_checkpointing.cpu_checkpointing does the same "
                  "only for models that use DeepSpeed's checkpointing API.",
        versions="New in accelerate 1.15; not available for FSDP1.",
    ),
}

GROUP = GroupText(
        summary="Loop-level settings. The DeepSpeed engine owns accumulation, clipping and the micro-batch "
                "size through its config; FSDP leaves them to your script. Activation checkpointing is an "
                "FSDP config key but a model call with DeepSpeed.",
        fsdp="Accelerator(gradient_accumulation_steps=...)\naccelerator.clip_grad_norm_(...)\n"
             "DataLoader(batch_size=...)\nfsdp_activation_checkpointing\n"
             "fsdp_activation_checkpointing_offload (v2)",
        deepspeed="gradient_accumulation_steps, gradient_clipping\n"
                  "train_micro_batch_size_per_gpu, train_batch_size\nmodel.gradient_checkpointing_enable()",
        no_counterpart="Activation-checkpoint offload exists only in FSDP2. DeepSpeed's batch-size check has no "
                       "FSDP counterpart. Under DeepSpeed the max_norm in your script is ignored.",
    )
