"""The run screen offers consolidation once a finished run has a checkpoint, and runs it on ``c``.

A fake trainer (a real subprocess through the real launcher) writes what the bundled script writes after
``save_state``: a checkpoint folder and the run record's ``checkpoint.json`` (here a whole ``model.safetensors``,
the format consolidate copies, so the test needs no training run; the merges themselves are tested on real
runs in tests/e2e/test_consolidate.py).
"""
from __future__ import annotations

import json
import os
import sys
import textwrap

import pytest
from helpers import until

from wizard.run.launcher import LaunchSpec
from wizard.run.records import RunDir
from wizard.tui.app import create_app
from wizard.tui.screens.confirm import ConfirmScreen
from wizard.tui.screens.run import RunScreen

SAVER = textwrap.dedent('''
    import json, os, struct
    run_dir = os.environ["FSDPDS_RUN_DIR"]
    ckpt = os.path.join(run_dir, "checkpoint", "step-000002")
    os.makedirs(ckpt)
    header = json.dumps({"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}).encode()
    with open(os.path.join(ckpt, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + struct.pack("<6f", *range(6)))
    rec = {"format": "model", "step": 2, "path": ckpt}
    with open(os.path.join(run_dir, "checkpoint.json"), "w") as f:
        json.dump({"latest": ckpt, **rec}, f)
    print(json.dumps({"fsdpds": 1, "kind": "step", "step": 0, "loss": 1.0}), flush=True)
    print(json.dumps({"fsdpds": 1, "kind": "end", "status": "completed", "checkpoint": ckpt}), flush=True)
''')
NO_SAVE = 'import json; print(json.dumps({"fsdpds": 1, "kind": "end", "status": "completed"}), flush=True)\n'


def _spec(tmp_path, script: str) -> LaunchSpec:
    path = tmp_path / "saver.py"
    path.write_text(script)
    run_dir = RunDir(tmp_path / "out")
    return LaunchSpec(argv=[sys.executable, str(path)], cwd=str(tmp_path), run_dir=run_dir,
                      env=dict(os.environ, PYTHONUNBUFFERED="1", FSDPDS_RUN_DIR=str(run_dir.path)))


def _messages(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


@pytest.mark.asyncio
async def test_finished_run_with_a_checkpoint_offers_and_runs_consolidate(tmp_path):
    spec = _spec(tmp_path, SAVER)
    app = create_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = RunScreen(spec, heading="Saver")
        assert screen.check_action("consolidate", ()) is False  # nothing to consolidate before the end
        await pilot.app.push_screen(screen)
        await until(pilot, lambda: screen.result is not None, 60)
        await pilot.pause(0.2)
        assert screen.result.status == "completed"
        assert screen.check_action("consolidate", ()) is True
        offer = [m for m in _messages(app) if "fsdpds-wizard consolidate" in m]
        assert offer and str(spec.run_dir.path) in offer[0] and "Press c" in offer[0]
        await pilot.press("c")
        out = spec.run_dir.path / "consolidated" / "model.safetensors"
        await until(pilot, lambda: any(m.startswith("Wrote ") for m in _messages(app)), 60)
        done = [m for m in _messages(app) if m.startswith("Wrote ")][0]
        assert "6 parameters" in done and "copied" in done
        assert out.read_bytes() == (spec.run_dir.path / "checkpoint" / "step-000002" / "model.safetensors").read_bytes()
        # the screen keeps what was written once the toast is gone (issue 21, item 18): the status and the log
        await pilot.pause(0.2)
        assert done in str(screen.query_one("#run-status").render())
        assert f"[wizard] {done}" in screen.log_tail.lines
        # again: the file exists; the TUI asks whether to replace it (no command-line flag to suggest)
        await until(pilot, lambda: screen.check_action("consolidate", ()) is True, 60)
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), 10)
        assert app.screen.title_text == "Consolidate again?" and "--" not in app.screen.message
        await pilot.press("n")
        await until(pilot, lambda: app.screen is screen, 10)
        assert sum(m.startswith("Wrote ") for m in _messages(app)) == 1
        out.write_bytes(b"stale")
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), 10)
        await pilot.press("y")
        await until(pilot, lambda: sum(m.startswith("Wrote ") for m in _messages(app)) == 2, 60)
        assert out.read_bytes() == (spec.run_dir.path / "checkpoint" / "step-000002" / "model.safetensors").read_bytes()
        assert not [m for m in _messages(app) if "--force" in m or "--out" in m]
    assert json.loads((spec.run_dir.path / "checkpoint.json").read_text())["step"] == 2


@pytest.mark.asyncio
async def test_footer_offers_stop_only_while_the_run_is_live(tmp_path):
    """Issue 21, item 18: after the run ended the footer still offered Stop (ctrl+c)."""
    spec = _spec(tmp_path, "import time, json\ntime.sleep(4)\n" + NO_SAVE)  # long enough on a loaded machine
    app = create_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = RunScreen(spec, heading="Short")
        await pilot.app.push_screen(screen)
        await until(pilot, lambda: screen.run is not None and screen.state == "running", 60)
        await until(pilot, lambda: "stop" in _footer_actions(app) or screen.result is not None, 10)
        assert "stop" in _footer_actions(app) and screen.result is None
        await until(pilot, lambda: screen.result is not None, 60)
        await pilot.pause(0.2)
        assert "stop" not in _footer_actions(app) and "back" in _footer_actions(app)


def _footer_actions(app) -> set[str]:
    return {b.binding.action for b in app.active_bindings.values() if b.binding.show and b.enabled}


@pytest.mark.asyncio
async def test_run_without_a_checkpoint_hides_the_key(tmp_path):
    spec = _spec(tmp_path, NO_SAVE)
    app = create_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = RunScreen(spec, heading="No save")
        await pilot.app.push_screen(screen)
        await until(pilot, lambda: screen.result is not None, 60)
        await pilot.pause(0.2)
        assert screen.check_action("consolidate", ()) is False
        assert not [m for m in _messages(app) if "consolidate" in m]
        await pilot.press("c")
        await pilot.pause(0.3)
        assert not (spec.run_dir.path / "consolidated").exists()
