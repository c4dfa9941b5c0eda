"""Accuracy of the memory estimate (issue 10): the rows that can be produced for real on this CPU machine.

    .venv/bin/python benchmarks/memory.py [--skip-runs]

(a) our restatement of DeepSpeed's estimators vs DeepSpeed 0.19.8's own functions over a grid (sizes, GPUs per
    node, nodes, every offload / zero_init combination): the largest difference, which must be 0.00 GiB;
(b) per-rank model-state bytes from ``estimate()`` vs the tensor bytes rank 0 holds in real 2-process CPU runs
    (gloo) after one AdamW step: FSDP2 through accelerate (fp32; bf16 with mixed precision, which accelerate upcasts;
    bf16 without; benchmarks/_fsdp_census.py) and DeepSpeed ZeRO-1/2/3 (bf16 with fp32 master weights, with bf16
    master weights and optimizer states, and with optimizer offload to DeepSpeedCPUAdam incl. bf16 master weights;
    benchmarks/_ds_census.py);
the other rows of the issue's table are listed as "not measured yet".
"""
from __future__ import annotations

import itertools
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "claims"))
GIB = 2 ** 30
EXT = os.environ.setdefault("TORCH_EXTENSIONS_DIR", str(Path.home() / ".cache" / "fsdpds-wizard" / "torch_extensions"))


def grid_row() -> str:
    from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs as real3
    from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs as real2

    from wizard.core.memory import deepspeed_estimator as ours

    sizes = [(125_000_000, 38_597_376), (1_235_814_400, 262_668_288), (6_738_415_616, 131_072_000),
             (70_553_706_496, 1_050_673_152), (405_000_000_000, 2_101_346_304)]
    worst, cases = 0, 0
    for (p, layer), gpus, nodes in itertools.product(sizes, (1, 2, 4, 8), (1, 2, 4, 16)):
        for off in (True, False):
            a, b = real2(p, gpus, nodes, cpu_offload=off), ours.estimate_zero2_model_states_mem_needs(p, gpus, nodes,
                                                                                                     cpu_offload=off)
            worst = max(worst, *(abs(x - y) for x, y in zip(a, b, strict=True)))
            cases += 1
        for opt, par, init in itertools.product((True, False), repeat=3):
            a3 = real3(p, layer, gpus, nodes, cpu_offload=opt, cpu_offload_params=par, zero_init=init)
            b3 = ours.estimate_zero3_model_states_mem_needs(p, layer, gpus, nodes, cpu_offload=opt,
                                                            cpu_offload_params=par, zero_init=init)
            worst = max(worst, *(abs(x - y) for x, y in zip(a3, b3, strict=True)))
            cases += 1
    ok = "within bound" if worst == 0 else "OUT OF BOUND"
    return f"| deepspeed_estimator vs DeepSpeed 0.19.8 functions | {cases} cases | max abs diff {worst / GIB:.2f} " \
           f"GiB ({worst} bytes) | 0.01 GiB | {ok} |"


