"""Claims about multi-node sizing that the multi-node rules rest on (wizard/core/claims/launch.py), shown with the
real DeepSpeed code in gloo ranks on this CPU."""
from __future__ import annotations

from pathlib import Path

import pytest
from gloo_ranks import EXTENSIONS, run_ranks

HERE = Path(__file__).parent


@pytest.mark.claim("ds-hpz-group-divides-world")
def test_hpz_groups_must_divide_the_world_and_are_capped_at_it():
    results = run_ranks(HERE / "_hpz_groups_cpu.py", world=3, timeout=300, DS_ACCELERATOR="cpu",
                        TORCH_EXTENSIONS_DIR=EXTENSIONS)  # the CPU comm op is built once, then cached
    for rank, r in results.items():
        assert r["world"] == 3
        assert r["size_2"] == "3 is not divisible by 2", (rank, r)  # rule ds-json-hpz-not-dividing
        assert r["size_8_ranks"] == [0, 1, 2]  # 8 > 3 ranks: one group of the whole world, no error
