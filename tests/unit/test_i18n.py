"""Issue 27: the languages. The locale and --lang choose the language; every English text has its translation in
each language, made from the English as it is now (a fingerprint of it stored beside each), keeping what must stay
as written (keys, values, names, numbers, placeholders) and the guide's words (the glossary); CJK text is laid out
by terminal cells."""
from __future__ import annotations

import json
import re
import textwrap

import pytest

from wizard.core import i18n, localized
from wizard.core.i18n import cells
from wizard.core.localized import __main__ as tool
from wizard.core.localized.check import glossary, problems, protected
from wizard.core.localized.ui import UI

OTHERS = [lang for lang in i18n.LANGUAGES if lang != i18n.ENGLISH]


@pytest.mark.parametrize(("env", "lang"), [
    ({"LANG": "tr_TR.UTF-8"}, "tr"),
    ({"LANG": "tr_TR"}, "tr"),
    ({"LANG": "zh_TW.UTF-8"}, "zh-TW"),
    ({"LANG": "zh_Hant_TW.UTF-8"}, "zh-TW"),
    ({"LANG": "zh_Hant"}, "zh-TW"),
    ({"LANG": "zh_CN.UTF-8"}, "en"),
    ({"LANG": "de_DE.UTF-8"}, "en"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LANG": "POSIX"}, "en"),
    ({}, "en"),
    ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "tr_TR.UTF-8"}, "tr"),
    ({"LANG": "tr_TR.UTF-8", "LC_ALL": "zh_TW.UTF-8"}, "zh-TW"),
    ({"LANG": "tr_TR.UTF-8", "LC_ALL": ""}, "tr"),  # an empty variable counts as unset
    ({"LC_ALL": "C", "LANG": "tr_TR.UTF-8"}, "en"),
])
def test_the_locale_chooses_the_language(env, lang):
    assert i18n.from_locale(env) == lang


@pytest.mark.parametrize(("given", "lang"), [("tr", "tr"), ("TR", "tr"), ("tr_TR", "tr"), ("zh-TW", "zh-TW"),
                                            ("zh_TW", "zh-TW"), ("zh-tw", "zh-TW"), ("zh-Hant", "zh-TW"), ("en", "en")])
def test_lang_accepts_the_usual_spellings(given, lang):
    assert i18n.resolve(given) == lang


@pytest.mark.parametrize("given", ["fr", "zh-CN", "zh", "", "turkish"])
def test_an_unknown_language_is_refused_naming_the_languages(given):
    with pytest.raises(ValueError, match="en, tr, zh-TW"):
        i18n.resolve(given)


def test_a_translation_made_from_other_english_is_not_shown(tmp_path, monkeypatch):
    monkeypatch.setattr(i18n, "HERE", str(tmp_path))
    i18n.forget()
    (tmp_path / "tr").mkdir()
    (tmp_path / "tr" / "p.json").write_text(json.dumps({
        "now": {"fp": i18n.fingerprint("Offload moves state."), "text": "Offload durumu taşır."},
        "old": {"fp": i18n.fingerprint("Offload moved state."), "text": "eski"}}), encoding="utf-8")
    try:
        assert i18n.translate("p", "now", "Offload moves state.", "tr") == "Offload durumu taşır."
        assert i18n.translate("p", "old", "Offload moves state.", "tr") == "Offload moves state."  # stale: English
        assert i18n.translate("p", "none", "Something else.", "tr") == "Something else."  # missing: English
        assert i18n.translate("p", "now", "Offload moves state.", "en") == "Offload moves state."
    finally:
        i18n.forget()


def test_set_language_holds_until_reset(monkeypatch):
    monkeypatch.setenv("LANG", "tr_TR.UTF-8")
    assert i18n.language() == "tr"
    i18n.set_language("zh-TW")
    assert i18n.language() == "zh-TW"
    i18n.reset()
    assert i18n.language() == "tr"


# --- the catalogue of translations --------------------------------------------------------------------------------

def test_the_sources_have_unique_keys_and_text():
    seen = set()
    for part, key, english in localized.sources():
        assert (part, key) not in seen, (part, key)
        seen.add((part, key))
        assert english.strip(), (part, key)


@pytest.mark.parametrize("lang", OTHERS)
def test_every_english_text_has_its_translation_made_from_it(lang):
    bad = {part: row for part, row in tool.status(lang).items()
           if row["missing"] or row["stale"] or row["orphaned"]}
    assert not bad, (f"{lang}: translations missing, stale (the English changed) or orphaned per part: {bad}; "
                     f"`python -m wizard.core.localized worksheet {lang} PART` gives the texts to translate")


@pytest.mark.parametrize("lang", OTHERS)
def test_translations_keep_keys_values_numbers_and_the_glossary(lang):
    bad = tool.problems_of(lang)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("lang", OTHERS)
