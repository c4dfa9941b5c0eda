"""Claims about tensor and sequence parallelism against the model's attention heads (issue 24; wizard/core/lint/
general.py states them when ``check --model`` names the model) (see :mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

_T = "tests/claims/test_parallelism.py::"

TP_HEADS = claim(
    "tp-whole-heads-per-rank",
    "Transformers' tensor-parallel plan splits the query, key and value projections by output rows over the tp "
    "ranks; a tp size that does not divide the attention heads, or the key-value heads, still loads, and the "
    "first forward then fails to reshape a rank's slice into whole heads (RuntimeError: shape ... is invalid).",
    doc="parallelism-heads",
    code="transformers/models/llama/configuration_llama.py:48-56; "
         "transformers/models/llama/modeling_llama.py:242-246; torch/distributed/tensor/parallel/style.py",
    demo=_T + "test_tensor_parallel_needs_whole_heads_per_rank",
    scope=("heads-not-divisible", "kv-heads-not-divisible", "both-divisible"))
SP_HEADS = claim(
    "ds-ulysses-heads-divide",
    "DeepSpeed's Ulysses attention, which accelerate registers with Transformers at prepare() when sp_size is above "
    "1, raises ValueError unless sp_size divides the attention heads, and the key-value heads either divide by "
    "sp_size or divide it (then each rank gets a replicated KV head).",
    doc="parallelism-heads",
    code="deepspeed/runtime/sequence_parallel/ulysses_sp.py:130-152, 500-515; accelerate/accelerator.py:2405-2430",
    demo=_T + "test_ulysses_attention_needs_heads_divisible_by_sp",
    scope=("heads-not-divisible", "kv-heads-neither-way", "kv-heads-divide", "sp-multiple-of-kv-heads"))
TP_PLAN = claim(
    "tp-needs-model-plan",
    "from_pretrained with a tensor-parallel size above 1 raises ValueError when the model has no tensor-parallel "
    "plan (its config class's base_model_tp_plan): GPT-2, Falcon, OPT and BLOOM have none in transformers 5.24; "
    "Llama, Mistral, Qwen2 and most newer decoders have one.",
    doc="parallelism-heads",
    code="transformers/modeling_utils.py:4726-4740; transformers/models/llama/configuration_llama.py:48-56",
    demo=_T + "test_tensor_parallel_needs_the_models_plan",
    scope=("no-plan", "has-plan"))
SP_ATTN = claim(
    "ds-sp-attn-implementation-values",
    "With sp_size above 1, accelerate's sequence-parallel settings take only flash_attention_2, flash_attention_3, "
    "sdpa (the launcher's default) or a hub-hosted flash-attention kernel as sp_attn_implementation; eager, "
    "flex_attention or any other name raises ValueError when the Accelerator reads them.",
    doc="parallelism-heads",
    code="accelerate/utils/dataclasses.py:2289-2309; accelerate/commands/launch.py:977-981",
    demo=_T + "test_sequence_parallel_attention_names",
    scope=("eager", "flex-attention", "other-name", "hub-kernel", "sdpa"))
SP_FIXED = claim(
    "ds-sp-fixed-length-needs-seq-length",
    "With sp_seq_length_is_variable false and no sp_seq_length, the launcher exports the text None, accelerate "
    "reads it as no length, and prepare() raises ValueError when it registers DeepSpeed's Ulysses attention; with "
    "a variable length (the default) no sp_seq_length is needed.",
    doc="parallelism-heads",
    code="accelerate/utils/launch.py:422-425; accelerate/utils/dataclasses.py:2273-2287; "
         "deepspeed/runtime/sequence_parallel/ulysses_sp.py:425-436; accelerate/accelerator.py:2424-2431",
    demo=_T + "test_a_fixed_sequence_length_needs_its_value",
    scope=("fixed-without-length", "variable-without-length"))
FSDP2_TP_IMPORT = claim(
    "accelerate-fsdp2-tp-needs-replicate-parallel",
    "accelerate's FSDP2 prepare() of a model loaded tensor-parallel imports ReplicateParallel from "
    "transformers.integrations.tensor_parallel (accelerate 1.10 to 1.15), which transformers has only from 4.52 to "
    "5.0: with transformers 5.24, as with any release from 5.1, FSDP2 with tp_size above 1 stops at prepare() with an "
    "ImportError; with transformers 5.0 the same dp_shard x tp run prepares and trains, the loss going down.",
    doc="parallelism-heads",
    code="accelerate/accelerator.py:1581-1635; transformers/integrations/tensor_parallel.py (5.24: no "
         "ReplicateParallel; the released wheels: 4.52.4-5.0.0 have it, 4.51.3 and 5.1.0-5.25.0 do not)",
    demo=_T + "test_fsdp2_tensor_parallel_prepare_with_these_transformers",
    scope=("transformers-5-24", "transformers-5-0"))
DS_SIZES = claim(
    "ds-parallelism-sizes-unused",
    "Under DeepSpeed accelerate accepts parallelism_config's dp_shard, dp_replicate, cp and tp sizes and builds their "
    "device mesh, but the engine trains data parallel over every rank as its ZeRO stage says: dp_replicate does not "
    "replicate and cp splits no sequence; a tp_size above 1 makes prepare() fail on an own loop's DataLoader (its "
    "batch size comes out None). Only sp_size is DeepSpeed's.",
    doc="parallelism-heads",
    code="accelerate/parallelism_config.py:355-397; accelerate/accelerator.py:1532-1550, 2140-2200",
    demo=_T + "test_deepspeed_does_not_use_the_parallelism_sizes",
    scope=("dp-shard", "dp-replicate", "cp", "tp"))
CP_WINDOWS = claim(
    "accelerate-cp-refuses-windowed-attention",
    "Before context parallelism accelerate refuses, with a ValueError at prepare(), a model whose config has "
    "attention layers other than full causal: layer_types naming sliding or chunked attention, or without "
    "layer_types a sliding_window that is set (Mistral); Qwen2 keeps its window only with use_sliding_window.",
    doc="parallelism-heads",
    code="accelerate/big_modeling.py:787-826; transformers/models/qwen2/configuration_qwen2.py:73-92",
    demo=_T + "test_context_parallel_refuses_windowed_attention",
    scope=("llama", "mistral-window", "mistral-no-window", "qwen2-window-off", "qwen2-window-on",
           "gemma2-layer-types"))
CP_MASK = claim(
    "accelerate-cp-drops-attention-mask",
    "With context parallelism accelerate hooks every self_attn module to drop the attention_mask it is given and "
    "run plain causal attention (is_causal=True), so neither padding nor the boundaries of packed documents are "
    "masked.",
    doc="parallelism-heads",
    code="accelerate/big_modeling.py:828-850; accelerate/accelerator.py:1659-1671",
    demo=_T + "test_context_parallel_drops_the_attention_mask",
    scope=("mask-dropped", "is-causal-set"))
MESH = claim(
    "accelerate-mesh-rank-order",
    "accelerate lays out the device mesh with its dimensions in the order dp_replicate, dp_shard, cp, sp, tp (those "
    "above 1) and torch numbers the ranks row-major, so tensor-parallel groups are consecutive ranks, context-parallel "
    "groups stride by tp, and dp_shard groups by cp x tp.",
    doc="parallelism-heads",
    code="accelerate/parallelism_config.py:211-272; torch/distributed/device_mesh.py",
    demo=_T + "test_the_mesh_ranks_in_accelerates_order",
    scope=("dp-shard-cp-tp", "hsdp", "hsdp-tp"))
_S = "tests/claims/test_parallelism_settings.py::"
SP_FLAG = claim(
    "launch-sp-variable-flag-type-bool",
    "parallelism_config_sp_seq_length_is_variable written false in the YAML reaches accelerate as false: the "
    "launcher copies the YAML value onto its arguments as it is and exports str() of it, and accelerate reads only "
    "'true' as variable; the command-line flag --parallelism_config_sp_seq_length_is_variable is declared type=bool, "
    "so any text given there, 'False' included, becomes True.",
    doc="parallelism-heads",
    code="accelerate/commands/launch.py:970-975, 1262-1277; accelerate/utils/launch.py:422-425; "
         "accelerate/utils/dataclasses.py:2273-2278",
    demo=_S + "test_the_variable_length_flag_and_the_yaml_value",
    scope=("yaml-false", "yaml-true", "flag-false-text"))
AUTOTP = claim(
    "ds-autotp-size-from-json",
    "DeepSpeed reads tensor_parallel.autotp_size from its config (0, AutoTP off, when absent) and its engine "
    "shards the model's linear layers with AutoTP when the size is above 1; accelerate 1.15 reads the same key from "
    "the DeepSpeed config it hands over, builds a one-dimensional tp device mesh of that size at prepare() and, "
    "when saving, gathers the tensor-parallel shards into one state dict.",
    doc="parallelism-heads",
    code="deepspeed/runtime/tensor_parallel/config.py:45; deepspeed/runtime/engine.py:595-600, 1669-1670; "
         "accelerate/accelerator.py:2154-2172, 4072-4085",
    demo=_S + "test_autotp_size_is_read_from_the_deepspeed_config",
    scope=("absent-is-off", "size-read", "engine-applies-above-1", "accelerate-reads"))
ZEROPP_WEIGHTS = claim(
    "ds-zeropp-quantized-weights-zero3",
    "zero_optimization.zero_quantized_weights (ZeRO++ qwZ: parameters all-gathered quantized) is off by default and "
    "reaches only the ZeRO-3 optimizer: the ZeRO-1/2 optimizer takes no such argument.",
    doc="parallelism-heads",
    code="deepspeed/runtime/zero/config.py:328-331; deepspeed/runtime/engine.py:2725-2740; "
         "deepspeed/runtime/zero/stage3.py:204",
    demo=_S + "test_quantized_weights_are_a_zero3_option",
    scope=("default-off", "zero3-takes-it", "zero12-takes-none"))
ZEROPP_GRADIENTS = claim(
    "ds-zeropp-quantized-gradients-zero3",
    "zero_optimization.zero_quantized_gradients (ZeRO++ qgZ: gradients reduced by a quantized all-to-all) is off by "
    "default; the engine hands the all-to-all group it builds for it only to the ZeRO-3 optimizer: the ZeRO-1/2 "
    "optimizer takes no such group.",
    doc="parallelism-heads",
    code="deepspeed/runtime/zero/config.py:340-343; deepspeed/runtime/engine.py:2158-2161, 2769; "
         "deepspeed/runtime/zero/stage3.py:1929",
    demo=_S + "test_quantized_gradients_are_a_zero3_option",
    scope=("default-off", "zero3-takes-it", "zero12-takes-none"))
EXCHANGES = claim(
    "parallelism-exchanges-per-layer",
    "Tensor, context and Ulysses sequence parallelism exchange activations inside every layer, forward and "
    "backward: a row-parallel projection's partial outputs are summed over the tp group into a replicated output; "
    "context parallelism passes the key and value shards among the cp ranks in attention (all-gather by default, "
    "all-to-all as the other strategy); Ulysses runs an all-to-all over the sp group before attention and another "
    "after it. The data-parallel dimensions exchange parameters and gradients instead.",
    doc="parallelism-heads",
    code="torch/distributed/tensor/parallel/style.py:186-230 (RowwiseParallel: output Replicate); "
         "torch/distributed/tensor/experimental/_context_parallel/_attention.py:1693-1705 (set_rotate_method); "
         "deepspeed/runtime/sequence_parallel/ulysses_sp.py:185-225 (_dim_zero_all_to_all before and after attention)",
    why_not_demo="counting one layer's collectives needs each dimension's process group at its real size and, for "
                 "context parallelism, torch's CUDA attention kernels; the collectives are named where each style "
                 "is defined.",
    scope=("tp-sums-row-parallel-outputs", "cp-passes-kv", "ulysses-all-to-all"))
DETAILS = claim(
    "accelerate-parallelism-details-need-their-dimension",
    "accelerate reads the context-parallel exchange only through the context-parallel handler, which "
    "ParallelismConfig builds only with cp_size above 1, and the sequence-parallel details only through the "
    "sequence-parallel handler, built only with sp_size above 1; with a variable sequence length that handler takes "
    "no length, even one exported.",
    doc="parallelism-heads",
    code="accelerate/parallelism_config.py:292-310; accelerate/utils/dataclasses.py:2240-2287",
    demo=_S + "test_the_details_need_their_dimension",
    scope=("cp-handler-only-above-1", "sp-handler-only-above-1", "length-unread-when-variable"))
SP_BATCH = claim(
    "ds-ulysses-batch-needs-dp-sizes",
    "Under DeepSpeed with Ulysses sp_size above 1, accelerate sets train_batch_size at prepare() to micro batch x "
    "accumulation x dp_replicate_size x dp_shard_size, while DeepSpeed's config, given the Ulysses process groups, "
    "counts processes / sp_size data-parallel ranks: unless dp_replicate x dp_shard x sp equals the processes, "
    "deepspeed.initialize raises AssertionError 'Check batch related parameters'.",
    doc="parallelism-heads",
    code="accelerate/accelerator.py:2357-2365; accelerate/parallelism_config.py:176-179; "
         "deepspeed/runtime/config.py:456-463, 595-606",
    demo=_S + "test_ulysses_batch_size_needs_the_data_parallel_sizes",
    scope=("sp-alone-fails", "dp-shard-the-rest-passes"))
CP_NO_CPU = claim(
    "torch-cp-no-cpu-attention",
    "Context parallelism (accelerate's cp_size, torch's ring attention) cannot run on a CPU: on two gloo ranks, with "
    "SDPA attention, the first attention inside accelerate's maybe_context_parallel raises NotImplementedError, "
    "because torch has no sharding rule for its CPU attention kernel "
    "(aten._scaled_dot_product_flash_attention_for_cpu); so the CPU rehearsal runs cp 1 and says cp is not rehearsed.",
    doc="parallelism-heads",
    code="torch/distributed/tensor/experimental/_context_parallel/_attention.py:917-950 (ring versions of the "
         "flash, efficient and cuDNN CUDA kernels only); accelerate/accelerator.py:4152 (maybe_context_parallel)",
    demo=_T + "test_context_parallel_has_no_cpu_attention",
    scope=("sdpa-cpu",))
TP_RAM_EFFICIENT = claim(
    "accelerate-fsdp2-tp-ram-efficient-loading-fails",
    "FSDP2 with a tensor-parallel size above 1 and cpu_ram_efficient_loading on does not start: accelerate's prepare() "
    "treats rank 0's state dict as whole and loads it into the full-size parameters, but with tensor parallelism "
    "rank 0 holds only its tp shard of each split weight, so load_state_dict raises a size mismatch on rank 0 "
    "(shown with transformers 5.0, where FSDP2 + TP otherwise trains).",
    doc="parallelism-heads",
    code="accelerate/utils/fsdp_utils.py:887-895 (fsdp2_prepare_model), accelerate/utils/fsdp_utils.py:574-666 "
         "(fsdp2_load_full_state_dict)",
    demo=_T + "test_fsdp2_tensor_parallel_with_ram_efficient_loading",
    scope=("transformers-5-0",))
