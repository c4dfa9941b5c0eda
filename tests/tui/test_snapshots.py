"""Snapshots of every screen and the states that matter, at 80x24 and at 160x50.

Plain ``def`` tests (snap_compare runs its own event loop). Nothing machine-specific is on screen: each test runs
in an empty folder of its own under pytest's temporary folder (``workdir``), output folders are named relative to
it, and the one absolute path on screen, the launch line's, shows that folder as SHOWN_WORKDIR.
Update with ``pytest tests/tui/test_snapshots.py --snapshot-update`` and look at the SVGs before accepting them.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from helpers import focused_on, main_of, settle, until

from wizard.core.answers import default_answers
from wizard.core.catalog import GROUPS
from wizard.tui.app import create_app
from wizard.tui.screens.main import MainScreen
from wizard.tui.shared.session import Start

SIZES = {"80x24": (80, 24), "160x50": (160, 50)}
TARGETS = {
    "fsdp1": {"fsdp_version": 1},
    "fsdp2": {},
    "deepspeed": {"backend": "deepspeed"},
}
ALL = tuple(TARGETS)
FSDP2_DS = ("fsdp2", "deepspeed")
GROUP_TARGETS = {  # group: (targets at 80x24, targets at 160x50)
    "backend": (ALL, ALL),
    "launch": (FSDP2_DS, FSDP2_DS),
    "sharding": (("fsdp2",), ALL),
    "parallelism": (FSDP2_DS, ALL),
    "offload": (FSDP2_DS, ALL),
    "loading": (("fsdp2",), FSDP2_DS),
    "checkpoint": (FSDP2_DS, FSDP2_DS),
    "prefetch": (ALL, ALL),
    "wrapping": (FSDP2_DS, FSDP2_DS),
    "summoning": (ALL, ALL),
    "sync": (ALL, ALL),
    "training": (ALL, ALL),
    "precision": (FSDP2_DS, FSDP2_DS),
    "deepspeed": (FSDP2_DS, ALL),
}
"""Per group and size, the targets whose form and explanation differ (found by comparing the screens of all three).
The header, the sidebar's ⊘ marks and the findings depend on the target alone: every target has them in its
backend snapshots. A target left out showed the same form and explanation as a kept one, up to its own name in
"not used by FSDP1"; 80x24 differs less, it shows no "→ key" lines. When a change makes a left-out target differ,
add it here and write its snapshot with --snapshot-update."""
ZERO3_OFFLOAD = {"backend": "deepspeed", "offload.optimizer": "cpu", "offload.params": "cpu"}


def start(**changes) -> Start:
    return Start(default_answers().replace(changes))


async def ready(pilot):
    """Wait until the main screen has shown its first group."""
    await until(pilot, lambda: any(isinstance(s, MainScreen) and s.ready for s in pilot.app.screen_stack), 60,
                "the main screen's first group")


def keys(*names):
    """Press these keys once the main screen is ready; ``_`` lets the app settle (tests/helpers.py ``settle``), and
    so does the end, so the screenshot is of a still screen however loaded the machine is."""
    async def go(pilot):
        await ready(pilot)
        for name in names:
            if name == "_":
                await settle(pilot)
            else:
                await pilot.press(name)
        await settle(pilot)

    return go


def zoomed(group: str):
    """Once the main screen is ready: show ``group`` and zoom its explanation (F2)."""
    async def go(pilot):
        await ready(pilot)
        await main_of(pilot.app).focus_group(group)
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)

    return go


WORKDIR_LENGTH = 48
SHOWN_WORKDIR = "/tmp/fsdpds-wizard-snapshots/".ljust(WORKDIR_LENGTH, "w")
"""What the screenshots show for ``workdir``: the same characters on every machine."""


@pytest.fixture
def workdir(tmp_path_factory, monkeypatch):
    """An empty working folder of its own, whose absolute path is WORKDIR_LENGTH characters long on every machine
    (so the lines that show it wrap the same everywhere): a folder under pytest's temporary folder, or, where that
    is nested too deep, a fresh one in the system's."""
    base = tmp_path_factory.mktemp("snap").resolve()
    own = None
    if len(str(base)) > WORKDIR_LENGTH - 2:
        base = own = Path(tempfile.mkdtemp(prefix="snap")).resolve()
        assert len(str(base)) <= WORKDIR_LENGTH - 2, f"{base}: a temporary folder this deep leaves no room"
    folder = base / ("w" * (WORKDIR_LENGTH - len(str(base)) - 1))
    folder.mkdir()
    monkeypatch.chdir(folder)
    yield folder
    if own is not None:
        shutil.rmtree(own, ignore_errors=True)


