"""Claims stated by the answer rules (wizard/core/claims/rules_answers.py).

The launcher facts reuse launch_support.Launch (accelerate launch prepared without starting a process), the plugin
facts build accelerate's FSDP plugin in this process (the clean_env fixture), and the FSDP2 runs go through
tests/claims/_rules_answers_cpu.py on gloo ranks, started by gloo_ranks.run_ranks (it reuses _fsdp_cpu.py's shim)."""
from __future__ import annotations

from pathlib import Path

import pytest
from gloo_ranks import run_ranks
from launch_support import BASE, Launch, ds_base

SUPPORT = Path(__file__).with_name("_rules_answers_cpu.py")


def _run(mode: str, world: int, monkeypatch) -> dict[int, dict]:
    return run_ranks(SUPPORT, mode, world=world)


@pytest.mark.claim("dynamo-options-need-backend")
def test_dynamo_options_without_a_backend_compile_nothing(fresh_state, clean_env):
    import torch
    from accelerate import Accelerator
    from accelerate.utils import TorchDynamoPlugin, is_compiled_module

    options = {"mode": "max-autotune", "fullgraph": True, "dynamic": True}
    off = Accelerator(cpu=True, dynamo_plugin=TorchDynamoPlugin(backend="no", use_regional_compilation=True,
                                                                **options))
    model = off.prepare(torch.nn.Linear(4, 4))
    assert not is_compiled_module(model) and type(model) is torch.nn.Linear
    from accelerate.state import AcceleratorState, PartialState

    AcceleratorState._reset_state(True)
    PartialState._reset_state()
    on = Accelerator(cpu=True, dynamo_plugin=TorchDynamoPlugin(backend="eager", **options))
    assert is_compiled_module(on.prepare(torch.nn.Linear(4, 4)))  # the same options with a backend compile


@pytest.mark.claim("fsdp2-parallelism-needs-shard-dim")
def test_fsdp2_hybrid_with_nothing_to_shard_is_refused(monkeypatch):
    ranks = _run("hsdp", 2, monkeypatch)
    for rank in (0, 1):
        assert "no dimension for FSDP to shard across" in ranks[rank]["replicate_only"]
        assert ranks[rank]["shard"] == "ok"


@pytest.mark.claim("fsdp2-size-policy-selects-containers")
def test_fsdp2_size_policy_picks_the_block_list_which_fully_shard_refuses(clean_env, monkeypatch):
    import torch
    from accelerate.utils import FullyShardedDataParallelPlugin
    from accelerate.utils.fsdp_utils import fsdp2_prepare_auto_wrap_policy
    from torch.distributed.fsdp import fully_shard

    model = torch.nn.Module()
    model.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(2)])  # 144 parameters
    plugin = FullyShardedDataParallelPlugin(fsdp_version=2, auto_wrap_policy="SIZE_BASED_WRAP", min_num_params=100)
    policy = fsdp2_prepare_auto_wrap_policy(plugin, model)
    assert policy(model.layers) and not policy(model.layers[0])
    with pytest.raises(ValueError, match="does not support containers"):
        fully_shard(model.layers)
    one = _run("size", 1, monkeypatch)[0]  # and so through Accelerator.prepare
    assert "does not support containers" in one["100"] and one["1000"] == "ok"


@pytest.mark.claim("fp8-needs-backend-package")
def test_fp8_without_a_backend_package_is_refused(tmp_path, fresh_state, clean_env):
    from accelerate.state import AcceleratorState
    from accelerate.utils import is_fp8_available

    assert not is_fp8_available()  # none of Transformer Engine, MS-AMP, torchao is installed here
    for config in (BASE, ds_base()):  # the FSDP (multi-GPU) and the DeepSpeed launcher
        with pytest.raises(RuntimeError, match="FP8 is not available"):
            Launch(tmp_path, {**config, "mixed_precision": "fp8"})
    with pytest.raises(ValueError, match="fp8"):
        AcceleratorState(mixed_precision="fp8", cpu=True)
