"""Stated answers that the files have no place for are named by a finding, never dropped in silence (issue 8)."""
from wizard.core.answers import default_answers
from wizard.core.answers.rules import check_answers

DS = {"backend": "deepspeed"}


def rules(changes: dict) -> dict[str, tuple]:
    return {f.rule: (f.severity, f.keys) for f in check_answers(default_answers().replace(changes))}


def test_zero3_knobs_under_zero2_are_named_with_the_strategy():
    found = rules({**DS, "sharding.strategy": "grads_optimizer", "prefetch.ds_bucket_size": 5000,
                   "deepspeed.sub_group_size": 1000})
    assert found["zero3-knob-unused"] == ("warning", ("prefetch.ds_bucket_size", "deepspeed.sub_group_size",
                                                      "sharding.strategy"))
    assert "zero3-knob-unused" not in rules({**DS, "sharding.strategy": "full", "prefetch.ds_bucket_size": 5000})
    assert "zero3-knob-unused" not in rules({**DS, "sharding.strategy": "grads_optimizer"})


def test_multinode_keys_on_one_machine_or_under_the_standard_launcher():
    one = rules({**DS, "launch.ds_hostfile": "/etc/hosts.ds", "launch.ds_multinode_launcher": "pdsh"})
    assert one["ds-multinode-keys-unused"] == ("warning", ("launch.ds_multinode_launcher", "launch.ds_hostfile",
                                                           "launch.num_machines"))
    standard = rules({**DS, "launch.num_machines": 2, "launch.main_process_ip": "10.0.0.1",
                      "launch.ds_inclusion_filter": "node1"})
    assert standard["ds-multinode-keys-unused"] == ("warning", ("launch.ds_inclusion_filter",
                                                                "launch.ds_multinode_launcher"))
    pdsh = rules({**DS, "launch.num_machines": 2, "launch.main_process_ip": "10.0.0.1",
                  "launch.ds_multinode_launcher": "pdsh", "launch.ds_hostfile": "/etc/hosts.ds"})
    assert "ds-multinode-keys-unused" not in pdsh
    assert "ds-multinode-keys-unused" not in rules({**DS, "launch.ds_multinode_launcher": "standard"})


def test_pin_memory_with_nothing_offloaded_is_a_note():
    assert rules({**DS, "offload.pin_memory": False})["pin-memory-unused"][0] == "info"
    assert "pin-memory-unused" not in rules({**DS, "offload.pin_memory": False, "offload.optimizer": "cpu"})
    assert "pin-memory-unused" not in rules(DS)


def test_a_size_threshold_under_the_transformer_policy():
    found = rules({"wrapping.policy": "transformer", "wrapping.min_num_params": 1000})
    assert found["min-num-params-unused"] == ("warning", ("wrapping.min_num_params", "wrapping.policy"))
    assert "min-num-params-unused" not in rules({"wrapping.policy": "size", "wrapping.min_num_params": 1000})
    assert "min-num-params-unused" not in rules({"wrapping.policy": "transformer"})
