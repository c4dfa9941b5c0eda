"""The model shapes and parameter counts of the memory estimate (wizard.core.memory.shapes), without torch.

The expected counts below were produced by building each architecture with transformers 5.24 on the meta device
(tests/verify/test_memory_model_exact.py checks the same equality on every run where transformers is installed)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import ROOT

from wizard.core.memory.shapes import (
    SHAPES,
    ModelError,
    ModelShape,
    embedding_params,
    from_config_json,
    largest_layer_params,
    param_count,
    per_layer_params,
    shape_by_name,
    to_config_dict,
)

# name: (total parameters, DeepSpeed's largest layer, nominal size the model is published as)
EXPECTED = {
    "gpt2": (124_439_808, 38_597_376, 124e6),
    "gpt2-medium": (354_823_168, 51_463_168, 355e6),
    "gpt2-large": (774_030_080, 64_328_960, 774e6),
    "gpt2-xl": (1_557_611_200, 80_411_200, 1.56e9),
    "llama-3.2-1b": (1_235_814_400, 262_668_288, 1.23e9),
    "llama-3.2-3b": (3_212_749_824, 394_002_432, 3.21e9),
    "llama-3.1-8b": (8_030_261_248, 525_336_576, 8.0e9),
    "llama-3.1-70b": (70_553_706_496, 1_050_673_152, 70.6e9),
    "mistral-7b-v0.1": (7_241_732_096, 131_072_000, 7.24e9),
    "qwen2.5-7b": (7_615_616_512, 544_997_376, 7.61e9),
    "qwen2.5-72b": (72_706_203_648, 1_245_708_288, 72.7e9),
}


def test_the_shipped_set_is_the_issue_list():
    assert set(SHAPES) == set(EXPECTED)
    for name, shape in SHAPES.items():
        assert shape.name == name and name == name.lower()
        assert shape.source.startswith("huggingface.co/") and shape.source.endswith("config.json")
        assert not shape.approximate


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_shipped_counts(name):
    shape = SHAPES[name]
    total, largest, nominal = EXPECTED[name]
    assert param_count(shape) == total
    assert largest_layer_params(shape) == largest
    assert abs(total - nominal) / nominal < 0.02  # what the model card calls it
    # the largest module is the token embedding (or the untied LM head of the same size)
    assert largest == shape.vocab_size * shape.hidden_size


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts_decompose(name):
    """Total = embeddings + blocks + final norm + the LM head when it is not tied."""
    shape = SHAPES[name]
    h = shape.hidden_size
    final_norm = 2 * h if shape.family == "gpt2" else h
    head = 0 if shape.tie_embeddings else shape.vocab_size * h
    assert param_count(shape) == embedding_params(shape) + shape.num_layers * per_layer_params(shape) + final_norm \
        + head


def test_per_layer_by_hand():
    # gpt2 block: 12h^2 + 13h; llama-3.1-8b block: q/o 2h^2, k/v 2*h*1024, MLP 3*h*14336, two norms
    assert per_layer_params(SHAPES["gpt2"]) == 12 * 768**2 + 13 * 768
    h = 4096
    assert per_layer_params(SHAPES["llama-3.1-8b"]) == 2 * h * h + 2 * h * 1024 + 3 * h * 14336 + 2 * h
    # qwen2.5-7b: q/k/v carry biases (3584 + 512 + 512), o_proj none
    q = SHAPES["qwen2.5-7b"]
    no_bias = ModelShape(**{**q.__dict__, "attention_bias": False})
    assert per_layer_params(q) - per_layer_params(no_bias) == 3584 + 512 + 512
    assert embedding_params(SHAPES["gpt2"]) == 50257 * 768 + 1024 * 768


def test_tied_embeddings_counted_once():
    tied = SHAPES["llama-3.2-1b"]
    untied = ModelShape(**{**tied.__dict__, "tie_embeddings": False})
    assert param_count(untied) - param_count(tied) == tied.vocab_size * tied.hidden_size
    assert largest_layer_params(untied) == largest_layer_params(tied)


@pytest.mark.parametrize("alias, name", [
    ("llama-3.1-8b", "llama-3.1-8b"),
    ("LLAMA-3.1-8B", "llama-3.1-8b"),
    ("meta-llama/Llama-3.1-8B", "llama-3.1-8b"),
    ("meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b"),
    ("meta-llama/Llama-3.2-1B-Instruct", "llama-3.2-1b"),
    ("openai-community/gpt2", "gpt2"),
    ("gpt2-XL", "gpt2-xl"),
    ("Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b"),
    ("mistralai/Mistral-7B-v0.1", "mistral-7b-v0.1"),
    ("mistral-7b", "mistral-7b-v0.1"),
    ("mistralai/Mistral-7B-Instruct-v0.2", "mistral-7b-v0.1"),
])
def test_shape_by_name_aliases(alias, name):
    assert shape_by_name(alias) is SHAPES[name]


def test_shape_by_name_unknown_suggests():
    with pytest.raises(ModelError) as err:
        shape_by_name("lama-3.1-8b")
    text = str(err.value)
    assert "Did you mean 'llama-3.1-8b'?" in text
    assert all(name in text for name in SHAPES)
    assert isinstance(err.value, ValueError)
    with pytest.raises(ModelError, match="Shipped shapes") as err:
        shape_by_name("totally-unrelated-thing")
    assert "Did you mean" not in str(err.value)


def test_mistral_v03_is_not_passed_off_as_v01():
    with pytest.raises(ModelError, match="32768") as err:
        shape_by_name("mistralai/Mistral-7B-Instruct-v0.3")
    assert "Did you mean" not in str(err.value)


# --- config.json ---------------------------------------------------------------------------------------------------

def test_gpt2_defaults(tmp_path):
    """A gpt2 config.json that leaves keys out gets GPT2Config's defaults: n_inner 4h, embeddings tied."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "gpt2", "n_embd": 1024, "n_layer": 24, "n_head": 16}))
    shape = from_config_json(path)
    assert (shape.intermediate_size, shape.tie_embeddings, shape.vocab_size, shape.max_positions) == \
        (4096, True, 50257, 1024)
    assert param_count(shape) == EXPECTED["gpt2-medium"][0]
    assert shape.source == str(path) and shape.name == tmp_path.name
    assert param_count(from_config_json({"model_type": "gpt2"})) == EXPECTED["gpt2"][0]
    untied = from_config_json({"model_type": "gpt2", "tie_word_embeddings": False, "n_inner": 1000})
    assert untied.intermediate_size == 1000
    assert param_count(untied) == param_count(from_config_json({"model_type": "gpt2", "n_inner": 1000})) \
        + 50257 * 768


