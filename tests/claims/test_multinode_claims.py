"""Claims about multi-node sizing that the multi-node rules rest on (wizard/core/claims/launch.py), shown with the
real DeepSpeed code in gloo ranks on this CPU."""
from __future__ import annotations

from pathlib import Path

import pytest
from gloo_ranks import EXTENSIONS, run_ranks

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def hpz():
    """Three gloo ranks building DeepSpeed's hpZ groups (once for both cases)."""
    return run_ranks(HERE / "_hpz_groups_cpu.py", world=3, timeout=300, DS_ACCELERATOR="cpu",
                     TORCH_EXTENSIONS_DIR=EXTENSIONS)  # the CPU comm op is built once, then cached


@pytest.mark.claim("ds-hpz-group-divides-world")
@pytest.mark.parametrize("case", ["not-dividing-asserts", "above-world-capped"])
def test_hpz_groups_must_divide_the_world_and_are_capped_at_it(hpz, case):
    for rank, r in hpz.items():
        assert r["world"] == 3
        if case == "not-dividing-asserts":
            assert r["size_2"] == "3 is not divisible by 2", (rank, r)  # rule ds-json-hpz-not-dividing
        else:
            assert r["size_8_ranks"] == [0, 1, 2]  # 8 > 3 ranks: one group of the whole world, no error


_MESH = """
import json
import torch.distributed as dist
from torch.testing._internal.distributed.fake_pg import FakeStore
from accelerate.parallelism_config import ParallelismConfig
dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=8)
mesh = ParallelismConfig(dp_replicate_size=2, dp_shard_size=4).build_device_mesh("cpu")
print("RESULT " + json.dumps({"names": list(mesh.mesh_dim_names), "ranks": mesh.mesh.tolist()}))
"""


@pytest.fixture(scope="module")
def mesh():
    """accelerate's own mesh for 8 ranks as 2 replicas x 4 shards, built in one process on torch's fake process
    group (world size 8, no communication)."""
    import subprocess
    import sys

    from gloo_ranks import result_of

    p = subprocess.run([sys.executable, "-c", _MESH], capture_output=True, text=True, timeout=120)
    return result_of(p.stdout, p.returncode, p.stderr)


@pytest.mark.claim("fsdp2-hsdp-shard-groups-consecutive-ranks")
@pytest.mark.parametrize("case", ["replicate-outside-shard", "shard-groups-consecutive"])
def test_hsdp_shard_groups_are_consecutive_ranks(mesh, case):
    if case == "replicate-outside-shard":
        assert mesh["names"] == ["dp_replicate", "dp_shard"]
    else:  # the shard groups are ranks 0-3 and 4-7; rule parallelism-shard-group-spans-machines
        assert mesh["ranks"] == [[0, 1, 2, 3], [4, 5, 6, 7]]
