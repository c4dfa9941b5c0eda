"""The Parallelism group (issue 24): tp, cp and its exchange for FSDP2, Ulysses sp for DeepSpeed, AutoTP and ZeRO++
quantization, from the answers to the files, back by import, into the effective model, and what is said about them."""
from __future__ import annotations

from wizard.core.answers import default_answers
from wizard.core.answers.generate import generate
from wizard.core.answers.importer import import_mapping
from wizard.core.answers.of_answers import of_answers
from wizard.core.answers.render import render
from wizard.core.answers.rules import check_answers

DS = {"backend": "deepspeed"}
PC = "parallelism_config_"


def A(**changes):
    return default_answers().replace({k.replace("__", "."): v for k, v in changes.items()})


def pc(a) -> dict:
    return render(a).accelerate.get("parallelism_config", {})


def test_fsdp2_tp_leaves_the_rest_of_the_processes_to_dp_shard():
    assert pc(A(launch__num_processes=8, parallelism__tp_size=2)) == {PC + "dp_shard_size": 4, PC + "tp_size": 2}
    hybrid = A(launch__num_processes=16, launch__num_machines=2, launch__main_process_ip="10.0.0.1",
               sharding__strategy="hybrid_full", parallelism__tp_size=2, parallelism__cp_size=2)
    assert pc(hybrid) == {PC + "dp_replicate_size": 2, PC + "dp_shard_size": 2, PC + "tp_size": 2, PC + "cp_size": 2,
                          PC + "cp_comm_strategy": "allgather"}
    # no tp, cp or hybrid: no parallelism_config at all (plain FSDP2, as before)
    assert pc(A(launch__num_processes=8)) == {}


def test_the_cp_exchange_is_written_only_with_cp_above_1():
    assert PC + "cp_comm_strategy" not in pc(A(parallelism__tp_size=2, parallelism__cp_comm_strategy="alltoall"))
    assert pc(A(launch__num_processes=8, parallelism__cp_size=2, parallelism__cp_comm_strategy="alltoall"))[
        PC + "cp_comm_strategy"] == "alltoall"


def test_fsdp1_and_deepspeed_get_no_tp_or_cp_and_say_so():
    for backend in ({"fsdp_version": 1}, DS):
        a = default_answers().replace({**backend, "parallelism.tp_size": 2, "parallelism.cp_size": 2})
        assert PC + "tp_size" not in pc(a) and PC + "cp_size" not in pc(a)
        named = {k for f in check_answers(a) if f.rule == "not-applicable" for k in f.keys}
        assert {"parallelism.tp_size", "parallelism.cp_size"} <= named


def test_deepspeed_ulysses_is_written_as_a_yaml_bool_and_a_length_only_when_fixed():
    fixed = A(backend="deepspeed", launch__num_processes=8, parallelism__sp_size=4,
              parallelism__sp_seq_length_is_variable=False,
              parallelism__sp_seq_length=4096, parallelism__sp_attn_implementation="flash_attention_2")
    assert pc(fixed) == {PC + "sp_size": 4, PC + "sp_backend": "deepspeed", PC + "sp_seq_length_is_variable": False,
                         PC + "dp_shard_size": 2,
                         PC + "sp_seq_length": 4096, PC + "sp_attn_implementation": "flash_attention_2"}
    assert pc(fixed)[PC + "sp_seq_length_is_variable"] is False  # a bool, never the text "False"
    variable = fixed.replace({"parallelism.sp_seq_length_is_variable": True})
    assert PC + "sp_seq_length" not in pc(variable)
    hits = [f for f in check_answers(variable) if f.rule == "parallelism-details-unused"]
    assert hits and hits[0].keys == ("parallelism.sp_seq_length", "parallelism.sp_seq_length_is_variable")
    # no sp: none of it is written, and the details stated are named
    alone = A(backend="deepspeed", parallelism__sp_attn_implementation="flash_attention_3")
    assert pc(alone) == {}
    assert [f.keys for f in check_answers(alone) if f.rule == "parallelism-details-unused"] == [
        ("parallelism.sp_attn_implementation", "parallelism.sp_size")]


def test_autotp_and_zeropp_go_to_the_deepspeed_json():
    a = A(backend="deepspeed", parallelism__ds_autotp_size=2, parallelism__ds_quantized_weights=True,
          parallelism__ds_quantized_gradients=True)
    ds = render(a).deepspeed
    assert ds["tensor_parallel"] == {"autotp_size": 2}
    assert ds["zero_optimization"]["zero_quantized_weights"] is True
    assert ds["zero_optimization"]["zero_quantized_gradients"] is True
    # ZeRO-2: the quantization is a ZeRO-3 option, left out and named
    z2 = a.replace({"sharding.strategy": "grads_optimizer"})
    assert "zero_quantized_weights" not in render(z2).deepspeed["zero_optimization"]
    named = {k for f in check_answers(z2) if f.rule == "zero3-knob-unused" for k in f.keys}
    assert {"parallelism.ds_quantized_weights", "parallelism.ds_quantized_gradients"} <= named


