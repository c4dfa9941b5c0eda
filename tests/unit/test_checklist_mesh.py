"""The rehearsal checklist's device-mesh rows: the mesh the config asks for (read from the effective model) against
the mesh and the DTensor placements a run reported (wizard.runtime records them after prepare())."""
from __future__ import annotations

from wizard.run.checklist import FAIL, OK, checklist_ok, compare, expected_from_config
from wizard.run.diagnose import diagnose

CONFIG = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "FSDP", "num_processes": 4, "num_machines": 1,
          "mixed_precision": "no",
          "fsdp_config": {"fsdp_version": 2, "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
                          "fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer",
                          "fsdp_reshard_after_forward": True},
          "parallelism_config": {"parallelism_config_dp_shard_size": 2, "parallelism_config_tp_size": 2}}

SPLIT = {"model.embed_tokens.weight": {"dp_shard_cp": "Shard(dim=0)", "tp": "Replicate()"},
         "model.layers.N.self_attn.q_proj.weight": {"dp_shard_cp": "_StridedShard(dim=0, sf=2)", "tp": "Shard(dim=0)"},
         "model.layers.N.self_attn.o_proj.weight": {"dp_shard_cp": "Shard(dim=0)", "tp": "Shard(dim=1)"},
         "model.norm.weight": {"dp_shard_cp": "Shard(dim=0)", "tp": "Replicate()"}}


def run_record(mesh=None, placements=None) -> dict:
    rec = {"distributed_type": "FSDP", "world_size": 4, "fsdp_version": 2, "sharding": "FULL_SHARD",
           "param_fraction": 0.265, "full_param_numel": 139584, "local_param_numel": 37024,
           "wrapped_units": {"LlamaDecoderLayer": 2}, "mixed_precision": "no",
           "offload": {"params": "none", "optimizer": "none"}}
    if mesh is not None:
        rec["mesh"] = mesh
    if placements is not None:
        rec["placements"] = placements
    return rec


def mesh_rows(items):
    return [i for i in items if i.key == "mesh"]


def test_the_config_asks_for_its_mesh_in_accelerates_order():
    assert expected_from_config(CONFIG)["mesh"] == {"dp_shard": 2, "tp": 2}
    hsdp = {**CONFIG, "parallelism_config": {"parallelism_config_dp_replicate_size": 2,
                                             "parallelism_config_dp_shard_size": 2}}
    assert expected_from_config(hsdp)["mesh"] == {"dp_replicate": 2, "dp_shard": 2}
    plain = {**CONFIG, "num_processes": 2, "parallelism_config": {"parallelism_config_dp_shard_size": 2}}
    assert "mesh" not in expected_from_config(plain)  # plain FSDP: nothing beyond the usual rows


def test_a_tensor_parallel_run_shows_its_placements():
    items = compare(run_record({"dp_shard": 2, "tp": 2}, SPLIT), expected_from_config(CONFIG))
    rows = mesh_rows(items)
    assert [r.status for r in rows] == [OK, OK, OK]
    assert rows[0].label == "Device mesh dp_shard 2 x tp 2"
    assert rows[1].label == "Tensor parallelism active over tp 2"
    assert rows[1].detail == ("q_proj: Shard(dim=0) (column-wise); o_proj: Shard(dim=1) (row-wise); "
                              "whole on every tp rank: embed_tokens, norm")
    assert rows[2].label == "FSDP shards over the dp_shard_cp dimension"
    assert checklist_ok(items)


def test_tp_that_split_nothing_fails():
    whole = {k: {**v, "tp": "Replicate()"} for k, v in SPLIT.items()}
    rows = mesh_rows(compare(run_record({"dp_shard": 2, "tp": 2}, whole), expected_from_config(CONFIG)))
    assert rows[1].status == FAIL and "did not split any parameter" in rows[1].label


