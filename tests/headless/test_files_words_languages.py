"""Issue 27: the English a probe of the suite in zh-TW still found inside translated lines, now in the language (tr,
zh-TW), the English byte for byte as before: the json module's own problem in a file that is not valid JSON (``check``
and ``--training-args``), an OS error's words when a write fails (ENOSPC and the other errnos a writer or reader
meets), ``consolidate``'s refusal of a checkpoint whose loader names no global ("a function or class"), its "same as"
line for an FSDP full state dict ("no merge needed: ..."), a number longer than Python's digit limit, and a claim's
kind of evidence in ``explain``. Each is the real command's output: translated words present, paths, names and
numbers as written, the English phrase gone."""
from __future__ import annotations

import ast
import errno
import inspect
import json
import os
import re
import sys
from pathlib import Path

import pytest

from wizard.cli import main
from wizard.core import i18n, localized
from wizard.core.localized.parsers import json_message
from wizard.core.localized.screens import json as json_words

LANGS = ["tr", "zh-TW"]



def _json_words(lang: str, english: str, **values: str) -> str:
    """The stored translation of a json module message (the test fails where there is none)."""
    words = i18n.translate("screen-json", english, english, lang)
    assert words != english, f"{lang}: no translation of {english!r}"
    return words.format(**values)


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    got = capsys.readouterr()
    return code, got.out + got.err


# ----------------------------------------------------------------------------------------------------------------
# 1. the json module's own words
# ----------------------------------------------------------------------------------------------------------------
def _json_module_messages() -> tuple[set[str], set[str]]:
    """(every string constant of json.decoder and json.scanner, the messages their JSONDecodeError calls give: a
    ``{0!r}`` written as ``{char}``), read with ast from the installed module; and the C scanner's strings."""
    import json.decoder
    import json.scanner

    constants: set[str] = set()
    raised: set[str] = set()
    for module in (json.decoder, json.scanner):
        tree = ast.parse(inspect.getsource(module))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                constants.add(node.value)
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            msgs: dict[str, list[str]] = {}
            for node in ast.walk(fn):  # msg = "..." / msg = "...".format(x)
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    value = node.value
                    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                            and value.func.attr == "format":
                        value = value.func.value
                    if isinstance(value, ast.Constant) and isinstance(value.value, str):
                        msgs.setdefault(node.targets[0].id, []).append(value.value)
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "JSONDecodeError" and node.args:
                    first = node.args[0]
                    if isinstance(first, ast.Constant) and isinstance(first.value, str):
                        raised.add(first.value)
                    elif isinstance(first, ast.Name) and first.id in msgs:
                        raised.update(m.replace("{0!r}", "{char}") for m in msgs[first.id])
    import _json

    c_strings: set[str] = set()
    if getattr(_json, "__file__", None):  # built in elsewhere: only the Python source then
        data = Path(_json.__file__).read_bytes()
        c_strings = {s.decode("ascii") for s in re.findall(rb"[ -~]{6,}", data)}
    return constants | c_strings, raised


def test_each_json_message_is_the_json_modules_own_and_every_one_it_raises_is_there():
    constants, raised = _json_module_messages()
    for english in json_words.WORDS:
        if sys.version_info < json_words.SINCE.get(english, (3,)):
            continue  # a newer Python's message
        pattern = re.escape(english).replace(re.escape("{char}"), r"(?:\{0!r\}|%r)")
        assert any(re.fullmatch(pattern, c) for c in constants), english
    assert raised, "no JSONDecodeError found in json.decoder: the reader above needs updating"
    assert raised <= set(json_words.WORDS), raised - set(json_words.WORDS)


BROKEN_JSON = {  # a file's text -> the json module's message (the C scanner's, Python 3.11+)
    "{a: 1}": "Expecting property name enclosed in double quotes",
    '{"a" 1}': "Expecting ':' delimiter",
    "[1 2]": "Expecting ',' delimiter",
    '{"a": }': "Expecting value",
    '{"a": 1} x': "Extra data",
    '{"a": "abc': "Unterminated string starting at",
    '{"a": "x\u0001y"}': "Invalid control character at",
    '{"a": "\\q"}': "Invalid \\escape",
    '{"a": "\\u12"}': "Invalid \\uXXXX escape",
}
if sys.version_info >= (3, 13):
    BROKEN_JSON['{"a": 1,}'] = "Illegal trailing comma before end of object"
    BROKEN_JSON['{"a": [1,]}'] = "Illegal trailing comma before end of array"


