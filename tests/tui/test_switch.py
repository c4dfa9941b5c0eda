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


@pytest.mark.asyncio
async def test_ctrl_t_over_zero2_and_back_keeps_ram_efficient_loading(tmp_path):
    """FSDP2 (fsdp_reshard_after_forward false, so ZeRO-2) with ram-efficient loading, ctrl+t three times: ZeRO-2 has
    no place for it, so the report says it is not in effect there and the answer is kept (not written); FSDP1 and
    FSDP2 write fsdp_cpu_ram_efficient_loading: true again (it was turned off silently: 8 model copies in RAM)."""
    import io

    import yaml
    from rich.console import Console

    from wizard.tui.screens.switch_report import report_renderable

    src = tmp_path / "fsdp2.yaml"
    src.write_text(yaml.safe_dump({"distributed_type": "FSDP", "num_processes": 8, "mixed_precision": "bf16",
                                   "fsdp_config": {"fsdp_version": 2, "fsdp_reshard_after_forward": False,
                                                   "fsdp_cpu_ram_efficient_loading": True,
                                                   "fsdp_sync_module_states": True}}))
    app = create_app(from_accelerate_config(src))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = main_of(app)
        await press(pilot, "ctrl+t")  # FSDP2 -> DeepSpeed ZeRO-2
        assert isinstance(app.screen, SwitchReportScreen)
        dropped = {d.setting_id: d.reason for d in app.screen.report.dropped}
        assert "not in effect on DeepSpeed" in dropped["loading.ram_efficient"]
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(report_renderable(app.screen.report, 120))
        shown = console.export_text()
        assert "loading.ram_efficient = true: not in effect on DeepSpeed" in shown
        assert "Nothing was lost" not in shown
        assert screen.answers["loading.ram_efficient"] is True  # kept in the answers
        ds = screen.generated.rendered.accelerate["deepspeed_config"]
        assert ds["zero_stage"] == 2 and ds["zero3_init_flag"] is False
        await press(pilot, "enter")
        await press(pilot, "ctrl+t")  # -> FSDP1
        assert isinstance(app.screen, SwitchReportScreen)
        assert "loading.ram_efficient" in {m.setting_id for m in app.screen.report.changed_meaning}
        assert "loading.ram_efficient" not in {c.setting_id for c in app.screen.report.carried}
        assert screen.generated.rendered.accelerate["fsdp_config"]["fsdp_cpu_ram_efficient_loading"] is True
        await press(pilot, "enter")
        await press(pilot, "ctrl+t")  # -> FSDP2
        assert screen.answers.target == FSDP2
        assert screen.generated.rendered.accelerate["fsdp_config"]["fsdp_cpu_ram_efficient_loading"] is True


@pytest.mark.asyncio
async def test_a_suggestion_to_zero1_then_ctrl_t_keeps_ram_efficient_loading():
    """Suggest's ZeRO-1 candidate applied (what the Memory screen's apply runs), then ctrl+t to FSDP1: the FSDP2
    answer (ram-efficient loading, the default) is kept on ZeRO-1, not written, and FSDP1 writes it again."""
    from wizard.tui.shared.session import from_preset

    start = from_preset("fsdp2-full-shard-bf16")
    assert start.answers["loading.ram_efficient"] is True and "loading.ram_efficient" not in start.answers.explicit
    app = create_app(start)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = main_of(app)
        screen.set_answers(start.answers.replace({"backend": "deepspeed", "sharding.strategy": "optimizer"}))
        await pilot.pause()
        assert isinstance(app.screen, SwitchReportScreen)
        dropped = {d.setting_id: d.reason for d in app.screen.report.dropped}
        assert "not in effect on DeepSpeed" in dropped["loading.ram_efficient"]
        assert screen.generated.rendered.accelerate["deepspeed_config"]["zero3_init_flag"] is False
        await press(pilot, "enter")
        await press(pilot, "ctrl+t")  # DeepSpeed ZeRO-1 -> FSDP1
        assert screen.answers.target == FSDP1
        assert screen.generated.rendered.accelerate["fsdp_config"]["fsdp_cpu_ram_efficient_loading"] is True


@pytest.mark.asyncio
async def test_a_suggestion_on_another_backend_lists_what_it_changed_under_its_own_heading():
    """Applying a Suggest candidate that changes the backend (what the Memory screen's apply runs): the answers it
    changed are "Changed by the suggestion", not "carried over with another meaning ... changed with the switch"."""
    import io

    from rich.console import Console

    from wizard.tui.screens.switch_report import report_renderable
    from wizard.tui.shared.session import from_preset

    start = from_preset("fsdp2-full-shard-bf16")
    app = create_app(start)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = main_of(app)
        screen.set_answers(start.answers.replace({"backend": "deepspeed", "sharding.strategy": "grads_optimizer",
                                                  "offload.optimizer": "cpu"}))
        await pilot.pause()
        assert isinstance(app.screen, SwitchReportScreen)
        report = app.screen.report
        assert {m.setting_id for m in report.changed} == {"sharding.strategy", "offload.optimizer"}
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(report_renderable(report, 120))
        shown = console.export_text()
    assert "Changed by the suggestion" in shown and "offload.optimizer: none -> cpu" in shown
    assert "changed with the switch" not in shown
