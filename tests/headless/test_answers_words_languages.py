"""The computed English inside an answers file's findings, a host's refusal, ``explain``'s unknown name and a file's
top level, in Turkish and Traditional Chinese (issue 27): what a value must be ("an integer from 1 to 65,535, or
null"), the fixes of answers-bad-value, why a host name is refused, "did you mean ... (a key of ...)", "a number
(108)" and a catalogue counterpart given as a fix. Each through the real command (the command line's ``main`` in
this process), the keys, values and names exactly as written, the English words gone; the English itself unchanged.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from wizard.cli import main
from wizard.core import localized
from wizard.core.answers import answers_from_mapping
from wizard.core.findings import WARNING, Finding
from wizard.core.localized import phrases

LANGS = ("tr", "zh-TW")



def _run(capsys, *args: str) -> tuple[int, str]:
    rc = main(list(args))
    out = capsys.readouterr()
    return rc, out.out + out.err


def _answers(tmp_path: Path, text: str) -> str:
    path = tmp_path / "answers.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


BAD_VALUES = ("launch:\n  main_process_port: [1]\n  num_processes: 1.5\n  ds_exclusion_filter: ''\n"
              "sharding:\n  strategy: ful\nloading:\n  ram_efficient: 3\n")

# each language: the words of 1 (answers-bad-value), 2 (a host refused), 3 (explain's unknown name), 4 (a top level
# that is no mapping), 5 (a counterpart as a fix, and the fix when there is none)
WORDS = {
    "tr": {
        "port": "beklenen: 1 ile 65,535 arasında bir tamsayı ya da null",
        "processes": "beklenen: 1 ile 1,048,576 arasında bir tamsayı",
        "filter": "beklenen: boş olmayan bir dize ya da null",
        "default": "beklenen değerlerden birini yazın ya da varsayılanı (None) kullanmak için anahtarı kaldırın",
        "guess": "'full' mi demek istediniz?",
        "bool": "beklenen: true veya false",
        "dash": "'-oProxyCommand=x': '-' ile başlıyor, bu yüzden ssh ve pdsh onu bir seçenek olarak okurdu",
        "dots": "'a..b': noktalar arasında boş bir parça var",
        "holds": "'a$b(c': '$', '(' içeriyor: bir ana makine adında yalnızca harfler",
        "ip": '`main_process_ip: "a..b"`: noktalar arasında boş bir parça var; makine 0',
        "near": "bunlardan birini mi demek istediniz: 'offload_params' (offload.params ve offload.optimizer "
                "ayarlarının anahtarı) ya da 'offload.params'? gruplar: backend, launch,",
        "number": "en üst düzey bir sayı (108); anahtarlardan",
        "text": "en üst düzey bir metin değeri ('hello')",
        "counterpart": "Düzeltme: DeepSpeed: modelde gradyan checkpointing'ini",
        "drop": "kaldırın ya da backend'i değiştirin",
    },
    "zh-TW": {
        "port": "預期為 1 到 65,535 之間的整數，或 null",
        "processes": "預期為 1 到 1,048,576 之間的整數",
        "filter": "預期為 非空字串或 null",
        "default": "請寫入預期的值之一，或移除此鍵以使用預設值（None）",
        "guess": "您是指 'full' 嗎？",
        "bool": "預期為 true 或 false",
        "dash": "'-oProxyCommand=x': 它以 '-' 開頭，因此 ssh 與 pdsh 會把它當成選項讀取",
        "dots": "'a..b': 它在兩個點之間有空的部分",
        "holds": "'a$b(c': 它含有 '$', '('：主機名稱只能有字母",
        "ip": "`main_process_ip：\"a..b\"`: 它在兩個點之間有空的部分；它必須是機器 0",
        "near": "您是指 'offload_params'（offload.params 與 offload.optimizer 的鍵） 或 'offload.params' 嗎？群組："
                "backend, launch,",
        "number": "最上層是 數字（108），不是鍵的對應",
        "text": "最上層是 文字值（'hello'），",
        "counterpart": "修正：DeepSpeed：在模型上啟用梯度檢查點",
        "drop": "請移除它，或切換後端",
    },
}


@pytest.mark.parametrize("lang", LANGS)
def test_an_answers_files_bad_values_are_said_in_the_language(lang, tmp_path, capsys):
    path = _answers(tmp_path, BAD_VALUES)
    rc, english = _run(capsys, "--headless", path, "--out", str(tmp_path / "out"))
    assert rc != 0
    for phrase in ("'launch.main_process_port' is [1] (list); expected an integer from 1 to 65,535, or null",
                   "'launch.num_processes' is 1.5 (float); expected an integer from 1 to 1,048,576",
                   "'launch.ds_exclusion_filter' is '' (str); expected a non-empty string or null",
                   "fix: write one of the expected values, or remove the key to use the default (None)",
                   "fix: did you mean 'full'?", "expected true or false"):
        assert phrase in english, (phrase, english)
    rc, out = _run(capsys, "--headless", path, "--out", str(tmp_path / "out"), "--lang", lang)
    assert rc != 0
    words = WORDS[lang]
    for key in ("port", "processes", "filter", "default", "guess", "bool"):
        assert words[key] in out, (key, out)
    for kept in ("'launch.main_process_port'", "[1] (list)" if lang == "tr" else "[1]（list）", "'sharding.strategy'",
                 "'ful'", "'loading.ram_efficient'"):
        assert kept in out, (kept, out)
    for gone in ("an integer", "from 1 to", "or null", "non-empty string", "write one of the expected",
                 "did you mean", "true or false", "expected"):
        assert gone not in out, (gone, out)


@pytest.mark.parametrize("lang", LANGS)
def test_a_number_out_of_range_says_too_small_and_the_range_fix_in_the_language(lang, tmp_path, capsys):
    path = _answers(tmp_path, "launch:\n  num_processes: 0\n  main_process_port: 70000\n")
    rc, english = _run(capsys, "--headless", path, "--out", str(tmp_path / "out"))
    assert "'launch.num_processes' is 0 (int); too small: expected an integer from 1 to 1,048,576" in english
    assert "too large: expected an integer from 1 to 65,535, or null" in english
    assert "fix: write a value in that range, or remove the key to use the default (2)" in english
    rc, out = _run(capsys, "--headless", path, "--out", str(tmp_path / "out"), "--lang", lang)
    small, large, fix = {"tr": ("çok küçük, beklenen: 1 ile 1,048,576", "çok büyük, beklenen: 1 ile 65,535",
                                "bu aralıkta bir değer yazın ya da varsayılanı (2) kullanmak"),
                         "zh-TW": ("太小：預期為 1 到 1,048,576", "太大：預期為 1 到 65,535",
                                   "請寫入此範圍內的值，或移除此鍵以使用預設值（2）")}[lang]
    assert small in out and large in out and fix in out, out
    assert "too small" not in out and "too large" not in out and "in that range" not in out


@pytest.mark.parametrize("lang", LANGS)
def test_what_a_value_must_be_is_read_whole_wrapped_words_included(lang):
    """The words that wrap others (``, or null``, ``, or 'auto'``) are read before DeepSpeed's ``a number {sign}
    {bound}``, which would take ``from 0 to 1, or null`` for its bound; an unknown inner phrase leaves it alone."""
    zh = lang == "zh-TW"
    assert phrases.expected("a number from 0 to 1, or null", lang) == (
        "0 到 1 之間的數字，或 null" if zh else "0 ile 1 arasında bir sayı ya da null")
    assert phrases.expected("an integer >= 1, or 'auto', or null", lang) == (
        ">= 1 的整數，或 'auto'，或 null" if zh else ">= 1 olan bir tamsayı ya da 'auto' ya da null")
    assert phrases.expected("a 2,770-digit number", lang) == ("2,770 位數的數字" if zh else "2,770 basamaklı bir sayı")
    assert phrases.expected("something else, or null", lang) is None


def test_the_english_of_the_expected_words_is_unchanged():
    a, findings = answers_from_mapping({"launch": {"main_process_port": 10**30, "num_processes": "8"},
                                        "backend": "fsdpx", "loading": {"ram_efficient": "yes"}})
    messages = {f.keys[0]: (f.message, f.fix) for f in findings}
    assert messages["launch.main_process_port"][0] == ("'launch.main_process_port' is a 31-digit number (int); "
                                                       "too large: expected an integer from 1 to 65,535, or null")
    assert messages["launch.num_processes"] == (
        "'launch.num_processes' is '8' (str); expected an integer from 1 to 1,048,576",
        "write it as a plain integer without quotes or exponent: 8")
    assert messages["backend"][1] == "did you mean 'fsdp'?"
    assert messages["loading.ram_efficient"][0] == "'loading.ram_efficient' is 'yes' (str); expected true or false"


@pytest.mark.parametrize("lang", LANGS)
def test_a_refused_host_names_its_reason_in_the_language(lang, tmp_path, capsys):
    path = _answers(tmp_path, "backend: deepspeed\nlaunch:\n  num_machines: 3\n  main_process_ip: 10.0.0.1\n"
                              "  hosts: ['-oProxyCommand=x', 'a..b', 'a$b(c']\n")
    rc, english = _run(capsys, "--headless", path, "--out", str(tmp_path / "out"))
    assert ("launch.hosts: '-oProxyCommand=x': it starts with '-', so ssh and pdsh would read it as an option; "
            "'a..b': it has an empty part between dots; 'a$b(c': it holds '$', '(': a host name has only letters, "
            "digits, '-' and '.' (a host is") in english
    rc, out = _run(capsys, "--headless", path, "--out", str(tmp_path / "out"), "--lang", lang)
    for key in ("dash", "dots", "holds"):
        assert WORDS[lang][key] in out, (key, out)
    for gone in ("it starts with", "empty part", "it holds", "a host name has only"):
        assert gone not in out, (gone, out)


@pytest.mark.parametrize("lang", LANGS)
def test_a_configs_main_process_ip_refused_gives_its_reason_in_the_language(lang, tmp_path, capsys, monkeypatch):
    config = tmp_path / "accelerate_config.yaml"
    config.write_text("compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nnum_machines: 2\n"
                      "num_processes: 16\nmachine_rank: 0\nmain_process_ip: \"a..b\"\nmain_process_port: 29500\n"
                      "mixed_precision: bf16\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    rc, english = _run(capsys, "check", config.name)
    assert "it has an empty part between dots; it must be machine 0's IP address" in english
    rc, out = _run(capsys, "check", config.name, "--lang", lang)
    assert WORDS[lang]["ip"] in out, out
    assert "empty part" not in out


@pytest.mark.parametrize("lang", LANGS)
def test_explains_did_you_mean_is_in_the_language(lang, capsys):
    rc, english = _run(capsys, "explain", "ofload")
    assert rc == 2
    assert ("did you mean 'offload_params' (a key of offload.params and offload.optimizer) or 'offload.params'? "
            "groups: backend, launch,") in english
    rc, out = _run(capsys, "explain", "ofload", "--lang", lang)
    assert rc == 2
    assert WORDS[lang]["near"] in out, out
    for gone in ("did you mean", "a key of", " and offload.optimizer", "groups:", " or 'offload.params'"):
        assert gone not in out, (gone, out)
    rc, out = _run(capsys, "explain", "xyzzyq", "--lang", lang)
    assert ("gruplar: backend" if lang == "tr" else "群組：backend") in out and "groups:" not in out


@pytest.mark.parametrize("lang", LANGS)
def test_a_top_level_that_is_no_mapping_is_named_in_the_language(lang, tmp_path, capsys):
    number = tmp_path / "number.yaml"
    number.write_text("108\n", encoding="utf-8")
    text = tmp_path / "text.yaml"
    text.write_text("hello\n", encoding="utf-8")
    rc, english = _run(capsys, "--headless", str(number), "--out", str(tmp_path / "out"))
    assert "the top level is a number (108), not a mapping of keys" in english
    rc, out = _run(capsys, "--headless", str(number), "--out", str(tmp_path / "out"), "--lang", lang)
    assert rc == 2 and WORDS[lang]["number"] in out, out
    assert "a number" not in out
    rc, out = _run(capsys, "--headless", str(text), "--out", str(tmp_path / "out"), "--lang", lang)
    assert WORDS[lang]["text"] in out and "a text value" not in out, out


@pytest.mark.parametrize("lang", LANGS)
def test_a_counterpart_given_as_a_fix_is_the_catalogues_translation(lang, tmp_path, capsys):
    from wizard.core.localized.catalog_texts import counterpart

    path = _answers(tmp_path, "backend: deepspeed\ntraining:\n  activation_checkpointing: true\n")
    rc, english = _run(capsys, "--headless", path, "--out", str(tmp_path / "out"))
    assert "fix: DeepSpeed: enable gradient checkpointing on the model." in english
    rc, out = _run(capsys, "--headless", path, "--out", str(tmp_path / "out2"), "--lang", lang)
    assert WORDS[lang]["counterpart"] in out, out
    assert counterpart("training.activation_checkpointing", lang) in out  # the catalogue's own translation
    assert "enable gradient checkpointing" not in out
    # a setting without a counterpart would get the rule's own fix (every setting a target has no place for has
    # one now): its template is translated all the same
    assert localized.finding_fix(Finding(WARNING, "not-applicable", ("x",), "m", "drop it, or switch backend"),
                                 lang) == WORDS[lang]["drop"]


UNKNOWN_COMMAND = {"tr": ("'check' mi demek istediniz?", "komutlar: "), "zh-TW": ("您是指 'check' 嗎？", "命令：")}


@pytest.mark.parametrize("lang", LANGS)
def test_an_unknown_commands_guess_is_said_in_the_language(capsys, lang):
    code, out = _run(capsys, "chek", "--lang", lang)
    assert code == 2
    guess, commands = UNKNOWN_COMMAND[lang]
    assert guess in out and commands in out and "did you mean" not in out and "commands:" not in out
    code, out = _run(capsys, "zzzz", "--lang", lang)  # nothing close: no guess
    assert code == 2 and commands in out and guess not in out and "commands:" not in out


@pytest.mark.parametrize("lang", LANGS)
def test_estimate_of_invalid_answers_says_the_first_problem_in_the_language(capsys, tmp_path, lang):
    """``estimate`` (and ``recommend``) refuse answers that do not load, naming the first problem: its message and
    fix as ``check`` says them, inside the refusal's own translated words."""
    path = _answers(tmp_path, "sharding:\n  strategy: zero9\n")
    code, english = _run(capsys, "estimate", path, "--params", "1e9", "--lang", "en")
    assert code == 2 and "invalid answers ('sharding.strategy' is 'zero9' (str); expected one of" in english
    code, out = _run(capsys, "estimate", path, "--params", "1e9", "--lang", lang)
    assert code == 2 and "'sharding.strategy'" in out and "'zero9'" in out and "'hybrid_grads_optimizer'" in out
    for word in ("invalid answers", "expected one of", "write one of", "or the wizard shows"):
        assert word not in out, out


HEADS = {"tr": ("loading.ram_efficient ayarı", "tarafından yazılır", "bu adda bir grup, ayar ya da yapılandırma"),
         "zh-TW": ("由設定 loading.ram_efficient", "寫入", "沒有任何群組、設定或設定鍵叫這個名稱")}


@pytest.mark.parametrize("lang", LANGS)
def test_explains_heading_of_a_key_or_a_word_is_in_the_language(capsys, lang):
    """``explain KEY`` and ``explain WORD``: which setting writes the key (its label in the language) and which
    settings mention the word, before their explanations; keys and ids as written."""
    setting, verb, none = HEADS[lang]
    code, out = _run(capsys, "explain", "zero3_init_flag", "--lang", lang, "--width", "200")
    head = out.splitlines()[0]
    assert code == 0 and head.startswith("zero3_init_flag") and "deepspeed_config.zero3_init_flag" in head
    assert setting in head and verb in head and localized.setting_label("loading.ram_efficient", lang) in head
    assert "is written by" not in out
    code, out = _run(capsys, "explain", "bf16", "--lang", lang, "--width", "200")
    head = out.splitlines()[0]
    assert code == 0 and none in head and "precision.mixed_precision" in head and "the settings that" not in out
