"""Multi-node outputs: the per-node accelerate launch commands, DeepSpeed's hostfile (exact text), generate writing
the hostfile under the no-silent-overwrite rule, and what --headless prints."""
from __future__ import annotations

import pytest
from helpers import TEMPLATES

from wizard.core.answers import answers_from_mapping, multinode, parse_answers_text
from wizard.core.answers.generate import generate
from wizard.core.files import WriteRefused, write_files


def A(doc):
    a, findings = answers_from_mapping(doc)
    assert a is not None, findings
    return a


def preset(name):
    a, findings = parse_answers_text((TEMPLATES / f"{name}.yaml").read_text())
    assert a is not None, findings
    return a


PDSH = {"backend": "deepspeed", "sharding": {"strategy": "full"},
        "launch": {"num_processes": 16, "num_machines": 2, "ds_multinode_launcher": "pdsh",
                   "ds_hostfile": "/etc/ds/hostfile"}}


def test_fsdp_two_node_preset_gives_one_command_per_machine_with_its_rank():
    a = preset("fsdp2-two-node")
    cmds = multinode.node_commands(a, "out/accelerate_config.yaml")
    assert [c.machine for c in cmds] == [0, 1]
    assert [c.where for c in cmds] == ["machine 0 (main)", "machine 1"]
    assert cmds[1].text == ("accelerate launch --config_file out/accelerate_config.yaml --machine_rank 1 "
                            "--main_process_ip 10.0.0.1 --main_process_port 29500 train.py")
    assert multinode.commands_text(a, "c.yaml", script="run.py", script_args=["--lr", "1e-4"]) == (
        "# on machine 0 (main):\n"
        "accelerate launch --config_file c.yaml --machine_rank 0 --main_process_ip 10.0.0.1 "
        "--main_process_port 29500 run.py --lr 1e-4\n"
        "# on machine 1:\n"
        "accelerate launch --config_file c.yaml --machine_rank 1 --main_process_ip 10.0.0.1 "
        "--main_process_port 29500 run.py --lr 1e-4\n")
    assert multinode.hostfile_text(a) is None  # FSDP reads no hostfile


def test_deepspeed_standard_launcher_is_per_machine_and_reads_no_hostfile():
    a = preset("zero3-two-node")
    assert [c.machine for c in multinode.node_commands(a, "c.yaml")] == [0, 1]
    assert multinode.hostfile_text(a) is None
    assert multinode.HOSTFILE not in generate(a, None).files


def test_one_machine_has_no_node_commands():
    a = preset("fsdp2-full-shard-bf16")
    assert multinode.node_commands(a, "c.yaml") == []
    assert multinode.commands_text(a, "c.yaml") == ""


def test_missing_main_address_is_a_marked_placeholder():
    a = A({"backend": "fsdp", "launch": {"num_processes": 4, "num_machines": 2, "main_process_port": 6000}})
    text = multinode.commands_text(a, "c.yaml")
    assert text.splitlines()[0] == ("# MAIN-MACHINE-ADDRESS: replace it with machine 0's address "
                                    "(launch.main_process_ip)")
    assert "--main_process_ip MAIN-MACHINE-ADDRESS --main_process_port 6000 train.py" in text


def test_pdsh_is_one_command_on_the_first_host_and_a_placeholder_hostfile():
    a = A(PDSH)
    cmds = multinode.node_commands(a, "c.yaml")
    assert len(cmds) == 1 and cmds[0].machine is None
    assert cmds[0].text == "accelerate launch --config_file c.yaml train.py"  # machine_rank is not passed on
    assert multinode.hostfile_text(a) == (
        "# DeepSpeed hostfile (fsdpds-wizard): one line per machine, 'hostname slots=GPUs used on it'.\n"
        "# The names below are placeholders: replace each CHANGE-ME-host-N with a machine's hostname (the first "
        "line is the machine you launch from).\n"
        "CHANGE-ME-host-0 slots=8\n"
        "CHANGE-ME-host-1 slots=8\n")
    assert multinode.hostfile_text(a, ["gpu-a", "gpu-b"]).splitlines()[1:] == ["gpu-a slots=8", "gpu-b slots=8"]
    with pytest.raises(ValueError):
        multinode.hostfile_text(a, ["only-one"])


def test_nossh_runs_the_runner_on_every_machine_with_its_rank_and_a_hostfile():
    a = A({**PDSH, "launch": {**PDSH["launch"], "ds_multinode_launcher": "nossh", "main_process_ip": "10.0.0.1"}})
    assert [c.machine for c in multinode.node_commands(a, "c.yaml")] == [0, 1]
    assert multinode.needs_hostfile(a)


def test_the_hostfile_parses_with_deepspeeds_own_parser():
    from deepspeed.launcher.runner import _parse_hostfile

    text = multinode.hostfile_text(A(PDSH))
    assert dict(_parse_hostfile(text.splitlines())) == {"CHANGE-ME-host-0": 8, "CHANGE-ME-host-1": 8}


