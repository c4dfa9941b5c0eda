"""Issue 27: `explain` in Turkish and Traditional Chinese, chosen by --lang or by the locale; keys and values as the
libraries spell them; every line within the width in terminal cells (a CJK character takes two)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from helpers import ROOT

from wizard.cli import main
from wizard.core import localized
from wizard.core.catalog import GROUPS
from wizard.core.i18n import cells


def explain(capsys, *argv: str) -> str:
    assert main(["explain", *argv]) == 0
    return capsys.readouterr().out


def _cli(*argv: str, env: dict) -> str:
    proc = subprocess.run([sys.executable, "-m", "wizard", *argv], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env}, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_explain_offload_in_the_language_keeps_the_keys(capsys, lang):
    out = explain(capsys, "offload", "--lang", lang, "--width", "100")
    english = explain(capsys, "offload", "--width", "100")
    assert out != english
    flat = " ".join(out.split())
    joined = "".join(out.split())  # CJK lines break without a space
    for key in ("fsdp_offload_params", "offload_optimizer_device", "offload_param_device",
                "zero_optimization.offload_optimizer.device"):
        assert key in flat, key
    assert localized.group_label("offload", lang) in out
    assert "".join(localized.group_text("offload", lang).summary.split()) in joined
    word = {"tr": "optimizatör", "zh-TW": "卸載"}[lang]
    assert word in out


def test_the_locale_chooses_the_language_as_lang_does():
    by_flag = _cli("explain", "offload", "--lang", "tr", "--width", "90", env={"LANG": "C.UTF-8"})
    by_locale = _cli("explain", "offload", "--width", "90", env={"LANG": "tr_TR.UTF-8"})
    assert by_locale == by_flag
    assert _cli("explain", "offload", "--width", "90", env={"LANG": "zh_TW.UTF-8"}) == \
        _cli("explain", "offload", "--lang", "zh-TW", "--width", "90", env={})
    english = _cli("explain", "offload", "--width", "90", env={"LANG": "C.UTF-8"})
    assert _cli("explain", "offload", "--width", "90", "--lang", "en", env={"LANG": "tr_TR.UTF-8"}) == english


@pytest.mark.parametrize("lang", ["en", "tr", "zh-TW"])
def test_every_group_fits_80_cells(capsys, lang):
    out = explain(capsys, "--lang", lang, "--width", "80")
    for group in GROUPS:
        assert localized.group_label(group.id, lang) in out
    wide = [line for line in out.splitlines() if cells.width(line) > 80]
    # an identifier longer than its column is cut as in English; nothing else may pass the width
    assert not wide, wide[:5]


def test_an_unknown_language_is_a_usage_error(capsys):
    assert main(["explain", "offload", "--lang", "fr"]) == 2
    err = capsys.readouterr().err
    assert "--lang" in err and "'fr' is not a language" in err and "zh-TW" in err


def test_lang_is_accepted_by_every_command(capsys):
    assert main(["presets", "--lang", "tr"]) == 0
    assert main(["--lang", "zh-TW", "explain", "sync"]) == 0
    assert localized.group_label("sync", "zh-TW") in capsys.readouterr().out


DS_FIXED_TOTAL = '{"train_batch_size": 16, "train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 2}}'


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_check_says_each_finding_in_the_language(tmp_path, capsys, lang):
    ds = tmp_path / "ds.json"
    ds.write_text(DS_FIXED_TOTAL)
    assert main(["check", str(ds), "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)["findings"]
    assert main(["check", str(ds), "--lang", lang]) == 0
    out = capsys.readouterr().out
    rules = {f["rule"] for f in found}
    assert {"ds-json-fixed-batch-auto-micro", "deepspeed-json-no-gradient-accumulation"} <= rules
    for f in found:
        said = localized.said(f["message"], lang)
        assert said != f["message"], f"{f['rule']}: its message is translated"
        assert f"[{f['rule']}]" in out and said in out and f["message"] not in out
        assert all(span in said for span in re.findall(r"`[^`]+`", f["message"])), "code spans as written"
        if f["fix"]:
            assert localized.labelled(localized.ui("fix", lang), localized.said(f["fix"], lang)) in out \
                or localized.rule_fix(f["rule"], f["fix"], lang) in out
    assert "`train_batch_size: 16`" in out  # this file's values as written
    # a translated message needs no second line with the rule's summary
    assert localized.ui("rule_says", lang) not in out


def test_the_json_of_check_is_the_same_in_every_language(tmp_path, capsys):
    ds = tmp_path / "ds.json"
    ds.write_text(DS_FIXED_TOTAL)
    outs = []
    for lang in ("en", "tr", "zh-TW"):
        main(["check", str(ds), "--format", "json", "--lang", lang])
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] == outs[2]


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
@pytest.mark.parametrize("argv", [["help", "explain"], ["explain", "--help"]])
def test_help_is_in_the_language(capsys, lang, argv):
    from wizard.core.localized import cli_words

    assert main([*argv, "--lang", lang]) == 0  # --lang after --help too
    out = capsys.readouterr().out
    usage = cli_words("usage: ", lang)
    assert usage != "usage: " and out.startswith(usage)
    width_help = "text width (default: the terminal's)"
    assert cli_words(width_help, lang) != width_help
    assert "".join(cli_words(width_help, lang).split()) in "".join(out.split())
    for kept in ("--width", "--lang", "GROUP|SETTING|KEY", "fsdpds-wizard explain"):
        assert kept in out


def test_the_main_help_lists_the_commands_in_the_language(capsys):
    from wizard.cli import COMMANDS
    from wizard.core.localized import cli_words

    assert main(["--lang", "zh-TW", "--help"]) == 0
    out = "".join(capsys.readouterr().out.split())
    for name, line in COMMANDS.items():
        assert "".join(cli_words(line, "zh-TW").split()) in out, name
