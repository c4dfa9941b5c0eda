#!/usr/bin/env python
"""fsdpds-wizard's bundled training script: a small GPT-style language model on synthetic data.

It exists to rehearse and demonstrate a config, not to train anything useful:

* the model is a decoder-only transformer (token + position embeddings, ``GPTBlock`` layers with
  causal self-attention and an MLP, a final LayerNorm and an untied output head);
* the data is synthetic and learnable: every sequence follows a fixed random successor table most
  of the time, so the loss falls from about ln(vocab) within a few steps;
* everything is seeded (``--seed``), so two runs with the same world size see the same initial weights
  and the same batches, whatever the sharding backend;
* it uses ``Accelerator`` and runs on GPU (NCCL, accelerate's default) and on CPU (gloo: on a machine
  without CUDA it passes ``InitProcessGroupKwargs(backend="gloo")``, without which DeepSpeed would see
  two ranks while accelerate believes it runs one).

Reporting. Each step prints one JSON line (step, loss, learning rate, tokens/s, step time, memory)
and each rank prints one "effective setup" record read from the live objects after ``prepare()``.
Both come from :class:`wizard.runtime.RunReporter`. The script is self-contained: when fsdpds-wizard
is not importable (the script was copied to another machine), it looks for ``fsdpds_runtime.py`` (a
copy of ``wizard/runtime/__init__.py``) next to itself, and failing that it still trains and prints the step
records from a minimal built-in reporter, only without the effective-setup record.

    accelerate launch --config_file accelerate_config.yaml train_gpt.py --steps 20

Checkpoints. At the end of training (and every ``--save-every N`` steps) the script saves a checkpoint
through accelerate's own ``save_state`` into ``OUTPUT_DIR/step-NNNNNN/``, in the form the config asks for:
FSDP ``fsdp_state_dict_type`` SHARDED_STATE_DICT (a ``torch.distributed.checkpoint`` folder,
``pytorch_model_fsdp_0/``), FULL_STATE_DICT (``pytorch_model_fsdp.bin``, written by rank 0) or
LOCAL_STATE_DICT (one file per rank); DeepSpeed ZeRO partitions (``pytorch_model/`` with ``latest`` and
DeepSpeed's ``zero_to_fp32.py``), plus, when ZeRO-3 gathers 16-bit weights on save
(``zero3_save_16bit_model``), the gathered weights through ``save_model`` in ``model_16bit/``. Each
checkpoint folder gets ``fsdpds_checkpoint.json`` (what was saved, by which backend, at which step), which
``fsdpds-wizard consolidate`` reads. ``OUTPUT_DIR`` is ``--output-dir``, else ``checkpoint/`` in the run
record folder when the wizard launched the script (``FSDPDS_RUN_DIR``); with neither, or with ``--no-save``,
nothing is saved. Saving prints one ``{"fsdpds": 1, "kind": "checkpoint", ...}`` line per checkpoint, and
the end record names the last one.

Test hooks: ``--crash-rank R --crash-step S`` makes rank R die (``os._exit(3)``) at step S;
``--step-sleep SECONDS`` slows every step down so a run can be stopped half-way; ``--save-reference FILE``
writes the trained weights, gathered in full, to a safetensors file (what a consolidated checkpoint must equal).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time


def build_parser():
    """The script's arguments: the one list (fsdpds-wizard's rehearsal reads it to keep what it understands)."""
    p = argparse.ArgumentParser(description="Small GPT on synthetic data (fsdpds-wizard bundled script)")
    p.add_argument("--steps", type=int, default=20, help="optimizer steps (default 20)")
    p.add_argument("--batch-size", type=int, default=8, help="micro-batch size per process (default 8)")
    p.add_argument("--seq-len", type=int, default=32)
    p.add_argument("--vocab", type=int, default=64)
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--n-layers", type=int, default=2)
    p.add_argument("--n-heads", type=int, default=4)
    p.add_argument("--arch", choices=("auto", "gpt", "llama"), default="auto",
                   help="the model: gpt (the built-in TinyGPT, layer class GPTBlock), llama (a tiny Transformers "
                        "Llama, layer class LlamaDecoderLayer, needs transformers) or auto (default): llama when the "
                        "accelerate config asks for tensor parallelism (parallelism_config_tp_size > 1), since only "
                        "a model with a Transformers TP plan can be split that way, else gpt")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--weight-decay", type=float, default=0.0)
    p.add_argument("--warmup", type=int, default=0, help="linear warm-up steps (default 0: constant lr)")
    p.add_argument("--grad-accum", type=int, default=1,
                   help="gradient accumulation steps (DeepSpeed takes its own value from the config)")
    p.add_argument("--clip", type=float, default=1.0,
                   help="max gradient norm, 0 = off (DeepSpeed clips from its config instead)")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--dataset-size", type=int, default=0, help="sequences in the dataset (default: enough for --steps)")
    p.add_argument("--crash-rank", type=int, default=-1, help="(test) this rank dies at --crash-step")
    p.add_argument("--crash-step", type=int, default=-1)
    p.add_argument("--step-sleep", type=float, default=0.0, help="(test) sleep this long in every step")
    p.add_argument("--output-dir", default=None,
                   help="where checkpoints go (default: checkpoint/ in the run record folder when fsdpds-wizard "
                        "launched the script; otherwise none are saved)")
    p.add_argument("--save-every", type=int, default=0,
                   help="also save a checkpoint every N optimizer steps (default 0: only at the end)")
    p.add_argument("--no-save", action="store_true", help="save no checkpoint")
    p.add_argument("--save-reference", default=None,
                   help="(test) write the trained weights, gathered in full, to this safetensors file")
    return p


def parse_args(argv=None):
    return build_parser().parse_args(argv)


# ----------------------------------------------------------------------------- reporting
def _load_reporter():
    try:
        from wizard.runtime import RunReporter
        return RunReporter
    except ImportError:
        pass
    try:
        from fsdpds_runtime import RunReporter  # a copy of wizard/runtime/__init__.py next to this script
        return RunReporter
    except ImportError:
        return _MinimalReporter


class _MinimalReporter:
    """Fallback when wizard.runtime is unavailable: step records only, from the main process."""

    def __init__(self, accelerator=None, **_):
        self.acc = accelerator

    def setup(self, model=None, optimizer=None, **extra):
        return None

    def _main(self):
        return self.acc is None or self.acc.is_main_process

    def step(self, step, loss, *, lr=None, tokens=None, step_time=None, **extra):
        if not self._main():
            return None
        rec = {"fsdpds": 1, "kind": "step", "step": int(step), "loss": float(loss), "lr": lr,
               "step_time": step_time, "tokens_per_s": (tokens / step_time) if tokens and step_time else None}
        rec.update(extra)
        print(json.dumps(rec), flush=True)
        return rec

    def close(self, status="completed", **extra):
        if self._main():
            print(json.dumps({"fsdpds": 1, "kind": "end", "status": status, **extra}), flush=True)

    def stop_requested(self):
        path = os.environ.get("FSDPDS_STOP_FILE")
        return bool(path) and os.path.exists(path)


def stop_agreed(acc, reporter):
    """Whether any rank was asked to stop (the wizard's stop file, see wizard.runtime): one small collective, so
    that every rank leaves the loop after the same step."""
    import torch

    asked = bool(getattr(reporter, "stop_requested", lambda: False)())
    if acc.num_processes < 2:
        return asked
    flag = torch.tensor([1.0 if asked else 0.0], device=acc.device)
    return bool(acc.reduce(flag, reduction="sum").item() > 0)


# ----------------------------------------------------------------------------- model and data
def tensor_parallel_mesh(acc):
    """The Accelerator's ``tp`` sub-mesh when the config asks for tensor parallelism, else None."""
    pc = getattr(acc, "parallelism_config", None)
    if pc is None or not getattr(pc, "tp_enabled", False):
        return None
    return acc.torch_device_mesh["tp"]


def build_llama(args, tp_mesh=None):
    """A tiny Transformers Llama with the same vocabulary, width, depth and heads as TinyGPT. With ``tp_mesh`` it is
    loaded tensor-parallel over it (Transformers' TP plan for Llama: attention and MLP projections split column- and
    row-wise), the way accelerate expects a TP model: through ``from_pretrained(..., tp_plan="auto",
    device_mesh=...)``. Every rank builds the same seeded weights and loads them from its own temporary folder."""
    import shutil
    import tempfile

    from transformers import LlamaConfig, LlamaForCausalLM

    heads = args.n_heads
    config = LlamaConfig(vocab_size=args.vocab, hidden_size=args.d_model, intermediate_size=4 * args.d_model,
                         num_hidden_layers=args.n_layers, num_attention_heads=heads, num_key_value_heads=heads,
                         max_position_embeddings=max(args.seq_len, 64), tie_word_embeddings=False)
    model = LlamaForCausalLM(config)
    if tp_mesh is None:
        return model
    folder = tempfile.mkdtemp(prefix="fsdpds-llama-")
    try:
        model.save_pretrained(folder)
        return LlamaForCausalLM.from_pretrained(folder, tp_plan="auto", device_mesh=tp_mesh)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def sequence_parallel_size(acc) -> int:
    """DeepSpeed Ulysses' sequence-parallel size from the accelerate config (1 without)."""
    pc = getattr(acc, "parallelism_config", None)
    return int(getattr(pc, "sp_size", 1) or 1) if pc is not None else 1


def deepspeed_autotp_size(acc) -> int:
    """DeepSpeed AutoTP's size (``tensor_parallel.autotp_size`` of the DeepSpeed config accelerate reads; 0 without)."""
    plugin = getattr(getattr(acc, "state", None), "deepspeed_plugin", None)
    config = getattr(plugin, "deepspeed_config", None) or {}
    return int((config.get("tensor_parallel") or {}).get("autotp_size", 0) or 0)


def model_arch(args, acc) -> str:
    if args.arch != "auto":
        return args.arch
    split = tensor_parallel_mesh(acc) is not None or sequence_parallel_size(acc) > 1 or deepspeed_autotp_size(acc) > 1
    return "llama" if split else "gpt"


class _TokenDicts:
    """The dataset as the batches Ulysses sequence parallelism reads: ``input_ids``, ``labels`` (the same tokens:
    DeepSpeed's data-loader adapter shifts them into ``shift_labels`` before it splits the sequence) and
    ``position_ids`` (each rank's slice keeps its true positions)."""

    def __init__(self, data):
        self.data = data

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        import torch

        x, _ = self.data[i]
        return {"input_ids": x, "labels": x, "position_ids": torch.arange(x.shape[0])}


def logits_of(model, arch, x, positions=None):
    """The model's logits for tokens ``x``: TinyGPT returns them; a Transformers causal LM returns an output with
    them (``positions``: the tokens' true positions, for this rank's slice of a Ulysses sequence)."""
    if arch != "llama":
        return model(x)
    return model(input_ids=x, position_ids=positions).logits


def build_model(args):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class CausalSelfAttention(nn.Module):
        def __init__(self, d, heads):
            super().__init__()
            self.heads = heads
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)

        def forward(self, x):
            b, t, d = x.shape
            q, k, v = self.qkv(x).split(d, dim=2)
            q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.proj(y.transpose(1, 2).reshape(b, t, d))

    class GPTBlock(nn.Module):
        """One transformer layer: the unit FSDP wraps (``fsdp_transformer_layer_cls_to_wrap: GPTBlock``)."""

        def __init__(self, d, heads):
            super().__init__()
            self.ln1 = nn.LayerNorm(d)
            self.attn = CausalSelfAttention(d, heads)
            self.ln2 = nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class TinyGPT(nn.Module):
        _no_split_modules = ["GPTBlock"]

        def __init__(self, vocab, d, layers, heads, seq_len):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(seq_len, d)
            self.blocks = nn.ModuleList([GPTBlock(d, heads) for _ in range(layers)])
            self.ln_f = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab, bias=False)

        def forward(self, idx):
            t = idx.shape[1]
            pos = torch.arange(t, device=idx.device)
            x = self.tok(idx) + self.pos(pos)
            for block in self.blocks:
                x = block(x)
            return self.head(self.ln_f(x))

    return TinyGPT(args.vocab, args.d_model, args.n_layers, args.n_heads, args.seq_len)


