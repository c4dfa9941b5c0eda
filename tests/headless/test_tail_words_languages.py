"""The last English phrases of `check` in Turkish and Traditional Chinese (issue 27): the version history a DeepSpeed
JSON's rejected key gets ("DeepSpeed 0.17.0 and older ignored it, 0.17.1 and newer reject it; your target is
DeepSpeed 0.19.8"), the fixes of a removed block, and the fixes whose one word of their own is their verb ("Write
{0}.", "Delete `{0}.{1}`."); versions and keys exactly as written, the English unchanged."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("en", "tr", "zh-TW")
BASE = {"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1}

# the configs checked, each for a DeepSpeed target: (file name, its text, the flags)
CONFIGS = {
    "current": ("ds.json", json.dumps({
        **BASE, "bf16": {"enabled": True, "auto_cast": True}, "nebula": {"enabled": True}, "amp": {"enabled": True},
        "zero_optimization": {"stage": 2, "reduce_bucket_size": "abc", "cpu_offload": True,
                              "offload_optimizer": {"device": "cpu"}}}), ("--deepspeed-version", "0.19.8")),
    "unshipped": ("ds.json", json.dumps({**BASE, "zero_optimization": {"stage": 2},
                                         "compile": {"autoep_non_moe": True}}), ("--deepspeed-version", "0.19.4")),
    "old": ("ds.json", json.dumps({**BASE, "zero_optimization": {"stage": 2, "enable_sanity_checks": True}}),
            ("--deepspeed-version", "0.14.5")),
    "yaml": ("accelerate.yaml", "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nnum_processes: 2\n"
             "mixed_precision: bf16\ndynamo_config:\n  backend: INDUCTOR\n", ("--accelerate-version", "1.13.0")),
}


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> dict[tuple[str, str], str]:
    """(config, language) -> what `check` printed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}
    out = {}
    for name, (file, text, flags) in CONFIGS.items():
        path = tmp_path_factory.mktemp(name) / file
        path.write_text(text, encoding="utf-8")
        for lang in LANGS:
            done = subprocess.run([sys.executable, "-m", "wizard", "check", str(path), *flags, "--lang", lang],
                                  capture_output=True, text=True, encoding="utf-8", env=env, cwd=ROOT, timeout=120)
            out[name, lang] = done.stdout + done.stderr
    return out


def _finding(out: str, rule: str, key: str) -> tuple[str, str]:
    """The finding's message (after its rule and keys) and its fix (after the language's "fix:")."""
    lines = out.splitlines()
    i = next(i for i, ln in enumerate(lines) if f"[{rule}] {key}" in ln)
    message = lines[i].split(f"[{rule}] ", 1)[1].split(": ", 1)[1]
    return message, re.split(r": |：", lines[i + 1].strip(), maxsplit=1)[1]


ENGLISH_WORDS = ("older", "newer", "ignored", "reject", "accept", "target", "checked with", "schema", "between",
                 "removed in", "Write", "Delete", "delete the block", "use the", "instead")
"""Words of the phrases in English: none is left in a translated line (the quoted DeepSpeed error has none)."""

# (config, rule, key): the note in English, Turkish and Traditional Chinese
NOTES = [
    ("current", "ds-json-unknown-key", "bf16.auto_cast",
     "DeepSpeed 0.17.0 and older ignored it, 0.17.1 and newer reject it; your target is DeepSpeed 0.19.8",
     "DeepSpeed 0.17.0 ve öncesi bunu yok sayıyordu, 0.17.1 ve sonrası reddediyor; hedefiniz DeepSpeed 0.19.8",
     "DeepSpeed 0.17.0 及更早版本忽略它，0.17.1 及更新版本拒絕它; 您的目標是 DeepSpeed 0.19.8"),
    ("current", "ds-json-removed-feature", "nebula",
     "removed in DeepSpeed 0.19.7; your target is DeepSpeed 0.19.8",
     "DeepSpeed 0.19.7 sürümünde kaldırıldı; hedefiniz DeepSpeed 0.19.8",
     "已於 DeepSpeed 0.19.7 移除; 您的目標是 DeepSpeed 0.19.8"),
    ("unshipped", "ds-json-unknown-key", "compile.autoep_non_moe",
     "DeepSpeed accepts it from 0.19.8 on; your target is DeepSpeed 0.19.4, checked with the 0.19.3 schema",
     "DeepSpeed bunu 0.19.8 sürümünden itibaren kabul eder; hedefiniz DeepSpeed 0.19.4, 0.19.3 şemasıyla denetlendi",
     "DeepSpeed 從 0.19.8 起接受它; 您的目標是 DeepSpeed 0.19.4，以 0.19.3 的結構描述檢查"),
    ("old", "ds-json-unknown-key", "zero_optimization.enable_sanity_checks",
     "DeepSpeed accepts it from 0.17.6 on, 0.17.1 rejects it, releases between them not checked; your target is "
     "DeepSpeed 0.14.5",
     "DeepSpeed bunu 0.17.6 sürümünden itibaren kabul eder, 0.17.1 reddeder, aradaki sürümler denetlenmedi; "
     "hedefiniz DeepSpeed 0.14.5",
     "DeepSpeed 從 0.17.6 起接受它，0.17.1 拒絕它，兩者之間的版本未檢查; 您的目標是 DeepSpeed 0.14.5"),
]


@pytest.mark.parametrize("config,rule,key,english,turkish,chinese", NOTES)
def test_the_version_history_of_a_key_is_said_in_the_language(checked, config, rule, key, english, turkish, chinese):
    messages = {lang: _finding(checked[config, lang], rule, key)[0] for lang in LANGS}
    assert f"({english})" in messages["en"]  # the English as it was
    assert f"({turkish})" in messages["tr"]
    assert f"（{chinese}）" in messages["zh-TW"]
    for lang in ("tr", "zh-TW"):
        left = [w for w in ENGLISH_WORDS if w in messages[lang]]
        assert not left, f"English left in {messages[lang]!r}: {left}"
        assert f"`{key}`" in messages[lang]


