"""The TUI with a DeepSpeed JSON alone (`fsdpds-wizard --config ds_config.json`) and with the Trainer as the loop."""
from __future__ import annotations

import json

import pytest
from helpers import focused_on, main_of, press
from textual.widgets import Static

from wizard.core.answers import default_answers
from wizard.tui.app import create_app
from wizard.tui.screens.review import ReviewScreen, _bare_json_diff
from wizard.tui.shared.session import Start, from_accelerate_config

SIZE = (160, 50)
BARE = {"train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": 4, "gradient_clipping": 0.5,
        "bf16": {"enabled": True},
        "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu", "pin_memory": True}}}


@pytest.mark.asyncio
async def test_a_bare_deepspeed_json_opens_as_deepspeed_answers_and_reviews_against_itself(in_tmp):
    path = in_tmp / "ds_config.json"
    path.write_text(json.dumps(BARE, indent=2))
    start = from_accelerate_config(path)
    assert start.bare_ds and start.files == (path,)
    a = start.answers
    assert (a.backend, a["sharding.strategy"], a["offload.optimizer"], a["training.gradient_accumulation_steps"],
            a["training.gradient_clipping"]) == ("deepspeed", "full", "cpu", 4, 0.5)
    assert a["launch.num_processes"] == default_answers()["launch.num_processes"]  # no YAML: the defaults
    note = [f for f in start.findings if f.rule == "import" and "launch.num_processes" in f.keys]
    assert note and "DeepSpeed JSON alone" in note[0].message
    app = create_app(start, out=str(in_tmp / "out"))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await pilot.pause()
        assert main.answers.backend == "deepspeed"
        await press(pilot, "ctrl+r")
        assert isinstance(app.screen, ReviewScreen)
        review = app.screen
        assert review.bare_ds and review.imported == (path,)
        diff = _bare_json_diff(review.imported, review.generated.files)
        assert f"{path} (imported)" in diff and "ds_config.json (to write)" in diff
        assert "accelerate_config.yaml (to write)" not in diff  # the JSON is compared with the JSON only
        assert "Diff (import: changed" in str(review.query_one("#files").get_tab("file-diff").label)


@pytest.mark.asyncio
async def test_choosing_the_trainer_in_the_launch_form_shows_the_training_arguments(in_tmp):
    answers = default_answers().replace({"backend": "deepspeed", "training.gradient_accumulation_steps": 8,
                                         "training.micro_batch_size": 2})
    app = create_app(Start(answers, "test"), out=str(in_tmp / "out"))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await focused_on(pilot, "launch.training_loop")
        await press(pilot, "enter", "down", "enter")  # open the choice menu, pick 'trainer'
        await pilot.pause()
        assert main.answers["launch.training_loop"] == "trainer"
        await press(pilot, "ctrl+r")
        assert isinstance(app.screen, ReviewScreen)
        launch = str(app.screen.query_one("#launch", Static).render())
        assert "TrainingArguments(per_device_train_batch_size=2, gradient_accumulation_steps=8" in launch
        assert "training_arguments.json" in app.screen.generated.files


AXOLOTL_STYLE = {"num_machines": 1, "num_processes": 8, "bf16": {"enabled": "auto"},
                 "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
                 "zero_optimization": {"stage": 2}}


@pytest.mark.asyncio
async def test_launch_keys_of_a_bare_json_reach_the_launch_answers_and_not_the_written_json(in_tmp):
    path = in_tmp / "zero2.json"
    path.write_text(json.dumps(AXOLOTL_STYLE, indent=2))
    app = create_app(from_accelerate_config(path), out=str(in_tmp / "out"))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await pilot.pause()
        assert (main.answers["launch.num_processes"], main.answers["launch.num_machines"]) == (8, 1)
        listed = main.listed_findings
        notes = [f for f in listed if f.rule == "import" and "launch.num_processes" in f.keys
                 and "num_processes" in f.keys]
        assert notes and "imported into launch.num_processes" in notes[0].message
        assert [f for f in listed if f.rule == "import" and "bf16.enabled" in f.keys]  # "auto" cannot be held
        # the file as loaded keeps check's warning; the answers' own findings have none about the wizard's output
        assert [f for f in listed if f.rule == "ds-json-accelerate-key-unused" and f.keys == ("num_processes",)]
        assert not [f for f in main.findings if f.rule == "ds-json-accelerate-key-unused"]
        await press(pilot, "ctrl+r")
        assert isinstance(app.screen, ReviewScreen)
        files = app.screen.generated.files
        written = json.loads(files["ds_config.json"])
        assert "num_processes" not in written and "num_machines" not in written
        assert "num_processes: 8" in files["accelerate_config.yaml"]