@pytest.mark.parametrize("lang", LANGS)
def test_check_says_the_json_modules_problem_in_the_language(tmp_path, capsys, lang):
    for i, (text, message) in enumerate(BROKEN_JSON.items()):
        bad = tmp_path / f"bad {i}.json"
        bad.write_text(text, encoding="utf-8")
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            assert exc.msg == message
            line, column = exc.lineno, exc.colno
        code, english = _run(capsys, "check", str(bad), "--lang", "en")
        assert code == 2 and f"{bad}: not valid JSON (line {line}, column {column}): {message}" in english
        code, said = _run(capsys, "check", str(bad), "--lang", lang)
        assert code == 2
        first = said.splitlines()[0]
        assert str(bad) in first and _json_words(lang, message) in first, first
        assert f"{line}" in first and f"{column}" in first
        assert message not in said and "not valid JSON" not in said and "Expecting" not in said


@pytest.mark.parametrize("lang", LANGS)
def test_a_training_arguments_file_that_is_not_json_says_so_in_the_language(tmp_path, capsys, lang):
    (tmp_path / "ds.json").write_text('{"zero_optimization": {"stage": 2}}')
    args = tmp_path / "my args.json"
    args.write_text("{per_device_train_batch_size: 2}")
    code, english = _run(capsys, "check", str(tmp_path / "ds.json"), "--training-args", str(args), "--lang", "en")
    assert code == 2
    assert english.strip() == (f"fsdpds-wizard: --training-args {args}: not valid JSON (line 1, column 2): Expecting "
                               "property name enclosed in double quotes; fix the JSON syntax (double quotes, no "
                               "comments, no trailing commas)")
    code, said = _run(capsys, "check", str(tmp_path / "ds.json"), "--training-args", str(args), "--lang", lang)
    assert code == 2
    said = said.strip()
    assert said.startswith(f"fsdpds-wizard: --training-args {args}: ") and "\n" not in said
    assert _json_words(lang, "Expecting property name enclosed in double quotes") in said
    assert "Expecting" not in said and "not valid JSON" not in said and "fix the JSON" not in said


def test_the_pure_python_decoders_words_keep_the_character_as_quoted():
    for lang in LANGS:
        said = json_message("Invalid control character '\\x01' at", lang)
        assert said == _json_words(lang, "Invalid control character {char} at", char="'\\x01'")
        assert json_message("Invalid \\escape: 'q'", lang) == \
            _json_words(lang, "Invalid \\escape: {char}", char="'q'")
        assert json_message("Expecting something the module never said", lang) is None
        assert json_message("Extra data", "en") is None


# ----------------------------------------------------------------------------------------------------------------
# 2. an OS error's words
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_a_full_disk_is_said_in_the_language_with_the_number_and_the_path(tmp_path, capsys, monkeypatch, lang):
    out = tmp_path / "my out"
    out.mkdir()
    (out / "accelerate_config.yaml").write_text("# my edits\n")

    def link(src, dst, *a, **kw):  # the folder cannot grow: no new name fits
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(dst))

    monkeypatch.setattr(os, "link", link)
    code, english = _run(capsys, "--headless", "zero2", "--out", str(out), "--force", "--lang", "en")
    assert code == 2
    assert f"cannot write to {out}: [Errno {errno.ENOSPC}] {os.strerror(errno.ENOSPC)}: '" in english
    code, said = _run(capsys, "--headless", "zero2", "--out", str(out), "--force", "--lang", lang)
    assert code == 2
    said = said.strip()
    assert len(said.splitlines()) == 1 and str(out) in said and f"[Errno {errno.ENOSPC}] " in said
    assert localized.screen("run", "os.ENOSPC", lang) in said
    assert os.strerror(errno.ENOSPC) not in said and "cannot write to" not in said


@pytest.mark.parametrize("lang", LANGS)
def test_the_errnos_a_writer_or_reader_meets_have_words(lang):
    from wizard.core.localized.phrases import ERRNOS, os_error

    for name in ("ENOSPC", "EDQUOT", "EROFS", "EISDIR", "ENOTDIR", "EEXIST", "ENAMETOOLONG", "EMFILE", "ENFILE",
                 "ELOOP", "EXDEV", "ENOTEMPTY", "EIO", "EFBIG"):
        assert name in ERRNOS
        code = getattr(errno, name)
        text = f"[Errno {code}] {os.strerror(code)}: '/a b/c'"
        assert os_error(text, lang) == f"[Errno {code}] {localized.screen('run', f'os.{name}', lang)}: '/a b/c'"


# ----------------------------------------------------------------------------------------------------------------
# 3-4. consolidate: a refusal that names no global, the "same as" line of an FSDP full state dict
# ----------------------------------------------------------------------------------------------------------------
def _legacy_torch_file_with_an_unknown_opcode(path: Path) -> None:
    """A torch.save file of the legacy (not zip) format whose pickle uses an opcode the weights-only loader does not
    know (INST): torch refuses it without naming a global."""
    import pickle

    with open(path, "wb") as f:
        pickle.dump(0x1950A86A20F9469CFC6C, f, protocol=2)  # torch's legacy magic number
        pickle.dump(1001, f, protocol=2)
        pickle.dump({"protocol_version": 1001, "little_endian": True,
                     "type_sizes": {"short": 2, "int": 4, "long": 4}}, f, protocol=2)
        f.write(b"\x80\x02(X\x01\x00\x00\x00xibuiltins\nset\n.")


