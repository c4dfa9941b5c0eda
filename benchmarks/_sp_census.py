"""One gloo rank of DeepSpeed's Ulysses sequence parallelism on CPU (benchmarks/memory.py starts two): a transformers
Llama (bf16, h 1024 i 2816, heads 16/4, sdpa) whose attention DeepSpeed's ``UlyssesSPAttentionHF
.register_with_transformers`` wraps (the ALST path accelerate 1.15 takes for ``parallelism_config_sp_size``), fed
this rank's 1/sp of a sequence of 1024 tokens. Measures the bytes one decoder layer saves for backward on this rank
(saved-tensor hooks, parameters excluded; a 2-layer model less a 1-layer one) and that the output of a 2-rank forward
equals the same model's single-process output on the whole sequence. Prints one line ``RESULT {json}``."""
import json
import os
import sys

import torch

CONFIG = dict(vocab_size=128, hidden_size=1024, intermediate_size=2816, num_attention_heads=16, num_key_value_heads=4,
              tie_word_embeddings=False)
SEQ = 1024
out: dict = {}
try:
    import deepspeed
    from deepspeed.runtime.sequence_parallel.ulysses_sp import UlyssesSPAttentionHF
    from transformers import LlamaConfig, LlamaModel

    deepspeed.init_distributed(dist_backend="gloo")
    import torch.distributed as dist

    rank, world = dist.get_rank(), dist.get_world_size()
    out.update(rank=rank, world=world)
    chunk = SEQ // world
    ids = torch.randint(0, 128, (1, SEQ), generator=torch.Generator().manual_seed(0))
    pos = torch.arange(SEQ)[None]
    mine = slice(rank * chunk, (rank + 1) * chunk)

    def saved(model) -> int:
        seen: dict[int, int] = {}

        def pack(t):
            st = t.untyped_storage()
            seen[st.data_ptr()] = st.nbytes()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            model(input_ids=ids[:, mine], position_ids=pos[:, mine])
        params = {p.untyped_storage().data_ptr() for p in model.parameters()}
        return sum(v for k, v in seen.items() if k not in params)

    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

    plain_sdpa = ALL_ATTENTION_FUNCTIONS["sdpa"]
    models = {}
    for layers in (1, 2):
        torch.manual_seed(0)
        models[layers] = LlamaModel(LlamaConfig(num_hidden_layers=layers, attn_implementation="sdpa", **CONFIG)).to(
            torch.bfloat16).train()
    # registers the Ulysses wrapper in place of transformers' "sdpa" attention (for every model of this process)
    UlyssesSPAttentionHF.register_with_transformers(models[2], "sdpa", world, 1, seq_length=SEQ,
                                                    seq_length_is_variable=False)
    out["wrapped"] = ALL_ATTENTION_FUNCTIONS["sdpa"] is not plain_sdpa
    sizes = [saved(models[1]), saved(models[2])]
    out["layer_saved"] = sizes[1] - sizes[0]
    with torch.no_grad():
        local = models[2](input_ids=ids[:, mine], position_ids=pos[:, mine]).last_hidden_state
        gathered = [torch.empty_like(local) for _ in range(world)]
        dist.all_gather(gathered, local.contiguous())
        ALL_ATTENTION_FUNCTIONS["sdpa"] = plain_sdpa  # the same weights, whole sequence, one process
        whole = models[2](input_ids=ids, position_ids=pos).last_hidden_state
    out["max_abs_diff_vs_one_process"] = float((torch.cat(gathered, 1).float() - whole.float()).abs().max())
except Exception as exc:  # reported, not hidden: the benchmark prints it as "not measured"
    out["error"] = f"{type(exc).__name__}: {exc}"[:500]
print("RESULT " + json.dumps(out), flush=True)
sys.stderr.flush()
os._exit(0)
