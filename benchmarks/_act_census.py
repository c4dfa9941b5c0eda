"""Activation and logits bytes of real models on CPU, for benchmarks/memory.py (imported there; runs in-process).

The measure is torch's own ``MemTracker`` (torch/distributed/_tools/mem_tracker.py), which follows every tensor
storage a forward/backward creates and files it as a parameter, a gradient, an activation (created in forward) or a
temporary (created in backward). "Activation bytes" here are the most ACT + TEMP bytes alive at any moment of one
forward and backward: what the estimate's ``activations`` + ``logits`` describe (parameters and their gradients are
counted elsewhere in the estimate). The peak of a causal LM comes in the loss's backward: every layer's saved
tensors, the logits the model returned, the fp32 log-softmax the loss saved, and the two fp32 gradients of its
backward.
"""
from __future__ import annotations

from typing import Any

import torch
from torch.distributed._tools.mem_tracker import MemTracker, _MemRefType


class _ActPeak(MemTracker):
    """MemTracker that also keeps the most ACT + TEMP bytes seen at any update."""

    def __init__(self) -> None:
        super().__init__()
        self.act_peak = 0

    def _update_snap(self, *args: Any, **kwargs: Any) -> None:
        super()._update_snap(*args, **kwargs)
        for snap in self._curr_mem_snap.values():
            self.act_peak = max(self.act_peak, snap.get(_MemRefType.ACT, 0) + snap.get(_MemRefType.TEMP, 0))


def measure(model: torch.nn.Module, step) -> dict[str, int]:
    """``step()`` runs one forward and returns the loss; its backward is run here. Returns the ACT + TEMP peak and
    the ACT bytes alive at the end of forward."""
    mt = _ActPeak()
    mt.track_external(model)
    with mt:
        loss = step()
        forward_end = sum(s.get(_MemRefType.ACT, 0) for s in mt._curr_mem_snap.values())
        loss.backward()
    model.zero_grad(set_to_none=True)
    return {"peak": mt.act_peak, "forward_end": forward_end}


class _StepPeak(MemTracker):
    """MemTracker that keeps the most bytes of every kind (parameters, gradients, optimizer states, activations,
    temporaries) alive at any update."""

    def __init__(self) -> None:
        super().__init__()
        self.peak = 0

    def _update_snap(self, *args: Any, **kwargs: Any) -> None:
        super()._update_snap(*args, **kwargs)
        total = sum(v for snap in self._curr_mem_snap.values() for k, v in snap.items() if k != "Total")
        self.peak = max(self.peak, total)


def step_peak(model: torch.nn.Module, ids: torch.Tensor, accumulation: int, steps: int = 2) -> int:
    """The most bytes alive over ``steps`` optimizer steps of a transformers causal LM with torch's AdamW
    (foreach), ``accumulation`` micro-batches each, gradients set to None after each step as torch and the Trainer
    do: the whole-step peak the estimate's ``gpu_bytes`` describes, less the CUDA context."""
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    mt = _StepPeak()
    mt.track_external(model, opt)
    with mt:
        for _ in range(steps):
            for _ in range(accumulation):
                mt.reset_mod_stats()
                loss = model(input_ids=ids, labels=ids).loss
                loss.backward()
                del loss
            opt.step()
            opt.zero_grad(set_to_none=True)
    return mt.peak


def llama(layers: int, *, h: int = 1024, inner: int = 2816, heads: int = 16, kv: int = 4, vocab: int = 8192):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=h, intermediate_size=inner, num_attention_heads=heads, num_key_value_heads=kv,
                      num_hidden_layers=layers, vocab_size=vocab, use_cache=False)
    return LlamaForCausalLM(cfg).to(torch.bfloat16).train()


def gpt2(layers: int, *, h: int = 768, heads: int = 12, vocab: int = 8192, positions: int = 1024):
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    cfg = GPT2Config(n_embd=h, n_head=heads, n_layer=layers, vocab_size=vocab, n_positions=positions,
                     attn_implementation="eager", use_cache=False)
    return GPT2LMHeadModel(cfg).to(torch.bfloat16).train()


def hf_step(model, ids):
    return lambda: model(input_ids=ids, labels=ids).loss


def tinygpt(layers: int, *, d: int, heads: int, vocab: int, seq: int, checkpoint: bool):
    """The bundled script's model (templates/train_gpt.py build_model), fp32 as the CPU rehearsal runs it; with
    ``checkpoint`` each GPTBlock is wrapped the way accelerate's FSDP ``activation_checkpointing`` does it
    (torch's ``apply_activation_checkpointing``, non-reentrant checkpoint_wrapper)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "templates"))
    import train_gpt

    args = train_gpt.parse_args(["--d-model", str(d), "--n-heads", str(heads), "--n-layers", str(layers),
                                 "--seq-len", str(seq), "--vocab", str(vocab)])
    torch.manual_seed(0)
    model = train_gpt.build_model(args).train()
    if checkpoint:
        from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import apply_activation_checkpointing

        block = type(model.blocks[0])
        apply_activation_checkpointing(model, check_fn=lambda m: isinstance(m, block))
    return model


def tinygpt_step(model, ids):
    import torch.nn.functional as F

    held = {}

    def step():  # the script's loss (templates/train_gpt.py: F.cross_entropy on the flattened logits, which the
        held["logits"] = logits = model(ids)  # training loop keeps alive through backward)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids.reshape(-1))
    return step


def lm_head_and_loss(*, h: int, vocab: int, seq: int, batch: int) -> dict[str, int]:
    """An LM head (h -> V, bf16) and transformers' causal-LM loss (ForCausalLMLoss, which upcasts to fp32) on
    hidden states made outside the tracker: the logits term alone."""
    from transformers.loss.loss_utils import ForCausalLMLoss

    torch.manual_seed(0)
    head = torch.nn.Linear(h, vocab, bias=False).to(torch.bfloat16)
    hidden = torch.randn(batch, seq, h, dtype=torch.bfloat16, requires_grad=True)
    labels = torch.randint(vocab, (batch, seq))
    held = {}

    def step():
        held["logits"] = head(hidden)  # the model's output keeps the logits alive through backward
        return ForCausalLMLoss(held["logits"], labels, vocab_size=vocab)
    return measure(head, step)
