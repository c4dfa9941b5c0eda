"""A model's architecture numbers, enough to count parameters and activations without building it.

The interface the estimator relies on (issue 10); the shipped shapes and the config.json reader live here too.

- :data:`SHAPES` and :func:`shape_by_name`: the architectures shipped with the package, written from the numbers of
  their published ``config.json`` (the Hub repository is named in each shape's ``source``).
- :func:`from_config_json`: a transformers ``config.json`` (path or mapping) of the gpt2 / llama / mistral / qwen2
  families, or anything with the Llama keys. Reads the file only; never downloads.
- :func:`param_count`, :func:`largest_layer_params`, :func:`per_layer_params`, :func:`embedding_params`: the counts,
  with tied parameters counted once and the "largest layer" as DeepSpeed defines it (``model_to_params`` in
  ``deepspeed/runtime/zero/stage3.py``: the most *direct* parameters of any one module).
- :func:`accelerate_counts`: what ``accelerate estimate-memory`` counts instead (no LM head; a whole block as the
  largest layer), for a side-by-side comparison.
- :func:`exact_counts`: the same two numbers for any architecture, by building the model with transformers on the
  meta device (imports torch and transformers inside the function only).

Stdlib only at import time.
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..i18n import said


class ModelError(ValueError):
    """A model name, config.json or shape that cannot be read or counted; the message says what to do instead."""


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
    head_dim: int = 0
    """Width of one attention head; 0 means ``hidden_size // num_heads`` (what transformers does without the key)."""
    o_proj_bias: bool = False
    """A bias on the attention output projection (Llama's ``attention_bias: true`` sets it with q/k/v; Qwen2: no)."""
    mlp_bias: bool = False
    """Biases on gate/up/down (Llama's ``mlp_bias``)."""
    model_type: str = ""
    """The transformers ``model_type`` (``gpt2``, ``llama``, ``mistral``, ``qwen2``, ...); empty means the family."""
    windowed_attention: str = ""
    """The attention layer types other than full causal attention the config gives (``sliding_attention``,
    comma-joined when several), read as accelerate reads them before context parallelism (its ``layer_types``, else
    a ``sliding_window`` that is set: :func:`windowed_attention`); empty: every layer full causal."""
    approximate: bool = False
    """True when the config's ``model_type`` is none of the families above and was read by its Llama keys: the count
    then ignores whatever that architecture adds (extra norms, other layouts); :func:`exact_counts` is exact."""

    @property
    def head_width(self) -> int:
        """The head width in use (``head_dim`` or ``hidden_size // num_heads``)."""
        return self.head_dim or self.hidden_size // self.num_heads

    @property
    def kind(self) -> str:
        """The transformers ``model_type`` this shape builds as."""
        return self.model_type or self.family


# --- shipped shapes ------------------------------------------------------------------------------------------------

def _gpt2(name: str, hub: str, hidden: int, layers: int, heads: int) -> ModelShape:
    return ModelShape(name=name, family="gpt2", vocab_size=50257, hidden_size=hidden, num_layers=layers,
                      num_heads=heads, num_kv_heads=heads, intermediate_size=4 * hidden, max_positions=1024,
                      tie_embeddings=True, model_type="gpt2", source=f"huggingface.co/{hub} config.json")


def _llama(name: str, hub: str, *, vocab: int, hidden: int, layers: int, heads: int, kv: int, inner: int,
           tie: bool = False, model_type: str = "llama", qkv_bias: bool = False, windowed: str = "") -> ModelShape:
    return ModelShape(name=name, family="llama", vocab_size=vocab, hidden_size=hidden, num_layers=layers,
                      num_heads=heads, num_kv_heads=kv, intermediate_size=inner, tie_embeddings=tie,
                      attention_bias=qkv_bias, model_type=model_type, windowed_attention=windowed,
                      source=f"huggingface.co/{hub} config.json")


