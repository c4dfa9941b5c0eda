"""Issue 27: what wizard/core/memory computes in the chosen language, as ``fsdpds-wizard estimate`` and
``recommend`` print it (``python -m wizard`` subprocesses): the estimate's parts, its verdict and peak line, the layout,
the notes, the candidates' labels and reasons, the chosen one and the model's errors in Turkish and Traditional
Chinese, with every figure, key, value and name as the English has them; ``--format json`` stays English."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.core import localized
from wizard.core.localized import memory as memory_texts
from wizard.core.localized.screens import words
from wizard.core.memory.estimate import BREAKDOWN_KEYS, HOST_KEYS
from wizard.core.memory.recommend import host_part_words, recommend
from wizard.core.memory.report import LABELS
from wizard.core.memory.shapes import shape_by_name

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("tr", "zh-TW")
ESTIMATE = ["estimate", "zero3-cpu-offload", "--model", "llama-3.1-70b", "--gpu-memory", "80"]
RECOMMEND = ["recommend", "--model", "llama-3.1-70b", "--gpus-per-node", "8", "--gpu-memory", "80", "--nodes", "2",
             "--host-memory", "256"]
NAMES_ONLY = ("FSDP1 FULL_SHARD", "DeepSpeed ZeRO-1", "DeepSpeed ZeRO-2", "DeepSpeed ZeRO-3",
              "FSDP2 reshard_after_forward=False")
"""Labels' pieces that are names alone (the same in every language)."""
LONG = ["recommend", "--model", "llama-3.1-8b", "--gpus-per-node", "8", "--gpu-memory", "80", "--seq", "131072"]


def wizard(*argv: str) -> subprocess.CompletedProcess:
    """``python -m wizard ARGV`` from this tree, without the caller's locale."""
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "wizard", *argv], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120)


def figures(text: str) -> list[str]:
    """The decimal figures of a report (GiB, bytes per parameter), sorted: a translation may put a sentence's figures
    in another order."""
    return sorted(re.findall(r"-?\d+\.\d\d?\b", text))


def test_the_words_of_the_parts_are_the_reports_labels():
    memory = words("memory")
    assert {k: memory[f"part.{k}"] for k in (*BREAKDOWN_KEYS, *HOST_KEYS)} == LABELS
    assert {k: memory[f"host.{k}"] for k in HOST_KEYS} == {k: host_part_words(k) for k in HOST_KEYS}


@pytest.mark.parametrize("lang", LANGS)
def test_estimate_prints_parts_verdict_and_notes_in_the_language(lang):
    english, said = wizard(*ESTIMATE), wizard(*ESTIMATE, "--lang", lang)
    assert english.returncode == said.returncode == 0, said.stderr
    out = said.stdout
    for k in (*BREAKDOWN_KEYS, "offloaded_parameters", "offloaded_optimizer_states", "model_load"):
        assert memory_texts.part(k, lang) in out, k
        assert f"  {LABELS[k]} " not in out, k
    assert "fits in 80.00 GiB" not in out and "peak at the loss" not in out and "largest micro batch" not in out
    assert "DeepSpeed ZeRO-3" in out and " over 8 ranks" not in out  # the layout: its names kept, its words not
    assert "estimate_zero3_model_states_mem_needs" in out and "0.19.8" in out
    assert figures(out) == figures(english.stdout)  # every figure as the English prints it


@pytest.mark.parametrize("lang", LANGS)
def test_estimate_notes_are_said_in_the_language(lang):
    argv = ["estimate", "fsdp2-tp", "--model", "llama-3.1-8b", "--gpu-memory", "80"]
    english, said = wizard(*argv).stdout, wizard(*argv, "--lang", lang).stdout
    notes = [line for line in english.splitlines() if line.startswith("note: ")]
    assert len(notes) == 2
    assert not any(line.startswith("note: ") for line in said.splitlines())
    assert "colwise_gather_output" in said and "dp_shard x cp" in said and "49.0 sbh" in said
    assert "transformers' TP plan splits" not in said


