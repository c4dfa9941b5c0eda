"""Issue 22 item 15 with the real ``accelerate launch``: SIGKILL the wizard of a two-process launch (torchrun puts
each rank in a session of its own) and every process of the run is gone within seconds. The script sleeps: no
torch in the ranks, so the launch is up in a few seconds."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest
import yaml
from helpers import ROOT, process_alive

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")]

SLEEPER = "import time\nprint('rank up', flush=True)\ntime.sleep(600)\n"


def _ranks(procs: list[dict]) -> int:
    """The ranks among the recorded processes (the launcher's command line names the script too)."""
    return sum("sleeper.py" in p["command"] and "accelerate" not in p["command"] for p in procs)


def test_a_sigkilled_wizard_takes_accelerate_launch_and_both_ranks_with_it(tmp_path):
    (tmp_path / "sleeper.py").write_text(SLEEPER)
    answers = tmp_path / "answers.yaml"
    answers.write_text(yaml.safe_dump({
        "schema_version": 1, "backend": "fsdp", "fsdp_version": 2, "sharding": {"strategy": "full"},
        "wrapping": {"policy": "transformer", "layer_classes": ["LlamaDecoderLayer"]},
        "precision": {"mixed_precision": "no"}, "launch": {"script": "sleeper.py", "num_processes": 2}}))
    wizard = subprocess.Popen([sys.executable, "-m", "wizard", "--headless", str(answers), "--out", "out",
                               "--launch", "--allow-no-gpu"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    procs: list[dict] = []
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and wizard.poll() is None:
            found = list((tmp_path / "out" / "runs").glob("*/processes.json"))
            if found:
                try:
                    procs = json.loads(found[0].read_text())["processes"]
                except ValueError:
                    procs = []
                if _ranks(procs) == 2:
                    break
            time.sleep(0.2)
        assert _ranks(procs) == 2, f"the two ranks never started: {procs}"
    finally:
        wizard.send_signal(signal.SIGKILL)
        wizard.wait(10)
    deadline = time.monotonic() + 20
    while any(process_alive(p) for p in procs) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [p for p in procs if process_alive(p)]
    for p in left:  # never leave them to the next test; the assertion below says what happened
        psutil.Process(p["pid"]).kill()
    assert left == [], "still running after the wizard was killed"
