"""The explanations of the group ``summoning``: its settings (``TEXTS``) and its overview (``GROUP``)."""
from __future__ import annotations

from .model import GroupText, Text

TEXTS: dict[str, Text] = {
    "summoning.use_orig_params": Text(
        what="FSDP1 only. When true, the optimizer and torch.compile see the model's real parameters (views "
             "into FSDP1's flat buffers) instead of one opaque flat tensor per unit. Needed for torch.compile, "
             "for frozen and trainable parameters in one unit (LoRA/PEFT), and for per-parameter optimizer "
             "groups such as no weight decay on norms.",
        fsdp="FSDP1: fsdp_use_orig_params; accelerate launch defaults it to true. FSDP2 always works on the "
             "real parameters (DTensors); the key does not exist there.",
        deepspeed="Nothing to set: the engine leaves the module's parameters in place and swaps in its flat "
                  "partitions internally.",
        versions="With false, Dynamo will not compile FSDP1 modules (eager fall-back, or an error under "
                 "fullgraph), and PEFT fails with 'Must flatten tensors with uniform requires_grad'. The "
                 "guide ties it to torch.compile only; it matters for LoRA as well.",
        tips="true, or move to FSDP2.",
        claims=("fsdp1-use-orig-params", "fsdp1-dynamo-needs-orig-params", "fsdp-launch-use-orig-params-true",
                "fsdp2-ignores-sync-module-states", "fsdp1-flat-gradients", "ds-zero3-gathers-per-module"),
    ),
}

GROUP = GroupText(
        summary="Whether the optimizer and torch.compile see the model's own parameters. Only FSDP1 hides them "
                "behind flat tensors unless told otherwise; FSDP2 and DeepSpeed always expose them.",
        fsdp="v1: fsdp_use_orig_params (launch default true)\nv2: always on, no key",
        deepspeed="nothing to set",
        no_counterpart="The key exists only on FSDP1; nothing to carry over.",
        claims=("fsdp1-use-orig-params", "fsdp1-dynamo-needs-orig-params", "fsdp-launch-use-orig-params-true",
                "fsdp2-ignores-sync-module-states", "ds-zero3-gathers-per-module"),
    )