def test_import_gives_back_the_answers():
    for a in (A(launch__num_processes=16, launch__num_machines=2, launch__main_process_ip="10.0.0.1",
                sharding__strategy="hybrid_full", parallelism__tp_size=2, parallelism__cp_size=2,
                parallelism__cp_comm_strategy="alltoall"),
              A(backend="deepspeed", launch__num_processes=8, parallelism__sp_size=4,
                parallelism__sp_seq_length_is_variable=False, parallelism__sp_seq_length=4096,
                parallelism__ds_autotp_size=2)):
        r = render(a)
        b, notes = import_mapping(r.accelerate, r.deepspeed)
        assert b is not None and notes == []
        for sid in ("parallelism.tp_size", "parallelism.cp_size", "parallelism.cp_comm_strategy",
                    "parallelism.sp_size", "parallelism.sp_seq_length_is_variable", "parallelism.sp_seq_length",
                    "parallelism.ds_autotp_size"):
            if a.is_set(sid):
                assert b[sid] == a[sid], sid


def test_import_reads_the_variable_flag_as_accelerate_does():
    """The launcher exports str() of the value and accelerate takes only "true" as variable: the text "False" and
    "no" both mean a fixed length."""
    for written, variable in ((False, False), ("False", False), ("no", False), (True, True), ("TRUE", True)):
        y = {"distributed_type": "DEEPSPEED", "num_processes": 8, "deepspeed_config": {"zero_stage": 3},
             "parallelism_config": {PC + "sp_size": 2, PC + "sp_seq_length_is_variable": written,
                                    PC + "sp_seq_length": 128}}
        b, _ = import_mapping(y)
        assert b["parallelism.sp_seq_length_is_variable"] is variable, written


def test_the_effective_model_carries_the_new_dimensions():
    fsdp = of_answers(A(launch__num_processes=8, parallelism__cp_size=2, parallelism__tp_size=2,
                        parallelism__cp_comm_strategy="alltoall"))
    assert (fsdp["parallelism.dp_shard_size"], fsdp["parallelism.cp_size"], fsdp["parallelism.tp_size"],
            fsdp["parallelism.total_size"], fsdp["parallelism.cp_comm_strategy"]) == (2, 2, 2, 8, "alltoall")
    ds = of_answers(A(backend="deepspeed", launch__num_processes=8, parallelism__sp_size=4,
                      parallelism__sp_seq_length_is_variable=False, parallelism__sp_seq_length=4096))
    assert (ds["parallelism.sp_size"], ds["parallelism.sp_backend"], ds["parallelism.sp_seq_length_is_variable"],
            ds["parallelism.sp_seq_length"], ds["parallelism.sp_attn_implementation"]) == (
        4, "deepspeed", False, 4096, "sdpa")
    assert "parallelism.sp_size" not in of_answers(A(backend="deepspeed"))


def test_a_tp_that_does_not_divide_the_processes_is_an_error_naming_the_settings():
    gen = generate(A(launch__num_processes=8, parallelism__tp_size=3))
    errors = [f for f in gen.findings if f.rule == "parallelism-total-mismatch"]
    assert errors and errors[0].severity == "error"
    assert {"parallelism.tp_size", "launch.num_processes"} <= set(errors[0].keys)


def test_ulysses_leaves_the_rest_of_the_processes_to_dp_shard():
    """accelerate sizes DeepSpeed's batch by dp_replicate x dp_shard, DeepSpeed checks processes / sp (claim
    ds-ulysses-batch-needs-dp-sizes): the wizard writes dp_shard_size = processes / sp, and an sp that does not
    divide the processes is an error naming the answers behind it."""
    assert pc(A(backend="deepspeed", launch__num_processes=8, parallelism__sp_size=4))[PC + "dp_shard_size"] == 2
    assert PC + "dp_shard_size" not in pc(A(backend="deepspeed", launch__num_processes=4, parallelism__sp_size=4))
    gen = generate(A(backend="deepspeed", launch__num_processes=8, parallelism__sp_size=3))
    errors = [f for f in gen.findings if f.rule == "parallelism-ds-sp-total-mismatch"]
    assert errors and {"parallelism.sp_size", "launch.num_processes"} <= set(errors[0].keys)
    ok = generate(A(backend="deepspeed", launch__num_processes=8, parallelism__sp_size=2))
    assert not [f for f in ok.findings if f.severity == "error"], [f.render() for f in ok.findings]