def build_dataset(args, num_sequences):
    """Sequences that follow a fixed random successor table 90% of the time (seeded)."""
    import torch

    g = torch.Generator().manual_seed(args.seed + 1)
    table = torch.randperm(args.vocab, generator=g)
    n, t = num_sequences, args.seq_len + 1
    seq = torch.empty(n, t, dtype=torch.long)
    seq[:, 0] = torch.randint(args.vocab, (n,), generator=g)
    noise = torch.rand(n, t, generator=g) < 0.1
    rand_tok = torch.randint(args.vocab, (n, t), generator=g)
    for i in range(1, t):
        seq[:, i] = torch.where(noise[:, i], rand_tok[:, i], table[seq[:, i - 1]])
    return torch.utils.data.TensorDataset(seq[:, :-1].contiguous(), seq[:, 1:].contiguous())


def _memory_bytes(device):
    import torch

    if device.type == "cuda":
        return torch.cuda.memory_allocated(device), torch.cuda.max_memory_allocated(device)
    rss = peak = None
    try:
        with open("/proc/self/statm") as f:
            rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    except (ImportError, OSError):
        pass
    return rss, peak


def _memory_per_rank(acc, mem, peak) -> dict:
    """Every rank's memory, gathered to the main process (one small collective per step): the step record's
    ``rank_mem_bytes`` / ``rank_peak_mem_bytes``, rank by rank (None where a rank could not read it). The monitor
    shows them where it cannot sample the ranks itself (a SLURM job's ranks run on other hosts)."""
    if acc.num_processes < 2:
        return {}
    import torch

    mine = torch.tensor([-1 if mem is None else int(mem), -1 if peak is None else int(peak)], dtype=torch.int64,
                        device=acc.device)
    rows = acc.gather(mine).view(-1, 2).tolist()
    return {"rank_mem_bytes": [None if m < 0 else m for m, _ in rows],
            "rank_peak_mem_bytes": [None if p < 0 else p for _, p in rows]}


