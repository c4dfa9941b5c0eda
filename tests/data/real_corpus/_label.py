#!/usr/bin/env python
"""Label the real-world corpus by replaying each config through the code its users run.

Every case in ``cases/*.yaml`` holds a config that a public project ships (see docs/corpus.md). This script
computes its ``labels`` (and ``dead_values``) with the installed transformers / accelerate / deepspeed, on CPU,
with a faked data-parallel world of 8 processes, and never trains anything.

DeepSpeed JSON cases get two labels:

``labels.hf`` -- the Hugging Face Trainer of transformers 5.24 (Trainer, Seq2SeqTrainer, TRL, LLaMA-Factory...):

1. ``TrainingArguments._validate_args``: fp16 and bf16 together raise (transformers/training_args.py:1784).
2. ``HfTrainerDeepSpeedConfig(config)`` and ``trainer_config_process(args)`` (transformers/integrations/
   deepspeed.py:91, :136; run by TrainingArguments.__post_init__, transformers/training_args.py:1710-1711).
3. ``DeepSpeedPlugin(hf_ds_config=...)`` (training_args.py:1715; accelerate/utils/dataclasses.py:1226) and
   ``set_mixed_precision(args.mixed_precision)`` (AcceleratorState, accelerate/state.py:977; the mixed precision
   the Trainer passes is args.mixed_precision, transformers/trainer.py:745, training_args.py:1614-1618).
4. ``trainer_config_finalize(args, model, num_training_steps)`` (deepspeed.py:194, from deepspeed_init,
   deepspeed.py:634).
5. ``deepspeed_optim_sched`` (deepspeed.py:559): an ``optimizer`` block gives ``DummyOptim``; otherwise the
   Trainer's torch AdamW and ``zero_allow_untested_optimizer = True`` (deepspeed.py:589); a ``scheduler`` block
   gives ``DummyScheduler(optimizer)``, a DummyOptim without one a DummyScheduler with a callable.
6. ``accelerator.prepare(model, optimizer[, scheduler])`` (trainer.py:1768-1774; no dataloader): the filling of
   ``Accelerator._prepare_deepspeed`` (accelerate/accelerator.py:2141-2355), replayed step by step below.
7. ``deepspeed.runtime.config.DeepSpeedConfig(dict)`` (what ``deepspeed.initialize`` builds) with a faked
   process group of 8 ranks, and the engine's client-optimizer + offload check (as _groundtruth.py does).

``args`` is not a real ``TrainingArguments`` (its ``world_size`` comes from the distributed state, which would
need 8 processes). It is a namespace with exactly the attributes that trainer_config_process / finalize read:
``world_size`` (deepspeed.py:141), ``per_device_train_batch_size`` (:141-145), ``gradient_accumulation_steps``
(:147-151), ``max_grad_norm`` (:158), ``learning_rate`` (:160, :168), ``adam_beta1``, ``adam_beta2`` (:163),
``adam_epsilon`` (:165), ``weight_decay`` (:166), ``save_on_each_node`` (:171), ``fp16``, ``fp16_full_eval``
(:178), ``bf16``, ``bf16_full_eval`` (:179), ``get_warmup_steps`` (:253, the real method of TrainingArguments,
training_args.py:2154, reading ``warmup_steps``), plus ``mixed_precision`` (step 3). Defaults are the real
``TrainingArguments`` field defaults. The values are the most favourable a user of the file could pass: each
equals the JSON's concrete value where it has one (per_device from train_batch_size / (gas x 8) when that is
whole), so a file is rejected only when no TrainingArguments make it work. ``num_training_steps`` is the JSON's
concrete ``scheduler.params.total_num_steps`` or 1000; the model has ``config.hidden_size = 4096``.

``labels.accelerate`` -- an own Accelerator loop (accelerate 1.15): ``DeepSpeedPlugin(hf_ds_config=config)``,
``set_mixed_precision`` (bf16/fp16 when the JSON enables one, else "no"), then ``_prepare_deepspeed`` for
model + dataloader + optimizer (+ scheduler): the dataloader batch is the concrete micro batch or one that fits
train_batch_size over 8 processes (else 4), a torch optimizer unless the JSON has an ``optimizer`` block (then
DummyOptim), DummyScheduler (total 1000, warmup 100 steps) for a ``scheduler`` block, hidden size 4096; then
DeepSpeedConfig with 8 ranks. Projects that call ``deepspeed.initialize`` themselves (DeepSpeedExamples,
Megatron-DeepSpeed) are recorded with ``loop: accelerate`` (an own loop); their files are judged on both paths.

Each label: ``{accepted, stage, error, filled}``: ``stage`` names the call that raised (``null`` when accepted),
``error`` its first line, ``filled`` the "auto" keys and what they became (those still "auto" are left out);
a mismatch error also lists its ``- ds key=... vs hf ...`` lines under ``detail``.

``dead_values`` (read, not replayed): values both paths accept that silently do nothing or are overridden, each
with the deciding line; by the severity contract they are errors. See ``dead_values()``.

accelerate YAML cases get one label for their project's loop: _groundtruth.py's replay (launcher + env +
plugin, 8 GPUs per node), then, for the other distributed types, the launcher's env preparation
(prepare_multi_gpu_env / prepare_simple_launcher_cmd_env); for a DeepSpeed config under ``loop: hf`` the Trainer
steps 2-7 above replace the own-loop filling, with the launcher's world size. An fp8 backend and MPI are assumed
installed on the training machine (see training_machine()). A YAML whose deepspeed_config_file is not in the
case is labelled ``accepted: null``.

Usage:
    python _label.py [CASE...]          # print the verdicts
    python _label.py --write [CASE...]  # store labels/dead_values into the case files
    python _label.py --check            # exit 1 when a stored label differs from the replay
    python _label.py --stats            # markdown counts (docs/corpus.md)
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import logging
import math
import os
import re
import sys
import tempfile
import types
import warnings
from collections import Counter
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
sys.path.insert(0, str(HERE.parent / "check_corpus"))
import _groundtruth as gt  # noqa: E402

WORLD = 8
HIDDEN = 4096
DEFAULT_STEPS = 1000
FALLBACK_BATCH = 4


# ----------------------------------------------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------------------------------------------
def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def get(d, dotted, default=None):
    cur = d
    for part in dotted.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return default
        cur = cur[part]
    return cur


def auto_paths(d, prefix=""):
    out = []
    for k, v in d.items():
        if isinstance(v, dict):
            out += auto_paths(v, prefix + k + ".")
        elif v == "auto":
            out.append(prefix + k)
    return out


def jsonable(v):
    return json.loads(json.dumps(v, default=str, allow_nan=True).replace("Infinity", '"inf"'))


def first_line(exc, strip=()):
    msg = f"{type(exc).__name__}: {exc}".strip()
    for s in strip:
        msg = msg.replace(s, "")
    msg = re.sub(r" at 0x[0-9a-f]+", "", msg)
    lines = [ln for ln in msg.splitlines() if ln.strip()]
    return (lines[0] if lines else msg)[:300]


class Stage:
    def __init__(self):
        self.name = None
        self.cfg = None  # the dict being filled, read back when a later step raises

    def __call__(self, name):
        self.name = name


def filled_of(original, final):
    out = {}
    for p in auto_paths(original):
        v = get(final, p, "auto")
        if v != "auto":
            out[p] = jsonable(v)
    return out


@contextlib.contextmanager
def quiet():
    logging.disable(logging.CRITICAL)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        try:
            yield
        finally:
            logging.disable(logging.NOTSET)


def clean_env():
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("ACCELERATE_", "FSDP_", "DEEPSPEED_"))}
    return gt.swapped_environ(keep)


# ----------------------------------------------------------------------------------------------------------------
# the most favourable TrainingArguments
# ----------------------------------------------------------------------------------------------------------------
def favourable_args(cfg):
    from transformers import TrainingArguments

    f = TrainingArguments.__dataclass_fields__
    a = {n: f[n].default for n in ("per_device_train_batch_size", "gradient_accumulation_steps", "max_grad_norm",
                                   "learning_rate", "adam_beta1", "adam_beta2", "adam_epsilon", "weight_decay",
                                   "save_on_each_node", "fp16", "fp16_full_eval", "bf16", "bf16_full_eval",
                                   "warmup_steps")}
    micro, gas, tb = cfg.get("train_micro_batch_size_per_gpu"), cfg.get("gradient_accumulation_steps"), \
        cfg.get("train_batch_size")
    if _int(gas) and gas > 0:
        a["gradient_accumulation_steps"] = gas
    if _int(micro) and micro > 0:
        a["per_device_train_batch_size"] = micro
        if not _int(gas) and _int(tb) and tb % (micro * WORLD) == 0 and tb // (micro * WORLD) > 0:
            a["gradient_accumulation_steps"] = tb // (micro * WORLD)
    elif _int(tb):
        g = a["gradient_accumulation_steps"]
        if tb % (g * WORLD) == 0 and tb // (g * WORLD) > 0:
            a["per_device_train_batch_size"] = tb // (g * WORLD)
    if _num(cfg.get("gradient_clipping")):
        a["max_grad_norm"] = cfg["gradient_clipping"]
    lr = get(cfg, "optimizer.params.lr")
    wlr = get(cfg, "scheduler.params.warmup_max_lr")
    if _num(lr):
        a["learning_rate"] = lr
    elif _num(wlr):
        a["learning_rate"] = wlr
    betas = get(cfg, "optimizer.params.betas")
    if isinstance(betas, list) and len(betas) == 2 and all(_num(b) for b in betas):
        a["adam_beta1"], a["adam_beta2"] = betas
    if _num(get(cfg, "optimizer.params.eps")):
        a["adam_epsilon"] = get(cfg, "optimizer.params.eps")
    if _num(get(cfg, "optimizer.params.weight_decay")):
        a["weight_decay"] = get(cfg, "optimizer.params.weight_decay")
    if get(cfg, "fp16.enabled") is True:
        a["fp16"] = True
    if get(cfg, "bf16.enabled") is True:
        a["bf16"] = True
    wsteps = get(cfg, "scheduler.params.warmup_num_steps")
    if _int(wsteps) and wsteps >= 1:
        a["warmup_steps"] = wsteps
    a["world_size"] = WORLD
    a["mixed_precision"] = "fp16" if a["fp16"] else "bf16" if a["bf16"] else "no"
    ns = types.SimpleNamespace(**a)
    ns.get_warmup_steps = types.MethodType(TrainingArguments.get_warmup_steps, ns)
    total = get(cfg, "scheduler.params.total_num_steps")
    steps = total if _int(total) and total > 0 else DEFAULT_STEPS
    return ns, steps


def fake_model():
    import torch

    m = torch.nn.Linear(4, 4)
    m.config = types.SimpleNamespace(hidden_size=HIDDEN)
    return m


# ----------------------------------------------------------------------------------------------------------------
# Accelerator._prepare_deepspeed (accelerate/accelerator.py:2141), the part before deepspeed.initialize
# ----------------------------------------------------------------------------------------------------------------
def prepare_deepspeed(plugin, st, *, dataloader_bs, acc_gas, optimizer, scheduler, model):
    from accelerate.utils import DummyOptim, DummyScheduler

    st("Accelerator._prepare_deepspeed")
    ds = plugin.deepspeed_config
    if plugin.is_auto("train_micro_batch_size_per_gpu"):  # accelerator.py:2181
        if dataloader_bs is None:
            raise ValueError("When using DeepSpeed, `accelerate.prepare()` requires you to pass at least one of "
                             "training or evaluation dataloaders with `batch_size` attribute returning an integer "
                             "value")
        bs = dataloader_bs
    else:
        bs = plugin.get_value("train_micro_batch_size_per_gpu")
    plugin.fill_match("gradient_accumulation_steps", must_match=False, gradient_accumulation_steps=acc_gas)
    kw = {"gradient_clipping": 1.0, "zero_optimization.stage3_gather_16bit_weights_on_model_save": False}
    if bs is not None:
        kw["train_micro_batch_size_per_gpu"] = bs
        kw["train_batch_size"] = bs * plugin.get_value("gradient_accumulation_steps") * WORLD
    if optimizer is not None:  # accelerator.py:2250-2263
        if "optimizer" in ds and not isinstance(optimizer, DummyOptim):
            raise ValueError("You cannot specify an optimizer in the config file and in the code at the same time.")
        if "optimizer" not in ds and isinstance(optimizer, DummyOptim):
            raise ValueError("You cannot create a `DummyOptim` without specifying an optimizer in the config file.")
        if not isinstance(optimizer, DummyOptim):
            ds["zero_allow_untested_optimizer"] = True
    if scheduler is not None:  # accelerator.py:2265-2280
        if "scheduler" in ds and not isinstance(scheduler, DummyScheduler):
            raise ValueError("You cannot specify a scheduler in the config file and in the code at the same time.")
        if "scheduler" not in ds and isinstance(scheduler, DummyScheduler) and scheduler.lr_scheduler_callable is None:
            raise ValueError("Either specify a scheduler in the config file or pass in the `lr_scheduler_callable` "
                             "parameter when using `accelerate.utils.DummyScheduler`.")
    if isinstance(optimizer, DummyOptim) and scheduler is not None and not isinstance(scheduler, DummyScheduler):
        raise ValueError("You can only specify `accelerate.utils.DummyScheduler` in the code when using "
                         "`accelerate.utils.DummyOptim`.")
    hidden = ["zero_optimization.reduce_bucket_size", "zero_optimization.stage3_prefetch_bucket_size",
              "zero_optimization.stage3_param_persistence_threshold"]
    if any(plugin.is_auto(k) for k in hidden):  # accelerator.py:2300-2328
        h = model.config.hidden_size
        kw.update({hidden[0]: h * h, hidden[1]: int(0.9 * h * h), hidden[2]: 10 * h})
    if isinstance(optimizer, DummyOptim):
        kw.update({"optimizer.params.lr": optimizer.lr, "optimizer.params.weight_decay": optimizer.weight_decay})
    if isinstance(scheduler, DummyScheduler) and scheduler.lr_scheduler_callable is None:
        opt = scheduler.optimizer
        max_lr = getattr(opt, "lr", None) if getattr(opt, "defaults", None) is None else opt.defaults["lr"]
        kw.update({"scheduler.params.warmup_min_lr": 0, "scheduler.params.warmup_max_lr": max_lr,
                   "scheduler.params.warmup_num_steps": max(1, scheduler.warmup_num_steps)})
        if scheduler.total_num_steps is not None:
            kw["scheduler.params.total_num_steps"] = math.ceil(scheduler.total_num_steps / WORLD)
    st("DeepSpeedPlugin.deepspeed_config_process")
    plugin.deepspeed_config_process(must_match=False, **kw)  # accelerator.py:2355
    return plugin.deepspeed_config


def deepspeed_config(final, st, client_optimizer):
    """deepspeed.initialize -> DeepSpeedConfig with 8 faked ranks, and the engine's client optimizer + offload check."""
    import deepspeed.runtime.config as dsc

    st("deepspeed DeepSpeedConfig")
    dsc.dist = gt.FakeDist(WORLD)
    cfg = dsc.DeepSpeedConfig(copy.deepcopy(final))
    st("deepspeed engine._configure_optimizer")
    zo = final.get("zero_optimization", {}) or {}
    accel_maps = (zo.get("offload_optimizer", {}) or {}).get("device", "none") != "none" \
        and final.get("zero_force_ds_cpu_optimizer", True)  # accelerator.py:2373-2383
    off = cfg.zero_config.offload_optimizer
    engine_cpu_opt = off is not None and str(getattr(off.device, "value", off.device)) in ("cpu", "nvme")
    if client_optimizer and engine_cpu_opt and not accel_maps and cfg.zero_force_ds_cpu_optimizer:
        raise RuntimeError("ZeRORuntimeException: You are using ZeRO-Offload with a client provided optimizer")
    return cfg


