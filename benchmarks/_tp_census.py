"""One gloo rank of tensor parallelism on CPU through transformers 5.24 (benchmarks/memory.py starts them). argv:
FOLDER MODE.

- ``states`` (4 ranks): a tiny Llama (fp32) loaded with ``DistributedConfig(tp_plan="auto", tp_size=2,
  fsdp_size=2)``: transformers splits it by its TP plan over the 2-D mesh's ``tp`` dimension and applies FSDP2
  (``fully_shard``) over its ``fsdp`` dimension. (A ``device_mesh=`` passed next to ``tp_plan`` is not used: 5.24
  builds its own mesh over every rank.) One forward/backward and one AdamW step; then the bytes of this rank's local
  parameter, gradient and Adam shards, and each parameter's placements.
- ``activations`` (2 ranks, tp 2, bf16, h 1024 i 2816, heads 16/4, s 1024 b 1): the bytes one decoder layer saves
  for backward on this rank (saved-tensor hooks, local tensors, parameters excluded; a 2-layer model less a 1-layer
  one). FSDP changes none of them, so TP alone is measured.

Prints one line ``RESULT {json}``."""
import json
import os
import sys

import torch
import torch.distributed as dist
from transformers import DistributedConfig, LlamaConfig, LlamaForCausalLM

folder, mode = sys.argv[1], sys.argv[2]
dist.init_process_group("gloo")
rank = dist.get_rank()
if mode == "states":
    CONFIG = dict(vocab_size=128, hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2,
                  num_hidden_layers=2, tie_word_embeddings=False)
    SEQ, DTYPE = 16, torch.float32
else:
    CONFIG = dict(vocab_size=128, hidden_size=1024, intermediate_size=2816, num_attention_heads=16,
                  num_key_value_heads=4, tie_word_embeddings=False, attn_implementation="sdpa")
    SEQ, DTYPE = 1024, torch.bfloat16


def local(t):
    return t.to_local() if hasattr(t, "to_local") else t


def nbytes(ts):
    return sum(local(t).numel() * local(t).element_size() for t in ts)


def saved_bytes(model, ids) -> int:
    seen: dict[int, int] = {}

    def pack(t):
        st = local(t).untyped_storage()
        seen[st.data_ptr()] = st.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model.model(input_ids=ids)
    params = {local(p).untyped_storage().data_ptr() for p in model.parameters()}
    return sum(v for k, v in seen.items() if k not in params)


ids = torch.randint(0, 128, (1, SEQ), generator=torch.Generator().manual_seed(0))
out: dict = {"rank": rank, "world": dist.get_world_size()}
if mode == "states":
    if rank == 0:
        torch.manual_seed(0)
        LlamaForCausalLM(LlamaConfig(**CONFIG)).save_pretrained(folder)
    dist.barrier()
    model = LlamaForCausalLM.from_pretrained(folder, dtype=DTYPE, distributed_config=DistributedConfig(
        tp_plan="auto", tp_size=2, fsdp_size=2))
    out["numel"] = sum(p.numel() for p in model.parameters())  # the whole model's (DTensor shapes are global)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    params = list(model.parameters())
    state = [t for st in opt.state.values() for k, t in st.items() if torch.is_tensor(t) and k != "step"]
    out.update(parameters=nbytes(params), gradients=nbytes(p.grad for p in params if p.grad is not None),
               adam=nbytes(state), loss=float(loss.detach()),
               mesh=list(params[0].device_mesh.mesh_dim_names or ()),
               placements={n: [repr(p) for p in getattr(t, "placements", ())] for n, t in model.named_parameters()
                           if ".layers.1." not in n})
else:
    sizes = []
    for layers in (1, 2):
        if rank == 0:
            torch.manual_seed(0)
            LlamaForCausalLM(LlamaConfig(num_hidden_layers=layers, **CONFIG)).to(DTYPE).save_pretrained(
                f"{folder}/{layers}")
        dist.barrier()
        config = DistributedConfig(tp_plan="auto", tp_size=2)
        model = LlamaForCausalLM.from_pretrained(f"{folder}/{layers}", dtype=DTYPE, distributed_config=config).train()
        sizes.append(saved_bytes(model, ids))
    out.update(layer_saved=sizes[1] - sizes[0], seq=SEQ,
               **{k: v for k, v in CONFIG.items() if k != "attn_implementation"})
print("RESULT " + json.dumps(out), flush=True)
sys.stderr.flush()
os._exit(0)