def test_placeholders_fill_in_every_language(lang):
    for key, english in UI.items():
        names = set(re.findall(r"\{(\w+)\}", english))
        assert localized.ui(key, lang, **{n: "X" for n in names}).count("X") >= len(names), key


def test_protected_spans():
    english = ("Writes fsdp_offload_params and zero_optimization.offload_param.device (about 65,504) with "
               "{target}, e.g. CPUOffloadPolicy on FSDP2 via `accelerate launch` --config_file, 4 GPUs.")
    assert protected(english) == {"fsdp_offload_params", "zero_optimization.offload_param.device", "65,504",
                                  "{target}", "CPUOffloadPolicy", "FSDP2", "`accelerate launch`", "--config_file",
                                  "4", "GPU"}


@pytest.mark.parametrize(("translation", "found"), [
    ("{target} ile fsdp_offload_params ayarlanır; 65,504.", []),
    ("{target} ile fsdp_ofload_params ayarlanır; 65,504.", ["lost (keep as written): fsdp_offload_params"]),
    ("fsdp_offload_params ayarlanır; 65,504.", ["lost (keep as written): {target}"]),
    ("{target} ile fsdp_offload_params ayarlanır; 65.504.", ["lost (keep as written): 65,504"]),
    ("{target} ile fsdp_offload_params\nayarlanır; 65,504.", ["lines: 1 in the English, 2 here"]),
    ("", ["empty translation"]),
])
def test_problems_name_what_a_translation_lost(translation, found):
    got = problems("Sets fsdp_offload_params with {target}; 65,504.", translation, "tr", terms=[])
    assert len(got) == len(found) and all(g.startswith(f) for g, f in zip(got, found, strict=True)), got


def test_a_lost_numbered_placeholder_is_a_problem():
    english = "`{0}` is read by accelerate {1} with 1 process."  # the number 1 must not stand in for {1}
    assert problems(english, "`{0}` 1 süreçle accelerate {1} tarafından okunur.", "tr", terms=[]) == []
    got = problems(english, "`{0}` 1 süreçle accelerate tarafından okunur.", "tr", terms=[])
    assert got and got[0].startswith("lost (keep as written): {1}"), got


def test_the_glossary_is_enforced_and_says_why():
    for lang in OTHERS:
        terms = glossary(lang)
        assert terms and all(t["use"] and t["note"] for t in terms), lang
    zh = glossary("zh-TW")
    assert problems("Offload moves the optimizer state.", "解除安裝會移動最佳化器狀態。", "zh-TW", zh) == [
        "glossary: '\\\\boffload(s|ed|ing)?\\\\b' is written 卸載 in zh-TW"]
    assert problems("Offload moves the optimizer state.", "卸載會移動最佳化器狀態。", "zh-TW", zh) == []
    tr = glossary("tr")
    assert problems("Saves a checkpoint.", "Bir kontrol noktası kaydeder.", "tr", tr) == []
    assert problems("Saves a checkpoint.", "Bir checkpoint kaydeder.", "tr", tr)


# --- laid out by cells ----------------------------------------------------------------------------------------------

def test_cjk_takes_two_cells():
    assert cells.width("卸載 fsdp") == 9
    assert cells.ljust("卸載", 6) == "卸載  "


@pytest.mark.parametrize("width", [20, 33, 50, 77])
def test_cjk_wraps_by_cells_without_losing_a_character(width):
    text = ("FSDP 只允許全部或不卸載（即要麼卸載所有參數、梯度和最佳化器，要麼全部保留在 GPU 中），而 DeepSpeed "
            "可以分別卸載參數與最佳化器狀態：offload_optimizer_device 與 offload_param_device。")
    lines = cells.wrap(text, width, "  ", "  ")
    assert all(cells.width(line) <= width for line in lines), lines
    assert "".join(line.strip() for line in lines).replace(" ", "") == text.replace(" ", "")
    assert not any(line.strip()[0] in "，。）：" for line in lines)  # no line starts with a closing mark
    if width >= 26:  # a key is never cut where it fits a line
        assert any("offload_optimizer_device" in line for line in lines), lines


def test_text_without_wide_characters_wraps_as_before():
    text = "Keeps the parameter shards in host RAM (or NVMe with DeepSpeed); ZeRO-1/2/3 and all-or-nothing offload."
    for width in (20, 40, 79):
        assert cells.wrap(text, width) == textwrap.wrap(text, width)
    turkish = "Parametre shard'larını ana makinenin RAM'inde (DeepSpeed ile NVMe'de) tutar; yalnızca ZeRO-3'te geçerli."
    assert cells.wrap(turkish, 30) == textwrap.wrap(turkish, 30)


def test_the_glossary_tables_in_the_docs_are_current():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "translations.md").read_text(encoding="utf-8")
    marker = "<!-- glossary: generated -->\n"
    assert doc.split(marker, 1)[1] == tool.glossary_markdown(), (
        "docs/translations.md: regenerate the glossary tables below the marker with "
        "`python -m wizard.core.localized glossary`")
