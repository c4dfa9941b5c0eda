"""`explain parallelism` and --headless for the Parallelism group: both backends' dimensions, the mesh picture."""
from __future__ import annotations

from wizard.cli import main
from wizard.core.effective.layout import config_sizes
from wizard.core.mesh import mesh_picture


def test_explain_parallelism_covers_tensor_context_and_sequence_parallelism_on_both_backends(capsys):
    assert main(["explain", "parallelism", "--width", "100"]) == 0
    out = capsys.readouterr().out
    for words in ("tensor parallelism", "context parallelism", "Ulysses sequence parallelism", "AutoTP",
                  "parallelism_config_tp_size", "parallelism_config_cp_size", "parallelism_config_sp_size",
                  "tensor_parallel.autotp_size", "zero_quantized_weights", "FSDP1: none"):
        assert words in out, words
    # the example mesh: tp groups are consecutive ranks, cp groups stride by tp
    assert "tp groups: [0,1] [2,3] [4,5] [6,7]" in out and "cp groups: [0,2] [1,3] [4,6] [5,7]" in out


def test_the_mesh_picture_gives_each_ranks_index_and_the_machines():
    lines = mesh_picture({"dp_replicate": 2, "dp_shard": 2, "tp": 2}, per_machine=4)
    assert lines[0] == "Mesh: dp_replicate 2 x dp_shard 2 x tp 2 = 8 ranks (the last varies fastest)"
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:6]}
    assert rows["rank"] == list("01234567") and rows["machine"] == list("00001111")
    assert rows["dp_replicate"] == list("00001111") and rows["tp"] == list("01010101")
    assert "tp groups: [0,1] [2,3] [4,5] [6,7]" in lines
    assert mesh_picture({"dp_shard": 8})[0] == "Mesh: dp_shard 8 = 8 ranks (the last varies fastest)"
    assert mesh_picture({}) == []
    big = mesh_picture({"dp_shard": 8, "tp": 8}, limit=16)
    assert big[-3] == "(ranks 16 to 63 follow the same pattern)" and max(map(len, big)) <= 80


def test_config_sizes_only_for_fsdp_tp_or_cp_that_describe_the_world():
    y = {"distributed_type": "FSDP", "num_processes": 8, "num_machines": 1,
         "parallelism_config": {"parallelism_config_dp_shard_size": 4, "parallelism_config_cp_size": 2}}
    assert config_sizes(y) == ({"dp_replicate": 1, "dp_shard": 4, "cp": 2, "sp": 1, "tp": 1}, 0)
    assert config_sizes({**y, "num_processes": 16}) is None  # the sizes do not describe the world
    assert config_sizes({**y, "parallelism_config": {"parallelism_config_dp_shard_size": 8}}) is None  # no tp/cp
    assert config_sizes({**y, "distributed_type": "DEEPSPEED"}) is None


def test_headless_draws_the_mesh_of_what_it_writes(tmp_path, capsys):
    answers = tmp_path / "answers.yaml"
    answers.write_text("schema_version: 1\nbackend: fsdp\nfsdp_version: 2\nlaunch:\n  num_processes: 8\n"
                       "parallelism:\n  cp_size: 2\n  cp_comm_strategy: alltoall\n")
    assert main(["--headless", str(answers), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "Mesh: dp_shard 4 x cp 2 = 8 ranks" in out and "cp groups: [0,1] [2,3] [4,5] [6,7]" in out
    written = (tmp_path / "out" / "accelerate_config.yaml").read_text()
    assert "parallelism_config_cp_comm_strategy: alltoall" in written
    assert "parallelism_config_dp_shard_size: 4" in written
