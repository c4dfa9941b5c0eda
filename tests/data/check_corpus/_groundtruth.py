#!/usr/bin/env python
"""Ground-truth replay for the `check` corpus.

For one case folder (``accelerate_config.yaml`` + optional DeepSpeed JSON) this reproduces, on CPU and without
starting training, what ``accelerate launch --config_file accelerate_config.yaml train.py`` would do with
accelerate 1.15 / DeepSpeed 0.19:

1. ``load_config_from_file``                      (accelerate/commands/config/config_args.py)
2. ``launch_command_parser().parse_args`` + ``_validate_launch_command``   (accelerate/commands/launch.py)
3. ``prepare_multi_gpu_env`` (FSDP) / ``prepare_deepspeed_cmd_env`` (DeepSpeed)   (accelerate/utils/launch.py)
   The argparse namespace is instrumented, so every YAML sub-key that the launcher never reads is reported as
   "ignored" (that is exactly what happens to a typo'd key).
4. In a "training process" whose ``os.environ`` is the launcher env: ``FullyShardedDataParallelPlugin()`` or
   ``DeepSpeedPlugin()`` + ``set_mixed_precision`` (accelerate/state.py), ``ParallelismConfig()`` +
   the ``_validate_accelerator`` size checks, the ``Accelerator.__init__`` GAS ``int()`` cast.
5. DeepSpeed only: the "auto" filling of ``Accelerator._prepare_deepspeed`` for a plain accelerate loop
   (model with ``config.hidden_size``, a dataloader with an integer batch size, a torch optimizer unless the JSON
   has an ``optimizer`` block -> ``DummyOptim``; ``DummyScheduler`` when the JSON has a ``scheduler`` block),
   then ``deepspeed.runtime.config.DeepSpeedConfig(dict)`` with a faked world size, and the engine's
   client-optimizer/offload check (engine.py ``_configure_optimizer``).
6. Effective values are compared with what the YAML/JSON asks for, to find silent changes.

Certain failures that only show up later (they need a model, GPUs or the training loop) are evaluated as rules
read off the deciding source line, and are marked "rule:" in the output: G8 processes per node > GPUs per node,
G9 fewer ``gpu_ids`` than processes per node, F11 class names that can never match (split on ',' without
strip), F24 FSDP1 + torch.compile + use_orig_params=False, F26 FSDP1 HYBRID_SHARD group size, D22 optimizer
offload at ZeRO-0, D23b multi-node pdsh without hostfile, D40 client optimizer + offload the launcher did not map.
Everything else comes from actually running the library code.

Limits: "auto" is filled the way a plain accelerate loop does (the HF Trainer fills more, e.g. optimizer betas);
fp8 and transformers-dependent paths (zero3_init_flag's transformers check, TP) are not replayed; the engine,
the model wrap (F10/F11 with a real model) and NCCL are not run; hostfile existence is not checked.

Usage:
    python _groundtruth.py                 # replay every case, compare with expected.yaml
    python _groundtruth.py 07_some_case    # replay selected cases (names or paths), verbose
    python _groundtruth.py --json CASE     # machine-readable result of one case

Exit status 1 when a replayed verdict disagrees with expected.yaml and the case is not listed in RUNTIME_ONLY.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import logging
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
MODEL_HIDDEN_SIZE = 4096  # any transformers-like model: used for the hidden-size based "auto" keys
DATALOADER_BATCH_SIZE = 4  # fills train_micro_batch_size_per_gpu "auto"
SCHED_TOTAL_STEPS = 1000
SCHED_WARMUP_STEPS = 100

# Cases whose label is decided by a cited source line, not by this replay (the replay cannot see it: it needs
# a model, real GPUs or the training loop). Key: case folder name, value: why.
RUNTIME_ONLY = {}


# ----------------------------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------------------------
class TrackingNamespace(argparse.Namespace):
    """argparse namespace that records attribute reads once ``_reads`` is set."""

    def __getattribute__(self, name):
        if not name.startswith("_"):
            d = object.__getattribute__(self, "__dict__")
            reads = d.get("_reads")
            if reads is not None:
                reads.add(name)
        return object.__getattribute__(self, name)


class TrackingDict(dict):
    """dict that records the keys DeepSpeed looks up (get / [] / in / keys())."""

    reads: set = set()

    def _rec(self, k):
        TrackingDict.reads.add(k)

    def get(self, k, default=None):
        self._rec(k)
        return super().get(k, default)

    def __getitem__(self, k):
        self._rec(k)
        return super().__getitem__(k)

    def __contains__(self, k):
        self._rec(k)
        return super().__contains__(k)

    def keys(self):
        outer = self

        class _Keys:
            def __contains__(self, k):
                outer._rec(k)
                return dict.__contains__(outer, k)

            def __iter__(self):
                return iter(dict.keys(outer))

            def __len__(self):
                return dict.__len__(outer)

        return _Keys()


class FakeDist:
    def __init__(self, world):
        self.world = world

    def get_rank(self, *a, **k):
        return 0

    def get_world_size(self, *a, **k):
        return self.world


@contextlib.contextmanager
def swapped_environ(env):
    old = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(old)


@contextlib.contextmanager
def captured_warnings(sink):
    """Collect warnings.warn and accelerate/deepspeed logger warnings into ``sink``."""

    class H(logging.Handler):
        def emit(self, record):
            if record.levelno >= logging.WARNING:
                sink.append(record.getMessage())

    handler = H()
    loggers = [logging.getLogger(n) for n in ("accelerate", "DeepSpeed", "deepspeed", "")]
    for lg in loggers:
        lg.addHandler(handler)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            for lg in loggers:
                lg.removeHandler(handler)
            for x in w:
                sink.append(str(x.message))


def yaml_attr_name(section, key):
    if section == "fsdp_config" and not key.startswith("fsdp"):
        return "fsdp_" + key
    if section == "fp8_config" and not key.startswith("fp8"):
        return "fp8_" + key
    if section == "dynamo_config" and not key.startswith("dynamo_"):
        return "dynamo_" + key
    return key


def _bool(v):
    if isinstance(v, bool):
        return v
    from accelerate.utils.environment import str_to_bool

    return bool(str_to_bool(str(v)))


def _strategy(v):
    """YAML sharding value -> torch ShardingStrategy or None if not a strategy."""
    from accelerate.utils.constants import FSDP_SHARDING_STRATEGY
    from torch.distributed.fsdp import ShardingStrategy

    s = str(v)
    if s.upper() in FSDP_SHARDING_STRATEGY:
        return ShardingStrategy(FSDP_SHARDING_STRATEGY.index(s.upper()) + 1)
    if s.isdigit() and 1 <= int(s) <= 5:
        return ShardingStrategy(int(s))
    return None


# ----------------------------------------------------------------------------------------------------------------
# the replay
# ----------------------------------------------------------------------------------------------------------------
def replay(case_dir: Path, gpus_per_node=None) -> dict:
    case_dir = case_dir.resolve()
    yaml_path = case_dir / "accelerate_config.yaml"
    res = {
        "case": case_dir.name,
        "raised": None,  # "stage: ExceptionType: message"
        "errors": [],  # list of (keys, reason): config will fail or a value does not take effect
        "warnings": [],  # list of (keys, reason)
        "library_warnings": [],
        "effective": {},
    }
    raw = yaml.safe_load(yaml_path.read_text())
    os.chdir(case_dir)  # DeepSpeed JSON paths are relative to the YAML's folder (launch cwd = that folder)

    def fail(stage, exc, keys=()):
        msg = f"{type(exc).__name__}: {exc}".strip()
        res["raised"] = f"{stage}: {msg[:400]}"
        res["errors"].append((list(keys), f"RAISE at {stage}: {msg[:300]}"))
        return res

    # ---------------------------------------------------------------- 1. load
    from accelerate.commands.config.config_args import load_config_from_file

    try:
        load_config_from_file(str(yaml_path))
    except Exception as e:  # noqa: BLE001
        return fail("load", e)

    # ---------------------------------------------------------------- 2. launch validation
    import accelerate.utils.launch as ulaunch
    from accelerate.commands import launch as claunch

    ulaunch.is_port_in_use = lambda port=None: False  # no sockets in the replay
    parser = claunch.launch_command_parser()
    ns = TrackingNamespace()
    args = parser.parse_args(["--config_file", str(yaml_path), "train.py"], namespace=ns)
    try:
        with captured_warnings(res["library_warnings"]):
            args, defaults, mp_from_config_flag = claunch._validate_launch_command(args)
    except Exception as e:  # noqa: BLE001
        return fail("launch (_validate_launch_command)", e)

    # ---------------------------------------------------------------- 3. launcher env
    launcher_env = None
    cmd = None
    args._reads = set()
    try:
        with captured_warnings(res["library_warnings"]):
            if args.use_deepspeed and not args.cpu:
                fields = list(defaults.deepspeed_config.keys()) if defaults else []
                if mp_from_config_flag:
                    fields.append("mixed_precision")
                args.deepspeed_fields_from_accelerate_config = ",".join(fields)
                cmd, launcher_env = ulaunch.prepare_deepspeed_cmd_env(args)
                kind = "deepspeed"
            elif args.use_fsdp and not args.cpu:
                launcher_env = ulaunch.prepare_multi_gpu_env(args)
                kind = "fsdp"
            else:
                kind = "other"
    except Exception as e:  # noqa: BLE001
        return fail("launch (prepare_*_env)", e)
    reads = set(args._reads)
    args._reads = None
    if cmd is None and kind in ("fsdp", "deepspeed"):
        import torch.distributed.run as distrib_run

        torchrun_dests = {a.dest for a in distrib_run.get_args_parser()._actions}
        reads |= torchrun_dests
    res["effective"]["launcher"] = kind
    if kind == "other":
        res["effective"]["note"] = "not FSDP/DeepSpeed; only load+launch validated"
        return res

    # ignored sub-keys (written in a section, never read by the launcher)
    sections = [s for s in ("fsdp_config", "deepspeed_config", "parallelism_config", "dynamo_config") if raw.get(s)]
    ignored = []
    for s in sections:
        if kind == "fsdp" and s == "deepspeed_config" or kind == "deepspeed" and s == "fsdp_config":
            res["warnings"].append(([s], f"G10: whole section {s} unused by distributed_type "
                                         f"{raw['distributed_type']}"))
            continue
        for k in raw[s]:
            name = yaml_attr_name(s, k)
            if name not in reads:
                ignored.append(f"{s}.{k}")
    launcher_only = {
        "deepspeed_config.deepspeed_hostfile",
        "deepspeed_config.deepspeed_multinode_launcher",
        "deepspeed_config.deepspeed_exclusion_filter",
        "deepspeed_config.deepspeed_inclusion_filter",
    }
    for k in ignored:
        if k in launcher_only:
            res["warnings"].append(([k], "multi-node launcher key unused on a single node"))
        else:
            res["errors"].append(([k], "G3/D12: key copied onto the launch namespace but never read (ignored)"))

    num_processes = int(args.num_processes)
    num_machines = int(args.num_machines or 1)
    if cmd is not None:
        nproc_per_node = num_processes // num_machines
        world = num_processes
        res["effective"]["deepspeed_cmd"] = " ".join(cmd)
        if "--hostfile" in cmd and cmd[cmd.index("--hostfile") + 1] == "None":
            res["errors"].append(
                (["deepspeed_config.deepspeed_hostfile"],
                 "D23b: multi-node pdsh/mpi launcher without deepspeed_hostfile: runner.fetch_hostfile('None') warns "
                 "and trains on local resources only")
            )
    else:
        nproc_per_node = int(args.nproc_per_node)
        world = nproc_per_node * num_machines
    res["effective"].update(nproc_per_node=nproc_per_node, world_size=world)
    if world != num_processes:
        res["errors"].append((["num_processes"], f"G7: {num_processes} // {num_machines} -> world size {world}"))
    if gpus_per_node is not None and nproc_per_node > gpus_per_node:
        res["errors"].append(
            (["num_processes"], f"rule: G8 {nproc_per_node} processes per node > {gpus_per_node} GPUs per node")
        )
    gpu_ids = raw.get("gpu_ids")
    if gpu_ids not in (None, "all") and len(str(gpu_ids).split(",")) < nproc_per_node:
        res["errors"].append((["gpu_ids"], f"rule: G9 {gpu_ids!r} gives fewer GPUs than {nproc_per_node} processes"))

    # ---------------------------------------------------------------- 4. training process
    env = dict(launcher_env)
    env.update(LOCAL_RANK="0", RANK="0", WORLD_SIZE=str(world), LOCAL_WORLD_SIZE=str(nproc_per_node))
    import accelerate.utils.dataclasses as adc
    import torch

    adc.is_cuda_available = lambda: True  # sync_module_states needs a device index
    torch.cuda.current_device = lambda: 0
    try:
        with swapped_environ(env), captured_warnings(res["library_warnings"]):
            from accelerate.utils import is_fp8_available
            from accelerate.utils.environment import parse_choice_from_env

            mp = parse_choice_from_env("ACCELERATE_MIXED_PRECISION", "no")
            if mp == "fp8" and not is_fp8_available():
                raise ValueError("Using `fp8` precision requires `transformer_engine` or `MS-AMP` to be installed.")
            if kind == "fsdp":
                plugin = adc.FullyShardedDataParallelPlugin()
                if mp != "no":
                    plugin.set_mixed_precision(mp)
                res["effective"]["plugin"] = fsdp_effective(plugin)
            else:
                plugin = adc.DeepSpeedPlugin()
                plugin.set_mixed_precision(mp)
            # Accelerator.__init__: GAS cast (accelerator.py)
            gas_env = parse_choice_from_env("ACCELERATE_GRADIENT_ACCUMULATION_STEPS", 1)
            acc_gas = int(gas_env)
            # parallelism config (accelerator.py + parallelism_config.py)
            if os.environ.get("ACCELERATE_USE_PARALLELISM_CONFIG", "false").lower() == "true":
                from accelerate.parallelism_config import ParallelismConfig

                pc = ParallelismConfig()
                res["effective"]["parallelism"] = dict(pc._sizes)
                validate_parallelism(pc, kind, plugin, world)
            if kind == "deepspeed":
                ds_dict = prepare_deepspeed(plugin, acc_gas, world, res)
    except Exception as e:  # noqa: BLE001
        return fail("training process (plugin/Accelerator/DeepSpeedConfig)", e)

    # ---------------------------------------------------------------- 5. effective vs asked
    if kind == "fsdp":
        compare_fsdp(raw, plugin, res)
        fsdp_runtime_rules(raw, plugin, env, res, world, gpus_per_node)
    else:
        compare_deepspeed(raw, plugin, ds_dict, res, case_dir)
    return res


def validate_parallelism(pc, kind, plugin, world):
    """Accelerator: parallelism_config.get_device_mesh + _validate_accelerator (FSDP/DEEPSPEED are not multi_device)."""
    is_fsdp2 = kind == "fsdp" and plugin.fsdp_version == 2
    multi_device = False
    if not multi_device and pc.total_size == 1:
        return
    if pc.sp_backend == "deepspeed" and pc.sp_size > 1:
        pass
    elif pc.total_size != world:
        raise ValueError(
            f"ParallelismConfig total_size ({pc.total_size}) does not match num_processes ({world}). Please adjust "
            "dp_replicate_size/ dp_shard_size/tp_size/cp_size/sp_size."
        )
    if is_fsdp2 and not pc.dp_shard_enabled and not pc.cp_enabled:
        raise ValueError("FSDP is enabled but the parallelism config has no dimension for FSDP to shard across")
    if pc.total_size > 1 and not (is_fsdp2 or multi_device or kind == "deepspeed"):
        raise ValueError(
            "ParallelismConfig is only compatible DistributedType.FSDP (version 2) or DistributedType.Multi{Device} or "
            "DistributedType.DEEPSPEED, but got DistributedType.FSDP."
        )


def fsdp_effective(p):
    def n(x):
        if x is None or isinstance(x, (bool, int, str)):
            return x
        return getattr(x, "name", None) or getattr(x, "__name__", None) or type(x).__name__

    return {
        "fsdp_version": p.fsdp_version,
        "sharding_strategy": n(p.sharding_strategy),
        "reshard_after_forward": n(p.reshard_after_forward),
        "cpu_offload": type(p.cpu_offload).__name__ + (
            f"(offload_params={p.cpu_offload.offload_params})" if hasattr(p.cpu_offload, "offload_params") else ""),
        "auto_wrap_policy": n(p.auto_wrap_policy),
        "transformer_cls_names_to_wrap": p.transformer_cls_names_to_wrap,
        "min_num_params": p.min_num_params,
        "backward_prefetch": n(p.backward_prefetch),
        "forward_prefetch": p.forward_prefetch,
        "state_dict_type": n(p.state_dict_type),
        "use_orig_params": p.use_orig_params,
        "sync_module_states": p.sync_module_states,
        "cpu_ram_efficient_loading": p.cpu_ram_efficient_loading,
        "activation_checkpointing": p.activation_checkpointing,
        "activation_checkpointing_offload": p.activation_checkpointing_offload,
        "ignored_modules": p.ignored_modules,
        "mixed_precision_policy": str(p.mixed_precision_policy) if p.mixed_precision_policy is not None else None,
    }


def compare_fsdp(raw, p, res):
    from torch.distributed.fsdp import ShardingStrategy

    fc = {yaml_attr_name("fsdp_config", k): (k, v) for k, v in (raw.get("fsdp_config") or {}).items()}
    v2 = p.fsdp_version == 2
    err, warn = res["errors"], res["warnings"]

    def key(name):
        return "fsdp_config." + fc[name][0]

    def asked(name):
        return fc[name][1]

    if "fsdp_sharding_strategy" in fc:
        a = _strategy(asked("fsdp_sharding_strategy"))
        if not v2:
            if p.sharding_strategy != a:
                err.append(([key("fsdp_sharding_strategy")], f"asked {a}, effective {p.sharding_strategy}"))
        else:
            eq = {ShardingStrategy.FULL_SHARD: True, ShardingStrategy.SHARD_GRAD_OP: False}.get(a)
            if eq is None or eq != p.reshard_after_forward:
                err.append(([key("fsdp_sharding_strategy")],
                            f"F7: v2 never reads sharding_strategy ({a}); effective reshard_after_forward="
                            f"{p.reshard_after_forward}"))
            else:
                warn.append(([key("fsdp_sharding_strategy")], "F7: ignored by v2, same effective behaviour"))
    if "fsdp_reshard_after_forward" in fc:
        a = asked("fsdp_reshard_after_forward")
        if not v2:
            s = _strategy(a)
            if s is None:  # a bool: FSDP1 maps True~FULL_SHARD, False~SHARD_GRAD_OP
                s = ShardingStrategy.FULL_SHARD if _bool(a) else ShardingStrategy.SHARD_GRAD_OP
            if p.sharding_strategy != s:
                err.append(([key("fsdp_reshard_after_forward")],
                            f"F4: FSDP1 under launch ignores reshard_after_forward ({a}); effective "
                            f"{p.sharding_strategy}"))
            elif "fsdp_sharding_strategy" not in fc:
                warn.append(([key("fsdp_reshard_after_forward")],
                             f"F4: ignored under launch but the effective strategy {p.sharding_strategy} is the same"))
        elif p.reshard_after_forward != _bool(a):
            err.append(([key("fsdp_reshard_after_forward")], f"asked {a}, effective {p.reshard_after_forward}"))
    if "fsdp_offload_params" in fc:
        eff = type(p.cpu_offload).__name__ == "CPUOffloadPolicy" if v2 else p.cpu_offload.offload_params
        if eff != _bool(asked("fsdp_offload_params")):
            err.append(([key("fsdp_offload_params")], f"effective offload {eff}"))
    policy = str(asked("fsdp_auto_wrap_policy")).upper() if "fsdp_auto_wrap_policy" in fc else "NO_WRAP"
    if "fsdp_transformer_layer_cls_to_wrap" in fc:
        a = asked("fsdp_transformer_layer_cls_to_wrap")
        if policy != "TRANSFORMER_BASED_WRAP":
            warn.append(([key("fsdp_transformer_layer_cls_to_wrap")], "F12: only read for TRANSFORMER_BASED_WRAP"))
        else:
            names = p.transformer_cls_names_to_wrap or []
            bad = [n for n in names if not n.isidentifier()]
            if bad:
                err.append(([key("fsdp_transformer_layer_cls_to_wrap")],
                            f"rule: F11 class names {bad} can never match a module class name -> 'Could not find the "
                            "transformer layer class' at prepare()"))
    if "fsdp_min_num_params" in fc:
        if policy != "SIZE_BASED_WRAP":
            warn.append(([key("fsdp_min_num_params")], "F13: only read for SIZE_BASED_WRAP"))
        elif p.min_num_params == 0:
            err.append(([key("fsdp_min_num_params")], "F14: 0 -> FSDP1 drops the policy" if not v2 else "F14"))
    for name, _attr in (("fsdp_backward_prefetch", "backward_prefetch"),):
        if name in fc:
            a = asked(name)
            want = None if str(a).upper() == "NO_PREFETCH" else str(a).upper()
            eff = p.backward_prefetch.name if p.backward_prefetch is not None else None
            if want is not None and want.isdigit():
                want = ["BACKWARD_PRE", "BACKWARD_POST"][int(want) - 1]
            if eff != want:
                err.append(([key(name)], f"asked {a}, effective {eff}"))
            elif v2:
                warn.append(([key(name)], "F16: v1-only key, same effective behaviour"))
    for name, attr in (
        ("fsdp_forward_prefetch", "forward_prefetch"),
        ("fsdp_use_orig_params", "use_orig_params"),
        ("fsdp_sync_module_states", "sync_module_states"),
    ):
        if name in fc:
            a = _bool(asked(name))
            eff = getattr(p, attr)
            if v2:
                # v2 semantics: no forward prefetch, always orig params, sync not needed
                v2_equiv = {"forward_prefetch": False, "use_orig_params": True, "sync_module_states": a}[attr]
                if a != v2_equiv:
                    err.append(([key(name)], f"F17/F18: v1-only key {name}={a} has no effect in FSDP2"))
                else:
                    warn.append(([key(name)], f"F17/F18: v1-only key {name} ignored by FSDP2 (same behaviour)"))
            elif eff != a:
                err.append(([key(name)], f"asked {a}, effective {eff}"))
    if "fsdp_state_dict_type" in fc:
        a = str(asked("fsdp_state_dict_type")).upper()
        if p.state_dict_type.name != a and not a.isdigit():
            err.append(([key("fsdp_state_dict_type")], f"effective {p.state_dict_type.name}"))
    for name, attr in (
        ("fsdp_cpu_ram_efficient_loading", "cpu_ram_efficient_loading"),
        ("fsdp_activation_checkpointing", "activation_checkpointing"),
        ("fsdp_activation_checkpointing_offload", "activation_checkpointing_offload"),
    ):
        if name in fc and getattr(p, attr) != _bool(asked(name)):
            err.append(([key(name)], f"effective {getattr(p, attr)}"))


def fsdp_runtime_rules(raw, p, env, res, world, gpus_per_node):
    """Certain failures that only show up inside torch, evaluated from their source."""
    from torch.distributed.fsdp import ShardingStrategy

    fc = raw.get("fsdp_config") or {}
    # F26: accelerate passes no device_mesh to FSDP(...) (accelerator.py prepare_model, FSDP1 kwargs), so
    # torch/distributed/fsdp/_init_utils.py _init_process_group_state_for_hybrid_shard uses
    # new_subgroups(device_handle.device_count()) -> distributed_c10d.new_subgroups raises if the world size is
    # smaller than, or not divisible by, the number of visible GPUs.
    if p.fsdp_version == 1 and p.sharding_strategy in (ShardingStrategy.HYBRID_SHARD,
                                                       ShardingStrategy._HYBRID_SHARD_ZERO2):
        gpu_ids = raw.get("gpu_ids")
        visible = len(str(gpu_ids).split(",")) if gpu_ids not in (None, "all") else gpus_per_node
        if visible is not None and (world < visible or world % visible):
            key = [f"fsdp_config.{k}" for k in fc if k.endswith("sharding_strategy")] or ["fsdp_config"]
            res["errors"].append((key, f"rule: F26 hybrid intra-node group = {visible} visible GPUs, "
                                       f"world size {world}:"
                                       " new_subgroups raises"))
    # F24: FSDP1 + torch.compile + use_orig_params=False: dynamo refuses FSDP1 flat params
    # (torch/_dynamo/variables/builder.py: 'Dynamo only supports FSDP with use_orig_params=True') -> graph break,
    # the module is not compiled (hard error with fullgraph).
    backend = env.get("ACCELERATE_DYNAMO_BACKEND", "NO")
    if p.fsdp_version == 1 and backend != "NO" and not p.use_orig_params:
        key = [f"fsdp_config.{k}" for k in fc if k.endswith("use_orig_params")] or ["fsdp_config"]
        res["errors"].append((key, f"rule: F24 dynamo backend {backend} with FSDP1 use_orig_params=False: compile "
                                   "does not take effect (graph break) or fails with fullgraph"))


def prepare_deepspeed(plugin, acc_gas, world, res):
    """Accelerator._prepare_deepspeed for model + dataloader + optimizer (+ scheduler), then DeepSpeedConfig."""
    import deepspeed.runtime.config as dsc
    from accelerate.utils import DummyOptim

    ds = plugin.deepspeed_config
    if plugin.is_auto("train_micro_batch_size_per_gpu"):
        batch_size_per_device = DATALOADER_BATCH_SIZE
    else:
        batch_size_per_device = plugin.get_value("train_micro_batch_size_per_gpu")
    plugin.fill_match("gradient_accumulation_steps", must_match=False, gradient_accumulation_steps=acc_gas)
    config_kwargs = {"gradient_clipping": 1.0, "zero_optimization.stage3_gather_16bit_weights_on_model_save": False}
    if batch_size_per_device is not None:
        config_kwargs["train_micro_batch_size_per_gpu"] = batch_size_per_device
        config_kwargs["train_batch_size"] = (batch_size_per_device * plugin.get_value("gradient_accumulation_steps")
                                             * world)
    uses_dummy_optim = "optimizer" in ds
    if not uses_dummy_optim:
        ds["zero_allow_untested_optimizer"] = True
    hidden_keys = [
        "zero_optimization.reduce_bucket_size",
        "zero_optimization.stage3_prefetch_bucket_size",
        "zero_optimization.stage3_param_persistence_threshold",
    ]
    if any(plugin.is_auto(k) for k in hidden_keys):
        h = MODEL_HIDDEN_SIZE
        config_kwargs.update({hidden_keys[0]: h * h, hidden_keys[1]: int(0.9 * h * h), hidden_keys[2]: 10 * h})
    if uses_dummy_optim:
        opt = DummyOptim(params=[])
        config_kwargs.update({"optimizer.params.lr": opt.lr, "optimizer.params.weight_decay": opt.weight_decay})
    if "scheduler" in ds:
        config_kwargs.update({
            "scheduler.params.warmup_min_lr": 0,
            "scheduler.params.warmup_max_lr": DummyOptim(params=[]).lr,
            "scheduler.params.warmup_num_steps": max(1, SCHED_WARMUP_STEPS),
            "scheduler.params.total_num_steps": math.ceil(SCHED_TOTAL_STEPS / world),
        })
    plugin.deepspeed_config_process(must_match=False, **config_kwargs)
    final = copy.deepcopy(plugin.deepspeed_config)
    res["effective"]["ds_config"] = json.loads(json.dumps(final, default=str))

    # DeepSpeedConfig with a faked process group of `world` ranks; record which top-level keys it looks up
    dsc.dist = FakeDist(world)
    TrackingDict.reads = set()
    tracked = TrackingDict(copy.deepcopy(final))
    cfg = dsc.DeepSpeedConfig(tracked)
    top_unread = [k for k in final if k not in TrackingDict.reads]
    res["effective"]["ds_unread_top_level"] = top_unread
    res["effective"]["zero"] = {
        "stage": int(cfg.zero_optimization_stage),
        "offload_optimizer": (str(cfg.zero_config.offload_optimizer.device) if cfg.zero_config.offload_optimizer
                              else None),
        "offload_param": str(cfg.zero_config.offload_param.device) if cfg.zero_config.offload_param else None,
        "offload_param_nvme_path": str(getattr(cfg.zero_config.offload_param, "nvme_path", None)),
        "offload_optimizer_nvme_path": str(getattr(cfg.zero_config.offload_optimizer, "nvme_path", None)),
        "gather_16bit_weights_on_model_save": cfg.zero_config.gather_16bit_weights_on_model_save,
    }
    res["effective"]["batch"] = [cfg.train_batch_size, cfg.train_micro_batch_size_per_gpu,
                                 cfg.gradient_accumulation_steps]
    res["effective"]["gradient_clipping"] = cfg.gradient_clipping
    res["effective"]["precision"] = {"fp16": cfg.float16_config.enabled, "bf16": cfg.bfloat16_config.enabled}
    res["effective"]["zero3_init_flag"] = plugin.zero3_init_flag
    # engine._configure_optimizer: client (torch) optimizer + offload_optimizer -> ZeRORuntimeException unless
    # accelerate mapped it to DeepSpeedCPUAdam (it only looks at the raw JSON offload_optimizer.device)
    accel_maps = (final["zero_optimization"].get("offload_optimizer", {}) or {}).get("device", "none") != "none" \
        and final.get("zero_force_ds_cpu_optimizer", True)
    engine_cpu_opt = cfg.zero_config.offload_optimizer is not None and \
        str(cfg.zero_config.offload_optimizer.device) in ("cpu", "nvme", "OffloadDeviceEnum.cpu",
                                                          "OffloadDeviceEnum.nvme")
    if not uses_dummy_optim and engine_cpu_opt and not accel_maps and cfg.zero_force_ds_cpu_optimizer:
        raise RuntimeError("ZeRORuntimeException (engine._configure_optimizer): You are using ZeRO-Offload with a "
                           "client provided optimizer ... set zero_force_ds_cpu_optimizer false")
    return final


def compare_deepspeed(raw, plugin, final, res, case_dir):
    dc = raw.get("deepspeed_config") or {}
    err = res["errors"]
    z = res["effective"]["zero"]
    json_mode = "deepspeed_config_file" in dc
    stage = z["stage"]
    if not json_mode:
        for dev_key, nvme_key, zkey in (
            ("offload_optimizer_device", "offload_optimizer_nvme_path", "offload_optimizer"),
            ("offload_param_device", "offload_param_nvme_path", "offload_param"),
        ):
            if nvme_key in dc:
                eff = z[f"{zkey}_nvme_path"]
                if str(dc.get(dev_key, "none")).lower() == "nvme" and eff != str(dc[nvme_key]):
                    err.append(([f"deepspeed_config.{nvme_key}"], f"D4: asked {dc[nvme_key]!r}, DeepSpeed gets "
                                                                 f"nvme_path={eff!r}"))
        if "gradient_clipping" in dc:
            # an inline 0.0 is dropped (dataclasses.py:1321) and DeepSpeed's own default is 1.0 (constants.py)
            eff = res["effective"]["gradient_clipping"]
            if float(eff) != float(dc["gradient_clipping"]):
                err.append((["deepspeed_config.gradient_clipping"],
                            f"asked {dc['gradient_clipping']}, effective {eff}"))
        if "zero3_init_flag" in dc and _bool(dc["zero3_init_flag"]) != plugin.zero3_init_flag:
            err.append((["deepspeed_config.zero3_init_flag"],
                        f"D7: asked {dc['zero3_init_flag']}, effective {plugin.zero3_init_flag} (stage {stage})"))
        devs = {"offload_param_device": "offload_param", "offload_optimizer_device": "offload_optimizer"}
        zsec = [(f"deepspeed_config.{k}", str(dc[k]).lower(), v) for k, v in devs.items() if k in dc]
    else:
        jpath = (case_dir / dc["deepspeed_config_file"])
        asked = json.loads(jpath.read_text())
        zo = asked.get("zero_optimization", {})
        zsec = []
        for sec in ("offload_param", "offload_optimizer"):
            if isinstance(zo.get(sec), dict) and "device" in zo[sec]:
                zsec.append((f"zero_optimization.{sec}.device", str(zo[sec]["device"]), sec))
        for k in res["effective"]["ds_unread_top_level"]:
            if k in asked:
                err.append(([k], "DS JSON top-level key that DeepSpeedConfig never reads (ignored)"))
        if "zero3_init_flag" in dc and _bool(dc["zero3_init_flag"]) != plugin.zero3_init_flag:
            err.append((["deepspeed_config.zero3_init_flag"],
                        f"D7: asked {dc['zero3_init_flag']}, effective {plugin.zero3_init_flag} (stage {stage})"))
    for k, dev, sec in zsec:
        if dev in ("none",):
            continue
        if sec == "offload_param" and stage < 3:
            err.append(([k], f"D30: offload_param={dev} at stage {stage} is never used"))
        elif dev == "nvme" and stage < 3:
            err.append(([k], f"D32: nvme optimizer offload at stage {stage} silently becomes CPU offload"))
        elif sec == "offload_optimizer" and stage == 0:
            err.append(([k], "rule: D22 offload_optimizer at stage 0: CPUAdam asserts param on cuda"))


# ----------------------------------------------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------------------------------------------
def verdict(res):
    return 2 if res["errors"] else 0


def run_one_subprocess(case_dir: Path, gpus):
    cmd = [sys.executable, __file__, "--one", str(case_dir)]
    if gpus is not None:
        cmd += ["--gpus-per-node", str(gpus)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    for line in reversed(out.stdout.splitlines()):
        if line.startswith("@@RESULT@@"):
            return json.loads(line[len("@@RESULT@@"):])
    return {"case": case_dir.name, "raised": "replay crashed: " + (out.stderr[-800:]), "errors": [([], "crash")],
            "warnings": [], "effective": {}, "library_warnings": []}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="*")
    ap.add_argument("--one")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--gpus-per-node", type=int)
    a = ap.parse_args(argv)
    if a.one:
        logging.basicConfig(level=logging.ERROR)
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(io.StringIO()):
            res = replay(Path(a.one), a.gpus_per_node)
        print("@@RESULT@@" + json.dumps(res, default=str))
        return 0
    dirs = [HERE / c if not os.path.isabs(c) else Path(c) for c in a.cases] or sorted(
        p for p in HERE.iterdir() if p.is_dir() and (p / "accelerate_config.yaml").exists()
    )
    bad = 0
    exps = {}
    for d in dirs:
        exps[d] = yaml.safe_load((d / "expected.yaml").read_text()) if (d / "expected.yaml").exists() else {}
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
        results = dict(zip(dirs, pool.map(
            lambda d: run_one_subprocess(d.resolve(), exps[d].get("gpus_per_node", a.gpus_per_node)), dirs),
            strict=True))
    for d in dirs:
        exp = exps[d]
        res = results[d]
        v = verdict(res)
        want = exp.get("exit")
        status = "ok" if want == v else ("RUNTIME-ONLY" if d.name in RUNTIME_ONLY else "MISMATCH")
        if status == "MISMATCH":
            bad += 1
        if a.json:
            print(json.dumps(res, indent=1, default=str))
            continue
        print(f"{d.name:45s} replay={v} expected={want} {status}")
        if res.get("raised"):
            print(f"    raised: {res['raised'][:300]}")
        for keys, why in res["errors"]:
            if "RAISE" not in why:
                print(f"    error {keys}: {why[:200]}")
        if len(dirs) <= 3 or status != "ok":
            for keys, why in res["warnings"]:
                print(f"    warning {keys}: {why[:200]}")
            print("    effective:", json.dumps(res["effective"], default=str)[:1500])
            for w in res["library_warnings"][:8]:
                print("    libwarn:", w[:200])
    print(f"{len(dirs)} cases, {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
