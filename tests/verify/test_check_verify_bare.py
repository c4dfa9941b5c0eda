"""``check ds_config.json --verify`` (issue 9): a DeepSpeed JSON alone replayed through the installed libraries, in
an own Accelerator loop or under the Hugging Face Trainer (transformers' own HfTrainerDeepSpeedConfig)."""
from __future__ import annotations

import json

from wizard.cli import main
from wizard.commands.check import trainer_arguments_for

TRAINER_JSON = {"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
                "gradient_accumulation_steps": "auto", "gradient_clipping": "auto", "bf16": {"enabled": "auto"},
                "optimizer": {"type": "AdamW", "params": {"lr": "auto", "betas": "auto", "eps": "auto",
                                                          "weight_decay": "auto"}},
                "zero_optimization": {"stage": 2, "reduce_bucket_size": "auto"}}


def run(capsys, path, *flags):
    code = main(["check", str(path), "--verify", *flags, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_trainer_json_replays_clean_under_the_trainer_and_fails_in_an_own_loop(tmp_path, capsys):
    p = tmp_path / "ds.json"
    p.write_text(json.dumps(TRAINER_JSON))
    code, doc = run(capsys, p, "--trainer", "hf", "--num-processes", "8")
    assert code == 0, [f for f in doc["findings"] if f["severity"] == "error"]
    assert any(f["rule"] == "verify-trainer-arguments" for f in doc["findings"])
    code, doc = run(capsys, p, "--trainer", "accelerate", "--num-processes", "8")
    verify_errors = [f for f in doc["findings"] if f["rule"].startswith("verify-") and f["severity"] == "error"]
    assert code == 2 and any("optimizer.params.betas" in f["keys"] for f in verify_errors)


def test_fixed_values_replay_with_the_arguments_that_agree(tmp_path, capsys):
    ds = {"train_batch_size": 64, "gradient_accumulation_steps": 2, "gradient_clipping": 0.5,
          "fp16": {"enabled": True}, "zero_optimization": {"stage": 1},
          "optimizer": {"type": "AdamW", "params": {"lr": 3e-4, "betas": [0.9, 0.95], "eps": 1e-6,
                                                    "weight_decay": 0.1}}}
    assert trainer_arguments_for(ds, 8) == {"gradient_accumulation_steps": 2, "per_device_train_batch_size": 4,
                                            "max_grad_norm": 0.5, "learning_rate": 3e-4, "adam_beta1": 0.9,
                                            "adam_beta2": 0.95, "adam_epsilon": 1e-6, "weight_decay": 0.1,
                                            "fp16": True}
    p = tmp_path / "ds.json"
    p.write_text(json.dumps(ds))
    code, doc = run(capsys, p, "--trainer", "hf", "--num-processes", "8")
    assert code == 0, [f for f in doc["findings"] if f["severity"] == "error"]
