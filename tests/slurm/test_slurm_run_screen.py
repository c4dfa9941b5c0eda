"""The TUI's run screen (unchanged) showing a SLURM job: the plan of --launch --slurm is a LaunchSpec like a local
launch, so the screen shows the nodes' progress, and its stop (ctrl+c) cancels the job: nothing is left."""
from __future__ import annotations

import pytest
from helpers import until
from slurm_support import ATTEMPTS, FSDP2, our_processes, port_taken

from wizard.core.answers import answers_from_mapping
from wizard.run.slurm import plan_slurm_launch, read_job
from wizard.tui.app import create_app
from wizard.tui.screens.run import RunScreen

pytestmark = pytest.mark.e2e


async def _follow_and_stop(plan) -> RunScreen:
    """The run screen on ``plan``'s job until its first step, then ctrl+c; returns the screen (its result set). A job
    that failed only because the first node found the main port taken returns at once."""
    app = create_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = RunScreen(plan.spec, heading="SLURM rehearsal")
        await pilot.app.push_screen(screen)
        await until(pilot, lambda: (screen.progress is not None and (screen.progress.step or 0) >= 1)
                    or screen.result is not None, 240, "the first step from the nodes")
        if screen.result is not None and port_taken(screen.result.diagnosis):
            return screen
        assert any("[node0:" in ln for ln in screen.log_tail.lines)
        await pilot.press("ctrl+c")
        await until(pilot, lambda: screen.result is not None, 120, "the stop")
        return screen


@pytest.mark.asyncio
async def test_run_screen_follows_a_two_node_job_and_its_stop_cancels_it(slurm_cluster, tmp_path):
    a, _ = answers_from_mapping(FSDP2)
    assert a is not None
    for attempt in range(1, ATTEMPTS + 1):  # again, on another port, only when the first node found it taken
        plan = plan_slurm_launch(a, tmp_path / f"out{attempt}", rehearse=True,
                                 script_args=["--steps", "400", "--step-sleep", "0.5"], base_env=slurm_cluster.env)
        screen = await _follow_and_stop(plan)
        if not port_taken(screen.result.diagnosis):
            break
    assert screen.result.status == "stopped"
    job = read_job(plan.run_dir.path)
    assert job["cancelled"] is True and job["state"] == "CANCELLED"
    assert slurm_cluster.queue() == ""
    assert our_processes(slurm_cluster.conf) == []