# (config, rule, key): the fix in English, Turkish and Traditional Chinese
FIXES = [
    ("current", "ds-json-invalid-value", "zero_optimization.reduce_bucket_size",  # "Write {0}.": what DeepSpeed expects
     "Write an integer.", "Şunu yazın: bir tamsayı.", "寫入 整數。"),
    ("current", "ds-json-deprecated-and-new-key", "zero_optimization.cpu_offload",  # "Delete `{0}.{1}`."
     "Delete `zero_optimization.cpu_offload`.", "`zero_optimization.cpu_offload` anahtarını silin.",
     "刪除 `zero_optimization.cpu_offload`。"),
    ("yaml", "accelerate-key-too-new", "dynamo_config.backend",  # "Write `{0}`.", read by "Write {0}."
     "Write `dynamo_backend`.", "Şunu yazın: `dynamo_backend`.", "寫入 `dynamo_backend`。"),
    ("current", "ds-json-removed-feature", "nebula",  # a removed block's fix: literal variants
     "Delete `nebula` (delete the block).", "`nebula` bloğunu silin (bloğun tamamını silin).",
     "刪除 `nebula`（刪除整個區塊）。"),
    ("current", "ds-json-removed-feature", "amp",
     "Delete `amp` (use the fp16 / bf16 blocks (or torch_autocast)).",
     "`amp` bloğunu silin (yerine fp16 / bf16 bloklarını (ya da torch_autocast) kullanın).",
     "刪除 `amp`（改用 fp16 / bf16 區塊（或 torch_autocast））。"),
]


@pytest.mark.parametrize("config,rule,key,english,turkish,chinese", FIXES)
def test_a_fix_of_one_verb_is_said_in_the_language(checked, config, rule, key, english, turkish, chinese):
    fixes = {lang: _finding(checked[config, lang], rule, key)[1] for lang in LANGS}
    assert fixes == {"en": english, "tr": turkish, "zh-TW": chinese}
    for lang in ("tr", "zh-TW"):
        assert not [w for w in ENGLISH_WORDS if w in fixes[lang]], fixes[lang]


def _note_phrases() -> set[str]:
    """The templates of every ``said(...)`` phrase of wizard/core/ds_schema.py (the version notes)."""
    from wizard.core import ds_schema, sites
    from wizard.core.localized.messages import _variants, template_of

    found = set()
    for site in sites.sites_of(*sites.parsed(Path(ds_schema.__file__))):
        found |= {template_of(pieces) for pieces in _variants(site.message, site.function)}
    return found


NOTE_PHRASES = {
    "your target is DeepSpeed {0}, checked with the {1} schema", "your target is DeepSpeed {0}",
    "DeepSpeed accepts it from {0} on",
    "DeepSpeed accepts it from {0} on, {1} rejects it, releases between them not checked",
    "removed in DeepSpeed {0}", "DeepSpeed {0} accepted it, {1} rejects it, releases between them not checked",
    "DeepSpeed {0} and older ignored it, {1} and newer reject it",
    "DeepSpeed {0} and older ignored it, {1} and newer reject it, releases between them not checked",
}


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_every_wording_of_the_version_note_is_translated_inside_a_finding(lang):
    """Each phrase the note is made of, the shapes no shipped schema shows today too, comes out translated inside
    the unknown key's and the removed feature's sentence, its versions as written."""
    from wizard.core.localized.messages import translated

    assert _note_phrases() == NOTE_PHRASES
    versions = ("0.16.6", "0.17.1")
    for phrase in sorted(NOTE_PHRASES):
        said = phrase.format(*versions)
        own = translated(said, lang)
        assert own is not None and all(v in own for v in versions[:phrase.count("{")]), (phrase, own)
        yours = "your target is DeepSpeed 0.19.8"
        note = f"{said}; {yours}" if not said.startswith("your target") else f"removed in DeepSpeed 0.19.7; {said}"
        for sentence in (f"`bf16.auto_cast` is not a key DeepSpeed accepts here ({note}); building the config fails "
                         "with 'Extra inputs are not permitted'.",
                         f"`amp` belongs to a feature DeepSpeed removed ({note}); DeepSpeed refuses a config that "
                         "still has it (see https://github.com/deepspeedai/DeepSpeed/issues/8489)."):
            whole = translated(sentence, lang)
            assert whole is not None and own in whole, (sentence, whole)
            left = [w for w in ENGLISH_WORDS if w in whole]
            assert not left, f"English left in {whole!r}: {left}"


def test_the_fixes_of_one_verb_are_templates():
    """"Write {0}." and "Delete `{0}.{1}`." are templates (ONE_WORD) though their verb is their one word;
    "Write `{0}`." is not one: "Write {0}." reads it (a template of its own could not be told apart from it)."""
    from wizard.core.localized.messages import ONE_WORD, best, templates, translated

    assert {"Write {0}.", "Delete `{0}.{1}`."} <= ONE_WORD <= {t for _, t in templates()}
    assert "Write `{0}`." not in {t for _, t in templates()}
    assert best("Write `dynamo_backend`.", "tr").english == "Write {0}."
    # a fix with words of its own is still read by its own, heavier template
    assert best("Write `foo` as an object, or delete it.", "tr").english == "Write `{0}` as an object, or delete it."
    assert translated("Delete `a.b`.", "zh-TW") == "刪除 `a.b`。"
