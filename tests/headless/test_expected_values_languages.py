"""What a DeepSpeed JSON's value must be ("expects an integer", "Write one of 0, 1, 2, 3 (exact spelling).") inside a
finding, in Turkish and Traditional Chinese (issue 27): the words of wizard.core.ds_schema.EXPECTED, translated in
the part screen-values, with the options and bounds as written."""
from __future__ import annotations

import subprocess
import sys

import pytest
from helpers import ROOT

from wizard.core.ds_schema import EXPECTED
from wizard.core.localized.phrases import _values_of, expected

BAD_JSON = ('{"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1, '
            '"zero_optimization": {"stage": 7, "offload_optimizer": {"device": "disk"}}}')


def _check(tmp_path, lang: str) -> str:
    path = tmp_path / "ds_config.json"
    path.write_text(BAD_JSON, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "wizard", "check", str(path), "--lang", lang], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    return proc.stdout + proc.stderr


@pytest.mark.parametrize(("lang", "words"), [("tr", "şunlardan biri: 0, 1, 2, 3 (yazıldığı gibi)"),
                                             ("zh-TW", "下列之一：0, 1, 2, 3（拼寫須完全相同）")])
def test_what_a_value_must_be_is_said_in_the_language(tmp_path, lang, words):
    english = _check(tmp_path, "en")
    assert "expects one of 0, 1, 2, 3 (exact spelling)" in english
    out = _check(tmp_path, lang)
    assert words in out  # in the message and in the fix
    assert out.count(words) >= 2
    assert '"none", "cpu", "nvme"' in out  # the options as written
    assert "one of" not in out and "exact spelling" not in out


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
@pytest.mark.parametrize("key", list(EXPECTED))
def test_every_word_of_what_a_value_must_be_has_its_translation(key, lang):
    english = EXPECTED[key].format(options='"a", "b"', sign=">=", bound=1)
    said = expected(english, lang)
    assert said is not None and said != english
    if "{options}" in EXPECTED[key]:
        assert '"a", "b"' in said
    if "{bound}" in EXPECTED[key]:
        assert ">= 1" in said


def test_other_text_is_not_taken_for_what_a_value_must_be():
    assert expected("an integer, surely", "tr") is None
    assert expected("one of ", "tr") is None  # nothing where the options go
    assert expected("a number", "en") is None  # English stays as it is
    # one pass over the text: a long crafted text is answered at once, whatever its shape
    parts = ("a number ", "sign", " ", "bound", "")
    assert _values_of(parts, "a number " + "x " * 100_000) == {"sign": "x", "bound": ("x " * 99_999).rstrip() + " "}
