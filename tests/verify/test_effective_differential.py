"""The effective model against the real libraries (issue 20): for every preset, every check-corpus config and every
real-corpus config the libraries accept, each value the model states equals what accelerate and DeepSpeed built, key
by key; the model never says a config fails that the libraries run; and a wrong default planted in the model's
tables (wizard/core/library/) is caught."""
from __future__ import annotations

import pytest
from differential import Case, check_corpus_cases, compare, edge_cases, real_corpus_cases

from wizard.core.answers import load_answers_file
from wizard.core.answers.of_answers import of_answers, situation_of
from wizard.core.answers.render import render
from wizard.core.library import deepspeed as DS
from wizard.core.library import fsdp as FSDP
from wizard.core.presets import preset_paths

pytestmark = pytest.mark.verify


def _preset_cases() -> list[Case]:
    out = []
    for name, path in sorted(preset_paths().items()):
        a, _ = load_answers_file(path)
        r = render(a)
        micro = a["training.micro_batch_size"]
        out.append(Case(name, r.accelerate, r.deepspeed, situation=situation_of(a, hidden_size=4096),
                        micro_batch=micro if isinstance(micro, int) else 1, trainer_arguments=r.training_arguments))
    return out


def _judge(cases: list[Case]) -> tuple[int, list[str]]:
    accepted, problems = 0, []
    for case in cases:
        out = compare(case)
        if out.model_failed and not out.library_failed:
            problems.append(f"{case.name}: the model says it fails ({out.model_failures}), the libraries run it")
        if not out.library_failed and not out.model_failed:
            accepted += 1
            problems += [f"{case.name}: {k} model {m!r}, libraries {lib!r}" for k, m, lib in out.differences]
    return accepted, problems


def test_presets_equal_what_the_libraries_build():
    cases = _preset_cases()
    accepted, problems = _judge(cases)
    assert problems == []
    assert accepted == len(cases) == 10


def test_the_libraries_defaults_alone():
    cases = edge_cases()
    accepted, problems = _judge(cases)
    assert problems == [] and accepted == len(cases)


def test_check_corpus_equals_what_the_libraries_build():
    cases = list(check_corpus_cases())
    accepted, problems = _judge(cases)
    assert problems == []
    assert len(cases) >= 99 and accepted >= 67  # the rest are configs the libraries refuse (their own checks)


def test_real_corpus_equals_what_the_libraries_build():
    cases = list(real_corpus_cases())
    accepted, problems = _judge(cases)
    assert problems == []
    assert len(cases) >= 450 and accepted >= 279


@pytest.mark.parametrize("table,key,wrong", [
    (FSDP.LAUNCH_FSDP_DEFAULTS, "fsdp_use_orig_params", "false"),
    (FSDP.LAUNCH_FSDP_DEFAULTS, "fsdp_sharding_strategy", "SHARD_GRAD_OP"),
    (DS.LAUNCH_DEEPSPEED_DEFAULTS, "zero_stage", 1),
    (DS.DS_ZERO_DEFAULTS, "reduce_bucket_size", 400_000_000),
])
def test_a_planted_wrong_default_is_caught(monkeypatch, table, key, wrong):
    monkeypatch.setitem(table, key, wrong)
    cases = _preset_cases() + edge_cases() + list(check_corpus_cases())
    _, problems = _judge(cases)
    assert problems, f"a wrong {key} default went unnoticed"


def test_a_planted_wrong_clipping_default_is_caught(monkeypatch):
    monkeypatch.setattr("wizard.core.effective.deepspeed.DS_DEFAULT_CLIPPING", 0.0)
    _, problems = _judge(list(check_corpus_cases()))
    assert any("gradient_clipping" in p for p in problems)


def test_answers_reach_the_model_through_the_renderer():
    a, _ = load_answers_file(preset_paths()["zero3-cpu-offload"])
    e = of_answers(a)
    assert e["runs.offload_optimizer"] == "cpu" and e["deepspeed_validated.zero_stage"] == 3
