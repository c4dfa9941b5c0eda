"""Runs accelerate FSDP on CPU in its own process (tests/claims/test_fsdp.py starts it) and prints one JSON line.

``python _fsdp_cpu.py single``: one gloo rank; ``python _fsdp_cpu.py sync`` on two ranks (RANK 0 and 1). Accelerate
reaches its FSDP path on CPU only through the rehearsal shim (wizard/run/cpu_fsdp_compat.py), which is installed
first; everything else is the installed accelerate and torch.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from wizard.run.cpu_fsdp_compat import install  # noqa: E402

os.environ["ACCELERATE_USE_FSDP"] = "true"
assert install(), "the CPU FSDP shim did not install"

import torch  # noqa: E402
from accelerate import Accelerator  # noqa: E402
from accelerate.state import AcceleratorState, PartialState  # noqa: E402
from accelerate.utils import FullyShardedDataParallelPlugin as Plugin  # noqa: E402


class Block(torch.nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.fc = torch.nn.Linear(d, d)
        self.drop = torch.nn.Dropout(0.5)

    def forward(self, x):
        return x + self.drop(self.fc(x))


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.Sequential(Block(), Block())
        self.head = torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.blocks(x))

    def get_parameter_or_buffer(self, name):  # Transformers models have it; accelerate's FSDP2 broadcast calls it
        return self.get_parameter(name)


def prepared(plugin, model=None, **acc_kwargs):
    acc = Accelerator(fsdp_plugin=plugin, **acc_kwargs)
    model = model or Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = acc.prepare(model, opt)
    return acc, model


def reset():
    AcceleratorState._reset_state(True)
    PartialState._reset_state()


def single() -> dict:
    out: dict = {}
    # activation checkpointing on FSDP2 without a wrap policy
    for name, kw in (("no_wrap", {"auto_wrap_policy": "NO_WRAP"}),
                     ("size_0", {"auto_wrap_policy": "SIZE_BASED_WRAP", "min_num_params": 0})):
        try:
            prepared(Plugin(fsdp_version=2, activation_checkpointing=True, **kw))
            out[name] = "prepared"
        except Exception as e:  # noqa: BLE001 - the type is the finding
            out[name] = f"{type(e).__name__}: {e}"
        reset()
    # where each version puts the checkpoint wrappers, and their arguments
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import CheckpointWrapper
    from torch.distributed.fsdp import FSDPModule
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

    for v in (1, 2):
        _, m = prepared(Plugin(fsdp_version=v, activation_checkpointing=True, auto_wrap_policy="TRANSFORMER_BASED_WRAP",
                               transformer_cls_names_to_wrap=["Block"]))
        wrappers = [(n, w) for n, w in m.named_modules() if isinstance(w, CheckpointWrapper)]
        n0, w0 = wrappers[0]
        out[f"ac_v{v}"] = {
            "wrapped": sorted(type(w._checkpoint_wrapped_module).__name__ for _, w in wrappers),
            "inside_fsdp_unit": isinstance(w0._checkpoint_wrapped_module, FSDP),  # v1: wrapper around the FSDP unit
            "wrapper_is_fsdp_module": isinstance(w0, FSDPModule),  # v2: fully_shard applied to the wrapper
            "impl": str(getattr(w0, "checkpoint_impl", "")),
            "kwargs": {k: str(v_) for k, v_ in w0.checkpoint_fn.keywords.items()},
        }
        reset()
    # what get_state_dict / save_model / save_state write per version and state dict type (bf16 mixed precision)
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP1
    from torch.distributed.tensor import DTensor

    out["state_dict"] = {}
    for v in (1, 2):
        for sdt in ("SHARDED_STATE_DICT", "FULL_STATE_DICT"):
            acc, m = prepared(Plugin(fsdp_version=v, state_dict_type=sdt, auto_wrap_policy="TRANSFORMER_BASED_WRAP",
                                     transformer_cls_names_to_wrap=["Block"], use_orig_params=True),
                              model=Net().to(torch.bfloat16), mixed_precision="bf16")  # loaded in bf16
            sd = acc.get_state_dict(m)
            d = tempfile.mkdtemp()
            acc.save_model(m, os.path.join(d, "model"))
            acc.save_state(os.path.join(d, "state"))
            state_files = sorted(os.listdir(os.path.join(d, "state")))
            fsdp_dir = [f for f in state_files if f.startswith("pytorch_model_fsdp")]
            out["state_dict"][f"v{v}_{sdt.split('_')[0].lower()}"] = {
                "live_sharded": all(isinstance(p, DTensor) for p in m.parameters()) if v == 2
                else isinstance(m, FSDP1),  # the live model is sharded: DTensors, or FSDP1 flat parameters
                "get_state_dict_plain": not any(isinstance(t, DTensor) for t in sd.values()),
                "get_state_dict_full": {k: tuple(t.shape) for k, t in sd.items()}
                == {k: tuple(t.shape) for k, t in Net().state_dict().items()},
                "dtypes": sorted({str(t.dtype) for t in sd.values()}),
                "save_model_files": sorted(os.listdir(os.path.join(d, "model"))),
                "save_state_fsdp_entry": fsdp_dir,
                "save_state_sharded_files": sorted(os.listdir(os.path.join(d, "state", fsdp_dir[0])))
                if fsdp_dir and os.path.isdir(os.path.join(d, "state", fsdp_dir[0])) else [],
            }
            reset()
    # the size policy of each version on the same model (FSDP1: raw torch wrap in the gloo group accelerate made)
    acc = Accelerator(fsdp_plugin=Plugin(fsdp_version=2))
    from functools import partial

    from accelerate.utils.fsdp_utils import fsdp2_prepare_auto_wrap_policy
    from torch.distributed.fsdp.wrap import size_based_auto_wrap_policy

    def fsdp1_units(n):
        model = Net()
        FSDP(model, auto_wrap_policy=partial(size_based_auto_wrap_policy, min_num_params=n),
             device_id=torch.device("cpu"))
        return sorted(name.replace("._fsdp_wrapped_module", "") for name, mod in model.named_modules()
                      if isinstance(mod, FSDP))

    def fsdp2_units(n):
        model = Net()
        policy = fsdp2_prepare_auto_wrap_policy(Plugin(fsdp_version=2, auto_wrap_policy="SIZE_BASED_WRAP",
                                                       min_num_params=n), model)
        return sorted(name for name, mod in model.named_modules() if name and policy(mod))

    # Block.fc has 72 parameters, a Block 72, blocks 144, head 18: at 50 FSDP1 wraps only the fc layers (their
    # parents have no unwrapped parameters left), FSDP2 selects every module above 50; at 72 FSDP1 wraps (>=),
    # FSDP2 not (>)
    out["size"] = {f"v{v}_{n}": (fsdp1_units if v == 1 else fsdp2_units)(n) for v in (1, 2) for n in (50, 72)}
    return out


def sync() -> dict:
    rank = int(os.environ["RANK"])
    out: dict = {}
    torch.manual_seed(0)
    rank0 = Net()

    def seeded():
        torch.manual_seed(100 + rank)  # every rank initialises differently
        m = Net()
        if rank == 0:
            m.load_state_dict(rank0.state_dict())
        return m

    def matches(local, full, n):
        return torch.equal(local, full[rank * n:(rank + 1) * n])

    for ram in (False, True):
        m = seeded()
        own = m.head.weight.detach().clone()
        _, m = prepared(Plugin(fsdp_version=2, cpu_ram_efficient_loading=ram), model=m)
        local = m.head.weight.to_local().detach()
        n = local.shape[0]
        out[f"fsdp2_ram_{ram}"] = {"own": matches(local, own, n),
                                   "rank0": matches(local, rank0.head.weight.detach(), n)}
        reset()
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

    for flag in (False, True):
        m = seeded()
        w = FSDP(m, sync_module_states=flag, device_id=torch.device("cpu"), use_orig_params=True)
        with FSDP.summon_full_params(w):
            out[f"fsdp1_sync_{flag}"] = torch.equal(w.module.head.weight.detach(), rank0.head.weight.detach())
    return out


def frozen() -> dict:
    """The dtypes get_state_dict returns for a bf16 model with one frozen Block under bf16 mixed precision, per FSDP
    version: only trainable parameters are upcast to fp32 (FSDP2 per parameter, FSDP1 per unit)."""
    out: dict = {}
    for v in (1, 2):
        model = Net().to(torch.bfloat16)
        model.blocks[0].requires_grad_(False)  # a frozen unit next to trainable ones (LoRA-like base weights)
        acc, m = prepared(Plugin(fsdp_version=v, auto_wrap_policy="TRANSFORMER_BASED_WRAP",
                                 transformer_cls_names_to_wrap=["Block"], use_orig_params=True),
                          model=model, mixed_precision="bf16")
        m(torch.randn(4, 8)).float().sum().backward()  # one step: FSDP1 sets its views up on the first forward
        sd = acc.get_state_dict(m)
        out[f"v{v}"] = {k: str(t.dtype) for k, t in sd.items()}
        reset()
    return out


if __name__ == "__main__":
    result = {"single": single, "sync": sync, "frozen": frozen}[sys.argv[1]]()
    print("RESULT " + json.dumps({"rank": int(os.environ.get("RANK", 0)), **result}), flush=True)
    # exit without interpreter teardown: gloo's threads can abort it ('terminate called without an
    # active exception', SIGABRT) after the result is already out
    sys.stderr.flush()
    os._exit(0)
