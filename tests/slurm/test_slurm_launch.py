"""``--launch --slurm`` through a real two-node SLURM cluster on this host (tests/slurm/conftest.py).

The bundled script as a two-node job: 2 nodes x 1 process, world size 2 on loopback, DeepSpeed ZeRO-2 over gloo on
CPU (the CPU rehearsal, ``--rehearse --slurm``), and FSDP2 through the rehearsal layer; the checkpoint the two nodes
saved consolidates (``fsdpds-wizard consolidate``) to the trained weights. Also: a stop half-way leaves no job and
no process, and a failing job's exit code becomes the wizard's.
"""
from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from helpers import ROOT
from slurm_support import ATTEMPTS, FSDP2, ZERO2, our_processes, port_taken, run_job

pytestmark = pytest.mark.e2e

TIMEOUT = 300
def _answers(folder: Path, body: dict = ZERO2) -> Path:
    path = folder / "answers.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def _argv(answers: Path, out: Path, *script_args: str) -> list[str]:
    return [sys.executable, "-m", "wizard", "--headless", str(answers), "--out", str(out), "--launch", "--rehearse",
            "--slurm", "--", *script_args]


def _run_dir(out: Path) -> Path:
    runs = sorted(p for p in (out / "runs").iterdir() if p.is_dir())
    assert len(runs) == 1
    return runs[0]


@pytest.mark.parametrize("case", ["zero2", "fsdp2"])
def test_two_node_job_trains_and_records_both_nodes(case, slurm_cluster, request, tmp_path):
    """ZeRO-2 over gloo, and FSDP2 through the rehearsal's CPU compatibility layer, as two SLURM nodes."""
    if case == "zero2":
        request.getfixturevalue("deepspeed_ops")
    out = tmp_path / "out"
    t0 = time.monotonic()
    answers = _answers(tmp_path, ZERO2 if case == "zero2" else FSDP2)
    ref = tmp_path / "reference.safetensors"
    proc = run_job(_argv(answers, out, "--steps", "4", "--save-reference", str(ref)), out, cwd=ROOT,
                   env=slurm_cluster.env, capture_output=True, text=True, timeout=TIMEOUT)
    took = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr[-4000:]
    run = _run_dir(out)
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] == "completed" and summary["exit_code"] == 0
    slurm = summary["slurm"]
    assert slurm["job_id"] and slurm["state"] == "COMPLETED" and slurm["exit_code_raw"] == "0:0"
    assert (run / "job.sbatch").read_text().count("#SBATCH --nodes=2") == 1
    # both nodes' logs in the record, one rank each, both in one world of two
    assert sorted(slurm["node_logs"]) == sorted(p.name for p in run.glob("node-*.log")) and len(slurm["node_logs"]) == 2
    reports = slurm["nodes_report"]
    assert sorted(r["ranks"] for r in reports) == [[0], [1]]
    for r in reports:
        eff = r["effective_setup"]
        assert eff["world_size"] == 2
        assert eff["zero_stage"] == 2 if case == "zero2" else (eff["fsdp_version"] == 2 and eff["compat_layer"])
        assert r["checklist_ok"] is True, r["checklist"]
    assert summary["effective_setup"]["world_size"] == 2 and summary["checklist_ok"] is True
    m = summary["metrics"]
    assert m["count"] == 4 and m["last_loss"] < m["first_loss"]
    assert "node0:" in (run / "log.txt").read_text() and "node1:" in (run / "log.txt").read_text()
    assert "SLURM job" in proc.stderr and "node0:" in proc.stderr
    assert slurm_cluster.queue() == ""
    # the checkpoint both nodes saved into the run record consolidates to the trained weights
    record = json.loads((run / "checkpoint.json").read_text())
    assert record["world_size"] == 2 and record["step"] == 4
    cons = subprocess.run([sys.executable, "-m", "wizard", "consolidate", str(run), "--format", "json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert cons.returncode == 0, cons.stderr[-3000:]
    from safetensors.torch import load_file

    got, want = load_file(json.loads(cons.stdout)["out"]), load_file(str(ref))
    import torch

    assert sorted(got) == sorted(want) and all(torch.equal(got[k], want[k]) for k in want)
    print(f"two-node {case} job through SLURM: {took:.1f} s")


def test_stop_half_way_cancels_the_job_and_leaves_nothing(slurm_cluster, deepspeed_ops, tmp_path):
    out = tmp_path / "out"
    for attempt in range(1, ATTEMPTS + 1):
        proc = subprocess.Popen(_argv(_answers(tmp_path), out, "--steps", "400", "--step-sleep", "0.5"), cwd=ROOT,
                                env=slurm_cluster.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + TIMEOUT
            metrics = None
            while time.monotonic() < deadline and proc.poll() is None:
                runs = list((out / "runs").glob("*/metrics.jsonl")) if (out / "runs").is_dir() else []
                if runs and runs[0].read_text().strip():
                    metrics = runs[0]
                    break
                time.sleep(0.5)
            if metrics is None and proc.poll() is not None and attempt < ATTEMPTS:
                summary = json.loads(_run_dir(out).joinpath("summary.json").read_text())
                if port_taken(summary.get("diagnosis")):  # the one failure started again, on another port
                    shutil.rmtree(out)
                    continue
            assert metrics is not None, "no step reported before the deadline"
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=120)
            break
        finally:
            if proc.poll() is None:
                proc.kill()
    run = metrics.parent
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] == "stopped", err[-3000:]
    assert proc.returncode != 0 and proc.returncode == summary["exit_code"]
    job = json.loads((run / "slurm_job.json").read_text())
    assert job["cancelled"] is True and job["state"] == "CANCELLED"
    assert 0 < summary["stop"]["after_step"] < 400
    assert slurm_cluster.queue() == ""
    assert our_processes(slurm_cluster.conf) == []


def test_a_failing_job_exit_code_becomes_ours(slurm_cluster, deepspeed_ops, tmp_path):
    out = tmp_path / "out"
    proc = run_job(_argv(_answers(tmp_path), out, "--steps", "6", "--crash-rank", "1", "--crash-step", "1"), out,
                   cwd=ROOT, env=slurm_cluster.env, capture_output=True, text=True, timeout=TIMEOUT)
    run = _run_dir(out)
    summary = json.loads((run / "summary.json").read_text())
    slurm = summary["slurm"]
    assert slurm["state"] == "FAILED", proc.stderr[-3000:]
    assert proc.returncode != 0 and proc.returncode == slurm["exit_code"] == summary["exit_code"]
    assert summary["status"] == "failed" and summary["diagnosis"]
    assert slurm_cluster.queue() == ""
    assert our_processes(slurm_cluster.conf) == []