def test_a_run_without_the_mesh_or_with_another_fails():
    expected = expected_from_config(CONFIG)
    rows = mesh_rows(compare(run_record(), expected))
    assert [(r.status, r.label) for r in rows] == [(FAIL, "Device mesh dp_shard 2 x tp 2 requested, the run built "
                                                          "none")]
    rows = mesh_rows(compare(run_record({"dp_shard": 4}, {}), expected))
    assert rows[0].status == FAIL and rows[0].detail == "config asks for dp_shard 2 x tp 2"


def test_the_transformers_import_error_is_diagnosed():
    line = ("ImportError: cannot import name 'ReplicateParallel' from 'transformers.integrations.tensor_parallel' "
            "(/x/transformers/integrations/tensor_parallel.py)")
    found = diagnose([line], 1)
    assert found[0].code == "tp-transformers-version"
    assert "transformers==5.0.*" in found[0].fix and "parallelism_config_tp_size" in found[0].fix


SP_CONFIG = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "DEEPSPEED", "num_processes": 2,
             "num_machines": 1, "mixed_precision": "no",
             "deepspeed_config": {"zero_stage": 2, "offload_optimizer_device": "none", "offload_param_device": "none"},
             "parallelism_config": {"parallelism_config_sp_size": 2, "parallelism_config_sp_backend": "deepspeed",
                                    "parallelism_config_sp_seq_length_is_variable": True}}


def ds_record(**extra) -> dict:
    return {"distributed_type": "DEEPSPEED", "world_size": 2, "zero_stage": 2, "param_fraction": 1.0,
            "full_param_numel": 139584, "optimizer_state_bytes": 558336, "mixed_precision": "no", **extra}


def test_ulysses_rows_compare_the_tokens_each_rank_computed():
    expected = expected_from_config(SP_CONFIG)
    assert expected["sp"] == 2
    rows = [i for i in compare(ds_record(sp_tokens_per_rank=16, seq_len=32), expected) if i.key == "sp"]
    assert [(r.status, r.label) for r in rows] == [(OK, "Sequence parallelism active over sp 2")]
    assert rows[0].detail == "each rank computes 16 of the 32 tokens of every sequence (Ulysses)"
    rows = [i for i in compare(ds_record(sp_tokens_per_rank=32, seq_len=32), expected) if i.key == "sp"]
    assert rows[0].status == FAIL
    rows = [i for i in compare(ds_record(), expected) if i.key == "sp"]
    assert rows[0].status == "unknown"


def test_autotp_row_counts_the_replaced_layers():
    from wizard.run.checklist import _autotp_rows

    ok = _autotp_rows({"autotp_layers": {"LinearLayer": 10, "LinearAllreduce": 4}}, {"autotp": 2})
    assert [(r.status, r.label) for r in ok] == [(OK, "DeepSpeed AutoTP active over tp 2")]
    assert ok[0].detail.startswith("4 x LinearAllreduce (split by input columns")
    none = _autotp_rows({}, {"autotp": 2})
    assert none[0].status == FAIL
    assert _autotp_rows({}, {}) == []


def test_the_json_autotp_size_is_expected():
    y = {"distributed_type": "DEEPSPEED", "num_processes": 2, "num_machines": 1,
         "deepspeed_config": {"deepspeed_config_file": "ds.json"}}
    ds = {"zero_optimization": {"stage": 2}, "tensor_parallel": {"autotp_size": 2},
          "train_micro_batch_size_per_gpu": "auto"}
    assert expected_from_config(y, ds)["autotp"] == 2
    assert "autotp" not in expected_from_config(y, {"zero_optimization": {"stage": 2}})


def test_rehearsal_of_cp_says_why_it_is_not_rehearsed():
    from wizard.core.answers.model import default_answers
    from wizard.run.rehearse import rehearsal_answers

    a = default_answers().replace({"backend": "fsdp", "fsdp_version": 2, "launch.num_processes": 8,
                                   "parallelism.cp_size": 2})
    used, notes, _ = rehearsal_answers(a, port=29999)
    assert used["parallelism.cp_size"] == 1
    note = next(n for n in notes if n.setting == "parallelism.cp_size")
    assert note.short() == "cp 2 (ran 1)" and "torch-cp-no-cpu-attention" in note.why


