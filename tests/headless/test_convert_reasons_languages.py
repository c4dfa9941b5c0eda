"""Issue 27: the reasons `convert`'s findings compute, in the language inside the translated sentence: why a
setting has no place on the target and its counterpart there (convert-dropped: the catalogue's texts, translated by
the setting's id), the switch report's sentence of convert-meaning-changed, and the zero3-only and prefetch reasons
(``said(...)`` phrases). Keys and values as written; the English output as it was."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from wizard.core import localized

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "check_corpus"
LANGS = ["tr", "zh-TW"]
PREFETCH_FSDP1 = """\
compute_environment: LOCAL_MACHINE
distributed_type: FSDP
fsdp_config:
  fsdp_backward_prefetch: NO_PREFETCH
  fsdp_forward_prefetch: true
  fsdp_sharding_strategy: SHARD_GRAD_OP
  fsdp_version: 1
mixed_precision: bf16
num_machines: 1
num_processes: 8
"""


@cache
def _convert(config: str, to: str, lang: str, out: str) -> str:
    """`fsdpds-wizard convert CONFIG --to TO --out OUT --lang LANG` as a user runs it: its output."""
    proc = subprocess.run([sys.executable, "-m", "wizard", "convert", config, "--to", to, "--out", out,
                           "--lang", lang], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stdout


def _finding(output: str, rule: str, key: str) -> str:
    """The first line of the finding of ``rule`` on ``key``."""
    found = [line for line in output.splitlines() if f"[{rule}] " in line and f"] {key}" in line]
    assert found, f"no {rule} on {key} in:\n{output}"
    return found[0]


def _corpus(tmp_path_factory, case: str, to: str, lang: str) -> str:
    out = tmp_path_factory.getbasetemp() / f"out-{case}-{to}-{lang}"
    return _convert(str(CORPUS / case / "accelerate_config.yaml"), to, lang, str(out))


def _backend_part(text: str, backend: str) -> str:
    """The part of a counterpart line (English or translated) written for ``backend``, without its final period."""
    for part in re.split(r"(?:; ?|；)(?=(?:DeepSpeed|FSDP[12]?) ?[:：])", text):
        m = re.match(rf"{backend} ?[:：] ?", part)
        if m:
            return part[m.end():].rstrip(".。")
    raise AssertionError(f"no {backend} part in {text!r}")


@pytest.mark.parametrize("lang", LANGS)
def test_a_dropped_setting_s_reason_and_counterpart_are_in_the_language(tmp_path_factory, lang):
    case = "13_fsdp1_shard_grad_op_size_wrap"
    english = _finding(_corpus(tmp_path_factory, case, "deepspeed", "en"), "convert-dropped", "wrapping.policy")
    got = _finding(_corpus(tmp_path_factory, case, "deepspeed", lang), "convert-dropped", "wrapping.policy")
    why_en = localized.not_applicable("wrapping.policy", "deepspeed", "en")
    part_en = _backend_part(localized.counterpart("wrapping.policy", "en"), "DeepSpeed")
    assert english == ("INFO [convert-dropped] wrapping.policy: wrapping.policy = size (fsdp_auto_wrap_policy) has no "
                       f"place on DeepSpeed: {why_en} DeepSpeed's counterpart: {part_en}. Not written")
    why = localized.not_applicable("wrapping.policy", "deepspeed", lang)
    part = _backend_part(localized.counterpart("wrapping.policy", lang), "DeepSpeed")
    assert why != why_en and part != part_en
    assert why in got and part in got
    assert why_en not in got and part_en not in got and "counterpart" not in got and "Not written" not in got
    assert "wrapping.policy = size" in got and "fsdp_auto_wrap_policy" in got


@pytest.mark.parametrize("lang", LANGS)
def test_the_switch_report_s_sentence_is_in_the_language_in_convert_meaning_changed(tmp_path_factory, lang):
    case = "10_fsdp1_accelerate_template"
    english = _finding(_corpus(tmp_path_factory, case, "deepspeed", "en"), "convert-meaning-changed",
                       "loading.ram_efficient")
    got = _finding(_corpus(tmp_path_factory, case, "deepspeed", lang), "convert-meaning-changed",
                   "loading.ram_efficient")
    head = "INFO [convert-meaning-changed] loading.ram_efficient: loading.ram_efficient = true: "
    assert english.startswith(head) and got.startswith(head)
    sentence = english[len(head):]
    assert sentence.startswith("FSDP broadcast rank 0's weights while sharding")
    assert got[len(head):] == localized.said(sentence, lang) != sentence
    assert "zero3_init_flag" in got and "ZeRO-3" in got


@pytest.mark.parametrize("lang", LANGS)
def test_the_zero3_only_reasons_are_in_the_language(tmp_path_factory, lang):
    case = "13_fsdp1_shard_grad_op_size_wrap"
    out_en = _corpus(tmp_path_factory, case, "deepspeed", "en")
    out = _corpus(tmp_path_factory, case, "deepspeed", lang)
    for key, reason in (("loading.ram_efficient", "every rank loads the whole model (zero3_init_flag is off below "
                                                  "ZeRO-3)"),
                        ("checkpoint.format", "the full save is a ZeRO-3 option; ZeRO-0/1/2 checkpoints hold the "
                                              "whole weights once and per-rank optimizer state")):
        english = _finding(out_en, "convert-zero3-only", key)
        assert f"has no ZeRO-2 form: {reason}; the converted answers say " in english
        got = _finding(out, "convert-zero3-only", key)
        translated = localized.said(reason, lang)
        assert translated != reason and translated in got
        assert reason not in got and "the converted answers say" not in got
    assert "loading.ram_efficient = true" in _finding(out, "convert-zero3-only", "loading.ram_efficient")
    assert "zero3_init_flag" in _finding(out, "convert-zero3-only", "loading.ram_efficient")
    assert "checkpoint.format = full" in _finding(out, "convert-zero3-only", "checkpoint.format")


@pytest.mark.parametrize("lang", LANGS)
def test_the_prefetch_reason_below_zero3_is_in_the_language(tmp_path_factory, lang):
    config = tmp_path_factory.getbasetemp() / "prefetch_fsdp1.yaml"
    config.write_text(PREFETCH_FSDP1)
    base = tmp_path_factory.getbasetemp()
    reason = "DeepSpeed below ZeRO-3 gathers nothing, so there is nothing to prefetch"
    english = _finding(_convert(str(config), "deepspeed", "en", str(base / "pf-en")), "convert-prefetch",
                       "prefetch.backward")
    assert english == ("INFO [convert-prefetch] prefetch.backward, prefetch.forward: FSDP1's prefetch settings do not "
                       "carry over (fsdp_backward_prefetch none, fsdp_forward_prefetch true): "
                       f"{reason}. Not written")
    got = _finding(_convert(str(config), "deepspeed", lang, str(base / f"pf-{lang}")), "convert-prefetch",
                   "prefetch.backward")
    translated = localized.said(reason, lang)
    assert translated != reason and translated in got and reason not in got
    assert "fsdp_backward_prefetch none, fsdp_forward_prefetch true" in got


def test_a_word_alone_of_the_catalogue_is_not_taken_for_a_value():
    """`none` is a counterpart's whole DeepSpeed part somewhere and a value everywhere: it stays as written."""
    from wizard.core.localized.messages import known

    assert known("none", "tr") is None and known("transparent", "zh-TW") is None
    why = localized.not_applicable("wrapping.policy", "deepspeed", "en")
    assert known(why, "tr") == localized.not_applicable("wrapping.policy", "deepspeed", "tr")
    assert known(why, "en") is None
