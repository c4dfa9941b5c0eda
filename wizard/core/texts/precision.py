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
                 "dtype's block with enabled false it is ignored and the run is fp32. fp8: which library runs it, "
                 "its options and its limits are the fp8 settings below (precision.fp8_backend).",
        tips="bf16.",
        claims=("fsdp-policy-from-mixed-precision", "fsdp1-upcast-per-unit", "fsdp2-upcast-per-parameter",
                "fsdp1-autocast-fsdp2-none", "fsdp-fp16-grad-scaler",
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
    "precision.fp8_backend": Text(
        what="Which library runs fp8 when mixed_precision is fp8. ao (torchao): swaps linear layers for float8 "
             "ones. te (Transformer Engine): NVIDIA's fp8 layers with delayed scaling, "
             "tuned by the options marked TE. msamp (MS-AMP): fp8 also for weights, gradients and optimizer "
             "state. auto writes no backend: accelerate takes the first of torchao, Transformer Engine, MS-AMP "
             "that is installed where you launch. The options below it belong to one backend each (its name in "
             "brackets); only the chosen backend's are written, under fp8_config, and its recipe reads them "
             "when the processes start.",
        fsdp="fp8_config.backend. ao or te: MS-AMP is refused with FSDP. torchao on FSDP also refuses loading the "
             "weights on one rank only (see loading.ram_efficient).",
        deepspeed="fp8_config.backend, as for FSDP. MS-AMP runs with ZeRO-0, 1 and 2 only, not ZeRO-3. fp8 "
                  "leaves everything but the matrix multiplies of supported layers in bf16 on both backends.",
        versions="Written only with mixed_precision fp8: the launcher exports fp8_config in no other case. "
                 "accelerate config itself saves three of these options as amax_history_length, "
                 "amax_compute_algorithm and optimization_level, names no recipe reads (such a file runs the "
                 "recipe's defaults); the wizard writes amax_history_len, amax_compute_algo and opt_level.",
        tips="ao on FSDP2 (with loading.ram_efficient off); te where Transformer Engine is installed.",
        claims=("fp8-recipe-reads-launch-env", "launch-fp8-config", "fp8-backend-limits", "fp8-config-names-unread",
                "fp8-auto-detect-order"),
    ),
    "precision.fp8_format": Text(
        what="The fp8 formats Transformer Engine uses. HYBRID: E4M3 (more precision) forward and E5M2 (more "
             "range) for gradients, the usual choice for training. E4M3 or E5M2: one format everywhere.",
        fsdp="fp8_config.fp8_format, read by the Transformer Engine recipe.",
        deepspeed="The same key; the recipe does not depend on the distributed backend.",
        versions="Only with fp8 backend te; the other recipes never read it.",
        claims=("fp8-te-format",),
    ),
    "precision.fp8_margin": Text(
        what="Transformer Engine's scaling margin: the fp8 scale is lowered by 2^margin below what the recent "
             "maximum allows, trading precision for headroom against overflow. 0 is the default.",
        fsdp="fp8_config.margin, read by the Transformer Engine recipe.",
        deepspeed="The same key; the recipe does not depend on the distributed backend.",
        versions="Only with fp8 backend te.",
        claims=("fp8-te-margin",),
    ),
    "precision.fp8_interval": Text(
        what="How many steps Transformer Engine waits between recomputing the fp8 scaling factors. 1 (the "
             "default) recomputes every step.",
        fsdp="fp8_config.interval, read by the Transformer Engine recipe.",
        deepspeed="The same key; the recipe does not depend on the distributed backend.",
        versions="Only with fp8 backend te.",
        claims=("fp8-te-interval",),
    ),
    "precision.fp8_amax_history_len": Text(
        what="How many past steps of absolute maxima (amax) Transformer Engine keeps to choose each fp8 scale. "
             "Longer is steadier but reacts later to growing values. Default 1024.",
        fsdp="fp8_config.amax_history_len, read by the Transformer Engine recipe.",
        deepspeed="The same key; the recipe does not depend on the distributed backend.",
        versions="Only with fp8 backend te. Not amax_history_length (see precision.fp8_backend).",
        claims=("fp8-te-amax-history",),
    ),
    "precision.fp8_amax_compute_algo": Text(
        what="How Transformer Engine turns the amax history into a scale: most_recent (the recipe's default) "
             "uses the last step, max the largest value in the history.",
        fsdp="fp8_config.amax_compute_algo, read by the Transformer Engine recipe.",
        deepspeed="The same key; the recipe does not depend on the distributed backend.",
        versions="Only with fp8 backend te. Not amax_compute_algorithm (see precision.fp8_backend).",
        claims=("fp8-te-amax-algo",),
    ),
    **{f"precision.fp8_override_{gemm}": Text(
        what=f"Run the {part} matrix multiply of each fp8 layer in higher precision instead of fp8 (Transformer "
             "Engine). Costs speed, can help a run that diverges in fp8. Off by default.",
        fsdp="One item of fp8_config.override_linear_precision, the list of three flags (fprop, dgrad, wgrad) "
             "the Transformer Engine recipe reads.",
        deepspeed="The same key; the recipe does not depend on the distributed backend.",
        versions="Only with fp8 backend te.",
        claims=(f"fp8-te-override-{gemm}",),
    ) for gemm, part in (("fprop", "forward"), ("dgrad", "input-gradient"), ("wgrad", "weight-gradient"))},
    "precision.fp8_use_autocast_during_eval": Text(
        what="Keep Transformer Engine's fp8 autocast on in eval mode too. Off (the default) evaluates in the "
             "higher precision, which usually gives better metrics.",
        fsdp="fp8_config.use_autocast_during_eval, read by the Transformer Engine recipe.",
        deepspeed="The same key; the recipe does not depend on the distributed backend.",
        versions="Only with fp8 backend te.",
        claims=("fp8-te-eval-autocast",),
    ),
    "precision.fp8_opt_level": Text(
        what="How much MS-AMP keeps in 8 bits. O1: fp8 matrix multiplies, weights and gradients (and their "
             "communication). O2 (the recipe's default): in addition the optimizer state goes to low precision.",
        fsdp="No place: MS-AMP does not run with FSDP (see precision.fp8_backend).",
        deepspeed="fp8_config.opt_level, read by the MS-AMP recipe.",
        versions="Only with fp8 backend msamp. Not optimization_level (see precision.fp8_backend).",
        claims=("fp8-msamp-opt-level",),
    ),
    "precision.fp8_enable_fsdp_float8_all_gather": Text(
        what="torchao: gather the FSDP2 shards already cast to fp8, half the traffic of bf16 shards. On when "
             "not written.",
        fsdp="fp8_config.enable_fsdp_float8_all_gather, read by the torchao recipe. It concerns FSDP2's "
             "all-gather.",
        deepspeed="The same key is read, but DeepSpeed gathers its own partitions: nothing FSDP2-specific runs.",
        versions="Only with fp8 backend ao.",
        claims=("fp8-ao-float8-all-gather",),
    ),
    "precision.fp8_pad_inner_dim": Text(
        what="torchao: pad matrix dimensions to a multiple of 16 before the fp8 multiply, which the fp8 kernels "
             "need. On when not written; padding can raise memory use.",
        fsdp="fp8_config.pad_inner_dim, read by the torchao recipe.",
        deepspeed="The same key; the recipe does not depend on the distributed backend.",
        versions="Only with fp8 backend ao.",
        claims=("fp8-ao-pad-inner-dim",),
    ),
}

