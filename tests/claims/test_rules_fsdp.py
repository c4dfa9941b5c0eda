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

_FLAT_CASES = ["fsdp-prefix", "dynamo-prefix", "fp8-prefix", "deepspeed-as-written", "parallelism-as-written",
               "unknown-key-unused", "last-wins", "section-key-replaces-top-level", "not-a-mapping", "str-of-list"]


@pytest.mark.claim("launch-section-keys-copied-flat")
@pytest.mark.parametrize("case", _FLAT_CASES)
def test_section_keys_are_copied_flat_onto_the_launch_arguments(tmp_path, clean_env, case):  # noqa: F811
    config = {**BASE, "num_processes": 8,
              # written in this order (the file is dumped with sorted keys): the later, unprefixed one wins
              "fsdp_config": {"fsdp_version": 2, "fsdp_reshard_after_forward": True, "reshard_after_forward": False,
                              "fsdp_no_such_key": 7, "fsdp_transformer_layer_cls_to_wrap": ["A", "B"]},
              "parallelism_config": {"dp_shard_size": 2, "num_processes": 4},
              "deepspeed_config": {"zero_stage": 3}, "fp8_config": {"backend": "TE"},
              "dynamo_config": {"backend": "INDUCTOR", "dynamo_bakend": "EAGER"}}
    launch = Launch(tmp_path, config)
    env, args = launch.env, launch.args
    if case == "fsdp-prefix":
        assert env["FSDP_VERSION"] == "2" and args.fsdp_version == 2
    elif case == "dynamo-prefix":
        assert env["ACCELERATE_DYNAMO_BACKEND"] == "INDUCTOR"  # the dynamo_ prefix is added
    elif case == "fp8-prefix":
        assert args.fp8_backend == "TE"
    elif case == "deepspeed-as-written":
        assert args.zero_stage == 3
    elif case == "parallelism-as-written":
        assert args.dp_shard_size == 2 and env["PARALLELISM_CONFIG_DP_SHARD_SIZE"] != "2"  # no prefix added
    elif case == "unknown-key-unused":
        assert args.fsdp_no_such_key == 7 and args.dynamo_bakend == "EAGER"  # copied, then unused
        assert not any("SUCH" in k or "BAKEND" in k or v in ("7", "EAGER") for k, v in env.items())
    elif case == "last-wins":
        assert env["FSDP_RESHARD_AFTER_FORWARD"] == "false"
    elif case == "section-key-replaces-top-level":
        assert args.num_processes == 4 and launch.torchrun.nproc_per_node == "4"  # the section key wins
    elif case == "not-a-mapping":  # nothing in it is read (the launcher's defaults apply)
        listed = Launch(tmp_path, {**BASE, "fsdp_config": ["fsdp_version: 2", "fsdp_offload_params: true"]})
        assert listed.env["FSDP_VERSION"] == "1" and listed.env["FSDP_OFFLOAD_PARAMS"] == "false"
    else:
        assert env["FSDP_TRANSFORMER_CLS_TO_WRAP"] == "['A', 'B']"  # str() of the list


@pytest.mark.claim("launch-other-sections-per-distributed-type")
@pytest.mark.parametrize("case", ["fsdp", "multi-gpu", "deepspeed", "cp-comm-needs-cp-size", "sp-needs-sp-size",
                                  "megatron-and-mpirun-unread"])
def test_which_launch_paths_read_the_other_sections(tmp_path, clean_env, case):  # noqa: F811
    from launch_support import ds_base

    pc = {"parallelism_config_dp_shard_size": 8, "parallelism_config_cp_comm_strategy": "alltoall",
          "parallelism_config_sp_seq_length": 128}
    if case in ("fsdp", "multi-gpu"):
        env = Launch(tmp_path, {**BASE, "distributed_type": case.upper().replace("-", "_"),
                                "parallelism_config": pc}).env
        assert env["PARALLELISM_CONFIG_DP_SHARD_SIZE"] == "8", case
        assert "PARALLELISM_CONFIG_CP_COMM_STRATEGY" not in env and "PARALLELISM_CONFIG_SP_SEQ_LENGTH" not in env
    elif case == "deepspeed":
        env = Launch(tmp_path, {**ds_base(), "parallelism_config": pc}).env
        assert env["PARALLELISM_CONFIG_DP_SHARD_SIZE"] == "8"
    elif case in ("cp-comm-needs-cp-size", "sp-needs-sp-size"):
        env = Launch(tmp_path, {**BASE, "parallelism_config": {**pc, "parallelism_config_cp_size": 2,
                                                                "parallelism_config_sp_size": 2}}).env
        if case == "cp-comm-needs-cp-size":
            assert env["PARALLELISM_CONFIG_CP_COMM_STRATEGY"] == "alltoall"
        else:
            assert env["PARALLELISM_CONFIG_SP_SEQ_LENGTH"] == "128"
    else:
        launch = Launch(tmp_path, {**BASE, "megatron_lm_config": {"megatron_lm_tp_degree": 2},
                                   "mpirun_config": {"mpirun_hostfile": "/tmp/hosts", "mpirun_ccl": 1}})
        assert launch.args.megatron_lm_tp_degree == 2 and launch.args.mpirun_hostfile == "/tmp/hosts"
        assert not any(k.startswith("MEGATRON") or "hosts" in v for k, v in launch.env.items())
        assert "/tmp/hosts" not in " ".join(map(str, vars(launch.torchrun).values()))


