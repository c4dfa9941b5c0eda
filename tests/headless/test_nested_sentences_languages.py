"""Sentences inside sentences in Turkish and Traditional Chinese (issue 27): a finding's message with "; " inside it
wrapped by ``(generated key: ...)`` and by a recommendation's "left out" note; the device mesh's groups listed in
parallelism-mesh-layout; and the reasons a ZeRO stage has no place for an answer, kept through a switch. Each read
whole or row by row as it was built, never a frame taken for a row (keys and numbers as written)."""
from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from helpers import ROOT

from wizard.core import localized
from wizard.core.localized.memory import LEFT_OUT, RULES_ERROR

LANGS = ("tr", "zh-TW")
ANSWERS = {"schema_version": 1, "backend": "fsdp", "fsdp_version": 2, "launch": {"num_processes": 2},
           "parallelism": {"tp_size": 2}}
"""FSDP2 + tp 2 on 2 processes: no dimension left to shard over (an error whose message has "; " inside)."""
ENGLISH_WORDS = ("needs a dimension", "both are", "raises", "generated key", "left out", "our rules", "groups",
                 "varies fastest", "where it was not in effect", "is read at", "every rank loads", "applies it")


def _headless(tmp_path, answers: dict, lang: str) -> str:
    path = tmp_path / f"answers-{lang}.yaml"
    path.write_text(yaml.safe_dump(answers))
    done = subprocess.run([sys.executable, "-m", "wizard", "--headless", str(path), "--out", str(tmp_path / lang),
                           "--lang", lang, "--transformers-version", "5.0.0"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    return done.stdout + done.stderr


def _line(out: str, rule: str) -> str:
    return next(ln for ln in out.splitlines() if f"[{rule}]" in ln)


def _english_left(text: str) -> list[str]:
    return [w for w in ENGLISH_WORDS if w in text]


@pytest.fixture(scope="module")
def no_shard_dim(tmp_path_factory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("nested")
    return {lang: _line(_headless(tmp, ANSWERS, lang), "parallelism-fsdp2-no-shard-dim") for lang in ("en", *LANGS)}


@pytest.mark.parametrize("lang", LANGS)
def test_a_message_with_a_semicolon_inside_is_read_whole(no_shard_dim, lang):
    english, got = no_shard_dim["en"], no_shard_dim[lang]
    assert "; both are 1" in english and "(generated key: " in english  # what makes it hard
    assert not _english_left(got), got
    for kept in ("dp_shard_size > 1", "cp_size > 1", "parallelism_config.parallelism_config_dp_shard_size",
                 "parallelism_config.parallelism_config_tp_size", "Accelerator"):
        assert kept in got


@pytest.mark.parametrize("lang", LANGS)
def test_the_same_message_inside_a_left_out_note_is_read_whole(no_shard_dim, lang):
    """A recommendation's note on a candidate left out holds the finding's message (with its generated keys):
    translated as a whole sentence, the three frames in the language."""
    head = "ERROR [parallelism-fsdp2-no-shard-dim] sharding.strategy, launch.num_processes, launch.num_machines, " \
           "parallelism.tp_size: "
    message = no_shard_dim["en"].removeprefix(head)
    assert message != no_shard_dim["en"]
    note = LEFT_OUT.format("FSDP2 full shard, bf16", RULES_ERROR.format("parallelism-fsdp2-no-shard-dim", message))
    got = localized.said(note, lang)
    assert not _english_left(got), got
    assert localized.said(message, lang) in got  # the message as it is translated alone
    assert "parallelism-fsdp2-no-shard-dim" in got and "FSDP2" in got


@pytest.mark.parametrize("lang", LANGS)
def test_the_mesh_groups_of_the_finding_are_in_the_language(tmp_path, lang):
    out = _headless(tmp_path, {**ANSWERS, "launch": {"num_processes": 8}, "loading": {"ram_efficient": False}}, lang)
    got = _line(out, "parallelism-mesh-layout")
    assert not _english_left(got), got
    groups = {"tr": ("dp_shard grupları: [0,2,4,6] [1,3,5,7]", "tp grupları: [0,1] [2,3] [4,5] [6,7]"),
              "zh-TW": ("dp_shard 群組：[0,2,4,6] [1,3,5,7]", "tp 群組：[0,1] [2,3] [4,5] [6,7]")}[lang]
    assert all(g in got for g in groups)
    assert all(out.count(g) >= 2 for g in groups)  # and the picture under it in the same words


def test_a_long_list_of_groups_says_how_many_there_are():
    from wizard.core.mesh import groups_sentence, mesh_groups

    tp = mesh_groups({"dp_shard": 4, "tp": 4})["tp"]
    english = groups_sentence("tp", tp, 2)
    assert english == "tp groups: [0,1,2,3] [4,5,6,7] ... (4 groups)"
    assert localized.said(english, "tr") == "tp grupları: [0,1,2,3] [4,5,6,7] ... (4 grup)"
    assert localized.said(english, "zh-TW") == "tp 群組：[0,1,2,3] [4,5,6,7] ...（共 4 組）"
    assert groups_sentence("tp", tp) == "tp groups: [0,1,2,3] [4,5,6,7] [8,9,10,11] [12,13,14,15]"


@pytest.mark.parametrize("lang", LANGS)
def test_the_zero3_only_answers_kept_through_a_switch_are_in_the_language(lang):
    """FSDP2 with sharded loading and the full save -> DeepSpeed ZeRO-2 (no place for either) -> FSDP1: the reasons
    they were not in effect on DeepSpeed, and that FSDP1 applies them again, in the language."""
    from wizard.core.answers.model import parse_answers_text
    from wizard.core.catalog import DEEPSPEED, FSDP1
    from wizard.core.convert import switch

    start, problems = parse_answers_text(yaml.safe_dump({
        "schema_version": 1, "backend": "fsdp", "fsdp_version": 2, "sharding": {"strategy": "grads_optimizer"},
        "loading": {"ram_efficient": True}, "checkpoint": {"format": "full"}}))
    assert start is not None and not problems
    to_ds = switch(start, DEEPSPEED)
    dropped = {d.setting_id: d.reason for d in to_ds.report.dropped}
    back = switch(to_ds.kept, FSDP1)
    kept = {m.setting_id: m.text for m in back.report.changed_meaning}
    texts = [dropped["loading.ram_efficient"], dropped["checkpoint.format"], kept["loading.ram_efficient"],
             kept["checkpoint.format"]]
    assert all("ZeRO-2" in t for t in texts) and "where it was not in effect" in texts[2]
    for english in texts:
        got = localized.said(english, lang)
        assert not _english_left(got), got
        assert "ZeRO-2" in got and "ZeRO-3" in got
    assert "zero3_save_16bit_model" in localized.said(texts[3], lang)
    assert "zero3_init_flag" in localized.said(texts[2], lang)