def test_a_rank_on_the_command_line_overrides_the_configs_machine_rank(tmp_path):
    """accelerate 1.15 copies a config value only onto an unset argument: --machine_rank 1 wins over the file's 0."""
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser

    a = preset("fsdp2-two-node")
    cfg = tmp_path / "accelerate_config.yaml"
    cfg.write_text(generate(a, tmp_path).files["accelerate_config.yaml"])
    argv = list(multinode.node_commands(a, str(cfg))[1].argv[2:])
    args, _, _ = _validate_launch_command(launch_command_parser().parse_args(argv))
    assert (args.machine_rank, args.num_machines, args.main_process_ip) == (1, 2, "10.0.0.1")


def test_generate_writes_the_hostfile_and_never_replaces_an_edited_one(tmp_path):
    gen = generate(A(PDSH), tmp_path)
    assert gen.ok, [f.render() for f in gen.findings]
    assert gen.files[multinode.HOSTFILE] == multinode.hostfile_text(A(PDSH))
    files = {tmp_path / n: t for n, t in gen.files.items()}
    write_files(files, force=False)
    (tmp_path / "hostfile").write_text("gpu-a slots=8\ngpu-b slots=8\n")  # the user filled in the names
    with pytest.raises(WriteRefused):
        write_files(files, force=False)
    assert (tmp_path / "hostfile").read_text() == "gpu-a slots=8\ngpu-b slots=8\n"
    write_files(files, force=True)
    assert (tmp_path / "hostfile.bak").read_text() == "gpu-a slots=8\ngpu-b slots=8\n"


def test_headless_prints_the_per_node_commands(tmp_path, capsys):
    from wizard.cli import main

    out = tmp_path / "out"
    assert main(["--headless", str(TEMPLATES / "fsdp2-two-node.yaml"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    cfg = out.resolve() / "accelerate_config.yaml"
    assert ("with 2 machines, run one command on each:\n"
            "  # on machine 0 (main):\n"
            f"  accelerate launch --config_file {cfg} --machine_rank 0 --main_process_ip 10.0.0.1 "
            "--main_process_port 29500 train.py\n"
            "  # on machine 1:\n"
            f"  accelerate launch --config_file {cfg} --machine_rank 1 --main_process_ip 10.0.0.1 "
            "--main_process_port 29500 train.py\n") in printed


def test_headless_pdsh_writes_the_hostfile_and_says_so(tmp_path, capsys):
    import yaml

    from wizard.cli import main

    answers = tmp_path / "a.yaml"
    answers.write_text(yaml.safe_dump({"schema_version": 1, **PDSH}))
    assert main(["--headless", str(answers), "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "run it once on the first host of the hostfile" in printed
    assert f"wrote the DeepSpeed hostfile {tmp_path / 'out' / 'hostfile'} with placeholder host names" in printed
    assert "(/etc/ds/hostfile)" in printed
    assert (tmp_path / "out" / "hostfile").read_text().endswith("CHANGE-ME-host-1 slots=8\n")


def test_headless_one_machine_prints_no_node_commands(tmp_path, capsys):
    from wizard.cli import main

    assert main(["--headless", str(TEMPLATES / "zero2.yaml"), "--out", str(tmp_path)]) == 0
    assert "run one command on each" not in capsys.readouterr().out


def test_host_names_fill_the_hostfile_the_commands_and_the_main_address():
    """launch.hosts: the hostfile lists them (DeepSpeed's own parser reads them in order), each per-machine command
    says its host, and machine 0's name is the main address when main_process_ip is empty."""
    from deepspeed.launcher.runner import _parse_hostfile

    pdsh = A({**PDSH, "launch": {**PDSH["launch"], "hosts": ["gpu-a", "gpu-b"]}})
    text = multinode.hostfile_text(pdsh)
    assert "CHANGE-ME" not in text and "placeholders" not in text
    assert list(_parse_hostfile(text.splitlines()).items()) == [("gpu-a", 8), ("gpu-b", 8)]
    assert multinode.node_commands(pdsh, "c.yaml")[0].where.startswith("gpu-a, the first host")
    fsdp = A({"backend": "fsdp", "launch": {"num_processes": 4, "num_machines": 2, "hosts": ["n0", "n1"]}})
    cmds = multinode.node_commands(fsdp, "c.yaml")
    assert [c.where for c in cmds] == ["n0, machine 0 (main)", "n1, machine 1"]
    assert all("--main_process_ip n0 " in c.text for c in cmds)
    assert "MAIN-MACHINE-ADDRESS" not in multinode.commands_text(fsdp, "c.yaml")
    given = A({"backend": "fsdp", "launch": {"num_processes": 4, "num_machines": 2, "hosts": ["n0", "n1"],
                                             "main_process_ip": "10.0.0.5"}})
    assert all("--main_process_ip 10.0.0.5 " in c.text for c in multinode.node_commands(given, "c.yaml"))
    wrong = A({**PDSH, "launch": {**PDSH["launch"], "hosts": ["only-one"]}})  # hosts-count reports it
    assert "CHANGE-ME-host-1" in multinode.hostfile_text(wrong)


def test_generate_writes_the_named_hostfile(tmp_path):
    a = A({**PDSH, "launch": {**PDSH["launch"], "hosts": ["gpu-a", "gpu-b"]}})
    files = generate(a, None).files
    assert files[multinode.HOSTFILE].splitlines()[1:] == ["gpu-a slots=8", "gpu-b slots=8"]
