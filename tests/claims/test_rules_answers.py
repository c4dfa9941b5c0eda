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


@pytest.mark.claim("dynamo-options-need-backend")
@pytest.mark.parametrize("option", ["mode", "fullgraph", "dynamic", "regional-compilation", "with-a-backend"])
def test_dynamo_options_without_a_backend_compile_nothing(fresh_state, clean_env, option):
    import torch
    from accelerate import Accelerator
    from accelerate.utils import TorchDynamoPlugin, is_compiled_module

    options = {"mode": {"mode": "max-autotune"}, "fullgraph": {"fullgraph": True}, "dynamic": {"dynamic": True},
               "regional-compilation": {"use_regional_compilation": True}}
    if option == "with-a-backend":  # the same options with a backend compile
        every = {k: v for o in options.values() for k, v in o.items() if k != "use_regional_compilation"}
        on = Accelerator(cpu=True, dynamo_plugin=TorchDynamoPlugin(backend="eager", **every))
        assert is_compiled_module(on.prepare(torch.nn.Linear(4, 4)))
        return
    off = Accelerator(cpu=True, dynamo_plugin=TorchDynamoPlugin(backend="no", **options[option]))
    model = off.prepare(torch.nn.Linear(4, 4))
    assert not is_compiled_module(model) and type(model) is torch.nn.Linear


@pytest.fixture(scope="module")
def hsdp_ranks():
    return run_ranks(SUPPORT, "hsdp", world=2)


@pytest.mark.claim("fsdp2-parallelism-needs-shard-dim")
@pytest.mark.parametrize("case", ["replicate-only", "shard"])
def test_fsdp2_hybrid_with_nothing_to_shard_is_refused(hsdp_ranks, case):
    for rank in (0, 1):
        if case == "replicate-only":
            assert "no dimension for FSDP to shard across" in hsdp_ranks[rank]["replicate_only"]
        else:
            assert hsdp_ranks[rank]["shard"] == "ok"


@pytest.fixture(scope="module")
def size_run():
    return run_ranks(SUPPORT, "size", world=1)[0]


@pytest.mark.claim("fsdp2-size-policy-selects-containers")
@pytest.mark.parametrize("case", ["policy-selects-container", "module-list-refused", "module-dict-refused",
                                  "prepare-fails", "below-threshold"])
def test_fsdp2_size_policy_picks_the_block_list_which_fully_shard_refuses(clean_env, request, case):
    import torch
    from accelerate.utils import FullyShardedDataParallelPlugin
    from accelerate.utils.fsdp_utils import fsdp2_prepare_auto_wrap_policy
    from torch.distributed.fsdp import fully_shard

    model = torch.nn.Module()
    model.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(2)])  # 144 parameters
    if case == "policy-selects-container":
        plugin = FullyShardedDataParallelPlugin(fsdp_version=2, auto_wrap_policy="SIZE_BASED_WRAP",
                                                min_num_params=100)
        policy = fsdp2_prepare_auto_wrap_policy(plugin, model)
        assert policy(model.layers) and not policy(model.layers[0])
    elif case == "module-list-refused":
        with pytest.raises(ValueError, match="does not support containers"):
            fully_shard(model.layers)
    elif case == "module-dict-refused":
        with pytest.raises(ValueError, match="does not support containers"):
            fully_shard(torch.nn.ModuleDict({"a": torch.nn.Linear(8, 8)}))
    else:  # through Accelerator.prepare: min_num_params 100 selects the list, 1000 nothing
        one = request.getfixturevalue("size_run")
        if case == "prepare-fails":
            assert "does not support containers" in one["100"]
        else:
            assert one["1000"] == "ok"


@pytest.mark.claim("fp8-needs-backend-package")
@pytest.mark.parametrize("case", ["simple-launcher", "multi-gpu-launcher", "deepspeed-launcher", "accelerator-state"])
def test_fp8_without_a_backend_package_is_refused(tmp_path, fresh_state, clean_env, case):
    from accelerate.state import AcceleratorState
    from accelerate.utils import is_fp8_available

    assert not is_fp8_available()  # none of Transformer Engine, MS-AMP, torchao is installed here
    if case == "simple-launcher":
        import yaml
        from accelerate.commands.launch import _validate_launch_command, launch_command_parser
        from accelerate.utils.launch import prepare_simple_launcher_cmd_env

        path = tmp_path / "c.yaml"
        path.write_text(yaml.safe_dump({**{k: v for k, v in BASE.items() if k != "fsdp_config"},
                                        "distributed_type": "NO", "num_processes": 1, "mixed_precision": "fp8"}))
        args, _, _ = _validate_launch_command(launch_command_parser().parse_args(["--config_file", str(path),
                                                                                  "train.py"]))
        with pytest.raises(RuntimeError, match="FP8 is not available"):
            prepare_simple_launcher_cmd_env(args)
    elif case == "accelerator-state":
        with pytest.raises(ValueError, match="fp8"):
            AcceleratorState(mixed_precision="fp8", cpu=True)
    else:
        config = BASE if case == "multi-gpu-launcher" else ds_base()  # FSDP goes through the multi-GPU launcher
        with pytest.raises(RuntimeError, match="FP8 is not available"):
            Launch(tmp_path, {**config, "mixed_precision": "fp8"})
