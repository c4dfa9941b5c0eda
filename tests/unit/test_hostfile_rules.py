"""The DeepSpeed hostfile against the config (wizard/core/lint/launch.py): accelerate passes the runner --num_gpus
and never --num_nodes, so every host the hostfile lists is started (claim ds-hostfile-every-host-used); the runner
refuses bad lines (ds-hostfile-bad-lines-raise). The loader reads the hostfile as the runner opens it, from the
current folder; not found there, the check says it was not checked (never an error: it lives on the launch host)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from wizard.cli import main
from wizard.core.findings import ERROR, INFO
from wizard.core.lint import lint
from wizard.core.lint.configfile import load_config_files
from wizard.core.lint.launch import parse_hostfile

TWO = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "DEEPSPEED", "num_processes": 16,
       "num_machines": 2, "machine_rank": 0, "main_process_ip": "10.0.0.1", "main_process_port": 29500,
       "deepspeed_config": {"zero_stage": 2, "deepspeed_multinode_launcher": "pdsh", "deepspeed_hostfile": "hostfile"}}


def rules(cfg, hostfile):
    return {f.rule: f for f in lint(cfg, None, gpus_per_node=8, hostfile=hostfile)}


def test_parse_follows_the_runner():
    assert parse_hostfile(["# c", "", "a slots=8", "b slots=4 # two"]) == ([("a", 8), ("b", 4)], None)
    assert parse_hostfile(["a slots=8", "a slots=8"])[1] == "the host a is listed twice"
    assert parse_hostfile(["a"])[1] == "the line 'a' is not 'hostname slots=N'"
    assert parse_hostfile(["# only"])[1] == "it lists no host"


def test_three_hosts_for_two_machines_is_an_error_naming_every_key():
    got = rules(TWO, ["n1 slots=8", "n2 slots=8", "n3 slots=8"])
    f = got["ds-hostfile-host-count"]
    assert f.severity == ERROR
    assert set(f.keys) == {"deepspeed_config.deepspeed_hostfile", "num_machines", "num_processes"}
    assert "3 hosts" in f.message and "3 x 8 = 24 processes, not num_processes 16" in f.message
    assert "ds-hostfile-host-count" not in rules(TWO, ["n1 slots=8", "n2 slots=8"])


def test_a_hostfile_the_runner_refuses_is_an_error():
    f = rules(TWO, ["n1 slots=8", "n1 slots=8"])["ds-hostfile-invalid"]
    assert f.severity == ERROR and "listed twice" in f.message


@pytest.mark.parametrize("change", [
    {"num_machines": 1, "num_processes": 8},  # one machine: no runner, no hostfile read
    {"deepspeed_config": {**TWO["deepspeed_config"], "deepspeed_multinode_launcher": "standard"}},  # torchrun
    {"deepspeed_config": {**TWO["deepspeed_config"], "deepspeed_inclusion_filter": "n1@n2"}},  # the filter chooses
    {"distributed_type": "FSDP"},
])
def test_no_finding_where_the_hostfile_does_not_decide(change):
    got = rules({**TWO, **change}, ["n1 slots=8", "n2 slots=8", "n3 slots=8"])
    assert not {"ds-hostfile-host-count", "ds-hostfile-invalid", "ds-hostfile-not-checked"} & set(got)


def test_not_found_here_is_only_a_note():
    f = rules(TWO, None)["ds-hostfile-not-checked"]
    assert f.severity == INFO and "not compared" in f.message


def test_the_loader_reads_it_from_the_current_folder_as_the_runner_does(tmp_path, monkeypatch, capsys):
    cfg = tmp_path / "accelerate.yaml"
    cfg.write_text(yaml.safe_dump(TWO))
    launch = tmp_path / "launch"
    launch.mkdir()
    (launch / "hostfile").write_text("n1 slots=8\nn2 slots=8\nn3 slots=8\n")
    monkeypatch.chdir(launch)
    loaded = load_config_files(cfg)
    assert loaded.hostfile_path == Path.cwd() / "hostfile" and len(loaded.hostfile or []) == 3
    assert main(["check", str(cfg), "--gpus-per-node", "8", "--format", "json"]) == 2  # errors: exit 2
    found = {f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert "ds-hostfile-host-count" in found
    monkeypatch.chdir(tmp_path)  # the YAML's folder: no hostfile here, so it is not checked
    assert load_config_files(cfg).hostfile is None
    main(["check", str(cfg), "--gpus-per-node", "8", "--format", "json"])
    found = {f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert "ds-hostfile-not-checked" in found and "ds-hostfile-host-count" not in found
