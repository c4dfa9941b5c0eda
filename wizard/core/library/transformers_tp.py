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