@pytest.fixture
def snap(snap_compare, workdir):
    """snap_compare in ``workdir``, with that folder shown as SHOWN_WORKDIR in the screenshot."""
    def compare(app, **kw):
        export = app.export_screenshot

        def export_screenshot(*args, **kwargs):
            shown.append(export(*args, **kwargs).replace(str(workdir), SHOWN_WORKDIR))
            return shown[-1]

        shown: list[str] = []
        app.export_screenshot = export_screenshot
        same = snap_compare(app, **kw)
        assert not any(str(workdir.parent) in svg for svg in shown), "a part of the working folder is on screen"
        return same

    return compare


@pytest.fixture(params=list(SIZES), ids=list(SIZES))
def size(request):
    return SIZES[request.param]


def test_group_targets_cover_every_group():
    assert list(GROUP_TARGETS) == [g.id for g in GROUPS]


@pytest.mark.parametrize(("size", "group", "target"), [
    pytest.param(SIZES[size], group, target, id=f"{size}-{group}-{target}")
    for i, size in enumerate(SIZES) for group, targets in GROUP_TARGETS.items() for target in targets[i]])
def test_group(snap, size, target, group):
    async def go(pilot):
        await ready(pilot)
        await main_of(pilot.app).focus_group(group)
        await settle(pilot)

    assert snap(create_app(start(**TARGETS[target])), terminal_size=size, run_before=go)


def test_parallelism_group_with_its_mesh_80x24(snap):
    """FSDP2 with context parallelism on 8 processes: the group's explanation, zoomed (F2), draws which ranks form
    each group right under the group's summary."""
    app = create_app(start(**{"launch.num_processes": 8, "parallelism.cp_size": 2}))
    assert snap(app, terminal_size=SIZES["80x24"], run_before=zoomed("parallelism"))


def test_setting_not_applicable(snap, size):
    """FSDP2 has no backward prefetch: the field is marked, the explanation gives the reason."""
    async def go(pilot):
        await ready(pilot)
        main = main_of(pilot.app)
        await main.jump_to("prefetch.backward")
        await settle(pilot)

    assert snap(create_app(start()), terminal_size=size, run_before=go)


def test_setting_explained_precision(snap, size):
    """The guide's precision table for the current dtypes, next to the setting."""
    async def go(pilot):
        await ready(pilot)
        await main_of(pilot.app).jump_to("precision.model_dtype")
        await settle(pilot)

    app = create_app(start(**{"precision.model_dtype": "bf16"}))
    assert snap(app, terminal_size=size, run_before=go)


def test_findings_with_errors(snap, size):
    async def go(pilot):
        await ready(pilot)
        await pilot.press("ctrl+f")
        await settle(pilot)

    app = create_app(start(**{"launch.num_machines": 2, "launch.num_processes": 3}))
    assert snap(app, terminal_size=size, run_before=go)


def test_switch_report(snap, size):
    async def go(pilot):
        await ready(pilot)
        await pilot.press("ctrl+t")  # DeepSpeed -> FSDP1
        await settle(pilot)

    app = create_app(start(**{**ZERO3_OFFLOAD, "offload.optimizer": "nvme", "offload.nvme_path": "/nvme"}))
    assert snap(app, terminal_size=size, run_before=go)


def test_review_clean(snap, size):
    app = create_app(start(**ZERO3_OFFLOAD), out="clean")
    assert snap(app, terminal_size=size, run_before=keys("ctrl+r", "_"))


def test_review_with_errors(snap, size):
    app = create_app(start(**{"launch.num_machines": 2}), out="errors")
    assert snap(app, terminal_size=size, run_before=keys("ctrl+r", "_"))


def test_review_diff_against_existing_file(snap, size):
    out = Path("diff")
    out.mkdir()
    old = create_app(start(**{"launch.num_processes": 4}))  # a config written earlier, with 4 processes
    from wizard.core.answers.generate import generate

    for name, text in generate(old.start.answers, out).files.items():
        (out / name).write_text(text)
    app = create_app(start(**{"launch.num_processes": 8, "offload.params": "cpu", "offload.optimizer": "cpu"}),
                     out=str(out))
    assert snap(app, terminal_size=size, run_before=keys("ctrl+r", "_", "right", "right", "_"))


