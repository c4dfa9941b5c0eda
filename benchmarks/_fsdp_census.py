"""One gloo rank of an FSDP2 run through accelerate on CPU (benchmarks/memory.py starts two): a tiny model of four
Block units, one AdamW step, then the bytes of this rank's local shards. argv: MODEL_DTYPE (fp32|bf16)
MIXED_PRECISION (no|bf16) [offload] (``cpu_offload=True``: accelerate's ``CPUOffloadPolicy``, built without pinned
memory on a CPU machine by wizard/run/cpu_fsdp_compat.py). Prints one line ``RESULT {json}`` with the devices the
parameter shards, their gradients and the Adam states live on."""
import json
import os
import sys

os.environ.update(ACCELERATE_USE_FSDP="true", ACCELERATE_TORCH_DEVICE="cpu")
from wizard.run.cpu_fsdp_compat import install  # noqa: E402

assert install()
import torch  # noqa: E402
from accelerate import Accelerator  # noqa: E402
from accelerate.utils import FullyShardedDataParallelPlugin, InitProcessGroupKwargs  # noqa: E402

dtype, mp = {"fp32": torch.float32, "bf16": torch.bfloat16}[sys.argv[1]], sys.argv[2]
offload = sys.argv[3:] == ["offload"]


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(256, 256)

    def forward(self, x):
        return torch.relu(self.lin(x))


torch.manual_seed(0)
model = torch.nn.Sequential(*[Block() for _ in range(4)]).to(dtype)
numel = sum(p.numel() for p in model.parameters())
plugin = FullyShardedDataParallelPlugin(fsdp_version=2, auto_wrap_policy="transformer_based_wrap",
                                        transformer_cls_names_to_wrap=["Block"], reshard_after_forward=True,
                                        cpu_offload=offload)
acc = Accelerator(mixed_precision=mp, fsdp_plugin=plugin, kwargs_handlers=[InitProcessGroupKwargs(backend="gloo")])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
pmodel, opt = acc.prepare(model, opt)
out = pmodel(torch.randn(2, 256, dtype=dtype if mp == "no" else torch.float32))
acc.backward(out.float().sum())
opt.step()


def local(t):
    return t.to_local() if hasattr(t, "to_local") else t


def nbytes(ts):
    return sum(local(t).numel() * local(t).element_size() for t in ts)


params = list(pmodel.parameters())
# FSDP2 marks each sharded parameter it keeps on the host (torch/distributed/fsdp/_fully_shard/_fsdp_param.py:207
# offload_to_cpu): its shard stays there, its gradient is copied there after the reduce-scatter (:839), and the
# optimizer then steps there
fsdp_params = [fp for m in pmodel.modules() if hasattr(m, "_get_fsdp_state")
               for g in [m._get_fsdp_state()._fsdp_param_group] if g is not None for fp in g.fsdp_params]
offloaded = sum(fp.offload_to_cpu for fp in fsdp_params)
state = [t for st in opt.optimizer.state.values() for k, t in st.items() if torch.is_tensor(t) and k != "step"]
print("RESULT " + json.dumps({"numel": numel, "parameters": nbytes(params),
                              "gradients": nbytes(p.grad for p in params if p.grad is not None),
                              "adam": nbytes(state), "param_dtype": str(local(params[0]).dtype),
                              "offload_to_cpu": offloaded, "fsdp_params": len(fsdp_params),
                              "devices": {"parameters": str(local(params[0]).device),
                                          "gradients": str(local(params[0].grad).device),
                                          "adam": str(state[0].device)}}), flush=True)
sys.stderr.flush()
os._exit(0)
