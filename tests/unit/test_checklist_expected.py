"""The rehearsal checklist expects what the effective model says runs (issue 20), not its own reading of the
files: each case is one where a literal reading of the config differs from what accelerate and DeepSpeed run."""
from __future__ import annotations

from wizard.core.effective import effective
from wizard.run.checklist import FAIL, OK, compare, expected_from_config

DS = {"distributed_type": "DEEPSPEED", "num_processes": 2, "num_machines": 1}


def test_zero2_nvme_optimizer_offload_expects_the_cpu():
    cfg = {**DS, "deepspeed_config": {"deepspeed_config_file": "ds.json"}}
    exp = expected_from_config(cfg, {"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "nvme"}},
                                     "train_micro_batch_size_per_gpu": 1})
    assert exp["offload"] == {"optimizer": "cpu", "params": "none"} and exp["zero_stage"] == 2


def test_a_json_without_a_stage_expects_zero0():
    cfg = {**DS, "deepspeed_config": {"deepspeed_config_file": "ds.json"}}
    exp = expected_from_config(cfg, {"zero_optimization": {}, "train_micro_batch_size_per_gpu": 1})
    assert exp["zero_stage"] == 0
    run = {"distributed_type": "DEEPSPEED", "world_size": 2, "zero_stage": 0}
    assert {i.status for i in compare(run, exp) if i.label.startswith("ZeRO stage")} == {OK}


def test_fsdp_expectations_are_the_models():
    cfg = {"distributed_type": "FSDP", "num_processes": 2, "mixed_precision": "bf16",
           "fsdp_config": {"fsdp_version": 2, "fsdp_reshard_after_forward": False, "fsdp_offload_params": True,
                           "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
                           "fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer"}}
    exp = expected_from_config(cfg)
    e = effective(cfg)
    assert exp["sharding"] == e["runs.fsdp_strategy"] == "SHARD_GRAD_OP"
    assert exp["offload"] == {"params": "cpu", "optimizer": "cpu"} and exp["wrap_classes"] == ["LlamaDecoderLayer"]
    # FSDP1 reads the strategy, not reshard_after_forward
    v1 = {**cfg, "fsdp_config": {"fsdp_version": 1, "fsdp_reshard_after_forward": False}}
    assert expected_from_config(v1)["sharding"] == "FULL_SHARD"
    run = {"distributed_type": "FSDP", "world_size": 2, "fsdp_version": 1, "sharding": "SHARD_GRAD_OP"}
    assert any(i.status == FAIL and i.key == "sharding" for i in compare(run, expected_from_config(v1)))


def test_the_json_decides_deepspeed_precision():
    cfg = {**DS, "deepspeed_config": {"deepspeed_config_file": "ds.json"}}
    exp = expected_from_config(cfg, {"zero_optimization": {"stage": 3}, "bf16": {"enabled": "auto"},
                                     "train_micro_batch_size_per_gpu": 1})
    assert exp["mixed_precision"] == "no"  # "auto" filled from accelerate's mixed_precision, which is "no" here