SHAPES: dict[str, ModelShape] = {s.name: s for s in (
    _gpt2("gpt2", "openai-community/gpt2", 768, 12, 12),
    _gpt2("gpt2-medium", "openai-community/gpt2-medium", 1024, 24, 16),
    _gpt2("gpt2-large", "openai-community/gpt2-large", 1280, 36, 20),
    _gpt2("gpt2-xl", "openai-community/gpt2-xl", 1600, 48, 25),
    _llama("llama-3.2-1b", "meta-llama/Llama-3.2-1B", vocab=128256, hidden=2048, layers=16, heads=32, kv=8,
           inner=8192, tie=True),
    _llama("llama-3.2-3b", "meta-llama/Llama-3.2-3B", vocab=128256, hidden=3072, layers=28, heads=24, kv=8,
           inner=8192, tie=True),
    _llama("llama-3.1-8b", "meta-llama/Llama-3.1-8B", vocab=128256, hidden=4096, layers=32, heads=32, kv=8,
           inner=14336),
    _llama("llama-3.1-70b", "meta-llama/Llama-3.1-70B", vocab=128256, hidden=8192, layers=80, heads=64, kv=8,
           inner=28672),
    # v0.1 (vocab 32000): the version most published memory measurements use; v0.3 differs only in vocab (32768).
    _llama("mistral-7b-v0.1", "mistralai/Mistral-7B-v0.1", vocab=32000, hidden=4096, layers=32, heads=32, kv=8,
           inner=14336, model_type="mistral", windowed="sliding_attention"),  # its config.json: sliding_window 4096
    _llama("qwen2.5-7b", "Qwen/Qwen2.5-7B", vocab=152064, hidden=3584, layers=28, heads=28, kv=4, inner=18944,
           model_type="qwen2", qkv_bias=True),
    _llama("qwen2.5-72b", "Qwen/Qwen2.5-72B", vocab=152064, hidden=8192, layers=80, heads=64, kv=8, inner=29568,
           model_type="qwen2", qkv_bias=True),
)}

# The bundled rehearsal model (templates/train_gpt.py ``TinyGPT``): token + learned position embeddings, GPT-2 style
# blocks (LayerNorm, qkv and output projections with biases, a 4h GELU MLP), a final LayerNorm and an untied head
# without bias: GPT-2's parameter layout, with SDPA attention and no dropout (its activations differ, see
# wizard/core/memory/estimate.py TINYGPT_COEF_BASE). Not one of the Hub shapes above: shape_by_name("tinygpt") gives
# the script's defaults; tinygpt_shape() takes its --vocab/--d-model/--n-layers/--n-heads/--seq-len.
TINYGPT_DEFAULTS = {"vocab": 64, "d_model": 64, "n_layers": 2, "n_heads": 4, "seq_len": 32}
"""The defaults of templates/train_gpt.py ``build_parser`` (--vocab 64 --d-model 64 --n-layers 2 --n-heads 4
--seq-len 32)."""


