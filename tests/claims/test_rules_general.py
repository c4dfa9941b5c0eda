"""Claims stated by the general config rules (wizard/core/claims/rules_general.py).

The launcher is driven the way tests/claims/launch_support.py does it (its ``Launch`` helper: parse, validate, build
the environment and torchrun's arguments, start nothing); the loader, the plugins and the Accelerator are the
installed ones, on CPU in this process."""
from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest
import yaml
from gloo_ranks import run_ranks
from launch_support import BASE, Launch, ds_base


def _load(tmp_path, config: dict | str):
    from accelerate.commands.config.config_args import ClusterConfig

    path = tmp_path / "c.yaml"
    path.write_text(config if isinstance(config, str) else yaml.safe_dump(config))
    return ClusterConfig.from_yaml_file(str(path))


# ---------------------------------------------------------------- loading the YAML
@pytest.mark.claim("config-loader-required-and-enums")
@pytest.mark.parametrize("case", ["exact-names-load", "distributed-type-required", "distributed-type-spelling",
                                  "compute-environment-spelling", "sagemaker-types"])
def test_the_loader_requires_distributed_type_and_exact_enum_names(tmp_path, case):
    from accelerate.utils import DistributedType

    if case == "exact-names-load":
        assert _load(tmp_path, BASE).distributed_type == DistributedType.FSDP
    elif case == "distributed-type-required":
        with pytest.raises(ValueError, match="distributed_type"):
            _load(tmp_path, {k: v for k, v in BASE.items() if k != "distributed_type"})
    elif case == "distributed-type-spelling":
        with pytest.raises(ValueError, match="not a valid DistributedType"):
            _load(tmp_path, {**BASE, "distributed_type": "fsdp"})
    elif case == "compute-environment-spelling":
        with pytest.raises(ValueError, match="not a valid ComputeEnvironment"):
            _load(tmp_path, {**BASE, "compute_environment": "local_machine"})
    else:
        from accelerate.commands.config.config_args import SageMakerConfig

        path = tmp_path / "s.yaml"
        path.write_text(yaml.safe_dump({"compute_environment": "AMAZON_SAGEMAKER", "distributed_type": "FSDP",
                                        "ec2_instance_type": "ml.p3.2xlarge", "iam_role_name": "r"}))
        with pytest.raises(ValueError, match="not a valid SageMakerDistributedType"):
            SageMakerConfig.from_yaml_file(str(path))


@pytest.mark.claim("config-loader-legacy-keys")
@pytest.mark.parametrize("case", ["fp16-true", "fp16-false", "fp16-with-mixed-precision", "dynamo-backend",
                                  "dynamo-backend-no"])
def test_the_loader_translates_the_old_fp16_and_dynamo_backend_keys(tmp_path, case):
    dyn = {"dynamo_backend": "INDUCTOR", "dynamo_mode": "max-autotune", "dynamo_use_fullgraph": True}
    if case == "fp16-true":
        loaded = _load(tmp_path, {**BASE, "fp16": True})
        assert loaded.mixed_precision == "fp16" and not hasattr(loaded, "fp16")
    elif case == "fp16-false":
        loaded = _load(tmp_path, {**BASE, "fp16": False})
        assert loaded.mixed_precision is None and not hasattr(loaded, "fp16")  # launch then uses 'no'
    elif case == "fp16-with-mixed-precision":
        kept = _load(tmp_path, {**BASE, "fp16": True, "mixed_precision": "bf16"})
        assert kept.mixed_precision == "bf16" and not hasattr(kept, "fp16")  # deleted either way
    elif case == "dynamo-backend":
        assert _load(tmp_path, {**BASE, "dynamo_backend": "EAGER", "dynamo_config": dyn}).dynamo_config == {
            "dynamo_backend": "EAGER"}
    else:
        assert _load(tmp_path, {**BASE, "dynamo_backend": "NO", "dynamo_config": dyn}).dynamo_config == {}


