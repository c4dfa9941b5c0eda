"""launch.training_loop: the files follow the loop. With the Trainer, the DeepSpeed values it fills from
TrainingArguments are written "auto" and the answers' numbers go to training_arguments.json; with an own loop the
files are today's (tests/golden holds them byte for byte)."""
import json

from wizard.core.answers import answers_from_mapping
from wizard.core.answers.generate import generate
from wizard.core.answers.render import render, training_arguments, training_arguments_line, uses_ds_json

BASE = {"backend": "deepspeed", "launch": {"num_processes": 8},
        "training": {"micro_batch_size": 4, "gradient_accumulation_steps": 8, "gradient_clipping": 0.5},
        "precision": {"mixed_precision": "bf16"}, "deepspeed": {"config_file": "yes"}}


def A(doc, loop=None):
    doc = json.loads(json.dumps(doc))
    if loop:
        doc.setdefault("launch", {})["training_loop"] = loop
    a, findings = answers_from_mapping(doc)
    assert a is not None, findings
    return a


def test_the_default_loop_is_an_own_accelerator_loop():
    assert A({})["launch.training_loop"] == "accelerate"


def test_under_the_trainer_every_value_it_fills_is_auto():
    j = render(A(BASE, "trainer")).deepspeed
    assert (j["train_micro_batch_size_per_gpu"], j["train_batch_size"], j["gradient_accumulation_steps"],
            j["gradient_clipping"], j["bf16"]["enabled"], j["fp16"]["enabled"]) == ("auto",) * 6


def test_an_own_loop_keeps_the_numbers_in_the_json():
    j = render(A(BASE)).deepspeed
    assert (j["train_micro_batch_size_per_gpu"], j["gradient_accumulation_steps"], j["gradient_clipping"],
            j["bf16"]["enabled"], j["fp16"]["enabled"]) == (4, 8, 0.5, True, False)
    assert render(A(BASE)).training_arguments is None
    assert "training_arguments.json" not in generate(A(BASE)).files


def test_the_numbers_go_to_training_arguments():
    gen = generate(A(BASE, "trainer"))
    want = {"per_device_train_batch_size": 4, "gradient_accumulation_steps": 8, "max_grad_norm": 0.5, "bf16": True}
    assert json.loads(gen.files["training_arguments.json"]) == want
    assert training_arguments_line(gen.rendered.training_arguments) == (
        "TrainingArguments(per_device_train_batch_size=4, gradient_accumulation_steps=8, max_grad_norm=0.5, "
        "bf16=True)")


def test_fp16_keeps_auto_cast_and_auto_answers_are_not_listed():
    doc = {**BASE, "training": {"gradient_clipping": "auto"}, "precision": {"mixed_precision": "fp16"}}
    a = A(doc, "trainer")
    assert render(a).deepspeed["fp16"] == {"enabled": "auto", "auto_cast": True}
    assert training_arguments(a) == {"gradient_accumulation_steps": 1, "fp16": True}


def test_inline_under_the_trainer_leaves_accumulation_and_clipping_to_training_arguments():
    doc = {"backend": "deepspeed", "training": {"gradient_accumulation_steps": 8, "gradient_clipping": 1.0}}
    own = render(A(doc)).accelerate["deepspeed_config"]
    hf = render(A(doc, "trainer")).accelerate["deepspeed_config"]
    assert own["gradient_accumulation_steps"] == 8 and own["gradient_clipping"] == 1.0
    assert "gradient_accumulation_steps" not in hf and "gradient_clipping" not in hf  # inline "auto"


def test_no_clipping_and_a_micro_batch_need_no_json_under_the_trainer():
    doc = {"backend": "deepspeed", "training": {"gradient_clipping": 0, "micro_batch_size": 2}}
    assert uses_ds_json(A(doc))  # an own loop: only a JSON can carry them
    a = A(doc, "trainer")
    assert not uses_ds_json(a)  # the Trainer fills the inline "auto" values from its arguments
    assert training_arguments(a) == {"per_device_train_batch_size": 2, "gradient_accumulation_steps": 1,
                                     "max_grad_norm": 0.0, "bf16": True}


def test_the_json_optimizer_numbers_are_listed_as_the_arguments_that_must_match():
    extra = {"optimizer": {"type": "AdamW", "params": {"lr": 3e-5, "betas": [0.9, 0.95], "eps": 1e-8,
                                                       "weight_decay": 0.1}},
             "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_max_lr": 3e-5, "warmup_num_steps": 100,
                                                               "total_num_steps": 1000}}}
    args = training_arguments(A({**BASE, "deepspeed": {"extra": extra}}, "trainer"))
    assert {k: args[k] for k in ("learning_rate", "adam_beta1", "adam_beta2", "adam_epsilon", "weight_decay",
                                 "warmup_steps", "max_steps")} == {
        "learning_rate": 3e-5, "adam_beta1": 0.9, "adam_beta2": 0.95, "adam_epsilon": 1e-8, "weight_decay": 0.1,
        "warmup_steps": 100, "max_steps": 1000}


def test_fsdp_under_the_trainer_writes_the_arguments_and_the_same_yaml():
    doc = {"backend": "fsdp", "training": {"gradient_accumulation_steps": 4}}
    own, hf = generate(A(doc)), generate(A(doc, "trainer"))
    assert own.files["accelerate_config.yaml"] == hf.files["accelerate_config.yaml"]
    assert json.loads(hf.files["training_arguments.json"]) == {"gradient_accumulation_steps": 4,
                                                               "max_grad_norm": 1.0, "bf16": True}
