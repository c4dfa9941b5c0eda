"""The local cluster itself, and the batch script of wizard/core/answers/slurm.py run through it with a stand-in for
accelerate (no torch: a second): one launcher per node, ranks 0 and 1, the main address the first node's name."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from wizard.core.answers import load_answers_file
from wizard.core.answers.slurm import batch_script
from wizard.core.presets import preset_paths


def test_two_idle_nodes_and_one_task_per_node(slurm_cluster):
    assert slurm_cluster.run("sinfo", "-h", "-o", "%D %T").stdout.strip() == "2 idle"
    proc = slurm_cluster.run("srun", "--immediate=20", "-N2", "--ntasks-per-node=1", "bash", "-c",
                             'echo "$SLURM_NODEID $SLURM_NNODES"')
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.split("\n")[:2]) == ["0 2", "1 2"]


def _wait_gone(cluster, job: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = cluster.run("scontrol", "show", "job", "-o", job).stdout
        state = info.split("JobState=")[1].split()[0] if "JobState=" in info else ""
        if state and state not in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING"):
            return state
        time.sleep(0.2)
    raise AssertionError(f"job {job} still in the queue")


def test_the_batch_script_starts_one_launcher_per_node_with_slurm_rank_and_address(slurm_cluster, tmp_path):
    a, _ = load_answers_file(preset_paths()["fsdp2-two-node"])
    assert a is not None
    a = a.replace({"launch.num_processes": 2})
    calls = tmp_path / "calls"
    calls.mkdir()
    recorder = tmp_path / "accelerate"
    recorder.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                        f"open(os.path.join({str(calls)!r}, os.environ['SLURM_NODEID']), 'w').write("
                        "json.dumps({'argv': sys.argv[1:], 'nodes': os.environ['SLURM_JOB_NODELIST']}))\n")
    recorder.chmod(0o755)
    script = tmp_path / "job.sbatch"
    script.write_text(batch_script(a, tmp_path / "cfg.yaml", script="train.py", script_args=["--x", "a b"],
                                   launcher=[str(recorder)], cpu=True, log_dir=tmp_path, time="5",
                                   partition="debug"))
    sub = slurm_cluster.run("sbatch", "--parsable", str(script))
    assert sub.returncode == 0, sub.stderr
    job = sub.stdout.strip().split(";")[0]
    assert _wait_gone(slurm_cluster, job) == "COMPLETED", (tmp_path / f"batch-{job}.log").read_text()
    shown = slurm_cluster.run("scontrol", "show", "job", "-o", job).stdout
    assert "Partition=debug" in shown and "TimeLimit=00:05:00" in shown and "NumNodes=2" in shown
    got = {p.name: json.loads(p.read_text()) for p in calls.iterdir()}
    assert sorted(got) == ["0", "1"]
    for rank, rec in got.items():
        argv = rec["argv"]
        first = slurm_cluster.run("scontrol", "show", "hostnames", rec["nodes"]).stdout.split()[0]
        assert argv[argv.index("--machine_rank") + 1] == rank
        assert argv[argv.index("--main_process_ip") + 1] == first
        assert argv[argv.index("--num_machines") + 1] == "2"
        assert argv[-3:] == ["train.py", "--x", "a b"]
    assert len(list(Path(tmp_path).glob("node-*.log"))) == 2


def test_a_job_the_controller_forgot_is_read_from_the_completion_log(slurm_cluster, tmp_path, monkeypatch):
    """Past MinJobAge scontrol no longer knows a job; without accounting, sacct -c still has its end."""
    from wizard.run.slurm import accounting, exit_code_of_job

    sub = slurm_cluster.run("sbatch", "--parsable", "-o", str(tmp_path / "x.log"), "--wrap", "exit 3")
    job = sub.stdout.strip().split(";")[0]
    assert _wait_gone(slurm_cluster, job) == "FAILED"
    for key, value in slurm_cluster.env.items():
        monkeypatch.setenv(key, value)
    info = accounting(job)
    assert info is not None and info["JobState"] == "FAILED" and info["ExitCode"] == "3:0"
    assert exit_code_of_job(info["JobState"], info["ExitCode"]) == 3


def test_a_log_folder_with_blanks_quotes_hash_and_percent_gets_both_logs(slurm_cluster, tmp_path):
    """Issue 22 item 4 on the real sbatch and srun: the #SBATCH --output line is quoted, '%' doubled."""
    a, _ = load_answers_file(preset_paths()["fsdp2-two-node"])
    assert a is not None
    logs = tmp_path / "my \"runs\" #2 at 50%j 'x'"
    logs.mkdir()
    script = logs / "job.sbatch"
    script.write_text(batch_script(a, logs / "cfg.yaml", script="train.py", launcher=["true"], cpu=True,
                                   log_dir=logs, time="5"))
    sub = slurm_cluster.run("sbatch", "--parsable", str(script))
    assert sub.returncode == 0, sub.stderr
    job = sub.stdout.strip().split(";")[0]
    assert _wait_gone(slurm_cluster, job) == "COMPLETED"
    assert (logs / f"batch-{job}.log").is_file()
    assert len(list(logs.glob("node-*.log"))) == 2
