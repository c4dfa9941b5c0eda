"""Accuracy of the memory estimate (issue 10): the rows that can be produced for real on this CPU machine.

    .venv/bin/python benchmarks/memory.py [--skip-runs | --parallel-only]

(a) our restatement of DeepSpeed's estimators vs DeepSpeed 0.19.8's own functions over a grid (sizes, GPUs per
    node, nodes, every offload / zero_init combination): the largest difference, which must be 0.00 GiB;
(b) per-rank model-state bytes from ``estimate()`` vs the tensor bytes rank 0 holds in real 2-process CPU runs
    (gloo) after one AdamW step: FSDP2 through accelerate (benchmarks/_fsdp_census.py), FSDP1 through accelerate
    (FULL_SHARD, SHARD_GRAD_OP, HYBRID_SHARD as 2 hosts x 1; benchmarks/_fsdp1_census.py) and DeepSpeed ZeRO-0/1/2/3
    (bf16 with fp32 or bf16 master weights, fp32 without mixed precision; benchmarks/_ds_census.py);
(c) what the libraries place under offload and its bytes (FSDP1 CPUOffload, FSDP2 CPUOffloadPolicy, DeepSpeed
    optimizer / parameter / NVMe offload), read from their own flags, since on a CPU-only machine "GPU" and host
    are the same memory;
(d) activations: saved-tensor bytes of single transformers layers, and torch MemTracker peaks of whole causal LMs
    (transformers Llama and GPT-2, the bundled TinyGPT), with and without activation checkpointing, and of the LM
    head + loss (benchmarks/_act_census.py), vs the estimate's activations + logits;
(e) the whole step's peak of a transformers Llama on one process (parameters, gradients, AdamW states, activations,
    the loss and the step's temporaries, one and two micro-batches per step, torch MemTracker) vs ``gpu_bytes``
    less the CUDA context: where the peak falls, and that gradients are held at the loss only when accumulating;
(f) the speed goal, from benchmarks/estimate_speed.py's last result;
(g) tensor, context and sequence parallelism (issue 24): per-rank state bytes of FSDP2 x TP on four gloo ranks
    (dp_shard 2 x tp 2, transformers' TP plan and its FSDP2 over the 2-D mesh, benchmarks/_tp_census.py) and the
    bytes one Llama layer saves under tp 2; the bytes one layer saves under DeepSpeed's Ulysses sp 2
    (benchmarks/_sp_census.py); context parallelism where it cannot run on CPU, with the reason.
--skip-runs leaves out (b), (c) and (g); --parallel-only runs (g) alone. What needs a GPU is listed as not measured.
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
sys.path.insert(1, str(ROOT / "tests"))  # gloo_ranks imports tests/helpers.py
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


def _tp_layout(processes: int, shard: int, tp: int, mp: str, dtype: str):
    from wizard.core.effective.layout import Layout

    return Layout(target="fsdp2", processes=processes, machines=1, mixed_precision=mp, model_dtype=dtype,
                  fsdp_strategy="FULL_SHARD", shard_group=shard, micro_batch=1, gradient_accumulation_steps=1, tp=tp,
                  dp_shard=shard)


def _llama(h: int, inner: int, heads: int, kv: int, layers: int, vocab: int = 128):
    from wizard.core.memory.shapes import ModelShape

    return ModelShape(name=f"llama h {h}", family="llama", vocab_size=vocab, hidden_size=h, num_layers=layers,
                      num_heads=heads, num_kv_heads=kv, intermediate_size=inner, model_type="llama")


def parallel_rows() -> list[str]:
    """(g): FSDP2 x TP state bytes and TP / Ulysses SP activations measured on gloo ranks; CP said not measured."""
    import tempfile

    from gloo_ranks import run_ranks

    from wizard.core.effective.layout import Layout
    from wizard.core.memory.estimate import estimate

    rows = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        ranks = run_ranks(HERE / "_tp_census.py", folder, "states", world=4, timeout=900, PYTHONPATH=str(ROOT))
    res = ranks[0]
    print(f"  ran FSDP2 x TP states in {time.perf_counter() - t0:.0f} s; placements {res['placements']}",
          file=sys.stderr)
    shape = _llama(64, 128, 4, 2, 2)
    b = estimate(_tp_layout(4, 2, 2, "no", "fp32"), shape=shape, seq=16).per_rank.breakdown
    n = res["numel"]
    per_rank = {r: v["parameters"] + v["gradients"] + v["adam"] for r, v in ranks.items()}
    measured = per_rank[0]
    predicted = b["parameters"] + b["gradients"] + b["optimizer_states"]
    q = res["placements"]["model.layers.0.self_attn.q_proj.weight"]
    norm = res["placements"]["model.norm.weight"]
    rows.append(_row(f"FSDP2 x TP, dp_shard 2 x tp 2 on 4 gloo ranks, fp32 (transformers DistributedConfig: TP plan "
                     f"over mesh {res['mesh']}, then fully_shard; q_proj {'/'.join(q)}, norm {'/'.join(norm)}; "
                     f"rank 0 local param + grad + Adam, ranks {sorted(set(per_rank.values()))} B)", f"{n:,} params",
                     measured, predicted, 0.01, per=n))
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        act = run_ranks(HERE / "_tp_census.py", folder, "activations", world=2, timeout=900, PYTHONPATH=str(ROOT))[0]
    print(f"  ran TP activations in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    h, inner, heads, kv, seq = act["hidden_size"], act["intermediate_size"], act["num_attention_heads"], \
        act["num_key_value_heads"], act["seq"]
    one_layer = _llama(h, inner, heads, kv, 1)
    predicted = estimate(_tp_layout(2, 1, 2, "bf16", "bf16"), shape=one_layer, seq=seq).per_rank.breakdown[
        "activations"]
    rows.append(_row(f"activations under tp 2: transformers Llama layer (sdpa), h {h} i {inner} GQA {heads}/{kv}, "
                     f"bf16, s {seq} b 1, rank 0 (estimate includes one rowwise all-reduce buffer, s x h)", "per layer",
                     act["layer_saved"], predicted, 0.15, unit="MiB", per=2 ** 20))
    t0 = time.perf_counter()
    sp = run_ranks(HERE / "_sp_census.py", world=2, timeout=900, DS_ACCELERATOR="cpu", TORCH_EXTENSIONS_DIR=EXT)[0]
    print(f"  ran Ulysses SP activations in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if "error" in sp:
        rows.append(f"| activations under DeepSpeed Ulysses sp 2 | | not measured: {sp['error']} | | |")
    else:
        lay = Layout(target="deepspeed", processes=2, machines=1, mixed_precision="bf16", model_dtype="bf16", stage=3,
                     micro_batch=1, gradient_accumulation_steps=1, sp=2, dp_shard=1)
        predicted = estimate(lay, shape=_llama(1024, 2816, 16, 4, 1), seq=1024).per_rank.breakdown["activations"]
        rows.append(_row("activations under DeepSpeed Ulysses sp 2 (UlyssesSPAttentionHF around transformers' sdpa, "
                         "all-to-all on gloo; the 2-rank output equals one process's, max abs diff "
                         f"{sp['max_abs_diff_vs_one_process']:g}): Llama layer h 1024 i 2816 GQA 16/4, bf16, s 1024 "
                         "(512 per rank) b 1, rank 0 (estimate includes the all-to-all buffers)", "per layer",
                         sp["layer_saved"], predicted, 0.15, unit="MiB", per=2 ** 20))
    rows.append(_cp_row())
    return rows


def _cp_row() -> str:
    """Context parallelism: whether torch's context_parallel runs attention on CPU (it does not in torch 2.13)."""
    from gloo_ranks import run_ranks

    res = run_ranks(HERE / "_cp_census.py", world=2, timeout=600)[0]
    if "error" in res:
        return (f"| context parallel 2 (torch context_parallel, ring attention on gloo) | | not measured: "
                f"{res['error']} (torch {res['torch']}: CPU attention has no context-parallel implementation) | | |")
    return (f"| context parallel 2 (torch context_parallel on gloo) | | runs on CPU (max abs diff "
            f"{res['max_abs_diff']:g}); its activations are not compared yet | | |")


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
    from wizard.core.memory.shapes import ModelShape

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