# ----------------------------------------------------------------------------------------------------------------
# the two paths for a DeepSpeed JSON
# ----------------------------------------------------------------------------------------------------------------
def trainer_steps(plugin_or_none, cfg, st, from_plugin=None):
    """Steps 2-7 of the Trainer path. ``from_plugin``: a launcher-made DeepSpeedPlugin (YAML cases)."""
    import torch
    from accelerate.utils import DeepSpeedPlugin, DummyOptim, DummyScheduler
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    args, steps = favourable_args(cfg)
    model = fake_model()
    st("TrainingArguments._validate_args")
    if args.fp16 and args.bf16:
        raise ValueError("At most one of fp16 and bf16 can be True, but not both")
    if from_plugin is None:
        st("HfTrainerDeepSpeedConfig")
        hf = HfTrainerDeepSpeedConfig(cfg)
        st.cfg = hf.config
        st("HfTrainerDeepSpeedConfig.trainer_config_process")
        hf.trainer_config_process(args)
        st("DeepSpeedPlugin")
        plugin = DeepSpeedPlugin(hf_ds_config=hf)
        st("DeepSpeedPlugin.set_mixed_precision")
        plugin.set_mixed_precision(args.mixed_precision)
    else:  # Trainer.__init__ -> propagate_args_to_deepspeed (transformers/integrations/deepspeed.py:704)
        plugin = from_plugin
        st("HfTrainerDeepSpeedConfig")
        plugin.hf_ds_config = HfTrainerDeepSpeedConfig(plugin.hf_ds_config.config)
        plugin.deepspeed_config = plugin.hf_ds_config.config
        st.cfg = plugin.deepspeed_config
        st("HfTrainerDeepSpeedConfig.trainer_config_process")
        plugin.hf_ds_config.trainer_config_process(args)
        hf = plugin.hf_ds_config
    st("HfTrainerDeepSpeedConfig.trainer_config_finalize")
    hf.trainer_config_finalize(args, model, steps)
    st("deepspeed_optim_sched")
    config = hf.config
    params = list(model.parameters())
    if "optimizer" in config:
        optimizer = DummyOptim(params=params)
    else:
        optimizer = torch.optim.AdamW(params, lr=args.learning_rate, betas=(args.adam_beta1, args.adam_beta2),
                                      eps=args.adam_epsilon, weight_decay=args.weight_decay)
        config["zero_allow_untested_optimizer"] = True
    scheduler = None
    if "scheduler" in config:
        scheduler = DummyScheduler(optimizer)
    elif isinstance(optimizer, DummyOptim):
        scheduler = DummyScheduler(optimizer, lr_scheduler_callable=lambda o: None)
    final = prepare_deepspeed(plugin, st, dataloader_bs=None, acc_gas=args.gradient_accumulation_steps,
                              optimizer=optimizer, scheduler=scheduler, model=model)
    deepspeed_config(final, st, client_optimizer=not isinstance(optimizer, DummyOptim))
    return final