# ----------------------------------------------------------------------------- checkpoints
CHECKPOINT_MANIFEST = "fsdpds_checkpoint.json"
RUN_CHECKPOINT_RECORD = "checkpoint.json"  # in the run record folder (wizard.run.records.CHECKPOINT)


def checkpoint_root(args):
    """Where checkpoints go, or None when none are saved."""
    if args.no_save:
        return None
    if args.output_dir:
        return os.path.abspath(args.output_dir)
    run_dir = os.environ.get("FSDPDS_RUN_DIR")
    return os.path.join(run_dir, "checkpoint") if run_dir else None


def _checkpoint_kind(acc, model):
    """What save_state writes for this run, read from the live objects."""
    kind = {"distributed_type": str(acc.distributed_type).rsplit(".", 1)[-1], "world_size": acc.num_processes}
    if kind["distributed_type"] == "DEEPSPEED":
        stage = int(acc.deepspeed_config.get("zero_optimization", {}).get("stage", 0) or 0)
        gather = bool(stage == 3 and model.zero_gather_16bit_weights_on_model_save())
        kind.update(format="deepspeed_zero", zero_stage=stage, tag="pytorch_model", gather_16bit=gather)
    elif kind["distributed_type"] == "FSDP":
        plugin = acc.state.fsdp_plugin
        sdt = str(plugin.state_dict_type).rsplit(".", 1)[-1]
        fmt = {"SHARDED_STATE_DICT": "fsdp_sharded", "FULL_STATE_DICT": "fsdp_full"}.get(sdt, "fsdp_local")
        kind.update(format=fmt, fsdp_version=int(plugin.fsdp_version), state_dict_type=sdt)
    else:
        kind.update(format="accelerate_state")
    return kind