def _verdict(diff: float, bound: float) -> str:
    return "within bound" if abs(diff) <= bound else "OUT OF BOUND"


def _row(label: str, size: str, measured: float, predicted: float, bound: float, unit: str = "B/param",
         per: float = 1.0, note: str = "") -> str:
    diff = (predicted - measured) / measured if measured else (0.0 if predicted == measured else float("inf"))
    shown = f"{bound:.0%}" if bound >= 0.05 else "exact (±1%)"
    return (f"| {label} | {size} | measured {measured / per:.2f} {unit}, estimate {predicted / per:.2f} {unit} "
            f"({diff:+.2%}){note} | {shown} | {_verdict(diff, bound)} |")


def _answers(**values):
    from wizard.core.answers import default_answers

    return default_answers().replace({k.replace("__", "."): v for k, v in values.items()})


UNIT = 256 * 256 + 256
"""One Block / Linear of the census models (benchmarks/_fsdp_census.py, _fsdp1_census.py, _ds_census.py)."""


def fsdp1_rows() -> list[str]:
    """FSDP1 through accelerate on 2 gloo ranks: per-rank shards, what stays gathered, hybrid and CPU offload."""
    from gloo_ranks import run_ranks

    from wizard.core.memory.estimate import estimate

    rows = []
    runs = [("FULL_SHARD", "fp32", "no", ()), ("FULL_SHARD", "bf16", "bf16", ()), ("FULL_SHARD", "bf16", "no", ()),
            ("SHARD_GRAD_OP", "bf16", "bf16", ()), ("SHARD_GRAD_OP", "bf16", "no", ()),
            ("HYBRID_SHARD", "bf16", "bf16", ()),
            ("FULL_SHARD", "bf16", "bf16", ("offload",))]
    intent = {"FULL_SHARD": "full", "SHARD_GRAD_OP": "grads_optimizer", "HYBRID_SHARD": "hybrid_full"}
    for strategy, dtype, mp, extra in runs:
        t0 = time.perf_counter()
        res = run_ranks(HERE / "_fsdp1_census.py", strategy, dtype, mp, *extra, world=2, timeout=600,
                        PYTHONPATH=str(ROOT))[0]
        hybrid = strategy == "HYBRID_SHARD"
        off = bool(extra)
        a = _answers(backend="fsdp", fsdp_version=1, launch__num_processes=2, launch__num_machines=2 if hybrid else 1,
                     sharding__strategy=intent[strategy], precision__mixed_precision=mp, precision__model_dtype=dtype,
                     offload__params="cpu" if off else "none")
        e = estimate(a, params=res["numel"], largest_layer_params=UNIT)
        b, n = e.per_rank.breakdown, res["numel"]
        size = f"{n:,} params"
        label = f"FSDP1 {strategy}, model {dtype}, mixed_precision {mp}, N=2"
        measured = res["parameters"] + res["gradients"] + res["adam"]
        if off:
            label += (f", CPUOffload ({res['offload_params']}/{res['units']} units offload_params, gradients in "
                      "_cpu_grad; pin_memory and the end-of-backward stream sync made no-ops: both need an "
                      "accelerator)")
            host = sum(e.host_breakdown[k] for k in ("offloaded_parameters", "offloaded_gradients",
                                                      "offloaded_optimizer_states")) / e.ranks_per_host
            rows.append(_row(label + " (host: flat shard + its CPU gradient + Adam)", size, measured, host, 0.01,
                             per=n))
            rows.append(f"| {label} (GPU: model states) | {size} | library keeps no state off the host "
                        f"(all {res['units']} units offload_params); estimate "
                        f"{(b['parameters'] + b['gradients'] + b['optimizer_states']) / n:.2f} B/param | exact | "
                        f"{_verdict(0.0 if b['parameters'] + b['gradients'] + b['optimizer_states'] == 0 else 1, 0)} |")
        else:
            if hybrid:
                label += (f" as 2 hosts x 1 (shard group {res['shard_group']}, replicate group "
                          f"{res['replicate_group']}: torch clamps a 1-rank shard group to {res['sharding_strategy']})")
            predicted = b["parameters"] + b["gradients"] + b["optimizer_states"]
            rows.append(_row(label + f" (flat shard + grad + Adam, params {res['param_dtype'].removeprefix('torch.')})",
                             size, measured, predicted, 0.01, per=n))
        if strategy == "SHARD_GRAD_OP":
            rows.append(_row(f"FSDP1 SHARD_GRAD_OP, model {dtype}, mixed_precision {mp}, N=2 (unsharded units "
                             "alive between forward and backward)", size, res["gathered_after_forward"],
                             b["gathered"], 0.01, unit="B/param", per=n))
        if strategy == "FULL_SHARD" and mp == "bf16" and not off:
            rows.append(_row("FSDP1 FULL_SHARD bf16 mixed precision, BACKWARD_PRE, N=2 (most unsharded bytes at a "
                             "block's backward: current + prefetched unit)", f"unit {UNIT:,} params",
                             res["gathered_peak_backward"], b["gathered"], 0.01, unit="units", per=UNIT * 2))
        print(f"  ran {label[:60]} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return rows


def fsdp2_offload_rows() -> list[str]:
    from gloo_ranks import run_ranks

    from wizard.core.memory.estimate import estimate

    t0 = time.perf_counter()
    res = run_ranks(HERE / "_fsdp_census.py", "bf16", "bf16", "offload", world=2, timeout=600,
                    PYTHONPATH=str(ROOT))[0]
    a = _answers(backend="fsdp", fsdp_version=2, launch__num_processes=2, sharding__strategy="full",
                 precision__mixed_precision="bf16", precision__model_dtype="bf16", offload__params="cpu")
    e = estimate(a, params=res["numel"], largest_layer_params=UNIT)
    n = res["numel"]
    host = sum(e.host_breakdown[k] for k in ("offloaded_parameters", "offloaded_gradients",
                                              "offloaded_optimizer_states")) / e.ranks_per_host
    b = e.per_rank.breakdown
    print(f"  ran FSDP2 offload in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return [_row(f"FSDP2 full shard bf16 mixed precision, CPUOffloadPolicy(pin_memory=False), N=2 (host: shards "
                 f"of the {res['offload_to_cpu']}/{res['fsdp_params']} parameters marked offload_to_cpu + their "
                 "gradients + Adam)", f"{n:,} params", res["parameters"] + res["gradients"] + res["adam"], host,
                 0.01, per=n),
            f"| FSDP2 CPUOffloadPolicy (GPU: model states) | {n:,} params | every parameter marked offload_to_cpu; "
            f"estimate {(b['parameters'] + b['gradients'] + b['optimizer_states']) / n:.2f} B/param | exact | "
            f"{_verdict(0.0 if res['offload_to_cpu'] == res['fsdp_params'] else 1, 0)} |"]


def ds_more_rows(nvme_dir: str | None) -> list[str]:
    """DeepSpeed rows beyond census_rows: ZeRO-0, fp32 without mixed precision, the host's gradient copies under
    optimizer offload, parameter offload, NVMe."""
    from gloo_ranks import run_ranks

    from wizard.core.memory.estimate import estimate

    rows = []
    strategy = {0: "none", 1: "optimizer", 2: "grads_optimizer", 3: "full"}

    def run(stage, mode, *flags):
        t0 = time.perf_counter()
        res = run_ranks(HERE / "_ds_census.py", str(stage), mode, *flags, world=2, timeout=900, DS_ACCELERATOR="cpu",
                        TORCH_EXTENSIONS_DIR=EXT)[0]
        print(f"  ran DeepSpeed {stage} {mode} {' '.join(flags)} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        return res

    def est(stage, mp, **more):
        a = _answers(backend="deepspeed", launch__num_processes=2, sharding__strategy=strategy[stage],
                     precision__mixed_precision=mp, precision__model_dtype="bf16" if mp == "bf16" else "fp32", **more)
        return a

    # ZeRO-0 bf16 and fp32; ZeRO-1/2/3 fp32
    for stage, mode in ((0, "fp32"), (0, "nomp"), (1, "nomp"), (2, "nomp"), (3, "nomp")):
        res = run(stage, mode)
        e = estimate(est(stage, "no" if mode == "nomp" else "bf16"), params=res["numel"], largest_layer_params=UNIT)
        b, n = e.per_rank.breakdown, res["numel"]
        with_grads = res["grads"] is not None
        measured = res["parameters"] + res["master"] + res["adam"] + (res["grads"] or 0)
        predicted = b["parameters"] + b["optimizer_states"] + (b["gradients"] if with_grads else 0)
        if stage == 0:
            what = ("params + Adam" if mode == "nomp" else "params + fp32 master + Adam") + " + gradients at the step"
        else:
            what = "params + master + Adam" + (" + gradient partition" if with_grads else "")
        kind = "bf16" if mode != "nomp" else "fp32, no mixed precision"
        rows.append(_row(f"ZeRO-{stage} {kind}, N=2, {res['optimizer']} ({what})", f"{n:,} params", measured,
                         predicted, 0.01, per=n))
    # the host's gradient copies under optimizer offload (fp32 partition; ZeRO-3 also its 16-bit partition)
    for stage in (1, 2, 3):
        res = run(stage, "fp32", "offload")
        e = estimate(est(stage, "bf16", offload__optimizer="cpu"), params=res["numel"], largest_layer_params=UNIT)
        n = res["numel"]
        measured = res["host_grads"] + (res["grads"] or 0 if stage == 3 else 0)
        flags = ", ".join(f"{k}={v}" for k, v in res["placement"].items())
        what = "fp32 gradient partition" + (" + 16-bit gradient partition" if stage == 3 else "")
        rows.append(_row(f"ZeRO-{stage} bf16, optimizer offload cpu, N=2 ({flags}) (host: {what})", f"{n:,} params",
                         measured, e.host_breakdown["offloaded_gradients"] / e.ranks_per_host, 0.01, per=n))
    # parameter offload to the CPU (ZeRO-3)
    res = run(3, "fp32", "offload", "offload_param")
    e = estimate(est(3, "bf16", offload__optimizer="cpu", offload__params="cpu"), params=res["numel"],
                 largest_layer_params=UNIT)
    n = res["numel"]
    flags = ", ".join(f"{k}={v}" for k, v in res["placement"].items() if k.startswith("offload"))
    rows.append(_row(f"ZeRO-3 bf16, offload_param + offload_optimizer cpu, N=2 ({flags}) (host: 16-bit parameter "
                     "partition)", f"{n:,} params", res["parameters"],
                     e.host_breakdown["offloaded_parameters"] / e.ranks_per_host, 0.01, per=n))
    if nvme_dir is None:
        rows.append("| ZeRO-3 NVMe offload (optimizer and parameters) | | not measured: DeepSpeed's async_io op does "
                    "not build here (it needs libaio's headers, apt package libaio-dev) | | |")
        return rows
    res = run(3, "fp32", "nvme", nvme_dir, "width", "1024")
    e = estimate(est(3, "bf16", offload__optimizer="nvme", offload__params="nvme", offload__nvme_path=nvme_dir),
                 params=res["numel"], largest_layer_params=1024 * 1024 + 1024)
    n, hb, per_host = res["numel"], e.host_breakdown, e.ranks_per_host
    pin = res["pinned"]
    rows.append(_row(f"ZeRO-3 bf16, NVMe offload of optimizer and parameters, N=2 (swap buffers: optimizer "
                     f"{pin['optimizer_swap_buffer_count']} x {pin['optimizer_largest_numel']:,} fp32, parameters "
                     f"{pin['param_buffer_count']} x {pin['param_elements_per_buffer']:,} bf16)", f"{n:,} params",
                     pin["optimizer_swap_buffers"] + pin["param_swap_buffers"], hb["pinned_buffers"] / per_host, 0.01,
                     unit="MiB", per=2 ** 20))
    rows.append(_row("ZeRO-3 bf16, NVMe offload, N=2 (host memory: the 16-bit parameter partition, kept below "
                     "max_in_cpu, + the 16-bit gradient partition)", f"{n:,} params", res["parameters"] + res["grads"],
                     (hb["offloaded_parameters"] + hb["offloaded_gradients"]) / per_host, 0.01, per=n))
    rows.append(f"| ZeRO-3 bf16, NVMe offload, N=2 (fp32 master + Adam left in host memory after the step) | {n:,} "
                f"params | measured {(res['master'] + res['adam']) / n:.2f} B/param ({res['placement']['swap_files']} "
                f"swap files written), estimate {hb['offloaded_optimizer_states'] / per_host / n:.2f} B/param | exact "
                f"| {_verdict(0.0 if res['master'] + res['adam'] == hb['offloaded_optimizer_states'] else 1, 0)} |")
    return rows


def _nvme_dir() -> str | None:
    """A folder for NVMe offload when DeepSpeed's async_io op can be built here (libaio headers present)."""
    import tempfile

    from deepspeed.ops.op_builder.cpu import AsyncIOBuilder

    try:
        ok = AsyncIOBuilder().is_compatible(verbose=False)
    except Exception:  # noqa: BLE001 - an op builder that cannot even check counts as absent
        ok = False
    return tempfile.mkdtemp(prefix="fsdpds_nvme_") if ok else None


def checkpoint_and_logits_rows() -> list[str]:
    """Activation checkpointing, the bundled TinyGPT, the logits term, and whole causal LMs, measured with torch's
    MemTracker (benchmarks/_act_census.py) against the estimate's activations + logits."""
    import _act_census as act
    import torch

    from wizard.core.memory.estimate import estimate
    from wizard.core.memory.shapes import ModelShape, tinygpt_shape

    rows = []
    b, s, vocab = 2, 512, 8192
    ids = torch.randint(vocab, (b, s), generator=torch.Generator().manual_seed(0))
    llama_shape = lambda n: ModelShape(name="llama-small", family="llama", vocab_size=vocab, hidden_size=1024,  # noqa: E731
                                       num_layers=n, num_heads=16, num_kv_heads=4, intermediate_size=2816)
    gpt2_shape = lambda n: ModelShape(name="gpt2-small", family="gpt2", vocab_size=vocab, hidden_size=768,  # noqa: E731
                                      num_layers=n, num_heads=12, num_kv_heads=12, intermediate_size=3072,
                                      max_positions=1024, tie_embeddings=True, model_type="gpt2")
    tiny_shape = lambda n: tinygpt_shape(vocab=vocab, d_model=512, n_layers=n, n_heads=8, seq_len=s)  # noqa: E731
    families = [
        ("transformers LlamaForCausalLM (sdpa) h 1024 i 2816 GQA 16/4, bf16", llama_shape, 4,
         lambda n, ck: _hf(act.llama(n), ck), act.hf_step, {}),
        ("transformers GPT2LMHeadModel (eager, dropout 0.1) h 768 a 12, bf16", gpt2_shape, 2,
         lambda n, ck: _hf(act.gpt2(n), ck), act.hf_step, {}),
        ("bundled TinyGPT (templates/train_gpt.py) d 512 a 8, fp32", tiny_shape, 4,
         lambda n, ck: act.tinygpt(n, d=512, heads=8, vocab=vocab, seq=s, checkpoint=ck), act.tinygpt_step,
         {"precision__mixed_precision": "no", "precision__model_dtype": "fp32"}),
    ]
    for label, shape_of, layers, make, step_of, prec in families:
        runs = {}
        for n, ck in ((1, False), (2, False), (1, True), (2, True), (layers, False), (layers, True)):
            if (n, ck) not in runs:
                model = make(n, ck)
                runs[(n, ck)] = act.measure(model, step_of(model, ids))
                del model
        for ck in (False, True):
            one = estimate(_answers(training__activation_checkpointing=ck, **prec), shape=shape_of(1), batch=b,
                           seq=s)
            layer_bytes = one.per_rank.breakdown["activations"]
            if ck:  # the per-layer part kept with checkpointing: what a second layer adds at the end of forward
                measured = runs[(2, True)]["forward_end"] - runs[(1, True)]["forward_end"]
                two = estimate(_answers(training__activation_checkpointing=True, **prec), shape=shape_of(2), batch=b,
                               seq=s)
                predicted = two.per_rank.breakdown["activations"] - layer_bytes
                rows.append(_row(f"activation checkpointing: {label}, s {s} b {b} (kept per layer, 2sbh)",
                                 "per layer", measured, predicted, 0.05, unit="MiB", per=2 ** 20))
            elif "TinyGPT" in label:
                measured = runs[(2, False)]["forward_end"] - runs[(1, False)]["forward_end"]
                rows.append(_row(f"activations: {label}, s {s} b {b} (saved by one layer)", "per layer", measured,
                                 layer_bytes, 0.15, unit="MiB", per=2 ** 20))
            whole = estimate(_answers(training__activation_checkpointing=ck, **prec), shape=shape_of(layers), batch=b,
                             seq=s)
            wb = whole.per_rank.breakdown
            rows.append(_row(f"whole model, {'with' if ck else 'without'} activation checkpointing: {label}, "
                             f"{layers} layers, V {vocab}, s {s} b {b} (peak activation + temporary bytes vs "
                             "activations + logits)", f"{layers} layers", runs[(layers, ck)]["peak"],
                             wb["activations"] + wb["logits"], 0.15, unit="MiB", per=2 ** 20))
    head = act.lm_head_and_loss(h=1024, vocab=vocab, seq=s, batch=b)
    e = estimate(_answers(), shape=llama_shape(1), batch=b, seq=s)
    rows.append(_row(f"logits: bf16 LM head h 1024 -> V {vocab} + transformers ForCausalLMLoss, s {s} b {b} (peak: "
                     "held logits + fp32 log-softmax + the loss backward's two fp32 gradients)", "b·s·V logits",
                     head["peak"], e.per_rank.breakdown["logits"], 0.05, unit="B/logit", per=b * s * vocab))
    return rows


def step_peak_rows() -> list[str]:
    """The whole step's peak (parameters, gradients, AdamW states, activations, the loss, the step's temporaries)
    of a transformers Llama on one process, with one and two micro-batches per step, with and without activation
    checkpointing, against the estimate's ``gpu_bytes`` less the CUDA context. One process, no sharding: the
    answers are FSDP1 NO_SHARD on one process, whose states are the plain model's (the flat parameter is the
    parameter). The last column of each row also gives what adding every part at once would say."""
    import _act_census as act
    import torch

    from wizard.core.memory.estimate import CUDA_CONTEXT_BYTES, estimate
    from wizard.core.memory.shapes import ModelShape

    rows = []
    b, s, vocab, layers = 2, 512, 32000, 4
    ids = torch.randint(vocab, (b, s), generator=torch.Generator().manual_seed(0))
    shape = ModelShape(name="llama-small", family="llama", vocab_size=vocab, hidden_size=1024, num_layers=layers,
                       num_heads=16, num_kv_heads=4, intermediate_size=2816)
    for ck in (False, True):
        for ga in (1, 2):
            model = _hf(act.llama(layers, vocab=vocab), ck)
            measured = act.step_peak(model, ids, ga)
            del model
            e = estimate(_answers(fsdp_version=1, launch__num_processes=1, sharding__strategy="none",
                                  precision__mixed_precision="no", precision__model_dtype="bf16",
                                  training__activation_checkpointing=ck, training__gradient_accumulation_steps=ga),
                         shape=shape, batch=b, seq=s)
            every = sum(e.per_rank.breakdown.values()) - e.per_rank.breakdown["optimizer_step"] - CUDA_CONTEXT_BYTES
            rows.append(_row(f"whole step peak: transformers Llama h 1024 i 2816, {layers} layers, V {vocab}, bf16, "
                             f"torch AdamW, one process, s {s} b {b}, {ga} micro-batch{'es' if ga > 1 else ''} per "
                             f"step, {'with' if ck else 'without'} activation checkpointing (peak at "
                             f"{e.per_rank.phase})", f"{e.params:,} params", measured,
                             e.per_rank.gpu_bytes - CUDA_CONTEXT_BYTES, 0.15, unit="MiB", per=2 ** 20,
                             note=f"; every part at once {every / 2 ** 20:.1f} MiB ({every / measured - 1:+.1%})"))
    return rows


def _hf(model, checkpoint: bool):
    if checkpoint:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    return model


def speed_row() -> str:
    """The speed goal, from benchmarks/estimate_speed.py's last result (run it first; it is not re-run here)."""
    import json

    path = HERE / "results" / "estimate_speed.json"
    if not path.exists():
        return "| speed: fsdpds-wizard estimate, whole process | | not measured: run benchmarks/estimate_speed.py | | |"
    r = json.loads(path.read_text())
    med = r["median_ms"]
    ours = [k for k in med if k.startswith("fsdpds-wizard")]
    acc = next(k for k in med if k.startswith("accelerate"))
    shown = "; ".join(f"{k.removeprefix('fsdpds-wizard estimate ')} {med[k]:.0f} ms" for k in ours)
    ok = all(med[k] <= 150 for k in ours)
    return (f"| speed: `fsdpds-wizard estimate {r['preset']}` whole process, median of {r['runs']} interleaved runs "
            f"(benchmarks/estimate_speed.py, {r['when']}) | {r['model']} | {shown}; `{acc}` {med[acc]:.0f} ms "
            f"({min(r['ratio_accelerate_over_ours'].values()):.0f}x slower) | 150 ms | "
            f"{'within bound' if ok else 'OUT OF BOUND'} |")


NOT_YET = [
    "per-rank peak vs torch.cuda.max_memory_allocated, FSDP/DeepSpeed gathered units and buckets in flight on a "
    "GPU, SDPA/flash attention activations on a GPU (need a GPU)",
]


def main(argv: list[str]) -> int:
    print("| row | size | result | bound | verdict |")
    print("|---|---|---|---|---|")
    if "--parallel-only" in argv:  # (g) alone
        for row in parallel_rows():
            print(row, flush=True)
        return 0
    print(grid_row())
    if "--skip-runs" not in argv:
        for row in fsdp_rows() + fsdp1_rows() + fsdp2_offload_rows() + census_rows() + ds_more_rows(_nvme_dir()):
            print(row, flush=True)
    if "--skip-runs" not in argv:
        for row in parallel_rows():
            print(row, flush=True)
    for row in activation_rows() + checkpoint_and_logits_rows() + step_peak_rows():
        print(row, flush=True)
    print(speed_row())
    for row in NOT_YET:
        print(f"| {row} | | not measured yet | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