@pytest.mark.real
@pytest.mark.parametrize("lang", LANGS)
def test_a_refused_checkpoint_that_names_no_global_is_said_in_the_language(tmp_path, capsys, lang):
    folder = tmp_path / "step-000003"
    folder.mkdir()
    _legacy_torch_file_with_an_unknown_opcode(folder / "pytorch_model_fsdp.bin")
    code, english = _run(capsys, "consolidate", str(folder), "--out", str(tmp_path / "out"), "--lang", "en")
    assert code == 2
    assert f"fsdpds-wizard: {folder}: refused: loading this file would call a function or class, which" in english
    code, said = _run(capsys, "consolidate", str(folder), "--out", str(tmp_path / "out"), "--lang", lang)
    assert code == 2
    ours = [line for line in said.splitlines() if line.startswith("fsdpds-wizard:")]
    assert len(ours) == 1 and str(folder) in ours[0] and "consolidate" in ours[0]
    assert {"tr": "bir fonksiyon ya da sınıf", "zh-TW": "某個函式或類別"}[lang] in ours[0]
    words = said.replace(str(tmp_path), "PATH")  # the test's own folder name has "refused" in it
    assert "a function or class" not in words and "refused" not in words and "which a checkpoint" not in words
    assert not (tmp_path / "out" / "model.safetensors").exists()


@pytest.mark.real
@pytest.mark.parametrize("lang", LANGS)
def test_consolidate_of_a_full_state_dict_says_no_merge_needed_in_the_language(tmp_path, capsys, lang):
    import torch

    folder = tmp_path / "step-000003"
    folder.mkdir()
    torch.save({"w": torch.zeros(2)}, folder / "pytorch_model_fsdp.bin")
    out = tmp_path / "out"
    code, english = _run(capsys, "consolidate", str(folder), "--out", str(out), "--lang", "en")
    assert code == 0
    assert "  ran:  torch.load(weights_only=True) + safetensors.torch.save_file (the full state dict as it is)\n" \
        in english
    assert "  same as: no merge needed: pytorch_model_fsdp.bin is already the whole state dict (torch.load it)\n" \
        in english
    code, said = _run(capsys, "consolidate", str(folder), "--out", str(out), "--force", "--lang", lang)
    assert code == 0
    assert localized.screen("run", "tool.full_state_dict_ran", lang) in said
    no_merge = {"tr": "birleştirme gerekmiyor: pytorch_model_fsdp.bin zaten state dict'in tamamı",
                "zh-TW": "不需要合併：pytorch_model_fsdp.bin 已經是完整的 state dict"}[lang]
    assert no_merge in said
    assert "no merge needed" not in said and "the full state dict as it is" not in said


# ----------------------------------------------------------------------------------------------------------------
# 5. a number longer than Python's digit limit
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", ["yaml", "json"])
def test_a_number_with_too_many_digits_is_one_sentence_in_the_language(tmp_path, capsys, lang, kind):
    limit = sys.get_int_max_str_digits()
    big = tmp_path / f"big.{kind}"
    big.write_text(f"a: {'9' * (limit + 700)}\n" if kind == "yaml" else f'{{"a": {"9" * (limit + 700)}}}')
    code, english = _run(capsys, "check", str(big), "--lang", "en")
    assert code == 2
    assert f"{big}: not valid {kind.upper()}: a number has more than {limit} digits" in english
    code, said = _run(capsys, "check", str(big), "--lang", lang)
    assert code == 2
    first = said.splitlines()[0]
    number = {"tr": f"bir sayının {limit} basamaktan fazlası var", "zh-TW": f"有一個數字超過 {limit} 位數"}[lang]
    assert str(big) in first and number in first, first
    assert "digits" not in said and "has more than" not in said and "not valid" not in said


# ----------------------------------------------------------------------------------------------------------------
# 6. a claim's kind of evidence in explain
# ----------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_explain_says_each_claims_evidence_in_the_language_the_ids_as_written(capsys, lang):
    from wizard.core.claims import CLAIMS
    from wizard.core.texts import TEXTS

    kinds = {c.evidence for c in CLAIMS.values()}
    for kind in kinds:
        assert localized.evidence(kind, "en") == kind
        assert localized.evidence(kind, lang) != kind, kind
    code, said = _run(capsys, "explain", "deepspeed.reduce_bucket_size", "--width", "200", "--lang", lang)
    assert code == 0
    ids = TEXTS["deepspeed.reduce_bucket_size"].claims
    assert ids
    for cid in ids:
        assert f"{cid} ({localized.evidence(CLAIMS[cid].evidence, lang)})" in said
    assert "(demonstrated)" not in said and "(read from code)" not in said


