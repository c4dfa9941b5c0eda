"""Bad input files and command lines: exit 2 with the one shared wording, in `check` and `--headless`."""
import json

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
    "huge": (b"# " + b"x" * (4 * 1024 * 1024) + b"\n", "larger than 4 MiB", SELF_CHECK, SELF_CHECK),
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