@pytest.mark.claim("config-duplicate-keys-last-wins")
@pytest.mark.parametrize("case", ["yaml", "json"])
def test_a_key_written_twice_keeps_its_last_value(tmp_path, case):
    from accelerate.utils.deepspeed import HfDeepSpeedConfig

    if case == "yaml":
        text = yaml.safe_dump(BASE) + "num_processes: 2\nnum_processes: 4\n"
        assert _load(tmp_path, text).num_processes == 4
        return
    path = tmp_path / "ds.json"
    path.write_text('{"zero_optimization": {"stage": 2, "stage": 3}, "train_batch_size": 8}')
    assert HfDeepSpeedConfig(str(path)).config["zero_optimization"]["stage"] == 3


@pytest.mark.claim("config-num-processes-default-minus-one")
@pytest.mark.parametrize("case", ["missing", "distributed-type-no", "launch-refuses", "flag-given"])
def test_a_missing_num_processes_is_minus_one(tmp_path, case):
    without = {k: v for k, v in BASE.items() if k != "num_processes"}
    if case == "missing":
        assert _load(tmp_path, without).num_processes == -1
    elif case == "distributed-type-no":
        assert _load(tmp_path, {**without, "distributed_type": "NO"}).num_processes == 1
    elif case == "launch-refuses":
        for config in (without, {**BASE, "num_processes": -1}):  # like a written -1
            with pytest.raises(ValueError, match="--num_processes"):
                Launch(tmp_path, config)
    else:
        assert Launch(tmp_path, without, ("--num_processes", "2")).torchrun.nproc_per_node == "2"


# ---------------------------------------------------------------- processes, machines and GPUs
@pytest.mark.claim("launch-process-counts-as-written")
@pytest.mark.parametrize("case", ["num-processes-string-one-machine", "num-processes-string-several",
                                  "num-machines-string"])
def test_process_counts_are_used_as_written(tmp_path, case):
    two = {**BASE, "num_machines": 2, "main_process_ip": "10.0.0.1"}
    if case == "num-processes-string-one-machine":
        one = Launch(tmp_path, {**BASE, "num_processes": "8"})
        assert one.torchrun.nproc_per_node == "8"  # a string passes through on one machine
        assert Launch(tmp_path, {**ds_base(), "num_processes": "8"}).torchrun.nproc_per_node == "8"
    elif case == "num-processes-string-several":
        with pytest.raises(TypeError):  # "8" // 2
            Launch(tmp_path, {**two, "num_processes": "8"})
    else:
        with pytest.raises(TypeError):  # "2" > 1
            Launch(tmp_path, {**two, "num_machines": "2"})
        with pytest.raises(TypeError):  # the DeepSpeed launcher compares the same way
            Launch(tmp_path, {**ds_base(), "num_machines": "2", "main_process_ip": "10.0.0.1"})


@pytest.mark.claim("launch-gpu-ids-string")
@pytest.mark.parametrize("case", ["string", "fsdp", "deepspeed", "multi-gpu", "no"])
def test_gpu_ids_must_be_a_string(tmp_path, case):
    if case == "string":
        assert Launch(tmp_path, {**BASE, "gpu_ids": "0,1"}).env["CUDA_VISIBLE_DEVICES"] == "0,1"
        return
    plain = {k: v for k, v in BASE.items() if k != "fsdp_config"}
    config = {"fsdp": BASE, "deepspeed": ds_base(), "multi-gpu": {**plain, "distributed_type": "MULTI_GPU"},
              "no": {**plain, "distributed_type": "NO"}}[case]
    with pytest.raises(AttributeError, match="split"):
        Launch(tmp_path, {**config, "gpu_ids": 0})


@pytest.mark.claim("launch-multi-gpu-one-process")
@pytest.mark.parametrize("case", ["torchrun-one-process"])
def test_multi_gpu_with_one_process_runs_torchrun_with_one(tmp_path, case):
    run = Launch(tmp_path, {**{k: v for k, v in BASE.items() if k != "fsdp_config"}, "distributed_type": "MULTI_GPU",
                            "num_processes": 1})
    assert run.args.multi_gpu and run.torchrun.nproc_per_node == "1"


@pytest.mark.claim("launch-distributed-type-no-one-process")
@pytest.mark.parametrize("case", ["simple-launcher-one-process", "no-switch-with-config-file",
                                  "switch-without-config-file"])