def tinygpt_shape(vocab: int = 64, d_model: int = 64, n_layers: int = 2, n_heads: int = 4,
                  seq_len: int = 32) -> ModelShape:
    """The shape of the bundled script's TinyGPT for its command-line sizes (the defaults are the script's)."""
    for key, value in (("vocab", vocab), ("d_model", d_model), ("n_layers", n_layers), ("n_heads", n_heads),
                       ("seq_len", seq_len)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ModelError(said(f"tinygpt: {key} must be a positive integer, not {value!r}"))
    if d_model % n_heads:
        raise ModelError(said(f"tinygpt: d_model {d_model} is not a multiple of n_heads {n_heads}"))
    return ModelShape(name="tinygpt", family="gpt2", vocab_size=vocab, hidden_size=d_model, num_layers=n_layers,
                      num_heads=n_heads, num_kv_heads=n_heads, intermediate_size=4 * d_model, max_positions=seq_len,
                      tie_embeddings=False, model_type="tinygpt", source="templates/train_gpt.py (TinyGPT)")


# Other spellings people use for the same architecture (instruct / chat tunings share the base model's shape).
_ALIASES: dict[str, str] = {
    "mistral-7b": "mistral-7b-v0.1",
    "mistral-7b-instruct-v0.1": "mistral-7b-v0.1",
    "mistral-7b-v0.2": "mistral-7b-v0.1",  # v0.2 changed RoPE and the sliding window, not a parameter
    "mistral-7b-instruct-v0.2": "mistral-7b-v0.1",
    "meta-llama-3.1-8b": "llama-3.1-8b",
    "meta-llama-3.1-70b": "llama-3.1-70b",
    "meta-llama-3.1-8b-instruct": "llama-3.1-8b",
    "meta-llama-3.1-70b-instruct": "llama-3.1-70b",
}

# Near neighbours of a shipped shape whose count differs: a did-you-mean would point at the wrong numbers.
def _mistral_v03() -> str:
    return said("Mistral 7B v0.3 has a 32768-token vocabulary (v0.1 and v0.2, shipped as mistral-7b-v0.1, have 32000): "
                "give its config.json path.")


_NOT_SHIPPED: dict[str, str] = {key: _mistral_v03() for key in ("mistral-7b-v0.3", "mistral-7b-instruct-v0.3")}


def _alias_key(name: str) -> str:
    key = name.strip().lower()
    if "/" in key:  # a Hub id: the organisation does not change the shape
        key = key.rsplit("/", 1)[1]
    return key


def _lookup(key: str) -> str | None:
    if key in SHAPES:
        return key
    if key in _ALIASES:
        return _ALIASES[key]
    for suffix in ("-instruct", "-chat"):
        if key.endswith(suffix) and key[: -len(suffix)] in SHAPES:
            return key[: -len(suffix)]
    return None


PARAMS_HINT = ", or --params N --largest-layer N"
"""The unknown-model message's pointer to the parameter-count options (estimate and recommend have them; check
leaves it out)."""


def shape_by_name(name: str, *, params_hint: bool = True) -> ModelShape:
    """The shipped shape called ``name``: its id (``llama-3.1-8b``), its Hub id (``meta-llama/Llama-3.1-8B``) or an
    instruct/chat tuning of it, case-insensitive. Raises :class:`ModelError` naming the known shapes otherwise (and,
    with ``params_hint``, the parameter-count options: :data:`PARAMS_HINT`)."""
    found = _lookup(_alias_key(name))
    if found is not None:
        return SHAPES[found]
    if _alias_key(name) == "tinygpt":
        return tinygpt_shape()
    known = sorted(SHAPES)
    key = _alias_key(name)
    if key in _NOT_SHIPPED:
        raise ModelError(said(f"{name!r} is not shipped: {_NOT_SHIPPED[key]} Shipped shapes: {', '.join(known)}."))
    import difflib  # only on the error path (import time counts: the estimate's whole process has 150 ms)

    close = difflib.get_close_matches(key, known + sorted(_ALIASES), n=1, cutoff=0.6)
    shapes = ", ".join(known)
    tail = ", or --params N --largest-layer N" if params_hint else ""  # PARAMS_HINT, written out: a template's words
    if close:
        meant = _ALIASES.get(close[0], close[0])
        raise ModelError(said(f"unknown model {name!r}. Did you mean {meant!r}? Shipped shapes: {shapes} (and tinygpt, "
                              f"the bundled script's model); or give a config.json path{tail}."))
    raise ModelError(said(f"unknown model {name!r}. Shipped shapes: {shapes} (and tinygpt, the bundled script's "
                          f"model); or give a config.json path{tail}."))


# --- config.json ---------------------------------------------------------------------------------------------------

_LLAMA_KEYS = ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size")
_GPT2_KEYS = ("vocab_size", "n_embd", "n_layer", "n_head")
_LLAMA_TYPES = {"llama", "mistral", "qwen2"}
# What transformers 5.24 fills in for a key a config.json leaves out, per model_type (the config classes' defaults:
# transformers/models/gpt2/configuration_gpt2.py:77-102, llama/configuration_llama.py:63-89,
# mistral/configuration_mistral.py:62-85, qwen2/configuration_qwen2.py:60-85). num_key_value_heads written as null
# means num_attention_heads in all three Llama-style classes; left out, Mistral's and Qwen2's defaults apply.
_DEFAULTS: dict[str, dict[str, Any]] = {
    "gpt2": {"vocab_size": 50257, "n_positions": 1024, "n_embd": 768, "n_layer": 12, "n_head": 12},
    "llama": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
              "num_attention_heads": 32},
    "mistral": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                "num_attention_heads": 32, "num_key_value_heads": 8},
    "qwen2": {"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016, "num_hidden_layers": 32,
              "num_attention_heads": 32, "num_key_value_heads": 32},
}
_MOE_KEYS = ("num_local_experts", "num_experts", "n_routed_experts", "moe_intermediate_size")


