"""The rehearsal of answers whose loop is the Hugging Face Trainer: which script runs and with what (rehearsal_answers,
plan_launch), and the checklist rows that compare what the Trainer took with the config."""
from __future__ import annotations

import json

from wizard.core.answers.model import default_answers
from wizard.core.answers.of_answers import situation_of
from wizard.core.answers.render import render
from wizard.run.checklist import FAIL, INFO, OK, checklist_ok, compare, expected_from_config
from wizard.run.rehearse import rehearsal_answers, trainer_rehearsal

ZERO2 = default_answers().replace({"backend": "deepspeed", "sharding.strategy": "grads_optimizer",
                                   "launch.training_loop": "trainer", "launch.num_processes": 8,
                                   "training.micro_batch_size": 4, "training.gradient_accumulation_steps": 2,
                                   "training.gradient_clipping": 0.5, "precision.mixed_precision": "no"})


def test_a_trainer_loop_is_rehearsed_through_the_trainer_with_its_arguments():
    used, notes, args = rehearsal_answers(ZERO2, port=29999, extra_args=["--steps", "5", "--lr", "0.1", "--clip", "2"])
    assert trainer_rehearsal(used) and used["launch.training_loop"] == "trainer"
    assert not any(n.setting == "launch.training_loop" for n in notes)
    assert args == ["--steps", "5"]  # batch, accumulation, clipping and lr are TrainingArguments, not options
    dropped = {" ".join(n.original) for n in notes if n.setting == "launch.script_args"}
    assert dropped == {"--lr 0.1", "--clip 2"}
    assert all("TrainingArguments" in n.why for n in notes if n.setting == "launch.script_args")


def test_the_trainer_rehearsal_runs_bf16_in_fp32_and_falls_back_for_split_layouts():
    used, notes, _ = rehearsal_answers(ZERO2.replace({"precision.mixed_precision": "bf16"}), port=29999)
    assert used["precision.mixed_precision"] == "no"
    assert "trainer-bf16-needs-a-bf16-gpu" in next(n.why for n in notes if n.setting == "precision.mixed_precision")
    fsdp16 = ZERO2.replace({"backend": "fsdp", "fsdp_version": 2, "precision.mixed_precision": "fp16"})
    assert rehearsal_answers(fsdp16, port=29999)[0]["precision.mixed_precision"] == "fp16"  # the Trainer takes it
    ulysses = ZERO2.replace({"parallelism.sp_size": 4})
    used, notes, _ = rehearsal_answers(ulysses, port=29999)
    assert not trainer_rehearsal(used) and used["launch.training_loop"] == "accelerate"
    assert "runs no tensor, context or sequence parallelism" in next(
        n.why for n in notes if n.setting == "launch.training_loop")
    own = ZERO2.replace({"launch.training_loop": "accelerate"})
    assert not trainer_rehearsal(rehearsal_answers(own, port=29999)[0])


def _expected(a):
    r = render(a, ds_config_ref="ds_config.json")
    return expected_from_config(r.accelerate, r.deepspeed, situation_of(a))


def _record(**over) -> dict:
    rec = {"distributed_type": "DEEPSPEED", "world_size": 2, "zero_stage": 2, "loop": "hf-trainer",
           "optimizer_class": "AdamW", "ds_micro_batch": 4, "ds_gradient_accumulation_steps": 2,
           "ds_gradient_clipping": 0.5, "ds_optimizer_from_config": False, "mixed_precision": "no",
           "offload": {"params": "none", "optimizer": "none"}, "optimizer_state_bytes": 0}
    rec.update(over)
    return rec


def test_the_checklist_compares_what_deepspeed_took_under_the_trainer():
    used, _, _ = rehearsal_answers(ZERO2, port=29999)
    exp = _expected(used)
    assert exp["trainer"] == {"micro_batch": 4, "gradient_accumulation_steps": 2, "clipping": 0.5}
    rows = [i for i in compare(_record(), exp) if i.key == "trainer"]
    assert [(r.status, r.label) for r in rows] == [
        (INFO, "Trained by the Hugging Face Trainer"), (OK, "Micro batch 4 (DeepSpeed's engine)"),
        (OK, "Gradient accumulation 2 (DeepSpeed's engine)"), (OK, "Gradient clipping 0.5 (DeepSpeed's engine)")]
    assert "created by the Trainer" in rows[0].detail
    bad = compare(_record(ds_gradient_accumulation_steps=1), exp)
    row = next(i for i in bad if i.label.startswith("Gradient accumulation"))
    assert row.status == FAIL and "ask for 2" in row.detail and not checklist_ok(bad)
    own = compare(_record(loop=None), exp)
    assert any(i.label == "The Hugging Face Trainer did not drive the run" and i.status == FAIL for i in own)
    # an own-loop rehearsal expects no Trainer rows
    r = render(used, ds_config_ref="ds_config.json")
    assert "trainer" not in expected_from_config(r.accelerate, r.deepspeed)


def test_an_fsdp_trainer_run_is_compared_with_its_training_arguments():
    a = ZERO2.replace({"backend": "fsdp", "fsdp_version": 2})
    exp = _expected(rehearsal_answers(a, port=29999)[0])
    assert exp["trainer"] == {"micro_batch": 4, "gradient_accumulation_steps": 2, "clipping": 0.5}
    rec = _record(distributed_type="FSDP", fsdp_version=2, batch_size=4, grad_accum=2, trainer_max_grad_norm=0.5)
    rows = {i.label: i.status for i in compare(rec, exp) if i.key == "trainer"}
    assert rows["Gradient clipping 0.5 (the Trainer)"] == OK and rows["Micro batch 4 (the Trainer)"] == OK


def test_training_arguments_of_the_rehearsal_are_the_answers(tmp_path):
    from wizard.run.plan import plan_launch

    plan = plan_launch(ZERO2, tmp_path, rehearse=True, script_args=["--steps", "3"])
    argv = plan.spec.argv
    assert argv[argv.index("--config_file") + 2].endswith("train_trainer.py")
    targs = json.loads((plan.run_dir.path / "training_arguments.json").read_text())
    assert targs == {"per_device_train_batch_size": 4, "gradient_accumulation_steps": 2, "max_grad_norm": 0.5}
    assert argv[-4:] == ["--training-args", str(plan.run_dir.path / "training_arguments.json"), "--steps", "3"]
    assert plan.spec.summary_extra["loop"] == "hf-trainer"
    assert plan.spec.expected["trainer"]["gradient_accumulation_steps"] == 2


def test_the_trainers_mismatch_is_diagnosed_with_every_pair():
    from wizard.run.diagnose import diagnose

    lines = ["[rank0]: ValueError: Please correct the following DeepSpeed config values that mismatch "
             "TrainingArguments values:",
             "[rank0]: - ds gradient_clipping=0.5 vs hf max_grad_norm=1.0",
             "[rank0]: - ds train_micro_batch_size_per_gpu=4 vs hf per_device_train_batch_size=2",
             "[rank1]: - ds gradient_clipping=0.5 vs hf max_grad_norm=1.0"]
    [first, *_] = diagnose(lines, 1)
    assert first.code == "trainer-mismatch"
    assert "gradient_clipping 0.5 in the JSON, max_grad_norm 1.0 in TrainingArguments" in first.detail
    assert "train_micro_batch_size_per_gpu 4 in the JSON, per_device_train_batch_size 2" in first.detail
    assert first.detail.count("gradient_clipping") == 1 and "--training-args" in first.fix
