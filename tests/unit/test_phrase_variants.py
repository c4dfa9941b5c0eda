"""Words a finding adds by computation are literal words of its templates (issue 27): "Did you mean `x`?", the verb
that agrees with the number of keys, a/an and the block's own words, the reasons a DeepSpeed JSON is needed. In
Turkish and Traditional Chinese they are translated with the sentence around them; the keys stay as written; the
English is what it was."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from wizard.core import localized
from wizard.core.answers import answers_from_mapping
from wizard.core.answers.rules import check_answers
from wizard.core.localized.messages import templates

DID_YOU_MEAN = {"tr": "Şunu mu demek istediniz: `{0}`?", "zh-TW": "您是指 `{0}` 嗎？"}
OTHERS = ("tr", "zh-TW")



def _check(folder: Path, capsys, *args: str) -> str:
    from wizard.cli import main

    cwd = os.getcwd()
    os.chdir(folder)
    try:
        main(["check", "accelerate_config.yaml", *args])
    finally:
        os.chdir(cwd)
    out = capsys.readouterr()
    return out.out + out.err


@pytest.mark.parametrize("lang", OTHERS)
def test_check_says_did_you_mean_in_the_language_with_the_key_as_written(lang, tmp_path, capsys):
    (tmp_path / "accelerate_config.yaml").write_text(
        "compute_environment: LOCAL_MACHINE\ndistributed_type: FSDP\nnum_procesess: 2\nfsdp_config:\n"
        "  fsdp_version: 2\n  fsdp_sharding_stratgy: FULL_SHARD\n", encoding="utf-8")
    english = _check(tmp_path, capsys, "--lang", "en")
    assert "loading the file fails with 'had unknown keys'. Did you mean `num_processes`?" in english
    assert "so it is silently ignored. Did you mean `fsdp_sharding_strategy`?" in english
    said = _check(tmp_path, capsys, "--lang", lang)
    assert "Did you mean" not in said
    for key in ("num_processes", "fsdp_sharding_strategy"):
        assert DID_YOU_MEAN[lang].format(key) in said
    assert "`num_procesess`" in said and "`fsdp_config.fsdp_sharding_stratgy`" in said


def _hits(doc: dict, rule: str):
    a, problems = answers_from_mapping(doc)
    assert a is not None, problems
    return [f for f in check_answers(a) if f.rule == rule]


ONE = {"backend": "deepspeed", "launch": {"ds_hostfile": "/etc/hosts.ds"}}
TWO = {"backend": "deepspeed", "launch": {"ds_hostfile": "/etc/hosts.ds", "ds_inclusion_filter": "node1"}}


@pytest.mark.parametrize("doc,english", [
    (ONE, "launch.ds_hostfile matters only on more than one machine, and this launch has one: not written"),
    (TWO, "launch.ds_hostfile and launch.ds_inclusion_filter matter only on more than one machine, and this launch "
          "has one: not written"),
])
def test_the_verb_agrees_with_the_number_of_keys_in_every_language(doc, english):
    (f,) = _hits(doc, "ds-multinode-keys-unused")
    assert f.message == english
    ids = [k for k in f.keys if k != "launch.num_machines"]
    for lang, joined in (("tr", f"{ids[0]} ve "), ("zh-TW", f"{ids[0]} 和 ")):
        said = localized.finding_message(f, lang)
        assert said != english and "matter" not in said
        assert all(k in said for k in ids)
        assert (joined in said) is (len(ids) == 2)


def test_headless_answers_print_the_rules_keys_with_the_verb_in_turkish(tmp_path, capsys):
    from wizard.cli import main

    answers = tmp_path / "answers.yaml"
    answers.write_text("backend: deepspeed\nlaunch:\n  ds_hostfile: /etc/hosts.ds\n  ds_inclusion_filter: node1\n",
                       encoding="utf-8")
    main(["--headless", str(answers), "--out", str(tmp_path / "out"), "--lang", "tr"])
    out = capsys.readouterr()
    printed = out.out + out.err
    assert ("launch.ds_hostfile ve launch.ds_inclusion_filter yalnızca birden fazla makinede önemlidir; bu başlatmada "
            "ise tek makine var: yazılmaz") in printed
    assert "matter" not in printed


def test_each_reason_a_deepspeed_json_is_needed_is_translated_in_the_list():
    doc = {"backend": "deepspeed", "deepspeed": {"config_file": "no"},
           "offload": {"optimizer": "nvme", "pin_memory": False}}
    (f,) = _hits(doc, "ds-json-required")
    assert f.message == ("inline DeepSpeed keys cannot carry: NVMe offload (inline NVMe paths never reach DeepSpeed), "
                         "offload.pin_memory false (DeepSpeed pins by default)")
    tr = localized.finding_message(f, "tr")
    assert "NVMe offload'u (satır içi NVMe yolları DeepSpeed'e hiç ulaşmaz), offload.pin_memory false (DeepSpeed " \
           "varsayılan olarak belleği sabitler)" in tr
    zh = localized.finding_message(f, "zh-TW")
    assert "NVMe 卸載（行內的 NVMe 路徑永遠傳不到 DeepSpeed）" in zh and "offload.pin_memory 為 false" in zh
    assert "never reach" not in tr + zh and "pins by default" not in tr + zh


@pytest.mark.parametrize("lang", OTHERS)
def test_the_json_blocks_sentences_are_written_out_and_translated(lang, tmp_path, capsys):
    """a/an and "torch optimizer" / "LR scheduler" were chosen by a table: now each block's sentence is literal."""
    (tmp_path / "accelerate_config.yaml").write_text(
        "compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\nnum_processes: 2\ndeepspeed_config:\n"
        "  deepspeed_config_file: ds.json\n", encoding="utf-8")
    (tmp_path / "ds.json").write_text(
        '{"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1, "zero_optimization": {"stage": 2}, '
        '"optimizer": {"type": "AdamW", "params": {"lr": 0.0001}}, '
        '"scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": 10}}}', encoding="utf-8")
    english = _check(tmp_path, capsys, "--trainer", "accelerate", "--lang", "en")
    assert ("The DeepSpeed JSON has an `optimizer` block and an own Accelerator loop runs it: that works when the "
            "script passes `accelerate.utils.DummyOptim` (or no optimizer) to prepare(); its own torch optimizer makes "
            "prepare() raise") in english
    assert "The DeepSpeed JSON has a `scheduler` block" in english and "its own LR scheduler makes" in english
    said = _check(tmp_path, capsys, "--trainer", "accelerate", "--lang", lang)
    assert "The DeepSpeed JSON has" not in said and "Pass DummyOptim" not in said
    for word in ("`optimizer`", "`scheduler`", "`accelerate.utils.DummyOptim`", "`accelerate.utils.DummyScheduler`"):
        assert word in said
    assert ("torch optimizatörü" if lang == "tr" else "torch 最佳化器") in said
    assert ("LR zamanlayıcısı" if lang == "tr" else "LR 排程器") in said