@pytest.mark.parametrize("lang", LANGS)
def test_recommend_prints_labels_reasons_and_the_choice_in_the_language(lang):
    english, said = wizard(*RECOMMEND), wizard(*RECOMMEND, "--lang", lang)
    assert english.returncode == said.returncode == 0, said.stderr
    out = said.stdout
    rec = recommend(shape=shape_by_name("llama-3.1-70b"), gpus_per_node=8, gpu_memory_gib=80, nodes=2,
                    host_memory_gib=256)
    for c in rec.candidates:
        assert memory_texts.candidate_label(c, lang) in out
        assert memory_texts.reason(c, lang) in out
    chosen = localized.screen("memory", "rec.chosen", lang, label=memory_texts.candidate_label(rec.chosen, lang),
                              layout=localized.said(rec.chosen.estimate.layout, lang))
    assert chosen in out.splitlines()
    for english_words in ("no offload", "everything sharded", "even with", "activation checkpointing (about",
                          "the host needs", "of parameters gathered at a time", "chosen: ", "note: "):
        assert english_words not in out, english_words
    assert "(model load 262.8 GiB)" in english.stdout  # the host's parts, by name, in the language
    assert localized.screen("memory", "host.model_load", lang) + " 262.8 GiB" in out
    assert figures(out) == figures(english.stdout)


@pytest.mark.parametrize("lang", LANGS)
def test_every_clause_of_a_long_sequence_recommendation_is_translated(lang):
    """Tensor, context and sequence parallel candidates, one left out by the rules: every clause of every reason, every
    label's words, every note has its translation (only the parallelism_config keys stay as written)."""
    rec = recommend(shape=shape_by_name("llama-3.1-8b"), gpus_per_node=8, gpu_memory_gib=80, seq=131072)
    assert {k for c in rec.candidates for k, _ in c.parallelism} >= {"parallelism_config_cp_size",
                                                                       "parallelism_config_sp_size"}
    assert any(" + tensor parallel" in label for label, _ in rec.left_out)
    for c in rec.candidates:
        for clause in c.reasons:
            if not clause.startswith("parallelism_config: "):
                assert localized.said(clause, lang) != clause, clause
        for piece in c.label_parts:  # names, values and (in Turkish) activation checkpointing read as in English
            if piece not in NAMES_ONLY and piece != f", {c.answers['precision.mixed_precision']}" and not (
                    lang == "tr" and piece == ", activation checkpointing"):
                assert localized.said(piece, lang) != piece, piece
    for note in rec.notes:
        said = memory_texts.note(note, rec, lang)
        assert said != note and "left out" not in said and "our rules find an error" not in said, note
    out = wizard(*LONG, "--lang", lang).stdout
    assert "parallelism_config_cp_size: 8" in out and "parallelism_config_dp_shard_size: 1" in out
    assert "our rules find an error" not in out and "left out" not in out


@pytest.mark.parametrize("lang", LANGS)
def test_json_stays_english(lang):
    for argv in (ESTIMATE, RECOMMEND):
        english = wizard(*argv, "--format", "json")
        said = wizard(*argv, "--format", "json", "--lang", lang)
        assert json.loads(said.stdout) == json.loads(english.stdout)


@pytest.mark.parametrize("lang", LANGS)
def test_an_unknown_model_is_said_in_the_language_with_its_names(lang):
    for command in (["estimate", "zero2"], ["check", "templates/zero2.yaml"]):
        english = wizard(*command, "--model", "llama-3.1-8")
        said = wizard(*command, "--model", "llama-3.1-8", "--lang", lang)
        assert said.returncode == english.returncode == 2
        assert "Did you mean" in english.stderr and "Did you mean" not in said.stderr
        assert "unknown model" not in said.stderr and "Shipped shapes" not in said.stderr
        assert "'llama-3.1-8'" in said.stderr and "'llama-3.1-8b'" in said.stderr and "qwen2.5-72b" in said.stderr
        assert ("--params N --largest-layer N" in said.stderr) == (command[0] == "estimate")


def test_english_is_as_before_without_a_language():
    english, default = wizard(*RECOMMEND, "--lang", "en"), wizard(*RECOMMEND)
    assert english.stdout == default.stdout
    assert "chosen: DeepSpeed ZeRO-3 + hpZ (ZeRO++ secondary partition per node), bf16" in english.stdout


@pytest.mark.parametrize("lang", LANGS)
def test_the_verdicts_short_forms_fit_the_bar_in_the_language(lang):
    from wizard.core.i18n import cells

    rec = recommend(shape=shape_by_name("llama-3.1-70b"), gpus_per_node=8, gpu_memory_gib=80, nodes=2,
                    host_memory_gib=256)
    kinds = {(c.fit.fits, c.fit.gpu_fits): c.fit for c in rec.candidates}  # fits; short on the GPU
    assert set(kinds) >= {(True, True), (False, False)}
    for fit in kinds.values():
        for width in (18, 24, 30, 40):
            said = memory_texts.verdict(fit, width, lang)
            assert said != memory_texts.verdict(fit, width, "en")
            shortest = memory_texts.verdict(fit, 1, lang)
            assert cells.width(said) <= width or said == shortest
