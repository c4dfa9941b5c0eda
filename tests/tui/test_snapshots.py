"""Snapshots of every screen and the states that matter, at 80x24 and at 160x50.

Plain ``def`` tests (snap_compare runs its own event loop). Nothing machine-specific is on screen:
the review screens write under a fixed folder in /tmp, the others show relative folder names.
Update with ``pytest tests/tui --snapshot-update`` and look at the SVGs before accepting them.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from wizard.core.answers import default_answers
from wizard.core.catalog import GROUPS
from wizard.tui.app import create_app
from wizard.tui.screens.main import MainScreen
from wizard.tui.session import Start
from wizard.tui.widgets.fields import SettingField, field_id

from helpers import main_of

SIZES = {"80x24": (80, 24), "160x50": (160, 50)}
TARGETS = {
    "fsdp1": {"fsdp_version": 1},
    "fsdp2": {},
    "deepspeed": {"backend": "deepspeed"},
}
FIXED = Path("/tmp/fsdpds-wizard-snapshots")
"""Review screens show absolute paths; this one is the same on every machine."""
ZERO3_OFFLOAD = {"backend": "deepspeed", "offload.optimizer": "cpu", "offload.params": "cpu"}


def start(**changes) -> Start:
    return Start(default_answers().replace(changes))


async def ready(pilot):
    """Wait until the main screen has shown its first group."""
    for _ in range(200):
        await pilot.pause(0.01)
        screens = [s for s in pilot.app.screen_stack if isinstance(s, MainScreen)]
        if screens and screens[0].ready:
            return
    raise AssertionError("the main screen never became ready")


def keys(*names):
    async def go(pilot):
        await ready(pilot)
        for name in names:
            if name == "_":
                await pilot.pause(0.1)
            else:
                await pilot.press(name)
        await pilot.pause()

    return go


def fresh(name: str) -> str:
    folder = FIXED / name
    shutil.rmtree(folder, ignore_errors=True)
    return str(folder)


@pytest.fixture(params=list(SIZES), ids=list(SIZES))
def size(request):
    return SIZES[request.param]


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("group", [g.id for g in GROUPS])
def test_group(snap_compare, size, target, group):
    async def go(pilot):
        await ready(pilot)
        await main_of(pilot.app).focus_group(group)
        await pilot.pause()

    assert snap_compare(create_app(start(**TARGETS[target])), terminal_size=size, run_before=go)


def test_setting_not_applicable(snap_compare, size):
    """FSDP2 has no backward prefetch: the field is marked, the explanation gives the reason."""
    async def go(pilot):
        await ready(pilot)
        main = main_of(pilot.app)
        await main.jump_to("prefetch.backward")
        await pilot.pause()

    assert snap_compare(create_app(start()), terminal_size=size, run_before=go)


def test_setting_explained_precision(snap_compare, size):
    """The guide's precision table for the current dtypes, next to the setting."""
    async def go(pilot):
        await ready(pilot)
        await main_of(pilot.app).jump_to("precision.model_dtype")
        await pilot.pause()

    app = create_app(start(**{"precision.model_dtype": "bf16"}))
    assert snap_compare(app, terminal_size=size, run_before=go)


def test_findings_with_errors(snap_compare, size):
    async def go(pilot):
        await ready(pilot)
        await pilot.press("ctrl+f")
        await pilot.pause()

    app = create_app(start(**{"launch.num_machines": 2, "launch.num_processes": 3}))
    assert snap_compare(app, terminal_size=size, run_before=go)


def test_switch_report(snap_compare, size):
    async def go(pilot):
        await ready(pilot)
        await pilot.press("ctrl+t")  # DeepSpeed -> FSDP1
        await pilot.pause()

    app = create_app(start(**{**ZERO3_OFFLOAD, "offload.optimizer": "nvme", "offload.nvme_path": "/nvme"}))
    assert snap_compare(app, terminal_size=size, run_before=go)


def test_review_clean(snap_compare, size):
    app = create_app(start(**ZERO3_OFFLOAD), out=fresh("clean"))
    assert snap_compare(app, terminal_size=size, run_before=keys("ctrl+r", "_"))


def test_review_with_errors(snap_compare, size):
    app = create_app(start(**{"launch.num_machines": 2}), out=fresh("errors"))
    assert snap_compare(app, terminal_size=size, run_before=keys("ctrl+r", "_"))


def test_review_diff_against_existing_file(snap_compare, size):
    out = Path(fresh("diff"))
    out.mkdir(parents=True)
    old = create_app(start(**{"launch.num_processes": 4}))  # a config written earlier, with 4 processes
    from wizard.core.generate import generate

    for name, text in generate(old.start.answers, out).files.items():
        (out / name).write_text(text)
    app = create_app(start(**{"launch.num_processes": 8, "offload.params": "cpu", "offload.optimizer": "cpu"}),
                     out=str(out))
    assert snap_compare(app, terminal_size=size, run_before=keys("ctrl+r", "_", "right", "right", "_"))


def test_replace_dialog(snap_compare, size):
    out = Path(fresh("replace"))
    out.mkdir(parents=True)
    (out / "accelerate_config.yaml").write_text("distributed_type: FSDP\n")
    app = create_app(start(), out=str(out))
    assert snap_compare(app, terminal_size=size, run_before=keys("ctrl+r", "_", "ctrl+s", "_"))


def test_help(snap_compare, size):
    assert snap_compare(create_app(start()), terminal_size=size, run_before=keys("f1", "_"))


def test_field_focused_wide_and_narrow(snap_compare, size):
    """A field with focus: the explanation follows it (FSDP and DeepSpeed side by side when wide)."""
    async def go(pilot):
        await ready(pilot)
        main = main_of(pilot.app)
        await main.jump_to("offload.params")
        await pilot.pause()
        field = main.query_one(f"#{field_id('offload.params')}", SettingField)
        assert pilot.app.focused is field.control

    assert snap_compare(create_app(start(**ZERO3_OFFLOAD)), terminal_size=size, run_before=go)


LONG = FIXED / "a" / "rather" / "long" / "folder" / "for" / "the" / "generated" / "configs"


def test_header_long_folder_80x24(snap_compare):
    """80x24, a long folder and an imported start file: the folder's tail stays readable in the header."""
    app = create_app(start(**{"sharding.strategy": "optimizer"}), out=str(LONG))
    app.start.source = "imported accelerate_config.yaml"
    assert snap_compare(app, terminal_size=(80, 24), run_before=keys("_"))


def test_review_replacing_long_folder_80x24(snap_compare):
    """80x24, the Ready line names a file to replace: the key bar stays; the folder is a labelled input."""
    shutil.rmtree(LONG, ignore_errors=True)
    LONG.mkdir(parents=True)
    (LONG / "accelerate_config.yaml").write_text("distributed_type: FSDP\n")
    app = create_app(start(**ZERO3_OFFLOAD), out=str(LONG))
    assert snap_compare(app, terminal_size=(80, 24), run_before=keys("ctrl+r", "_"))


def test_output_folder_dialog_80x24(snap_compare):
    assert snap_compare(create_app(start()), terminal_size=(80, 24), run_before=keys("ctrl+o", "_"))
