"""The TUI's writers (the review screen's ctrl+s, the launch flow's "Write and launch") against a link planted at
NAME.bak (issue 22, items 5 and 13): the planted link is never written through, the backup takes the next free
name and the status says which. docs/security.md (section i22-files) names these tests."""
from __future__ import annotations

import os

import pytest
from helpers import press

from wizard.core.answers import default_answers
from wizard.tui.app import create_app
from wizard.tui.screens.confirm import ConfirmScreen
from wizard.tui.shared.session import Start

SIZE = (80, 24)


@pytest.fixture
def planted(tmp_path):
    """An output folder with a hand-written config, and links to someone else's files at its backup names."""
    victim = tmp_path / "elsewhere" / "victim.txt"
    victim.parent.mkdir()
    victim.write_text("the victim's own words\n")
    out = tmp_path / "cfg"
    out.mkdir()
    (out / "accelerate_config.yaml").write_text("old: true\n")
    (out / "accelerate_config.yaml.bak").symlink_to(victim)
    os.link(victim, out / "accelerate_config.yaml.1.bak")
    return out, victim


@pytest.mark.asyncio
async def test_review_write_never_writes_through_a_planted_backup(planted):
    out, victim = planted
    app = create_app(out=str(out))
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "ctrl+r", "ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)
        await press(pilot, "y")
        assert "distributed_type: FSDP" in (out / "accelerate_config.yaml").read_text()
        assert victim.read_text() == "the victim's own words\n"
        assert (out / "accelerate_config.yaml.2.bak").read_text() == "old: true\n"
        assert "kept accelerate_config.yaml.2.bak" in app.screen.status


@pytest.mark.asyncio
async def test_launch_flow_never_writes_through_a_planted_backup(planted, monkeypatch):
    from wizard.tui.screens import flows

    out, victim = planted
    opened = []
    monkeypatch.setattr(flows, "plan_and_open",
                        lambda app, answers, out, *, rehearse, script_args=None: opened.append((out, rehearse)))
    from wizard.run.plan import no_gpu_problem

    app = create_app(Start(default_answers()), out=str(out))
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "ctrl+l")  # at once, before the full check after the first paint: the files are written
        if no_gpu_problem(default_answers()):  # this machine has no GPU: launching anyway is asked first
            assert isinstance(app.screen, ConfirmScreen) and "No GPU" in app.screen.title_text
            await press(pilot, "y")
        assert isinstance(app.screen, ConfirmScreen) and "Write the files" in app.screen.title_text
        await press(pilot, "y")
        assert opened == [(str(out), False)]
        assert "distributed_type: FSDP" in (out / "accelerate_config.yaml").read_text()
        assert victim.read_text() == "the victim's own words\n"
        assert (out / "accelerate_config.yaml.2.bak").read_text() == "old: true\n"
