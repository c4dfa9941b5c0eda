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
CP_NO_CPU = claim(
    "torch-cp-no-cpu-attention",
    "Context parallelism (accelerate's cp_size, torch's ring attention) cannot run on a CPU: on two gloo ranks, with "
    "SDPA attention, the first attention inside accelerate's maybe_context_parallel raises NotImplementedError, "
    "because torch has no sharding rule for its CPU attention kernel (aten._scaled_dot_product_flash_attention_for_cpu); "
    "so the CPU rehearsal runs cp 1 and says cp is not rehearsed.",
    doc="parallelism-heads",
    code="torch/distributed/tensor/experimental/_context_parallel/_attention.py (handles the flash, efficient and "
         "cuDNN CUDA kernels only); accelerate/accelerator.py maybe_context_parallel",
    demo=_T + "test_context_parallel_has_no_cpu_attention",
    scope=("sdpa-cpu",))
