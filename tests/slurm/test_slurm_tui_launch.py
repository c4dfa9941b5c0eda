"""The wizard started with --slurm: its rehearsal (F5) goes through the local SLURM cluster as a two-node job,
like `--headless ... --launch --rehearse --slurm`: the run screen says so, follows both nodes, and reports the job
and each node's checklist when it ends; nothing is left in the queue."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import until
from slurm_support import ATTEMPTS, FSDP2, our_processes, port_taken

from wizard.core.answers import answers_from_mapping
from wizard.tui.app import create_app
from wizard.tui.screens.run import RunScreen
from wizard.tui.shared.session import Start

pytestmark = pytest.mark.e2e


async def _rehearse(a, out: Path) -> RunScreen:
    """F5 in a wizard started with --slurm; returns the run screen once the job ended (the checks of a job that did
    not fail on a taken main port made inside, while the app runs)."""
    app = create_app(Start(a, source="test"), out=str(out), slurm={"partition": None, "time": "5"})
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: getattr(app.screen, "ready", False), 30, "the main screen's full check")
        await pilot.press("f5")
        await until(pilot, lambda: isinstance(app.screen, RunScreen), 30, "the run screen")
        screen = app.screen
        assert screen.heading.endswith("through SLURM")
        assert any(n.startswith("SLURM batch job: ") for n in screen.notes)
        await until(pilot, lambda: screen.result is not None, 300, "the job's end")
        if port_taken(screen.result.diagnosis):
            return screen
        assert screen.result.status == "completed", screen.log_tail.lines[-20:]
        assert screen.slurm_report and "COMPLETED" in screen.slurm_report[0]
        assert sum(line.startswith("  node") for line in screen.slurm_report) == 2
        # the ranks run on the SLURM nodes, not under this process: the memory shown is what each rank reported
        memory = screen._memory_text()
        assert memory.startswith("peak memory (reported by the ranks): r0 ") and ", r1 " in memory, memory
        return screen


@pytest.mark.asyncio
async def test_the_wizards_rehearsal_goes_through_slurm_with_slurm(slurm_cluster, tmp_path, monkeypatch):
    for key in ("SLURM_CONF", "SLURM_LOCAL_PORT"):
        monkeypatch.setenv(key, slurm_cluster.env[key])
    a, _ = answers_from_mapping(FSDP2)
    assert a is not None
    for attempt in range(1, ATTEMPTS + 1):  # again, on another port, only when the first node found it taken
        screen = await _rehearse(a, tmp_path / f"out{attempt}")
        if not port_taken(screen.result.diagnosis):
            break
    assert screen.result.status == "completed"
    run = Path(screen.run_dir)
    slurm = json.loads((run / "summary.json").read_text())["slurm"]
    assert slurm["state"] == "COMPLETED" and len(slurm["nodes_report"]) == 2
    assert "#SBATCH --time=5" in (run / "job.sbatch").read_text()
    assert slurm_cluster.queue() == ""
    assert our_processes(slurm_cluster.conf) == []
