"""Pilot tests of single behaviours: findings jump, errors block writing, replace asks, imports, help."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import ROOT, main_of, press
from textual.widgets import Input

from wizard.core.answers import default_answers
from wizard.core.catalog import SETTING_BY_ID, SETTINGS
from wizard.tui.app import WizardApp, create_app
from wizard.tui.screens.confirm import ConfirmScreen
from wizard.tui.screens.help import HelpScreen, binding_rows
from wizard.tui.screens.main import MainScreen
from wizard.tui.screens.review import ReviewScreen
from wizard.tui.shared.session import Start, StartError, from_accelerate_config, from_answers_file, from_preset
from wizard.tui.widgets.fields import SettingField, field_id

SIZE = (80, 24)


def start_with(**changes) -> Start:
    return Start(default_answers().replace(changes))


@pytest.mark.asyncio
async def test_typing_updates_answers_and_invalid_text_is_refused():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await press(pilot, "down", "enter")  # Launch basics -> processes
        assert isinstance(app.focused, Input)
        await press(pilot, "8")
        assert main.answers["launch.num_processes"] == 8
        await press(pilot, "x")  # "8x" is not a number: the answers keep 8, the field says why
        assert main.answers["launch.num_processes"] == 8
        field = main.query_one(f"#{field_id('launch.num_processes')}", SettingField)
        assert field.has_class("-invalid")
        await press(pilot, "backspace")
        assert not field.has_class("-invalid")


@pytest.mark.asyncio
async def test_selecting_a_finding_jumps_to_the_setting():
    app = create_app(start_with(**{"launch.num_machines": 2}))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        assert main.has_errors
        await press(pilot, "ctrl+f", "enter")
        assert app.focused is not None
        field = next(n for n in app.focused.ancestors_with_self if isinstance(n, SettingField))
        assert field.setting.id == "launch.main_process_ip"
        # ctrl+n visits the errors and warnings in turn
        await press(pilot, "ctrl+g", "ctrl+n")
        field = next(n for n in app.focused.ancestors_with_self if isinstance(n, SettingField))
        assert field.setting.id == "launch.main_process_ip"


@pytest.mark.asyncio
async def test_errors_block_writing_and_review_jumps_back(in_tmp):
    app = create_app(start_with(**{"launch.num_machines": 2}))
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "ctrl+r")
        assert isinstance(app.screen, ReviewScreen)
        await press(pilot, "ctrl+s")
        assert not (in_tmp / "configs-fsdp2").exists()
        await press(pilot, "ctrl+n")
        await pilot.pause(0.1)
        assert isinstance(app.screen, MainScreen)
        field = next(n for n in app.focused.ancestors_with_self if isinstance(n, SettingField))
        assert field.setting.id == "launch.main_process_ip"


@pytest.mark.asyncio
async def test_replacing_files_asks_first_and_keeps_a_backup(tmp_path):
    out = tmp_path / "cfg"
    out.mkdir()
    (out / "accelerate_config.yaml").write_text("old: true\n")
    app = create_app(out=str(out))
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "ctrl+r", "ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)
        await press(pilot, "n")
        assert (out / "accelerate_config.yaml").read_text() == "old: true\n"
        assert not (out / "answers.yaml").exists()
        await press(pilot, "ctrl+s", "y")
        assert "distributed_type: FSDP" in (out / "accelerate_config.yaml").read_text()
        assert (out / "accelerate_config.yaml.bak").read_text() == "old: true\n"
        assert (out / "answers.yaml").exists()


@pytest.mark.asyncio
async def test_not_applicable_settings_are_shown_with_the_reason():
    app = create_app()  # FSDP2
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await main.focus_group("prefetch")
        await pilot.pause()
        field = main.query_one(f"#{field_id('prefetch.backward')}", SettingField)
        assert field.display and field.has_class("-na")
        assert "not used by FSDP2" in str(field.query_one(".notes").render())
        main.set_target("fsdp1")
        await press(pilot, "enter")  # close the switch report
        assert not field.has_class("-na")
        assert "not used by" not in str(field.query_one(".notes").render())


@pytest.mark.asyncio
async def test_switch_lists_what_did_not_carry_over():
    flipped = not SETTING_BY_ID["offload.pin_memory"].default
    start = Start(from_preset("zero3-cpu-offload").answers.replace({"offload.pin_memory": flipped}))
    app = create_app(start)
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "ctrl+t")  # DeepSpeed -> FSDP1
        report = app.screen.report
        assert [line.setting_id for line in report.dropped] == ["offload.pin_memory"]
        carried = {line.setting_id: line for line in report.carried}
        assert carried["sharding.strategy"].after == "fsdp_sharding_strategy: FULL_SHARD"
        # FSDP's single offload switch is another meaning than DeepSpeed's parameter offload: listed there, with
        # how it is written now
        meaning = {line.setting_id: line for line in report.changed_meaning}
        assert "offload.params" not in carried and meaning["offload.params"].after == "fsdp_offload_params: true"


@pytest.mark.asyncio
async def test_help_lists_every_binding():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "f1")
        assert isinstance(app.screen, HelpScreen)
        keys = {k for _, k, _ in binding_rows(type(app))}
        for cls in (WizardApp, MainScreen, ReviewScreen, ConfirmScreen):
            for b in cls.BINDINGS:
                assert " / ".join(b.key.split(",")) in keys, b
        await press(pilot, "escape")
        assert isinstance(app.screen, MainScreen)


@pytest.mark.asyncio
async def test_palette_has_the_main_actions():
    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for wanted in ("Review and write the files", "Switch to DeepSpeed", "Switch to FSDP1", "Show help",
                       "Go to group: Offload", "Load preset: zero3-cpu-offload",
                       "Open/import accelerate config or DeepSpeed JSON…", "Open answers file…", "Next problem"):
            assert wanted in titles
        main = main_of(app)
        await press(pilot, "ctrl+p")
        await pilot.pause(0.2)
        for ch in "Switch to DeepSpeed":
            await pilot.press("space" if ch == " " else ch)
        await pilot.pause(0.5)
        await press(pilot, "enter")
        await pilot.pause(0.2)
        assert main.answers.target == "deepspeed"


def test_start_sources(tmp_path):
    assert from_preset("zero3-cpu-offload").answers.backend == "deepspeed"
    with pytest.raises(StartError, match="did you mean"):
        from_preset("zero3-cpu-ofload")
    bad = tmp_path / "a.yaml"
    bad.write_text("sharding:\n  strategi: full\n")
    with pytest.raises(StartError) as exc:
        from_answers_file(bad)
    assert exc.value.findings and exc.value.findings[0].rule == "answers-unknown-key"


def test_import_accelerate_config_keeps_the_file_findings(tmp_path):
    cfg = tmp_path / "acc.yaml"
    cfg.write_text("compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\nnum_processes: 4\n"
                   "deepspeed_config:\n  zero_stage: 3\n  offload_optimizer_device: cpu\n"
                   "  offload_param_device: cpu\n  zero3_init_flag: true\nmixed_precision: bf16\n")
    start = from_accelerate_config(cfg)
    assert start.answers.backend == "deepspeed"
    assert start.answers["offload.params"] == "cpu"
    assert start.source == "imported acc.yaml"


@pytest.mark.asyncio
async def test_run_app_from_cli_args(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from wizard.tui import app as app_module

    seen = {}

    def fake_run(self, *a, **k):
        seen["start"] = self.start
        seen["out"] = self.out

    monkeypatch.setattr(app_module.WizardApp, "run", fake_run)
    args = SimpleNamespace(answers=None, preset="zero2", config=None, out=str(tmp_path))
    assert app_module.run_app(args) == 0
    assert seen["start"].answers.backend == "deepspeed" and seen["out"] == str(tmp_path)
    args = SimpleNamespace(answers=None, preset="nope", config=None, out=None)
    assert app_module.run_app(args) == 2


def test_the_tui_imports_no_heavy_library():
    probe = (
        "import asyncio, json, sys\n"
        "from wizard.tui.app import create_app\n"
        "async def go():\n"
        "    app = create_app()\n"
        "    async with app.run_test(size=(80, 24)) as pilot:\n"
        "        await pilot.press('ctrl+r')\n"
        "        await pilot.pause(0.2)\n"
        "asyncio.run(go())\n"
        "print(json.dumps([m for m in ('torch', 'accelerate', 'deepspeed') if m in sys.modules]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []


def test_every_setting_has_a_form_field():
    from wizard.tui.shared.present import text_to_value, value_to_text

    for s in SETTINGS:
        if s.kind in ("int", "float", "str", "list", "dict"):
            value, problem = text_to_value(s, value_to_text(s, s.default))
            if s.default is not None or s.nullable:
                assert problem is None and value == s.default, (s.id, problem)


@pytest.mark.asyncio
async def test_mouse_reaches_groups_findings_and_review(in_tmp):
    from textual.widgets import ContentSwitcher

    from wizard.tui.widgets.findings import FindingsList
    from wizard.tui.widgets.sidebar import GroupList

    app = create_app(start_with(**{"launch.num_machines": 2}))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await pilot.pause(0.1)
        groups = main.query_one(GroupList)
        await pilot.click(GroupList, offset=(4, 1 + groups.get_option_index("offload")))
        await pilot.pause(0.1)
        assert main.query_one("#forms", ContentSwitcher).current == "form-offload"
        await pilot.click(FindingsList, offset=(6, 1))
        await pilot.pause(0.1)
        field = next(n for n in app.focused.ancestors_with_self if isinstance(n, SettingField))
        assert field.setting.id == "launch.main_process_ip"
        line = groups._index_to_line[groups.get_option_index("review")]  # the divider takes a line
        # at 80x24 the fourteen groups fill the box: the list scrolls (the wheel) to show "Review and write"
        groups.scroll_to(y=line, animate=False)
        await pilot.pause(0.1)
        await pilot.click(GroupList, offset=(4, 1 + line - round(groups.scroll_y)))
        await pilot.pause(0.2)
        assert isinstance(app.screen, ReviewScreen)


@pytest.mark.asyncio
async def test_keyboard_flow_fsdp1(in_tmp):
    import yaml

    app = create_app()
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await press(pilot, "ctrl+t", "enter", "ctrl+t", "enter")  # FSDP2 -> DeepSpeed -> FSDP1
        assert main.answers.target == "fsdp1"
        # Sharding: pick SHARD_GRAD_OP (grads_optimizer, the second choice).
        await press(pilot, "ctrl+g", "down", "down", "enter", "enter", "down", "enter")
        assert main.answers["sharding.strategy"] == "grads_optimizer"
        await press(pilot, "ctrl+r")
        await press(pilot, "ctrl+s")
        assert app.screen.status.startswith("✔ Wrote"), app.screen.status
    cfg = yaml.safe_load((in_tmp / "configs-fsdp1" / "accelerate_config.yaml").read_text())
    assert cfg["fsdp_config"]["fsdp_version"] == 1
    assert cfg["fsdp_config"]["fsdp_sharding_strategy"] == "SHARD_GRAD_OP"