HSDP = {**CONFIG, "parallelism_config": {"parallelism_config_dp_replicate_size": 2,
                                         "parallelism_config_dp_shard_size": 2}}
REPLICATED = {"model.embed_tokens.weight": {"dp_replicate": "Replicate()", "dp_shard_cp": "Shard(dim=0)"},
              "model.norm.weight": {"dp_replicate": "Replicate()", "dp_shard_cp": "Shard(dim=0)"}}


def hsdp_record(placements=REPLICATED, fraction=0.5) -> dict:
    rec = run_record({"dp_replicate": 2, "dp_shard": 2}, placements)
    rec.update(sharding="HYBRID_SHARD", param_fraction=fraction)
    return rec


def test_a_hybrid_run_is_sharded_within_each_replica_and_replicated_across():
    exp = expected_from_config(HSDP)
    assert exp["sharding"] == "HYBRID_SHARD"  # FSDP2 over (dp_replicate, dp_shard): what the runtime reports
    items = compare(hsdp_record(), exp)
    by_label = {i.label: i for i in items}
    assert by_label["Sharding strategy HYBRID_SHARD"].status == OK
    # four ranks, two replicas: a rank holds half of the parameters, not a quarter
    assert by_label["FSDP sharding active: each rank holds half of the parameters"].status == OK
    row = by_label["Hybrid sharding replicates over dp_replicate 2"]
    assert row.status == OK and "all 2 parameter kinds" in row.detail
    assert checklist_ok(items)


def test_a_hybrid_run_that_shards_across_replicas_fails():
    split = {**REPLICATED, "model.norm.weight": {"dp_replicate": "Shard(dim=0)", "dp_shard_cp": "Shard(dim=0)"}}
    items = compare(hsdp_record(split), expected_from_config(HSDP))
    row = next(i for i in items if i.label.startswith("Hybrid sharding: not every parameter"))
    assert row.status == FAIL and "1 of 2 parameter kinds are Shard(dim=0)" in row.detail
    # the parameters of a rank that holds a full copy are not sharded at all
    whole = compare(hsdp_record(fraction=1.0), expected_from_config(HSDP))
    assert any(i.label == "Parameters are not sharded" and i.status == FAIL for i in whole)


def test_rehearsal_of_fsdp2_hybrid_runs_two_replicas_on_one_machine():
    from wizard.core.answers.model import default_answers
    from wizard.core.answers.render import fsdp2_mesh_sizes
    from wizard.run.rehearse import rehearsal_answers

    a = default_answers().replace({"backend": "fsdp", "fsdp_version": 2, "launch.num_processes": 16,
                                   "launch.num_machines": 2, "launch.main_process_ip": "10.0.0.1",
                                   "sharding.strategy": "hybrid_full"})
    used, notes, _ = rehearsal_answers(a, port=29999)
    assert used["sharding.strategy"] == "hybrid_full" and used["launch.num_machines"] == 1
    assert fsdp2_mesh_sizes(used) == {"dp_replicate": 2, "dp_shard": 2, "cp": 1, "tp": 1}
    shorts = {n.short() for n in notes}
    assert {"processes 16 (ran 4)", "machines 2 (ran 1)"} <= shorts
    assert not any(n.setting == "sharding.strategy" for n in notes)
    # with tensor parallelism the four ranks are dp_shard x tp: hybrid runs as plain full sharding, and says why
    tp = a.replace({"parallelism.tp_size": 2})
    used, notes, _ = rehearsal_answers(tp, port=29999)
    assert used["sharding.strategy"] == "full" and fsdp2_mesh_sizes(used)["dp_replicate"] == 1
    why = next(n.why for n in notes if n.setting == "sharding.strategy")
    assert "no ranks left to replicate over" in why
    # FSDP1 and DeepSpeed group their hybrid forms by machine: the single-machine strategy, as before
    for backend in ({"fsdp_version": 1}, {"backend": "deepspeed"}):
        used, _, _ = rehearsal_answers(a.replace(backend), port=29999)
        assert used["sharding.strategy"] == "full" and used["launch.num_processes"] == 2