@pytest.mark.claim("fsdp-plugin-rejects-unknown-names")
@pytest.mark.parametrize("case", ["sharding-strategy", "backward-prefetch", "state-dict-type", "numbers",
                                  "number-out-of-range", "auto-wrap-policy"])
def test_the_plugin_refuses_unknown_names(clean_env, case):  # noqa: F811
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin
    from torch.distributed.fsdp import BackwardPrefetch, ShardingStrategy, StateDictType

    unknown = {"sharding-strategy": ("FSDP_SHARDING_STRATEGY", "FULL"),
               "backward-prefetch": ("FSDP_BACKWARD_PREFETCH", "BACKWARD_PRES"),
               "state-dict-type": ("FSDP_STATE_DICT_TYPE", "FULL_STATE")}
    if case in unknown:
        clean_env.setenv(*unknown[case])
        with pytest.raises(KeyError):
            Plugin(fsdp_version=1)
    elif case == "numbers":
        assert Plugin(fsdp_version=1, sharding_strategy="2").sharding_strategy == ShardingStrategy.SHARD_GRAD_OP
        assert Plugin(fsdp_version=1, backward_prefetch="2").backward_prefetch == BackwardPrefetch.BACKWARD_POST
        assert Plugin(fsdp_version=1, state_dict_type="1").state_dict_type == StateDictType.FULL_STATE_DICT
    elif case == "number-out-of-range":
        with pytest.raises(ValueError):  # a number outside 1-5
            Plugin(fsdp_version=1, sharding_strategy="6")
    else:
        clean_env.setenv("FSDP_AUTO_WRAP_POLICY", "TRANSFORMER_WRAP")
        with pytest.raises(ValueError, match="Invalid auto wrap policy"):
            Plugin(fsdp_version=2)


@pytest.mark.claim("fsdp-flags-str-to-bool")
@pytest.mark.parametrize("case", ["true-words", "false-words", "other-word-raises"])
def test_flags_go_through_str_to_bool(clean_env, case):  # noqa: F811
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin

    if case == "other-word-raises":
        clean_env.setenv("FSDP_ACTIVATION_CHECKPOINTING", "enabled")
        with pytest.raises(ValueError, match="invalid truth value"):
            Plugin(fsdp_version=2)
        return
    on = case == "true-words"
    words = ("y", "yes", "t", "true", "on", "1") if on else ("n", "no", "f", "false", "off", "0")
    for word in words:
        for spelled in (word, word.upper(), word.capitalize()):  # in any case
            clean_env.setenv("FSDP_ACTIVATION_CHECKPOINTING", spelled)
            assert Plugin(fsdp_version=2).activation_checkpointing is on, spelled


@pytest.mark.claim("fsdp-min-num-params-size-policy-only")
@pytest.mark.parametrize("policy", ["TRANSFORMER_BASED_WRAP", "NO_WRAP", "SIZE_BASED_WRAP"],
                         ids=["transformer-policy", "no-wrap", "size-policy-reads"])
def test_min_num_params_is_read_only_by_the_size_policy(clean_env, policy):  # noqa: F811
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin

    clean_env.setenv("FSDP_MIN_NUM_PARAMS", "1e8")  # int() refuses it under SIZE_BASED_WRAP
    clean_env.setenv("FSDP_AUTO_WRAP_POLICY", policy)
    for version in (1, 2):
        if policy == "SIZE_BASED_WRAP":
            with pytest.raises(ValueError):
                Plugin(fsdp_version=version)
        else:
            assert Plugin(fsdp_version=version).min_num_params is None, (policy, version)


@pytest.mark.claim("fsdp1-ram-efficient-forces-sync")
@pytest.mark.parametrize("case", ["launcher-default-on", "quoted-false-passes", "fsdp1-syncs-anyway",
                                  "unquoted-false-refused"])
