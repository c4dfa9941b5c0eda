"""Bad input files and command lines: exit 2 with the one shared wording, in `check` and `--headless`."""
import json
import os
import threading

import pytest
from helpers import ANSWERS_MAPPING_FIX, BINARY_FIX, CONFIG_MAPPING_FIX, ROOT, alias_bomb, deep_yaml

from wizard.cli import main

# What is wrong, word for word; the same words in check, --headless and the wizard's start and open dialogs
# (the fixes the TUI tests check too are in helpers).
DEEP = "nested more than 64 levels deep (line 65)"
BINARY = "not UTF-8 text (byte 0 is 0x89)"
LIST = "the top level is a list, not a mapping of keys"
SELF_CHECK = "a config is at most a few levels deep and a few kilobytes long — is this the right file?"
CONFIG_NOT_FOUND_FIX = ("check the path; `accelerate config` writes one "
                        "(by default ~/.cache/huggingface/accelerate/default_config.yaml)")

CASES = {  # name: (bytes, what, fix for an answers file, fix for an accelerate config)
    "deep": (deep_yaml().encode(), DEEP, SELF_CHECK, SELF_CHECK),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), BINARY, BINARY_FIX, BINARY_FIX),
    "list": (b"- backend: fsdp\n- backend: deepspeed\n", LIST, ANSWERS_MAPPING_FIX, CONFIG_MAPPING_FIX),
    "bomb": (alias_bomb().encode(), "YAML aliases (*name) expand to more than 100,000 values (line 6)",
             "write the values out instead of repeating anchors (&name / *name); a config needs a few dozen values",
             "write the values out instead of repeating anchors (&name / *name); a config needs a few dozen values"),
    "huge": (b"# " + b"x" * (16 * 1024) + b"\n", "larger than 16 KiB", SELF_CHECK, SELF_CHECK),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_headless_says_what_is_wrong_in_one_line(tmp_path, capsys, name):
    data, what, fix, _ = CASES[name]
    p = tmp_path / f"{name}.yaml"
    p.write_bytes(data)
    out = tmp_path / "out"
    assert main(["--headless", str(p), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"fsdpds-wizard: {p}: {what}; {fix}\n"
    assert not out.exists()


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_says_the_same_as_a_finding(tmp_path, capsys, name):
    data, what, _, fix = CASES[name]
    p = tmp_path / f"{name}.yaml"
    p.write_bytes(data)
    assert main(["check", str(p)]) == 2
    out = capsys.readouterr().out
    assert out.splitlines()[:2] == [f"ERROR [config-unreadable] config: {p}: {what}", f"    fix: {fix}"]
    assert main(["check", str(p), "--format", "json"]) == 2
    [f] = json.loads(capsys.readouterr().out)["findings"]
    assert (f["rule"], f["message"], f["fix"]) == ("config-unreadable", f"{p}: {what}", fix)


def test_not_found_is_worded_one_way(tmp_path, capsys):
    missing = tmp_path / "missing.yaml"
    assert main(["check", str(missing)]) == 2
    assert capsys.readouterr().out.splitlines()[:2] == [f"ERROR [config-unreadable] config: {missing}: not found",
                                                        f"    fix: {CONFIG_NOT_FOUND_FIX}"]
    assert main(["--headless", str(missing), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fsdpds-wizard: {missing}: not found; check the path, or give a preset name: ")
    assert main(["--headless", "zero-2", "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == ("fsdpds-wizard: zero-2: not found; did you mean the preset 'zero2'? "
                                       "(`fsdpds-wizard presets` lists them)\n")


def test_a_folder_is_not_a_file(tmp_path, capsys):
    assert main(["--headless", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == (f"fsdpds-wizard: {tmp_path}: a folder, not a file; "
                                       "give the path of the answers YAML itself\n")
    assert main(["check", str(tmp_path)]) == 2
    assert f"config: {tmp_path}: a folder, not a file" in capsys.readouterr().out


def test_binary_file_never_shows_the_codec_error(tmp_path, capsys):
    p = tmp_path / "x.yaml"
    p.write_bytes(b"backend: fsdp\n\xff\xfe")
    assert main(["--headless", str(p), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "byte 14 is 0xff" in err and "codec" not in err and "UnicodeDecodeError" not in err
    assert main(["check", str(p)]) == 2
    out = capsys.readouterr().out
    assert "byte 14 is 0xff" in out and "codec" not in out


def test_list_yaml_hint_names_commands_not_a_source_path(tmp_path, capsys):
    p = tmp_path / "l.yaml"
    p.write_text("- 1\n")
    assert main(["--headless", str(p), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "templates/" not in err and "fsdpds-wizard --headless PRESET_NAME" in err


def test_empty_answers_mean_the_defaults_with_a_warning(tmp_path, capsys):
    p = tmp_path / "empty.yaml"
    p.write_text("# nothing yet\n")
    out = tmp_path / "out"
    assert main(["--headless", str(p), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"WARNING [answers-empty] answers: {p} is empty (or only comments): every setting takes its default" in err
    assert (out / "accelerate_config.yaml").exists()


def test_empty_accelerate_config_is_an_error(tmp_path, capsys):
    p = tmp_path / "empty.yaml"
    p.write_text("")
    assert main(["check", str(p)]) == 2
    assert f"config: {p}: the file is empty (no keys)" in capsys.readouterr().out


def test_unknown_answers_key_has_did_you_mean(tmp_path, capsys):
    p = tmp_path / "a.yaml"
    p.write_text("backend: fsdp\nsharding:\n  stratgy: full\n")
    assert main(["--headless", str(p), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert ("ERROR [answers-unknown-key] sharding.stratgy: unknown key 'sharding.stratgy'\n"
            "    fix: did you mean 'strategy'?") in err


# ------------------------------------------------------------------------------ command lines
HEADLESS_DOES = "--headless ANSWERS_OR_PRESET writes the configs from an answers file or a preset without a screen"


@pytest.mark.parametrize("flag,value,does,instead", [
    ("--config", "acc.yaml", "--config FILE opens the wizard (with a screen) on an existing accelerate config, "
     "imported and linted", "without a screen, lint it with: fsdpds-wizard check FILE"),
    ("--answers", "a.yaml", "--answers FILE opens the wizard (with a screen) on an answers file",
     "without a screen, give the file to --headless: fsdpds-wizard --headless FILE --out DIR"),
    ("--preset", "zero2", "--preset NAME opens the wizard (with a screen) on a preset",
     "without a screen, give the name to --headless: fsdpds-wizard --headless NAME --out DIR"),
])
def test_headless_refuses_a_start_flag_it_would_ignore(tmp_path, capsys, flag, value, does, instead):
    out = tmp_path / "out"
    assert main(["--headless", "zero2", flag, value, "--out", str(out)]) == 2
    assert capsys.readouterr().err == (f"fsdpds-wizard: --headless and {flag} do not go together: {HEADLESS_DOES}; "
                                       f"{does}. Use one of them ({instead})\n")
    assert not out.exists()


def test_headless_without_its_value_explains(capsys):
    assert main(["--headless", "--config", "acc.yaml"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fsdpds-wizard: --headless needs the answers file or preset name right after it: "
                          "fsdpds-wizard --headless ANSWERS.yaml|PRESET_NAME --out DIR")
    assert "It does not go together with --config" in err and "fsdpds-wizard check FILE" in err
    assert "expected one argument" not in err
    assert main(["--headless"]) == 2
    assert "needs the answers file or preset name" in capsys.readouterr().err
    assert main(["--out"]) == 2
    assert capsys.readouterr().err == "fsdpds-wizard: --out needs the folder the configs are written to: --out DIR\n"


def test_script_arguments_without_launch_are_refused(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["--headless", "zero2", "--out", str(out), "--", "--steps", "3"]) == 2
    assert "script arguments after -- go with --launch" in capsys.readouterr().err
    assert not out.exists()


def test_a_closed_pipe_is_not_an_internal_error(tmp_path):
    """`fsdpds-wizard explain | head -1`: the reader goes away; no 'internal error', no traceback."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "wizard", "explain"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=tmp_path,
                            env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    proc.stdout.readline()
    proc.stdout.close()  # like head -1
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) in (0, 141), err
    assert "internal error" not in err and "Traceback" not in err and "Exception ignored" not in err


def test_a_huge_process_count_is_refused_and_nothing_written(tmp_path, capsys):
    """Issue 7: `num_processes` with 2,770 digits was accepted and written."""
    p = tmp_path / "a.yaml"
    p.write_text("backend: fsdp\nlaunch:\n  num_processes: " + "9" * 2770 + "\n")
    out = tmp_path / "o"
    assert main(["--headless", str(p), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert ("ERROR [answers-bad-value] launch.num_processes: 'launch.num_processes' is a 2,770-digit number (int); "
            "too large: expected an integer from 1 to 1,048,576") in err
    assert len(err) < 2000 and not (out / "accelerate_config.yaml").exists()


# ------------------------------------------------------------------------------ numbers (issue 21, item 1)
LLAMA = ["--model", "llama-3.1-8b"]
RECOMMEND = ["recommend", *LLAMA, "--gpus-per-node", "8"]
NUMBER_CASES = [  # (argv, the message after "fsdpds-wizard: ")
    (["estimate", "zero2", *LLAMA, "--gpu-memory", "1e300"],
     "--gpu-memory 1e300: too large; give the memory of one GPU in GiB, above 0 and at most 16,384 (e.g. 80)"),
    (["estimate", "zero2", *LLAMA, "--gpu-memory", "inf"],
     "--gpu-memory inf: too large; give the memory of one GPU in GiB, above 0 and at most 16,384 (e.g. 80)"),
    (["estimate", "zero2", *LLAMA, "--gpu-memory", "nan"],
     "--gpu-memory nan: not a number; give the memory of one GPU in GiB, above 0 and at most 16,384 (e.g. 80)"),
    (["estimate", "zero2", *LLAMA, "--gpu-memory", "0"],
     "--gpu-memory 0: too small; give the memory of one GPU in GiB, above 0 and at most 16,384 (e.g. 80)"),
    (["estimate", "zero2", "--params", "1e30"],
     "--params 1e30: too large; give the parameter count, from 1 to 1,000,000,000,000,000 "
     "(8030261248, 8e9, 8B or 350M)"),
    (["estimate", "zero2", "--params", "7x"],
     "--params 7x: not a number; give the parameter count, from 1 to 1,000,000,000,000,000 "
     "(8030261248, 8e9, 8B or 350M)"),
    (["estimate", "zero2", "--params", "8e9", "--largest-layer", "1e30"],
     "--largest-layer 1e30: too large; give the parameters of the largest layer, from 0 to "
     "1,000,000,000,000,000 (500M, 1e9)"),
    (["estimate", "zero2", *LLAMA, "--seq", "100000000000"],
     "--seq 100000000000: too large; give the sequence length in tokens, from 1 to 134,217,728 (e.g. 2048)"),
    (["estimate", "zero2", *LLAMA, "--seq", "9" * 5000],
     "--seq 999999999999... (5,000 characters): too large; give the sequence length in tokens, from 1 to "
     "134,217,728 (e.g. 2048)"),
    (["estimate", "zero2", *LLAMA, "--batch", "99999999999999"],
     "--batch 99999999999999: too large; give the micro batch per GPU in samples, from 1 to 1,000,000"),
    (["estimate", "zero2", *LLAMA, "--batch", "2.5"],
     "--batch 2.5: not a whole number; give the micro batch per GPU in samples, from 1 to 1,000,000"),
    (["estimate", "zero2", *LLAMA, "--gpu-memory", "80", "--headroom", "1"],
     "--headroom 1: too large; give the fraction of GPU memory to keep free, from 0 up to (not including) 1 "
     "(e.g. 0.1)"),
    (["estimate", "zero2", *LLAMA, "--gradient-accumulation-steps", "0"],
     "--gradient-accumulation-steps 0: too small; give the gradient accumulation steps, from 1 to 100,000"),
    ([*RECOMMEND, "--gpu-memory", "1e300"],
     "--gpu-memory 1e300: too large; give the memory of one GPU in GiB, above 0 and at most 16,384 (e.g. 80)"),
    ([*RECOMMEND, "--gpu-memory", "80", "--host-memory", "inf"],
     "--host-memory inf: too large; give the CPU memory of one machine in GiB, above 0 and at most 1,048,576 "
     "(e.g. 512)"),
    (["recommend", *LLAMA, "--gpus-per-node", "99999999999", "--gpu-memory", "80"],
     "--gpus-per-node 99999999999: too large; give the GPUs (processes) on each machine, from 1 to 1,048,576 "
     "(e.g. 8)"),
    ([*RECOMMEND, "--gpu-memory", "80", "--nodes", "0"],
     "--nodes 0: too small; give the number of machines (nodes), from 1 to 65,536"),
    (["check", "x.json", "--num-processes", "99999999999999999999"],
     "--num-processes 99999999999999999999: too large; give the processes (GPUs) in total, from 1 to 1,048,576"),
    (["check", "x.yaml", "--gpus-per-node", "-1"],
     "--gpus-per-node -1: too small; give the GPUs (processes) on each machine, from 1 to 1,048,576 (e.g. 8)"),
    (["explain", "--width", "99999999999999"],
     "--width 99999999999999: too large; give the text width in columns, from 50 to 1,000"),
    (["--gpu-memory", "1e300"],
     "--gpu-memory 1e300: too large; give the memory of one GPU in GiB, above 0 and at most 16,384 (e.g. 80)"),
]


@pytest.mark.parametrize("argv,message", NUMBER_CASES, ids=[f"{a[0]} {' '.join(a[-2:])[:30]}" for a, _ in NUMBER_CASES])
def test_every_number_has_one_bound_and_one_message(tmp_path, monkeypatch, capsys, argv, message):
    """Issue 21: `--gpu-memory 1e300` was an internal error (exit 3, OverflowError), `--params 1e30` "not a parameter
    count", `--seq 100000000000` ran; every number typed is checked against its bound with the same words, exit 2."""
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"fsdpds-wizard: {message}\n")


def test_the_largest_numbers_keep_the_estimate_columns(capsys):
    """Issue 21: at the largest sequence and micro batch the figures are long; the table widens its columns so that
    every row keeps the header's right edges, and two figures never run together."""
    from wizard.core.bounds import MAX_BATCH, MAX_SEQ

    assert main(["estimate", "zero2", *LLAMA, "--seq", str(MAX_SEQ), "--batch", str(MAX_BATCH),
                 "--gpu-memory", "80"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("per GPU (each rank)"))
    end = next(i for i, line in enumerate(lines) if line.startswith("  peak at"))
    header, rows = lines[start], lines[start + 1:end]
    gib_end = header.index("GiB") + 3
    assert len(rows) > 5 and any(len(row.split()[-1]) > 12 for row in rows)  # figures of 13 characters and more
    for row in rows:
        assert len(row) == len(header), row  # the "at peak" column ends under its header
        if not row.startswith("  peak"):
            assert row[gib_end - 1].isdigit() and row[gib_end] == " ", row  # the GiB column ends under its header


# ------------------------------------------------------------------------------------------------------------------
# issue 22: hostile answers files and configs (attacks; none of them may run anything or write a file)
# ------------------------------------------------------------------------------------------------------------------
MULTINODE = """backend: deepspeed
launch:
  num_machines: 2
  num_processes: 4
  ds_multinode_launcher: {launcher}
  ds_hostfile: hostfile
  hosts: [{hosts}]
  main_process_ip: {ip}
"""


def _headless(tmp_path, capsys, text: str, name: str = "attack.yaml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    rc = main(["--headless", str(p), "--out", str(out)])
    cap = capsys.readouterr()
    return rc, cap.out + cap.err, out


@pytest.mark.parametrize("ip", ['"10.9.9.9;touch${IFS}X;#"', '"$(touch X)"', '"10.0.0.1 -oProxyCommand=x"',
                                '"`id`"', '"-oProxyCommand=touch X"', '"node1|id"', '"a..b"', '"node_1"'])
def test_attack_main_process_ip_is_not_a_host_refused_naming_the_key(tmp_path, capsys, ip):
    rc, text, out = _headless(tmp_path, capsys, MULTINODE.format(launcher="pdsh", hosts="node1, node2", ip=ip))
    assert rc == 2 and not out.exists()
    assert "[main-process-ip-invalid] launch.main_process_ip" in text


@pytest.mark.parametrize("host", ['"-Fevil"', '"-oProxyCommand=touch X"', '"node1;id"', '"$(id)"', '"a b"',
                                  '"host#1"', '"x" ', '"-"'])
def test_attack_host_names_refused_a_leading_dash_as_an_ssh_option(tmp_path, capsys, host):
    rc, text, out = _headless(tmp_path, capsys,
                              MULTINODE.format(launcher="pdsh", hosts=f"{host}, node2", ip="10.0.0.1"))
    if host.strip() == '"x"':  # a one-letter host is a host name: the control case
        assert "[hosts-invalid]" not in text, text
        return
    assert rc == 2 and not out.exists()
    assert "[hosts-invalid] launch.hosts" in text
    if host.startswith('"-'):
        assert "starts with '-'" in text


@pytest.mark.parametrize("good", ["10.0.0.1", "fe80::1", "node-1.cluster.local", "n1.",
                                  "set-by-the-slurm-batch-script"])
def test_addresses_and_rfc1123_names_are_hosts(tmp_path, capsys, good):
    rc, text, _ = _headless(tmp_path, capsys, MULTINODE.format(launcher="pdsh", hosts="node1, node2", ip=f'"{good}"'))
    assert "[main-process-ip-invalid]" not in text


def test_attack_check_refuses_a_shell_main_process_ip_and_a_dash_hostfile_host(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hostfile").write_text("-Fevil slots=2\nnode2 slots=2\n")
    cfg = tmp_path / "c.yaml"
    cfg.write_text("compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\ndeepspeed_config:\n"
                   "  zero_stage: 2\n  deepspeed_multinode_launcher: pdsh\n  deepspeed_hostfile: hostfile\n"
                   "num_machines: 2\nnum_processes: 4\nmachine_rank: 0\n"
                   "main_process_ip: \"10.9.9.9;touch${IFS}X;#\"\nmain_process_port: 29500\n")
    assert main(["check", str(cfg), "--format", "json"]) == 2
    found = {(f["rule"], tuple(f["keys"])) for f in json.loads(capsys.readouterr().out)["findings"]}
    assert ("main-process-ip-invalid", ("main_process_ip",)) in found
    assert ("ds-hostfile-host-invalid", ("deepspeed_config.deepspeed_hostfile",)) in found


@pytest.mark.parametrize("args", ['["$(touch${IFS}X)"]', '["a;id"]', '["two words"]', '["%n"]', '["`id`"]',
                                  '["x\\ny"]'])
def test_attack_script_arguments_through_pdsh_are_refused(tmp_path, capsys, args):
    text = MULTINODE.format(launcher="pdsh", hosts="node1, node2", ip="node1") + f"  script_args: {args}\n"
    rc, out_text, out = _headless(tmp_path, capsys, text)
    assert rc == 2 and not out.exists()
    assert "[script-args-remote-shell] launch.script_args" in out_text


def test_plain_script_arguments_through_pdsh_and_shell_arguments_on_standard_are_fine(tmp_path, capsys):
    plain = MULTINODE.format(launcher="pdsh", hosts="node1, node2", ip="node1") + \
        '  script_args: ["--lr", "1e-4", "--out=/data/run-1", "a,b:c@d"]\n'
    assert _headless(tmp_path, capsys, plain)[0] == 0
    standard = MULTINODE.format(launcher="standard", hosts="node1, node2", ip="node1") + \
        '  script_args: ["--note", "two words; no shell"]\n'  # argv all the way: nothing reads it again
    rc, text, _ = _headless(tmp_path, capsys, standard, "standard.yaml")
    assert "[script-args-remote-shell]" not in text


@pytest.mark.parametrize("script", ["--num_processes=1", "-m", "--config_file=/tmp/x"])
def test_attack_a_script_name_starting_with_a_dash_is_refused(tmp_path, capsys, script):
    rc, text, out = _headless(tmp_path, capsys, f"backend: fsdp\nlaunch:\n  script: '{script}'\n")
    assert rc == 2 and not out.exists()
    assert "[script-looks-like-option] launch.script" in text and f"./{script}" in text


@pytest.mark.parametrize("value,key", [('"a\\0b"', "launch.hosts[0]"), ('"a\\x1bb"', "launch.hosts[0]"),
                                       ('"a\\rb"', "launch.hosts[0]"), ('"\\x7f"', "launch.hosts[0]")])
def test_attack_control_characters_from_escapes_exit_2_naming_the_key(tmp_path, capsys, value, key):
    rc, text, out = _headless(tmp_path, capsys, f"backend: deepspeed\nlaunch:\n  num_machines: 2\n"
                              f"  hosts: [{value}, node2]\n  main_process_ip: node1\n")
    assert rc == 2 and not out.exists()
    assert f"the text of {key} holds the control character" in text


def test_attack_a_nul_in_a_config_value_is_named_by_check(tmp_path, capsys):
    cfg = tmp_path / "c.json"
    cfg.write_text('{"distributed_type": "MULTI_GPU", "main_process_ip": "a\\u0000b", "num_processes": 2}')
    assert main(["check", str(cfg)]) == 2
    assert "the text of main_process_ip holds the control character 0x00" in capsys.readouterr().out


def test_duplicate_keys_in_answers_are_reported_as_check_reports_them(tmp_path, capsys):
    rc, text, out = _headless(tmp_path, capsys, "backend: fsdp\nlaunch:\n  num_processes: 2\n  num_processes: 8\n")
    assert rc == 2 and not out.exists()
    assert "[answers-duplicate-key] launch.num_processes" in text
    rc, text, out = _headless(tmp_path, capsys, "backend: fsdp\nbackend: fsdp\n", "same.yaml")
    assert rc == 0 and "[answers-duplicate-key-same-value] backend" in text


def _fifo(tmp_path, name):
    path = tmp_path / name
    os.mkfifo(path)
    return path


def _no_hang(fn, fifo):
    """Run ``fn`` in a thread: a FIFO with no writer blocks a plain open() forever, so a reader that opens it is
    let go (by opening the writing end) and the test fails."""
    result = {}
    t = threading.Thread(target=lambda: result.setdefault("rc", fn()), daemon=True)
    t.start()
    t.join(30)
    if t.is_alive():
        os.close(os.open(fifo, os.O_WRONLY))  # the reader's open returns; it reads end-of-file
        t.join(30)
        pytest.fail("the FIFO was opened and read")
    return result["rc"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("argv", [
    lambda f, t: ["--headless", str(f), "--out", str(t / "out")],
    lambda f, t: ["check", str(f)],
    lambda f, t: ["check", str(t / "c.yaml"), "--script", str(f)],
    lambda f, t: ["convert", str(f), "--to", "deepspeed", "--out", str(t / "out")],
], ids=["answers", "config", "script", "convert"])
def test_attack_a_fifo_as_an_input_file_is_refused_at_once(tmp_path, capsys, argv):
    (tmp_path / "c.yaml").write_text("distributed_type: MULTI_GPU\nnum_processes: 2\n")
    fifo = _fifo(tmp_path, "in.yaml")
    rc = _no_hang(lambda: main(argv(fifo, tmp_path)), fifo)
    cap = capsys.readouterr()
    assert rc == 2
    assert "a named pipe (FIFO), not a regular file" in cap.out + cap.err
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_attack_a_fifo_as_the_deepspeed_json_is_refused_at_once(tmp_path, capsys):
    fifo = _fifo(tmp_path, "ds.json")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"distributed_type: DEEPSPEED\nnum_processes: 2\ndeepspeed_config:\n"
                   f"  deepspeed_config_file: {fifo}\n")
    rc = _no_hang(lambda: main(["check", str(cfg)]), fifo)
    assert rc == 2  # check looks for a regular file there (as accelerate does) and never opens anything else
    assert "[ds-config-file-missing] deepspeed_config.deepspeed_config_file" in capsys.readouterr().out


def test_attack_a_device_as_the_script_is_not_read(tmp_path, capsys):
    (tmp_path / "c.yaml").write_text("distributed_type: MULTI_GPU\nnum_processes: 2\n")
    assert main(["check", str(tmp_path / "c.yaml"), "--script", "/dev/zero"]) == 2
    assert "a character device, not a regular file" in capsys.readouterr().err


@pytest.mark.parametrize("source", ["x = " + "-" * 200_000 + "1\n", "x = 1" + "+1" * 200_000 + "\n",
                                    "x = " + "(" * 150 + "1" + ")" * 150 + "\n", "f(" * 5000 + ")" * 5000 + "\n"],
                         ids=["unary", "binop", "parens", "calls"])
def test_attack_a_deeply_nested_script_cannot_be_told_never_exit_3(tmp_path, capsys, source):
    (tmp_path / "c.yaml").write_text("distributed_type: DEEPSPEED\nnum_processes: 2\ndeepspeed_config:\n"
                                     "  zero_stage: 2\n")
    script = tmp_path / "train.py"
    script.write_text(source)
    rc = main(["check", str(tmp_path / "c.yaml"), "--script", str(script), "--format", "json"])
    assert rc in (0, 1)
    [loop] = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"] == "context-loop-unknown"]
    assert "pass --trainer hf|accelerate" in loop["message"]


@pytest.mark.parametrize("extra", [["$(touch${IFS}X)"], ["--note", "a;b"], ["x y"], ["%h"]])
def test_attack_script_arguments_after_dashes_through_pdsh_are_refused_before_anything_starts(tmp_path, extra):
    """The arguments after `--launch --` never pass the answer rules: the plan refuses them for a runner launcher
    (nothing is started: the plan is where the command line is made)."""
    from wizard.core.answers.model import parse_answers_text
    from wizard.run.plan import PlanError, plan_launch

    (tmp_path / "train.py").write_text("print('hi')\n")
    (tmp_path / "hostfile").write_text("node1 slots=2\nnode2 slots=2\n")
    answers, findings = parse_answers_text(
        MULTINODE.format(launcher="pdsh", hosts="node1, node2", ip="node1") + "  script: train.py\n")
    assert answers is not None, findings
    with pytest.raises(PlanError, match="through a remote shell"):
        plan_launch(answers, tmp_path / "out", script_args=extra, cwd=str(tmp_path))
    assert not (tmp_path / "X").exists()
    standard, _ = parse_answers_text(
        MULTINODE.format(launcher="standard", hosts="node1, node2", ip="node1") + "  script: train.py\n")
    plan = plan_launch(standard, tmp_path / "out2", script_args=extra, cwd=str(tmp_path))  # argv only: fine
    assert plan.spec.argv[-len(extra):] == extra


@pytest.mark.parametrize("flag", [["--slurm"], ["--partition", "gpu"], ["--time", "1:00:00"]])
def test_convert_takes_no_launch_flags_it_would_ignore(flag, tmp_path, capsys):
    """convert writes files and launches nothing: SLURM flags were accepted and silently ignored (journeys re-walk)."""
    from wizard.cli import main

    assert main(["convert", str(tmp_path / "x.yaml"), "--to", "fsdp", *flag]) == 2
    assert "unrecognized arguments" in capsys.readouterr().err
