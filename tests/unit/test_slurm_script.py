"""The SLURM batch script (wizard/core/answers/slurm.py): its text, its syntax, and its quoting run through bash with
stand-ins for srun/scontrol that print what the node's launcher would receive (the real cluster runs it in
tests/slurm/)."""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.core.answers import load_answers_file
from wizard.core.answers.multinode import runner_starts_every_machine
from wizard.core.answers.render import processes_per_node
from wizard.core.answers.slurm import batch_script
from wizard.core.presets import preset_paths


def _preset(name: str, **changes):
    a, _ = load_answers_file(preset_paths()[name])
    assert a is not None
    return a.replace(changes) if changes else a


def test_fsdp2_two_nodes_one_launcher_per_node_with_rank_and_address_from_slurm():
    a = _preset("fsdp2-two-node")
    text = batch_script(a, "/shared/run/accelerate_config.yaml", script="train.py", script_args=["--epochs", "1"])
    assert a["launch.num_machines"] == 2
    assert "#SBATCH --nodes=2\n" in text and "#SBATCH --ntasks-per-node=1\n" in text
    assert f"#SBATCH --gpus-per-node={processes_per_node(a)}\n" in text
    assert 'MAIN_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | sed -n 1p)' in text
    assert f"MAIN_PORT={a['launch.main_process_port'] or 29500}\n" in text
    assert '--machine_rank "$SLURM_NODEID"' in text and '--main_process_ip "$MAIN_ADDR"' in text
    assert "srun --nodes=2 --ntasks-per-node=1 --kill-on-bad-exit=1" in text
    assert "--output=/shared/run/node-%t-%N.log" in text and '#SBATCH --output="/shared/run/batch-%j.log"' in text
    assert "--partition" not in text and "--time" not in text and "HOSTFILE" not in text


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_a_long_node_list_does_not_fail_the_job_under_pipefail(tmp_path):
    """The script runs with pipefail; taking the first host must read scontrol's whole output, or scontrol dies of
    SIGPIPE (exit 141) and the job fails before any launcher starts (seen intermittently with two hosts)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _stub(bin_dir, "scontrol", 'for i in $(seq 1 200000); do echo "node$i"; done\n')
    _stub(bin_dir, "srun", 'exit 0\n')
    text = batch_script(_preset("fsdp2-two-node"), tmp_path / "cfg.yaml", launcher=["true"], log_dir=tmp_path)
    job = tmp_path / "job.sbatch"
    job.write_text(text + 'echo "first=$MAIN_ADDR"\n')
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", SLURM_JOB_NODELIST="node[1-200000]",
               SLURM_NNODES="2", SLURM_JOB_ID="8")
    proc = subprocess.run(["bash", str(job)], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "first=node1\n" in proc.stdout


def test_partition_time_cpu_and_env():
    a = _preset("zero3-two-node")
    text = batch_script(a, "cfg.yaml", partition="gpu", time="01:30:00", cpu=True, env={"OMP_NUM_THREADS": "1"},
                        log_dir="/logs")
    assert "#SBATCH --partition=gpu\n" in text and "#SBATCH --time=01:30:00\n" in text
    assert "gpus-per-node" not in text
    assert "export OMP_NUM_THREADS=1\n" in text
    assert not runner_starts_every_machine(a) and "\nsrun " in text


@pytest.mark.parametrize("launcher", ["pdsh", "openmpi", "mvapich", "mpich", "slurm"])
def test_runner_launchers_start_once_from_the_first_node_with_a_hostfile(launcher):
    a = _preset("zero3-two-node", **{"launch.ds_multinode_launcher": launcher})
    text = batch_script(a, "/r/cfg.yaml", log_dir="/r")
    assert runner_starts_every_machine(a)
    assert "\nsrun " not in text  # the DeepSpeed runner starts the other nodes itself
    assert 'scontrol show hostnames "$SLURM_JOB_NODELIST" | sed "s/$/ slots=8/" > "$HOSTFILE"' in text
    assert '--deepspeed_hostfile "$HOSTFILE"' in text and "--machine_rank 0" in text


def test_nossh_runs_per_node_and_still_writes_the_hostfile():
    a = _preset("zero3-two-node", **{"launch.ds_multinode_launcher": "nossh"})
    text = batch_script(a, "/r/cfg.yaml")
    assert not runner_starts_every_machine(a) and "\nsrun " in text and '--deepspeed_hostfile "$HOSTFILE"' in text


def test_c10d_rendezvous_goes_on_the_command_line():
    a = _preset("fsdp2-two-node", **{"launch.rdzv_backend": "c10d"})
    assert "--rdzv_backend c10d" in batch_script(a, "cfg.yaml")


def _stub(folder: Path, name: str, body: str) -> None:
    p = folder / name
    p.write_text("#!/bin/bash\n" + body)
    p.chmod(p.stat().st_mode | stat.S_IEXEC)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_script_runs_and_each_node_gets_its_rank_and_every_argument_intact(tmp_path):
    """Stand-ins: scontrol lists two hosts, srun runs the command once per node with SLURM_NODEID set, the
    'accelerate' records its argv. A script argument with spaces and quotes must arrive as one token."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _stub(bin_dir, "scontrol", 'printf "nodeA\\nnodeB\\n"\n')
    _stub(bin_dir, "srun", 'cmd=(); for a in "$@"; do case "$a" in --*) ;; *) cmd+=("$a");; esac; done\n'
                           'for r in 0 1; do SLURM_NODEID=$r "${cmd[@]}" || exit $?; done\n')
    recorder = tmp_path / "accelerate"
    recorder.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                        f"open({str(tmp_path / 'calls.jsonl')!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n")
    recorder.chmod(0o755)
    a = _preset("fsdp2-two-node")
    odd = "it's a \"quoted\" $HOME value"
    text = batch_script(a, tmp_path / "cfg yaml.yaml", script="my train.py", script_args=["--name", odd],
                        launcher=[str(recorder)], log_dir=tmp_path)
    job = tmp_path / "job.sbatch"
    job.write_text(text)
    assert subprocess.run(["bash", "-n", str(job)]).returncode == 0
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", SLURM_JOB_NODELIST="nodeA,nodeB",
               SLURM_NNODES="2", SLURM_JOB_ID="7")
    proc = subprocess.run(["bash", str(job)], env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert len(calls) == 2
    for rank, argv in enumerate(calls):
        assert argv[:3] == ["launch", "--config_file", str(tmp_path / "cfg yaml.yaml")]
        assert argv[argv.index("--machine_rank") + 1] == str(rank)
        assert argv[argv.index("--main_process_ip") + 1] == "nodeA"
        assert argv[argv.index("--num_machines") + 1] == "2"
        assert argv[-3:] == ["my train.py", "--name", odd]


def test_under_slurm_the_jobs_nodes_replace_the_answers_host_names():
    """launch.hosts names machines; under sbatch the job's node list decides, and the launch says so."""
    from wizard.run.slurm import _slurm_answers

    a = _preset("zero3-two-node", **{"launch.ds_multinode_launcher": "pdsh", "launch.hosts": ["gpu-a", "gpu-b"]})
    used, notes = _slurm_answers(False)(a, [])
    assert used["launch.hosts"] == []
    (note,) = [n for n in notes if n.setting == "launch.hosts"]
    assert note.original == ["gpu-a", "gpu-b"] and "node list" in note.why
    plain, none = _slurm_answers(False)(_preset("zero3-two-node"), [])
    assert not [n for n in none if n.setting == "launch.hosts"]