def test_folder_holding_config_json(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps(to_config_dict(SHAPES["qwen2.5-7b"])))
    assert param_count(from_config_json(tmp_path)) == EXPECTED["qwen2.5-7b"][0]


def test_llama_kv_heads_default():
    base = {k: v for k, v in to_config_dict(SHAPES["llama-3.1-8b"]).items() if k != "num_key_value_heads"}
    assert from_config_json({**base}).num_kv_heads == 32  # left out: LlamaConfig uses num_attention_heads
    assert from_config_json({**base, "num_key_value_heads": None}).num_kv_heads == 32
    # Mistral and Qwen2 have their own defaults when the key is left out (transformers' config classes)
    assert from_config_json({**base, "model_type": "mistral"}).num_kv_heads == 8
    assert from_config_json({**base, "model_type": "qwen2"}).num_kv_heads == 32
    assert from_config_json({**base, "model_type": "mistral", "num_key_value_heads": None}).num_kv_heads == 32


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_round_trip_through_config_dict(name):
    shape = SHAPES[name]
    back = from_config_json(to_config_dict(shape), name=name)
    assert param_count(back) == param_count(shape)
    assert largest_layer_params(back) == largest_layer_params(shape)
    assert back.tie_embeddings == shape.tie_embeddings and back.num_kv_heads == shape.num_kv_heads


def test_tied_embeddings_flag():
    cfg = to_config_dict(SHAPES["llama-3.2-3b"])
    assert from_config_json(cfg).tie_embeddings
    assert not from_config_json({**cfg, "tie_word_embeddings": False}).tie_embeddings
    assert not from_config_json({k: v for k, v in cfg.items() if k != "tie_word_embeddings"}).tie_embeddings


def test_qwen2_biases():
    cfg = to_config_dict(SHAPES["qwen2.5-7b"])
    # Qwen2Attention biases q/k/v whatever attention_bias says, and never o_proj
    for extra in ({}, {"attention_bias": False}, {"attention_bias": True}):
        shape = from_config_json({**cfg, **extra})
        assert (shape.attention_bias, shape.o_proj_bias) == (True, False)
        assert param_count(shape) == EXPECTED["qwen2.5-7b"][0]


def test_llama_attention_and_mlp_bias():
    cfg = to_config_dict(SHAPES["llama-3.1-8b"])
    plain = param_count(from_config_json(cfg))
    h, kv, inner = 4096, 1024, 14336
    # Llama's attention_bias puts a bias on q, k, v and o_proj; mlp_bias on gate, up, down
    assert param_count(from_config_json({**cfg, "attention_bias": True})) - plain == 32 * (h + kv + kv + h)
    assert param_count(from_config_json({**cfg, "mlp_bias": True})) - plain == 32 * (inner + inner + h)
    # Mistral has no biases at all
    assert param_count(from_config_json({**cfg, "model_type": "mistral", "attention_bias": True})) == plain


def test_explicit_head_dim():
    cfg = {**to_config_dict(SHAPES["llama-3.2-1b"]), "head_dim": 128}  # 32 heads x 128 = 4096 != hidden 2048
    shape = from_config_json(cfg)
    assert shape.head_width == 128
    h, layers = 2048, 16
    assert param_count(shape) - param_count(SHAPES["llama-3.2-1b"]) == layers * (2 * h * 64 * 32 + 2 * h * 8 * 64)


def test_other_model_type_with_llama_keys_is_approximate():
    shape = from_config_json({**to_config_dict(SHAPES["llama-3.1-8b"]), "model_type": "qwen3"})
    assert shape.approximate and shape.model_type == "qwen3"
    assert param_count(shape) == EXPECTED["llama-3.1-8b"][0]


