"""One gloo rank of an FSDP1 run through accelerate on CPU (benchmarks/memory.py starts two): a model of four Block
units (the root owns no parameter), one AdamW step, then the bytes of this rank's state and where they live.

argv: STRATEGY (FULL_SHARD | SHARD_GRAD_OP | HYBRID_SHARD) MODEL_DTYPE (fp32|bf16) MIXED_PRECISION (no|bf16)
[offload]. Prints one line ``RESULT {json}``:

- ``parameters`` / ``gradients`` / ``adam``: bytes of the local flat-parameter shards, their flat gradients and the
  AdamW states (accelerate's FSDP1 default ``use_orig_params=True``: the optimizer holds views of the shard);
- ``gathered_after_forward``: bytes of the unsharded flat parameters still allocated between forward and backward
  (SHARD_GRAD_OP keeps every unit gathered; FULL_SHARD frees them);
- ``gathered_peak_backward``: the most unsharded bytes allocated at any block's input-gradient moment in backward
  (the unit being computed plus the one prefetched);
- ``devices``: the device of each kind of tensor (the flat shard, its gradient, the Adam states);
- ``shard_group`` / ``replicate_group``: the sizes of the process groups FSDP1 uses.
"""
import json
import os
import sys

os.environ.update(ACCELERATE_USE_FSDP="true", ACCELERATE_TORCH_DEVICE="cpu")
from wizard.run.cpu_fsdp_compat import install  # noqa: E402

assert install()
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from accelerate import Accelerator  # noqa: E402
from accelerate.utils import FullyShardedDataParallelPlugin, InitProcessGroupKwargs  # noqa: E402
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP  # noqa: E402

strategy, dtype, mp = sys.argv[1], {"fp32": torch.float32, "bf16": torch.bfloat16}[sys.argv[2]], sys.argv[3]
offload = sys.argv[4:] == ["offload"]
if offload:
    # FSDP1's CPUOffload pins the local shard and its CPU gradient (torch/distributed/fsdp/_flat_param.py:1260,
    # :1265), and pin_memory needs an accelerator; on this CPU-only machine pinning is made a no-op so that FSDP1's
    # placement (which tensors it keeps on the host) can be observed. Pinned or not, the bytes are the same.
    torch.Tensor.pin_memory = lambda self, device=None: self
    # and the end of backward waits for the device->host gradient copies with current_stream().synchronize()
    # (torch/distributed/fsdp/_runtime_utils.py:1111), which torch.cpu.Stream lacks: on the CPU there is nothing
    # to wait for
    torch.cpu.Stream.synchronize = lambda self: None
WIDTH = 256
marks: list[int] = []


def gathered(detail: bool = False):
    """Bytes of unsharded flat parameters allocated now (storage size > 0), over every FSDP unit."""
    total, parts = 0, []
    for unit in FSDP.fsdp_modules(pmodel):
        handle = unit._handle
        if handle is None:
            continue
        fp = handle.flat_param
        for name in ("_full_param_padded", "_full_prec_full_param_padded"):
            t = getattr(fp, name, None)
            if t is not None:
                total += t.untyped_storage().nbytes()
                parts.append((name, str(t.dtype), t.untyped_storage().nbytes()))
    return (total, parts) if detail else total


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(WIDTH, WIDTH)

    def forward(self, x):
        if x.requires_grad:
            x.register_hook(lambda g: marks.append(gathered(True)) or g)
        return torch.relu(self.lin(x))


torch.manual_seed(0)
model = torch.nn.Sequential(*[Block() for _ in range(4)]).to(dtype)
numel = sum(p.numel() for p in model.parameters())
plugin = FullyShardedDataParallelPlugin(fsdp_version=1, sharding_strategy=strategy, cpu_offload=offload,
                                        auto_wrap_policy="transformer_based_wrap",
                                        transformer_cls_names_to_wrap=["Block"], backward_prefetch="BACKWARD_PRE")
acc = Accelerator(mixed_precision=mp, fsdp_plugin=plugin, kwargs_handlers=[InitProcessGroupKwargs(backend="gloo")])
pmodel = acc.prepare(model)  # FSDP1: the optimizer is built on the wrapped model's parameters (accelerate's docs)
opt = acc.prepare(torch.optim.AdamW(pmodel.parameters(), lr=1e-3))
x = torch.randn(2, WIDTH, dtype=dtype if mp == "no" else torch.float32, requires_grad=True)
out = pmodel(x)
after_forward = gathered()
acc.backward(out.float().sum())
opt.step()

flats = [u._handle.flat_param for u in FSDP.fsdp_modules(pmodel) if u._handle is not None]


def nbytes(ts):
    return sum(t.numel() * t.element_size() for t in ts)


state = [t for st in opt.optimizer.state.values() for k, t in st.items() if torch.is_tensor(t) and k != "step"]
grads = [f.grad for f in flats if f.grad is not None]
if not grads:  # with use_orig_params the sharded gradient can live on the original parameters' views only
    grads = [p.grad for p in pmodel.parameters() if p.grad is not None]
unit0 = FSDP.fsdp_modules(pmodel)[1] if len(FSDP.fsdp_modules(pmodel)) > 1 else FSDP.fsdp_modules(pmodel)[0]
inter = getattr(unit0, "_inter_node_pg", None)
print("RESULT " + json.dumps({
    "numel": numel, "units": len(flats), "unit_numel": WIDTH * WIDTH + WIDTH,
    "parameters": nbytes(f for f in flats), "gradients": nbytes(grads), "adam": nbytes(state),
    "param_dtype": str(flats[0].dtype), "gathered_after_forward": after_forward,
    "gathered_peak_backward": max(m[0] for m in marks) if marks else None,
    "devices": {"parameters": str(flats[0].device), "gradients": str(grads[0].device) if grads else None,
                "adam": str(state[0].device) if state else None},
    "shard_group": dist.get_world_size(unit0.process_group),
    "replicate_group": dist.get_world_size(inter) if inter is not None else None,
    "sharding_strategy": str(unit0.sharding_strategy),
    "offload_params": sum(bool(u._handle._offload_params) for u in FSDP.fsdp_modules(pmodel) if u._handle),
    "cpu_grad": nbytes(f._cpu_grad for f in flats if hasattr(f, "_cpu_grad"))}), flush=True)
sys.stderr.flush()
os._exit(0)
