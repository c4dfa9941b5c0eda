"""The torch-free parameter counts of wizard.core.memory.shapes against the real models: each architecture built by
transformers on the meta device (exact_counts), config.json files written by transformers' own config classes, and
DeepSpeed's model_to_params on a real CPU model (the definition of its "largest layer")."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from helpers import ROOT

from wizard.core.memory.shapes import (
    SHAPES,
    ModelError,
    accelerate_counts,
    exact_counts,
    from_config_json,
    largest_layer_params,
    param_count,
    to_config_dict,
)

pytestmark = pytest.mark.verify

transformers = pytest.importorskip("transformers")


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shipped_shape_equals_the_built_model(name):
    shape = SHAPES[name]
    assert exact_counts(to_config_dict(shape)) == (param_count(shape), largest_layer_params(shape))


def _configs():
    from transformers import GPT2Config, LlamaConfig, MistralConfig, Qwen2Config

    small = {"hidden_size": 256, "intermediate_size": 688, "num_hidden_layers": 3, "num_attention_heads": 8,
             "vocab_size": 1000}
    return {
        "gpt2-default": GPT2Config(),
        "gpt2-untied-inner": GPT2Config(n_embd=128, n_layer=2, n_head=4, n_inner=300, n_positions=64,
                                        vocab_size=500, tie_word_embeddings=False),
        "llama-mha": LlamaConfig(**small),
        "llama-gqa-tied": LlamaConfig(**small, num_key_value_heads=2, tie_word_embeddings=True),
        "llama-biases": LlamaConfig(**small, num_key_value_heads=4, attention_bias=True, mlp_bias=True),
        "llama-head-dim": LlamaConfig(**small, num_key_value_heads=2, head_dim=48),
        # a block bigger than the embedding: the largest layer is then an MLP projection
        "llama-wide-mlp": LlamaConfig(**{**small, "intermediate_size": 4096, "vocab_size": 64}),
        "mistral": MistralConfig(**small, num_key_value_heads=2),
        "qwen2": Qwen2Config(**small, num_key_value_heads=2),
        "qwen2-tied": Qwen2Config(**small, num_key_value_heads=4, tie_word_embeddings=True),
    }


@pytest.mark.parametrize("case", sorted(_configs()))
def test_config_json_written_by_transformers_round_trips(case, tmp_path):
    config = _configs()[case]
    config.save_pretrained(tmp_path)  # writes tmp_path/config.json the way a Hub checkpoint carries it
    shape = from_config_json(tmp_path / "config.json")
    assert not shape.approximate
    exact = exact_counts(config)
    assert (param_count(shape), largest_layer_params(shape)) == exact
    # the same from the to_dict() mapping and from the file path
    assert param_count(from_config_json(config.to_dict())) == exact[0]
    assert exact_counts(tmp_path / "config.json") == exact


def test_wide_mlp_largest_layer_is_not_the_embedding():
    config = _configs()["llama-wide-mlp"]
    shape = from_config_json(config.to_dict())
    assert largest_layer_params(shape) == 256 * 4096 > shape.vocab_size * shape.hidden_size


def test_tied_head_counted_once():
    from transformers import GPT2Config

    tied = exact_counts(GPT2Config(n_layer=1))
    untied = exact_counts(GPT2Config(n_layer=1, tie_word_embeddings=False))
    assert untied[0] - tied[0] == 50257 * 768
    assert tied[1] == untied[1] == 50257 * 768


def test_other_architecture_is_marked_approximate_and_exact_counts_it():
    """Qwen3 carries the Llama keys but adds q_norm / k_norm per layer: read by its keys the count misses exactly
    those (and says so with approximate); the meta-device build counts them."""
    from transformers import Qwen3Config

    config = Qwen3Config(hidden_size=256, intermediate_size=688, num_hidden_layers=3, num_attention_heads=8,
                         num_key_value_heads=2, head_dim=32, vocab_size=1000)
    shape = from_config_json(config.to_dict())
    assert shape.approximate
    total, _ = exact_counts(config)
    assert total - param_count(shape) == 3 * 2 * 32


def test_exact_counts_bad_input():
    with pytest.raises(ModelError, match="model_type"):
        exact_counts({"hidden_size": 8})
    with pytest.raises(ModelError, match="does not know"):
        exact_counts({"model_type": "no-such-architecture"})
    with pytest.raises(ModelError, match="cannot build"):
        exact_counts(42)


def test_deepspeed_model_to_params_agrees_on_a_real_model():
    """DeepSpeed's own model_to_params (deepspeed/runtime/zero/stage3.py) on a real CPU model (it deduplicates by
    data_ptr, so it needs allocated weights) gives the same two numbers as our count."""
    cfg = {"model_type": "llama", "hidden_size": 64, "intermediate_size": 172, "num_hidden_layers": 2,
           "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 300, "tie_word_embeddings": True}
    code = textwrap.dedent(f"""
        import json
        from transformers import AutoConfig, AutoModelForCausalLM
        from deepspeed.runtime.zero.stage3 import model_to_params
        data = {cfg!r}
        model = AutoModelForCausalLM.from_config(AutoConfig.for_model(data.pop("model_type"), **data))
        print(json.dumps(model_to_params(model)))
    """)
    env = {**os.environ, "DS_ACCELERATOR": "cpu", "CUDA_VISIBLE_DEVICES": ""}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    ds_total, ds_largest = json.loads(out.stdout.strip().splitlines()[-1])
    shape = from_config_json(cfg)
    assert (ds_total, ds_largest) == (param_count(shape), largest_layer_params(shape)) == exact_counts(cfg)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_accelerate_counts_equal_accelerates_own_sizes(name):
    """accelerate_counts against accelerate's calculate_maximum_sizes on the model `accelerate estimate-memory`
    builds (AutoModel in float32 under init_empty_weights): bytes = 4 x parameters (+ buffers for the total)."""
    import torch
    from accelerate import init_empty_weights
    from accelerate.utils import calculate_maximum_sizes
    from transformers import AutoConfig, AutoModel

    shape = SHAPES[name]
    data = to_config_dict(shape)
    config = AutoConfig.for_model(data.pop("model_type"), **data)
    with init_empty_weights():
        model = AutoModel.from_config(config, dtype=torch.float32)
    total_bytes, (largest_bytes, _) = calculate_maximum_sizes(model)
    buffer_bytes = sum(b.numel() * b.element_size() for b in model.buffers())
    base, largest = accelerate_counts(shape)
    assert (total_bytes - buffer_bytes, largest_bytes) == (4 * base, 4 * largest)
    if not shape.tie_embeddings:  # an untied LM head is what accelerate's total leaves out
        assert param_count(shape) - base == shape.vocab_size * shape.hidden_size
