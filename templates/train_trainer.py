"""A tiny Transformers Llama trained by the Hugging Face Trainer (fsdpds-wizard bundled script).

What ``fsdpds-wizard --launch --rehearse`` runs when the answers say the Trainer drives training
(``launch.training_loop: trainer``, or ``--trainer hf``): the Trainer builds its Accelerator from the accelerate
config ``accelerate launch`` exported, fills the DeepSpeed JSON's "auto" values from the TrainingArguments in
``--training-args`` (the ``training_arguments.json`` the wizard wrote beside the configs) and raises where a concrete
JSON value does not equal its argument, exactly as it would on GPUs. The model and the synthetic data are the ones of
``train_gpt.py --arch llama`` (same folder).

Records for the wizard's monitor come from :class:`wizard.runtime.RunReporter` through a TrainerCallback: the
effective setup after the Trainer prepared the model (``"loop": "hf-trainer"``, and what the Trainer and DeepSpeed
took for the micro batch, the accumulation and the clipping), one record per logged step, and the end. A stop asked
by the wizard ends the run after the step every rank agrees on. No checkpoint is saved (``save_strategy="no"``).
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

_ARGUMENT_DEFAULTS = {"learning_rate": 3e-3, "lr_scheduler_type": "constant", "weight_decay": 0.0,
                      "per_device_train_batch_size": 8}
"""TrainingArguments this script sets when the training arguments file does not: the tiny model learns in a few
steps at a constant 3e-3 (the Trainer's defaults, 5e-5 with linear decay, would not show a falling loss)."""
_SCRIPT_OWNED = ("output_dir", "max_steps", "logging_steps", "save_strategy", "report_to", "disable_tqdm",
                 "dataloader_drop_last", "seed", "num_train_epochs", "deepspeed", "fsdp", "fsdp_config",
                 "accelerator_config", "push_to_hub", "resume_from_checkpoint")
"""Arguments the rehearsal decides (where outputs go, how long, how often it logs); the rest come from the file."""


def build_parser():
    p = argparse.ArgumentParser(description="Tiny Llama trained by the Hugging Face Trainer (fsdpds-wizard bundled "
                                            "script)")
    p.add_argument("--training-args", default=None,
                   help="a JSON file of TrainingArguments fields (the wizard's training_arguments.json)")
    p.add_argument("--steps", type=int, default=20, help="optimizer steps (default 20)")
    p.add_argument("--seq-len", type=int, default=32)
    p.add_argument("--vocab", type=int, default=64)
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--n-layers", type=int, default=2)
    p.add_argument("--n-heads", type=int, default=4)
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--step-sleep", type=float, default=0.0, help="(test) sleep this long in every step")
    return p


def _sibling(name: str):
    """The bundled train_gpt.py next to this file, as a module (its model, data and reporter loader)."""
    path = Path(__file__).with_name(name)
    spec = importlib.util.spec_from_file_location("fsdpds_" + path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def training_arguments_from(path: str | None) -> dict:
    """The TrainingArguments fields of ``path`` (a JSON object); {} without a file."""
    if not path:
        return {}
    with open(path, encoding="utf-8") as f:
        fields = json.load(f)
    if not isinstance(fields, dict):
        raise SystemExit(f"train_trainer.py: {path}: expected a JSON object of TrainingArguments fields")
    return fields


def _engine_numbers(engine) -> dict:
    """What DeepSpeed's engine took (micro batch, accumulation, clipping); {} for a model that is not an engine."""
    if not hasattr(engine, "train_micro_batch_size_per_gpu"):
        return {}
    config = getattr(engine, "config", None)
    return {"ds_micro_batch": int(engine.train_micro_batch_size_per_gpu()),
            "ds_gradient_accumulation_steps": int(engine.gradient_accumulation_steps()),
            "ds_gradient_clipping": float(engine.gradient_clipping() or 0.0),
            "ds_optimizer_from_config": isinstance(config, dict) and bool(config.get("optimizer"))}


def main(argv=None):
    args = build_parser().parse_args(argv)
    import torch
    from transformers import PrinterCallback, Trainer, TrainerCallback, TrainingArguments

    gpt = _sibling("train_gpt.py")
    fields = training_arguments_from(args.training_args)
    mine = [k for k in _SCRIPT_OWNED if k in fields]
    if mine:  # the configs under test come from accelerate launch, never from a deepspeed:/fsdp argument
        print(f"train_trainer.py: the rehearsal sets {', '.join(mine)} itself; the file's values are not used",
              file=sys.stderr, flush=True)
    known = {f.name for f in dataclasses.fields(TrainingArguments)}
    unknown = sorted(k for k in fields if k not in known)
    if unknown:
        print(f"train_trainer.py: not TrainingArguments fields in this transformers, left out: {', '.join(unknown)}",
              file=sys.stderr, flush=True)
        fields = {k: v for k, v in fields.items() if k in known}
    merged = {**_ARGUMENT_DEFAULTS, **{k: v for k, v in fields.items() if k not in _SCRIPT_OWNED}}
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if not torch.cuda.is_available() and world > 1:
        # without a GPU the Trainer's PartialState starts no process group for DeepSpeed (world size 1 on every
        # rank, so its batch arithmetic is off by the world size) unless it is told the backend
        merged.setdefault("ddp_backend", "gloo")
    out = os.environ.get("FSDPDS_RUN_DIR") or "."
    targs = TrainingArguments(output_dir=str(Path(out) / "trainer_output"), max_steps=args.steps, logging_steps=1,
                              save_strategy="no", report_to="none", disable_tqdm=True, dataloader_drop_last=True,
                              seed=args.seed, **merged)

    torch.manual_seed(args.seed)
    model_args = argparse.Namespace(vocab=args.vocab, d_model=args.d_model, n_layers=args.n_layers,
                                    n_heads=args.n_heads, seq_len=args.seq_len, seed=args.seed)
    model = gpt.build_llama(model_args)
    micro, gas = targs.per_device_train_batch_size, targs.gradient_accumulation_steps
    # the own loop's token dicts (a causal LM shifts ``labels`` itself; positions are the sequence's own)
    data = gpt._TokenDicts(gpt.build_dataset(model_args, max(args.steps * gas * micro * world, micro * world)))
    Reporter = gpt._load_reporter()
    tokens_per_step = micro * args.seq_len * world * gas

    class Report(TrainerCallback):
        """The wizard's records from inside the Trainer's loop."""

        def __init__(self):
            self.trainer = None
            self.reporter = None
            self.status = "completed"
            self.t_step = None

        def on_train_begin(self, train_args, state, control, **kw):
            t = self.trainer
            self.reporter = Reporter(t.accelerator)
            wrapped = t.model_wrapped
            self.reporter.setup(wrapped, t.optimizer, script="train_trainer.py", loop="hf-trainer", arch="llama",
                                seed=args.seed, seq_len=args.seq_len, steps=args.steps, batch_size=micro,
                                grad_accum=gas, trainer_max_grad_norm=float(train_args.max_grad_norm or 0.0),
                                **_engine_numbers(wrapped))
            self.t_step = time.perf_counter()

        def on_log(self, train_args, state, control, logs=None, **kw):
            if not logs or "loss" not in logs or self.reporter is None:
                return
            now = time.perf_counter()
            self.reporter.step(max(0, state.global_step - 1), logs["loss"], lr=logs.get("learning_rate"),
                               tokens=tokens_per_step, step_time=now - self.t_step, total_steps=args.steps)
            self.t_step = now

        def on_step_end(self, train_args, state, control, **kw):
            if args.step_sleep:
                time.sleep(args.step_sleep)
            if self.reporter is not None and gpt.stop_agreed(self.trainer.accelerator, self.reporter):
                self.status = "stopped"
                control.should_training_stop = True

    report = Report()
    trainer = Trainer(model=model, args=targs, train_dataset=data, callbacks=[report])
    trainer.remove_callback(PrinterCallback)  # its log lines would be counted again next to the records above
    report.trainer = trainer
    trainer.train()
    if report.reporter is not None:
        report.reporter.close(status=report.status, steps=trainer.state.global_step)
    trainer.accelerator.end_training()
    return 0


if __name__ == "__main__":
    code = main()
    # Every record is written and the process group is destroyed. Leave without the interpreter's
    # teardown, as train_gpt.py does: on CPU/gloo a rank occasionally aborts there ("terminate called
    # without an active exception"), which would turn a finished run into a failed one.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)
