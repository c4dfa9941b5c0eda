"""accelerate's launcher prepared in the test process, never started: shared by the claim tests.

``Launch`` runs ``launch_command_parser().parse_args``, ``_validate_launch_command``, then ``prepare_multi_gpu_env`` /
``prepare_deepspeed_cmd_env`` the way ``launch_command`` dispatches, and the torchrun arguments built from them the way
``multi_gpu_launcher`` does (``_filter_args`` with ``torch.distributed.run``'s own parser, then its
``config_from_args``). Like the wizard's --verify (wizard/core/verify/guards.py ``_port_probe_neutralised``), the
port probe answers "free" unless ``probe_port`` asks for the real one, so the results do not depend on this machine.
"""
from __future__ import annotations

import os
import warnings
from pathlib import Path

import yaml

BASE = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "FSDP", "num_processes": 8, "num_machines": 1,
        "machine_rank": 0, "main_training_function": "main", "use_cpu": False, "fsdp_config": {"fsdp_version": 2}}


def ds_base(**deepspeed_config) -> dict:
    config = {k: v for k, v in BASE.items() if k != "fsdp_config"}
    return {**config, "distributed_type": "DEEPSPEED", "deepspeed_config": {"zero_stage": 2, **deepspeed_config}}


class Launch:
    """What ``accelerate launch --config_file <yaml> [flags] train.py --lr 1`` prepares: its args, the deepspeed
    runner command (None when torchrun runs), the processes' environment and torchrun's arguments."""

    def __init__(self, tmp_path: Path, config: dict, flags: tuple[str, ...] = (), probe_port: bool = False):
        import accelerate.utils.launch as launch_mod
        import torch.distributed.run as distrib_run
        from accelerate.commands.launch import _validate_launch_command, launch_command_parser

        path = tmp_path / "accelerate.yaml"
        path.write_text(yaml.safe_dump(config))
        args = launch_command_parser().parse_args(["--config_file", str(path), *flags, "train.py", "--lr", "1"])
        args, defaults, mp_from_config_flag = _validate_launch_command(args)
        saved = launch_mod.is_port_in_use
        if not probe_port:
            launch_mod.is_port_in_use = lambda port=None: False
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                if args.use_deepspeed:
                    fields = list(defaults.deepspeed_config.keys())
                    if mp_from_config_flag:
                        fields.append("mixed_precision")
                    args.deepspeed_fields_from_accelerate_config = ",".join(fields)
                    self.cmd, env = launch_mod.prepare_deepspeed_cmd_env(args)
                else:
                    self.cmd, env = None, launch_mod.prepare_multi_gpu_env(args)
        finally:
            launch_mod.is_port_in_use = saved
        self.warnings = [str(w.message) for w in caught]
        self.args = args
        self.env = {k: str(v) for k, v in env.items() if os.environ.get(k) != v}
        self.torchrun = None
        if self.cmd is None:  # multi_gpu_launcher / deepspeed_launcher, accelerate/commands/launch.py:1021-1025
            self.torchrun = launch_mod._filter_args(
                args, distrib_run.get_args_parser(),
                ["--training_script", args.training_script, "--training_script_args", args.training_script_args])

    def torchrun_config(self, monkeypatch):
        import torch.distributed.run as distrib_run

        monkeypatch.setenv("OMP_NUM_THREADS", "1")  # config_from_args sets it otherwise
        config, _, script_args = distrib_run.config_from_args(self.torchrun)
        return config, script_args


def fsdp_launch_env(tmp_path, monkeypatch, fsdp_config):
    """The environment ``accelerate launch`` gives the training processes for a two-process FSDP config."""
    import accelerate.utils.launch as ulaunch
    from accelerate.commands import launch as claunch

    monkeypatch.setattr(ulaunch, "is_port_in_use", lambda port=None: False)
    cfg = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "FSDP", "num_processes": 2,
           "num_machines": 1, "machine_rank": 0, "mixed_precision": "no", "use_cpu": False,
           "fsdp_config": fsdp_config}
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    args = claunch.launch_command_parser().parse_args(["--config_file", str(path), "train.py"])
    args, _, _ = claunch._validate_launch_command(args)
    return ulaunch.prepare_multi_gpu_env(args)


def ds_launch_env(tmp_path: Path, config: dict) -> dict[str, str]:
    """The environment ``accelerate launch`` gives the training processes for a DeepSpeed config, computed the way
    launch_command does (accelerate/commands/launch.py:1262-1283, 1393-1397)."""
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser
    from accelerate.utils.launch import prepare_deepspeed_cmd_env

    path = tmp_path / "accelerate.yaml"
    path.write_text(yaml.safe_dump(config))
    args = launch_command_parser().parse_args(["--config_file", str(path), "train.py"])
    args, defaults, mp_from_config_flag = _validate_launch_command(args)
    fields = list(defaults.deepspeed_config.keys())
    if mp_from_config_flag:
        fields.append("mixed_precision")
    args.deepspeed_fields_from_accelerate_config = ",".join(fields)
    _, env = prepare_deepspeed_cmd_env(args)
    return {k: str(v) for k, v in env.items()}


def ds_yaml(ds_json: Path, **inline) -> dict:
    """A two-process DeepSpeed accelerate config naming the JSON ``ds_json``, plus ``inline`` deepspeed_config keys."""
    return {"compute_environment": "LOCAL_MACHINE", "distributed_type": "DEEPSPEED", "num_processes": 2,
            "num_machines": 1, "machine_rank": 0, "main_training_function": "main", "use_cpu": False,
            "deepspeed_config": {"deepspeed_config_file": str(ds_json), **inline}}
