"""Secrets in logs (issue 22, item 6), as attacks: canary secrets in the environment, a launch whose remote side
(pdsh, ssh) is a stand-in on PATH, and a runner that prints the environment the way DeepSpeed logs it. Nothing under
``runs/`` may hold a canary afterwards; the run folder is private; ``.deepspeed_env`` is announced before the launch.
docs/security.md, section i22-secrets, names these tests."""
from __future__ import annotations

import asyncio
import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from wizard.cli import main
from wizard.core.redact import REDACTED
from wizard.run.launcher import LaunchSpec, Output, Run
from wizard.run.records import GITIGNORE, RunDir, read_summary

CANARY_ENV = {
    "HF_TOKEN": "hf_canaryQWERTYUIOPASDFGHJKLZXCVBNM0123",
    "WANDB_API_KEY": "wandb_canary_0123456789abcdef",
    "AWS_SECRET_ACCESS_KEY": "aws/canary+Secret0123456789",
    "MY_DB_PASSWORD": "canary with spaces 42",  # accelerate skips it with a warning that quotes it
}
CANARIES = tuple(CANARY_ENV.values())
MULTINODE = """backend: deepspeed
launch:
  num_machines: 2
  num_processes: 2
  ds_multinode_launcher: {launcher}
  ds_hostfile: out/hostfile
  hosts: [node1, node2]
  main_process_ip: node1
  script: train.py
"""


def _leaks(root: Path) -> list[str]:
    """The files under ``root`` holding any canary."""
    found = []
    for dirpath, _, files in os.walk(root):
        for name in files:
            data = (Path(dirpath) / name).read_bytes().decode("utf-8", "replace")
            if any(c in data for c in CANARIES):
                found.append(str(Path(dirpath) / name))
    return found


@pytest.mark.parametrize("launcher, said", [("pdsh", True), ("slurm", True), ("nossh", True), ("standard", False)])
def test_headless_says_deepspeed_env_will_hold_the_environment(tmp_path, capsys, monkeypatch, launcher, said):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "answers.yaml").write_text(MULTINODE.format(launcher=launcher))
    assert main(["--headless", "answers.yaml", "--out", "out"]) == 0
    out = capsys.readouterr().out
    assert ("note: with the " + launcher + " launcher accelerate launch appends its whole environment" in out) == said
    if said:
        assert ".deepspeed_env in the folder it starts from" in out


STAND_IN_RUNNER = r'''
import json, os, re, sys
# what accelerate does for the runner's launchers, then what DeepSpeed's runner logs (values with other characters
# double-quoted), then a script that prints its environment, a metrics record and an exception quoting a token
with open(".deepspeed_env", "a") as f:
    f.writelines(f"{k}={v}\n" for k, v in os.environ.items() if not re.search(r"[;\n<> ]", k + v))
exports = "".join("export {}={}; ".format(k, v if not re.search(r"[^\w@%+=:,./-]", v) else f'"{v}"')
                  for k, v in os.environ.items())
print(f"[INFO] [runner.py:618:main] cmd = pdsh -S -f 1024 -w node1,node2 {exports} cd /w; python -u train.py",
      flush=True)
print(os.environ, flush=True)
print(json.dumps({"fsdpds": 1, "kind": "step", "step": 1, "loss": 2.5, "token_used": os.environ["HF_TOKEN"]}),
      flush=True)
sys.stdout.write("half a line with " + os.environ["WANDB_API_KEY"][:9])
sys.stdout.flush()
sys.stdout.write(os.environ["WANDB_API_KEY"][9:] + " and its end\n")
raise ValueError("cannot log in with HF_TOKEN=" + os.environ["HF_TOKEN"])
'''


@pytest.mark.e2e
def test_attack_a_runner_printing_the_environment_leaves_no_canary_in_runs(tmp_path):
    """The canaries are only in the child's environment (as when the launch adds them): the run's records, its
    display lines and its diagnosis hold none, and the run folder is private."""
    script = tmp_path / "runner.py"
    script.write_text(textwrap.dedent(STAND_IN_RUNNER))
    env = dict(os.environ, **CANARY_ENV)
    spec = LaunchSpec(argv=[sys.executable, str(script), "--hf_token", CANARY_ENV["HF_TOKEN"]], env=env,
                      cwd=str(tmp_path), run_dir=RunDir(tmp_path / "out"))
    shown: list[str] = []

    async def go():
        run = Run(spec)
        run.subscribe(lambda ev: shown.extend(ev.lines) if isinstance(ev, Output) else None)
        await run.start()
        return await run.wait()

    result = asyncio.run(go())
    assert result.exit_code == 1
    assert CANARY_ENV["HF_TOKEN"] in (tmp_path / ".deepspeed_env").read_text()  # the attack's own file: outside runs/
    assert _leaks(tmp_path / "out") == []
    assert not any(c in line for line in shown for c in CANARIES)
    summary = read_summary(spec.run_dir.path)
    assert any(REDACTED in " ".join(d.get("evidence") or d.get("seen") or []) or REDACTED in str(d)
               for d in summary["diagnosis"])
    log = (spec.run_dir.path / "log.txt").read_text()
    assert f"export HF_TOKEN={REDACTED};" in log and f"half a line with {REDACTED} and its end" in log
    assert stat.S_IMODE(spec.run_dir.path.stat().st_mode) == 0o700


