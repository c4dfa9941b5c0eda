"""``check ds.json --trainer hf --training-args ARGS`` (issue 25, point 1): the DeepSpeed JSON judged against the
TrainingArguments of a plain Trainer script, as the Trainer matches and fills it."""
from __future__ import annotations

import json

import pytest
import yaml

from wizard.cli import main

AUTO_Z3 = {  # what Trainer-based projects ship: everything the Trainer fills is "auto"
    "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
    "gradient_clipping": "auto", "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"},
    "optimizer": {"type": "AdamW", "params": {"lr": "auto", "betas": "auto", "eps": "auto", "weight_decay": "auto"}},
    "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_min_lr": "auto", "warmup_max_lr": "auto",
                                                      "warmup_num_steps": "auto", "total_num_steps": "auto"}},
    "zero_optimization": {"stage": 3, "reduce_bucket_size": "auto", "stage3_prefetch_bucket_size": "auto",
                          "stage3_param_persistence_threshold": "auto"},
}
ARGS = {"per_device_train_batch_size": 2, "gradient_accumulation_steps": 4, "learning_rate": 2e-5, "bf16": True,
        "max_grad_norm": 1.0, "max_steps": 100, "warmup_steps": 10}


def _with(**over) -> dict:
    ds = json.loads(json.dumps(AUTO_Z3))
    for path, value in over.items():
        *parents, key = path.split("__")
        node = ds
        for p in parents:
            node = node[p]
        node[key] = value
    return ds


def check(tmp_path, capsys, ds: dict, targs, *flags, name="args.json"):
    (tmp_path / "ds.json").write_text(json.dumps(ds))
    p = tmp_path / name
    p.write_text(targs if isinstance(targs, str) else
                 (json.dumps(targs) if name.endswith(".json") else yaml.safe_dump(targs)))
    code = main(["check", str(tmp_path / "ds.json"), "--trainer", "hf", "--training-args", str(p), *flags,
                 "--format", "json"])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if out.out.strip() else None), out.err


def mismatch_keys(doc) -> list[tuple[str, ...]]:
    return [tuple(f["keys"]) for f in doc["findings"] if f["rule"] == "ds-json-trainer-argument-mismatch"]


def test_clipping_against_max_grad_norm_fails_naming_both(tmp_path, capsys):
    """The issue's "done when": gradient_clipping 1.0 against max_grad_norm 0.5 exits 2 naming both keys."""
    code, doc, _ = check(tmp_path, capsys, _with(gradient_clipping=1.0), {**ARGS, "max_grad_norm": 0.5})
    assert code == 2
    assert mismatch_keys(doc) == [("gradient_clipping", "max_grad_norm")]
    (f,) = [f for f in doc["findings"] if f["severity"] == "error"]
    assert "1.0" in f["message"] and "0.5" in f["message"]


def test_a_consistent_pair_passes_and_says_what_the_trainer_fills(tmp_path, capsys):
    code, doc, _ = check(tmp_path, capsys, AUTO_Z3, ARGS)
    assert code == 0, doc["findings"]
    (filled,) = [f for f in doc["findings"] if f["rule"] == "ds-json-trainer-auto-filled"]
    assert "train_micro_batch_size_per_gpu = 2" in filled["message"]
    assert "bf16.enabled = true" in filled["message"]
    assert "scheduler.params.total_num_steps = 100" in filled["message"]
    assert "scheduler.params.warmup_num_steps = 10" in filled["message"]
    assert doc["context"]["loop"] == "hf" and doc["context"]["trainer_arguments"]["max_steps"] == 100


@pytest.mark.parametrize("over,targs,keys", [
    ({"train_micro_batch_size_per_gpu": 4}, {}, ("train_micro_batch_size_per_gpu", "per_device_train_batch_size")),
    ({"gradient_accumulation_steps": 8}, {}, ("gradient_accumulation_steps", "gradient_accumulation_steps")),
    ({"bf16__enabled": False}, {}, ("bf16.enabled", "bf16")),
    ({"fp16__enabled": True}, {}, ("fp16.enabled", "fp16")),
    ({"optimizer__params__lr": 1e-4}, {}, ("optimizer.params.lr", "learning_rate")),
    ({"optimizer__params__betas": [0.9, 0.95]}, {}, ("optimizer.params.betas", "adam_beta1", "adam_beta2")),
    ({"optimizer__params__eps": 1e-6}, {}, ("optimizer.params.eps", "adam_epsilon")),
    ({"optimizer__params__weight_decay": 0.1}, {}, ("optimizer.params.weight_decay", "weight_decay")),
    ({"scheduler__params__warmup_max_lr": 3e-5}, {}, ("scheduler.params.warmup_max_lr", "learning_rate")),
    ({"scheduler__params__total_num_steps": 1000}, {}, ("scheduler.params.total_num_steps", "max_steps")),
    ({"scheduler__params__warmup_num_steps": 50}, {}, ("scheduler.params.warmup_num_steps", "warmup_steps")),
    ({"bf16__enabled": True}, {"bf16": False, "bf16_full_eval": False}, ("bf16.enabled", "bf16")),
    ({"bf16__enabled": False}, {"bf16": False, "bf16_full_eval": True}, ("bf16.enabled", "bf16", "bf16_full_eval")),
])
def test_each_matched_value_names_the_json_key_and_the_argument(tmp_path, capsys, over, targs, keys):
    code, doc, _ = check(tmp_path, capsys, _with(**over), {**ARGS, **targs})
    assert code == 2 and mismatch_keys(doc) == [keys]


