"""The SLURM run's pieces that need no cluster: exit codes from ExitCode=N:S, the CLI's option checks, the plan
(batch script in the run record, the follower as the command), and what happens where sbatch is missing."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import ROOT

from wizard.core.answers import answers_from_mapping
from wizard.run.slurm import JOB, MAIN_IP_FROM_SLURM, SCRIPT, exit_code_of_job, follow, plan_slurm_launch


@pytest.mark.parametrize(("state", "raw", "code"), [
    ("COMPLETED", "0:0", 0), ("FAILED", "1:0", 1), ("FAILED", "3:0", 3), ("CANCELLED", "0:15", 143),
    ("TIMEOUT", "0:0", 1), ("NODE_FAIL", "", 1), ("FAILED", "0:9", 137),
])
def test_job_exit_code_becomes_ours(state, raw, code):
    assert exit_code_of_job(state, raw) == code


def _wizard(*args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wizard", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.mark.parametrize(("args", "says"), [
    (["--headless", "zero2", "--out", "X", "--slurm"], "--slurm needs --launch"),
    (["--headless", "zero2", "--out", "X", "--launch", "--partition", "gpu"], "--partition and --time go with"),
    (["--headless", "zero2", "--out", "X", "--launch", "--time", "10"], "--partition and --time go with"),
    (["--partition", "gpu"], "--partition and --time go with --slurm"),  # the wizard, too
])
def test_slurm_options_are_refused_where_they_would_be_ignored(args, says, tmp_path):
    proc = _wizard(*[str(tmp_path / a) if a == "X" else a for a in args])
    assert proc.returncode == 2 and says in proc.stderr


def test_the_wizard_with_slurm_but_without_sbatch_says_so_before_it_opens():
    env = dict(os.environ, PATH=str(Path(sys.executable).parent))
    proc = _wizard("--slurm", env=env)
    assert proc.returncode == 2, proc.stderr
    assert "--slurm needs SLURM's client tools" in proc.stderr


def test_slurm_without_sbatch_is_refused_before_anything_runs(tmp_path):
    env = dict(os.environ, PATH=str(Path(sys.executable).parent))  # the venv's tools only: no SLURM there
    out = tmp_path / "out"
    proc = _wizard("--headless", "zero2", "--out", str(out), "--launch", "--rehearse", "--slurm", env=env)
    assert proc.returncode == 2, proc.stderr
    assert "--slurm needs SLURM's client tools (sbatch, scontrol, scancel not found" in proc.stderr
    assert not (out / "runs").exists()


def test_plan_writes_the_batch_script_and_runs_the_follower(tmp_path):
    a, _ = answers_from_mapping({"schema_version": 1, "backend": "deepspeed",
                                 "sharding": {"strategy": "grads_optimizer"}, "precision": {"mixed_precision": "no"}})
    assert a is not None
    plan = plan_slurm_launch(a, tmp_path, rehearse=True, script_args=["--steps", "3"], partition="debug",
                             time_limit="5")
    run = plan.run_dir.path
    text = (run / SCRIPT).read_text()
    assert "#SBATCH --nodes=2" in text and "#SBATCH --partition=debug" in text and "#SBATCH --time=5" in text
    assert "gpus-per-node" not in text and "export DS_ACCELERATOR=cpu" in text
    assert plan.spec.argv[1:] == ["-m", "wizard.run.slurm", "follow", str(run)]
    cfg = yaml.safe_load((run / "accelerate_config.yaml").read_text())
    assert cfg["num_machines"] == 2 and cfg["num_processes"] == 2 and cfg["main_process_ip"] == MAIN_IP_FROM_SLURM
    assert plan.world_size == 2
    rows = {adj.setting: adj for adj in plan.adjustments}
    assert rows["launch.num_machines"].original == 1 and rows["launch.num_machines"].rehearsal == 2


def test_follower_without_sbatch_says_so_and_exits_127(tmp_path, monkeypatch, capsysbinary):
    (tmp_path / SCRIPT).write_text("#!/bin/bash\ntrue\n")
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert follow(tmp_path) == 127
    assert b"sbatch not found" in capsysbinary.readouterr().out
    assert json.loads((tmp_path / JOB).read_text())["state"] == "NOT_SUBMITTED"


def test_follower_reports_sbatch_refusing_the_job(tmp_path, capsysbinary):
    (tmp_path / SCRIPT).write_text("#!/bin/bash\ntrue\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "sbatch").write_text("#!/bin/bash\necho 'sbatch: error: invalid partition specified: gpu' >&2\nexit 1\n")
    (bin_dir / "sbatch").chmod(0o755)
    old = os.environ["PATH"]
    os.environ["PATH"] = f"{bin_dir}:{old}"
    try:
        assert follow(tmp_path) == 1
    finally:
        os.environ["PATH"] = old
    assert b"invalid partition specified" in capsysbinary.readouterr().out
    assert Path(tmp_path / JOB).is_file()