def test_distributed_type_no_starts_one_process(tmp_path, monkeypatch, case):
    import accelerate.commands.launch as launch_cmd
    import torch
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser
    from accelerate.utils.launch import prepare_simple_launcher_cmd_env

    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({**{k: v for k, v in BASE.items() if k != "fsdp_config"},
                                    "distributed_type": "NO", "num_processes": 4}))
    if case != "simple-launcher-one-process":  # as if two GPUs were visible (this machine has none)
        monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
        monkeypatch.setattr(launch_cmd, "default_config_file", str(tmp_path / "none.yaml"))
    if case == "switch-without-config-file":
        args, _, _ = _validate_launch_command(launch_command_parser().parse_args(["--num_processes", "4",
                                                                                 "train.py"]))
        assert args.multi_gpu is True
        return
    args = launch_command_parser().parse_args(["--config_file", str(path), "train.py"])
    args, _, _ = _validate_launch_command(args)
    assert args.num_processes == 4
    # launch_command's dispatch (commands/launch.py:1390-1412): none of these is set, so simple_launcher runs
    assert not (args.use_deepspeed or args.use_fsdp or args.use_megatron_lm or args.multi_gpu or args.tpu)
    if case == "simple-launcher-one-process":
        cmd, env = prepare_simple_launcher_cmd_env(args)
        assert cmd[-1] == "train.py" and "torch.distributed.run" not in " ".join(cmd)  # one plain python process
        assert "WORLD_SIZE" not in env or env["WORLD_SIZE"] == os.environ.get("WORLD_SIZE")


@pytest.mark.claim("launch-multinode-endpoint-needs-ip")
@pytest.mark.parametrize("case", ["missing-ip", "ip-given"])
def test_a_missing_main_process_ip_becomes_none_in_the_endpoint(tmp_path, case):
    flags = ("--main_process_ip", "10.0.0.1") if case == "ip-given" else ()
    run = Launch(tmp_path, {**BASE, "num_processes": 8, "num_machines": 2}, flags)
    assert run.torchrun.rdzv_endpoint == ("10.0.0.1:29500" if flags else "None:29500")


# ---------------------------------------------------------------- mixed precision and FP8
@pytest.mark.claim("launch-mixed-precision-values")
@pytest.mark.parametrize("case", ["lower-cased", "no", "fp16", "bf16", "fp8", "unknown", "yaml-bool"])
def test_mixed_precision_values(tmp_path, case):
    if case == "lower-cased":
        assert Launch(tmp_path, {**BASE, "mixed_precision": "BF16"}).env["ACCELERATE_MIXED_PRECISION"] == "bf16"
    elif case in ("no", "fp16", "bf16"):
        assert Launch(tmp_path, {**BASE, "mixed_precision": case}).env["ACCELERATE_MIXED_PRECISION"] == case
    elif case == "fp8":  # accepted as a mode: what stops it here is the missing FP8 package, not the name
        with pytest.raises(RuntimeError, match="FP8 is not available"):
            Launch(tmp_path, {**BASE, "mixed_precision": "fp8"})
    elif case == "unknown":
        for config in (BASE, ds_base()):
            with pytest.raises(ValueError, match="Unknown mixed_precision mode"):
                Launch(tmp_path, {**config, "mixed_precision": "fp32"})
    else:
        loaded = yaml.safe_load("mixed_precision: no")
        assert loaded["mixed_precision"] is False
        with pytest.raises(AttributeError, match="lower"):
            Launch(tmp_path, {**BASE, **loaded})


@pytest.mark.claim("launch-fp8-config")
@pytest.mark.parametrize("case", ["not-exported-without-fp8", "needs-a-backend-package", "exported-as-written",
                                  "lower-case-backend-fails", "upper-case-backends"])