def test_the_effective_model_counts_ulysses_data_parallel_ranks():
    """DeepSpeed's config sees processes / sp data-parallel ranks under Ulysses; accelerate's batch must match."""
    ok = of_answers(A(backend="deepspeed", launch__num_processes=8, parallelism__sp_size=4,
                      training__micro_batch_size=2))
    assert ok.ok and ok["deepspeed_validated.world_size"] == 2 and ok["deepspeed_validated.train_batch_size"] == 4
    from wizard.core.effective import effective

    y = {"distributed_type": "DEEPSPEED", "num_processes": 8, "deepspeed_config": {"zero_stage": 2},
         "parallelism_config": {PC + "sp_size": 4}}
    model = effective(y)
    assert not model.ok and "Check batch related parameters" in model.failures[0].message


def test_a_switch_says_what_becomes_of_tp_cp_and_sp():
    """tp, cp and Ulysses sp do not carry over between the backends; the finding names the other backend's
    counterpart (AutoTP for tp, the other sequence split for cp and sp), and nothing of them is written."""
    from wizard.core.convert.groups import target_answers

    fsdp2 = A(launch__num_processes=8, parallelism__tp_size=2, parallelism__cp_size=2)
    ds, findings = target_answers(fsdp2, "deepspeed")
    said = {f.keys[0]: f.message for f in findings if f.rule == "convert-dropped"}
    assert "AutoTP" in said["parallelism.tp_size"] and "tensor_parallel.autotp_size" in said["parallelism.tp_size"]
    assert "no carry-over" in said["parallelism.cp_size"] and "Ulysses" in said["parallelism.cp_size"]
    assert (ds["parallelism.tp_size"], ds["parallelism.cp_size"], ds["parallelism.ds_autotp_size"]) == (1, 1, None)
    assert "parallelism_config" not in render(ds).accelerate
    uly = A(backend="deepspeed", launch__num_processes=8, parallelism__sp_size=4, parallelism__ds_autotp_size=2)
    back, findings = target_answers(uly, "fsdp2")
    said = {f.keys[0]: f.message for f in findings if f.rule == "convert-dropped"}
    assert "context parallelism" in said["parallelism.sp_size"] and "no carry-over" in said["parallelism.sp_size"]
    assert "parallelism.tp_size" in said["parallelism.ds_autotp_size"]
    assert back["parallelism.sp_size"] == 1 and "parallelism_config" not in render(back).accelerate


def test_hybrid_replicas_inside_one_machine_are_written_and_imported_back():
    one = A(launch__num_processes=8, sharding__strategy="hybrid_full", parallelism__dp_replicate_size=2)
    assert pc(one) == {PC + "dp_replicate_size": 2, PC + "dp_shard_size": 4}
    assert check_answers(one) == []  # replicas within one machine: no "hybrid on one machine" warning
    four = A(launch__num_processes=32, launch__num_machines=4, launch__main_process_ip="10.0.0.1",
             sharding__strategy="hybrid_full", parallelism__dp_replicate_size=2)
    assert pc(four) == {PC + "dp_replicate_size": 2, PC + "dp_shard_size": 16}
    for a in (one, four):
        r = render(a)
        b, notes = import_mapping(r.accelerate, r.deepspeed)
        assert b is not None and notes == []
        assert (b["sharding.strategy"], b["parallelism.dp_replicate_size"]) == ("hybrid_full", 2)
        assert render(b).accelerate == r.accelerate
    # one replica per machine stays the default: no size in the answers
    per_machine = A(launch__num_processes=16, launch__num_machines=2, launch__main_process_ip="10.0.0.1",
                    sharding__strategy="hybrid_full")
    r = render(per_machine)
    b, _ = import_mapping(r.accelerate, r.deepspeed)
    assert b["parallelism.dp_replicate_size"] is None and pc(per_machine)[PC + "dp_replicate_size"] == 2


def test_replicas_without_hybrid_sharding_or_one_replica_are_said():
    plain = A(launch__num_processes=8, parallelism__dp_replicate_size=2)
    assert pc(plain) == {}
    hits = {(f.rule, tuple(f.keys)) for f in check_answers(plain)}
    assert ("parallelism-details-unused", ("parallelism.dp_replicate_size", "sharding.strategy")) in hits
    one = A(launch__num_processes=8, sharding__strategy="hybrid_full", parallelism__dp_replicate_size=1)
    hits = {(f.rule, tuple(f.keys)) for f in check_answers(one)}
    assert ("hybrid-single-machine", ("sharding.strategy", "parallelism.dp_replicate_size")) in hits
    # a size the processes do not divide by: the config rule names the replica answer with the rest
    odd = A(launch__num_processes=8, sharding__strategy="hybrid_full", parallelism__dp_replicate_size=3)
    g = generate(odd, None)
    err = next(f for f in g.findings if f.rule == "parallelism-total-mismatch")
    assert "parallelism.dp_replicate_size" in err.keys and not g.ok