def save_checkpoint(acc, model, root, step, kind):
    """One checkpoint through accelerate's save_state (every rank takes part), described for consolidation."""
    path = os.path.join(root, f"step-{step:06d}")
    t0 = time.perf_counter()
    acc.save_state(path)
    extra = {}
    if kind.get("gather_16bit"):
        acc.save_model(model, os.path.join(path, "model_16bit"))  # ZeRO-3 gathers on every rank, rank 0 writes
        extra["model_16bit"] = "model_16bit"
    acc.wait_for_everyone()
    record = dict(kind, path=path, step=step, save_s=round(time.perf_counter() - t0, 3), **extra)
    if acc.is_main_process:
        _write_json(os.path.join(path, CHECKPOINT_MANIFEST), record)
        run_dir = os.environ.get("FSDPDS_RUN_DIR")
        if run_dir and os.path.isdir(run_dir):
            _write_json(os.path.join(run_dir, RUN_CHECKPOINT_RECORD), {"latest": path, **record})
        print(json.dumps({"fsdpds": 1, "kind": "checkpoint", **record}), flush=True)
    acc.wait_for_everyone()
    return path


def _write_json(path, value):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def save_reference(acc, model, path, deepspeed):
    """(test) The trained weights, gathered in full by the libraries, into one safetensors file (rank 0)."""
    import torch

    if deepspeed:
        import deepspeed as ds

        inner = acc.unwrap_model(model)
        stage = int(acc.deepspeed_config.get("zero_optimization", {}).get("stage", 0) or 0)
        if stage == 3:
            with ds.zero.GatheredParameters(list(inner.parameters()), modifier_rank=None):
                state = {k: v.detach().clone() for k, v in inner.state_dict().items()}
        else:
            state = {k: v.detach().clone() for k, v in inner.state_dict().items()}
    else:  # FSDP1 and FSDP2: torch's full state dict, gathered on every rank (no CPU offload on a CPU machine:
        # there FSDP1's offload would free the very tensors it returns)
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

        on_gpu = torch.cuda.is_available()
        state = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=on_gpu))
    if acc.is_main_process:
        from safetensors.torch import save_file

        save_file({k: v.detach().to("cpu", copy=True).contiguous() for k, v in state.items()
                   if isinstance(v, torch.Tensor)}, path)
    acc.wait_for_everyone()