def test_fp8_config_is_exported_only_with_fp8_and_needs_an_upper_case_backend(tmp_path, fresh_state, case):
    from accelerate import Accelerator
    from accelerate.commands.launch import launch_command_parser
    from accelerate.utils import is_fp8_available
    from accelerate.utils.launch import setup_fp8_env

    fp8 = {"backend": "ao", "fp8_format": "HYBRID"}
    if case == "not-exported-without-fp8":
        bf16 = Launch(tmp_path, {**BASE, "mixed_precision": "bf16", "fp8_config": fp8})
        assert not [k for k in bf16.env if k.startswith("ACCELERATE_FP8")]
    elif case == "needs-a-backend-package":
        assert not is_fp8_available()  # none of torchao, Transformer Engine, MS-AMP is installed here
        with pytest.raises(RuntimeError, match="FP8 is not available"):
            Launch(tmp_path, {**BASE, "mixed_precision": "fp8", "fp8_config": fp8})
    elif case == "exported-as-written":
        args = launch_command_parser().parse_args(["--fp8_backend", "ao", "train.py"])
        assert setup_fp8_env(args, {})["ACCELERATE_FP8_BACKEND"] == "ao"
    elif case == "lower-case-backend-fails":
        fresh_state.setenv("ACCELERATE_FP8_BACKEND", "ao")
        with pytest.raises(ValueError, match="FP8BackendType"):
            Accelerator(cpu=True)
    else:
        for value in ("AO", "TE", "MSAMP", "NO"):  # NO: accelerate picks the first backend installed
            fresh_state.setenv("ACCELERATE_FP8_BACKEND", value)
            assert Accelerator(cpu=True).fp8_backend == value
            from accelerate.state import AcceleratorState, PartialState

            AcceleratorState._reset_state(True)
            PartialState._reset_state()


@pytest.mark.claim("fsdp-launch-ram-efficient-default-on")
@pytest.mark.parametrize("case", ["omitted", "written-false"])
def test_ram_efficient_loading_is_on_by_default(tmp_path, case):
    if case == "omitted":
        assert Launch(tmp_path, BASE).env["FSDP_CPU_RAM_EFFICIENT_LOADING"] == "true"
        return
    off = Launch(tmp_path, {**BASE, "fsdp_config": {"fsdp_version": 2, "fsdp_cpu_ram_efficient_loading": False}})
    assert off.env["FSDP_CPU_RAM_EFFICIENT_LOADING"] == "false"


# ---------------------------------------------------------------- dynamo
@pytest.mark.claim("dynamo-backend-and-flags-checked")
@pytest.mark.parametrize("case", ["backend-case-insensitive", "unknown-backend", "flag-words", "other-flag-word"])
def test_dynamo_backend_names_and_flags_are_checked(tmp_path, fresh_state, case):
    from accelerate.utils import TorchDynamoPlugin

    if case == "backend-case-insensitive":
        for dist in (BASE, {**{k: v for k, v in BASE.items() if k != "fsdp_config"},
                            "distributed_type": "MULTI_GPU"}):
            ok = Launch(tmp_path, {**dist, "dynamo_config": {"dynamo_backend": "inductor"}})
            assert ok.env["ACCELERATE_DYNAMO_BACKEND"] == "INDUCTOR"
        return
    if case == "unknown-backend":
        with pytest.raises(ValueError, match="Unknown dynamo backend"):
            Launch(tmp_path, {**BASE, "dynamo_config": {"dynamo_backend": "turbo"}})
        return
    odd = Launch(tmp_path, {**BASE, "dynamo_config": {"dynamo_backend": "INDUCTOR", "dynamo_use_fullgraph": "maybe"}})
    assert odd.env["ACCELERATE_DYNAMO_USE_FULLGRAPH"] == "maybe"  # exported unchecked
    for key, value in odd.env.items():
        if key.startswith("ACCELERATE_DYNAMO_"):
            fresh_state.setenv(key, value)
    if case == "other-flag-word":
        with pytest.raises(ValueError, match="invalid truth value"):
            TorchDynamoPlugin()
        return
    for word, on in (("true", True), ("False", False), ("yes", True), ("NO", False), ("on", True), ("Off", False),
                     ("y", True), ("n", False), ("t", True), ("F", False), ("1", True), ("0", False)):
        fresh_state.setenv("ACCELERATE_DYNAMO_USE_FULLGRAPH", word)
        assert TorchDynamoPlugin().fullgraph is on, word


