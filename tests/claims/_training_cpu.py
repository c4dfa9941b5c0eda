"""Runs accelerate FSDP on two gloo ranks (tests/claims/test_training.py starts it) and prints one JSON line per rank.

Builds on tests/claims/_fsdp_cpu.py (its shim install, model and helpers): gradient accumulation with and without
sync_each_batch, accelerator.clip_grad_norm_ over shards, the activation-checkpoint offload wrapper and
accelerate merge-weights, with the installed accelerate and torch.
"""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# isort: off
from _fsdp_cpu import Net, Plugin, prepared, reset  # noqa: E402 - installs the CPU FSDP shim first
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from accelerate.utils import GradientAccumulationPlugin  # noqa: E402
# isort: on

RANK = int(os.environ["RANK"])
WRAP = {"auto_wrap_policy": "TRANSFORMER_BASED_WRAP", "transformer_cls_names_to_wrap": ["Block"]}


def _grad_numels(model, version: int) -> dict:
    """What one rank holds as gradients of its first block's Linear weight after a backward."""
    if version == 1:
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

        unit = next(m for m in model.modules() if isinstance(m, FSDP) and m is not model)
        flat = unit._handle.flat_param
        return {"flat_numel": flat.numel(), "unsharded_numel": flat._unpadded_unsharded_size.numel(),
                "grad_numel": None if flat.grad is None else flat.grad.numel(),
                "saved_shard": getattr(flat, "_saved_grad_shard", None) is not None}
    w = model.blocks[0].fc.weight
    fsdp_param = next(p for p in model.blocks[0]._get_fsdp_state()._fsdp_param_group.fsdp_params
                      if p.sharded_param is w)
    kept = fsdp_param._unsharded_param.grad if hasattr(fsdp_param, "_unsharded_param") else None
    return {"grad": None if w.grad is None else list(w.grad.to_local().shape),
            "unsharded_grad": None if kept is None else list(kept.shape), "full": list(w.shape)}


def accumulation() -> dict:
    out: dict = {}
    x = torch.randn(4, 8)
    for version in (1, 2):
        for each in (False, True):
            plugin = GradientAccumulationPlugin(num_steps=2, sync_each_batch=each)
            acc, model = prepared(Plugin(fsdp_version=version, **WRAP), gradient_accumulation_plugin=plugin)
            with acc.accumulate(model):  # first micro-batch of two: no optimizer step yet
                acc.backward(model(x).sum())
            first = _grad_numels(model, version)
            with acc.accumulate(model):  # second: the optimizer step's micro-batch
                acc.backward(model(x).sum())
            out[f"v{version}_each_{each}"] = {"first": first, "second": _grad_numels(model, version)}
            reset()
    return out


def clipping() -> dict:
    out: dict = {}
    torch.manual_seed(0)
    x = torch.randn(4, 8)  # the same batch on both ranks: averaged gradients equal one model's
    reference = Net().eval()  # no dropout: every copy computes the same gradients
    reference(x).sum().backward()
    out["reference_norm"] = torch.nn.utils.get_total_norm([p.grad for p in reference.parameters()]).item()
    for version in (1, 2):
        net = Net()
        net.load_state_dict(reference.state_dict())
        acc, model = prepared(Plugin(fsdp_version=version, **WRAP), model=net)
        model.eval()
        acc.backward(model(x).sum())
        norm = acc.clip_grad_norm_(model.parameters(), 0.5)
        local = [p.grad for p in model.parameters() if p.grad is not None]
        local = [g.to_local() if hasattr(g, "to_local") else g for g in local]
        sq = torch.stack([g.float().pow(2).sum() for g in local]).sum()
        dist.all_reduce(sq)
        try:
            acc.clip_grad_value_(model.parameters(), 0.1)
            value = ""
        except Exception as e:  # noqa: BLE001 - the message is the finding
            value = str(e)
        out[f"v{version}"] = {"returned": float(norm), "after": sq.sqrt().item(), "value": value}
        reset()
    return out


def ac_offload_and_merge() -> dict:
    out: dict = {}
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import CheckpointWrapper, OffloadWrapper

    acc, model = prepared(Plugin(fsdp_version=2, activation_checkpointing=True, activation_checkpointing_offload=True,
                                 **WRAP))
    block = model.blocks[0]
    out["offload"] = {"outer": type(block).__name__,
                      "inner": type(block._checkpoint_wrapped_module).__name__,
                      "innermost": type(block._checkpoint_wrapped_module._checkpoint_wrapped_module).__name__,
                      "is_offload": isinstance(block, OffloadWrapper),
                      "inner_is_checkpoint": isinstance(block._checkpoint_wrapped_module, CheckpointWrapper)}
    reset()
    # a SHARDED_STATE_DICT save_state folder, for accelerate merge-weights in the test process
    for version, folder in ((2, "state"), (1, "state_v1")):  # FSDP1's optimizer needs use_orig_params to save
        acc, model = prepared(Plugin(fsdp_version=version, state_dict_type="SHARDED_STATE_DICT",
                                     use_orig_params=True, **WRAP))
        acc.save_state(os.path.join(os.environ["TRAINING_OUT"], folder))
        reset()
    return out


if __name__ == "__main__":
    result = {"accumulation": accumulation(), "clipping": clipping(), **ac_offload_and_merge()}
    print("RESULT " + json.dumps({"rank": RANK, **result}), flush=True)
    # exit without interpreter teardown: gloo's threads can abort it ('terminate called without an
    # active exception', SIGABRT) after the result is already out
    sys.stderr.flush()
    os._exit(0)
