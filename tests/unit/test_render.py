"""Renderers: the accelerate YAML and DeepSpeed JSON dicts, written around the launcher's pitfalls."""
import pytest

from wizard.core.answers import answers_from_mapping
from wizard.core.answers.render import render
from wizard.core.answers.rules import check_answers


def A(**data):
    nested = {}
    for key, value in data.items():
        if "__" in key:
            g, n = key.split("__", 1)
            nested.setdefault(g, {})[n] = value
        else:
            nested[key] = value
    a, findings = answers_from_mapping(nested)
    assert a is not None, findings
    return a


@pytest.mark.parametrize("strategy,expected", [("full", "FULL_SHARD"), ("grads_optimizer", "SHARD_GRAD_OP"),
                                               ("none", "NO_SHARD"), ("hybrid_full", "HYBRID_SHARD"),
                                               ("hybrid_grads_optimizer", "HYBRID_SHARD_ZERO2"),
                                               ("optimizer", "SHARD_GRAD_OP")])
def test_fsdp1_strategy_goes_under_sharding_strategy(strategy, expected):
    f = render(A(fsdp_version=1, sharding__strategy=strategy)).accelerate["fsdp_config"]
    assert f["fsdp_sharding_strategy"] == expected
    assert "fsdp_reshard_after_forward" not in f  # ignored by accelerate launch for v1 (F4)


@pytest.mark.parametrize("strategy,reshard", [("full", True), ("grads_optimizer", False), ("hybrid_full", True)])
def test_fsdp2_reshard_is_a_bool_and_v1_keys_are_absent(strategy, reshard):
    f = render(A(fsdp_version=2, sharding__strategy=strategy)).accelerate["fsdp_config"]
    assert f["fsdp_reshard_after_forward"] is reshard
    for v1_only in ("fsdp_sharding_strategy", "fsdp_backward_prefetch", "fsdp_forward_prefetch",
                    "fsdp_use_orig_params", "fsdp_sync_module_states"):
        assert v1_only not in f


def test_fsdp2_hybrid_two_nodes_writes_parallelism_config():
    y = render(A(sharding__strategy="hybrid_full", launch__num_processes=16, launch__num_machines=2,
                 launch__main_process_ip="10.0.0.1")).accelerate
    assert y["parallelism_config"] == {"parallelism_config_dp_replicate_size": 2,
                                       "parallelism_config_dp_shard_size": 8}


def test_size_wrap_writes_an_integer():
    f = render(A(wrapping__policy="size", wrapping__min_num_params=100_000_000)).accelerate["fsdp_config"]
    assert f["fsdp_min_num_params"] == 100_000_000 and type(f["fsdp_min_num_params"]) is int
    f = render(A(wrapping__policy="transformer")).accelerate["fsdp_config"]
    assert "fsdp_min_num_params" not in f


def test_fsdp_offload_is_all_or_nothing():
    a = A(offload__optimizer="cpu")
    assert render(a).accelerate["fsdp_config"]["fsdp_offload_params"] is True
    assert any(f.rule == "fsdp-offload-all-or-nothing" for f in check_answers(a))


def test_deepspeed_inline_zero2():
    r = render(A(backend="deepspeed", sharding__strategy="grads_optimizer", training__gradient_clipping=0.5))
    d = r.accelerate["deepspeed_config"]
    assert r.deepspeed is None
    assert d["zero_stage"] == 2
    assert d["gradient_clipping"] == 0.5  # explicit: an absent key would clip at 1.0
    assert d["zero3_init_flag"] is False
    assert "zero3_save_16bit_model" not in d
    assert r.accelerate["mixed_precision"] == "bf16"


def test_deepspeed_nvme_goes_through_json():
    r = render(A(backend="deepspeed", offload__optimizer="nvme", offload__params="nvme", offload__nvme_path="/nvme"),
               "/out/ds_config.json")
    y, j = r.accelerate, r.deepspeed
    assert y["deepspeed_config"]["deepspeed_config_file"] == "/out/ds_config.json"
    assert "mixed_precision" not in y  # accelerate raises next to a deepspeed_config_file (D1)
    for inline in ("offload_optimizer_nvme_path", "offload_param_nvme_path", "zero_stage", "gradient_clipping"):
        assert inline not in y["deepspeed_config"]
    z = j["zero_optimization"]
    assert z["offload_param"] == {"device": "nvme", "nvme_path": "/nvme", "pin_memory": True}
    assert z["offload_optimizer"]["nvme_path"] == "/nvme"
    assert j["bf16"] == {"enabled": True} and j["fp16"] == {"enabled": False}
    assert j["gradient_clipping"] == 1.0