def test_an_argument_not_given_takes_the_dataclass_default(tmp_path, capsys):
    """per_device_train_batch_size defaults to 8: a JSON micro batch of 4 mismatches it."""
    code, doc, _ = check(tmp_path, capsys, _with(train_micro_batch_size_per_gpu=4), {"bf16": True})
    assert code == 2 and mismatch_keys(doc) == [("train_micro_batch_size_per_gpu", "per_device_train_batch_size")]
    assert "its default" in doc["findings"][0]["message"]


def test_the_total_batch_needs_the_world_size(tmp_path, capsys):
    ds = _with(train_batch_size=32)
    code, doc, _ = check(tmp_path, capsys, ds, ARGS, "--num-processes", "4")  # 4 x 2 x 4 = 32
    assert code == 0 and not mismatch_keys(doc)
    code, doc, _ = check(tmp_path, capsys, ds, ARGS, "--num-processes", "2")
    assert code == 2 and mismatch_keys(doc) == [("train_batch_size", "per_device_train_batch_size",
                                                 "gradient_accumulation_steps", "num_processes")]
    code, doc, _ = check(tmp_path, capsys, ds, ARGS)  # world unknown, 32 = 4 x (2 x 4): said, not judged
    assert code == 0 and [f["keys"] for f in doc["findings"] if f["rule"] == "ds-json-trainer-value-unknown"] \
        == [["train_batch_size"]]
    code, doc, _ = check(tmp_path, capsys, _with(train_batch_size=12), ARGS)  # no world makes 12 of 8s
    assert code == 2 and mismatch_keys(doc)[0][0] == "train_batch_size"


def test_the_schedule_without_max_steps_is_unknown_not_guessed(tmp_path, capsys):
    targs = {k: v for k, v in ARGS.items() if k != "max_steps"}
    code, doc, _ = check(tmp_path, capsys, _with(scheduler__params__total_num_steps=1000), targs)
    assert code == 0
    assert [f["keys"] for f in doc["findings"] if f["rule"] == "ds-json-trainer-value-unknown"] \
        == [["scheduler.params.total_num_steps"]]


def test_unknown_argument_names_are_not_our_business(tmp_path, capsys):
    code, doc, _ = check(tmp_path, capsys, AUTO_Z3, {**ARGS, "output_dir": "out", "my_own_flag": [1, 2],
                                                     "max_grad_norms": 0.3})
    assert code == 0
    assert not [f for f in doc["findings"] if "my_own_flag" in f["message"] or "max_grad_norms" in f["message"]]


def test_a_yaml_arguments_file(tmp_path, capsys):
    code, doc, _ = check(tmp_path, capsys, _with(gradient_clipping=1.0), {"max_grad_norm": 0.3}, name="args.yaml")
    assert code == 2 and mismatch_keys(doc) == [("gradient_clipping", "max_grad_norm")]


@pytest.mark.parametrize("text,name,words", [
    ("[1, 2]", "args.json", "not a mapping"),
    ("learning_rate: 1e-5\n", "args.yaml", "write 1.0e-5"),
    ("bf16: maybe\n", "args.yaml", "bf16: 'maybe' must be true or false"),
    ("per_device_train_batch_size: 0\n", "args.yaml", "must be 1 or more"),
    ("{not json", "args.json", "args.json"),
])
def test_a_bad_arguments_file_is_a_usage_error(tmp_path, capsys, text, name, words):
    code, doc, err = check(tmp_path, capsys, AUTO_Z3, text, name=name)
    assert code == 2 and doc is None
    assert "--training-args" in err and words in err


def test_a_missing_arguments_file_and_an_own_loop_are_usage_errors(tmp_path, capsys):
    (tmp_path / "ds.json").write_text(json.dumps(AUTO_Z3))
    assert main(["check", str(tmp_path / "ds.json"), "--training-args", str(tmp_path / "nope.json")]) == 2
    assert "not found" in capsys.readouterr().err
    (tmp_path / "a.json").write_text("{}")
    assert main(["check", str(tmp_path / "ds.json"), "--trainer", "accelerate", "--training-args",
                 str(tmp_path / "a.json")]) == 2
    assert "--trainer hf" in capsys.readouterr().err


def test_training_args_alone_implies_the_trainer(tmp_path, capsys):
    (tmp_path / "ds.json").write_text(json.dumps(_with(gradient_clipping=1.0)))
    (tmp_path / "a.json").write_text(json.dumps({"max_grad_norm": 0.5}))
    assert main(["check", str(tmp_path / "ds.json"), "--training-args", str(tmp_path / "a.json")]) == 2
    out = capsys.readouterr().out
    assert "gradient_clipping, max_grad_norm" in out and "the Hugging Face Trainer" in out


def test_an_accelerate_config_naming_the_json_gives_the_world_size(tmp_path, capsys):
    (tmp_path / "ds.json").write_text(json.dumps(_with(train_batch_size=32)))
    (tmp_path / "acc.yaml").write_text(yaml.safe_dump({
        "compute_environment": "LOCAL_MACHINE", "distributed_type": "DEEPSPEED", "num_processes": 2,
        "num_machines": 1, "machine_rank": 0,
        "deepspeed_config": {"deepspeed_config_file": str(tmp_path / "ds.json")}}))
    (tmp_path / "a.json").write_text(json.dumps(ARGS))
    assert main(["check", str(tmp_path / "acc.yaml"), "--training-args", str(tmp_path / "a.json"),
                 "--gpus-per-node", "2", "--format", "json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    (f,) = [f for f in doc["findings"] if f["rule"] == "ds-json-trainer-argument-mismatch"]
    assert f["keys"][0] == "train_batch_size" and "2 processes" in f["message"] and "= 16" in f["message"]