@pytest.mark.claim("dynamo-backend-yaml-bool-crashes")
@pytest.mark.parametrize("case", ["top-level", "dynamo-config", "true-too", "null-is-no"])
def test_a_yaml_bool_dynamo_backend_crashes_the_launcher(tmp_path, fresh_state, case):
    # what yaml.safe_load makes of an unquoted `no` / `yes`, top level (the old spelling) and in dynamo_config
    words = yaml.safe_load("a: no\nb: off\nc: false\nd: yes\ne: on\nf: true\n")
    assert words == {"a": False, "b": False, "c": False, "d": True, "e": True, "f": True}
    if case == "null-is-no":
        for config in ({**BASE, "dynamo_backend": None}, {**BASE, "dynamo_config": {"dynamo_backend": None}},
                       {**BASE, "dynamo_config": {"dynamo_backend": "no"}}):
            assert Launch(tmp_path, config).env["ACCELERATE_DYNAMO_BACKEND"] == "NO"
        return
    config = {"top-level": {**BASE, "dynamo_backend": False},
              "dynamo-config": {**BASE, "dynamo_config": {"dynamo_backend": False}},
              "true-too": {**BASE, "dynamo_config": {"dynamo_backend": True}}}[case]
    with pytest.raises(AttributeError, match="'bool' object has no attribute 'upper'"):
        Launch(tmp_path, config)


# ---------------------------------------------------------------- parallelism_config
@pytest.mark.claim("parallelism-config-checks")
@pytest.mark.parametrize("case", ["int-conversion", "size-at-least-1", "cp-backend", "sp-backend",
                                  "cp-and-sp-exclusive", "tp-or-cp-over-replication"])
def test_parallelism_config_checks_its_sizes_and_backends(fresh_state, case):
    from accelerate.parallelism_config import ParallelismConfig

    if case == "int-conversion":
        fresh_state.setenv("PARALLELISM_CONFIG_DP_SHARD_SIZE", "2.0")  # what the launcher exports for a YAML 2.0
        with pytest.raises(ValueError, match="invalid literal for int"):
            ParallelismConfig()
        return
    cases = {"size-at-least-1": [({"dp_shard_size": 0}, "dp_shard_size must be at least 1"),
                                 ({"tp_size": 0}, "tp_size must be at least 1")],
             "cp-backend": [({"cp_backend": "deepspeed"}, "cp_backend must be one of")],
             "sp-backend": [({"sp_backend": "torch"}, "sp_backend must be one of")],
             "cp-and-sp-exclusive": [({"cp_size": 2, "sp_size": 2}, "mutually exclusive")],
             "tp-or-cp-over-replication": [({"tp_size": 2, "dp_replicate_size": 2}, "pure data parallelism"),
                                           ({"cp_size": 2, "dp_replicate_size": 2}, "pure data parallelism")]}
    for kwargs, match in cases[case]:
        with pytest.raises(ValueError, match=match):
            ParallelismConfig(**kwargs)
    if case == "tp-or-cp-over-replication":
        ParallelismConfig(tp_size=2, dp_replicate_size=2, dp_shard_size=2)  # HSDP + TP is fine


@pytest.mark.claim("parallelism-config-total-is-num-processes")
@pytest.mark.parametrize("case", ["total-must-match", "deepspeed-sp-exempt"])
def test_parallelism_sizes_must_multiply_to_the_processes(fresh_state, case):
    from accelerate import Accelerator
    from accelerate.parallelism_config import ParallelismConfig

    acc = Accelerator(cpu=True)  # one process
    assert acc.num_processes == 1
    if case == "total-must-match":
        with pytest.raises(ValueError, match="does not match num_processes"):
            ParallelismConfig(dp_shard_size=2)._validate_accelerator(acc)
    else:
        with pytest.raises(ValueError, match="only compatible"):  # DeepSpeed sequence parallelism skips the count
            ParallelismConfig(sp_size=2)._validate_accelerator(acc)  # (and then needs a distributed type)


@pytest.fixture(scope="module")
def parallelism_ranks():
    """Two gloo ranks run tests/claims/_parallelism_cpu.py: an Accelerator per attempt, sizes multiplying to 2."""
    return run_ranks(Path(__file__).with_name("_parallelism_cpu.py"), world=2,
                     drop=("FSDP_", "ACCELERATE_", "PARALLELISM_"))


@pytest.mark.claim("parallelism-config-needs-fsdp2")
@pytest.mark.parametrize("case", ["fsdp1-raises", "fsdp2-needs-shard-or-cp", "fsdp2-shard", "multi-gpu-cp-raises",
                                  "multi-gpu-shard", "deepspeed"])
