"""The command line itself: commands as subcommands in --help, `help COMMAND`, --version (issue 13)."""
import json
import re
import subprocess
import sys

import pytest
from helpers import ROOT

from wizard.cli import COMMANDS, main
from wizard.core import versions


def test_help_lists_every_command_with_its_line(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    usage = out.split("\n\n")[0]
    assert "COMMAND ..." in usage and "--version" in usage
    assert set(COMMANDS) - {"help"} == {"check", "explain", "presets", "schema", "estimate", "recommend", "convert",
                                       "consolidate"}
    flat = " ".join(out.split())
    for name, line in COMMANDS.items():
        assert re.search(rf"^\s+{name}\s+\S", out, re.M), f"{name} has no line of its own in --help"
        assert f"{name} {' '.join(line.split())}" in flat


def test_help_names_the_commands_in_its_first_lines(capsys):
    """Issue 21: the usage line had grown to seven lines of flags with the commands last (`COMMAND ...`); the first
    two lines of --help now name every command, and the usage stays within 80 columns."""
    assert main(["--help"]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = " ".join(lines[:2])
    assert [name for name in COMMANDS if not re.search(rf"\b{name}\b", head)] == []
    usage = lines[:lines.index("")]
    assert len(usage) <= 6 and all(len(line) <= 80 for line in usage), usage


@pytest.mark.parametrize("name", list(COMMANDS))
def test_help_command_shows_that_commands_options(name, capsys):
    assert main(["help", name]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: fsdpds-wizard {name}")
    assert main([name, "--help"]) == 0
    assert capsys.readouterr().out == out


def test_help_of_check_and_explain_name_their_options(capsys):
    assert main(["help", "check"]) == 0
    out = capsys.readouterr().out
    assert ("--gpus-per-node" in out and "--format" in out and "FILE" in out and "--trainer" in out
            and "--num-processes" in out)
    assert main(["help", "explain"]) == 0
    assert "groups: backend, launch, sharding" in capsys.readouterr().out


def test_help_without_a_command_is_the_main_help(capsys):
    assert main(["help"]) == 0
    help_out = capsys.readouterr().out
    assert main(["--help"]) == 0
    assert capsys.readouterr().out == help_out


@pytest.mark.parametrize("argv,needle", [
    (["help", "chek"], "unknown command 'chek'; did you mean 'check'?"),
    (["chek", "a.yaml"], "unknown command 'chek'; did you mean 'check'?"),
    (["--headless", "zero2", "--out", "o", "extra"], "unknown command 'extra'"),
    (["check"], "check: the following arguments are required: FILE (options: fsdpds-wizard help check)"),
    (["presets", "x"], "presets: unrecognized arguments: x"),
    (["schema", "--format", "yaml"], "schema: argument --format: invalid choice"),
    (["--out", "o", "check", "a.yaml"], "--out goes without a command"),
    (["--headless", "zero2", "presets"], "--headless goes without a command"),
    (["--verify", "--force", "schema"], "--force, --verify go without a command"),
    (["--bogus"], "unrecognized arguments: --bogus"),
])
def test_usage_errors_are_one_line_exit_2(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err
    assert err.count("\n") == 1 and err.startswith("fsdpds-wizard: "), err


def test_a_commands_own_options_do_not_mix_with_the_wizards(tmp_path, capsys):
    """check's --verify / --format and its CONFIG never become the wizard's --verify / --config."""
    cfg = tmp_path / "a.yaml"
    cfg.write_text("distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n  fsdp_version: 2\n")
    assert main(["check", str(cfg), "--gpus-per-node", "2", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] is not None


def test_version_names_the_wizard_and_each_library(capsys):
    assert main(["--version"]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first == f"fsdpds-wizard {versions.wizard_version()}"
    assert re.fullmatch(r"fsdpds-wizard \d+\.\d+\.\d+\S*", first)
    for lib, verified in versions.VERIFIED_AGAINST.items():
        have = versions.installed_version(lib) or "not installed"
        assert re.search(rf"^{lib}\s+{re.escape(verified)}\s+{re.escape(have)}$", out, re.M), out
    assert set(versions.VERIFIED_AGAINST) == {"accelerate", "deepspeed", "torch", "transformers"}


def test_version_says_not_installed(monkeypatch, capsys):
    monkeypatch.setattr(versions, "installed_version", lambda name: None if name == "deepspeed" else "9.9")
    assert main(["--version"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^deepspeed\s+0\.19\.8\s+not installed$", out, re.M)
    assert re.search(r"^torch\s+\S+\s+9\.9$", out, re.M)


def test_version_goes_with_any_flags(capsys):
    assert main(["--headless", "zero2", "--version"]) == 0
    assert capsys.readouterr().out.startswith("fsdpds-wizard ")


def test_version_falls_back_to_pyproject_in_a_source_checkout(monkeypatch):
    from importlib import metadata

    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    text = (ROOT / "pyproject.toml").read_text()
    expected = re.search(r'^version = "([^"]+)"', text, re.M).group(1)
    assert versions.wizard_version() == expected


def test_the_verified_versions_are_the_ones_the_readme_states():
    readme = (ROOT / "README.md").read_text()
    acc, ds = versions.VERIFIED_AGAINST["accelerate"], versions.VERIFIED_AGAINST["deepspeed"]
    assert f"accelerate {acc.rsplit('.', 1)[0]} and deepspeed {ds.rsplit('.', 1)[0]}" in readme


PROBE = r"""
import contextlib, io, json, sys
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
    from wizard.cli import main
    code = main(ARGS)
print(json.dumps({"code": code, "loaded": [m for m in WATCH if m in sys.modules], "out": out.getvalue()}))
"""


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["help", "check"], ["presets"]])
def test_parsing_imports_nothing_heavy_nor_the_catalogue(args):
    watch = ["torch", "accelerate", "deepspeed", "transformers", "textual", "wizard.core.catalog"]
    src = PROBE.replace("ARGS", json.dumps(args)).replace("WATCH", json.dumps(watch))
    proc = subprocess.run([sys.executable, "-c", src], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["code"] == 0, result["out"]
    assert result["loaded"] == [], result


@pytest.mark.verify
def test_verify_keeps_deepspeeds_cpu_accelerator_notice_off_the_screen(tmp_path):
    """N13: `--headless ... --verify` printed DeepSpeed's `[WARNING] [real_accelerator.py:...] Setting accelerator
    to CPU ...` line (a note about this machine, printed while deepspeed is imported) among the wizard's own
    output. A fresh process, so deepspeed is imported by the replay itself."""
    proc = subprocess.run([sys.executable, "-m", "wizard", "--headless", "zero2", "--out", str(tmp_path / "out"),
                           "--verify"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verified" in proc.stdout + proc.stderr
    assert "Setting accelerator to" not in proc.stdout + proc.stderr
    assert "real_accelerator.py" not in proc.stdout + proc.stderr


def test_the_cpu_accelerator_notice_filter_drops_that_record_only(capsys):
    """N13: the filter over DeepSpeed's logger lets every other record through and is gone afterwards."""
    import logging

    from wizard.core.verify.guards import _quiet_cpu_accelerator_notice

    lg = logging.getLogger("DeepSpeed")
    seen: list[str] = []

    class _Keep(logging.Handler):
        def emit(self, record):
            seen.append(record.getMessage())

    h = _Keep(level=logging.WARNING)
    lg.addHandler(h)

    def record(filename, msg):
        rec = lg.makeRecord("DeepSpeed", logging.WARNING, filename, 213, msg, None, None)
        lg.handle(rec)

    try:
        with _quiet_cpu_accelerator_notice():
            record("/x/real_accelerator.py", "Setting accelerator to CPU. If you have GPU ...")
            record("/x/real_accelerator.py", "something else DeepSpeed says")
            record("/x/config.py", "Setting accelerator to CPU in another file")
        record("/x/real_accelerator.py", "Setting accelerator to CPU. If you have GPU ...")
    finally:
        lg.removeHandler(h)
    assert seen == ["something else DeepSpeed says", "Setting accelerator to CPU in another file",
                    "Setting accelerator to CPU. If you have GPU ..."]
