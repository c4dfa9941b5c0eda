"""--verify for the Hugging Face Trainer (launch.training_loop: trainer): the written files and
training_arguments.json replayed through the real TrainingArguments, transformers' HfTrainerDeepSpeedConfig
(trainer_config_process / trainer_config_finalize), accelerate's DeepSpeedPlugin and DeepSpeed's DeepSpeedConfig;
each effective value must be the answers' (and a value that does not reach DeepSpeed is a finding naming its key)."""
import json

import pytest

from wizard.core.answers import answers_from_mapping
from wizard.core.answers import render as render_module
from wizard.core.answers.generate import generate
from wizard.core.verify import effective_config, flatten_effective
from wizard.core.verify.answers import verify_generated

pytestmark = [pytest.mark.verify, pytest.mark.usefixtures("process_state_unchanged")]

JSON_CASE = {"backend": "deepspeed", "launch": {"num_processes": 8, "training_loop": "trainer"},
             "sharding": {"strategy": "full"},
             "offload": {"optimizer": "nvme", "params": "nvme", "nvme_path": "/local_nvme"},
             "training": {"micro_batch_size": 4, "gradient_accumulation_steps": 8, "gradient_clipping": 0.5},
             "precision": {"mixed_precision": "bf16"}}
INLINE_CASE = {"backend": "deepspeed", "launch": {"num_processes": 4, "training_loop": "trainer"},
               "sharding": {"strategy": "grads_optimizer"}, "offload": {"optimizer": "cpu"},
               "training": {"micro_batch_size": 2, "gradient_accumulation_steps": 4, "gradient_clipping": 0.0},
               "precision": {"mixed_precision": "bf16"}}


def gen_of(doc):
    a, findings = answers_from_mapping(doc)
    assert a is not None, findings
    gen = generate(a, None)
    assert gen.ok, [f.render() for f in gen.findings]
    return gen


def errors(findings):
    return [f for f in findings if f.severity == "error"]


@pytest.mark.parametrize("doc", [JSON_CASE, INLINE_CASE], ids=["json", "inline"])
def test_trainer_answers_reach_deepspeed_as_answered(doc):
    gen = gen_of(doc)
    assert gen.rendered.training_arguments  # the Trainer path is what is replayed
    assert not errors(verify_generated(gen)), [f.render() for f in verify_generated(gen)]


def test_the_replay_reads_the_values_the_trainer_filled(tmp_path):
    gen = gen_of(JSON_CASE)
    for name, text in generate(gen.answers, tmp_path, ds_path="absolute").files.items():
        (tmp_path / name).write_text(text)
    assert json.loads((tmp_path / "ds_config.json").read_text())["gradient_accumulation_steps"] == "auto"
    eff = effective_config(tmp_path / "accelerate_config.yaml",
                           trainer_arguments=json.loads((tmp_path / "training_arguments.json").read_text()))
    flat = flatten_effective(eff)
    v = "deepspeed_validated."
    assert (flat[v + "train_micro_batch_size_per_gpu"], flat[v + "gradient_accumulation_steps"],
            flat[v + "train_batch_size"], flat[v + "gradient_clipping"], flat[v + "bf16_enabled"],
            flat[v + "zero_stage"], flat[v + "offload_param_device"]) == (4, 8, 4 * 8 * 8, 0.5, True, 3, "nvme")
    assert not errors(eff.findings)


@pytest.mark.parametrize("dropped,key", [
    ("gradient_accumulation_steps", "deepspeed_validated.gradient_accumulation_steps"),
    ("per_device_train_batch_size", "deepspeed_validated.train_micro_batch_size_per_gpu"),
    ("max_grad_norm", "deepspeed_validated.gradient_clipping"),
    ("bf16", "deepspeed_validated.bf16_enabled"),  # and accelerate's mixed_precision, below
])
def test_a_value_the_arguments_do_not_carry_is_caught(monkeypatch, dropped, key):
    """Break the TrainingArguments mapping on purpose: the JSON says "auto", so the Trainer fills the argument's own
    default, which is not the answer."""
    real = render_module.training_arguments
    monkeypatch.setattr(render_module, "training_arguments",
                        lambda a: {k: v for k, v in real(a).items() if k != dropped})
    found = errors(verify_generated(gen_of(JSON_CASE)))
    want = [(key,), ("mixed_precision",)] if dropped == "bf16" else [(key,)]
    assert [f.keys for f in found] == want, [f.render() for f in found]