def test_parallelism_config_needs_fsdp2_on_two_ranks(request, case):
    if case == "deepspeed":  # DeepSpeed takes a parallelism_config too (its own two gloo ranks, DeepSpeed on CPU)
        from gloo_ranks import EXTENSIONS

        ranks = run_ranks(Path(__file__).with_name("_parallelism_ds_cpu.py"), world=2, timeout=300,
                          drop=("FSDP_", "ACCELERATE_", "PARALLELISM_"), DS_ACCELERATOR="cpu", CUDA_VISIBLE_DEVICES="",
                          TORCH_EXTENSIONS_DIR=EXTENSIONS)
        assert all(got["deepspeed"] == "ok DEEPSPEED" for got in ranks.values()), ranks
        return
    for got in request.getfixturevalue("parallelism_ranks").values():
        if case == "fsdp1-raises":
            assert "only compatible" in got["fsdp1"] and "DistributedType.FSDP." in got["fsdp1"]
        elif case == "fsdp2-needs-shard-or-cp":
            assert "no dimension for FSDP to shard" in got["fsdp2_tp_only"]
        elif case == "fsdp2-shard":
            assert got["fsdp2_shard"] == "ok FSDP v2"
        elif case == "multi-gpu-cp-raises":
            assert "no `fsdp_plugin` was provided" in got["multi_gpu_cp"]
        else:
            assert got["multi_gpu_shard"] == "ok MULTI_GPU"


# ---------------------------------------------------------------- the DeepSpeed JSON named by the YAML
@pytest.mark.claim("ds-config-file-read-as-written")
@pytest.mark.parametrize("case", ["relative-to-working-folder", "no-tilde-expansion", "strict-json", "utf-8",
                                  "json-object-only", "json-text", "base64", "neither-raises"])
def test_the_deepspeed_json_is_opened_as_written(tmp_path, monkeypatch, case):
    from accelerate.utils.deepspeed import HfDeepSpeedConfig

    body = {"zero_optimization": {"stage": 2}, "train_batch_size": 8}
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "ds.json").write_text(json.dumps(body))
    if case == "relative-to-working-folder":
        monkeypatch.chdir(tmp_path)
        assert HfDeepSpeedConfig("cfg/ds.json").config == body  # relative to the working folder
        monkeypatch.chdir(tmp_path / "cfg")
        with pytest.raises(ValueError, match="Expected a string path to an existing deepspeed config"):
            HfDeepSpeedConfig("cfg/ds.json")  # the same path from another folder
    elif case == "no-tilde-expansion":
        monkeypatch.setenv("HOME", str(tmp_path))
        assert os.path.exists(os.path.expanduser("~/cfg/ds.json"))
        with pytest.raises(ValueError, match="Expected a string path"):
            HfDeepSpeedConfig("~/cfg/ds.json")
    elif case == "strict-json":
        lax = tmp_path / "lax.json"
        lax.write_text('{\n  // a comment\n  "zero_optimization": {"stage": 2,},\n}\n')
        with pytest.raises(json.JSONDecodeError):
            HfDeepSpeedConfig(str(lax))
        import deepspeed.runtime.config as ds_config
        import hjson  # DeepSpeed's reader for a path (deepspeed/runtime/config.py:443-448) takes it

        assert ds_config.hjson is hjson and hjson.loads(lax.read_text())["zero_optimization"]["stage"] == 2
    elif case == "utf-8":
        latin = tmp_path / "latin.json"
        latin.write_bytes('{"zero_optimization": {"stage": 2}, "x": "\u00e9"}'.encode("latin-1"))
        with pytest.raises(UnicodeDecodeError):
            HfDeepSpeedConfig(str(latin))
    elif case == "json-object-only":
        listed = tmp_path / "list.json"
        listed.write_text("[1, 2]")
        with pytest.raises(AttributeError):  # not an object: reading its zero_optimization fails
            HfDeepSpeedConfig(str(listed))
    elif case == "json-text":
        assert HfDeepSpeedConfig(json.dumps(body)).config == body
    elif case == "base64":
        assert HfDeepSpeedConfig(base64.urlsafe_b64encode(json.dumps(body).encode()).decode()).config == body
    else:
        for value in ("", "no-such.json"):
            with pytest.raises(ValueError, match="Expected a string path"):
                HfDeepSpeedConfig(value)
