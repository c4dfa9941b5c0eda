"""Runs accelerate FSDP on two CPU gloo ranks (tests/claims/test_prefetch.py starts it) and prints one JSON line.

Reuses tests/claims/_fsdp_cpu.py (its import installs the rehearsal shim wizard/run/cpu_fsdp_compat.py, its model
and its prepare helper); everything else is the installed accelerate, torch and transformers.
"""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from _fsdp_cpu import Net, Plugin, prepared, reset  # noqa: E402 - installs the shim first


def grads_of_ignored_head(version: int) -> dict:
    """fsdp_ignored_modules="head": is the head's gradient averaged across the ranks like the others?"""
    rank = int(os.environ["RANK"])
    torch.manual_seed(0)
    model = Net()
    reference = Net()
    reference.load_state_dict(model.state_dict())
    _, wrapped = prepared(Plugin(fsdp_version=version, ignored_modules="head", use_orig_params=True), model=model)
    wrapped.eval()  # no dropout: the same maths as the reference
    reference.eval()
    torch.manual_seed(10 + rank)  # every rank its own batch
    x = torch.randn(4, 8)
    wrapped(x).sum().backward()
    reference(x).sum().backward()  # this rank's own gradient, unwrapped

    def both(t):
        out = [torch.zeros_like(t) for _ in range(2)]
        dist.all_gather(out, t.contiguous())
        return out

    local = reference.head.weight.grad
    mine, other = both(local)
    head = wrapped.head.weight
    out = {"head_plain": type(head).__name__ == "Parameter" and tuple(head.shape) == (2, 8),
           "head_grad_local": torch.allclose(head.grad, local), "ranks_differ": not torch.allclose(mine, other)}
    if version == 2:
        fc = wrapped.blocks[0].fc.weight
        ref = both(reference.blocks[0].fc.weight.grad)
        out["managed_averaged"] = torch.allclose(fc.grad.full_tensor(), (ref[0] + ref[1]) / 2)
        out["managed_dtensor"] = type(fc).__name__ == "DTensor"
    else:
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

        out["ignored_modules"] = sorted(type(m).__name__ for m in wrapped._ignored_modules)
        out["is_fsdp"] = isinstance(wrapped, FSDP)
    reset()
    return out


def llama_units(policy: str, tied: bool = False, groups: bool = False, order: bool = False) -> list:
    """Which modules accelerate's FSDP2 prepare turns into units of a tiny Llama (``groups``: the modules that share
    one FSDP parameter group, each group a sorted list; ``order``: the fully_shard calls in the order made)."""
    import torch.distributed.fsdp as fsdp
    from torch.distributed.fsdp import FSDPModule
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                                         num_attention_heads=2, num_key_value_heads=2, tie_word_embeddings=tied))
    names = {id(m): n or "<root>" for n, m in model.named_modules()}
    calls, original = [], fsdp.fully_shard

    def recorded(module, *args, **kwargs):  # prepare imports fully_shard from torch.distributed.fsdp when it runs
        calls.append([names[id(m)] for m in module] if isinstance(module, list) else names[id(module)])
        return original(module, *args, **kwargs)

    fsdp.fully_shard = recorded
    try:
        _, wrapped = prepared(Plugin(fsdp_version=2, auto_wrap_policy=policy), model=model)
    finally:
        fsdp.fully_shard = original
    if order:
        reset()
        return calls
    units = {n or "<root>": m for n, m in wrapped.named_modules() if isinstance(m, FSDPModule)}
    if groups:
        by_group: dict[int, list[str]] = {}
        for name, m in units.items():
            by_group.setdefault(id(m._get_fsdp_state()._fsdp_param_group), []).append(name)
        result = sorted(sorted(names) for names in by_group.values())
    else:
        result = sorted(units)
    reset()
    return result


def flat_or_original() -> dict:
    """Raw FSDP1 (one unit, the root) with use_orig_params false and true, in the gloo group accelerate made."""
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

    out = {}
    for flag in (False, True):
        w = FSDP(Net(), use_orig_params=flag, device_id=torch.device("cpu"))
        out[f"names_{flag}"] = [n for n, _ in w.named_parameters()]
    mixed = Net()
    mixed.blocks.requires_grad_(False)  # frozen blocks, trainable head, one unit (LoRA-like)
    for flag in (False, True):
        try:
            FSDP(mixed, use_orig_params=flag, device_id=torch.device("cpu"))
            out[f"mixed_{flag}"] = "wrapped"
        except ValueError as e:
            out[f"mixed_{flag}"] = str(e)[:80]
        mixed = Net()
        mixed.blocks.requires_grad_(False)
    return out


def fsdp1_units_without_policy() -> list[str]:
    """The FSDP1 units accelerate's prepare makes when the config names no wrap policy."""
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

    plugin = Plugin(fsdp_version=1)
    _, wrapped = prepared(plugin, model=Net())
    units = sorted(n or "<root>" for n, m in wrapped.named_modules() if isinstance(m, FSDP))
    reset()
    return units


if __name__ == "__main__":
    from accelerate import Accelerator

    Accelerator(fsdp_plugin=Plugin(fsdp_version=2))  # creates the gloo group the raw FSDP1 calls use
    result = {"flat": flat_or_original()}
    reset()
    result["v2"] = grads_of_ignored_head(2)
    result["v1"] = grads_of_ignored_head(1)
    result["units_no_wrap"] = llama_units("NO_WRAP")
    result["units_transformer"] = llama_units("TRANSFORMER_BASED_WRAP")
    result["groups_untied"] = llama_units("NO_WRAP", groups=True)
    result["groups_tied"] = llama_units("NO_WRAP", tied=True, groups=True)
    result["order_transformer"] = llama_units("TRANSFORMER_BASED_WRAP", order=True)
    result["v1_without_policy"] = fsdp1_units_without_policy()
    print("RESULT " + json.dumps({"rank": int(os.environ["RANK"]), **result}), flush=True)
    # exit without interpreter teardown: gloo's threads can abort it ('terminate called without an
    # active exception', SIGABRT) after the result is already out
    sys.stderr.flush()
    os._exit(0)