def test_param_offload_below_zero3_is_not_written_and_said():
    a = A(backend="deepspeed", sharding__strategy="grads_optimizer", offload__params="cpu", offload__optimizer="cpu")
    d = render(a).accelerate["deepspeed_config"]
    assert d["offload_param_device"] == "none" and d["offload_optimizer_device"] == "cpu"
    assert any(f.rule == "ds-param-offload-needs-zero3" for f in check_answers(a))


def test_hybrid_zero3_two_nodes_uses_hpz():
    r = render(A(backend="deepspeed", sharding__strategy="hybrid_full", launch__num_processes=16,
                 launch__num_machines=2, launch__main_process_ip="10.0.0.1"))
    assert r.deepspeed["zero_optimization"]["zero_hpz_partition_size"] == 8


def test_extra_json_is_merged():
    r = render(A(backend="deepspeed", deepspeed__extra={"zero_optimization": {"round_robin_gradients": True},
                                                        "wall_clock_breakdown": False}))
    assert r.deepspeed["zero_optimization"]["round_robin_gradients"] is True
    assert r.deepspeed["zero_optimization"]["stage"] == 3
    assert r.provenance["zero_optimization.round_robin_gradients"] == "deepspeed.extra"


def test_compile_writes_dynamo_config():
    y = render(A(fsdp_version=1, launch__dynamo_backend="inductor")).accelerate
    assert y["dynamo_config"]["dynamo_backend"] == "INDUCTOR"
    assert "dynamo_config" not in render(A()).accelerate


def test_render_is_deterministic():
    a = A(backend="deepspeed", offload__optimizer="nvme", offload__nvme_path="/n")
    assert render(a).accelerate == render(a).accelerate
    assert render(a).deepspeed == render(a).deepspeed


def test_multinode_writes_address_and_port():
    y = render(A(launch__num_processes=16, launch__num_machines=2, launch__main_process_ip="10.1.2.3")).accelerate
    assert y["main_process_ip"] == "10.1.2.3" and y["main_process_port"] == 29500


def test_provenance_covers_every_fsdp_key():
    r = render(A(fsdp_version=1))
    for key in r.accelerate["fsdp_config"]:
        assert f"fsdp_config.{key}" in r.provenance


def test_no_clipping_goes_through_json():
    """Inline, accelerate drops gradient_clipping 0.0 and DeepSpeed's default (1.0) would clip."""
    r = render(A(backend="deepspeed", training__gradient_clipping=0))
    assert r.deepspeed is not None and r.deepspeed["gradient_clipping"] == 0.0
    assert "gradient_clipping" not in r.accelerate["deepspeed_config"]


@pytest.mark.parametrize("value,master,states", [("fp32", False, False), ("bf16", True, False),
                                                 ("bf16_with_states", True, True)])
def test_bf16_master_weights_write_both_keys_beside_bf16_enabled(value, master, states):
    out = render(A(backend="deepspeed", precision__ds_bf16_master_weights=value))
    assert out.accelerate["deepspeed_config"]["deepspeed_config_file"]  # JSON-only keys: a DeepSpeed JSON
    assert out.deepspeed["bf16"] == {"bf16_master_weights_and_grads": master, "bf16_optimizer_states": states,
                                     "enabled": True}
    assert out.provenance["bf16.bf16_optimizer_states"] == "precision.ds_bf16_master_weights"


def test_bf16_master_weights_unset_writes_nothing():
    out = render(A(backend="deepspeed", deepspeed__config_file="yes"))
    assert out.deepspeed["bf16"] == {"enabled": True}
    assert "bf16_master_weights_and_grads" not in str(render(A(precision__ds_bf16_master_weights="bf16")).accelerate)
