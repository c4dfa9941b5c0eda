"""Claims stated by the FSDP and key lint rules (wizard/core/claims/rules_fsdp.py).

The launcher runs the way tests/claims/launch_support.py runs it (``Launch``: parse, validate, build the processes'
environment, never start them); the FSDP plugin is built from that environment in this process."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import pytest
from launch_support import BASE, Launch


@pytest.mark.claim("launch-section-keys-copied-flat")
def test_section_keys_are_copied_flat_onto_the_launch_arguments(tmp_path, clean_env):  # noqa: F811
    config = {**BASE, "num_processes": 8,
              # written in this order (the file is dumped with sorted keys): the later, unprefixed one wins
              "fsdp_config": {"fsdp_version": 2, "fsdp_reshard_after_forward": True, "reshard_after_forward": False,
                              "fsdp_no_such_key": 7, "fsdp_transformer_layer_cls_to_wrap": ["A", "B"]},
              "parallelism_config": {"dp_shard_size": 2, "num_processes": 4},
              "dynamo_config": {"backend": "INDUCTOR", "dynamo_bakend": "EAGER"}}
    launch = Launch(tmp_path, config)
    env = launch.env
    assert env["FSDP_RESHARD_AFTER_FORWARD"] == "false"
    assert env["FSDP_TRANSFORMER_CLS_TO_WRAP"] == "['A', 'B']"  # str() of the list
    assert env["ACCELERATE_DYNAMO_BACKEND"] == "INDUCTOR"  # the dynamo_ prefix is added
    assert launch.args.fsdp_no_such_key == 7 and launch.args.dynamo_bakend == "EAGER"  # copied, then unused
    assert not any("SUCH" in k or "BAKEND" in k or v in ("7", "EAGER") for k, v in env.items())
    assert launch.args.dp_shard_size == 2 and env["PARALLELISM_CONFIG_DP_SHARD_SIZE"] != "2"  # no prefix added
    assert launch.args.num_processes == 4 and launch.torchrun.nproc_per_node == "4"  # the section key wins
    # a section that is not a mapping: nothing in it is read (the launcher's defaults apply)
    listed = Launch(tmp_path, {**BASE, "fsdp_config": ["fsdp_version: 2", "fsdp_offload_params: true"]})
    assert listed.env["FSDP_VERSION"] == "1" and listed.env["FSDP_OFFLOAD_PARAMS"] == "false"


@pytest.mark.claim("launch-other-sections-per-distributed-type")
def test_which_launch_paths_read_the_other_sections(tmp_path, clean_env):  # noqa: F811
    pc = {"parallelism_config_dp_shard_size": 8, "parallelism_config_cp_comm_strategy": "alltoall",
          "parallelism_config_sp_seq_length": 128}
    for dist in ("FSDP", "MULTI_GPU"):
        env = Launch(tmp_path, {**BASE, "distributed_type": dist, "parallelism_config": pc}).env
        assert env["PARALLELISM_CONFIG_DP_SHARD_SIZE"] == "8", dist
        assert "PARALLELISM_CONFIG_CP_COMM_STRATEGY" not in env and "PARALLELISM_CONFIG_SP_SEQ_LENGTH" not in env
    env = Launch(tmp_path, {**BASE, "parallelism_config": {**pc, "parallelism_config_cp_size": 2,
                                                            "parallelism_config_sp_size": 2}}).env
    assert env["PARALLELISM_CONFIG_CP_COMM_STRATEGY"] == "alltoall" and env["PARALLELISM_CONFIG_SP_SEQ_LENGTH"] == "128"
    launch = Launch(tmp_path, {**BASE, "megatron_lm_config": {"megatron_lm_tp_degree": 2},
                               "mpirun_config": {"mpirun_hostfile": "/tmp/hosts", "mpirun_ccl": 1}})
    assert launch.args.megatron_lm_tp_degree == 2 and launch.args.mpirun_hostfile == "/tmp/hosts"
    assert not any(k.startswith("MEGATRON") or "hosts" in v for k, v in launch.env.items())
    assert "/tmp/hosts" not in " ".join(map(str, vars(launch.torchrun).values()))


@pytest.mark.claim("fsdp-plugin-rejects-unknown-names")
def test_the_plugin_refuses_unknown_names(clean_env):  # noqa: F811
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin
    from torch.distributed.fsdp import ShardingStrategy

    assert Plugin(fsdp_version=1, sharding_strategy="2").sharding_strategy == ShardingStrategy.SHARD_GRAD_OP
    for env_key, value in (("FSDP_SHARDING_STRATEGY", "FULL"), ("FSDP_BACKWARD_PREFETCH", "BACKWARD_PRES"),
                           ("FSDP_STATE_DICT_TYPE", "FULL_STATE")):
        with clean_env.context() as m:
            m.setenv(env_key, value)
            with pytest.raises(KeyError):
                Plugin(fsdp_version=1)
    with pytest.raises(ValueError):  # a number outside 1-5
        Plugin(fsdp_version=1, sharding_strategy="6")
    clean_env.setenv("FSDP_AUTO_WRAP_POLICY", "TRANSFORMER_WRAP")
    with pytest.raises(ValueError, match="Invalid auto wrap policy"):
        Plugin(fsdp_version=2)


@pytest.mark.claim("fsdp-flags-str-to-bool")
def test_flags_go_through_str_to_bool(clean_env):  # noqa: F811
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin

    for word, on in (("On", True), ("Y", True), ("1", True), ("off", False), ("F", False), ("no", False)):
        clean_env.setenv("FSDP_ACTIVATION_CHECKPOINTING", word)
        assert Plugin(fsdp_version=2).activation_checkpointing is on, word
    clean_env.setenv("FSDP_ACTIVATION_CHECKPOINTING", "enabled")
    with pytest.raises(ValueError, match="invalid truth value"):
        Plugin(fsdp_version=2)


@pytest.mark.claim("fsdp-min-num-params-size-policy-only")
def test_min_num_params_is_read_only_by_the_size_policy(clean_env):  # noqa: F811
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin

    clean_env.setenv("FSDP_MIN_NUM_PARAMS", "1e8")  # int() refuses it under SIZE_BASED_WRAP
    for policy in ("TRANSFORMER_BASED_WRAP", "NO_WRAP"):
        clean_env.setenv("FSDP_AUTO_WRAP_POLICY", policy)
        for version in (1, 2):
            assert Plugin(fsdp_version=version).min_num_params is None, (policy, version)
    clean_env.setenv("FSDP_AUTO_WRAP_POLICY", "SIZE_BASED_WRAP")
    with pytest.raises(ValueError):
        Plugin(fsdp_version=2)


@pytest.mark.claim("fsdp1-ram-efficient-forces-sync")
def test_a_quoted_false_passes_the_launcher_and_fsdp1_syncs_anyway(tmp_path, clean_env):  # noqa: F811
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin

    env = Launch(tmp_path, {**BASE, "fsdp_config": {"fsdp_version": 1, "fsdp_sync_module_states": "false"}}).env
    assert env["FSDP_SYNC_MODULE_STATES"] == "false" and env["FSDP_CPU_RAM_EFFICIENT_LOADING"] == "true"
    for key in ("FSDP_SYNC_MODULE_STATES", "FSDP_CPU_RAM_EFFICIENT_LOADING"):
        clean_env.setenv(key, env[key])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # sync_module_states on makes the plugin look for an accelerator device, which this CPU lacks: the raise
        # shows the flag was turned back on (with it off, the plugin builds, below)
        with pytest.raises(RuntimeError, match="no available devices"):
            Plugin(fsdp_version=1)
    assert any("sync_module_states cannot be False" in str(w.message) for w in caught)
    clean_env.setenv("FSDP_CPU_RAM_EFFICIENT_LOADING", "false")
    assert Plugin(fsdp_version=1).sync_module_states is False
    with pytest.raises(ValueError, match="fsdp_sync_module_states"):  # an unquoted false is refused
        Launch(tmp_path, {**BASE, "fsdp_config": {"fsdp_version": 1, "fsdp_sync_module_states": False}})


@pytest.mark.claim("torch-hybrid-groups-need-multiple")
def test_new_subgroups_needs_a_divisor_of_the_world_size():
    code = textwrap.dedent("""
        import torch.distributed as dist
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:0", rank=0, world_size=1)
        try:
            dist.new_subgroups(2)
        except ValueError as e:
            print("REFUSED", e)
        group, _ = dist.new_subgroups(1)
        print("OK", dist.get_world_size(group))
        dist.destroy_process_group()
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "REFUSED" in out.stdout and "must not exceed the world size" in out.stdout, out.stdout + out.stderr
    assert "OK 1" in out.stdout
    import inspect

    import torch.distributed as dist

    assert "must be divisible by" in inspect.getsource(dist.new_subgroups)  # the second check, needs 3+ ranks