GROUP = GroupText(
        summary="Both run the matrix multiplies in the mixed-precision dtype and, with mixed precision on, keep "
                "fp32 master weights and optimizer state. They part ways when mixed precision is off: FSDP then "
                "trains and keeps Adam state in the load dtype, while DeepSpeed ZeRO-1/2/3 still build fp32 master "
                "copies unless its bf16 master-weights option is on.",
        fsdp="mixed_precision (top level) -> MixedPrecision (v1) / MixedPrecisionPolicy (v2)\n"
             "reduce dtype = mixed_precision\ntorch_dtype in your script\n"
             "fp8_config: backend ao / te and that recipe's options",
        deepspeed="mixed_precision (inline) or bf16.enabled / fp16.enabled (JSON)\ncommunication_data_type\n"
                  "torch_dtype in your script\nfp8_config: backend ao / te / msamp and that recipe's options",
        no_counterpart="FSDP's low-memory mode (16-bit weights, no mixed precision, 16-bit Adam: 8 bytes per "
                       "parameter) comes closest on ZeRO with the bf16 master-weights option (10 bytes: it "
                       "keeps a bf16 master copy). A separate gradient-reduction dtype is a config key only on "
                       "DeepSpeed. MS-AMP fp8 is DeepSpeed-only (stages 0-2).",
        claims=("fsdp-no-mixed-precision-keeps-load-dtype", "fsdp-policy-from-mixed-precision",
                "ds-module-cast-fp32-master", "ds-bf16-master-weights-option", "ds-communication-dtype-default",
                "ds-mixed-precision-to-json", "fp8-backend-limits"),
    )