def own_loop_steps(cfg, st, from_plugin=None, acc_gas=None):
    import torch
    from accelerate.utils import DeepSpeedPlugin, DummyOptim, DummyScheduler

    if from_plugin is None:
        st("DeepSpeedPlugin")
        plugin = DeepSpeedPlugin(hf_ds_config=cfg)
        st.cfg = plugin.deepspeed_config
        mp = "bf16" if get(cfg, "bf16.enabled") is True else "fp16" if get(cfg, "fp16.enabled") is True else "no"
        st("DeepSpeedPlugin.set_mixed_precision")
        plugin.set_mixed_precision(mp)
    else:
        plugin = from_plugin
    micro, gas, tb = cfg.get("train_micro_batch_size_per_gpu"), cfg.get("gradient_accumulation_steps"), \
        cfg.get("train_batch_size")
    g = gas if _int(gas) and gas > 0 else 1
    if acc_gas is None:
        acc_gas = g
    if _int(micro):
        bs = micro
    elif _int(tb) and tb % (g * WORLD) == 0 and tb // (g * WORLD) > 0:
        bs = tb // (g * WORLD)
    else:
        bs = FALLBACK_BATCH
    model = fake_model()
    params = list(model.parameters())
    if "optimizer" in cfg:
        optimizer = DummyOptim(params=params)
    else:
        optimizer = torch.optim.AdamW(params, lr=1e-4)
    scheduler = DummyScheduler(optimizer, total_num_steps=DEFAULT_STEPS, warmup_num_steps=100) \
        if "scheduler" in cfg else None
    final = prepare_deepspeed(plugin, st, dataloader_bs=bs, acc_gas=acc_gas, optimizer=optimizer,
                              scheduler=scheduler, model=model)
    deepspeed_config(final, st, client_optimizer=not isinstance(optimizer, DummyOptim))
    return final


