"""Importing a DeepSpeed JSON alone (the TUI's `--config ds_config.json`): DeepSpeed answers from the JSON, the
launch answers and the training loop at their defaults, with a note that says so."""
import json

from wizard.core.answers import default_answers
from wizard.core.answers.generate import generate
from wizard.core.answers.imported import import_and_check

JSON_ALONE = {"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 8, "gradient_clipping": 1.0,
              "bf16": {"enabled": True},
              "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu", "pin_memory": False},
                                    "overlap_comm": True}}


def test_a_json_alone_imports_its_values_and_default_launch_answers(tmp_path):
    path = tmp_path / "ds_config.json"
    path.write_text(json.dumps(JSON_ALONE))
    imported = import_and_check(path)
    a = imported.answers
    assert imported.bare_ds and imported.files == (path,)
    assert (a.backend, a["sharding.strategy"], a["offload.optimizer"], a["offload.pin_memory"],
            a["training.micro_batch_size"], a["training.gradient_accumulation_steps"],
            a["deepspeed.overlap_comm"]) == ("deepspeed", "grads_optimizer", "cpu", False, 2, 8, True)
    defaults = default_answers()
    for sid in ("launch.num_processes", "launch.num_machines", "launch.training_loop"):
        assert a[sid] == defaults[sid] and sid not in a.explicit
    notes = [f for f in imported.notes if "DeepSpeed JSON alone" in f.message]
    assert len(notes) == 1 and notes[0].severity == "info" and "launch.training_loop" in notes[0].keys
    # what the wizard writes back: the same DeepSpeed values in its own ds_config.json
    written = json.loads(generate(a, None).files["ds_config.json"])
    assert (written["train_micro_batch_size_per_gpu"], written["gradient_accumulation_steps"],
            written["zero_optimization"]["offload_optimizer"]) == (2, 8, {"device": "cpu", "pin_memory": False})


def test_an_accelerate_config_import_keeps_the_default_loop_and_no_bare_note(tmp_path):
    cfg = tmp_path / "acc.yaml"
    cfg.write_text("distributed_type: DEEPSPEED\nnum_processes: 4\ndeepspeed_config:\n  zero_stage: 2\n")
    imported = import_and_check(cfg)
    assert not imported.bare_ds and imported.files == (cfg,)
    assert imported.answers["launch.training_loop"] == "accelerate"
    assert not [f for f in imported.notes if "DeepSpeed JSON alone" in f.message]


AXOLOTL_STYLE = {"num_machines": 1, "num_processes": 8, "bf16": {"enabled": "auto"},
                 "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
                 "zero_optimization": {"stage": 2, "overlap_comm": True}}


def test_launch_keys_in_a_json_alone_go_to_the_launch_answers_never_into_the_json(tmp_path):
    path = tmp_path / "zero2.json"
    path.write_text(json.dumps(AXOLOTL_STYLE))
    imported = import_and_check(path)
    a = imported.answers
    assert (a["launch.num_processes"], a["launch.num_machines"]) == (8, 1)
    assert not a["deepspeed.extra"]
    for key in ("num_processes", "num_machines"):
        (note,) = [f for f in imported.notes if key in f.keys]
        assert note.rule == "import" and note.severity == "info" and f"launch.{key}" in note.keys
        assert "accelerate config key" in note.message and f"imported into launch.{key}" in note.message
    (bare,) = [f for f in imported.notes if "DeepSpeed JSON alone" in f.message]
    assert "8 processes on one machine" in bare.message and "keep their defaults" not in bare.message
    gen = generate(a, None)
    written = json.loads(gen.files["ds_config.json"])
    assert "num_processes" not in written and "num_machines" not in written
    assert "num_processes: 8" in gen.files["accelerate_config.yaml"]
    # the wizard does not warn about its own output
    assert not [f for f in gen.findings if f.rule == "ds-json-accelerate-key-unused"]
