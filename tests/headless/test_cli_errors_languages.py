"""Issue 27: the command line's own errors (a usage error, an input that cannot be used) and the `--help` lines that
name a value (the `--LIB-version` options, `--headroom`, the option groups' titles) in the chosen language; the flag,
the value and the path as typed; English as before without a language (argparse's own errors, the number flags' and
the YAML parser's words: test_cli_argparse_languages.py)."""
from __future__ import annotations

import json

import pytest

from wizard.cli import main
from wizard.core import i18n
from wizard.core.i18n import part_path


def _stored(lang: str, part: str, english: str) -> str:
    """The translation kept for ``english`` (the test fails where there is none)."""
    with open(part_path(lang, part), encoding="utf-8") as f:
        entry = json.load(f)[english]
    assert entry["fp"] == i18n.fingerprint(english)
    return entry["text"]


def _error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    got = capsys.readouterr()
    assert got.out == ""
    line = got.err.strip()
    assert line.startswith("fsdpds-wizard: ") and "\n" not in line
    return line.removeprefix("fsdpds-wizard: ")


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_a_usage_error_is_said_in_the_language(capsys, lang):
    said = _error(capsys, ["--rehearse", "--lang", lang])
    english = "--launch, --rehearse and script arguments go with --headless ANSWERS.yaml --out DIR"
    assert said == _stored(lang, "messages-errors", english)
    assert said != english
    for flag in ("--launch", "--rehearse", "--headless ANSWERS.yaml", "--out DIR"):
        assert flag in said


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_a_usage_error_with_a_value_keeps_it(capsys, lang):
    said = _error(capsys, ["--headless", "answers.yaml", "--preset", "zero2", "--lang", lang])
    assert said.startswith("--headless ")
    assert "--preset" in said and "fsdpds-wizard --headless NAME --out DIR" in said
    assert "do not go together" not in said
    # the sentences put into it are translated too: what --preset does, and what to use instead
    assert _stored(lang, "messages-errors", "--preset NAME opens the wizard (with a screen) on a preset") in said


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_a_bad_version_flag_keeps_the_flag_and_the_value(capsys, lang):
    said = _error(capsys, ["--headless", "zero2", "--out", "unused", "--accelerate-version", "banana", "--lang",
                           lang])
    assert said.startswith("--accelerate-version 'banana': 'banana' ")
    assert "is not a version" not in said
    reason = _stored(lang, "messages-errors", "{0} is not a version (expected numbers like 0.19.8)")
    assert said == "--accelerate-version 'banana': " + reason.replace("{0}", "'banana'")


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_an_input_error_keeps_its_path_and_translates_what_and_fix(tmp_path, capsys, lang):
    folder = tmp_path / "a folder"
    folder.mkdir()
    said = _error(capsys, ["--headless", str(folder), "--out", str(tmp_path / "out"), "--lang", lang])
    what = _stored(lang, "messages-errors", "a folder, not a file")
    fix = _stored(lang, "messages-errors", "give the path of the answers YAML itself")
    assert said.startswith(f"{folder}: {what}")
    assert said.endswith(fix)
    assert "a folder, not a file" not in said


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_a_missing_answers_file_keeps_its_path(tmp_path, capsys, lang):
    missing = tmp_path / "nowhere" / "answers.yaml"
    said = _error(capsys, ["--headless", str(missing), "--out", str(tmp_path / "out"), "--lang", lang])
    assert said.startswith(f"{missing}: {_stored(lang, 'messages-errors', 'not found')}")
    assert ": not found;" not in said
    # the fix (core/presets.py's preset_hint, a function's result) too, the presets' names as they are
    hint = _stored(lang, "messages-errors", "check the path, or give a preset name: {0}")
    assert hint.replace("{0}", "") in said and "check the path" not in said
    assert said.endswith("zero3-cpu-offload, zero3-nvme-offload, zero3-two-node")


def test_the_errors_in_english_are_as_before(tmp_path, capsys):
    assert _error(capsys, ["--rehearse", "--lang", "en"]) == (
        "--launch, --rehearse and script arguments go with --headless ANSWERS.yaml --out DIR")
    bad_version = ["--headless", "zero2", "--out", "unused", "--accelerate-version", "banana", "--lang", "en"]
    assert _error(capsys, bad_version) == ("--accelerate-version 'banana': 'banana' is not a version (expected "
                                           "numbers like 0.19.8)")
    assert _error(capsys, ["--headless", str(tmp_path), "--out", str(tmp_path / "out"), "--lang", "en"]) == (
        f"{tmp_path}: a folder, not a file; give the path of the answers YAML itself")


HELP_LINES = {
    (): ["judge the config for this %(library)s version, headless and in the wizard (default: the one the wizard "
         "was verified against; with --launch, the installed one, which the run uses)",
         "the wizard's memory bar (the Memory screen, F3, sets them too)"],
    ("check",): ["judge for this %(library)s version (default: the installed one, else the one the wizard was "
                 "verified against)"],
    ("estimate",): ["with --gpu-memory: fraction of GPU memory to keep free (default %(default)g)",
                    "with a config (what no config key says; answers say it themselves)"],
    ("recommend",): ["fraction of GPU memory to keep free (default %(default)g)"],
}


def _help(capsys, command: tuple[str, ...], lang: str) -> str:
    assert main([*command, "--help", "--lang", lang]) == 0
    return " ".join(capsys.readouterr().out.split())  # the lines joined: the help wraps them


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
@pytest.mark.parametrize("command", list(HELP_LINES))
def test_the_help_lines_that_name_a_value_are_translated(capsys, command, lang):
    shown = _help(capsys, command, lang)
    english = _help(capsys, command, "en")
    for line in HELP_LINES[command]:
        words = _stored(lang, "cli", line)
        first = line.split(" (")[0].replace("%(library)s", "accelerate").replace("%(default)g", "0.1")
        assert first in english
        assert first not in shown
        filled = words.replace("%(library)s", "accelerate").replace("%(default)g", "0.1")
        if "%(library)s" in line:
            filled = filled.split("accelerate")[0] + "accelerate"  # the library's name is in place
        assert "".join(filled.split()) in "".join(shown.split())  # wrapped by cells: compare without spaces
    if "%(library)s" in " ".join(HELP_LINES[command]):
        for lib in ("accelerate", "deepspeed", "transformers"):
            assert f"--{lib}-version V" in shown


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_a_flag_without_its_value_is_explained_in_the_language(capsys, lang):
    """The message is one of a table's sentences (cli._NEEDS_VALUE), chosen in a loop: each is a template."""
    said = _error(capsys, ["--lang", lang, "--headless", "zero2", "--out"])
    assert said == _stored(lang, "messages-errors", "--out needs the folder the configs are written to: --out DIR")
    assert said.startswith("--out ") and said.endswith("--out DIR")
