"""`check --training-args` agrees with transformers (issue 25): for each (DeepSpeed JSON, TrainingArguments) pair the
real ``HfTrainerDeepSpeedConfig`` runs ``trainer_config_process`` and ``trainer_config_finalize`` on CPU, and our
verdict (the mismatch errors, and the JSON keys they name) must be the library's (its ValueError, and the keys it
lists). The pairs: the real JSONs and training YAMLs of LLaMA-Factory and axolotl (tests/data/trainer_files/,
docs/corpus.md), every JSON with every file's arguments, and hand-made pairs that change one matched value each."""
from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml

from wizard.core.context import LOOP_HF, Context
from wizard.core.lint import lint_ds_json

pytestmark = [pytest.mark.verify]

DATA = yaml.safe_load((Path(__file__).parents[1] / "data" / "trainer_files" / "cases.yaml").read_text())
HIDDEN = 1024
STEPS_WHEN_UNKNOWN = 100
"""What the library is given as the number of training steps when max_steps is not set (the Trainer computes it
from the epochs and the dataset); we say such a value is unknown, and the pairs keep that case apart."""

SCHEDULE = {"type": "WarmupDecayLR", "params": {"warmup_min_lr": "auto", "warmup_max_lr": "auto",
                                                 "warmup_num_steps": "auto", "total_num_steps": "auto"}}
OPTIMIZER = {"type": "AdamW", "params": {"lr": "auto", "betas": "auto", "eps": "auto", "weight_decay": "auto"}}
BASE_ARGS = {"per_device_train_batch_size": 2, "gradient_accumulation_steps": 4, "learning_rate": 2e-5, "bf16": True,
             "max_steps": 200, "warmup_steps": 20}


def _z3(**over):
    ds = copy.deepcopy(DATA["deepspeed"]["llamafactory/ds_z3_config"]["config"])
    ds["optimizer"], ds["scheduler"] = copy.deepcopy(OPTIMIZER), copy.deepcopy(SCHEDULE)
    for path, value in over.items():
        *parents, key = path.split("__")
        node = ds
        for p in parents:
            node = node.setdefault(p, {})
        node[key] = value
    return ds


HAND = [  # (id, json, arguments, world size)
    ("all-auto", _z3(), BASE_ARGS, 1),
    ("micro", _z3(train_micro_batch_size_per_gpu=4), BASE_ARGS, 1),
    ("micro-equal", _z3(train_micro_batch_size_per_gpu=2), BASE_ARGS, 1),
    ("micro-default", _z3(train_micro_batch_size_per_gpu=4), {"bf16": True}, 1),
    ("micro-auto-find", _z3(train_micro_batch_size_per_gpu=4), {**BASE_ARGS, "auto_find_batch_size": True}, 1),
    ("accumulation", _z3(gradient_accumulation_steps=2), BASE_ARGS, 1),
    ("total-world-4", _z3(train_batch_size=32), BASE_ARGS, 4),
    ("total-world-2", _z3(train_batch_size=32), BASE_ARGS, 2),
    ("total-auto-find", _z3(train_batch_size=7), {**BASE_ARGS, "auto_find_batch_size": True}, 1),
    ("clipping", _z3(gradient_clipping=1.0), {**BASE_ARGS, "max_grad_norm": 0.5}, 1),
    ("clipping-int", _z3(gradient_clipping=1), BASE_ARGS, 1),
    ("clipping-zero", _z3(gradient_clipping=0.0), {**BASE_ARGS, "max_grad_norm": 0.0}, 1),
    ("lr", _z3(optimizer__params__lr=1e-4), BASE_ARGS, 1),
    ("lr-equal", _z3(optimizer__params__lr=2e-5), BASE_ARGS, 1),
    ("betas", _z3(optimizer__params__betas=[0.9, 0.95]), BASE_ARGS, 1),
    ("betas-equal", _z3(optimizer__params__betas=[0.9, 0.95]), {**BASE_ARGS, "adam_beta2": 0.95}, 1),
    ("eps", _z3(optimizer__params__eps=1e-6), BASE_ARGS, 1),
    ("weight-decay", _z3(optimizer__params__weight_decay=0.1), BASE_ARGS, 1),
    ("weight-decay-equal", _z3(optimizer__params__weight_decay=0.1), {**BASE_ARGS, "weight_decay": 0.1}, 1),
    ("warmup-min-lr", _z3(scheduler__params__warmup_min_lr=1e-7), BASE_ARGS, 1),
    ("warmup-max-lr", _z3(scheduler__params__warmup_max_lr=3e-5), BASE_ARGS, 1),
    ("two-lrs", _z3(optimizer__params__lr=1e-4, scheduler__params__warmup_max_lr=3e-5), BASE_ARGS, 1),
    ("total-steps", _z3(scheduler__params__total_num_steps=1000), BASE_ARGS, 1),
    ("total-steps-equal", _z3(scheduler__params__total_num_steps=200), BASE_ARGS, 1),
    ("warmup-steps", _z3(scheduler__params__warmup_num_steps=50), BASE_ARGS, 1),
    ("warmup-ratio", _z3(scheduler__params__warmup_num_steps=20), {**BASE_ARGS, "warmup_steps": 0.1}, 1),
    ("warmup-none", _z3(scheduler__params__warmup_num_steps=1), {**BASE_ARGS, "warmup_steps": 0}, 1),
    ("bf16-off", _z3(bf16__enabled=False), BASE_ARGS, 1),
    ("bf16-on", _z3(bf16__enabled=True), {**BASE_ARGS, "bf16": False}, 1),
    ("bf16-full-eval", _z3(bf16__enabled=True), {**BASE_ARGS, "bf16": False, "bf16_full_eval": True}, 1),
    ("fp16-on", _z3(fp16__enabled=True), BASE_ARGS, 1),
    ("fp16-args", _z3(fp16__enabled=False), {**BASE_ARGS, "bf16": False, "fp16": True}, 1),
    ("no-scheduler-section", {k: v for k, v in _z3(scheduler__params__total_num_steps=5).items()
                              if k != "scheduler"}, BASE_ARGS, 1),
    ("many", _z3(train_micro_batch_size_per_gpu=16, gradient_clipping=2.0, bf16__enabled=False,
                 optimizer__params__eps=1e-3), BASE_ARGS, 1),
]