def test_replace_dialog(snap, size):
    out = Path("replace")
    out.mkdir()
    (out / "accelerate_config.yaml").write_text("distributed_type: FSDP\n")
    app = create_app(start(), out=str(out))
    assert snap(app, terminal_size=size, run_before=keys("ctrl+r", "_", "ctrl+s", "_"))


def test_help(snap, size):
    assert snap(create_app(start()), terminal_size=size, run_before=keys("f1", "_"))


def test_field_focused_wide_and_narrow(snap, size):
    """A field with focus: the explanation follows it (FSDP and DeepSpeed side by side when wide)."""
    async def go(pilot):
        await ready(pilot)
        await focused_on(pilot, "offload.params")
        await settle(pilot)

    assert snap(create_app(start(**ZERO3_OFFLOAD)), terminal_size=size, run_before=go)


LONG = Path("a/rather/long/folder/for/the/generated/configs")


def test_header_long_folder_80x24(snap):
    """80x24, a long folder and an imported start file: the folder's tail stays readable in the header."""
    app = create_app(start(**{"sharding.strategy": "optimizer"}), out=str(LONG))
    app.start.source = "imported accelerate_config.yaml"
    assert snap(app, terminal_size=(80, 24), run_before=keys("_"))


def test_review_replacing_long_folder_80x24(snap):
    """80x24, the Ready line names a file to replace: the key bar stays; the folder is a labelled input."""
    LONG.mkdir(parents=True)
    (LONG / "accelerate_config.yaml").write_text("distributed_type: FSDP\n")
    app = create_app(start(**ZERO3_OFFLOAD), out=str(LONG))
    assert snap(app, terminal_size=(80, 24), run_before=keys("ctrl+r", "_"))


def test_output_folder_dialog_80x24(snap):
    assert snap(create_app(start()), terminal_size=(80, 24), run_before=keys("ctrl+o", "_"))


def _memory(model: str = "llama-3.1-8b", gpu: str = "80"):
    from wizard.tui.shared.session import memory_fields

    memory, errors = memory_fields({"model": model, "gpu_memory": gpu})
    assert errors == {}
    return memory


def test_memory_screen(snap, size):
    """The Memory screen (F3): the fields, the breakdown, DeepSpeed's estimator, the bytes per parameter."""
    app = create_app(start(**{"backend": "deepspeed", "launch.num_processes": 8}), memory=_memory())
    assert snap(app, terminal_size=size, run_before=keys("f3", "_"))


def test_memory_screen_bad_input_80x24(snap):
    """A GPU memory that is not a number: the message under the field names it; the bar asks for the size."""
    app = create_app(start(), memory=_memory())
    assert snap(app, terminal_size=(80, 24), run_before=keys("f3", "_", "tab", "tab", "tab", "end", "x", "_"))


def test_memory_bar_does_not_fit_80x24(snap):
    """The main screen with a model that does not fit: the bar under the groups says by how much."""
    app = create_app(start(**{"sharding.strategy": "none"}), memory=_memory(gpu="24"))
    assert snap(app, terminal_size=(80, 24), run_before=keys("_"))


LANGS = ("tr", "zh-TW")


@pytest.mark.parametrize("lang", LANGS)
def test_main_screen_in_language_80x24(snap, lang):
    """Issue 27: the first screen in Turkish and in Traditional Chinese (``--lang``): the sidebar's groups, the
    titles and the explanation; keys and values as the libraries spell them."""
    from wizard.core.i18n import set_language

    set_language(lang)
    assert snap(create_app(start()), terminal_size=SIZES["80x24"], run_before=keys())


@pytest.mark.parametrize("lang", LANGS)
def test_offload_explained_in_language_80x24(snap, lang):
    """The offload group's explanation zoomed (F2) at 80 columns: CJK text wrapped by cells, nothing cut."""
    from wizard.core.i18n import set_language

    set_language(lang)
    assert snap(create_app(start(**ZERO3_OFFLOAD)), terminal_size=SIZES["80x24"], run_before=zoomed("offload"))
