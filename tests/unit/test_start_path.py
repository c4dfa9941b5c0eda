"""The start path of `check`, `--headless` and `explain` stays light, without timing anything (issue 26): each
command, run in a fresh interpreter, imports no module that tests/start_path.py does not list for it, and every
module listed there it still imports (the lists only shrink)."""
import os
import sys

import pytest
from start_path import COMMANDS, EXPECTED, KINDS, STDLIB_PYTHON, imported

HOW_TO_ADD = ("import it inside the function that needs it; if the command must import it at start, add it to "
              "EXPECTED[{cmd!r}][{kind!r}] in tests/start_path.py on purpose (PYTHONPATH=. python tests/start_path.py "
              "prints the lists as they are now) and say why in the commit")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_start_path_imports_only_what_is_listed(command):
    got = imported(command)
    assert got["code"] == 0, f"{command} failed: exit {got['code']}"
    kinds = KINDS if sys.version_info[:2] == STDLIB_PYTHON else tuple(k for k in KINDS if k != "stdlib")
    problems = []
    for kind in kinds:
        expected, now = EXPECTED[command][kind], got[kind]
        if now - expected:
            problems.append(f"new on the start path of {command} ({kind}): {sorted(now - expected)}; "
                            + HOW_TO_ADD.format(cmd=command, kind=kind))
        if expected - now:
            problems.append(f"no longer imported by {command} ({kind}): {sorted(expected - now)}; take it out of "
                            f"EXPECTED[{command!r}][{kind!r}] in tests/start_path.py: the list only shrinks")
    assert not problems, "\n".join(problems)


def test_every_measured_command_has_its_lists():
    assert set(EXPECTED) == set(COMMANDS)
    for command, lists in EXPECTED.items():
        assert set(lists) == set(KINDS), command


def test_installed_version_reads_what_importlib_metadata_reads(tmp_path, monkeypatch):
    """`check` reads the library versions from their .dist-info without importlib.metadata (20 ms of start-up);
    it must say what importlib.metadata says, and leave what it cannot read plainly to it."""
    from importlib.metadata import PackageNotFoundError, version

    from wizard.core import versions

    def metadata_says(name):
        try:
            return version(name)
        except PackageNotFoundError:
            return None

    plain, egg = tmp_path / "plain", tmp_path / "egg"
    (plain / "Foo_Bar-1.2.3.dist-info").mkdir(parents=True)
    (plain / "Foo_Bar-1.2.3.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: foo-bar\n"
                                                               "Version: 1.2.3\n\nVersion: 9.9 (the body)\n")
    (plain / "nover-1.0.dist-info").mkdir()
    (plain / "nover-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: nover\n")
    (egg / "legacy_pkg.egg-info").mkdir(parents=True)
    (egg / "legacy_pkg.egg-info" / "PKG-INFO").write_text("Metadata-Version: 1.0\nName: legacy-pkg\nVersion: 0.4\n")
    (egg / "Foo.Bar-7.0.dist-info").mkdir()  # later on sys.path than plain/: the first one found wins
    (egg / "Foo.Bar-7.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: foo-bar\nVersion: 7.0\n")
    monkeypatch.syspath_prepend(str(egg))
    monkeypatch.syspath_prepend(str(plain))
    names = ["foo-bar", "FOO_BAR", "foo.bar", "legacy-pkg", "nover", "not-installed-anywhere", "pyyaml",
             "accelerate", "deepspeed", "torch", "transformers", "fsdpds-wizard"]
    assert {n: versions.installed_version(n) for n in names} == {n: metadata_says(n) for n in names}
    assert versions.installed_version("foo-bar") == "1.2.3"
    assert versions._dist_info_version("legacy-pkg") is versions._UNSURE  # an .egg-info: importlib.metadata reads it
    assert versions._dist_info_version("nover") is versions._UNSURE
    assert versions._dist_info_version("foo-bar") == "1.2.3"


