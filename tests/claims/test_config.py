"""Claims about how a config reaches the libraries (wizard/core/claims/config.py)."""
from __future__ import annotations

import pytest
import yaml


@pytest.mark.claim("config-sections-unchecked")
@pytest.mark.parametrize("case", ["fsdp-config-unknown-key", "fsdp-config-deepspeed-key",
                                  "deepspeed-config-unknown-key", "deepspeed-config-fsdp-key", "top-level-refused"])
def test_the_loader_checks_only_top_level_keys(tmp_path, case):
    from accelerate.commands.config.config_args import ClusterConfig

    fsdp = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "FSDP", "num_processes": 2,
            "mixed_precision": "no", "fsdp_config": {"fsdp_version": 2}}
    ds = {**fsdp, "distributed_type": "DEEPSPEED", "fsdp_config": {}, "deepspeed_config": {"zero_stage": 2}}
    section, key = {"fsdp-config-unknown-key": ("fsdp_config", "fsdp_no_such_key"),
                    "fsdp-config-deepspeed-key": ("fsdp_config", "zero_stage"),
                    "deepspeed-config-unknown-key": ("deepspeed_config", "no_such_key"),
                    "deepspeed-config-fsdp-key": ("deepspeed_config", "fsdp_version"),
                    "top-level-refused": (None, "zero_stage")}[case]
    base = fsdp if section in ("fsdp_config", None) else ds
    path = tmp_path / "c.yaml"
    if section is None:  # the same key at the top level is refused
        path.write_text(yaml.safe_dump({**base, key: 3}))
        with pytest.raises(ValueError, match="unknown keys"):
            ClusterConfig.from_yaml_file(str(path))
    else:
        path.write_text(yaml.safe_dump({**base, section: {**base[section], key: 3}}))
        loaded = ClusterConfig.from_yaml_file(str(path))  # no error for the keys inside the section
        assert getattr(loaded, section)[key] == 3


@pytest.mark.claim("dynamo-mode-from-yaml-unchecked")
@pytest.mark.parametrize("mode", ["flag-limited", "max-autotune-no-cudagraphs", "lite"])
def test_a_yaml_dynamo_mode_is_passed_through_unchecked(tmp_path, monkeypatch, mode):
    import torch._inductor
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser
    from accelerate.utils import TorchDynamoPlugin
    from accelerate.utils.constants import TORCH_DYNAMO_MODES
    from accelerate.utils.launch import prepare_multi_gpu_env

    if mode == "flag-limited":
        for outside in ("max-autotune-no-cudagraphs", "lite"):
            with pytest.raises(SystemExit):  # the command-line flag is limited to accelerate's list
                launch_command_parser().parse_args(["--dynamo_mode", outside, "train.py"])
        return
    assert mode not in TORCH_DYNAMO_MODES and mode in torch._inductor.list_mode_options()
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({
        "compute_environment": "LOCAL_MACHINE", "distributed_type": "MULTI_GPU", "num_processes": 2,
        "num_machines": 1, "machine_rank": 0, "mixed_precision": "no",
        "dynamo_config": {"dynamo_backend": "INDUCTOR", "dynamo_mode": mode}}))
    args = launch_command_parser().parse_args(["--config_file", str(path), "train.py"])
    args, _, _ = _validate_launch_command(args)
    env = prepare_multi_gpu_env(args)
    assert env["ACCELERATE_DYNAMO_MODE"] == mode
    for key, value in env.items():
        monkeypatch.setenv(key, str(value))
    assert TorchDynamoPlugin().mode == mode


@pytest.mark.claim("sagemaker-config-launch-fails")
@pytest.mark.parametrize("case", ["amazon-sagemaker-config"])
def test_a_sagemaker_config_cannot_be_launched(tmp_path, case):
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser

    cfg = tmp_path / "sm.yaml"
    cfg.write_text("compute_environment: AMAZON_SAGEMAKER\ndistributed_type: DATA_PARALLEL\n"
                   "ec2_instance_type: ml.p3.16xlarge\niam_role_name: r\nmixed_precision: fp16\nnum_machines: 1\n"
                   "profile: p\npy_version: py38\npytorch_version: 1.10.2\nregion: us-east-1\n"
                   "transformers_version: 4.17.0\nuse_cpu: false\n")
    args = launch_command_parser().parse_args(["--config_file", str(cfg), "train.py"])
    with pytest.raises(AttributeError, match="SageMakerConfig.*parallelism_config"):
        _validate_launch_command(args)


@pytest.mark.claim("yaml-cpu-affinity-never-applied")
@pytest.mark.parametrize("case", ["config-true-ignored", "flag-sets-env"])
def test_enable_cpu_affinity_in_the_config_is_never_applied(tmp_path, case):
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser
    from accelerate.utils.launch import prepare_simple_launcher_cmd_env

    cfg = tmp_path / "acc.yaml"
    cfg.write_text("compute_environment: LOCAL_MACHINE\ndistributed_type: NO\nnum_processes: 1\nnum_machines: 1\n"
                   "machine_rank: 0\nmixed_precision: 'no'\nuse_cpu: true\nenable_cpu_affinity: true\n")
    if case == "config-true-ignored":
        args = launch_command_parser().parse_args(["--config_file", str(cfg), "train.py"])
        _validate_launch_command(args)
        assert args.enable_cpu_affinity is False
        assert "ACCELERATE_CPU_AFFINITY" not in prepare_simple_launcher_cmd_env(args)[1]
    else:
        flagged = launch_command_parser().parse_args(["--config_file", str(cfg), "--enable_cpu_affinity", "train.py"])
        _validate_launch_command(flagged)
        assert prepare_simple_launcher_cmd_env(flagged)[1]["ACCELERATE_CPU_AFFINITY"] == "1"