def test_inline_precision_without_the_bf16_argument_stops_the_trainer(monkeypatch):
    """Inline, the YAML's mixed_precision bf16 enables bf16 in DeepSpeed's config; a Trainer whose bf16 argument is
    false then refuses it (its mismatch ValueError): the finding names the key."""
    real = render_module.training_arguments
    monkeypatch.setattr(render_module, "training_arguments",
                        lambda a: {k: v for k, v in real(a).items() if k != "bf16"})
    found = errors(verify_generated(gen_of(INLINE_CASE)))
    # first the Trainer's refusal, then each value DeepSpeed never got (the replay stopped there)
    assert (found[0].rule, found[0].keys) == ("verify-deepspeed-config", ("bf16.enabled",)), found
    assert "mismatch TrainingArguments" in found[0].message
    assert all(f.rule == "verify-mismatch" for f in found[1:])


def test_a_concrete_json_value_that_differs_from_the_arguments_is_the_trainers_value_error(tmp_path):
    ds = {"train_micro_batch_size_per_gpu": 4, "train_batch_size": "auto", "gradient_accumulation_steps": 8,
          "gradient_clipping": "auto", "zero_optimization": {"stage": 2}, "bf16": {"enabled": "auto"}}
    (tmp_path / "ds_config.json").write_text(json.dumps(ds))
    (tmp_path / "accelerate_config.yaml").write_text(
        "distributed_type: DEEPSPEED\nnum_processes: 2\n"
        f"deepspeed_config:\n  deepspeed_config_file: {tmp_path / 'ds_config.json'}\n")
    eff = effective_config(tmp_path / "accelerate_config.yaml",
                           trainer_arguments={"per_device_train_batch_size": 4, "gradient_accumulation_steps": 2})
    found = errors(eff.findings)
    assert [(f.rule, f.keys) for f in found] == [("verify-deepspeed-config", ("gradient_accumulation_steps",))]
    # the same file in an own loop: accelerate only warns and keeps DeepSpeed's 8
    own = effective_config(tmp_path / "accelerate_config.yaml", micro_batch_size=4)
    assert not errors(own.findings)
    assert flatten_effective(own)["deepspeed_validated.gradient_accumulation_steps"] == 8


def test_headless_verify_on_trainer_answers_exits_0(tmp_path, capsys):
    from wizard.cli import main

    path = tmp_path / "answers.yaml"
    path.write_text(json.dumps(JSON_CASE))  # JSON is YAML
    assert main(["--headless", str(path), "--out", str(tmp_path / "out"), "--verify"]) == 0
    out = capsys.readouterr()
    assert "verified: accelerate and deepspeed read every value as answered." in out.err
    # the replay takes seconds: a line as each stage starts, before the result (issue 21, item 29)
    said = [line.split("…")[0] for line in out.err.splitlines() if line.startswith("verify: ")]
    assert said == ["verify: importing torch, accelerate, deepspeed and transformers (the first time takes seconds)",
                    "verify: accelerate reads accelerate_config.yaml",
                    "verify: accelerate launch turns it into the environment the processes get",
                    "verify: accelerate builds its plugins from that environment (and the Trainer's TrainingArguments)",
                    "verify: DeepSpeed fills \"auto\" and validates its config",
                    "verify: comparing every value with the answers"], out.err
    assert out.err.index("verify: comparing") < out.err.index("verified: ")
    assert ("TrainingArguments(per_device_train_batch_size=4, gradient_accumulation_steps=8, max_grad_norm=0.5, "
            "bf16=True)") in out.out
    assert json.loads((tmp_path / "out" / "training_arguments.json").read_text())["gradient_accumulation_steps"] == 8
