"""What the tests share, other than fixtures: the repository root, the presets, the words of the bad-input messages,
YAML that no loader should accept, and the TUI pilot helpers.

``from helpers import ...`` works from every test folder: pyproject's ``[tool.pytest.ini_options] pythonpath`` puts
tests/ on sys.path. Fixtures stay in the conftest files; nothing here is imported from a conftest by name.
Imports only the standard library at import time (the TUI helpers import wizard.tui when called), so a test about
what gets imported is not disturbed by its helpers.
"""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The repository checkout: the folder with pyproject.toml, wizard/ and templates/."""
TEMPLATES = ROOT / "templates"
PRESET_FILES = sorted(TEMPLATES.glob("*.yaml"))
GOLDEN = ROOT / "tests" / "golden"
BLOCKED_PRESETS = {"fsdp2-tp": ("parallelism-fsdp2-tp-transformers", ">=5.1")}
"""Presets the installed libraries may not run, with the error that says so and the transformers releases where it
holds: FSDP2 + TP through accelerate 1.15 needs transformers 4.52 to 5.0 (claim
accelerate-fsdp2-tp-needs-replicate-parallel). Their golden files are what they write where they run."""


def blocked_here(stem: str) -> str | None:
    """The error a preset must report with the installed transformers (the wizard then writes nothing), or None."""
    from importlib.metadata import version

    from wizard.core.context import in_spec

    if stem not in BLOCKED_PRESETS:
        return None
    rule, spec = BLOCKED_PRESETS[stem]
    return rule if in_spec(version("transformers"), spec) else None


def write_preset(stem: str, out) -> None:
    """What ``--headless PRESET --out OUT`` writes; for a preset the installed versions block (nothing is written
    then), its golden files: what it writes where it runs."""
    import shutil

    from wizard.cli import main

    if blocked_here(stem):
        shutil.copytree(GOLDEN / stem, out, dirs_exist_ok=True)
    else:
        assert main(["--headless", str(TEMPLATES / f"{stem}.yaml"), "--out", str(out)]) == 0
"""Every preset answers file, by name."""
EXTENSIONS = (os.environ.get("TORCH_EXTENSIONS_DIR")
              or str(Path.home() / ".cache" / "fsdpds-wizard" / "torch_extensions"))
"""Where DeepSpeed's CPU ops are built once and cached for every test, rank and run (the path CI caches);
tests/conftest.py exports it as TORCH_EXTENSIONS_DIR for the whole session, so every child process finds it."""

# ----------------------------------------------------------------------------------------- bad input, word for word
# The fixes that check, --headless and the wizard's start and open dialogs all give (wizard.core.inputs).
BINARY_FIX = "is this a binary file? Give the text file, saved as UTF-8"
ANSWERS_MAPPING_FIX = ("an answers file maps keys to values (backend: fsdp, launch: ...); `fsdpds-wizard presets` "
                       "lists the presets and `fsdpds-wizard --headless PRESET_NAME --out DIR` writes one as "
                       "answers.yaml to start from")
CONFIG_MAPPING_FIX = ("an accelerate config maps keys to values (distributed_type: FSDP, fsdp_config: ...); "
                      "`accelerate config` writes one, and so does `fsdpds-wizard --headless PRESET_NAME --out DIR`")


def deep_yaml(levels: int = 100) -> str:
    """Block mappings nested ``levels`` deep, then ``v: 1`` (100 levels: deeper than the bound, within the size
    bound)."""
    return "".join("  " * i + f"k{i}:\n" for i in range(levels)) + "  " * levels + "v: 1\n"


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    """A few lines of anchors and aliases that expand to ``width ** (levels + 1)`` values."""
    lines = ["a0: &a0 [" + ", ".join(["x"] * width) + "]"]
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------------- the TUI
async def press(pilot, *keys):
    """Press keys one by one, letting the app settle after each."""
    for key in keys:
        await pilot.press(key)
        await pilot.pause()


async def open_review(app, pilot):
    """ctrl+r on the main screen: the review screen, asserted."""
    from wizard.tui.screens.review import ReviewScreen

    await press(pilot, "ctrl+r")
    await pilot.pause(0.1)
    assert isinstance(app.screen, ReviewScreen)
    return app.screen


async def until(pilot, cond, timeout: float = 30.0, what: str = "") -> None:
    """Let the app run until ``cond()`` holds; fail naming ``what`` after ``timeout`` seconds."""
    import time

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"timed out waiting for {what or cond}")


async def settle(pilot, timeout: float = 60.0) -> None:
    """Let the app run until it is still: no worker pending or running, blinking cursors shown steadily, and the
    screen the same over two looks 0.1 s apart. What a test sees then does not depend on the machine's load (a fixed
    pause does: on a busy machine the app is still drawing, or a cursor has blinked off)."""
    import time

    from textual.worker import WorkerState

    app = pilot.app
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        for widget in app.screen.query("*"):
            if getattr(widget, "cursor_blink", False) is True:
                widget.cursor_blink = False
        await pilot.pause(0.1)
        busy = any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers)
        text = app.export_screenshot()
        if not busy and text == last:
            return
        last = text
    raise AssertionError(f"the app did not settle within {timeout} s")


async def palette(app, pilot, query: str) -> None:
    """Run one command-palette entry by its words (ctrl+p, the words, Enter), and let the app settle."""
    from textual.command import CommandPalette

    await press(pilot, "ctrl+p")
    await until(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
    await pilot.press(*query)
    await pilot.pause(0.5)
    await settle(pilot)
    await press(pilot, "enter")
    await until(pilot, lambda: not isinstance(app.screen, CommandPalette), what="the palette to close")
    await settle(pilot)


async def main_ready(pilot, tries: int = 300) -> None:
    """Wait until the wizard's main screen is ready (its first group shown)."""
    for _ in range(tries):
        await pilot.pause(0.01)
        if main_of(pilot.app).ready:
            return
    raise AssertionError("the main screen never became ready")


