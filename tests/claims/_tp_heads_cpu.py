"""Loads a tiny Llama with transformers' tensor-parallel plan over every gloo rank and trains two steps
(tests/claims/test_parallelism.py starts it), once per model: prints one ``RESULT`` line per rank, per model the loss
of each step or what the load or the first forward raised. Arguments: FOLDER HEADS:KV_HEADS ... (rank 0 writes each
model under FOLDER first); ``gpt2:HEADS`` is a GPT-2 (no tensor-parallel plan in transformers)."""
from __future__ import annotations

import json
import os
import sys

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM


def one(folder: str, spec: str, rank: int, world: int) -> dict:
    kind, _, rest = spec.rpartition(":") if spec.startswith("gpt2:") else ("llama", "", spec)
    if kind == "gpt2":
        heads, cls = int(rest), GPT2LMHeadModel
        cfg = GPT2Config(vocab_size=64, n_embd=heads * 8, n_layer=1, n_head=heads, n_positions=32)
    else:
        heads, kv = map(int, spec.split(":"))
        cls = LlamaForCausalLM
        cfg = LlamaConfig(vocab_size=64, hidden_size=heads * 8, intermediate_size=48, num_hidden_layers=1,
                          num_attention_heads=heads, num_key_value_heads=kv, max_position_embeddings=32)
    if rank == 0:
        torch.manual_seed(0)
        cls(cfg).save_pretrained(folder)
    dist.barrier()
    out: dict = {}
    try:
        model = cls.from_pretrained(folder, tp_plan="auto",
                                    device_mesh=init_device_mesh("cpu", (world,), mesh_dim_names=("tp",)))
    except ValueError as exc:
        out["load_error"] = f"{type(exc).__name__}: {exc}"[:300]
        return out
    try:
        out["loaded"] = True
        q = dict(model.named_parameters()).get("model.layers.0.self_attn.q_proj.weight")
        out["q_placements"] = [repr(p) for p in getattr(q, "placements", ())]
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        x = torch.randint(0, 64, (2, 8), generator=torch.Generator().manual_seed(1))
        losses = []
        for _ in range(2):
            loss = model(input_ids=x, labels=x).loss
            loss.backward()
            opt.step()
            opt.zero_grad()
            losses.append(float(loss.detach()))
        out["losses"] = losses
    except RuntimeError as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"[:300]
    return out


def main(folder: str, models: list[str]) -> dict:
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    out: dict = {"rank": rank, "world": world}
    for spec in models:
        out[spec] = one(os.path.join(folder, spec.replace(":", "-")), spec, rank, world)
    return out


if __name__ == "__main__":
    result = main(sys.argv[1], sys.argv[2:])
    print("RESULT " + json.dumps(result), flush=True)
    sys.stdout.flush()
    os._exit(0)  # no interpreter teardown: gloo's threads can abort it after the result is out