def census_rows() -> list[str]:
    from gloo_ranks import run_ranks

    from wizard.core.answers import default_answers
    from wizard.core.memory.estimate import estimate

    rows = []
    runs = [(stage, master, off) for stage in (1, 2, 3)
            for master, off in (("fp32", False), ("bf16_with_states", False), ("fp32", True), ("bf16", True))]
    for stage, master, off in runs:
        t0 = time.perf_counter()
        res = run_ranks(HERE / "_ds_census.py", str(stage), master, *(["offload"] if off else []), world=2,
                        timeout=600, DS_ACCELERATOR="cpu", TORCH_EXTENSIONS_DIR=EXT)[0]
        strategy = {1: "optimizer", 2: "grads_optimizer", 3: "full"}[stage]
        a = default_answers().replace({"backend": "deepspeed", "launch.num_processes": 2,
                                       "sharding.strategy": strategy, "precision.mixed_precision": "bf16",
                                       "precision.model_dtype": "bf16", "offload.optimizer": "cpu" if off else "none",
                                       "precision.ds_bf16_master_weights": None if master == "fp32" else master})
        e = estimate(a, params=res["numel"], largest_layer_params=256 * 256 + 256)
        b = e.per_rank.breakdown
        n = res["numel"]
        label = f"ZeRO-{stage} bf16, master {master}{', optimizer offload cpu' if off else ''}, N=2"
        pairs = []
        if off:  # the device side keeps the 16-bit parameters; master and Adam live on the host
            pairs.append(("device: params", res["parameters"], b["parameters"]))
            pairs.append(("host: master + Adam", res["master"] + res["adam"],
                          e.host_breakdown["offloaded_optimizer_states"] // e.ranks_per_host))
        else:
            measured = res["parameters"] + res["master"] + res["adam"] + (res["grads"] or 0)
            predicted = b["parameters"] + b["optimizer_states"] + (b["gradients"] if res["grads"] is not None else 0)
            what = "params + master + Adam" + (" + grad partition" if res["grads"] is not None else "")
            pairs.append((what, measured, predicted))
        for what, measured, predicted in pairs:
            diff = (predicted - measured) / measured
            rows.append(f"| {label} ({what}) | {n:,} params | measured {measured / n:.2f} B/param, estimate "
                        f"{predicted / n:.2f} B/param ({diff:+.2%}) | exact (±1%) | "
                        f"{'within bound' if abs(diff) <= 0.01 else 'OUT OF BOUND'} |")
        print(f"  ran {label} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return rows


def fsdp_rows() -> list[str]:
    from gloo_ranks import run_ranks

    from wizard.core.answers import default_answers
    from wizard.core.memory.estimate import estimate

    rows = []
    for dtype, mp in (("fp32", "no"), ("bf16", "bf16"), ("bf16", "no")):
        t0 = time.perf_counter()
        res = run_ranks(HERE / "_fsdp_census.py", dtype, mp, world=2, timeout=600, PYTHONPATH=str(ROOT))[0]
        a = default_answers().replace({"backend": "fsdp", "fsdp_version": 2, "launch.num_processes": 2,
                                       "sharding.strategy": "full", "precision.mixed_precision": mp,
                                       "precision.model_dtype": dtype})
        b = estimate(a, params=res["numel"], largest_layer_params=256 * 256 + 256).per_rank.breakdown
        n = res["numel"]
        measured = res["parameters"] + res["gradients"] + res["adam"]
        predicted = b["parameters"] + b["gradients"] + b["optimizer_states"]
        diff = (predicted - measured) / measured
        rows.append(f"| FSDP2 full shard, model {dtype}, mixed_precision {mp}, N=2 (local param + grad + Adam "
                    f"shards, params {res['param_dtype'].removeprefix('torch.')}) | {n:,} params | measured "
                    f"{measured / n:.2f} B/param, estimate {predicted / n:.2f} B/param ({diff:+.2%}) | exact (±1%) | "
                    f"{'within bound' if abs(diff) <= 0.01 else 'OUT OF BOUND'} |")
        print(f"  ran FSDP2 {dtype}/{mp} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return rows


def _saved_bytes(model, x) -> int:
    """Bytes autograd saves for backward in one forward (storages counted once, parameters excluded)."""
    import torch

    seen: dict[int, int] = {}

    def pack(t):
        st = t.untyped_storage()
        seen[st.data_ptr()] = st.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(inputs_embeds=x)
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    return sum(v for k, v in seen.items() if k not in params)


def activation_rows() -> list[str]:
    """Saved-tensor bytes of one transformers decoder layer (a 2-layer model minus a 1-layer one, so embeddings and
    the final norm cancel) vs the estimate's per-layer activations, bf16 on CPU."""
    import torch
    from transformers import GPT2Config, GPT2Model, LlamaConfig, LlamaModel

    from wizard.core.answers import default_answers
    from wizard.core.memory.estimate import estimate
    from wizard.core.memory.model import ModelShape

    cases = [
        ("transformers Llama layer (sdpa), h 2048 i 8192 GQA 32/8", "llama", 2048, 8192, 32, 8, 1024, 2,
         lambda n: LlamaModel(LlamaConfig(hidden_size=2048, intermediate_size=8192, num_attention_heads=32,
                                          num_key_value_heads=8, num_hidden_layers=n, vocab_size=128))),
        ("transformers Llama layer (sdpa), h 1024 i 2816 GQA 16/4", "llama", 1024, 2816, 16, 4, 2048, 1,
         lambda n: LlamaModel(LlamaConfig(hidden_size=1024, intermediate_size=2816, num_attention_heads=16,
                                          num_key_value_heads=4, num_hidden_layers=n, vocab_size=128))),
        ("transformers GPT-2 layer (eager), h 768 a 12", "gpt2", 768, 3072, 12, 12, 1024, 2,
         lambda n: GPT2Model(GPT2Config(n_embd=768, n_head=12, n_layer=n, vocab_size=128, n_positions=1024,
                                        attn_implementation="eager"))),
    ]
    rows = []
    for label, family, h, inner, heads, kv, seq, batch, make in cases:
        sizes = []
        for layers in (1, 2):
            torch.manual_seed(0)
            model = make(layers).to(torch.bfloat16).train()
            x = torch.randn(batch, seq, h, dtype=torch.bfloat16, requires_grad=True)
            sizes.append(_saved_bytes(model, x))
        measured = sizes[1] - sizes[0]
        shape = ModelShape(name=label, family=family, vocab_size=128, hidden_size=h, num_layers=1, num_heads=heads,
                           num_kv_heads=kv, intermediate_size=inner, max_positions=seq if family == "gpt2" else 0)
        e = estimate(default_answers(), params=10 ** 6, largest_layer_params=1, shape=shape, batch=batch, seq=seq)
        predicted = e.per_rank.breakdown["activations"]
        diff = (predicted - measured) / measured
        rows.append(f"| activations: {label}, s {seq} b {batch} | per layer | measured {measured / 2 ** 20:.1f} MiB, "
                    f"estimate {predicted / 2 ** 20:.1f} MiB ({diff:+.1%}) | 15% | "
                    f"{'within bound' if abs(diff) <= 0.15 else 'OUT OF BOUND'} |")
    return rows


NOT_YET = [
    "FSDP1 shards, FSDP CPU offload, hybrid sharding",
    "DeepSpeed with parameter offload, NVMe offload, and the host's fp32 gradient copy under optimizer offload",
    "DeepSpeed ZeRO-0 (BF16_Optimizer) and fp32 without mixed precision",
    "activations with activation checkpointing (2sbh per layer), the bundled TinyGPT model, logits",
    "per-rank peak vs torch.cuda.max_memory_allocated (needs a GPU)",
]


def main(argv: list[str]) -> int:
    print("| row | size | result | bound | verdict |")
    print("|---|---|---|---|---|")
    print(grid_row())
    if "--skip-runs" not in argv:
        for row in fsdp_rows() + census_rows():
            print(row)
    for row in activation_rows():
        print(row)
    for row in NOT_YET:
        print(f"| {row} | | not measured yet | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