UNUSABLE = {"tr": "UTF-8 metin değil (0. bayt 0x89)", "zh-TW": "不是 UTF-8 文字（第 0 個位元組是 0x89）"}


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_checks_finding_on_a_file_it_cannot_use_says_why_in_the_language(capsys, tmp_path, lang):
    """``check`` of a file it cannot use: the finding's message is the file's name and why, the why in the language
    (the same words as the command line's error for it), the name as given."""
    path = tmp_path / "binary.yaml"
    path.write_bytes(b"\x89PNG\r\n")
    code, out = _run(capsys, "check", str(path), "--lang", lang)
    head = next(ln for ln in out.splitlines() if "[config-unreadable]" in ln)
    assert code == 2 and head.endswith(f"{path}: {UNUSABLE[lang]}") and "not UTF-8 text" not in out
    code, out = _run(capsys, "--headless", str(path), "--out", str(tmp_path / "o"), "--lang", lang)
    assert code == 2 and UNUSABLE[lang] in out


TRAINER_VALUES = {"tr": ("bir sayı olmalı", "true ya da false olmalı", "en az 1 olmalı", "bir sürüm değil"),
                  "zh-TW": ("必須是數字", "必須是 true 或 false", "必須大於或等於 1", "不是版本")}


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_a_training_arguments_files_bad_values_and_a_bad_version_flag_in_the_language(capsys, tmp_path, lang):
    """Several bad values of ``--training-args``: each row said in the language, the arguments and values as written;
    a version flag that is not one: the flag named, why in the language."""
    args = tmp_path / "args.yaml"
    args.write_text("learning_rate: 1e-5\nbf16: maybe\nper_device_train_batch_size: 0\n")
    ds = tmp_path / "ds.json"
    ds.write_text('{"train_micro_batch_size_per_gpu": 1}')
    code, out = _run(capsys, "check", str(ds), "--training-args", str(args), "--lang", lang)
    number, flag, least, version = TRAINER_VALUES[lang]
    assert code == 2 and number in out and flag in out and least in out
    assert "'1e-5'" in out and "'maybe'" in out and "per_device_train_batch_size" in out and "1.0e-5" in out
    assert "must be" not in out
    code, out = _run(capsys, "check", str(ds), "--deepspeed-version", "latest", "--lang", lang)
    assert code == 2 and "--deepspeed-version 'latest'" in out and version in out and "is not a version" not in out


VERSION = {"tr": ("kütüphane", "doğrulandığı sürüm", "burada kurulu", "diğer sürümler de kabul edilir"),
           "zh-TW": ("函式庫", "已驗證的版本", "此處已安裝", "其他版本也可接受")}


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_version_and_the_headless_start_flags_error_in_the_language(capsys, lang):
    """``--version``'s table (its heads aligned by cells, names and versions as they are) and ``--headless`` given no
    file next to a start flag: both sentences in the language."""
    from wizard.core.i18n.cells import width

    code, out = _run(capsys, "--version", "--lang", lang)
    assert code == 0 and all(word in out for word in VERSION[lang]) and "verified against" not in out
    lines = out.splitlines()
    heads = next(ln for ln in lines if ln.startswith(VERSION[lang][0]))
    column = width(heads[:heads.index(VERSION[lang][1])])  # where the second column starts, in cells
    for library in ("accelerate", "deepspeed"):
        row = next(ln for ln in lines if ln.startswith(library + " "))
        assert row.index(row.split()[1]) == column, (heads, row)
    code, out = _run(capsys, "--headless", "--config", "x.yaml", "--lang", lang)
    assert code == 2 and "--config FILE" in out and "It does not go together" not in out and "right after it" not in out


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_recommend_write_refused_in_the_language(capsys, tmp_path, lang):
    target = tmp_path / "mine.yaml"
    target.write_text("backend: fsdp\n")
    code, out = _run(capsys, "recommend", "--model", "llama-3.1-8b", "--gpu-memory", "80", "--gpus-per-node", "8",
                     "--write", str(target), "--lang", lang)
    assert code == 2 and str(target) in out and "--force" in out
    assert "refusing to replace" not in out and target.read_text() == "backend: fsdp\n"


@pytest.mark.parametrize("lang,note", [("en", "(every option below)"), ("tr", "(aşağıdaki tüm seçenekler)"),
                                       ("zh-TW", "(下方列出所有選項)")])
def test_the_main_usages_note_in_the_language(capsys, lang, note):
    code, out = _run(capsys, "--help", "--lang", lang)
    line = next(ln for ln in out.splitlines() if "--help | --version" in ln)
    assert code == 0 and line.rstrip().endswith(note)
