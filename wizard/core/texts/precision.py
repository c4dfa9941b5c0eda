"""The explanations of the group ``precision``: its settings (``TEXTS``) and its overview (``GROUP``)."""
from __future__ import annotations

from .model import GroupText, Text

TEXTS: dict[str, Text] = {
    "precision.mixed_precision": Text(
        what="dtype of the matrix multiplies in forward and backward. bf16: the default on Ampere and newer. "
             "fp16: needs loss scaling; for older GPUs. fp8: Ada/Hopper or newer plus Transformer Engine, "
             "torchao or MS-AMP. no: everything runs in the load dtype. With mixed precision both backends "
             "keep fp32 master weights and optimizer state for the trainable parameters by default.",
        fsdp="Top-level mixed_precision. accelerate builds MixedPrecision for v1 (parameters, gradient reduction "
             "and buffers in that dtype) or MixedPrecisionPolicy for v2 (parameters, reduction and outputs; "
             "buffers untouched). FSDP1: accelerate upcasts every unit that holds a trainable parameter to fp32 "
             "and wraps forward in autocast. FSDP2: it upcasts only the trainable parameters and adds no "
             "autocast; the policy alone casts. fp16 gets a gradient scaler; fp8 uses bf16 as FSDP's "
             "parameter dtype.",
        deepspeed="Inline: top-level mixed_precision, turned into bf16.enabled / fp16.enabled. With a "
                  "DeepSpeed JSON the bf16/fp16 sections carry it instead. The engine casts the model's "
                  "parameters to bf16/fp16 (buffers stay) and keeps fp32 masters in the ZeRO optimizer unless "
                  "the DeepSpeed bf16 master-weights option is on; fp16 uses dynamic loss scaling.",
        versions="With deepspeed_config_file, mixed_precision in the YAML (even 'no') raises. A --mixed_precision "
                 "at launch raises only against the other 16-bit dtype enabled in the JSON; against the same "
                 "dtype's block with enabled false it is ignored and the run is fp32. MS-AMP fp8 works with "
                 "DeepSpeed stages 0-2 only and not with FSDP. torchao fp8 on FSDP also limits model loading (see "
                 "loading.ram_efficient).",
        tips="bf16.",
        claims=("fsdp-policy-from-mixed-precision", "fsdp1-upcast-per-unit", "fsdp2-upcast-per-parameter",
                "fsdp1-autocast-fsdp2-none", "fsdp-fp16-grad-scaler", "fp8-backend-limits",
                "fsdp-no-mixed-precision-keeps-load-dtype", "ds-mixed-precision-to-json",
                "ds-module-cast-fp32-master", "ds-bf16-master-weights-option",
                "ds-file-refuses-yaml-mixed-precision", "ds-json-overrides-launch-mixed-precision"),
    ),
    "precision.model_dtype": Text(
        what="The torch_dtype your script passes to from_pretrained. Without mixed precision it is the dtype "
             "FSDP stores, trains and optimises in: bf16 halves parameter, gradient and Adam memory (8 instead "
             "of 16 bytes per parameter) but small updates get rounded away. With mixed precision on, both "
             "backends train fp32 master copies of the trainable weights whatever you load; frozen weights "
             "differ (see each side).",
        fsdp="Not in any config. No mixed precision: FSDP keeps everything in this dtype. Mixed precision: at "
             "prepare() FSDP1 upcasts each unit that holds a trainable parameter to fp32, frozen weights in it "
             "included ('Upcasted low precision parameters' warning); FSDP2 upcasts only trainable parameters, "
             "so frozen ones keep this dtype.",
        deepspeed="Not in any config. ZeRO-1/2/3 build fp32 master partitions and fp32 Adam state from the "
                  "loaded weights by default, so a bf16 load does not shrink optimizer state; the DeepSpeed "
                  "bf16 master-weights option keeps them in bf16. Under zero.Init (ZeRO-3) the parameters take "
                  "DeepSpeed's dtype instead of this one.",
        versions="fp16 without mixed precision trains without any loss scaling; avoid it.",
        claims=("fsdp-no-mixed-precision-keeps-load-dtype", "fsdp1-upcast-per-unit", "fsdp2-upcast-per-parameter",
                "ds-module-cast-fp32-master", "ds-bf16-master-weights-option", "ds-zero-init-dtype"),
    ),
    "precision.ds_communication_data_type": Text(
        what="dtype DeepSpeed uses to sum gradients across ranks. By default it follows the training dtype "
             "(bf16 or fp16, otherwise fp32). fp32 doubles gradient traffic but avoids rounding in the sum, "
             "which helps with many ranks or when bf16 runs diverge.",
        fsdp="No YAML key: accelerate sets FSDP's reduce dtype equal to mixed_precision. Another reduce dtype "
             "needs a MixedPrecision / MixedPrecisionPolicy passed to FullyShardedDataParallelPlugin in code.",
        deepspeed="communication_data_type at the top of the DeepSpeed JSON: fp16, bf16 or fp32.",
        versions="On ROCm with bf16 accelerate sets fp32 itself when the key is absent.",
        claims=("ds-communication-dtype-default", "fsdp-policy-from-mixed-precision", "ds-rocm-bf16-comm-fp32"),
    ),
    "precision.ds_bf16_master_weights": Text(
        what="The dtype of the copy DeepSpeed's ZeRO optimizer updates. fp32 (DeepSpeed's default): fp32 master "
             "weights and Adam moments, about 16 bytes per parameter with bf16 weights. bf16: master weights and "
             "gradients in bf16, moments still fp32; only starts with the optimizer offloaded. bf16_with_states: "
             "the moments in bf16 too, no offload needed: about 10 bytes (2 weights, 2 gradients, 2 master, 4 "
             "moments). FSDP in bf16 needs 8: it has no separate master copy. Small updates get rounded away.",
        fsdp="No such key: FSDP updates the parameters in their own dtype. The twin of bf16_with_states is loading "
             "the model in bf16 with mixed_precision no: accelerate then sets no FSDP policy, and weights, "
             "gradients and Adam moments all stay bf16.",
        deepspeed="bf16.bf16_master_weights_and_grads (and bf16.bf16_optimizer_states for bf16_with_states) in "
                  "the DeepSpeed JSON. ZeRO-1/2/3 only: DeepSpeed refuses them at ZeRO-0, and the states flag "
                  "without the master flag.",
        versions="Read even with bf16 off: fp32 weights then get a bf16 master copy. bf16 needs "
                 "DeepSpeedCPUAdam (accelerate swaps the script's torch optimizer for it when offloading). "
                 "bf16_with_states with offload needs CPU Adam with bf16 moments, which only an optimizer block "
                 "in the JSON gives: accelerate's swap keeps fp32 moments and DeepSpeed refuses it.",
        tips="bf16_with_states when fp32 Adam state does not fit; otherwise keep fp32.",
        claims=("master-weights-bf16-dtypes", "master-weights-fsdp-load-dtype", "master-weights-zero-stages",
                "master-weights-fp32-states-need-offload", "master-weights-read-without-bf16",
                "master-weights-offloaded-states-need-bf16-cpu-adam"),
    ),
}

