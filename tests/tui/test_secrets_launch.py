"""The TUI's launch confirmation says that ``.deepspeed_env`` will hold the environment before a multi-machine launch
through DeepSpeed's runner (issue 22, item 6); docs/security.md, section i22-secrets, names this test."""
from __future__ import annotations

import pytest
from helpers import main_ready

from wizard.core.answers.model import parse_answers_text
from wizard.tui.app import create_app
from wizard.tui.screens.confirm import ConfirmScreen
from wizard.tui.screens.main import MainScreen
from wizard.tui.shared.session import Start

SIZE = (80, 24)
PDSH = """backend: deepspeed
launch:
  num_machines: 2
  num_processes: 2
  ds_multinode_launcher: pdsh
  ds_hostfile: cfg/hostfile
  hosts: [node1, node2]
  main_process_ip: node1
"""
SAID = "accelerate launch appends its whole environment (every variable, tokens and keys included) to "


@pytest.mark.asyncio
async def test_launch_confirmation_says_deepspeed_env_holds_the_environment(tmp_path, monkeypatch):
    from wizard.run import plan
    from wizard.tui.screens import flows

    monkeypatch.chdir(tmp_path)
    opened = []
    monkeypatch.setattr(flows, "plan_and_open",
                        lambda app, answers, out, *, rehearse, script_args=None: opened.append((out, rehearse)))
    monkeypatch.setattr(plan, "detect_gpus_per_node", lambda: 8)  # a machine with GPUs: no question about them
    answers, findings = parse_answers_text(PDSH)
    assert not [f for f in findings if f.severity == "error"]
    out = tmp_path / "cfg"
    app = create_app(Start(answers), out=str(out))
    async with app.run_test(size=SIZE) as pilot:
        await main_ready(pilot)
        await pilot.press("ctrl+l")  # the files are not written yet: one question says both
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and app.screen.title_text == "Write the files and launch?"
        assert SAID + str(tmp_path / ".deepspeed_env") in app.screen.message
        await pilot.press("y")
        await pilot.pause()
        assert opened == [(str(out), False)]
        await pilot.press("ctrl+l")  # written and current: still asked, because of the environment file
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and app.screen.title_text == "Launch?"
        assert SAID in app.screen.message
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and len(opened) == 1
        await pilot.press("ctrl+l")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert opened == [(str(out), False), (str(out), False)]
