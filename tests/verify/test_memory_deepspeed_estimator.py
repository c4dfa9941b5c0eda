"""Our restatement of DeepSpeed's model-state estimators equals the installed DeepSpeed functions, to the byte.

The real functions run (deepspeed imported on CPU); the grid covers model sizes from tiny to 405B, GPUs per
node, nodes, and every offload / zero_init combination, plus a non-default buffer factor.
"""
from __future__ import annotations

import itertools

import pytest

from wizard.core.memory import deepspeed_estimator as ours

SIZES = [(1, 1), (125_000_000, 38_597_376), (1_235_814_400, 262_668_288), (2_851_000_000, 32_900_000),
         (6_738_415_616, 131_072_000), (70_553_706_496, 1_050_673_152), (405_000_000_000, 2_101_346_304),
         (7_777_777, 123_457)]
GPUS = [1, 2, 3, 8]
NODES = [1, 2, 3, 16]


@pytest.fixture(scope="module")
def real():
    stage12 = pytest.importorskip("deepspeed.runtime.zero.stage_1_and_2")
    stage3 = pytest.importorskip("deepspeed.runtime.zero.stage3")
    import deepspeed

    assert deepspeed.__version__ == ours.DEEPSPEED_VERSION, "the restatement names the version it copies"
    return stage12.estimate_zero2_model_states_mem_needs, stage3.estimate_zero3_model_states_mem_needs


def test_zero2_equal_to_the_byte(real):
    zero2, _ = real
    n = 0
    for (params, _largest), gpus, nodes, offload, abf in itertools.product(SIZES, GPUS, NODES, (True, False),
                                                                          (1.5, 1.0, 2.25)):
        want = zero2(params, num_gpus_per_node=gpus, num_nodes=nodes, cpu_offload=offload,
                     additional_buffer_factor=abf)
        got = ours.estimate_zero2_model_states_mem_needs(params, num_gpus_per_node=gpus, num_nodes=nodes,
                                                         cpu_offload=offload, additional_buffer_factor=abf)
        assert got == want, (params, gpus, nodes, offload, abf)
        assert all(type(x) is int for x in got)
        n += 1
    assert n == len(SIZES) * len(GPUS) * len(NODES) * 2 * 3


def test_zero3_equal_to_the_byte(real):
    _, zero3 = real
    n = 0
    for (params, largest), gpus, nodes, opt, par, init, abf in itertools.product(
            SIZES, GPUS, NODES, (True, False), (True, False), (True, False), (1.5, 1.0)):
        want = zero3(params, largest, num_gpus_per_node=gpus, num_nodes=nodes, cpu_offload=opt,
                     cpu_offload_params=par, zero_init=init, additional_buffer_factor=abf)
        got = ours.estimate_zero3_model_states_mem_needs(params, largest, num_gpus_per_node=gpus, num_nodes=nodes,
                                                         cpu_offload=opt, cpu_offload_params=par, zero_init=init,
                                                         additional_buffer_factor=abf)
        assert got == want, (params, largest, gpus, nodes, opt, par, init, abf)
        n += 1
    assert n == len(SIZES) * len(GPUS) * len(NODES) * 8 * 2


def test_defaults_match(real):
    zero2, zero3 = real
    assert ours.estimate_zero2_model_states_mem_needs(2_851_000_000) == zero2(2_851_000_000)
    assert ours.estimate_zero3_model_states_mem_needs(2_783_000_000, 65_000_000) == zero3(2_783_000_000, 65_000_000)


def test_published_t0_3b_numbers():
    """The transformers DeepSpeed guide's T0_3B figures (46.9 / 5.43 / 0.24-0.25 GiB on one GPU)."""
    gib = 2 ** 30
    _, none, _ = ours.estimate_zero3_model_states_mem_needs(2_783_000_000, 65_000_000, cpu_offload=False)
    _, opt, _ = ours.estimate_zero3_model_states_mem_needs(2_783_000_000, 65_000_000, cpu_offload_params=False)
    _, both, _ = ours.estimate_zero3_model_states_mem_needs(2_783_000_000, 65_000_000)
    assert round(none / gib, 2) == 46.90 and round(opt / gib, 2) == 5.43 and round(both / gib, 2) == 0.24
