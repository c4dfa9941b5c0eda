"""Issue 27: what the libraries under the command line say, in the chosen language: argparse's own errors (an invalid
choice, a missing or unrecognized argument, a flag without its value, two flags that exclude each other), a number
flag's error (`--headroom 5`), `--lang`'s own, and PyYAML's problems in a file that is not valid YAML. Run as the
user runs them (`python -m wizard ...`, the locale from the environment); the options, values, choices, numbers and
paths exactly as typed; English byte for byte as before."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.core import i18n
from wizard.core.localized.parsers import argparse_message, match, number_error, yaml_problem
from wizard.core.localized.screens import cli as cli_words
from wizard.core.localized.screens import yaml as yaml_words

ROOT = Path(__file__).resolve().parents[2]



def _wizard(*argv: str, locale: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")}
    env["PYTHONPATH"] = str(ROOT)
    if locale is not None:
        env["LANG"] = locale
    return subprocess.run([sys.executable, "-m", "wizard", *argv], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120)


def _error(*argv: str, locale: str | None = None) -> str:
    """The one line on stderr of a command refused with exit 2, after "fsdpds-wizard: "."""
    done = _wizard(*argv, locale=locale)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    line = done.stderr.rstrip("\n")
    assert line.startswith("fsdpds-wizard: ") and "\n" not in line
    return line.removeprefix("fsdpds-wizard: ")


def _cli(lang: str, key: str, **values: str) -> str:
    """The stored translation of screen-cli's ``key``, filled in (the test fails where there is none)."""
    english = cli_words.WORDS[key]
    words = i18n.translate("screen-cli", key, english, lang)
    assert words != english, f"{lang}: no translation of {key}"
    return words.format(**values)


def _yaml(lang: str, english: str, **values: str) -> str:
    words = i18n.translate("screen-yaml", english, english, lang)
    assert words != english, f"{lang}: no translation of {english!r}"
    return words.format(**values)


# ----------------------------------------------------------------------------------------------------------------
# argparse's own errors, as run
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_an_invalid_choice_is_said_in_the_language_with_the_value_and_choices_as_typed(lang):
    said = _error("check", "x.yaml", "--format", "xml", "--lang", lang)
    message = _cli(lang, "argparse.invalid_choice", value="'xml'", choices="'text', 'json'")
    inner = _cli(lang, "argparse.argument", argument="--format", message=message)
    assert said == "check: " + _cli(lang, "options", message=inner, see="fsdpds-wizard help check")
    assert "invalid choice" not in said and "choose from" not in said and "(options:" not in said
    for kept in ("--format", "'xml'", "'text', 'json'", "fsdpds-wizard help check"):
        assert kept in said


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_a_missing_argument_and_a_flag_without_its_value_are_said_in_the_language(lang):
    said = _error("check", "--lang", lang)
    assert said.startswith("check: " + _cli(lang, "argparse.required", names="FILE"))
    assert "the following arguments are required" not in said

    said = _error("recommend", "--lang", lang)
    assert _cli(lang, "argparse.required", names="--gpus-per-node, --gpu-memory") in said

    said = _error("estimate", "zero2", "--lang", lang, "--headroom")
    expected = _cli(lang, "argparse.expected_one")
    assert said.startswith("estimate: " + _cli(lang, "argparse.argument", argument="--headroom", message=expected))
    assert "expected one argument" not in said


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_an_unrecognized_argument_and_excluded_flags_keep_their_names(lang):
    said = _error("check", "x.yaml", "--bogus", "-q", "--lang", lang)
    assert said.startswith("check: " + _cli(lang, "argparse.unrecognized", names="--bogus -q"))
    assert "unrecognized" not in said

    said = _error("--answers", "a.yaml", "--preset", "zero2", "--lang", lang)
    other = _cli(lang, "argparse.not_allowed_with", other="--answers")
    assert said == _cli(lang, "options", message=_cli(lang, "argparse.argument", argument="--preset", message=other),
                        see="fsdpds-wizard --help")


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_a_bad_headroom_is_said_in_the_language_with_the_value_and_the_limits(lang):
    said = _error("estimate", "zero2", "--headroom", "5", "--lang", lang)
    assert said.startswith("--headroom 5")
    assert _cli(lang, "number.problem.too large") in said
    assert _cli(lang, "number.what.headroom") in said
    assert _cli(lang, "number.range.up_to", low="0", high="1") in said
    assert _cli(lang, "number.example", value="0.1") in said
    assert "too large" not in said and "give the fraction" not in said