def _load(path_or_mapping: str | os.PathLike[str] | Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    if isinstance(path_or_mapping, Mapping):
        return dict(path_or_mapping), ""
    path = os.fspath(path_or_mapping)
    if os.path.isdir(path):
        path = os.path.join(path, "config.json")
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise ModelError(said(f"cannot read the model config {path!r}: {exc.strerror or exc}")) from exc
    except json.JSONDecodeError as exc:
        raise ModelError(said(f"{path!r} is not valid JSON: {exc.msg} at line {exc.lineno}")) from exc
    if not isinstance(data, dict):
        raise ModelError(said(f"{path!r} holds a JSON {type(data).__name__}, not a config object"))
    return data, path


def _positive(cfg: Mapping[str, Any], key: str, where: str) -> int:
    value = cfg[key]
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ModelError(said(f"{where}: {key} must be a positive integer, not {value!r}"))
    return value


def _flag(cfg: Mapping[str, Any], key: str, default: bool, where: str) -> bool:
    value = cfg.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ModelError(said(f"{where}: {key} must be true or false, not {value!r}"))
    return value


def _missing(cfg: Mapping[str, Any], keys: tuple[str, ...]) -> list[str]:
    return [k for k in keys if cfg.get(k) is None]


def _unreadable(where: str, model_type: str, detail: str) -> ModelError:
    return ModelError(said(f"{where}: cannot count a {model_type or 'model'} from its config.json ({detail}). Give "
                      "--params N --largest-layer N, or count it exactly with transformers installed "
                      "(wizard.core.memory.shapes.exact_counts builds it on the meta device)."))


def windowed_attention(cfg: Mapping[str, Any]) -> str:
    """The attention layer types other than ``full_attention`` a config.json mapping gives, the way transformers builds
    the config and accelerate then reads it before context parallelism (claim accelerate-cp-refuses-windowed-attention):
    its ``layer_types``; else, for Qwen2, a ``sliding_window`` only with ``use_sliding_window`` and layers from
    ``max_window_layers`` on; else any ``sliding_window`` that is set. Comma-joined, sorted; empty: all full."""
    types = cfg.get("layer_types")
    if isinstance(types, (list, tuple)):
        return ",".join(sorted({str(t) for t in types} - {"full_attention"}))
    window = cfg.get("sliding_window")
    if str(cfg.get("model_type") or "") == "qwen2":
        layers, first = cfg.get("num_hidden_layers"), cfg.get("max_window_layers", 28)
        on = bool(cfg.get("use_sliding_window")) and window is not None
        return "sliding_attention" if on and isinstance(layers, int) and isinstance(first, int) and first < layers \
            else ""
    return "sliding_attention" if window is not None else ""


def from_config_json(path_or_mapping: str | os.PathLike[str] | Mapping[str, Any], name: str = "") -> ModelShape:
    """The shape a transformers ``config.json`` describes (a path, a folder holding one, or the parsed mapping).

    Reads gpt2 (``n_embd``, ``n_layer``, ``n_head``, ``n_positions``, ``n_inner``; embeddings tied unless the config
    says otherwise), llama, mistral and qwen2, and any other ``model_type`` carrying the Llama keys (then marked
    ``approximate``). Mixture-of-experts configs and configs missing the keys raise :class:`ModelError`.
    Never downloads anything."""
    cfg, path = _load(path_or_mapping)
    where = path or "model config"
    model_type = str(cfg.get("model_type") or "")
    if cfg.get("text_config") and isinstance(cfg["text_config"], Mapping) and _missing(cfg, _LLAMA_KEYS):
        raise _unreadable(where, model_type, said("a multimodal config: the text model sits under text_config and the "
                                             "vision parts are not counted"))
    label = name or (os.path.basename(os.path.dirname(os.path.abspath(path))) if path else model_type or "model")
    defaults = _DEFAULTS.get(model_type, {})
    cfg = {**{k: v for k, v in defaults.items() if k not in cfg}, **cfg}
    if model_type == "gpt2" or (not model_type and not _missing(cfg, _GPT2_KEYS)):
        missing = _missing(cfg, _GPT2_KEYS)
        if missing:
            raise _unreadable(where, "gpt2", "missing " + ", ".join(missing))
        hidden = _positive(cfg, "n_embd", where)
        heads = _positive(cfg, "n_head", where)
        inner = cfg.get("n_inner")
        return ModelShape(
            name=label, family="gpt2", vocab_size=_positive(cfg, "vocab_size", where), hidden_size=hidden,
            num_layers=_positive(cfg, "n_layer", where), num_heads=heads, num_kv_heads=heads,
            intermediate_size=4 * hidden if inner is None else _positive(cfg, "n_inner", where),
            max_positions=_positive(cfg, "n_positions", where) if cfg.get("n_positions") is not None else 1024,
            tie_embeddings=_flag(cfg, "tie_word_embeddings", True, where), model_type="gpt2",
            source=path or "config mapping")
    missing = _missing(cfg, _LLAMA_KEYS)
    if missing:
        raise _unreadable(where, model_type, "missing " + ", ".join(missing))
    moe = [k for k in _MOE_KEYS if cfg.get(k)]
    if moe:
        raise _unreadable(where, model_type, said("a mixture-of-experts model (" + ", ".join(moe) + ")"))
    heads = _positive(cfg, "num_attention_heads", where)
    kv = _positive(cfg, "num_key_value_heads", where) if cfg.get("num_key_value_heads") is not None else heads
    head_dim = _positive(cfg, "head_dim", where) if cfg.get("head_dim") is not None else 0
    hidden = _positive(cfg, "hidden_size", where)
    if not head_dim and hidden % heads:
        raise ModelError(said(f"{where}: hidden_size {hidden} is not a multiple of num_attention_heads {heads}"))
    if heads % kv:
        raise ModelError(said(f"{where}: num_attention_heads {heads} is not a multiple of num_key_value_heads {kv}"))
    if model_type == "qwen2":
        qkv_bias, o_bias = True, False  # Qwen2Attention: q/k/v always biased, o_proj never
    elif model_type == "mistral":
        qkv_bias = o_bias = False  # MistralAttention has no biases
    else:
        qkv_bias = o_bias = _flag(cfg, "attention_bias", False, where)
    return ModelShape(
        name=label, family="llama", vocab_size=_positive(cfg, "vocab_size", where), hidden_size=hidden,
        num_layers=_positive(cfg, "num_hidden_layers", where), num_heads=heads, num_kv_heads=kv,
        intermediate_size=_positive(cfg, "intermediate_size", where),
        tie_embeddings=_flag(cfg, "tie_word_embeddings", False, where), attention_bias=qkv_bias,
        o_proj_bias=o_bias, mlp_bias=model_type not in ("qwen2", "mistral") and _flag(cfg, "mlp_bias", False, where),
        head_dim=head_dim, model_type=model_type or "llama", approximate=model_type not in _LLAMA_TYPES,
        windowed_attention=windowed_attention(cfg), source=path or "config mapping")


def to_config_dict(shape: ModelShape) -> dict[str, Any]:
    """A transformers config dict (``model_type`` and the architecture keys) that builds ``shape``."""
    if shape.family == "gpt2":
        return {"model_type": "gpt2", "vocab_size": shape.vocab_size, "n_embd": shape.hidden_size,
                "n_layer": shape.num_layers, "n_head": shape.num_heads, "n_positions": shape.max_positions,
                "n_inner": shape.intermediate_size, "tie_word_embeddings": shape.tie_embeddings}
    out: dict[str, Any] = {
        "model_type": shape.kind, "vocab_size": shape.vocab_size, "hidden_size": shape.hidden_size,
        "num_hidden_layers": shape.num_layers, "num_attention_heads": shape.num_heads,
        "num_key_value_heads": shape.num_kv_heads, "intermediate_size": shape.intermediate_size,
        "tie_word_embeddings": shape.tie_embeddings}
    if shape.head_dim:
        out["head_dim"] = shape.head_dim
    if shape.kind not in ("qwen2", "mistral"):
        out["attention_bias"] = shape.attention_bias
        out["mlp_bias"] = shape.mlp_bias
    return out


# --- counting ------------------------------------------------------------------------------------------------------

def _check(shape: ModelShape) -> None:
    if shape.family not in ("gpt2", "llama"):
        raise ModelError(said(f"model {shape.name!r}: unknown family {shape.family!r} (gpt2 or llama)"))


def _modules(shape: ModelShape) -> tuple[list[int], list[int]]:
    """The direct parameter counts of every module that has some: (outside the blocks, inside one block)."""
    _check(shape)
    h, v, inner = shape.hidden_size, shape.vocab_size, shape.intermediate_size
    if shape.family == "gpt2":
        # GPT2Block: ln_1, attn.c_attn (Conv1D h->3h), attn.c_proj (h->h), ln_2, mlp.c_fc (h->inner), mlp.c_proj.
        block = [2 * h, h * 3 * h + 3 * h, h * h + h, 2 * h, h * inner + inner, inner * h + h]
        outside = [v * h, shape.max_positions * h, 2 * h]  # wte, wpe, ln_f
        if not shape.tie_embeddings:
            outside.append(v * h)  # lm_head (no bias)
        return outside, block
    q, kv = shape.num_heads * shape.head_width, shape.num_kv_heads * shape.head_width
    qkv_b = 1 if shape.attention_bias else 0
    mlp_b = 1 if shape.mlp_bias else 0
    block = [h, h,  # input_layernorm, post_attention_layernorm (RMSNorm: weight only)
             h * q + q * qkv_b, h * kv + kv * qkv_b, h * kv + kv * qkv_b,  # q, k, v
             q * h + h * (1 if shape.o_proj_bias else 0),  # o_proj
             h * inner + inner * mlp_b, h * inner + inner * mlp_b, inner * h + h * mlp_b]  # gate, up, down
    outside = [v * h, h]  # embed_tokens, final norm
    if not shape.tie_embeddings:
        outside.append(v * h)
    return outside, block


def tp_split_params(shape: ModelShape) -> tuple[int, int]:
    """(parameters of one block, parameters outside the blocks) that transformers' tensor-parallel plan splits over
    the tensor-parallel ranks (wizard/core/library/transformers_tp.py ``LLAMA_TP_LAYERS``): the attention and MLP
    projections (colwise: weight and bias, rowwise: weight only), the input embedding (on the vocabulary) and an
    untied LM head; only the norms (and rowwise biases) stay whole. (0, 0) for a model without a plan (``TP_PLAN``)
    or not of the Llama family: nothing is split."""
    from ..library.transformers_tp import LLAMA_TP_LAYERS, TP_PLAN

    _check(shape)
    if shape.family != "llama" or not TP_PLAN.get(shape.kind, False):
        return 0, 0
    h, inner = shape.hidden_size, shape.intermediate_size
    q, kv = shape.num_heads * shape.head_width, shape.num_kv_heads * shape.head_width
    qkv_b, mlp_b = (1 if shape.attention_bias else 0), (1 if shape.mlp_bias else 0)
    widths = {"q_proj": (h, q, qkv_b), "k_proj": (h, kv, qkv_b), "v_proj": (h, kv, qkv_b),
              "o_proj": (q, h, 1 if shape.o_proj_bias else 0), "gate_proj": (h, inner, mlp_b),
              "up_proj": (h, inner, mlp_b), "down_proj": (inner, h, mlp_b)}
    block = 0
    for name, (fan_in, fan_out, bias) in widths.items():
        block += fan_in * fan_out + (fan_out * bias if LLAMA_TP_LAYERS[name] == "colwise" else 0)
    outside = shape.vocab_size * h if "embed_tokens" in LLAMA_TP_LAYERS else 0
    if not shape.tie_embeddings and "lm_head" in LLAMA_TP_LAYERS:
        outside += shape.vocab_size * h
    return block, outside


def per_layer_params(shape: ModelShape) -> int:
    """Parameters of one decoder block."""
    return sum(_modules(shape)[1])


def embedding_params(shape: ModelShape) -> int:
    """Parameters of the input embeddings (tokens, and learned positions for gpt2); the LM head is not included."""
    _check(shape)
    return shape.vocab_size * shape.hidden_size + shape.max_positions * shape.hidden_size


def param_count(shape: ModelShape) -> int:
    """All parameters, tied ones (the LM head sharing the token embedding) counted once."""
    outside, block = _modules(shape)
    return sum(outside) + shape.num_layers * sum(block)


def largest_layer_params(shape: ModelShape) -> int:
    """DeepSpeed's "largest layer": the most direct parameters held by one module (``parameters(recurse=False)``),
    usually the token embedding or the LM head (vocab x hidden)."""
    outside, block = _modules(shape)
    return max(outside + (block if shape.num_layers else []))


def accelerate_counts(shape: ModelShape) -> tuple[int, int]:
    """What ``accelerate estimate-memory`` counts, in parameters: (the base model it builds, its "largest layer").

    It builds ``AutoModel`` (accelerate/commands/estimate.py:135-145), the model without its LM head, so an untied
    head is missing from its total; and its largest layer (``calculate_maximum_sizes``, accelerate/utils/modeling.py
    :1079-1094) is the biggest whole decoder block (a ``_no_split_modules`` class) or module outside the blocks,
    not DeepSpeed's biggest single module. Its bytes are these counts times the dtype's size, plus the buffers
    (RoPE's ``inv_freq``: a few hundred bytes)."""
    outside, block = _modules(shape)
    if not shape.tie_embeddings:
        outside = outside[:-1]  # the LM head, which AutoModel does not build
    base = sum(outside) + shape.num_layers * sum(block)
    return base, max(outside + ([sum(block)] if shape.num_layers else []))


def exact_counts(config: Any) -> tuple[int, int]:
    """(total parameters, DeepSpeed's largest layer) of any causal-LM architecture transformers knows, built on the
    meta device (no weights, no memory, no download).

    ``config`` is a transformers ``PretrainedConfig``, a config mapping with ``model_type``, a config.json path, or a
    :class:`ModelShape`. Shared parameters are counted once by identity (DeepSpeed's own ``model_to_params``
    deduplicates by ``data_ptr()``, which is 0 for every meta tensor, so it cannot run on a meta model); the largest
    layer is the max over ``model.modules()`` of ``sum(p.numel() for p in m.parameters(recurse=False))``, as there.
    Imports torch and transformers here only."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, PretrainedConfig

    if isinstance(config, ModelShape):
        config = to_config_dict(config)
    if isinstance(config, (str, os.PathLike)):
        config, _ = _load(config)
    if isinstance(config, Mapping):
        data = dict(config)
        model_type = data.pop("model_type", None)
        if not model_type:
            raise ModelError(said("exact_counts: the config has no model_type"))
        for key in ("architectures", "transformers_version", "_name_or_path", "torch_dtype", "dtype"):
            data.pop(key, None)
        try:
            config = AutoConfig.for_model(model_type, **data)
        except (KeyError, ValueError) as exc:
            problem = said(f"exact_counts: transformers does not know model_type {model_type!r}: {exc}")
            raise ModelError(problem) from exc
    if not isinstance(config, PretrainedConfig):
        raise ModelError(said(f"exact_counts: cannot build a model from a {type(config).__name__}"))
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    seen: dict[int, int] = {}
    for _, p in model.named_parameters(remove_duplicate=False):
        seen[id(p)] = p.numel()
    largest = 0
    for module in model.modules():
        largest = max(largest, sum(p.numel() for p in module.parameters(recurse=False)))
    return sum(seen.values()), largest


def with_name(shape: ModelShape, name: str) -> ModelShape:
    """``shape`` under another name (for a config.json read from a path whose folder name says little)."""
    return replace(shape, name=name)