def wizard_in(lang: str, start=None, size: tuple[int, int] = (80, 24)):
    """``async with wizard_in(lang) as (app, pilot, main):`` the wizard made in ``lang`` (the language set first, as
    ``--lang`` does), on ``start`` (the defaults when None), its main screen ready."""
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def running():
        from wizard.core import i18n
        from wizard.core.answers import default_answers
        from wizard.tui.app import create_app
        from wizard.tui.shared.session import Start

        i18n.set_language(lang)
        app = create_app(start or Start(default_answers()))
        async with app.run_test(size=size) as pilot:
            await main_ready(pilot)
            yield app, pilot, main_of(app)

    return running()


def main_of(app):
    """The wizard's main screen, wherever it sits in the screen stack."""
    from wizard.tui.screens.main import MainScreen

    return next(s for s in app.screen_stack if isinstance(s, MainScreen))


def field_of(main, setting_id: str):
    """The form field of one setting on the main screen."""
    from wizard.tui.widgets.fields import SettingField, field_id

    return main.query_one(f"#{field_id(setting_id)}", SettingField)


def notes_of(field) -> str:
    """The lines under a form field's control, as text ("" when there are none: their widget is mounted the first
    time there is something to say)."""
    from textual.widgets import Static

    return "".join(str(w.render()) for w in field.query_children(".notes").results(Static) if w.display).strip()


async def focused_on(pilot, setting_id: str):
    """Jump to one setting as the "jump to" command does (its group shown, its control focused) and return its field.

    Asserts the focus landed in the field, so a test that starts from a setting fails where the jump fails."""
    main = main_of(pilot.app)
    await main.jump_to(setting_id)
    await pilot.pause()
    field = field_of(main, setting_id)
    assert pilot.app.focused is field.control, (setting_id, pilot.app.focused)
    return field


def written_config(rendered_or_dir) -> tuple[dict, dict | None]:
    """(accelerate YAML, DeepSpeed JSON) without the JSON's path, which names the output folder."""
    import json

    import yaml

    if isinstance(rendered_or_dir, Path):
        y = yaml.safe_load((rendered_or_dir / "accelerate_config.yaml").read_text())
        ds_file = rendered_or_dir / "ds_config.json"
        ds = json.loads(ds_file.read_text()) if ds_file.exists() else None
    else:
        y, ds = rendered_or_dir.accelerate, rendered_or_dir.deepspeed or None
    y = json.loads(json.dumps(y))
    y.get("deepspeed_config", {}).pop("deepspeed_config_file", None)
    return y, ds


def process_alive(rec: dict) -> bool:
    """Whether the process a run record names (pid and start time) is still running (not a zombie)."""
    import psutil

    try:
        p = psutil.Process(rec["pid"])
        return abs(p.create_time() - rec["started"]) < 0.01 and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
