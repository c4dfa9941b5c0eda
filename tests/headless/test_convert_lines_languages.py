"""Issue 27: `convert`'s own lines that were still English (a carried-over row's "(not written)", "not converted", a
source with errors, a refused write, a converted config with errors) and the diff's file headers ("(on disk)",
"(to write)", "(imported)", "(now)", "(edited)") in the chosen language; paths, file names and counts as they are;
the JSON report's "error" and the English as before."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from wizard.cli import main
from wizard.core import i18n
from wizard.core.i18n.lines import LINES


def _said(lang: str, key: str, **values) -> str:
    words = i18n.translate("lines", key, LINES[key], lang)
    assert words != LINES[key], f"{lang}: no translation of {key}"
    return words.format(**values)


def _src(tmp_path: Path) -> Path:
    assert main(["--headless", "zero2", "--out", str(tmp_path / "src"), "--lang", "en"]) == 0
    return tmp_path / "src" / "accelerate_config.yaml"


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_convert_s_rows_and_refused_write_are_said_in_the_language(tmp_path, capsys, monkeypatch, lang):
    monkeypatch.chdir(tmp_path)
    src = _src(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "answers.yaml").write_text("mine: true\n")
    capsys.readouterr()
    assert main(["convert", str(src), "--to", "fsdp", "--out", str(out), "--lang", lang]) == 2
    got = capsys.readouterr()
    assert f"checkpoint.format = sharded: {_said(lang, 'not_written')} -> fsdp_state_dict_type" in got.out
    assert "(not written)" not in got.out
    refused = _said(lang, "write_refused", names=out / "answers.yaml")
    assert got.err.strip() == f"fsdpds-wizard: {refused}"

    assert main(["convert", str(src), "--to", "fsdp", "--out", str(out), "--lang", "en"]) == 2
    got = capsys.readouterr()
    assert "checkpoint.format = sharded: (not written) -> fsdp_state_dict_type" in got.out
    assert got.err.strip() == (f"fsdpds-wizard: refusing to replace existing file(s) with different content: "
                               f"{out / 'answers.yaml'} (use --force to replace them; the old content is kept as "
                               "NAME.bak, or the first free NAME.1.bak, NAME.2.bak, ...)")


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_a_source_with_errors_is_refused_in_the_language(tmp_path, capsys, lang):
    src = tmp_path / "both.json"
    src.write_text(json.dumps({"train_batch_size": 100, "train_micro_batch_size_per_gpu": 50,
                               "gradient_accumulation_steps": 1, "fp16": {"enabled": True},
                               "bf16": {"enabled": True}, "zero_optimization": {"stage": 2}}))
    assert main(["convert", str(src), "--to", "fsdp", "--out", str(tmp_path / "o"), "--lang", lang]) == 2
    out, err = capsys.readouterr()
    assert _said(lang, "not_converted", path=src, before="DeepSpeed", to="FSDP2") in out
    why = _said(lang, "source_has_errors.convert")
    assert err.strip() == f"fsdpds-wizard: {_said(lang, 'source_has_errors', path=src, count=1, why=why)}"
    assert f"`fsdpds-wizard check {src}`" in err
    # the JSON's error stays English (scripts read it)
    assert main(["convert", str(src), "--to", "fsdp", "--out", str(tmp_path / "o"), "--format", "json",
                 "--lang", lang]) == 2
    assert json.loads(capsys.readouterr().out)["error"] == (
        f"{src} has 1 error(s), as `fsdpds-wizard check {src}` reports them; fix them first: converting it would "
        "carry them over or hide them; nothing written")


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_a_converted_config_with_errors_says_so_in_the_language(tmp_path, capsys, lang):
    (tmp_path / "ds_config.json").write_text(json.dumps({"zero_optimization": {"stage": 3}, "bf16": {"enabled": True},
                                                          "train_micro_batch_size_per_gpu": "auto"}))
    cfg = {"distributed_type": "DEEPSPEED", "num_processes": 16, "num_machines": 2,
           "deepspeed_config": {"deepspeed_config_file": str(tmp_path / "ds_config.json"),
                                "deepspeed_multinode_launcher": "pdsh", "deepspeed_hostfile": "/job/hostfile"}}
    (tmp_path / "acc.yaml").write_text(yaml.safe_dump(cfg))
    argv = ["convert", str(tmp_path / "acc.yaml"), "--to", "fsdp", "--out", str(tmp_path / "o")]
    assert main([*argv, "--lang", lang]) == 2
    assert capsys.readouterr().err.strip() == f"fsdpds-wizard: {_said(lang, 'convert_has_errors')}"
    assert main([*argv, "--lang", "en"]) == 2
    assert capsys.readouterr().err.strip() == "fsdpds-wizard: the converted config has errors; nothing written"


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_the_diff_headers_keep_the_file_names_and_translate_the_words(tmp_path, lang):
    from wizard.core.answers.generate import imported_diff
    from wizard.core.files import unified_diff
    from wizard.tui.shared.extra_json import diff

    path = tmp_path / "accelerate config.yaml"
    path.write_text("a: 1\n")
    english = unified_diff(path, "a: 2\n")
    assert english.startswith("--- accelerate config.yaml (on disk)\n+++ accelerate config.yaml (to write)\n")
    assert imported_diff((path,), {"accelerate_config.yaml": "a: 2\n"}).startswith(
        f"--- {path} (imported)\n+++ accelerate_config.yaml (to write)\n")
    assert diff({"a": 1}, {"a": 2}).startswith("--- deepspeed.extra (now)\n+++ deepspeed.extra (edited)\n")

    i18n.set_language(lang)
    said = unified_diff(path, "a: 2\n")
    head = (f"--- {_said(lang, 'diff_on_disk', name=path.name)}\n"
            f"+++ {_said(lang, 'diff_to_write', name=path.name)}\n")
    assert said.startswith(head)
    assert said[len(head):] == english[english.index("@@"):]  # the diff itself as it was
    to_write = _said(lang, "diff_to_write", name="accelerate_config.yaml")
    assert imported_diff((path,), {"accelerate_config.yaml": "a: 2\n"}).startswith(
        f"--- {_said(lang, 'diff_imported', name=path)}\n+++ {to_write}\n")
    assert diff({"a": 1}, {"a": 2}).startswith(f"--- {_said(lang, 'diff_now', name='deepspeed.extra')}\n"
                                               f"+++ {_said(lang, 'diff_edited', name='deepspeed.extra')}\n")
    gone = tmp_path / "gone.yaml"
    header = _said(lang, "diff_imported_unreadable", name=gone, error=os.strerror(2))  # ENOENT's words
    assert imported_diff((gone,), {}) == f"--- {header}\n"