def _real_pairs():
    """Every real JSON with every real file's arguments, as `check` maps the file (the file's own JSON among them)."""
    from wizard.core.effective.training_file import detect_kind, training_file_from

    out = []
    for tname, t in DATA["training"].items():
        arguments = training_file_from(t["file"], detect_kind(t["file"])).arguments
        for dname, d in DATA["deepspeed"].items():
            own = t["deepspeed"] and dname.split("/")[0] == tname.split("/")[0] and dname.endswith("/" + t["deepspeed"])
            out.append(pytest.param(d["config"], arguments, 1, id=f"{tname}+{dname}" + ("(own)" if own else "")))
    return out


@pytest.fixture(autouse=True)
def _no_accelerate_state_left():
    """TrainingArguments builds accelerate's PartialState in this process: leave none behind for the next test in
    this worker (test_verify.py checks that a replay leaves the singletons untouched)."""
    yield
    from accelerate.state import AcceleratorState, GradientState, PartialState

    AcceleratorState._reset_state(True)
    GradientState._reset_state()
    PartialState._reset_state()


PAIRS = _real_pairs() + [pytest.param(ds, args, world, id=name) for name, ds, args, world in HAND]


def library_mismatches(ds: dict, arguments: dict, world: int) -> dict[str, str]:
    """The DeepSpeed keys transformers refuses, each with its argument label (``max_grad_norm``), or {}."""
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig, unset_hf_deepspeed_config

    from wizard.core.verify.stubs import _ModelStub, _training_arguments, _WorldSize

    args = _WorldSize(_training_arguments(arguments), world)
    steps = arguments.get("max_steps", -1)
    steps = steps if steps > 0 else STEPS_WHEN_UNKNOWN
    hf = HfTrainerDeepSpeedConfig(copy.deepcopy(ds))
    try:
        hf.trainer_config_process(args, auto_find_batch_size=bool(arguments.get("auto_find_batch_size")))
        hf.trainer_config_finalize(args, _ModelStub(HIDDEN), steps)
    except ValueError as e:
        assert "mismatch TrainingArguments values" in str(e), e
        return dict(re.findall(r"^- ds (\S+?)=.* vs hf (.+?)=", str(e), re.M))
    finally:
        unset_hf_deepspeed_config()
    return {}


def our_errors(ds: dict, arguments: dict, world: int):
    ctx = Context(loop=LOOP_HF, trainer_arguments=arguments)
    findings = lint_ds_json(copy.deepcopy(ds), num_processes=world, context=ctx)
    return findings


def _label_arguments(label: str) -> set[str]:
    """transformers' argument label -> the argument names (``adam_beta1+adam_beta2``, ``fp16|fp16_full_eval``)."""
    if label.startswith("train_batch_size"):
        return {"per_device_train_batch_size", "gradient_accumulation_steps"}
    if label.startswith("num_training_steps"):
        return {"max_steps"}
    return set(re.split(r"[+|]", label))


@pytest.mark.parametrize("ds,arguments,world", PAIRS)
def test_our_verdict_is_the_trainers(ds, arguments, world):
    theirs = library_mismatches(ds, arguments, world)
    findings = our_errors(ds, arguments, world)
    ours = {f.keys[0]: f.keys[1:] for f in findings if f.rule == "ds-json-trainer-argument-mismatch"}
    unknown = {f.keys[0] for f in findings if f.rule == "ds-json-trainer-value-unknown"}
    if arguments.get("max_steps", -1) <= 0:  # the library got a step count we do not know: we say unknown instead
        for key in [k for k in theirs if k.startswith("scheduler.params.") and k.endswith("_steps")]:
            assert key in unknown, (key, unknown)
            del theirs[key]
    assert set(ours) == set(theirs), (ours, theirs)
    for key, label in theirs.items():
        named = set(ours[key])
        assert _label_arguments(label) & named, (key, label, named)
    # the pair's other errors are not about the match: a mismatch-free pair is an error-free pair of those rules
    assert not [f for f in findings if f.rule == "ds-json-trainer-argument-mismatch" and f.keys[0] not in theirs]


def test_there_are_enough_pairs_and_both_verdicts():
    assert len(PAIRS) >= 40
    verdicts = [bool(library_mismatches(*p.values)) for p in PAIRS]
    assert sum(verdicts) >= 15 and len(verdicts) - sum(verdicts) >= 15
