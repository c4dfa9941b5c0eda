"""Item 6 of issue #2: every config we write, replayed through the real accelerate and deepspeed code,
has exactly the effective values the answers asked for."""

import pytest
from helpers import PRESET_FILES as PRESETS
from helpers import ROOT, blocked_here

from wizard.core.answers import parse_answers_text
from wizard.core.answers.generate import generate
from wizard.core.verify.answers import expected_effective, verify_generated

pytestmark = pytest.mark.verify


def load(path):
    answers, findings = parse_answers_text(path.read_text())
    assert answers is not None, findings
    return answers


def variants():
    """Each preset as written, then with only the backend (and FSDP version) switched."""
    for p in PRESETS:
        yield p.stem, {}
        yield p.stem + "+deepspeed", {"backend": "deepspeed"}
        yield p.stem + "+fsdp1", {"backend": "fsdp", "fsdp_version": 1}
        yield p.stem + "+fsdp2", {"backend": "fsdp", "fsdp_version": 2}


CASES = list(variants())


@pytest.mark.parametrize("name,change", CASES, ids=[c[0] for c in CASES])
def test_effective_values_equal_the_answers(name, change):
    answers = load(ROOT / "templates" / (name.split("+")[0] + ".yaml")).replace(change)
    gen = generate(answers, None)
    blocked = blocked_here(name.split("+")[0]) if answers.target == "fsdp2" else None
    if blocked:  # the installed transformers cannot run it: that one error, and --verify of the rest
        assert [f.rule for f in gen.findings if f.severity == "error"] == [blocked]
    elif not gen.ok:
        pytest.fail("; ".join(f.render() for f in gen.findings if f.severity == "error"))
    problems = [f for f in verify_generated(gen) if f.severity == "error"]
    assert not problems, "\n".join(f.render() for f in problems)


MASTER_WEIGHTS = [("zero2", "fp32"), ("zero2", "bf16_with_states"), ("zero3-two-node", "bf16_with_states"),
                  ("zero3-cpu-offload", "bf16")]


@pytest.mark.parametrize("preset,value", MASTER_WEIGHTS, ids=[f"{p}+master-{v}" for p, v in MASTER_WEIGHTS])
def test_bf16_master_weights_reach_deepspeed(preset, value):
    """precision.ds_bf16_master_weights: both bf16 keys pass DeepSpeedConfig and reach it as written."""
    answers = load(ROOT / "templates" / f"{preset}.yaml").replace({"precision.ds_bf16_master_weights": value})
    gen = generate(answers, None)
    assert gen.ok, "; ".join(f.render() for f in gen.findings if f.severity == "error")
    problems = [f for f in verify_generated(gen) if f.severity == "error"]
    assert not problems, "\n".join(f.render() for f in problems)
    exp = expected_effective(answers)
    assert exp["deepspeed.bf16.bf16_master_weights_and_grads"] == (value != "fp32")
    assert exp["deepspeed.bf16.bf16_optimizer_states"] == (value == "bf16_with_states")


def test_verify_catches_a_wrong_expectation(tmp_path):
    """The comparison can fail: a config that says ZeRO-2 is not accepted as ZeRO-3."""
    answers = load(ROOT / "templates" / "zero2.yaml")
    gen = generate(answers, None)
    wrong = answers.replace({"sharding.strategy": "full"})
    exp = expected_effective(wrong)
    from wizard.core.verify import answers as verify_answers

    original = verify_answers.expected_effective
    try:
        verify_answers.expected_effective = lambda a: exp
        problems = verify_generated(gen)
    finally:
        verify_answers.expected_effective = original
    assert any(f.rule == "verify-mismatch" and f.keys[0].endswith("zero_stage") for f in problems)


def test_a_wrong_effective_model_fails_verify(monkeypatch):
    """--verify holds the effective model against the libraries too: a wrong DeepSpeed default in its tables is a
    mismatch."""
    from wizard.core.library import deepspeed as tables

    answers = load(ROOT / "templates" / "zero3-cpu-offload.yaml")
    gen = generate(answers, None)
    assert not [f for f in verify_generated(gen) if f.severity == "error"]
    monkeypatch.setitem(tables.DS_ZERO_DEFAULTS, "stage3_max_live_parameters", 123)
    problems = [f for f in verify_generated(gen) if f.rule == "verify-mismatch"]
    assert any(f.keys == ("deepspeed_validated.max_live_parameters",) for f in problems)