def test_a_quoted_false_passes_the_launcher_and_fsdp1_syncs_anyway(tmp_path, clean_env, case):  # noqa: F811
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin

    if case == "unquoted-false-refused":
        with pytest.raises(ValueError, match="fsdp_sync_module_states"):
            Launch(tmp_path, {**BASE, "fsdp_config": {"fsdp_version": 1, "fsdp_sync_module_states": False}})
        return
    env = Launch(tmp_path, {**BASE, "fsdp_config": {"fsdp_version": 1, "fsdp_sync_module_states": "false"}}).env
    if case == "launcher-default-on":
        assert env["FSDP_CPU_RAM_EFFICIENT_LOADING"] == "true"  # the YAML omits it
    elif case == "quoted-false-passes":
        assert env["FSDP_SYNC_MODULE_STATES"] == "false"
    else:
        for key in ("FSDP_SYNC_MODULE_STATES", "FSDP_CPU_RAM_EFFICIENT_LOADING"):
            clean_env.setenv(key, env[key])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            # sync_module_states on makes the plugin look for an accelerator device, which this CPU lacks: the
            # raise shows the flag was turned back on (with it off, the plugin builds, below)
            with pytest.raises(RuntimeError, match="no available devices"):
                Plugin(fsdp_version=1)
        assert any("sync_module_states cannot be False" in str(w.message) for w in caught)
        clean_env.setenv("FSDP_CPU_RAM_EFFICIENT_LOADING", "false")
        assert Plugin(fsdp_version=1).sync_module_states is False


@pytest.fixture(scope="module")
def subgroups() -> str:
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
    return out.stdout + out.stderr


@pytest.mark.claim("torch-hybrid-groups-need-multiple")
@pytest.mark.parametrize("case", ["exceeds-world-size", "not-a-divisor", "divisor"])
def test_new_subgroups_needs_a_divisor_of_the_world_size(subgroups, case):
    if case == "exceeds-world-size":
        assert "REFUSED" in subgroups and "must not exceed the world size" in subgroups, subgroups
    elif case == "divisor":
        assert "OK 1" in subgroups
    else:
        import inspect

        import torch.distributed as dist

        assert "must be divisible by" in inspect.getsource(dist.new_subgroups)  # needs 3+ ranks to run


@pytest.mark.claim("fp8-config-names-unread")
@pytest.mark.parametrize("case", ["optimization-level", "amax-history-length", "amax-compute-algorithm"])
def test_fp8_keys_are_exported_under_any_name_and_only_some_are_read(tmp_path, clean_env, case):  # noqa: F811
    import accelerate.utils.dataclasses as dataclasses
    from accelerate.utils import MSAMPRecipeKwargs, TERecipeKwargs
    from accelerate.utils.launch import setup_fp8_env

    # mixed_precision fp8 makes the launcher refuse a machine without an FP8 backend (this one), so the keys are
    # copied by a launch without fp8 and exported by the function the launcher calls under fp8 (utils/launch.py:290)
    config = {**BASE, "fp8_config": {"backend": "MSAMP", "optimization_level": "O1", "amax_history_length": 16,
                                     "amax_compute_algorithm": "max"}}
    env = setup_fp8_env(Launch(tmp_path, config).args, {})
    for key, value in env.items():
        clean_env.setenv(key, value)
    if case == "optimization-level":
        assert env["ACCELERATE_FP8_OPTIMIZATION_LEVEL"] == "O1"  # exported under the name written
        assert env["ACCELERATE_FP8_OPT_LEVEL"] != "O1"  # the name the recipe reads keeps the launcher's default
        assert MSAMPRecipeKwargs().opt_level == env["ACCELERATE_FP8_OPT_LEVEL"]  # not the O1 written
        clean_env.setenv("ACCELERATE_FP8_OPT_LEVEL", "O1")
        assert MSAMPRecipeKwargs().opt_level == "O1"
        return
    # the Transformer Engine recipe reads only the environment; its import check stands in for the package
    clean_env.setattr(dataclasses, "is_transformer_engine_available", lambda: True)
    if case == "amax-history-length":
        assert env["ACCELERATE_FP8_AMAX_HISTORY_LENGTH"] == "16" and env["ACCELERATE_FP8_AMAX_HISTORY_LEN"] == "1024"
        assert TERecipeKwargs().amax_history_len == 1024  # not the 16 written
    else:
        assert env["ACCELERATE_FP8_AMAX_COMPUTE_ALGORITHM"] == "max"
        assert TERecipeKwargs().amax_compute_algo == env["ACCELERATE_FP8_AMAX_COMPUTE_ALGO"].lower() != "max"
