"""Issue 27: why the wizard cannot start with the file it was given (``--answers``, ``--config``, ``--out``), said
in the wizard's language as the commands say their errors; paths and keys as written, English as before."""
from __future__ import annotations

import subprocess
import sys

import pytest
from helpers import ROOT

WORDS = {"tr": ("bulunamadı", "yolu denetleyin", "var ve bir klasör değil", "geçersiz yanıtlar", "Düzeltme:"),
         "zh-TW": ("找不到", "請檢查路徑", "已存在且不是資料夾", "答案無效", "修正：")}
ENGLISH = ("not found", "check the path", "exists and is not a folder", "invalid answers", "fix:")


def _start(tmp_path, *args: str) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "wizard", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8"})
    return done.returncode, done.stderr


@pytest.mark.parametrize("lang", ["en", "tr", "zh-TW"])
def test_a_start_file_the_wizard_cannot_use_is_said_in_the_language(tmp_path, lang):
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "bad.yaml").write_text("sharding:\n  strategy: zero9\n")
    said = WORDS.get(lang, ENGLISH)
    code, missing = _start(tmp_path, "--answers", "nosuch.yaml", "--lang", lang)
    assert code == 2 and "nosuch.yaml" in missing and said[0] in missing and said[1] in missing
    code, out = _start(tmp_path, "--out", "a-file", "--lang", lang)
    assert code == 2 and "--out a-file" in out and said[2] in out
    code, bad = _start(tmp_path, "--answers", "bad.yaml", "--lang", lang)
    assert code == 2 and said[3] in bad and said[4] in bad and "'sharding.strategy'" in bad and "'zero9'" in bad
    if lang != "en":
        assert not any(word in missing + out + bad for word in ENGLISH)


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_the_open_dialog_says_why_in_the_language(tmp_path, lang):
    """The palette's "open answers file" dialog (and a preset that cannot load) show the same words as the command
    line: the start error in the language, the path as typed."""
    from wizard.core import i18n
    from wizard.tui.screens.open_file import start_error_text
    from wizard.tui.shared.session import StartError, from_answers_file

    i18n.set_language(lang)
    with pytest.raises(StartError) as raised:
        from_answers_file(tmp_path / "nosuch.yaml")
    said = start_error_text(raised.value)
    assert str(tmp_path / "nosuch.yaml") in said and WORDS[lang][0] in said and WORDS[lang][1] in said
    assert not any(word in said for word in ENGLISH)
