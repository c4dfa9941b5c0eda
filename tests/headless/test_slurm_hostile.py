"""Issue 22 item 4, as attacks: ``--partition``, ``--time`` and the ``--out`` folder of a ``--launch --slurm`` reach
the ``#SBATCH`` lines of the batch script. Stand-ins for sbatch, srun, scontrol and scancel on PATH record what
they were given: sbatch reads the ``#SBATCH`` lines the way the real one does (words split at blanks, quotes kept
together, an unquoted ``#`` ends the line, checked against SLURM 23 on the local cluster of tests/slurm), opens the
batch log where its ``--output`` pattern points and runs the script with bash, so a newline smuggled into a
directive runs as a shell command. The real cluster runs the folder names in tests/slurm/test_slurm_cluster.py.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import ROOT

from wizard.core.answers import answers_from_mapping
from wizard.run.plan import PlanError
from wizard.run.slurm import follow, plan_slurm_launch

FSDP2 = {"schema_version": 1, "backend": "fsdp", "fsdp_version": 2, "sharding": {"strategy": "full"},
         "wrapping": {"policy": "transformer", "layer_classes": ["LlamaDecoderLayer"]},
         "precision": {"mixed_precision": "no"}}

_EXPAND = '''
import re
def expand(pattern):  # sbatch/srun file name patterns: %j job, %t task, %N node, %% a percent sign
    return re.sub(r"%([%jtN])", lambda m: {"%": "%", "j": "1", "t": "0", "N": "node1"}[m.group(1)], pattern)
'''

SBATCH = _EXPAND + '''
import json, os, shlex, subprocess, sys
from pathlib import Path
record = Path(os.environ["STANDIN_RECORD"])
script = Path(sys.argv[-1])
text = script.read_text()
words = []
for line in text.splitlines()[1:]:
    if line.strip() and not line.startswith("#"):
        break  # sbatch reads directives up to the first command
    if line.startswith("#SBATCH"):
        words += shlex.split(line[len("#SBATCH"):], comments=True)
with open(record / "sbatch.jsonl", "a") as f:
    f.write(json.dumps({"argv": sys.argv[1:], "directives": words, "script": text}) + "\\n")
stray = [w for w in words if not w.startswith("-")]
if stray:
    print(f"sbatch: error: unrecognized option {stray[0]!r}", file=sys.stderr)
    sys.exit(1)
out = next((w.split("=", 1)[1] for w in words if w.startswith("--output=")), "slurm-%j.log")
env = dict(os.environ, SLURM_JOB_ID="1", SLURM_JOB_NODELIST="node1", SLURM_NNODES="2")
with open(expand(out), "wb") as log:  # where the batch step's output goes
    subprocess.run(["bash", str(script)], env=env, stdout=log, stderr=subprocess.STDOUT, timeout=60)
print("1")
'''

SRUN = _EXPAND + '''
import json, os, sys
from pathlib import Path
with open(Path(os.environ["STANDIN_RECORD"]) / "srun.jsonl", "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\\n")
out = next(a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--output="))
Path(expand(out)).write_text("hello from the node\\n")
'''

SCONTROL = '''
import sys
if sys.argv[1:3] == ["show", "hostnames"]:
    print("node1")
else:
    print("JobId=1 JobState=COMPLETED ExitCode=0:0 NodeList=node1")
'''


@pytest.fixture
def standins(tmp_path, monkeypatch):
    """A PATH whose sbatch, srun, scontrol and scancel are recorders; returns the folder of their records."""
    bin_dir, record = tmp_path / "standin-bin", tmp_path / "standin-record"
    bin_dir.mkdir()
    record.mkdir()
    for name, body in (("sbatch", SBATCH), ("srun", SRUN), ("scontrol", SCONTROL), ("scancel", "")):
        (bin_dir / name).write_text(f"#!{sys.executable}\n{body}")
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("STANDIN_RECORD", str(record))
    return record


def _submissions(record: Path) -> list[dict]:
    path = record / "sbatch.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []


def _answers():
    a, _ = answers_from_mapping(FSDP2)
    assert a is not None
    return a


def _wizard(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "wizard", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=180, env=env)


# ------------------------------------------------------------------------------- --partition and --time: refused
ATTACKS = [
    ("--partition", "gpu\ntouch {canary}"),                      # a newline: a shell command in the batch script
    ("--partition", "gpu --export=ALL,LD_PRELOAD={canary}"),     # a blank: one more sbatch option
    ("--partition", "gpu #"),
    ("--partition", "-x"),
    ("--time", "10\ntouch {canary}"),
    ("--time", "10 --dependency=afterok:1"),
    ("--time", "10;touch {canary}"),
]


@pytest.mark.parametrize(("flag", "value"), ATTACKS, ids=[f"{f}-{i}" for i, (f, _) in enumerate(ATTACKS)])
def test_a_partition_or_time_not_in_slurms_shape_is_refused_before_anything_is_submitted(flag, value, standins,
                                                                                          tmp_path):
    canary = tmp_path / "CANARY"
    answers = tmp_path / "answers.yaml"
    answers.write_text(yaml.safe_dump(FSDP2))
    out = tmp_path / "out"
    proc = _wizard("--headless", str(answers), "--out", str(out), "--launch", "--rehearse", "--slurm",
                   f"{flag}={value.format(canary=canary)}", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert f"{flag} " in proc.stderr and "not a SLURM" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert _submissions(standins) == [] and not canary.exists() and not (out / "runs").exists()


@pytest.mark.parametrize(("partition", "time"), [("gpu", "5"), ("gpu,debug", "01:30:00"), ("a_b.c-d", "1-12:00"),
                                                  ("debug", "UNLIMITED")])
def test_slurms_own_shapes_are_written_as_directives(partition, time, standins, tmp_path):
    plan = plan_slurm_launch(_answers(), tmp_path / "out", rehearse=True, partition=partition, time_limit=time)
    assert follow(plan.run_dir.path, out=io.BytesIO()) == 0
    [sub] = _submissions(standins)
    assert f"--partition={partition}" in sub["directives"] and f"--time={time}" in sub["directives"]


def test_plan_refuses_what_the_command_line_refuses(tmp_path):
    """The TUI plans with the flags it was started with: the same check, before any run folder exists."""
    with pytest.raises(PlanError, match="--time"):
        plan_slurm_launch(_answers(), tmp_path / "out", rehearse=True, time_limit="5\nid")
    assert not (tmp_path / "out" / "runs").exists()


# ------------------------------------------------------------------------------- the --out folder
FOLDERS = ["with space", "fifty%jpercent", "hash#mark", 'double"quote', "single'quote", " lead and trail "]


@pytest.mark.parametrize("name", FOLDERS)
def test_an_out_folder_with_blanks_quotes_hash_or_percent_gets_every_log(name, standins, tmp_path):
    """sbatch opens the batch log, srun each node's, where the wizard's follower reads them."""
    plan = plan_slurm_launch(_answers(), tmp_path / name / "out", rehearse=True)
    run = plan.run_dir.path
    seen = io.BytesIO()
    assert follow(run, out=seen) == 0
    [sub] = _submissions(standins)
    assert sub["argv"] == ["--parsable", str(run / "job.sbatch")]
    outputs = [w for w in sub["directives"] if w.startswith("--output=")]
    assert outputs == [f"--output={str(run).replace('%', '%%')}/batch-%j.log"]
    assert [w for w in sub["directives"] if not w.startswith("-")] == []
    assert (run / "batch-1.log").is_file() and (run / "node-0-node1.log").is_file()
    assert b"[node0:node1] hello from the node" in seen.getvalue()


def test_the_command_line_with_a_blank_in_out_submits_and_follows_the_job(standins, tmp_path):
    answers = tmp_path / "answers.yaml"
    answers.write_text(yaml.safe_dump(FSDP2))
    out = tmp_path / "my runs" / "x"
    proc = _wizard("--headless", str(answers), "--out", str(out), "--launch", "--rehearse", "--slurm",
                   "--partition", "debug", "--time", "5", cwd=tmp_path)
    [sub] = _submissions(standins)
    [run] = [p for p in (out / "runs").iterdir() if p.is_dir()]
    assert "sbatch refused" not in proc.stderr, proc.stderr
    assert f"--output={run}/batch-%j.log" in sub["directives"]
    assert "hello from the node" in (run / "log.txt").read_text()


@pytest.mark.parametrize("name", ["new\nline;touch {canary};", "back\\slash", "tab\there", "bell\x07"])
def test_an_out_folder_sbatch_cannot_take_is_refused_with_the_reason(name, standins, tmp_path):
    canary = tmp_path / "CANARY"
    answers = tmp_path / "answers.yaml"
    answers.write_text(yaml.safe_dump(FSDP2))
    out = tmp_path / name.format(canary=canary) / "out"
    proc = _wizard("--headless", str(answers), "--out", str(out), "--launch", "--rehearse", "--slurm",
                   cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "choose an --out folder without it" in proc.stderr
    assert _submissions(standins) == [] and not canary.exists() and not (out / "runs").exists()


def test_the_review_screen_says_why_there_is_no_batch_script_for_such_a_folder(tmp_path):
    from wizard.tui.screens.review import _slurm_script

    shown = _slurm_script(_answers(), str(tmp_path / "back\\slash" / "accelerate_config.yaml"))
    assert shown.startswith("# No SLURM batch script for this folder:") and "a backslash" in shown
    assert "#SBATCH" not in shown
    fine = _slurm_script(_answers(), str(tmp_path / "with space" / "accelerate_config.yaml"))
    assert f'#SBATCH --output="{tmp_path}/with space/batch-%j.log"' in fine