def test_the_locale_chooses_the_language_without_lang():
    said = _error("check", "x.yaml", "--format", "xml", locale="tr_TR.UTF-8")
    assert _cli("tr", "argparse.invalid_choice", value="'xml'", choices="'text', 'json'") in said
    said = _error("--lang", "xx", locale="tr_TR.UTF-8")  # not a language: the locale's says so
    assert _cli("tr", "not_a_language", value="'xx'", languages="en, tr, zh-TW",
                names="en: English, tr: Türkçe, zh-TW: 繁體中文") in said
    assert said.startswith(_cli("tr", "argparse.argument", argument="--lang", message=""))


def test_english_is_as_before():
    assert _error("check", "x.yaml", "--format", "xml", "--lang", "en") == (
        "check: argument --format: invalid choice: 'xml' (choose from 'text', 'json') (options: fsdpds-wizard help "
        "check)")
    assert _error("check") == "check: the following arguments are required: FILE (options: fsdpds-wizard help check)"
    assert _error("check", "x.yaml", "--bogus", locale="C.UTF-8") == (
        "check: unrecognized arguments: --bogus (options: fsdpds-wizard help check)")
    assert _error("estimate", "zero2", "--headroom", "5") == (
        "--headroom 5: too large; give the fraction of GPU memory to keep free, from 0 up to (not including) 1 "
        "(e.g. 0.1)")
    assert _error("--lang", "xx") == (
        "argument --lang: 'xx' is not a language of the wizard; use one of en, tr, zh-TW (en: English, tr: Türkçe, "
        "zh-TW: 繁體中文) (options: fsdpds-wizard --help)")


# ----------------------------------------------------------------------------------------------------------------
# a file that is not valid YAML, as run
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_a_broken_answers_file_says_pyyaml_s_problem_in_the_language(tmp_path, lang):
    broken = tmp_path / "my answers.yaml"
    broken.write_text("backend: deepspeed\nzero: stage: 3\n", encoding="utf-8")
    said = _error("--headless", str(broken), "--out", str(tmp_path / "out"), "--lang", lang)
    problem = _yaml(lang, "mapping values are not allowed here")
    assert said.startswith(f"{broken}: " + _yaml(lang, yaml_words.AROUND, line="2", column="12", problem=problem))
    assert "not valid YAML" not in said and "mapping values" not in said

    english = _error("--headless", str(broken), "--out", str(tmp_path / "out"))
    assert english == (f"{broken}: not valid YAML (line 2, column 12): mapping values are not allowed here; fix the "
                       "YAML syntax (indentation, colons, quotes)")


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_check_says_a_broken_config_s_problem_in_the_language_with_its_quoted_character(tmp_path, lang):
    broken = tmp_path / "accelerate.yaml"
    broken.write_text("distributed_type: FSDP\nfsdp_config:\n\t- x\n", encoding="utf-8")
    done = _wizard("check", str(broken), "--lang", lang)
    assert done.returncode == 2
    problem = _yaml(lang, "found character {char} that cannot start any token", char="'\\t'")
    assert _yaml(lang, yaml_words.AROUND, line="3", column="1", problem=problem) in done.stdout
    assert "cannot start any token" not in done.stdout


# ----------------------------------------------------------------------------------------------------------------
# the tables against the libraries, and the English they give back
# ----------------------------------------------------------------------------------------------------------------
def _library_source(*modules: str) -> str:
    import importlib
    import inspect

    return "".join(inspect.getsource(importlib.import_module(m)) for m in modules)


def test_each_argparse_template_is_argparse_s_own_and_our_english_follows_it():
    import argparse

    source = _library_source("argparse")
    for key, theirs in cli_words.ARGPARSE.items():
        if key != "argparse.invalid_choice_closest":  # Python 3.14's wording, not in this argparse
            assert repr(theirs)[1:-1] in source or theirs in source, key
        # the same words, a placeholder where argparse puts a value
        assert re.sub(r"\{\w+\}", "{}", cli_words.WORDS[key]) == re.sub(r"%(\(\w+\))?[rsd]", "{}", theirs), key
    parser = argparse.ArgumentParser(exit_on_error=False)
    parser.add_argument("--format", choices=("text", "json"))
    with pytest.raises(argparse.ArgumentError) as got:
        parser.parse_args(["--format", "xml"])
    assert argparse_message(str(got.value), "en") == str(got.value)
    assert argparse_message(str(got.value), "tr") == _cli("tr", "argparse.argument", argument="--format", message=_cli(
        "tr", "argparse.invalid_choice", value="'xml'", choices="'text', 'json'"))


