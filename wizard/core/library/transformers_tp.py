"""Which transformers model types carry a tensor-parallel plan (pure data, no imports).

Read from each config class's ``base_model_tp_plan`` in transformers 5.24.0 (``models/<type>/configuration_*.py``);
tests/verify/test_library_defaults.py reads them back from the installed transformers. ``from_pretrained`` with a
tensor-parallel size above 1 refuses a model without one (claim tp-needs-model-plan). A type not listed here is not
known to the wizard: the rules say so instead of guessing.
"""
from __future__ import annotations

TP_PLAN: dict[str, bool] = {
    "llama": True, "mistral": True, "mixtral": True, "qwen2": True, "qwen3": True, "gemma": True, "gemma2": True,
    "gemma3_text": True, "phi3": True, "gpt_neox": True,
    "gpt2": False, "falcon": False, "opt": False, "bloom": False,
}
"""model_type -> whether transformers 5.24 gives it a tensor-parallel plan."""

LLAMA_TP_LAYERS: dict[str, str] = {
    "embed_tokens": "embedding_rowwise",
    "q_proj": "colwise", "k_proj": "colwise", "v_proj": "colwise", "o_proj": "rowwise",
    "gate_proj": "colwise", "up_proj": "colwise", "down_proj": "rowwise", "lm_head": "colwise_gather_output",
}
"""How transformers 5.24 splits a Llama-style model over the tensor-parallel ranks: ``LlamaConfig.base_model_tp_plan``
for the decoder layers' projections, ``LlamaForCausalLM._tp_plan`` for the LM head, and the input embedding split on
the vocabulary, which ``init_parallel_plans`` (transformers/distributed/mixin.py) puts in front of every plan that
does not name it. A colwise layer splits its weight and bias by output rows, a rowwise one its weight by input columns
and keeps its bias whole; ``colwise_gather_output`` gathers the output back, so every rank holds the whole logits. The
norms are not in the plan: every rank keeps them whole (benchmarks/memory.py measures the placements and the bytes
on four gloo ranks)."""
