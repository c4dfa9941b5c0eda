"""Pilot tests: the whole flow with the keyboard alone, files written, headless parity."""
from __future__ import annotations

import json
import shutil

import pytest
import yaml
from helpers import main_of, press

from wizard.cli import main as cli_main
from wizard.tui.app import create_app
from wizard.tui.screens.main import MainScreen
from wizard.tui.screens.review import ReviewScreen
from wizard.tui.screens.switch_report import SwitchReportScreen

SIZE = (80, 24)


async def write_from_review(pilot, app):
    await press(pilot, "ctrl+r")
    await pilot.pause(0.1)
    assert isinstance(app.screen, ReviewScreen)
    await press(pilot, "ctrl+s")
    status = app.screen.status
    await press(pilot, "escape")
    await pilot.pause(0.1)
    assert isinstance(app.screen, MainScreen)
    return status


def headless_parity(folder, tmp_path):
    """The answers.yaml the TUI wrote, run through --headless into the same folder, gives the same bytes."""
    written = {p.name: p.read_bytes() for p in folder.iterdir()}
    saved = tmp_path / f"saved-{folder.name}.yaml"
    shutil.copy(folder / "answers.yaml", saved)
    shutil.rmtree(folder)
    assert cli_main(["--headless", str(saved), "--out", str(folder)]) == 0
    again = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert again == written


@pytest.mark.asyncio
async def test_keyboard_flow_deepspeed_zero3_offload_then_fsdp2(in_tmp):
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = main_of(app)
        assert screen.answers.target == "fsdp2"
        # Backend group is highlighted: Enter goes into the form, the backend choice opens, pick DeepSpeed.
        await press(pilot, "enter", "enter", "down", "enter")
        await pilot.pause(0.1)
        assert screen.answers.backend == "deepspeed"
        assert isinstance(app.screen, SwitchReportScreen)
        await press(pilot, "enter")
        # Sharding: full (ZeRO-3) is the default; check it is what the form shows.
        await press(pilot, "ctrl+g", "down", "down")
        assert screen.answers["sharding.strategy"] == "full"
        # Offload (past Parallelism): optimizer -> cpu, Tab, parameters -> cpu.
        await press(pilot, "down", "down", "enter", "enter", "down", "enter", "tab", "enter", "down", "enter")
        assert screen.answers["offload.optimizer"] == "cpu"
        assert screen.answers["offload.params"] == "cpu"
        assert not screen.has_errors
        status = await write_from_review(pilot, app)
        assert status.startswith("✔ Wrote"), status

        # Same intent on FSDP2: back to the Backend group, choose fsdp (version 2 is kept).
        await press(pilot, "ctrl+g", "home", "enter", "enter", "up", "enter")
        await pilot.pause(0.1)
        assert isinstance(app.screen, SwitchReportScreen)
        report = app.screen.report
        assert report.before == "DeepSpeed" and report.after == "FSDP2"
        assert any(line.setting_id == "sharding.strategy" for line in report.carried)
        await press(pilot, "enter")
        assert screen.answers.target == "fsdp2"
        assert screen.out == "configs-fsdp2"
        status = await write_from_review(pilot, app)
        assert status.startswith("✔ Wrote"), status

    ds_dir, fsdp_dir = in_tmp / "configs-deepspeed", in_tmp / "configs-fsdp2"
    ds = yaml.safe_load((ds_dir / "accelerate_config.yaml").read_text())
    assert ds["distributed_type"] == "DEEPSPEED"
    dsc = ds["deepspeed_config"]
    if "deepspeed_config_file" in dsc:
        z = json.loads((ds_dir / "ds_config.json").read_text())["zero_optimization"]
        assert z["stage"] == 3 and z["offload_optimizer"]["device"] == "cpu" and z["offload_param"]["device"] == "cpu"
    else:
        assert dsc["zero_stage"] == 3
        assert dsc["offload_optimizer_device"] == "cpu" and dsc["offload_param_device"] == "cpu"
    fs = yaml.safe_load((fsdp_dir / "accelerate_config.yaml").read_text())
    assert fs["distributed_type"] == "FSDP"
    assert fs["fsdp_config"]["fsdp_version"] == 2
    assert fs["fsdp_config"]["fsdp_offload_params"] is True
    assert fs["fsdp_config"]["fsdp_reshard_after_forward"] is True
    headless_parity(ds_dir, in_tmp)
    headless_parity(fsdp_dir, in_tmp)