def run_path(fn, cfg):
    st = Stage()
    work = copy.deepcopy(cfg)
    final = None
    err = None
    with quiet(), clean_env():
        try:
            final = fn(work, st)
        except Exception as e:  # noqa: BLE001
            err = e
    probe = final if final is not None else (st.cfg if st.cfg is not None else work)
    out = {"accepted": err is None, "stage": None if err is None else st.name,
           "error": None if err is None else first_line(err), "filled": filled_of(cfg, probe)}
    if err is not None and "mismatch" in str(err):  # the lines that name the mismatching keys
        out["detail"] = [ln.strip() for ln in str(err).splitlines() if ln.strip().startswith("- ds ")]
    return out


def engine_optimizer_check(cfg):
    """What DeepSpeedEngine checks when it builds the optimizer from an ``optimizer`` block (both paths pass no
    client optimizer then: the Trainer and an own loop hand accelerate a DummyOptim), which DeepSpeedConfig does
    not: the name, through the engine's own ``_is_supported_optimizer`` (deepspeed/runtime/engine.py:1985-1986,
    called at :2016-2019), and ``max_grad_norm`` among the parameters, refused at engine.py:2481-2484 (read from
    code: building the engine needs a model and an accelerator). Returns (stage, error) or None."""
    from deepspeed.runtime.engine import DeepSpeedEngine

    opt = cfg.get("optimizer") if isinstance(cfg, dict) else None
    if not isinstance(opt, dict) or opt.get("type") is None:
        return None
    name = opt["type"]
    lowered = name.lower() if isinstance(name, str) else name
    # DeepSpeedConfig lower-cases a DeepSpeed optimizer's name (deepspeed/runtime/config.py:519-520)
    if not isinstance(name, str) or not DeepSpeedEngine._is_supported_optimizer(None, lowered if lowered in
                                                                                  _ds_optimizers() else name):
        return ("DeepSpeedEngine._do_sanity_check", f"AssertionError: {name} is not a supported DeepSpeed Optimizer")
    params = opt.get("params")
    if isinstance(params, dict) and "max_grad_norm" in params:
        return ("DeepSpeedEngine._configure_basic_optimizer (read from code)",
                "ValueError: 'max_grad_norm' is not supported as an optimizer parameter")
    return None


def _ds_optimizers():
    from deepspeed.runtime.config import DEEPSPEED_OPTIMIZERS

    return DEEPSPEED_OPTIMIZERS