STAND_IN_PDSH = """#!/bin/sh
# stand-in for pdsh: records what it would run on the nodes, runs nothing
printf '%s\\n' "$@" > "{record}"
echo "pdsh stand-in: $*"
"""
STAND_IN_SSH = """#!/bin/sh
# stand-in for ssh (DeepSpeed's reachability check): answers like a node, reaches nothing
echo stand-in-node
"""


@pytest.mark.real
def test_attack_a_pdsh_launch_keeps_no_canary_under_runs(tmp_path, capsys, monkeypatch):
    """A real `--launch` through accelerate and DeepSpeed's pdsh runner, pdsh and ssh stand-ins on PATH: accelerate
    writes the environment to .deepspeed_env and DeepSpeed logs `cmd = pdsh ... export HF_TOKEN=...`; runs/ keeps
    the run's records with no canary, and the launch said where the environment goes before it started."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "pdsh-args.txt"
    for name, text in (("pdsh", STAND_IN_PDSH.format(record=record)), ("ssh", STAND_IN_SSH)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    for k, v in CANARY_ENV.items():
        monkeypatch.setenv(k, v)
    (tmp_path / "answers.yaml").write_text(MULTINODE.format(launcher="pdsh"))
    (tmp_path / "train.py").write_text("print('the remote side never runs this')\n")
    rc = main(["--headless", "answers.yaml", "--out", "out", "--launch", "--allow-no-gpu", "--",
               "--hf_token", CANARY_ENV["HF_TOKEN"]])
    err = capsys.readouterr().err
    assert rc == 0, err
    assert CANARY_ENV["HF_TOKEN"] in record.read_text()  # the secret did travel to the (stand-in) remote side
    assert CANARY_ENV["WANDB_API_KEY"] in (tmp_path / ".deepspeed_env").read_text()
    assert _leaks(tmp_path / "out") == []
    assert not any(c in err for c in CANARIES)
    note = err.index(f"note: with the pdsh launcher accelerate launch appends its whole environment (every variable, "
                     f"tokens and keys included) to {tmp_path / '.deepspeed_env'}")
    assert note < err.index("run completed")
    (run_path,) = (tmp_path / "out" / "runs").glob("2*")
    log = (run_path / "log.txt").read_text()
    assert f"export HF_TOKEN={REDACTED};" in log and f"export WANDB_API_KEY={REDACTED};" in log
    assert stat.S_IMODE(run_path.stat().st_mode) == 0o700
    assert (tmp_path / "out" / "runs" / GITIGNORE).read_text().splitlines()[-1] == "*"


def test_attack_slurm_node_logs_are_redacted_when_the_job_is_summed_up(tmp_path, monkeypatch):
    """The node logs of a SLURM job are written by the job itself, not through the run's writer: they are redacted
    when the wizard sums the job up (what the follower copied into log.txt already was)."""
    from wizard.run.slurm import JOB, finish_summary

    for k, v in CANARY_ENV.items():
        monkeypatch.setenv(k, v)
    run = RunDir(tmp_path / "out")
    run.write_summary({"expected": None})
    node_log = run.path / "node-0-host1.log"
    node_log.write_text(f"[INFO] cmd = pdsh -w host1,host2 export HF_TOKEN={CANARY_ENV['HF_TOKEN']}; cd /w\n"
                        f"{{'WANDB_API_KEY': '{CANARY_ENV['WANDB_API_KEY']}'}}\n"
                        '{"fsdpds": 1, "kind": "step", "step": 1, "loss": 2.5}\n')
    node_log.chmod(0o640)
    (run.path / "batch-7.log").write_text(f"Skipping MY_DB_PASSWORD={CANARY_ENV['MY_DB_PASSWORD']}\n")
    (run.path / JOB).write_text('{"job_id": "7", "state": "COMPLETED", "exit_code": 0}\n')
    section = finish_summary(run.path)
    assert _leaks(tmp_path / "out") == []
    assert section["nodes_report"][0]["metrics"]["last_loss"] == 2.5  # read before, and still readable after
    assert stat.S_IMODE(node_log.stat().st_mode) == 0o640
    assert f"export HF_TOKEN={REDACTED};" in node_log.read_text()