GROUP = GroupText(
        summary="Both run the matrix multiplies in the mixed-precision dtype and, with mixed precision on, keep "
                "fp32 master weights and optimizer state. They part ways when mixed precision is off: FSDP then "
                "trains and keeps Adam state in the load dtype, while DeepSpeed ZeRO-1/2/3 still build fp32 master "
                "copies unless its bf16 master-weights option is on.",
        fsdp="mixed_precision (top level) -> MixedPrecision (v1) / MixedPrecisionPolicy (v2)\n"
             "reduce dtype = mixed_precision\ntorch_dtype in your script",
        deepspeed="mixed_precision (inline) or bf16.enabled / fp16.enabled (JSON)\ncommunication_data_type\n"
                  "torch_dtype in your script",
        no_counterpart="FSDP's low-memory mode (16-bit weights, no mixed precision, 16-bit Adam: 8 bytes per "
                       "parameter) comes closest on ZeRO with the bf16 master-weights option (10 bytes: it "
                       "keeps a bf16 master copy). A separate gradient-reduction dtype is a config key only on "
                       "DeepSpeed. MS-AMP fp8 is DeepSpeed-only (stages 0-2).",
        claims=("fsdp-no-mixed-precision-keeps-load-dtype", "fsdp-policy-from-mixed-precision",
                "ds-module-cast-fp32-master", "ds-bf16-master-weights-option", "ds-communication-dtype-default",
                "ds-mixed-precision-to-json", "fp8-backend-limits"),
    )