def label_json(cfg):
    # HfTrainerDeepSpeedConfig / DeepSpeedPlugin deep-copy a dict (accelerate/utils/deepspeed.py:140), so the
    # filled values are read from the plugin; run_path passes its own copy and reads it back through `final`.
    out = {"hf": run_path(lambda c, st: trainer_steps(None, c, st), cfg),
           "accelerate": run_path(lambda c, st: own_loop_steps(c, st), cfg)}
    refused = engine_optimizer_check(cfg)
    for label in out.values():
        if label["accepted"] and refused:
            label.update(accepted=False, stage=refused[0], error=refused[1])
    return out


# ----------------------------------------------------------------------------------------------------------------
# dead values: read off the deciding lines, not replayed
# ----------------------------------------------------------------------------------------------------------------
_DS_SOURCE = None


def _ds_source():
    global _DS_SOURCE
    if _DS_SOURCE is None:
        import deepspeed

        root = Path(deepspeed.__file__).parent
        _DS_SOURCE = "\n".join(p.read_text(errors="ignore") for p in root.rglob("*.py"))
    return _DS_SOURCE


def _zero_default(name):
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    fields = DeepSpeedZeroConfig.model_fields
    for fname, f in fields.items():
        if fname == name or f.alias == name:
            return f.default
    return None


def _zero_field_names():
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    names = set()
    for fname, f in DeepSpeedZeroConfig.model_fields.items():
        names.add(fname)
        if f.alias:
            names.add(f.alias)
    return names


def dead_values(cfg):
    out = []
    if not isinstance(cfg, dict):
        return out
    if "steps_per_print" in cfg:
        out.append({"key": "steps_per_print", "severity": "warning",
                    "why": "accelerate's DeepSpeedPlugin replaces it with inf on both paths (accelerate/utils/"
                    "dataclasses.py:1326); only DeepSpeed's own progress logging changes, so fsdpds-wizard reports "
                    "it as a warning (docs/corpus.md, 'Dead values')"})
    zo = cfg.get("zero_optimization") if isinstance(cfg.get("zero_optimization"), dict) else {}
    stage = zo.get("stage", 0)
    if _int(stage) and stage < 3:
        for k in ("stage3_gather_16bit_weights_on_model_save", "gather_16bit_weights_on_model_save"):
            if zo.get(k) is True:
                out.append({"key": f"zero_optimization.{k}", "why": f"only read at ZeRO-3 (accelerate/accelerator.py"
                            f":4071, deepspeed/runtime/engine.py:5730); stage {stage} saves full weights anyway"})
        for k in ("stage3_prefetch_bucket_size", "stage3_param_persistence_threshold", "stage3_max_live_parameters",
                  "stage3_max_reuse_distance", "prefetch_bucket_size", "param_persistence_threshold",
                  "max_live_parameters", "max_reuse_distance"):
            if k in zo and zo[k] != "auto" and zo[k] != _zero_default(k):
                out.append({"key": f"zero_optimization.{k}", "why": f"only the ZeRO-3 optimizer receives it "
                            f"(deepspeed/runtime/engine.py:2726-2729, :2763-2766); stage {stage} never uses it"})
        op = zo.get("offload_param")
        if isinstance(op, dict) and str(op.get("device", "none")).lower() not in ("none", "auto"):
            out.append({"key": "zero_optimization.offload_param.device", "why": f"stage {stage} never offloads "
                        "parameters: only the ZeRO-3 optimizer gets offload_param_config (deepspeed/runtime/"
                        "engine.py:2688 vs :2731)"})
        oo = zo.get("offload_optimizer")
        if isinstance(oo, dict) and str(oo.get("device", "none")).lower() == "nvme" and stage in (1, 2):
            out.append({"key": "zero_optimization.offload_optimizer.device", "why": "nvme below ZeRO-3 is CPU "
                        "offload: stage_1_and_2.py:220-221 only tests device != none"})
        if isinstance(oo, dict) and str(oo.get("device", "none")).lower() in ("cpu", "nvme") and stage == 0:
            out.append({"key": "zero_optimization.offload_optimizer.device", "why": "ZeRO-0 has no ZeRO optimizer to "
                        "offload (deepspeed/runtime/engine.py:2655 builds one only for stage >= 1)"})
    if cfg.get("zero_allow_untested_optimizer") is False and "optimizer" not in cfg:
        out.append({"key": "zero_allow_untested_optimizer", "why": "set to True whenever the optimizer comes from "
                    "code (transformers/integrations/deepspeed.py:589, accelerate/accelerator.py:2263)"})
    # top-level keys that DeepSpeedConfig never looks up and no deepspeed module names
    import deepspeed.runtime.config as dsc

    gt.TrackingDict.reads = set()
    base = {"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1, "fp16": {"enabled": False},
            "bf16": {"enabled": False}, "zero_optimization": {"stage": 0}}
    dsc.dist = gt.FakeDist(WORLD)
    with quiet():
        try:
            dsc.DeepSpeedConfig(gt.TrackingDict(base))
        except Exception:  # noqa: BLE001
            pass
    reads = set(gt.TrackingDict.reads)
    src = _ds_source()
    zero_keys = _zero_field_names()
    for k in cfg:
        if k in reads or k == "steps_per_print" or k.startswith("_"):  # "_comment"-style keys are notes
            continue
        if k == "bfloat16":  # the old name of the bf16 block, read only when bf16 is absent
            out.append({"key": k, "why": "DeepSpeed reads the old `bfloat16` block only when there is no `bf16` "
                        "(deepspeed/runtime/precision_config.py:34-37), and DeepSpeedPlugin.set_mixed_precision always "
                        "adds one on both paths (accelerate/utils/dataclasses.py:1442-1444)"})
            continue
        if k == "msamp":  # read by MS-AMP's DeepSpeed, not by deepspeed's own
            out.append({"key": k, "severity": "warning", "why": "read only when training runs through MS-AMP's "
                        "DeepSpeed (msamp/deepspeed/runtime/config.py:20-57 in Azure/MS-AMP; accelerate switches to it "
                        "for the msamp fp8 backend, accelerate/accelerator.py:2145-2149); deepspeed 0.19.8's own "
                        "initialize ignores it, so it depends on the user's stack: a warning"})
            continue
        if k in zero_keys:  # a ZeRO setting one level too high: looked up by name, but only inside the section
            out.append({"key": k, "why": "a zero_optimization setting at the top level: DeepSpeedConfig builds the "
                        "ZeRO config from param_dict['zero_optimization'] only (deepspeed/runtime/zero/config.py:"
                        "71-78), and accelerate / transformers read it there too (accelerate/accelerator.py:2374)"})
            continue
        q = re.escape(k)
        if re.search(rf"""(get\(\s*|\[\s*|\bin\s+)["']{q}["']""", src) \
                or re.search(rf"""\b{re.escape(k.upper())}\s*=\s*["']{q}["']""", src):
            continue  # looked up by name somewhere (param_dict.get("k"), d["k"], "k" in d, K = "k")
        out.append({"key": k, "why": "no deepspeed 0.19.8 code reads this top-level key (DeepSpeedConfig's "
                    "lookups and the package source)"})
    return out


