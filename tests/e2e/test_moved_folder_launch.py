"""A generated folder moved elsewhere still launches (issue 13): the DeepSpeed JSON's path is relative to the
launch folder, the answers replay to the same bytes there, and the wizard's --launch starts accelerate from the
folder that path is relative to, so accelerate (which opens it from its working folder) finds the JSON."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
import yaml
from e2e_support import CASES, RUN_TIMEOUT, only_run_dir, write_answers

pytestmark = pytest.mark.e2e


def test_moved_folder_replays_identically_and_launches_there(tmp_path, deepspeed_ops):
    repo = tmp_path / "repo"
    repo.mkdir()
    body = {**CASES["zero2"], "deepspeed": {"config_file": "yes"}}  # ZeRO-2 through a DeepSpeed JSON, fp32
    answers = write_answers(repo, "answers_in", body)
    wizard = [sys.executable, "-m", "wizard"]
    made = subprocess.run(wizard + ["--headless", answers.name, "--out", "out"], cwd=repo, capture_output=True,
                          text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    cfg = yaml.safe_load((repo / "out" / "accelerate_config.yaml").read_text())
    assert cfg["deepspeed_config"]["deepspeed_config_file"] == "out/ds_config.json"
    written = {p.name: p.read_bytes() for p in (repo / "out").iterdir()}

    moved = tmp_path / "another" / "place"
    moved.parent.mkdir()
    shutil.move(str(repo), str(moved))
    run = subprocess.run(wizard + ["--headless", "out/answers.yaml", "--out", "out", "--launch", "--rehearse",
                                   "--", "--steps", "2"], cwd=moved, capture_output=True, text=True,
                         timeout=RUN_TIMEOUT)
    assert run.returncode == 0, f"stdout:\n{run.stdout}\nstderr:\n{run.stderr[-4000:]}"
    assert run.stdout.count("unchanged ") == 3, run.stdout  # the answers replay to the same bytes after the move
    assert {p.name: p.read_bytes() for p in (moved / "out").iterdir() if p.is_file()} == written
    assert f"launch from {moved}: " in run.stderr

    run_dir = only_run_dir(moved / "out")
    used = yaml.safe_load((run_dir / "accelerate_config.yaml").read_text())
    ref = used["deepspeed_config"]["deepspeed_config_file"]
    assert ref == f"out/runs/{run_dir.name}/ds_config.json"  # relative: found only from the launch folder
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "completed" and summary["cwd"] == str(moved)
    assert summary["effective_setup"]["zero_stage"] == 2 and summary["checklist_ok"] is True