# ----------------------------------------------------------------------------- main
def main(argv=None):
    args = parse_args(argv)
    import torch
    import torch.nn.functional as F
    from accelerate import Accelerator
    from accelerate.utils import InitProcessGroupKwargs, set_seed

    handlers = []
    launched = int(os.environ.get("LOCAL_RANK", "-1")) != -1 or int(os.environ.get("WORLD_SIZE", "1")) > 1
    if launched and not torch.cuda.is_available():
        handlers.append(InitProcessGroupKwargs(backend="gloo"))
    acc = Accelerator(gradient_accumulation_steps=args.grad_accum, kwargs_handlers=handlers)
    Reporter = _load_reporter()
    reporter = Reporter(acc)

    set_seed(args.seed)
    arch = model_arch(args, acc)
    model = build_llama(args, tensor_parallel_mesh(acc)) if arch == "llama" else build_model(args)
    world = acc.num_processes
    gas = acc.gradient_accumulation_steps
    n = args.dataset_size or args.steps * gas * args.batch_size * world
    data = build_dataset(args, max(n, args.batch_size * world))
    sp = sequence_parallel_size(acc)
    if sp > 1:
        data = _TokenDicts(data)
    loader = torch.utils.data.DataLoader(data, batch_size=args.batch_size, shuffle=True, drop_last=True,
                                         generator=torch.Generator().manual_seed(args.seed + 2))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    warm = max(0, args.warmup)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm) if warm else 1.0)
    model, opt, loader, sched = acc.prepare(model, opt, loader, sched)
    deepspeed = str(acc.distributed_type).endswith("DEEPSPEED")
    reporter.setup(model, opt, script="train_gpt.py", seed=args.seed, batch_size=args.batch_size,
                   seq_len=args.seq_len, grad_accum=gas, steps=args.steps, arch=arch)

    ckpt_root = checkpoint_root(args)
    ckpt_kind = _checkpoint_kind(acc, model) if ckpt_root else None
    last_ckpt = None

    model.train()
    step = 0
    micro = 0
    t_step = time.perf_counter()
    tokens_per_step = args.batch_size * args.seq_len * world * gas
    status = "completed"
    while step < args.steps:
        for batch in loader:
            if isinstance(batch, dict):  # Ulysses: this rank's slice of every sequence, labels shifted already
                x, y, positions = batch["input_ids"], batch["shift_labels"], batch["position_ids"]
                if micro == 0 and hasattr(reporter, "emit"):
                    reporter.emit("setup", rank=acc.process_index, update=True, sp_size=sp,
                                  sp_tokens_per_rank=int(x.shape[1]), seq_len=args.seq_len)
            else:
                x, y = batch
                positions = None
            if step == args.crash_step and acc.process_index == args.crash_rank:
                print(f"train_gpt.py: rank {acc.process_index} dies on purpose at step {step} (--crash-rank)",
                      file=sys.stderr, flush=True)
                os._exit(3)
            with acc.accumulate(model):
                logits = logits_of(model, arch, x, positions)
                loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), y.reshape(-1),
                                       ignore_index=-100)
                acc.backward(loss)
                if acc.sync_gradients and args.clip > 0 and not deepspeed:
                    acc.clip_grad_norm_(model.parameters(), args.clip)
                opt.step()
                sched.step()
                opt.zero_grad()
            micro += 1
            if not acc.sync_gradients:
                continue
            if args.step_sleep:
                time.sleep(args.step_sleep)
            mean_loss = acc.reduce(loss.detach(), reduction="mean").item()
            now = time.perf_counter()
            dt = now - t_step
            t_step = now
            mem, peak = _memory_bytes(acc.device)
            per_rank = _memory_per_rank(acc, mem, peak)
            lr = opt.param_groups[0]["lr"] if hasattr(opt, "param_groups") else sched.get_last_lr()[0]
            reporter.step(step, mean_loss, lr=lr, tokens=tokens_per_step, step_time=dt, mem_bytes=mem,
                          peak_mem_bytes=peak, total_steps=args.steps, **per_rank)
            if not math.isfinite(mean_loss):
                status = "diverged"
            step += 1
            if stop_agreed(acc, reporter):  # the wizard asked to stop: every rank leaves after this same step
                status = "stopped"
                break
            if ckpt_root and args.save_every > 0 and step % args.save_every == 0 and step < args.steps:
                last_ckpt = save_checkpoint(acc, model, ckpt_root, step, ckpt_kind)
            if step >= args.steps:
                break
        if status == "stopped":
            break
    acc.wait_for_everyone()
    if ckpt_root and status != "stopped":  # a stop ends the run now: no final checkpoint
        last_ckpt = save_checkpoint(acc, model, ckpt_root, step, ckpt_kind)
    if args.save_reference and status != "stopped":
        save_reference(acc, model, args.save_reference, deepspeed)
    end = {"checkpoint": last_ckpt} if last_ckpt else {}
    reporter.close(status=status, steps=step, **end)
    acc.end_training()
    return 0


if __name__ == "__main__":
    code = main()
    # Every record is written and the process group is destroyed. Leave without the interpreter's
    # teardown: on CPU/gloo a rank occasionally aborts there ("terminate called without an active
    # exception"), which would turn a finished run into a failed one.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)