# ----------------------------------------------------------------------------------------------------------------
# accelerate YAML cases: _groundtruth's replay (launcher, env, plugin), the project's loop
# ----------------------------------------------------------------------------------------------------------------
def write_yaml_case(case, root: Path):
    (root / "accelerate_config.yaml").write_text(yaml.safe_dump(case["config"], sort_keys=False))
    dsfile = (case["config"].get("deepspeed_config") or {}).get("deepspeed_config_file")
    if dsfile and case.get("ds_config") is not None and not os.path.isabs(dsfile):
        p = root / dsfile
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(case["ds_config"], indent=2))
    return dsfile


def label_yaml(case):
    loop = case["loop"]
    dsfile = (case["config"].get("deepspeed_config") or {}).get("deepspeed_config_file")
    if dsfile and (case.get("ds_config") is None or os.path.isabs(dsfile)):
        return {loop: {"accepted": None, "stage": "unknown deepspeed_config_file",
                       "error": f"{dsfile} is not in the case", "filled": {}}}, []
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="rc-") as tmp:
        root = Path(tmp)
        write_yaml_case(case, root)
        captured = {}
        orig = gt.prepare_deepspeed

        def hf_prepare(plugin, acc_gas, world, res):
            global WORLD
            st = Stage()
            captured["orig"] = copy.deepcopy(plugin.deepspeed_config)
            saved, WORLD = WORLD, world  # the launcher's world size is the Trainer's args.world_size
            try:
                final = trainer_steps(None, plugin.deepspeed_config, st, from_plugin=plugin)
            except Exception as e:  # noqa: BLE001
                captured["stage"] = st.name
                raise e
            finally:
                WORLD = saved
            # the summary _groundtruth.compare_deepspeed reads
            import deepspeed.runtime.config as dsc

            dsc.dist = gt.FakeDist(world)
            cfg = dsc.DeepSpeedConfig(copy.deepcopy(final))
            gt.TrackingDict.reads = set()
            dsc.DeepSpeedConfig(gt.TrackingDict(copy.deepcopy(final)))
            res["effective"]["ds_unread_top_level"] = [k for k in final if k not in gt.TrackingDict.reads]
            off = cfg.zero_config.offload_optimizer
            offp = cfg.zero_config.offload_param
            res["effective"]["zero"] = {"stage": int(cfg.zero_optimization_stage),
                                        "offload_optimizer": str(off.device) if off else None,
                                        "offload_param": str(offp.device) if offp else None,
                                        "offload_param_nvme_path": str(getattr(offp, "nvme_path", None)),
                                        "offload_optimizer_nvme_path": str(getattr(off, "nvme_path", None))}
            res["effective"]["gradient_clipping"] = cfg.gradient_clipping
            captured["final"] = final
            return final

        def acc_prepare(plugin, acc_gas, world, res):
            captured["orig"] = copy.deepcopy(plugin.deepspeed_config)
            final = orig(plugin, acc_gas, world, res)
            captured["final"] = final
            return final

        gt.prepare_deepspeed = hf_prepare if loop == "hf" else acc_prepare
        try:
            with quiet(), clean_env(), training_machine():
                res = gt.replay(root, gpus_per_node=WORLD)
        finally:
            gt.prepare_deepspeed = orig
            os.chdir(cwd)
    if not res.get("raised") and res["effective"].get("launcher") == "other":
        with training_machine():
            simple_launch(case, res)
    if not res.get("raised"):
        fsdp2_tensor_parallel(case, res)
    raised = res.get("raised")
    filled = filled_of(captured["orig"], captured.get("final") or captured["orig"]) if "orig" in captured else {}
    if raised:
        stage, _, msg = raised.partition(": ")
        if captured.get("stage"):
            stage = f"{stage} / {captured['stage']}"
        msg = msg.replace(str(root), "").replace(tmp, "")
        label = {"accepted": False, "stage": stage, "error": msg.splitlines()[0][:300], "filled": filled}
    else:
        label = {"accepted": True, "stage": None, "error": None, "filled": filled}
    dead = [{"key": ".".join(k) if isinstance(k, tuple) else ", ".join(k) or "-", "why": why}
            for k, why in res["errors"] if not why.startswith("RAISE")]
    # _groundtruth's warnings that are values the launcher/plugin never reads (ignored, not "same behaviour")
    dead += [{"key": ", ".join(k) or "-", "why": why} for k, why in res["warnings"]
             if why.startswith(("G10", "F12", "F13"))]
    seen = {d["key"] for d in dead}
    dead += [d for d in yaml_dead_values(case) if d["key"] not in seen]
    if case.get("ds_config") is not None:
        seen = {d["key"] for d in dead}
        dead += [d for d in dead_values(case["ds_config"]) if d["key"] not in seen]
    return {loop: label}, dead


