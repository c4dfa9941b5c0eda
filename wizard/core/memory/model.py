"""A model's architecture numbers, enough to count parameters and activations without building it.

The interface the estimator relies on (issue 10); the shipped shapes and the config.json reader live here too.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelShape:
    """A decoder-only transformer (GPT-2 / Llama / Mistral / Qwen2 style), as its config.json describes it."""

    name: str
    family: str
    """``gpt2`` (LayerNorm, GELU MLP of 4h, learned positions, biases) or ``llama`` (RMSNorm, SwiGLU MLP, RoPE,
    grouped-query attention); Mistral and Qwen2 are ``llama`` with their own flags."""
    vocab_size: int
    hidden_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    intermediate_size: int
    """The MLP's inner width (4h for gpt2)."""
    max_positions: int = 0
    """Learned position embeddings (gpt2: n_positions); 0 for RoPE models."""
    tie_embeddings: bool = False
    attention_bias: bool = False
    """Biases on q/k/v (Qwen2: true; gpt2 has biases everywhere, counted by the family)."""
    source: str = ""
    """Where the numbers come from (the published config's repository, or the config.json path)."""
