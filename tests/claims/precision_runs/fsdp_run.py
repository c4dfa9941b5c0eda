"""Run by tests/claims/test_precision.py in a fresh process: one-rank gloo FSDP through accelerate (the rehearsal
shim), a bf16 model whose one unit holds a frozen Linear and a trainable one. argv: FSDP version, mixed_precision.
Prints one line ``RESULT {json}``."""
import json
import os
import sys
import warnings

# a world of one: rank 0's store binds a port the kernel gives it (MASTER_PORT=0), nothing is picked in advance
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="0", RANK="0", WORLD_SIZE="1", LOCAL_RANK="0",
                  LOCAL_WORLD_SIZE="1", ACCELERATE_USE_FSDP="true", ACCELERATE_TORCH_DEVICE="cpu")
from wizard.run.cpu_fsdp_compat import install  # noqa: E402

assert install()
import torch  # noqa: E402
from accelerate import Accelerator  # noqa: E402
from accelerate.utils import FullyShardedDataParallelPlugin, InitProcessGroupKwargs  # noqa: E402

version, mp = int(sys.argv[1]), sys.argv[2]

class Block(torch.nn.Module):  # one FSDP unit: a frozen base Linear and a trainable adapter (LoRA-like)
    def __init__(self):
        super().__init__()
        self.base = torch.nn.Linear(8, 8)
        self.adapter = torch.nn.Linear(8, 8)
    def forward(self, x):
        return self.base(x) + self.adapter(x)

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
    def forward(self, x):
        return self.block(x)

torch.manual_seed(0)
model = Net().to(torch.bfloat16)
model.block.base.requires_grad_(False)
kw = dict(fsdp_version=version, auto_wrap_policy="transformer_based_wrap", transformer_cls_names_to_wrap=["Block"])
if version == 1:
    kw["use_orig_params"] = True  # mixed requires_grad in one unit needs it (FSDP1 refuses otherwise)
acc = Accelerator(mixed_precision=mp, fsdp_plugin=FullyShardedDataParallelPlugin(**kw),
                  kwargs_handlers=[InitProcessGroupKwargs(backend="gloo")])
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    pmodel, opt = acc.prepare(model, opt)
seen = {}
def hook(mod, inp, out):
    seen.update(matmul_out=str(out.dtype), autocast=torch.is_autocast_enabled("cpu"))
inner = pmodel.module.block if version == 1 else pmodel.block
getattr(inner, "module", inner).adapter.register_forward_hook(hook)
out = pmodel(torch.randn(2, 8, dtype=torch.bfloat16 if mp == "no" else torch.float32))
acc.backward(out.float().sum())
opt.step()
res = {"dist": str(acc.distributed_type), "forward_wrapped": hasattr(pmodel, "_original_forward"),
       "model_out": str(out.dtype), "scaler": acc.scaler is not None, **seen,
       "upcast_warning": any("Upcasted low precision parameters" in str(w.message) for w in caught),
       "policy": type(acc.state.fsdp_plugin.mixed_precision_policy).__name__}
if version == 1:
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    res["units"] = [[str(m._flat_param.dtype), list(m._flat_param._fqns)] for m in FSDP.fsdp_modules(pmodel)
                    if m._has_params]
    with FSDP.summon_full_params(pmodel):
        res["params"] = {n: str(p.dtype) for n, p in pmodel.named_parameters()}
else:
    res["params"] = {n: str(p.dtype) for n, p in pmodel.named_parameters()}
    pol = acc.state.fsdp_plugin.mixed_precision_policy
    res["param_dtype"] = str(getattr(pol, "param_dtype", None))
trainable = [p for g in opt.param_groups for p in g["params"]]
def local(t):
    return t.to_local() if hasattr(t, "to_local") else t


res["bytes"] = {"weights": sum(local(p).numel() * local(p).element_size() for p in trainable),
                "grads": sum(local(p.grad).numel() * local(p.grad).element_size() for p in trainable),
                "adam": sum(local(t).numel() * local(t).element_size() for st in opt.state.values()
                            for k, t in st.items() if k != "step"),
                "numel": sum(local(p).numel() for p in trainable)}
res["adam_dtypes"] = sorted({str(t.dtype) for st in opt.state.values() for k, t in st.items() if k != "step"})
print("RESULT " + json.dumps(res), flush=True)
# exit without interpreter teardown: gloo's threads can abort it ('terminate called without an
# active exception', SIGABRT) after the result is already out
sys.stderr.flush()
os._exit(0)
