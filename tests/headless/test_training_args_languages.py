"""``check ds.json --training-args ARGS --lang tr|zh-TW`` (issue 27): the HF Trainer's comparisons in Turkish and
Traditional Chinese, the words around them translated and the keys, argument names and numbers exactly as written."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

DS = {  # a mismatch (gradient_clipping 1.0 vs max_grad_norm 0.5), two arguments together (betas), "auto" fills and a
    # concrete train_batch_size that needs the number of processes
    "train_batch_size": 64, "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
    "gradient_clipping": 1.0, "bf16": {"enabled": "auto"},
    "optimizer": {"type": "AdamW", "params": {"lr": "auto", "betas": [0.9, 0.95], "eps": "auto"}},
    "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_num_steps": "auto", "total_num_steps": "auto"}},
    "zero_optimization": {"stage": 2},
}
ARGS = "per_device_train_batch_size: 2\ngradient_accumulation_steps: 4\nmax_grad_norm: 0.5\nwarmup_steps: 0.1\n"

# each language: a word of the translated frame for each finding, and the English frame words that must be gone
WORDS = {
    "tr": {"mismatch": "değerinden farklı", "together": "birlikte", "filled": "eğitim adımı sayısı",
           "unknown": "bilgisine bağlı", "warmup": "katı, en az 1"},
    "zh-TW": {"mismatch": "不同", "together": "合起來為", "filled": "訓練步數", "unknown": "取決於",
              "warmup": "至少為 1"},
}
ENGLISH_FRAME = ("differs from", "(together", "the number of processes", "the number of training steps", "compares",
                 "a value that depends on", "it matches with", "not checked here", "of the training steps",
                 "at least", "max_steps not given")


def _check(tmp_path: Path, lang: str, ds: dict = DS, *flags: str) -> tuple[int, str]:
    (tmp_path / "ds.json").write_text(json.dumps(ds))
    (tmp_path / "args.yaml").write_text(ARGS)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}
    done = subprocess.run([sys.executable, "-m", "wizard", "check", str(tmp_path / "ds.json"), "--training-args",
                           str(tmp_path / "args.yaml"), "--lang", lang, *flags],
                          capture_output=True, text=True, encoding="utf-8", env=env, cwd=ROOT, timeout=120)
    return done.returncode, done.stdout + done.stderr


def test_english_says_what_the_translations_are_checked_against(tmp_path):
    code, out = _check(tmp_path, "en")
    assert code == 2
    assert "`gradient_clipping: 1.0` in the DeepSpeed JSON differs from max_grad_norm 0.5 in " in out
    assert "adam_beta1 0.9, adam_beta2 0.999 (together [0.9, 0.999]) in " in out
    assert "scheduler.params.total_num_steps = the number of training steps (from the epochs and the dataset: " \
           "max_steps not given)" in out
    assert "scheduler.params.warmup_num_steps = 0.1 of the training steps, at least 1 (warmup_steps)" in out
    assert "compares `train_batch_size: 64` with a value that depends on the number of processes (it matches with 8)" \
        in out


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_the_trainer_comparisons_are_translated_with_keys_and_numbers_as_written(tmp_path, lang):
    code, out = _check(tmp_path, lang)
    assert code == 2
    words = WORDS[lang]
    mismatches = [ln for ln in out.splitlines() if "[ds-json-trainer-argument-mismatch]" in ln]
    clip = next(ln for ln in mismatches if ln.startswith("ERROR [ds-json-trainer-argument-mismatch] gradient_clipping"))
    assert "`gradient_clipping: 1.0`" in clip and "max_grad_norm 0.5" in clip and words["mismatch"] in clip
    betas = next(ln for ln in mismatches if "optimizer.params.betas" in ln.split(":")[0])
    assert "`optimizer.params.betas: [0.9, 0.95]`" in betas and "adam_beta1 0.9, adam_beta2 0.999" in betas
    assert "[0.9, 0.999]" in betas and words["together"] in betas
    filled = next(ln for ln in out.splitlines() if "[ds-json-trainer-auto-filled]" in ln)
    assert "train_micro_batch_size_per_gpu = 2 (per_device_train_batch_size)" in filled
    assert "scheduler.params.total_num_steps = " + ("eğitim adımı sayısı" if lang == "tr" else "訓練步數") in filled
    assert "scheduler.params.warmup_num_steps = " in filled and "0.1" in filled and "warmup_steps" in filled
    assert words["filled"] in filled and words["warmup"] in filled
    unknown = next(ln for ln in out.splitlines() if "[ds-json-trainer-value-unknown]" in ln)
    assert "`train_batch_size: 64`" in unknown and "8" in unknown and words["unknown"] in unknown
    for line in (clip, betas, filled, unknown):
        left = [w for w in ENGLISH_FRAME if w in line]
        assert not left, f"English left in {line!r}: {left}"


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_a_batch_that_no_number_of_processes_matches_is_translated(tmp_path, lang):
    code, out = _check(tmp_path, lang, {**DS, "train_batch_size": 63})
    assert code == 2
    line = next(ln for ln in out.splitlines() if "[ds-json-trainer-argument-mismatch] train_batch_size" in ln)
    assert "`train_batch_size: 63`" in line and "per_device_train_batch_size 2" in line
    assert "gradient_accumulation_steps 4 = 8" in line
    assert ("değerinin bir katı" if lang == "tr" else "的倍數") in line
    assert not [w for w in ("a multiple of", "which", "for any number", "the number of processes", "differs")
                if w in line]


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_the_batch_against_the_given_number_of_processes_is_translated(tmp_path, lang):
    code, out = _check(tmp_path, lang, DS, "--num-processes", "2")
    assert code == 2
    line = next(ln for ln in out.splitlines() if "[ds-json-trainer-argument-mismatch] train_batch_size" in ln)
    assert "`train_batch_size: 64`" in line
    assert "per_device_train_batch_size 2 x gradient_accumulation_steps 4 = 16" in line
    message = line.split(": ", 1)[1]  # after the rule and the keys (num_processes among them)
    assert ("2 süreç x" if lang == "tr" else "2 個行程 x") in message and "processes" not in message


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_the_trainer_arguments_without_a_file_are_named_in_the_language(lang):
    """The answers' TrainingArguments (the wizard, --headless) have no file: "the TrainingArguments" is a variant of
    the sentence, translated with it."""
    from wizard.core.localized.messages import translated

    english = ("`gradient_clipping: 1.0` in the DeepSpeed JSON differs from max_grad_norm 0.5 in the "
               "TrainingArguments: the Hugging Face Trainer compares the two and raises 'Please correct the "
               "following DeepSpeed config values that mismatch TrainingArguments values' before training.")
    said = translated(english, lang)
    assert said is not None and "TrainingArguments" in said and "max_grad_norm 0.5" in said
    assert "in the TrainingArguments" not in said and "differs" not in said
    filled = ("The Hugging Face Trainer fills these \"auto\" values from the TrainingArguments: "
              "train_batch_size = the number of processes x 2 x 4; gradient_clipping = 1.0 (max_grad_norm).")
    said = translated(filled, lang)
    assert said is not None and "from the TrainingArguments" not in said and "the number of processes" not in said
    assert "train_batch_size = " in said and " x 2 x 4; gradient_clipping = 1.0 (max_grad_norm)" in said


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_the_note_without_arguments_translates_its_rows(lang):
    """``--trainer hf`` without arguments: the note of the concrete values the Trainer compares, row by row."""
    from wizard.core.localized.messages import translated

    english = ("Under the Hugging Face Trainer, these concrete values must equal TrainingArguments, or the Trainer "
               "raises 'mismatch TrainingArguments values' before training: train_batch_size 64 = world size x "
               "per_device_train_batch_size x gradient_accumulation_steps; gradient_clipping 1.0 = max_grad_norm (its "
               "default); scheduler.params.total_num_steps 100 = the number of training steps (max_steps or epochs); "
               "scheduler.params.warmup_num_steps 10 = warmup_steps (or warmup_ratio x steps).")
    said = translated(english, lang)
    assert said is not None
    for kept in ("train_batch_size 64 = world size", "per_device_train_batch_size x gradient_accumulation_steps",
                 "gradient_clipping 1.0 = max_grad_norm", "scheduler.params.total_num_steps 100 = ",
                 "scheduler.params.warmup_num_steps 10 = warmup_steps", "warmup_ratio x ", "max_steps"):
        assert kept in said
    assert not [w for w in ("its default", "the number of training steps", "or epochs", "(or warmup_ratio")
                if w in said]


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_the_inline_values_the_trainer_compares_are_translated_row_by_row(tmp_path, lang):
    """An accelerate YAML's inline accumulation and clipping under ``--trainer hf``: each row its own sentence."""
    (tmp_path / "acc.yaml").write_text("compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\n"
                                       "deepspeed_config:\n  zero_stage: 2\n  gradient_accumulation_steps: 4\n"
                                       "  gradient_clipping: 1.0\nmixed_precision: bf16\nnum_processes: 2\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}
    done = subprocess.run([sys.executable, "-m", "wizard", "check", str(tmp_path / "acc.yaml"), "--trainer", "hf",
                           "--lang", lang], capture_output=True, text=True, encoding="utf-8", env=env, cwd=ROOT,
                          timeout=120)
    line = next(ln for ln in done.stdout.splitlines() if "[ds-json-trainer-values-must-match]" in ln)
    assert "gradient_accumulation_steps 4 = gradient_accumulation_steps" in line
    assert "gradient_clipping 1 = max_grad_norm" in line and " 1" in line
    assert ("varsayılanı 1" if lang == "tr" else "預設為 1") in line
    assert ("varsayılan değeri" if lang == "tr" else "其預設值") in line
    assert "default" not in line