def fsdp2_tensor_parallel(case, res):
    """FSDP2 with tp_size above 1: accelerate's prepare() of the model the script loaded tensor-parallel imports
    ReplicateParallel from transformers (Accelerator._prepare_tp, accelerate/accelerator.py:1611-1619); replay that
    import with the installed transformers (claim accelerate-fsdp2-tp-needs-replicate-parallel)."""
    cfg = case["config"]
    pc, fc = cfg.get("parallelism_config") or {}, cfg.get("fsdp_config") or {}
    if cfg.get("distributed_type") != "FSDP" or str(fc.get("fsdp_version", 1)) != "2" \
            or int(pc.get("parallelism_config_tp_size", 1) or 1) <= 1:
        return
    try:
        from transformers.integrations.tensor_parallel import ReplicateParallel  # noqa: F401
    except ImportError as e:
        where = str(e).split(" (/")[0]  # the installed path is this machine's
        res["raised"] = f"Accelerator._prepare_tp: {type(e).__name__}: {where}"


@contextlib.contextmanager
def training_machine():
    """What the training machine has installed is not known here: an fp8 backend and an MPI launcher are assumed
    present (accelerate/utils/launch.py:58-69, :176-179), so a YAML is not rejected for this machine's software."""
    import accelerate.utils as au
    import accelerate.utils.launch as ulaunch

    saved = (au.is_fp8_available, ulaunch.is_fp8_available, ulaunch._get_mpirun_args)
    au.is_fp8_available = ulaunch.is_fp8_available = lambda: True
    ulaunch._get_mpirun_args = lambda: ("mpirun", "--hostfile", "-n", "--npernode", "--bind-to")
    try:
        yield
    finally:
        au.is_fp8_available, ulaunch.is_fp8_available, ulaunch._get_mpirun_args = saved


def simple_launch(case, res):
    """Neither FSDP nor DeepSpeed: _groundtruth stops after _validate_launch_command; the launcher then builds the
    env in prepare_multi_gpu_env (multi_gpu) or prepare_simple_launcher_cmd_env (accelerate/utils/launch.py)."""
    import accelerate.utils.launch as ulaunch
    from accelerate.commands import launch as claunch

    cwd = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="rc-") as tmp:
        root = Path(tmp)
        write_yaml_case(case, root)
        os.chdir(root)
        try:
            with quiet(), clean_env():
                args = claunch.launch_command_parser().parse_args(
                    ["--config_file", str(root / "accelerate_config.yaml"), "train.py"])
                args, _, _ = claunch._validate_launch_command(args)
                if args.multi_gpu and not args.cpu:  # launch_command's dispatch (accelerate/commands/launch.py)
                    ulaunch.prepare_multi_gpu_env(args)
                else:
                    ulaunch.prepare_simple_launcher_cmd_env(args)
        except Exception as e:  # noqa: BLE001
            res["raised"] = f"launch (prepare_simple_launcher_cmd_env): {first_line(e, (str(root),))}"
        finally:
            os.chdir(cwd)


def yaml_dead_values(case):
    """Read off the launcher and plugin code; the replay itself does not show these."""
    cfg = case["config"]
    out = []
    dt = str(cfg.get("distributed_type"))
    n = cfg.get("num_processes")
    if cfg.get("enable_cpu_affinity") is True:
        out.append({"key": "enable_cpu_affinity", "why": "a config value is copied onto a launch argument only when "
                    "the argument is None (accelerate/commands/launch.py:1278-1283); --enable_cpu_affinity is a flag "
                    "that defaults to False (:210-214), so ACCELERATE_CPU_AFFINITY is never set from the file"})
    if dt in ("NO", "False") and _int(n) and n > 1:
        out.append({"key": "num_processes", "why": "a config file with a single-process distributed_type starts one "
                    "process: _validate_launch_command sets multi_gpu from distributed_type only (accelerate/"
                    "commands/launch.py:1229-1247); the switch for num_processes > 1 (:1328-1346) is in the branch "
                    "without a config file"})
    if dt not in ("FSDP", "DEEPSPEED"):  # _groundtruth's G10 covers the two distributed kinds
        for sec in ("fsdp_config", "deepspeed_config"):
            if cfg.get(sec):
                out.append({"key": sec, "why": f"G10: distributed_type {dt} never reads {sec} (the launcher only "
                            "copies it for FSDP/DEEPSPEED, accelerate/commands/launch.py:1218-1247)"})
    dc = cfg.get("deepspeed_config") or {}
    stage = get(case.get("ds_config") or {}, "zero_optimization.stage", dc.get("zero_stage"))
    if dt == "DEEPSPEED" and stage == 3 and str(dc.get("zero3_init_flag")).lower() == "false":
        out.append({"key": "deepspeed_config.zero3_init_flag", "why": "the flag does not decide zero.Init: "
                    "DeepSpeedPlugin.set_deepspeed_weakref registers the config with transformers whatever the flag "
                    "(accelerate/utils/dataclasses.py:1462-1488) and from_pretrained follows "
                    "is_deepspeed_zero3_enabled() (transformers/integrations/deepspeed.py:284)"})
    if dt == "DEEPSPEED" and not dc.get("deepspeed_config_file") and _int(dc.get("zero_stage")) \
            and dc["zero_stage"] < 3 and str(dc.get("zero3_save_16bit_model")).lower() == "true":
        out.append({"key": "deepspeed_config.zero3_save_16bit_model", "why": "becomes zero_optimization."
                    "stage3_gather_16bit_weights_on_model_save (accelerate/utils/dataclasses.py:1288, :1318), which "
                    "is only read at ZeRO-3 (accelerate/accelerator.py:4071, deepspeed/runtime/engine.py:5730); "
                    f"stage {dc['zero_stage']} saves full weights anyway"})
    return out


# ----------------------------------------------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------------------------------------------
def load_cases(names=()):
    paths = sorted(CASES.glob("*.yaml"))
    if names:
        want = {Path(n).stem for n in names}
        paths = [p for p in paths if p.stem in want]
    return [(p, yaml.safe_load(p.read_text())) for p in paths]


