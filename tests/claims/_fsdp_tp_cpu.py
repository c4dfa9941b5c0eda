"""FSDP2 x tensor parallelism through accelerate on four gloo ranks (dp_shard 2 x tp 2), a tiny Llama loaded
tensor-parallel over the Accelerator's tp mesh (tests/claims/test_parallelism.py starts it). accelerate reaches its
FSDP path on CPU only through the rehearsal shim (wizard/run/cpu_fsdp_compat.py); the rest is the installed
accelerate, transformers and torch. Prints one ``RESULT`` line per rank: the mesh, then the loss of each step or what
prepare() raised. Arguments: FOLDER (rank 0 writes the model there), then ``ram-efficient`` to turn on the plugin's
cpu_ram_efficient_loading."""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from wizard.run.cpu_fsdp_compat import install  # noqa: E402

os.environ["ACCELERATE_USE_FSDP"] = "true"
assert install(), "the CPU FSDP shim did not install"

import torch  # noqa: E402
from accelerate import Accelerator  # noqa: E402
from accelerate.parallelism_config import ParallelismConfig  # noqa: E402
from accelerate.utils import FullyShardedDataParallelPlugin as Plugin  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM  # noqa: E402


def main(folder: str, ram_efficient: bool = False) -> dict:
    acc = Accelerator(fsdp_plugin=Plugin(fsdp_version=2, auto_wrap_policy="transformer_based_wrap",
                                         transformer_cls_names_to_wrap=["LlamaDecoderLayer"],
                                         cpu_ram_efficient_loading=ram_efficient),
                      parallelism_config=ParallelismConfig(dp_shard_size=2, tp_size=2))
    if acc.process_index == 0:
        torch.manual_seed(0)
        LlamaForCausalLM(LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2)).save_pretrained(folder)
    acc.wait_for_everyone()
    import transformers

    out: dict = {"rank": acc.process_index, "mesh": list(acc.torch_device_mesh.mesh_dim_names),
                 "transformers": transformers.__version__}
    model = LlamaForCausalLM.from_pretrained(folder, tp_plan="auto", device_mesh=acc.torch_device_mesh["tp"])
    q = dict(model.named_parameters())["model.layers.0.self_attn.q_proj.weight"]
    out["q_after_load"] = [repr(p) for p in q.placements]
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    try:
        model, opt = acc.prepare(model, opt)
    except (ImportError, RuntimeError) as exc:
        out["prepare_error"] = f"{type(exc).__name__}: {exc}"[:300]
    # a rank whose prepare() raised after the others passed it: every rank learns it before any collective of the
    # training step (the others would wait for it forever)
    failed = torch.tensor([1 if "prepare_error" in out else 0])
    torch.distributed.all_reduce(failed)
    if int(failed) > 0:
        out["ranks_failed_prepare"] = int(failed)
        return out
    x = torch.randint(0, 64, (2, 8), generator=torch.Generator().manual_seed(acc.process_index // 2))
    losses = []
    for _ in range(3):
        loss = model(input_ids=x, labels=x).loss
        acc.backward(loss)
        opt.step()
        opt.zero_grad()
        losses.append(float(loss.detach()))
    out["losses"] = losses
    return out


if __name__ == "__main__":
    print("RESULT " + json.dumps(main(sys.argv[1], ram_efficient=sys.argv[2:] == ["ram-efficient"])), flush=True)
    sys.stdout.flush()
    os._exit(0)
