"""Context parallelism (accelerate's cp_size, torch's ring attention) on two CPU gloo ranks: FSDP2 with cp 2 through
the rehearsal shim (wizard/run/cpu_fsdp_compat.py), a tiny Llama with SDPA attention, one step inside accelerate's
maybe_context_parallel (tests/claims/test_parallelism.py starts it). Prints one ``RESULT`` line per rank: the mesh and
the loss, or what the step raised."""
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


def main() -> dict:
    acc = Accelerator(fsdp_plugin=Plugin(fsdp_version=2, auto_wrap_policy="transformer_based_wrap",
                                         transformer_cls_names_to_wrap=["LlamaDecoderLayer"]),
                      parallelism_config=ParallelismConfig(dp_shard_size=1, cp_size=2))
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2,
                                         num_attention_heads=4, num_key_value_heads=2, attn_implementation="sdpa"))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    model, opt = acc.prepare(model, opt)
    out: dict = {"rank": acc.process_index, "mesh": list(acc.torch_device_mesh.mesh_dim_names)}
    x = torch.randint(0, 64, (2, 16), generator=torch.Generator().manual_seed(0))
    labels = x.clone()
    try:
        with acc.maybe_context_parallel(buffers=[x, labels], buffer_seq_dims=[1, 1], no_restore_buffers={x, labels}):
            loss = model(input_ids=x, labels=labels).loss
            acc.backward(loss)
        out["loss"] = float(loss.detach())
    except NotImplementedError as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"[:300]
    return out


if __name__ == "__main__":
    print("RESULT " + json.dumps(main()), flush=True)
    sys.stdout.flush()
    os._exit(0)
