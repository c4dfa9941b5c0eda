"""A deepspeed.extra that overrides the ZeRO stage (issue 21, item 24): every finding at once, one finding for the
override naming every answer it touches, and the notes about ZeRO-3 judged at the stage DeepSpeed runs (the effective
model's ``runs.zero_stage``), not the one sharding.strategy answers."""
from __future__ import annotations

from wizard.core.answers import answers_from_mapping
from wizard.core.answers.generate import generate

STAGE_KEYS_RULES = {"deepspeed-zero3-init-flag-ignored", "deepspeed-offload-param-below-stage3",
                    "deepspeed-nvme-below-stage3", "ds-json-gather-16bit-unused"}
"""Config rules that relate a written key to the JSON's stage: with the stage from deepspeed.extra, consequences of
the one override."""


def A(doc):
    a, findings = answers_from_mapping(doc)
    assert a is not None, findings
    return a


ZERO3_OFFLOAD = {"backend": "deepspeed", "sharding": {"strategy": "full"}, "precision": {"mixed_precision": "bf16"},
                 "offload": {"optimizer": "nvme", "params": "nvme", "nvme_path": "/nvme"},
                 "checkpoint": {"format": "full"}}


def test_a_stage_override_with_a_precision_override_shows_both_at_once_and_the_stage_once():
    a = A({**ZERO3_OFFLOAD, "deepspeed": {"extra": {"zero_optimization": {"stage": 1}, "fp16": {"enabled": True}}}})
    findings = generate(a).findings
    rules = [f.rule for f in findings]
    assert "ds-json-overrides-mixed-precision" in rules  # the precision fault...
    assert rules.count("ds-json-overrides-stage") == 1  # ...and the stage fault, in the same look
    assert not STAGE_KEYS_RULES & set(rules), [f.render() for f in findings]  # not a second time, in pieces
    stage = next(f for f in findings if f.rule == "ds-json-overrides-stage")
    assert stage.severity == "error"
    # every answer whose written keys the override leaves without effect, with the two that conflict
    assert {"sharding.strategy", "deepspeed.extra", "loading.ram_efficient", "offload.params", "offload.optimizer",
            "checkpoint.format"} <= set(stage.keys), stage.keys
    assert "ZeRO-1" in stage.message and "zero3_init_flag" in stage.message and "offload_param" in stage.message
    assert "zero_optimization.stage" in stage.fix and "sharding.strategy optimizer" in stage.fix


def test_zero3_notes_follow_the_stage_that_runs():
    at_one = A({"backend": "deepspeed", "sharding": {"strategy": "full"}, "checkpoint": {"format": "sharded"},
                "deepspeed": {"extra": {"zero_optimization": {"stage": 1}}}})
    rules = [f.rule for f in generate(at_one).findings]
    assert "zero3-sharded-checkpoint" not in rules  # ZeRO-1 runs: its checkpoints are whole
    assert "ds-zero3-init-cannot-be-off" not in rules
    assert rules.count("ds-json-overrides-stage") == 1
    at_three = A({"backend": "deepspeed", "sharding": {"strategy": "optimizer"}, "checkpoint": {"format": "sharded"},
                  "deepspeed": {"extra": {"zero_optimization": {"stage": 3}}}})
    findings = generate(at_three).findings
    rules = [f.rule for f in findings]
    assert "zero3-sharded-checkpoint" in rules  # ZeRO-3 runs, whatever the strategy says
    stage = next(f for f in findings if f.rule == "ds-json-overrides-stage")
    assert "ZeRO-3" in stage.message and "sharding.strategy full" in stage.fix


def test_an_extra_stage_equal_to_the_answered_one_is_no_fault():
    a = A({"backend": "deepspeed", "sharding": {"strategy": "grads_optimizer"},
           "deepspeed": {"extra": {"zero_optimization": {"stage": 2}}}})
    assert "ds-json-overrides-stage" not in [f.rule for f in generate(a).findings]
