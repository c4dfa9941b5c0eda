"""Issue 25 point 3: with the Trainer as the loop and a Trainer-based tool named (launch.trainer_tool), the wizard
writes the keys of that tool's training file beside the configs; read back as that tool reads them, they are the
TrainingArguments the configs were written for (consistent by construction)."""
from __future__ import annotations

import pytest
import yaml

from wizard.core.answers.generate import generate
from wizard.core.answers.model import default_answers
from wizard.core.answers.render import render
from wizard.core.answers.rules import check_answers
from wizard.core.effective.training_file import tool_keys, training_file_from

ARGS = {"per_device_train_batch_size": 2, "gradient_accumulation_steps": 4, "max_grad_norm": 0.5, "bf16": True,
        "learning_rate": 2e-05, "weight_decay": 0.1, "warmup_steps": 10, "max_steps": 500}


@pytest.mark.parametrize("tool", ["llamafactory", "axolotl"])
def test_the_tool_keys_read_back_as_the_arguments(tool):
    keys, cannot = tool_keys(tool, ARGS)
    assert cannot == ()
    assert training_file_from(keys, tool).arguments == ARGS
    if tool == "axolotl":
        assert keys["micro_batch_size"] == 2 and "per_device_train_batch_size" not in keys


def test_what_axolotl_cannot_say_is_named():
    keys, cannot = tool_keys("axolotl", {"warmup_steps": 1, "adam_beta1": 0.8})
    assert "warmup_steps" not in keys and any("1 step into 2" in c for c in cannot)
    assert keys == {"adam_beta1": 0.8}  # a same-name argument axolotl passes


def answers(tool: str, backend: str = "deepspeed", loop: str = "trainer"):
    base = {"backend": backend, "launch.training_loop": loop, "launch.trainer_tool": tool,
            "launch.num_processes": 8, "training.micro_batch_size": 2, "training.gradient_accumulation_steps": 4,
            "training.gradient_clipping": 0.5, "precision.mixed_precision": "bf16"}
    if backend == "fsdp":
        base["fsdp_version"] = 2
    return default_answers().replace(base)


@pytest.mark.parametrize("tool,name", [("llamafactory", "llamafactory_args.yaml"), ("axolotl", "axolotl_args.yaml")])
def test_the_snippet_is_written_with_the_json_it_names(tmp_path, tool, name):
    a = answers(tool)
    gen = generate(a, tmp_path / "out", launch_dir=tmp_path)
    assert gen.ok and name in gen.files and "ds_config.json" in gen.files  # the tool's file names a JSON
    snippet = yaml.safe_load(gen.files[name])
    assert snippet["deepspeed"] == "out/ds_config.json"  # as accelerate_config.yaml names it, from the launch folder
    written = render(a).training_arguments
    read_back = training_file_from(snippet, tool).arguments
    assert {k: read_back[k] for k in written} == written
    # axolotl adds its own warm-up (3% of the steps) where none is given; the JSON has no scheduler to match it
    assert set(read_back) - set(written) <= {"warmup_steps"} and "scheduler" not in gen.files["ds_config.json"]
    assert gen.files[name].startswith("# fsdpds-wizard: merge these keys")


def test_fsdp_snippets_name_no_json_and_the_plain_trainer_gets_none(tmp_path):
    gen = generate(answers("axolotl", backend="fsdp"), tmp_path / "out", launch_dir=tmp_path)
    snippet = yaml.safe_load(gen.files["axolotl_args.yaml"])
    assert "deepspeed" not in snippet and snippet["micro_batch_size"] == 2
    assert "accelerate launch --config_file" in gen.files["axolotl_args.yaml"]
    plain = generate(answers("transformers"), tmp_path / "plain", launch_dir=tmp_path)
    assert not {"llamafactory_args.yaml", "axolotl_args.yaml"} & set(plain.files)
    assert "training_arguments.json" in plain.files


def test_a_tool_with_an_own_loop_is_said_and_writes_no_snippet(tmp_path):
    a = answers("axolotl", loop="accelerate")
    hits = {(f.rule, tuple(f.keys)) for f in check_answers(a)}
    assert ("trainer-tool-unused", ("launch.trainer_tool", "launch.training_loop")) in hits
    assert "axolotl_args.yaml" not in generate(a, tmp_path / "out", launch_dir=tmp_path).files


def test_training_arguments_follow_a_concrete_value_of_deepspeed_extra(tmp_path):
    """The pair the wizard writes is the one the Trainer accepts: a clipping, micro batch or accumulation written into
    the JSON through deepspeed.extra goes to training_arguments.json too (it used to keep the answers' default, and
    the Trainer raised on the wizard's own files); an answer it overrides is an error."""
    a = default_answers().replace({"backend": "deepspeed", "launch.training_loop": "trainer",
                                   "deepspeed.extra": {"gradient_clipping": 0.5, "train_micro_batch_size_per_gpu": 3}})
    r = render(a)
    assert r.deepspeed["gradient_clipping"] == 0.5 and r.deepspeed["train_micro_batch_size_per_gpu"] == 3
    assert r.training_arguments["max_grad_norm"] == 0.5 and r.training_arguments["per_device_train_batch_size"] == 3
    assert not [f for f in check_answers(a) if f.rule == "ds-extra-overrides-training"]
    stated = a.replace({"training.gradient_clipping": 0.7})
    [hit] = [f for f in check_answers(stated) if f.rule == "ds-extra-overrides-training"]
    assert hit.severity == "error" and set(hit.keys) == {"training.gradient_clipping", "deepspeed.extra"}


def test_every_tool_check_recognises_has_a_snippet_and_a_choice():
    from wizard.core.answers.render import TOOL_SNIPPETS
    from wizard.core.catalog import SETTING_BY_ID
    from wizard.core.training_kinds import KINDS

    assert set(TOOL_SNIPPETS) == set(KINDS)
    assert set(SETTING_BY_ID["launch.trainer_tool"].choices) == {"transformers", *KINDS}
