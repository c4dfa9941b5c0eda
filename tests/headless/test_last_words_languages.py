"""The last English inside translated findings (issue 27): the word "default" of a row of the HF Trainer's note on a
DeepSpeed JSON's concrete values, and the batch a fixed ``train_batch_size`` needs; in Turkish and Traditional
Chinese, the keys, argument names and numbers exactly as written and the English unchanged."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CONCRETE = {  # concrete values the Trainer compares: two of them at their TrainingArguments' default, two not
    "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 1, "gradient_clipping": 1.0,
    "optimizer": {"type": "AdamW", "params": {"lr": 3e-5, "eps": 1e-8}},
    "zero_optimization": {"stage": 2},
}
DEFAULT_WORD = {"tr": (" (varsayılanı ", " (varsayılan değeri)"), "zh-TW": ("（預設為 ", "（其預設值）")}


def _check(tmp_path: Path, ds: dict, *flags: str) -> tuple[int, str]:
    (tmp_path / "ds.json").write_text(json.dumps(ds))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}
    done = subprocess.run([sys.executable, "-m", "wizard", "check", str(tmp_path / "ds.json"), *flags],
                          capture_output=True, text=True, encoding="utf-8", env=env, cwd=ROOT, timeout=120)
    return done.returncode, done.stdout + done.stderr


def _line(out: str, rule: str) -> str:
    return next(ln for ln in out.splitlines() if f"[{rule}]" in ln)


def test_the_trainer_rows_in_english_as_they_were(tmp_path):
    _, out = _check(tmp_path, CONCRETE, "--trainer", "hf", "--lang", "en")
    note = _line(out, "ds-json-trainer-values-must-match")
    assert note.endswith(": train_micro_batch_size_per_gpu 4 = per_device_train_batch_size (default 8); "
                         "gradient_accumulation_steps 1 = gradient_accumulation_steps (its default); "
                         "gradient_clipping 1.0 = max_grad_norm (its default); "
                         "optimizer.params.lr 3e-05 = learning_rate (default 5e-05); "
                         "optimizer.params.eps 1e-08 = adam_epsilon (its default).")


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_the_word_default_of_each_trainer_row_is_translated(tmp_path, lang):
    _, out = _check(tmp_path, CONCRETE, "--trainer", "hf", "--lang", lang)
    note = _line(out, "ds-json-trainer-values-must-match")
    default, its_default = DEFAULT_WORD[lang]
    assert "(default" not in note and "(its default)" not in note
    # the key, value, argument and default as written; only the word around the default is the language's
    assert f"train_micro_batch_size_per_gpu 4 = per_device_train_batch_size{default}8" in note
    assert f"optimizer.params.lr 3e-05 = learning_rate{default}5e-05" in note
    assert f"gradient_clipping 1.0 = max_grad_norm{its_default}" in note
    assert note.count(default) == 2 and note.count(its_default) == 3


def test_a_row_of_one_word_of_its_own_is_a_template():
    """The row has a single word of its own, yet it is a template (ONE_WORD); "(default)" with no value is another
    shape (a sentence of its own elsewhere) and not matched by it."""
    from wizard.core.localized.messages import ONE_WORD, templates, translated, worth_translating

    assert all(worth_translating(t) for t in ONE_WORD)
    assert ONE_WORD <= {t for _, t in templates()}
    assert translated("lr 3e-05 = learning_rate (default 5e-05)", "tr") == \
        "lr 3e-05 = learning_rate (varsayılanı 5e-05)"
    assert translated("a = b (default)", "tr") is None


def _batch(total: int, accumulation) -> dict:
    return {"train_batch_size": total, "train_micro_batch_size_per_gpu": "auto",
            "gradient_accumulation_steps": accumulation, "zero_optimization": {"stage": 2}}


# (total, accumulation, --num-processes given): the rule, the English phrase, its Turkish and Chinese
BATCHES = [
    (64, 2, True, "ds-json-fixed-batch-auto-micro", "a batch size of 8 (64 / (2 accumulation x 4 processes))",
     "batch boyutu 8 (64 / (2 biriktirme x 4 süreç))", "批次大小為 8（64 / (2 次累積 x 4 個行程)）"),
    (64, "auto", True, "ds-json-fixed-batch-auto-micro", "micro batch x accumulation steps = 16 (64 / 4 processes)",
     "micro batch x biriktirme adımı = 16 (64 / 4 süreç)", "微批次 x 累積步數 = 16（64 / 4 個行程）"),
    (64, 2, False, "ds-json-fixed-batch-auto-micro",
     "the batch size that makes micro x accumulation x processes equal it",
     "micro x biriktirme x süreç çarpımını ona eşitleyen batch boyutu",
     "使「微批次 x 累積步數 x 行程數」等於它的批次大小"),
    (63, 2, True, "ds-json-batch-mismatch", "cannot be split into 4 processes x 2 accumulation steps of whole",
     "tam micro batch'lerle 4 süreç x 2 biriktirme adımına bölünemez",
     "無法拆分為 4 個行程 x 2 個累積步數的整數個微批次"),
    (63, "auto", True, "ds-json-batch-mismatch", "cannot be split into 4 processes of whole micro batches",
     "tam micro batch'lerle 4 sürece bölünemez", "無法拆分為 4 個行程的整數個微批次"),
]


@pytest.mark.parametrize("total,accumulation,nproc,rule,english,turkish,chinese", BATCHES)
def test_the_batch_a_fixed_total_needs_is_said_in_the_language(tmp_path, total, accumulation, nproc, rule, english,
                                                               turkish, chinese):
    flags = ("--num-processes", "4") if nproc else ()
    lines = {}
    for lang in ("en", "tr", "zh-TW"):
        _, out = _check(tmp_path, _batch(total, accumulation), *flags, "--lang", lang)
        lines[lang] = _line(out, rule).split(": ", 1)[1]  # the message, after the rule's keys
    assert english in lines["en"]
    assert turkish in lines["tr"] and chinese in lines["zh-TW"]
    for lang in ("tr", "zh-TW"):  # no English left of the phrase (the key and numbers as written)
        assert f"train_batch_size {total}" in lines[lang] or f"`train_batch_size: {total}`" in lines[lang]
        left = [w for w in ("batch size", "accumulation", "processes", "equal it", "split into") if w in lines[lang]]
        assert not left, f"English left in {lines[lang]!r}: {left}"
