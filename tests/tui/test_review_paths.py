"""The review says where to launch from when the DeepSpeed JSON's path is relative (issue 13)."""
from __future__ import annotations

import pytest
import yaml
from helpers import open_review, press

from wizard.cli import main as cli_main
from wizard.core.answers import default_answers
from wizard.tui.app import create_app
from wizard.tui.shared.session import Start

SIZE = (160, 50)
JSON_ANSWERS = {"backend": "deepspeed", "deepspeed.config_file": "yes"}


@pytest.mark.asyncio
async def test_review_of_a_json_config_inside_the_folder_says_launch_from(in_tmp):
    app = create_app(Start(default_answers().replace(JSON_ANSWERS)), "configs-deepspeed")
    async with app.run_test(size=SIZE) as pilot:
        review = await open_review(app, pilot)
        launch = str(review.query_one("#launch").render())
        assert launch == (f"Launch from {in_tmp}: accelerate launch --config_file "
                          "configs-deepspeed/accelerate_config.yaml train.py")
        assert review.command_line() == ("accelerate launch --config_file "
                                         "configs-deepspeed/accelerate_config.yaml train.py")
        files = dict(review.generated.files)
        ref = yaml.safe_load(files["accelerate_config.yaml"])["deepspeed_config"]["deepspeed_config_file"]
        assert ref == "configs-deepspeed/ds_config.json"
    # the session's answers replay headless from the same folder to the same bytes
    saved = in_tmp / "saved.yaml"
    saved.write_text(files["answers.yaml"])
    assert cli_main(["--headless", str(saved), "--out", "configs-deepspeed"]) == 0
    assert {p.name: p.read_text() for p in (in_tmp / "configs-deepspeed").iterdir()} == files


@pytest.mark.asyncio
async def test_review_outside_the_folder_or_without_json_has_no_launch_folder(in_tmp, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    app = create_app(Start(default_answers().replace(JSON_ANSWERS)), str(elsewhere / "out"))
    async with app.run_test(size=SIZE) as pilot:
        review = await open_review(app, pilot)
        launch = str(review.query_one("#launch").render())
        assert launch.startswith(f"Launch: accelerate launch --config_file {elsewhere / 'out'}/accelerate_config.yaml")
        ref = yaml.safe_load(review.generated.files["accelerate_config.yaml"])["deepspeed_config"]
        assert ref["deepspeed_config_file"] == str(elsewhere / "out" / "ds_config.json")
    app = create_app(Start(default_answers()), "configs-fsdp2")  # FSDP: nothing depends on the launch folder
    async with app.run_test(size=SIZE) as pilot:
        review = await open_review(app, pilot)
        assert str(review.query_one("#launch").render()).startswith(
            f"Launch: accelerate launch --config_file {in_tmp / 'configs-fsdp2'}/accelerate_config.yaml")


@pytest.mark.asyncio
async def test_ds_config_path_absolute_in_the_wizard_writes_the_absolute_path(in_tmp):
    """``fsdpds-wizard --ds-config-path absolute``: the form, the review and the written YAML name the JSON by its
    absolute path, and the review's command no longer needs a launch folder."""
    from wizard.tui.screens.main import MainScreen

    app = create_app(Start(default_answers().replace(JSON_ANSWERS)), "configs-deepspeed", ds_path="absolute")
    async with app.run_test(size=SIZE) as pilot:
        main = next(s for s in app.screen_stack if isinstance(s, MainScreen))
        absolute = str(in_tmp / "configs-deepspeed" / "ds_config.json")
        assert main.generated.rendered.accelerate["deepspeed_config"]["deepspeed_config_file"] == absolute
        review = await open_review(app, pilot)
        ref = yaml.safe_load(review.generated.files["accelerate_config.yaml"])["deepspeed_config"]
        assert ref["deepspeed_config_file"] == absolute
        assert not str(review.query_one("#launch").render()).startswith("Launch from")
        await press(pilot, "ctrl+s")
        await pilot.pause(0.2)
        written = yaml.safe_load((in_tmp / "configs-deepspeed" / "accelerate_config.yaml").read_text())
        assert written["deepspeed_config"]["deepspeed_config_file"] == absolute


def test_ds_config_path_reaches_the_wizard_and_bad_values_are_refused(monkeypatch, capsys):
    import wizard.tui.app as tui_app

    seen = {}

    def fake_run(self):  # the app is not started: only what the CLI handed it matters here
        seen["ds_path"] = self.ds_path

    monkeypatch.setattr(tui_app.WizardApp, "run", fake_run)
    assert cli_main(["--ds-config-path", "absolute"]) == 0
    assert seen == {"ds_path": "absolute"}
    assert cli_main(["--ds-config-path", "relative"]) == 2
    assert "invalid choice: 'relative'" in capsys.readouterr().err
