"""The explanations of the group ``loading``: its settings (``TEXTS``) and its overview (``GROUP``)."""
from __future__ import annotations

from .model import GroupText, Text

TEXTS: dict[str, Text] = {
    "loading.ram_efficient": Text(
        what="Stops every rank from holding the full model in host RAM while loading. Eight ranks loading a "
             "70B bf16 model each need about 140 GB, over 1 TB per node; loading once or partitioning as "
             "tensors are created needs about one copy or less. Works with Transformers' from_pretrained only.",
        fsdp="fsdp_cpu_ram_efficient_loading: the weights are broadcast from rank 0 while sharding; FSDP1 through "
             "sync_module_states (must stay true), FSDP2 through accelerate's own broadcast. Transformers 5 still "
             "reads the checkpoint on every rank (memory-mapped); the flag only leaves weights missing from it "
             "on meta off local rank 0, and only once the process group exists: create the Accelerator before "
             "from_pretrained.",
        deepspeed="zero3_init_flag (on by default at ZeRO-3): Transformers' from_pretrained builds the model "
                  "inside deepspeed.zero.Init, so each parameter is partitioned as soon as it exists. false does "
                  "not stop that: from_pretrained follows the DeepSpeed config alone, and the flag only switches "
                  "accelerate's GatheredParameters helper. For false at ZeRO-3 the wizard writes true. Below "
                  "ZeRO-3 accelerate turns it off (warning if set) and every rank loads everything.",
        versions="accelerate launch raises when ram-efficient loading is on and fsdp_sync_module_states is "
                 "false, even for FSDP2. Its launch default is true. torchao fp8 with FSDP refuses it. "
                 "zero.Init needs Transformers, and the DeepSpeed config must be known before from_pretrained "
                 "runs (Accelerator, TrainingArguments or HfDeepSpeedConfig created first): a model loaded earlier, "
                 "or built without Transformers, is created whole on every rank. Under zero.Init the parameters "
                 "take DeepSpeed's dtype, not torch_dtype.",
        claims=("fsdp1-sync-module-states-broadcasts", "fsdp2-no-broadcast-unless-ram-efficient",
                "transformers-fsdp-loading-every-rank-reads", "transformers-fsdp-loading-needs-process-group",
                "fsdp-launch-ram-efficient-needs-sync", "fsdp-launch-exports-defaults",
                "fsdp-torchao-fp8-no-ram-efficient", "ds-zero3-init-flag-does-not-stop-zero-init",
                "ds-zero3-init-flag-off-below-zero3", "ds-zero3-init-needs-config-before-load"),
    ),
}

GROUP = GroupText(
        summary="Avoiding one full copy of the weights per rank in host RAM at start-up. FSDP broadcasts rank "
                "0's weights while sharding (every rank still memory-maps the checkpoint); DeepSpeed ZeRO-3 "
                "partitions each tensor as it is created. Both depend on Transformers' from_pretrained.",
        fsdp="fsdp_cpu_ram_efficient_loading\n(accelerate launch needs fsdp_sync_module_states: true, v2 too)",
        deepspeed="zero3_init_flag (ZeRO-3 only)",
        no_counterpart="DeepSpeed stages 0-2 have no memory-efficient loading: every rank loads the full model.",
        claims=("fsdp1-sync-module-states-broadcasts", "fsdp2-no-broadcast-unless-ram-efficient",
                "transformers-fsdp-loading-every-rank-reads", "fsdp-launch-ram-efficient-needs-sync",
                "ds-zero3-init-flag-does-not-stop-zero-init", "ds-zero3-init-flag-off-below-zero3",
                "ds-zero3-init-needs-config-before-load"),
    )