@pytest.mark.parametrize("cfg, words", [
    ({"model_type": "mamba", "hidden_size": 768, "num_hidden_layers": 24}, ["num_attention_heads",
                                                                           "intermediate_size", "vocab_size"]),
    ({}, ["hidden_size", "num_hidden_layers"]),
    ({**to_config_dict(SHAPES["mistral-7b-v0.1"]), "model_type": "mixtral", "num_local_experts": 8},
     ["mixture-of-experts", "num_local_experts"]),
    ({"model_type": "llava", "text_config": {"model_type": "llama"}}, ["text_config"]),
])
def test_unreadable_configs_name_the_way_out(cfg, words):
    with pytest.raises(ModelError) as err:
        from_config_json(cfg)
    text = str(err.value)
    assert all(w in text for w in words), text
    assert "--params N --largest-layer N" in text and "exact" in text


@pytest.mark.parametrize("cfg, word", [
    ({"model_type": "llama", "hidden_size": 0}, "hidden_size must be a positive integer"),
    ({"model_type": "llama", "hidden_size": "4096"}, "hidden_size must be a positive integer"),
    ({"model_type": "llama", "num_layers": True, "num_hidden_layers": True}, "num_hidden_layers"),
    ({"model_type": "llama", "hidden_size": 4100, "num_attention_heads": 32}, "not a multiple of"),
    ({"model_type": "llama", "num_key_value_heads": 5}, "not a multiple of num_key_value_heads"),
    ({"model_type": "llama", "tie_word_embeddings": "yes"}, "true or false"),
])
def test_bad_values(cfg, word):
    with pytest.raises(ModelError, match=word):
        from_config_json(cfg)


def test_bad_files(tmp_path):
    with pytest.raises(ModelError, match="cannot read"):
        from_config_json(tmp_path / "absent.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ModelError, match="not valid JSON"):
        from_config_json(bad)
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]")
    with pytest.raises(ModelError, match="not a config object"):
        from_config_json(listed)


def test_unknown_family():
    shape = ModelShape(**{**SHAPES["gpt2"].__dict__, "family": "t5"})
    with pytest.raises(ModelError, match="unknown family"):
        param_count(shape)


def test_import_stays_light():
    code = ("import json, sys; import wizard.core.memory.shapes as m; m.from_config_json({'model_type': 'gpt2'}); "
            "m.param_count(m.shape_by_name('qwen2.5-72b')); "
            "print(json.dumps(sorted({n.split('.')[0] for n in sys.modules} & {'torch', 'transformers', "
            "'accelerate', 'deepspeed', 'textual', 'numpy'})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_accelerate_counts_differ_where_its_definitions_do():
    """accelerate estimate-memory builds the model without its LM head and takes a whole block as a layer."""
    from wizard.core.memory.shapes import accelerate_counts

    # Mistral: a decoder block (218M) is bigger than the embedding (131M); no untied head in the total
    assert accelerate_counts(SHAPES["mistral-7b-v0.1"]) == (7_241_732_096 - 131_072_000, 218_112_000)
    assert largest_layer_params(SHAPES["mistral-7b-v0.1"]) == 131_072_000
    # tied models: the same total; the embedding stays the largest
    assert accelerate_counts(SHAPES["gpt2"]) == (124_439_808, 38_597_376)
    assert accelerate_counts(SHAPES["llama-3.1-8b"]) == (7_504_924_672, 525_336_576)


def test_tinygpt_is_the_bundled_script_and_not_a_hub_shape():
    from wizard.core.memory.shapes import TINYGPT_DEFAULTS, tinygpt_shape

    shape = shape_by_name("TinyGPT")
    assert "tinygpt" not in SHAPES and shape.kind == "tinygpt" and shape.family == "gpt2"
    assert (shape.vocab_size, shape.hidden_size, shape.num_layers, shape.num_heads, shape.max_positions) == \
        tuple(TINYGPT_DEFAULTS[k] for k in ("vocab", "d_model", "n_layers", "n_heads", "seq_len"))
    # vocab 64, d 64: tok 64*64, pos 32*64, 2 blocks of 12 d^2 + 13 d, ln_f 2d, untied head 64*64
    assert param_count(shape) == 64 * 64 + 32 * 64 + 2 * (12 * 64 * 64 + 13 * 64) + 2 * 64 + 64 * 64
    with pytest.raises(ModelError, match="d_model 60 is not a multiple of n_heads 8"):
        tinygpt_shape(d_model=60, n_heads=8)
    with pytest.raises(ModelError, match="n_layers must be a positive integer"):
        tinygpt_shape(n_layers=0)


def test_tinygpt_defaults_follow_the_script():
    import importlib.util

    from wizard.core.memory.shapes import TINYGPT_DEFAULTS

    spec = importlib.util.spec_from_file_location("bundled_train_gpt", ROOT / "templates" / "train_gpt.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)  # torch is imported inside build_model only
    args = script.parse_args([])
    assert {k: getattr(args, k) for k in TINYGPT_DEFAULTS} == TINYGPT_DEFAULTS