def compute(case):
    if case["kind"] == "deepspeed_json":
        return label_json(case["config"]), dead_values(case["config"])
    return label_yaml(case)


ORDER = ["source", "also_in", "kind", "loop", "loop_evidence", "config", "ds_config", "labels", "dead_values"]


def dump_case(case):
    out = {k: case[k] for k in ORDER if k in case}
    out.update({k: v for k, v in case.items() if k not in out})
    return yaml.safe_dump(out, sort_keys=False, allow_unicode=True, width=120)


def verdict(lab):
    return {True: "accepted", False: "rejected", None: "unknown"}[lab["accepted"]]


def stats(cases):
    lines = []
    total = len(cases)
    kinds = Counter(c["kind"] for _, c in cases)
    repos = Counter(c["source"]["repo"] for _, c in cases)
    lines.append(f"{total} cases: {kinds['deepspeed_json']} DeepSpeed JSONs, {kinds['accelerate_config']} accelerate "
                 f"YAMLs, from {len(repos)} repositories.\n")
    lines.append("| repository | licence | cases | JSON | YAML | loop |")
    lines.append("| --- | --- | --- | --- | --- | --- |")
    for r in sorted(repos, key=lambda r: (-repos[r], r)):
        cs = [c for _, c in cases if c["source"]["repo"] == r]
        lines.append(f"| {r} | {cs[0]['source']['licence']} | {len(cs)} | "
                     f"{sum(c['kind'] == 'deepspeed_json' for c in cs)} | "
                     f"{sum(c['kind'] == 'accelerate_config' for c in cs)} | "
                     f"{', '.join(sorted({c['loop'] for c in cs}))} |")
    lines.append("\n**DeepSpeed JSONs, verdict per path** (8 processes):\n")
    lines.append("| project loop | hf accepted | hf rejected | accelerate accepted | accelerate rejected "
                 "| with dead values |")
    lines.append("| --- | --- | --- | --- | --- | --- |")
    for loop in ("hf", "accelerate"):
        js = [c for _, c in cases if c["kind"] == "deepspeed_json" and c["loop"] == loop]
        lines.append(f"| {loop} ({len(js)}) | {sum(c['labels']['hf']['accepted'] is True for c in js)} | "
                     f"{sum(c['labels']['hf']['accepted'] is False for c in js)} | "
                     f"{sum(c['labels']['accelerate']['accepted'] is True for c in js)} | "
                     f"{sum(c['labels']['accelerate']['accepted'] is False for c in js)} | "
                     f"{sum(bool(c.get('dead_values')) for c in js)} |")
    lines.append("\n**ZeRO stage of the JSONs** (as written; `auto`/absent counted apart):\n")
    st = Counter(str(get(c["config"], "zero_optimization.stage", "absent")) for _, c in cases
                 if c["kind"] == "deepspeed_json")
    lines.append(", ".join(f"stage {k}: {v}" for k, v in sorted(st.items())))
    lines.append("\n**accelerate YAMLs** (label for the project's own loop, 8 GPUs per node):\n")
    lines.append("| distributed_type | loop | accepted | rejected | unknown JSON | with dead values |")
    lines.append("| --- | --- | --- | --- | --- | --- |")
    ys = [c for _, c in cases if c["kind"] == "accelerate_config"]
    groups = Counter((str(c["config"].get("distributed_type")), c["loop"]) for c in ys)
    for (dt, loop) in sorted(groups):
        g = [c for c in ys if str(c["config"].get("distributed_type")) == dt and c["loop"] == loop]
        labs = [c["labels"][loop] for c in g]
        fsdp_v = ""
        lines.append(f"| {dt}{fsdp_v} | {loop} | {sum(x['accepted'] is True for x in labs)} | "
                     f"{sum(x['accepted'] is False for x in labs)} | {sum(x['accepted'] is None for x in labs)} | "
                     f"{sum(bool(c.get('dead_values')) for c in g)} |")
    stages = Counter()
    for _, c in cases:
        for loop, lab in c["labels"].items():
            if lab["accepted"] is False:
                stages[(c["kind"], loop, lab["stage"])] += 1
    lines.append("\n**Where rejected files fail**:\n")
    lines.append("| kind | path | stage | files |")
    lines.append("| --- | --- | --- | --- |")
    for (k, loop, s), n in sorted(stages.items(), key=lambda x: (x[0][0], x[0][1], -x[1])):
        lines.append(f"| {k} | {loop} | {s} | {n} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="*")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--stats", action="store_true")
    a = ap.parse_args(argv)
    cases = load_cases(a.cases)
    if a.stats:
        print(stats(cases))
        return 0
    bad = 0
    for path, case in cases:
        labels, dead = compute(case)
        if a.check:
            if case.get("labels") != labels or (case.get("dead_values") or []) != dead:
                bad += 1
                print(f"DIFFERS {path.stem}")
                for loop in labels:
                    if (case.get("labels") or {}).get(loop) != labels[loop]:
                        stored = (case.get("labels") or {}).get(loop)
                        print(f"    {loop}: stored {stored}\n    {loop}: replay {labels[loop]}")
                if (case.get("dead_values") or []) != dead:
                    print(f"    dead_values: stored {case.get('dead_values')}\n    dead_values: replay {dead}")
            continue
        if a.write:
            case["labels"] = labels
            case["dead_values"] = dead
            path.write_text(dump_case(case))
        summary = "  ".join(f"{loop}={verdict(lab)}"
                            + (f" [{lab['stage']}: {lab['error'][:90]}]" if lab["error"] else "")
                            for loop, lab in labels.items())
        print(f"{path.stem:50s} {summary}" + (f"  dead={[d['key'] for d in dead]}" if dead else ""))
    if a.check:
        print(f"{len(cases)} cases, {bad} differ from the replay")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