@pytest.mark.claim("fp8-config-names-unread")
def test_fp8_keys_are_exported_under_any_name_and_only_some_are_read(tmp_path, clean_env):  # noqa: F811
    from accelerate.utils import MSAMPRecipeKwargs
    from accelerate.utils.launch import setup_fp8_env

    # mixed_precision fp8 makes the launcher refuse a machine without an FP8 backend (this one), so the keys are
    # copied by a launch without fp8 and exported by the function the launcher calls under fp8 (utils/launch.py:290)
    config = {**BASE, "fp8_config": {"backend": "MSAMP", "optimization_level": "O1", "amax_history_length": 16}}
    env = setup_fp8_env(Launch(tmp_path, config).args, {})
    assert env["ACCELERATE_FP8_OPTIMIZATION_LEVEL"] == "O1" and env["ACCELERATE_FP8_AMAX_HISTORY_LENGTH"] == "16"
    # the names the recipes read go out with the launcher's defaults
    assert env["ACCELERATE_FP8_AMAX_HISTORY_LEN"] == "1024" and env["ACCELERATE_FP8_OPT_LEVEL"] != "O1"
    for key, value in env.items():
        clean_env.setenv(key, value)
    assert MSAMPRecipeKwargs().opt_level == env["ACCELERATE_FP8_OPT_LEVEL"]  # not the O1 written
    clean_env.setenv("ACCELERATE_FP8_OPT_LEVEL", "O1")
    assert MSAMPRecipeKwargs().opt_level == "O1"