def test_an_unknown_argparse_message_stays_english_and_python_3_12s_choices_match():
    assert argparse_message("something argparse says one day", "tr") == "something argparse says one day"
    assert argparse_message("argument --x: something new", "zh-TW") == _cli("zh-TW", "argparse.argument",
                                                                           argument="--x", message="something new")
    said = argparse_message("argument --format: invalid choice: 'xml' (choose from text, json)", "tr")
    assert "text, json" in said and "'xml'" in said and "invalid choice" not in said


SAMPLES = {"params": "1e30", "largest_layer": "-1", "gpu_memory": "0", "host_memory": "abc", "headroom": "1",
           "seq": "1.5", "batch": "0", "gpus_per_node": "1e30", "nodes": "0", "num_processes": "x",
           "gradient_accumulation_steps": "1e9", "width": "20"}


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_every_number_error_is_said_in_the_language_and_english_is_its_own(lang):
    from wizard.core.bounds import NUMBERS, RANGES, NumberError, parse

    assert set(SAMPLES) == set(NUMBERS)
    forms = set()
    for name, typed in SAMPLES.items():
        with pytest.raises(NumberError) as got:
            parse(name, typed)
        exc = got.value
        forms.add(NUMBERS[name].range_form())
        assert number_error(exc, "en") == str(exc)
        assert i18n.translate("screen-cli", "number", cli_words.WORDS["number"], "en").format(
            shown=exc.shown, problem=exc.problem, what=NUMBERS[name].what,
            range=NUMBERS[name].range_text()) == str(exc)
        said = number_error(exc, lang)
        low, high = NUMBERS[name].limits()
        assert exc.shown in said and low in said and high in said
        assert _cli(lang, f"number.what.{name}") in said and _cli(lang, f"number.problem.{exc.problem}") in said
        assert NUMBERS[name].what not in said
    assert forms <= set(RANGES) and len(forms) >= 3  # every form a bound uses


def _pyyaml_pattern(english: str) -> str:
    from string import Formatter

    return "".join(re.escape(literal) + ("%[rsd]" if name is not None else "")
                   for literal, name, _spec, _conversion in Formatter().parse(english))


def test_each_yaml_phrase_is_pyyaml_s_own():
    source = _library_source("yaml.scanner", "yaml.parser", "yaml.composer", "yaml.constructor")
    for english in yaml_words.WORDS:
        if english != yaml_words.AROUND:
            assert re.search(_pyyaml_pattern(english), source), english


BROKEN = ["a: b: c\n", "a:\n\t- x\n", "a: [1, 2\n", "{a: 1\n", "key: \"abc\n", "a:\n  - 1\n b: 2\n", "a: *x\n",
          "a: &x 1\nb: &x 2\n", "a: !!python/name:os.system x\n", "a: 1\n--- \nb: 2\n", "? [1]\n: x\n",
          "a: \"\\q\"\n", "- a\nb: c\n", "a: !!binary 'not base64 %%'\n", "%YAML 1.1\n%YAML 1.1\n--- a\n",
          "a: 'x\n", "a: |x\n  y\n", "a: !<tag x\n", "[a]: b\n"]


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_pyyaml_s_problems_on_broken_files_are_translated_marks_and_quotes_kept(tmp_path, lang):
    from wizard.core.inputs import InputError, parse_yaml

    untranslated = []
    for i, text in enumerate(BROKEN):
        with pytest.raises(InputError) as got:
            parse_yaml(text, tmp_path / f"{i}.yaml")
        what = got.value.what
        if not what.startswith("not valid YAML (line "):
            continue
        said = yaml_problem(f"{got.value.path}: {what}", lang)
        if said is None:
            untranslated.append(what)
            continue
        values = match(yaml_words.AROUND, what)
        assert values is not None
        assert said.startswith(f"{got.value.path}: ")
        assert values["line"] in said and values["column"] in said
        for quoted in re.findall(r"'[^']*'", values["problem"]):
            assert quoted in said
        assert "not valid YAML" not in said
    assert untranslated == []
    assert yaml_problem("not valid YAML (line 1, column 1): a problem PyYAML has not had", lang) is None