def test_gpu_count_from_nvidia_smi_found_on_path_without_shutil(tmp_path, monkeypatch):
    """Where /proc/driver/nvidia does not answer, check asks the nvidia-smi on PATH (found without shutil, which
    costs its start the archive modules): the first executable one, as a shell finds it."""
    from wizard.core import gpus

    empty, tools = tmp_path / "empty", tmp_path / "tools"
    empty.mkdir()
    tools.mkdir()
    (empty / "nvidia-smi").write_text("#!/bin/sh\nexit 1\n")  # not executable: a shell passes over it
    smi = tools / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA H100 (UUID: a)'\necho 'GPU 1: NVIDIA H100 (UUID: b)'\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{empty}{os.pathsep}{tools}")
    assert gpus._which("nvidia-smi") == str(smi)
    assert gpus._count_nvidia_smi() == 2
    monkeypatch.setenv("PATH", str(empty))
    assert gpus._which("nvidia-smi") is None
    assert gpus._count_nvidia_smi() is None


_GC_PROBE = r"""
import gc, json, sys
from wizard import cli
from wizard.commands import explain, tui_entry
seen = {}
kept = []
def watch(real):
    def run(args):
        seen.update(enabled=gc.isenabled(), frozen=gc.get_freeze_count(), objects=len(gc.get_objects()))
        kept.extend([] for _ in range(1000))  # objects the command makes and keeps: frozen at its end (or not)
        return 0 if real is None else real(args)
    return run
explain.run = watch(explain.run)
tui_entry.run = watch(None)  # the screen itself is not opened: what main does around it is what is watched
sys.argv = ["fsdpds-wizard", *sys.argv[1:]]
code = cli.main()
print(json.dumps({"code": code, "during": seen, "enabled_after": gc.isenabled(),
                  "frozen_after": gc.get_freeze_count()}))
"""


@pytest.mark.parametrize("argv, code, session", [(["explain", "offload"], 0, False),
                                                  (["explain", "--no-such-flag"], 2, False), ([], 0, True)])
def test_the_entry_point_freezes_what_the_start_built_and_collects_during_the_command(argv, code, session):
    """Run as the process's own command (main() without arguments), the start's objects are frozen before the
    command runs (no collection walks them again) and the collector is on while it runs and after, also when the
    command line is refused before anything runs. A short command's objects are frozen at its end too (the
    collection at exit has nothing to walk); the wizard's screen (or a --launch) keeps the usual collection at exit,
    which closes what the session left open. main(argv), as tests call it, leaves gc alone."""
    import json
    import subprocess

    proc = subprocess.run([sys.executable, "-c", _GC_PROBE, *argv], capture_output=True, text=True, timeout=120,
                          cwd=str(__import__("start_path").ROOT))
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["code"] == code and got["enabled_after"] is True, proc.stderr[-2000:]
    if code == 0:
        during = got["during"]
        assert during["enabled"] is True and during["frozen"] > 1000
        if session:
            assert got["frozen_after"] <= during["frozen"]  # nothing more frozen (some frozen objects freed)
        else:
            assert got["frozen_after"] > during["frozen"]


@pytest.mark.parametrize("argv", [
    ["--headless", "zero3", "--out", "d"], ["--out", "d", "--headless", "a.yaml"],
    ["--headless", "p", "--out", "", "--force"], ["--force", "--out", "d", "--headless", "p"], [],
])
def test_the_plain_headless_command_line_is_read_as_the_parser_reads_it(argv):
    """`--headless X --out DIR [--force]`, and no argument at all (the wizard's screen), are read without building
    argparse's parser (issue 26): the same namespace the parser makes of it, every option's default included (an
    option added to the parser fails this test until cli._PLAIN_HEADLESS_DEFAULTS has it)."""
    from wizard import cli

    assert vars(cli._plain_headless(argv)) == vars(cli._main_parser().parse_args(argv))


@pytest.mark.parametrize("argv", [
    ["--headless", "p"], ["--out", "d"], ["--headless", "p", "--out", "d", "--verify"],
    ["--headless=p", "--out", "d"], ["--head", "p", "--out", "d"], ["--headless", "-p", "--out", "d"],
    ["--headless", "p", "--headless", "q", "--out", "d"], ["--headless", "p", "--out", "d", "--force", "--force"],
    ["--headless", "p", "--out"], ["check", "x.yaml"],
])
def test_every_other_command_line_goes_to_the_parser(argv):
    from wizard import cli

    assert cli._plain_headless(argv) is None
