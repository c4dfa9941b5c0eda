"""Claims about precision (see :mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

T = "tests/claims/test_precision.py::"

FSDP_AUTOCAST = claim(
    "fsdp1-autocast-fsdp2-none",
    "With mixed precision, accelerate wraps an FSDP1 model's forward in autocast (prepare_model) and returns fp32 "
    "outputs; the FSDP2 path never calls prepare_model, so FSDP2 adds no autocast and casts only through its "
    "MixedPrecisionPolicy.",
    doc="mixed-precision",
    code="accelerate/accelerator.py:1554, 1674-1760, 1824-1835",
    demo=T + "test_fsdp1_adds_autocast_fsdp2_does_not",
    scope=("fsdp1", "fsdp2"))
FSDP1_UPCAST = claim(
    "fsdp1-upcast-per-unit",
    "With mixed precision, accelerate upcasts an FSDP1 unit's whole FlatParameter to fp32 when any parameter in it "
    "is trainable, so frozen weights sharing a unit with trainable ones (LoRA-like) become fp32 too; it warns "
    "'Upcasted low precision parameters'.",
    doc="mixed-precision",
    code="accelerate/accelerator.py:1998-2045; torch/distributed/fsdp/_flat_param.py:804-833",
    demo=T + "test_fsdp1_upcasts_the_whole_unit",
    scope=("mixed-unit", "warning"))
FSDP2_UPCAST = claim(
    "fsdp2-upcast-per-parameter",
    "With mixed precision, accelerate upcasts only the trainable low-precision parameters to fp32 for FSDP2, one "
    "by one (logged at info level, no warning); frozen parameters keep the load dtype.",
    doc="mixed-precision",
    code="accelerate/utils/fsdp_utils.py:813-825",
    demo=T + "test_fsdp2_upcasts_trainable_parameters_only",
    scope=("trainable", "frozen", "no-warning"))
FSDP_POLICY = claim(
    "fsdp-policy-from-mixed-precision",
    "accelerate builds FSDP's policy from mixed_precision: MixedPrecision for FSDP1 (parameter, reduce and buffer "
    "dtype) or MixedPrecisionPolicy for FSDP2 (parameter, reduce and output dtype; buffers untouched), all in that "
    "dtype, fp8 mapped to bf16; another reduce dtype needs a policy passed to the plugin in code.",
    doc="mixed-precision",
    code="accelerate/utils/dataclasses.py:2109-2150; accelerate/state.py:1013-1015",
    demo=T + "test_fsdp_policy_follows_mixed_precision",
    scope=("fsdp1-bf16", "fsdp1-fp16", "fsdp2-bf16", "fsdp2-fp16", "fp8-as-bf16",
           "policy-in-code"))
FSDP_NO_MP = claim(
    "fsdp-no-mixed-precision-keeps-load-dtype",
    "Without mixed precision FSDP gets no policy and no upcast: parameters, gradients and AdamW state stay in the "
    "load dtype, 8 bytes per parameter for bf16 (2 weight, 2 gradient, 4 for the two moments), and no grad scaler.",
    doc="mixed-precision",
    code="accelerate/state.py:1013-1015; accelerate/accelerator.py:563-584; accelerate/utils/fsdp_utils.py:813-825",
    demo=T + "test_fsdp_without_mixed_precision_trains_in_the_load_dtype",
    scope=("fsdp1", "fsdp2"))
FP16_SCALER = claim(
    "fsdp-fp16-grad-scaler",
    "fp16 mixed precision gets a gradient scaler from accelerate: ShardedGradScaler for FSDP1, torch's GradScaler "
    "for FSDP2; accelerate refuses fp16 on a CPU.",
    scope=("fsdp1", "fsdp2", "cpu-refused"),
    doc="mixed-precision",
    code="accelerate/accelerator.py:565-584; accelerate/utils/modeling.py:2120",
    why_not_demo="accelerate raises 'fp16 mixed precision requires a device' on a CPU (accelerator.py:571-574), so "
                 "no CPU test can build the scaler.")
FP8_LIMITS = claim(
    "fp8-backend-limits",
    "fp8 runs on bf16 for everything but the matrix multiplies of supported layers; MS-AMP is refused with FSDP and "
    "with ZeRO-3, and torchao on FSDP (either version) refuses cpu_ram_efficient_loading "
    "(fsdp-torchao-fp8-no-ram-efficient).",
    scope=("bf16-elsewhere", "msamp-fsdp", "msamp-zero3", "torchao-fsdp1", "torchao-fsdp2"),
    doc="mixed-precision",
    code="accelerate/accelerator.py:518-526, 603-610; accelerate/utils/dataclasses.py:1343-1349, 1417-1421",
    why_not_demo="needs an fp8 backend (Transformer Engine, torchao fp8 or MS-AMP) and an fp8-capable GPU.")
FP8_RECIPE_ENV = claim(
    "fp8-recipe-reads-launch-env",
    "With mixed_precision fp8, accelerate launch exports every fp8_config key as ACCELERATE_FP8_<KEY> (the fp8_ "
    "prefix added where missing; override_linear_precision, a list of three, as ACCELERATE_FP8_OVERRIDE_FPROP, "
    "_DGRAD and _WGRAD), and the Accelerator builds the recipe of ACCELERATE_FP8_BACKEND from them: Transformer "
    "Engine reads fp8_format, margin, interval, amax_history_len, amax_compute_algo, the three overrides and "
    "use_autocast_during_eval; MS-AMP reads opt_level; torchao reads enable_fsdp_float8_all_gather and "
    "pad_inner_dim, both true when absent.",
    doc="mixed-precision",
    code="accelerate/utils/launch.py:82-97; accelerate/commands/launch.py:1272-1273; "
         "accelerate/utils/dataclasses.py:312-460; accelerate/accelerator.py:480-504",
    demo=T + "test_every_fp8_option_written_reaches_its_recipe",
    scope=("te", "te-override-split", "msamp", "ao", "ao-defaults", "backend"))
FP8_PACKAGE = claim(
    "fp8-recipe-needs-its-package",
    "The chosen fp8 backend needs its own package even where another fp8 package lets accelerate launch pass: the "
    "Transformer Engine and torchao recipes raise ImportError when built without theirs, and prepare() raises "
    "ImportError for MS-AMP without msamp.",
    doc="mixed-precision",
    code="accelerate/utils/dataclasses.py:339-342, 407-410; accelerate/accelerator.py:2630-2641",
    demo=T + "test_each_fp8_recipe_needs_its_own_package",
    scope=("te", "ao", "msamp"))
FP8_AUTO = claim(
    "fp8-auto-detect-order",
    "With mixed_precision fp8 and no fp8 backend given (ACCELERATE_FP8_BACKEND absent or NO), the Accelerator builds "
    "the torchao recipe where torchao is installed, else Transformer Engine's, else MS-AMP's.",
    doc="mixed-precision",
    code="accelerate/accelerator.py:480-504",
    demo=T + "test_fp8_without_a_backend_takes_the_first_installed",
    scope=("torchao-first", "te-second", "msamp-last"))
_NEEDS_FP8 = ("needs the fp8 backend installed (none of Transformer Engine, MS-AMP, torchao is here) and an "
              "fp8-capable GPU; the recipe reading the value and its default are shown by "
              "fp8-recipe-reads-launch-env.")
_FP8_OPTION_FACTS = {
    # claim id -> (what the option does in its library, the library code); the recipe's default in accelerate's
    # dataclass (utils/dataclasses.py:312-460)
    "fp8-te-format": ("Transformer Engine's HYBRID fp8 format uses E4M3 in the forward pass and E5M2 for gradients; "
                      "E4M3 or E5M2 use that one format throughout. accelerate's default is HYBRID.",
                      "accelerate/utils/dataclasses.py:419 (Transformer Engine's Format)"),
    "fp8-te-margin": ("Transformer Engine lowers each fp8 scaling factor by 2^margin below what the amax allows; "
                      "accelerate's default margin is 0.", "accelerate/utils/dataclasses.py:415"),
    "fp8-te-interval": ("Transformer Engine recomputes the fp8 scaling factors every `interval` steps; accelerate's "
                        "default is 1.", "accelerate/utils/dataclasses.py:417"),
    "fp8-te-amax-history": ("Transformer Engine keeps the last amax_history_len absolute maxima per tensor to choose "
                            "its scale; accelerate's default is 1024.",
                            "accelerate/utils/dataclasses.py:429"),
    "fp8-te-amax-algo": ("Transformer Engine's amax_compute_algo most_recent scales from the latest amax, max from the "
                         "largest in the history; accelerate's default is most_recent.",
                         "accelerate/utils/dataclasses.py:424"),
    "fp8-te-override-fprop": ("override_linear_precision's first item runs the forward (fprop) matrix multiply of "
                              "Transformer Engine's fp8 layers in higher precision; off by default.",
                              "accelerate/utils/dataclasses.py:431"),
    "fp8-te-override-dgrad": ("override_linear_precision's second item runs the input-gradient (dgrad) matrix "
                              "multiply in higher precision; off by default.",
                              "accelerate/utils/dataclasses.py:432"),
    "fp8-te-override-wgrad": ("override_linear_precision's third item runs the weight-gradient (wgrad) matrix "
                              "multiply in higher precision; off by default.",
                              "accelerate/utils/dataclasses.py:433"),
    "fp8-te-eval-autocast": ("With use_autocast_during_eval false (the default) accelerate's Transformer Engine "
                             "wrapper runs the model outside fp8 autocast in eval mode.",
                             "accelerate/utils/transformer_engine.py:164; accelerate/utils/dataclasses.py:413"),
    "fp8-msamp-opt-level": ("MS-AMP's O1 keeps weights, gradients and their communication in fp8; O2 (accelerate's "
                            "default) also holds the optimizer state in low precision.",
                            "accelerate/accelerator.py:2670-2674; accelerate/utils/dataclasses.py:451, 1261-1262"),
    "fp8-ao-float8-all-gather": ("torchao's enable_fsdp_float8_all_gather casts FSDP2 shards to float8 before the "
                                 "all-gather; accelerate turns it on when not written.",
                                 "accelerate/utils/dataclasses.py:350-353"),
    "fp8-ao-pad-inner-dim": ("torchao's pad_inner_dim pads the matrix dimensions for torch._scaled_mm, which needs "
                             "them divisible by 16; accelerate turns it on when not written.",
                             "accelerate/utils/dataclasses.py:348-349"),
}
for _id, (_says, _code) in _FP8_OPTION_FACTS.items():
    claim(_id, _says, doc="mixed-precision", code=_code, why_not_demo=_NEEDS_FP8, scope=(_id.split("-")[1],))
DS_CAST_AND_MASTER = claim(
    "ds-module-cast-fp32-master",
    "DeepSpeed casts the module's parameters to bf16/fp16 when that block is enabled (buffers keep their dtype) "
    "and, by default, its ZeRO-1/2/3 optimizer builds fp32 master partitions and fp32 Adam state, also from bf16 "
    "weights with bf16 off: 16 bytes per parameter (2 weight, 2 gradient, 4 master, 8 moments), 8 more than "
    "FSDP's bf16 without mixed precision; an fp32 model gets a second fp32 copy as master (20 bytes).",
    doc="ds-precision",
    code="deepspeed/runtime/engine.py:1797-1850; deepspeed/runtime/zero/stage_1_and_2.py:557-577; "
         "deepspeed/runtime/base_optimizer.py:522-527",
    demo=T + "test_deepspeed_engine_dtypes_and_bytes",
    scope=("bf16-on", "bf16-off", "fp32-model"))
DS_ZERO0 = claim(
    "ds-zero0-no-master",
    "At ZeRO stage 0 with neither bf16 nor fp16 enabled DeepSpeed keeps no master copy: the client optimizer "
    "updates the parameters in their load dtype directly.",
    doc="ds-precision",
    code="deepspeed/runtime/engine.py:1797-1810, 2294-2366",
    demo=T + "test_deepspeed_engine_dtypes_and_bytes",
    scope=("zero0",))
DS_BF16_MASTER = claim(
    "ds-bf16-master-weights-option",
    "DeepSpeed 0.19.8 has bf16.bf16_master_weights_and_grads and bf16.bf16_optimizer_states for ZeRO-1/2/3 (stage "
    "0 asserts): with both, master partition and Adam state are bf16, 10 bytes per parameter, no offload needed; "
    "master weights alone require ZeRO-Offload with DeepSpeedCPUAdam.",
    doc="ds-precision",
    code="deepspeed/runtime/precision_config.py:63-71; deepspeed/runtime/config.py:706-714; "
         "deepspeed/runtime/base_optimizer.py:484-527; deepspeed/runtime/zero/stage_1_and_2.py:331-342",
    demo=T + "test_deepspeed_engine_dtypes_and_bytes",
    scope=("master-and-states", "master-only", "stages-1-2-3", "stage0-asserts"))
DS_COMM = claim(
    "ds-communication-dtype-default",
    "DeepSpeed reduces gradients in communication_data_type when the JSON sets it (fp16, bf16 or fp32), otherwise "
    "in the enabled 16-bit dtype, otherwise in fp32.",
    doc="ds-precision",
    code="deepspeed/runtime/engine.py:1718-1731; deepspeed/runtime/config.py:216-230",
    demo=T + "test_deepspeed_engine_dtypes_and_bytes",
    scope=("comm-json-set", "comm-16bit-enabled", "comm-fp32"))
DS_ZERO_INIT = claim(
    "ds-zero-init-dtype",
    "Parameters created inside deepspeed.zero.Init (ZeRO-3 with zero3_init_flag) take DeepSpeed's dtype (bf16 or "
    "fp16 when enabled, else fp32), not the dtype the model code asked for.",
    doc="ds-precision",
    code="deepspeed/runtime/zero/partition_parameters.py:397-410; transformers/modeling_utils.py:1445-1446, 3829",
    demo=T + "test_deepspeed_engine_dtypes_and_bytes",
    scope=("zero-init-bf16", "zero-init-fp16", "zero-init-fp32"))
DS_MP_TO_JSON = claim(
    "ds-mixed-precision-to-json",
    "accelerate turns mixed_precision into DeepSpeed's bf16/fp16 blocks: it adds an enabled block when the config "
    "has none, adds disabled blocks for the rest and fills 'auto'; fp16 is added with auto_cast and dynamic loss "
    "scaling (loss_scale 0).",
    doc="mixed-precision",
    code="accelerate/utils/dataclasses.py:1415-1446; deepspeed/runtime/precision_config.py:120-140",
    demo=T + "test_mixed_precision_becomes_the_json_blocks",
    scope=("fp16-added", "bf16-auto-filled"))
DS_JSON_WINS = claim(
    "ds-json-overrides-launch-mixed-precision",
    "Next to a DeepSpeed JSON, a --mixed_precision given at launch (or to Accelerator) raises only when the JSON "
    "enables the other 16-bit dtype; when the JSON has that dtype's block with enabled false, the run is fp32 "
    "without a message.",
    doc="mixed-precision",
    code="accelerate/utils/dataclasses.py:1415-1446; accelerate/state.py:974-977, 1062-1074",
    demo=T + "test_a_json_block_silently_overrides_launch_mixed_precision",
    scope=("same-dtype-disabled", "other-dtype-enabled"))
DS_FILE_YAML_MP = claim(
    "ds-file-refuses-yaml-mixed-precision",
    "With deepspeed_config_file, accelerate launch reports a mixed_precision taken from the YAML ('no' included) to "
    "the DeepSpeed plugin, which raises; one given on the command line is not refused.",
    doc="ds-config-file",
    code="accelerate/commands/launch.py:1287-1292, 1393-1397; accelerate/utils/dataclasses.py:1507-1532",
    demo=T + "test_yaml_mixed_precision_next_to_a_json_raises",
    scope=("yaml-no", "yaml-bf16", "command-line"))
DS_ROCM = claim(
    "ds-rocm-bf16-comm-fp32",
    "On ROCm with bf16, accelerate adds communication_data_type fp32 to the DeepSpeed config when it has none.",
    doc="mixed-precision",
    code="accelerate/utils/dataclasses.py:1448-1458",
    why_not_demo="the branch runs only on a ROCm build of torch (is_rocm_available).",
    scope=("comm-type-missing", "comm-type-set"))
