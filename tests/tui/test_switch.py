"""The switch report the TUI shows after ctrl+t (or the palette's "Switch to ...") is the one ``fsdpds-wizard
convert`` prints for the same config and target, and the TUI then writes the same config (issue 20). The function
both call is checked over every preset and target in tests/unit/test_convert_switch.py; this drives the real app
for a sample."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import main_of, press, written_config

from wizard.cli import main
from wizard.core.catalog import DEEPSPEED, FSDP1, FSDP2
from wizard.tui.app import create_app
from wizard.tui.screens.main import TARGET_CYCLE
from wizard.tui.screens.switch_report import SwitchReportScreen
from wizard.tui.shared.session import from_accelerate_config

_SAMPLE = [("fsdp2-full-shard-bf16", DEEPSPEED), ("fsdp2-full-shard-bf16", FSDP1), ("zero3-nvme-offload", FSDP1),
           ("zero3-two-node", FSDP2), ("fsdp1-shard-grad-op-compile", DEEPSPEED)]


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, Path]:
    """The sampled presets' accelerate_config.yaml, written by ``--headless``."""
    out = {}
    for name in {p for p, _ in _SAMPLE}:
        folder = tmp_path_factory.mktemp(name)
        assert main(["--headless", name, "--out", str(folder)]) == 0
        out[name] = folder / "accelerate_config.yaml"
    return out


def _convert_json(src: Path, target: str, out: Path, capsys) -> dict:
    capsys.readouterr()
    to = ["--to", "deepspeed"] if target == DEEPSPEED else ["--to", "fsdp", "--fsdp-version",
                                                            "1" if target == FSDP1 else "2"]
    assert main(["convert", str(src), *to, "--out", str(out), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("preset,target", _SAMPLE)
@pytest.mark.asyncio
async def test_the_report_shown_after_a_switch_is_the_one_convert_prints(preset, target, written, tmp_path, capsys):
    cli = _convert_json(written[preset], target, tmp_path / "out", capsys)
    start = from_accelerate_config(written[preset])
    app = create_app(start)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = main_of(app)
        if TARGET_CYCLE[start.answers.target] == target:
            await press(pilot, "ctrl+t")
        else:
            screen.set_target(target)  # what the palette's "Switch to ..." runs
            await pilot.pause()
        assert isinstance(app.screen, SwitchReportScreen)
        shown = json.loads(json.dumps(app.screen.report.to_dict()))
        assert screen.answers.target == target
        tui_config = written_config(screen.generated.rendered)
    assert shown == cli["report"]
    assert tui_config == written_config(tmp_path / "out")