def test_the_added_words_are_literal_in_the_templates():
    """No template of the rules changed here keeps a placeholder where the code chose English words."""
    every = [t for _, t in templates()]
    assert not [t for t in every if t.endswith(".{1}") or t.endswith(".{2}") or t.endswith(".{4}")]
    assert not [t for t in every if "{0} only on more than one machine" in t or "{0} effect only with" in t]
    assert not [t for t in every if "JSON has a `{0}`" in t or "JSON has an `{0}`" in t]
    assert "{0} and {1} matter only on more than one machine, and this launch has one: not written" in every
    assert ("`fsdp_activation_checkpointing_offload: true` needs activation checkpointing on and fsdp_version 2, but "
            "this is not FSDP2; the plugin raises.") in every
    assert any("of transformers this release fills" in t for t in every)
    assert "NVMe offload (inline NVMe paths never reach DeepSpeed)" in every
    for lang in OTHERS:
        assert localized.said("hybrid sharding (zero_hpz_partition_size)", lang) != \
            "hybrid sharding (zero_hpz_partition_size)"


@pytest.mark.parametrize("lang,said", [("tr", "axolotl YAML'ı olarak okundu (anahtarlarından tanındı)"),
                                       ("zh-TW", "讀作 axolotl YAML（依其鍵辨識）")])
def test_a_training_file_read_as_its_tool_in_the_language(lang, said, tmp_path, capsys):
    """"Read as an axolotl YAML": the tool's words were a table's value after a/an chosen by its first letter."""
    import json

    from wizard.cli import main

    (tmp_path / "ds.json").write_text(json.dumps({"train_micro_batch_size_per_gpu": "auto", "zero_optimization":
                                                  {"stage": 2}}), encoding="utf-8")
    (tmp_path / "train.yaml").write_text("base_model: some/model\nmicro_batch_size: 2\ngradient_accumulation_steps: 1\n"
                                         "deepspeed: ds.json\n", encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        main(["check", "train.yaml", "--format", "json"])
        english = capsys.readouterr().out
        main(["check", "train.yaml", "--lang", lang])
        printed = capsys.readouterr().out
    finally:
        os.chdir(cwd)
    assert '"Read as an axolotl YAML (recognised by its keys): the Hugging Face Trainer gets TrainingArguments(' \
        in english
    assert said in printed and "Read as" not in printed
