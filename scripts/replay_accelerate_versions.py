#!/usr/bin/env python
"""Replay accelerate's launch path for the YAML keys the linter knows, across accelerate releases.

For every case (a small accelerate YAML, mostly ``distributed_type: FSDP``) and every release folder
``/tmp/acc-<version>`` (made with ``pip install --no-deps --target /tmp/acc-<version> accelerate==<version>``),
a child Python runs with ``PYTHONPATH=/tmp/acc-<version>`` in front of this venv's site-packages (so torch 2.13,
deepspeed and pyyaml come from the venv) and does what ``accelerate launch --config_file X train.py`` does,
without starting training:

1. ``load_config_from_file``                          (commands/config/config_args.py)
2. ``launch_command_parser().parse_args`` + ``_validate_launch_command``   (commands/launch.py); the namespace
   records every attribute the launcher reads from here on, so a YAML key nobody reads shows up as "unread"
3. ``prepare_multi_gpu_env`` (FSDP, MULTI_GPU) or ``prepare_deepspeed_cmd_env`` (DEEPSPEED)   (utils/launch.py)
4. in the launcher's env: ``FullyShardedDataParallelPlugin()`` (or ``DeepSpeedPlugin()``), and what it holds

The same method as tests/data/check_corpus/_groundtruth.py, reduced to the keys whose meaning changed.

Usage:
    python scripts/replay_accelerate_versions.py                    # every release found in /tmp/acc-*, markdown
    python scripts/replay_accelerate_versions.py --releases 1.5.2,1.6.0 --case fsdp_version_2
    python scripts/replay_accelerate_versions.py --json             # the raw results
    python scripts/replay_accelerate_versions.py --child CASES.json # (internal) one release, in this interpreter
    python scripts/replay_accelerate_versions.py --transformers     # the Trainer's DeepSpeed filling per release

``--transformers`` does the same for transformers' ``HfTrainerDeepSpeedConfig`` (integrations/deepspeed.py):
for each release in ``/tmp/tf-<version>`` (its own dependencies, e.g. an older huggingface_hub and tokenizers, in
``/tmp/tfdeps-<version>`` when the venv's do not fit; see TF_DEPS) a child builds a real ``TrainingArguments``
(no ``deepspeed=`` argument, so no process group is needed; world size 1), then runs the library's own
``HfTrainerDeepSpeedConfig(json).trainer_config_process(args)`` and ``trainer_config_finalize(args, model, steps)``
(what ``TrainingArguments.__post_init__`` and ``deepspeed_init`` call), with a model object that only carries a
``config`` (``hidden_size``, ``hidden_sizes`` or ``text_config``) as the code reads it. It prints which "auto"
keys got which values, which stayed "auto", what raised, and the dtype the Trainer derives.
"""
from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE_FSDP = {
    "compute_environment": "LOCAL_MACHINE", "distributed_type": "FSDP", "num_machines": 1, "machine_rank": 0,
    "num_processes": 2, "mixed_precision": "no", "use_cpu": False,
}


def fsdp(fc: dict, **top) -> dict:
    return {**BASE_FSDP, **top, "fsdp_config": dict(fc)}


# (id, what it shows, yaml, plugin fields worth printing)
CASES: list[tuple[str, str, dict, tuple[str, ...]]] = [
    ("fsdp_defaults", "fsdp_config with one key: the launcher's defaults for the others",
     fsdp({"fsdp_offload_params": False}),
     ("fsdp_version", "sharding_strategy", "use_orig_params", "sync_module_states", "cpu_ram_efficient_loading",
      "state_dict_type", "backward_prefetch", "forward_prefetch", "auto_wrap_policy")),
    ("fsdp_version_2", "fsdp_version: 2", fsdp({"fsdp_version": 2}), ("fsdp_version", "reshard_after_forward",
                                                                        "sharding_strategy")),
    ("fsdp_version_1", "fsdp_version: 1", fsdp({"fsdp_version": 1}), ("fsdp_version", "sharding_strategy")),
    ("fsdp_version_3", "fsdp_version: 3 (invalid)", fsdp({"fsdp_version": 3}), ("fsdp_version",)),
    ("v2_reshard_false", "fsdp_version: 2 + fsdp_reshard_after_forward: false",
     fsdp({"fsdp_version": 2, "fsdp_reshard_after_forward": False}), ("fsdp_version", "reshard_after_forward")),
    ("v1_reshard_false", "FSDP1 + fsdp_reshard_after_forward: false (no sharding strategy written)",
     fsdp({"fsdp_version": 1, "fsdp_reshard_after_forward": False}), ("sharding_strategy", "reshard_after_forward")),
    ("v2_sharding_strategy", "fsdp_version: 2 + fsdp_sharding_strategy: SHARD_GRAD_OP",
     fsdp({"fsdp_version": 2, "fsdp_sharding_strategy": "SHARD_GRAD_OP"}),
     ("fsdp_version", "sharding_strategy", "reshard_after_forward")),
    ("strategy_name", "fsdp_sharding_strategy: SHARD_GRAD_OP", fsdp({"fsdp_sharding_strategy": "SHARD_GRAD_OP"}),
     ("sharding_strategy",)),
    ("strategy_number", "fsdp_sharding_strategy: 2 (numeric)", fsdp({"fsdp_sharding_strategy": 2}),
     ("sharding_strategy",)),
    ("strategy_lower", "fsdp_sharding_strategy: shard_grad_op (lower case)",
     fsdp({"fsdp_sharding_strategy": "shard_grad_op"}), ("sharding_strategy",)),
    ("no_prefix", "keys without the fsdp_ prefix: sharding_strategy / offload_params",
     fsdp({"sharding_strategy": "SHARD_GRAD_OP", "offload_params": True}), ("sharding_strategy", "cpu_offload")),
    ("prefetch_old_name", "fsdp_backward_prefetch_policy: BACKWARD_POST (old spelling)",
     fsdp({"fsdp_backward_prefetch_policy": "BACKWARD_POST"}), ("backward_prefetch",)),
    ("prefetch_name", "fsdp_backward_prefetch: BACKWARD_POST", fsdp({"fsdp_backward_prefetch": "BACKWARD_POST"}),
     ("backward_prefetch",)),
    ("prefetch_number", "fsdp_backward_prefetch: 2 (numeric)", fsdp({"fsdp_backward_prefetch": 2}),
     ("backward_prefetch",)),
    ("prefetch_none", "fsdp_backward_prefetch: NO_PREFETCH", fsdp({"fsdp_backward_prefetch": "NO_PREFETCH"}),
     ("backward_prefetch",)),
    ("v2_prefetch", "fsdp_version: 2 + fsdp_backward_prefetch: BACKWARD_PRE",
     fsdp({"fsdp_version": 2, "fsdp_backward_prefetch": "BACKWARD_PRE"}), ("fsdp_version", "backward_prefetch")),
    ("wrap_lower", "fsdp_auto_wrap_policy: transformer_based_wrap (lower case)",
     fsdp({"fsdp_auto_wrap_policy": "transformer_based_wrap", "fsdp_transformer_layer_cls_to_wrap": "Block"}),
     ("auto_wrap_policy", "transformer_cls_names_to_wrap")),
    ("wrap_size", "SIZE_BASED_WRAP + fsdp_min_num_params: 1000",
     fsdp({"fsdp_auto_wrap_policy": "SIZE_BASED_WRAP", "fsdp_min_num_params": 1000}),
     ("auto_wrap_policy", "min_num_params")),
    ("sd_lower", "fsdp_state_dict_type: sharded_state_dict (lower case)",
     fsdp({"fsdp_state_dict_type": "sharded_state_dict"}), ("state_dict_type",)),
    ("sd_number", "fsdp_state_dict_type: 3 (numeric)", fsdp({"fsdp_state_dict_type": 3}), ("state_dict_type",)),
    ("v2_local_sd", "fsdp_version: 2 + LOCAL_STATE_DICT",
     fsdp({"fsdp_version": 2, "fsdp_state_dict_type": "LOCAL_STATE_DICT"}), ("fsdp_version", "state_dict_type")),
    ("v2_full_sd", "fsdp_version: 2 + FULL_STATE_DICT",
     fsdp({"fsdp_version": 2, "fsdp_state_dict_type": "FULL_STATE_DICT"}), ("fsdp_version", "state_dict_type")),
    ("v2_sd_default", "fsdp_version: 2, no state dict type written",
     fsdp({"fsdp_version": 2}), ("fsdp_version", "state_dict_type")),
    ("orig_params_false", "fsdp_use_orig_params: false", fsdp({"fsdp_use_orig_params": False}),
     ("use_orig_params",)),
    ("v2_orig_params_false", "fsdp_version: 2 + fsdp_use_orig_params: false",
     fsdp({"fsdp_version": 2, "fsdp_use_orig_params": False}), ("fsdp_version", "use_orig_params")),
    ("sync_off_ram_on", "fsdp_sync_module_states: false (cpu_ram_efficient_loading not written)",
     fsdp({"fsdp_sync_module_states": False}), ("sync_module_states", "cpu_ram_efficient_loading")),
    ("sync_off_ram_off", "fsdp_sync_module_states: false + fsdp_cpu_ram_efficient_loading: false",
     fsdp({"fsdp_sync_module_states": False, "fsdp_cpu_ram_efficient_loading": False}),
     ("sync_module_states", "cpu_ram_efficient_loading")),
    ("sync_quoted_false", "fsdp_sync_module_states: 'false' (quoted) with ram-efficient loading on",
     fsdp({"fsdp_sync_module_states": "false", "fsdp_cpu_ram_efficient_loading": True}),
     ("sync_module_states", "cpu_ram_efficient_loading")),
    ("ac_on", "fsdp_activation_checkpointing: true", fsdp({"fsdp_activation_checkpointing": True}),
     ("activation_checkpointing",)),
    ("ac_offload", "fsdp_version: 2 + activation checkpointing + fsdp_activation_checkpointing_offload: true",
     fsdp({"fsdp_version": 2, "fsdp_activation_checkpointing": True, "fsdp_activation_checkpointing_offload": True,
           "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP"}),
     ("fsdp_version", "activation_checkpointing", "activation_checkpointing_offload")),
    ("ignored_modules", "fsdp_ignored_modules: lm_head", fsdp({"fsdp_ignored_modules": "lm_head"}),
     ("ignored_modules",)),
    ("cpu_offload", "fsdp_offload_params: true", fsdp({"fsdp_offload_params": True}), ("cpu_offload",)),
    ("v2_cpu_offload", "fsdp_version: 2 + fsdp_offload_params: true",
     fsdp({"fsdp_version": 2, "fsdp_offload_params": True}), ("fsdp_version", "cpu_offload")),
    ("bool_word_yes", "fsdp_offload_params: 'yes' (a truth word as a string)",
     fsdp({"fsdp_offload_params": "yes"}), ("cpu_offload",)),
    ("parallelism_config", "FSDP2 + parallelism_config (dp_shard_size 2)",
     fsdp({"fsdp_version": 2}, parallelism_config={"parallelism_config_dp_shard_size": 2}),
     ("fsdp_version", "env:ACCELERATE_USE_PARALLELISM_CONFIG", "env:PARALLELISM_CONFIG_DP_SHARD_SIZE")),
    ("parallelism_sp", "FSDP2 + parallelism_config with sp_size / cp_backend keys",
     fsdp({"fsdp_version": 2}, parallelism_config={"parallelism_config_dp_shard_size": 2,
                                                   "parallelism_config_cp_backend": "torch"}),
     ("fsdp_version",)),
    ("regional_compilation", "dynamo_config with dynamo_use_regional_compilation: true",
     fsdp({"fsdp_offload_params": False},
          dynamo_config={"dynamo_backend": "INDUCTOR", "dynamo_use_regional_compilation": True}),
     ("env:ACCELERATE_DYNAMO_BACKEND", "env:ACCELERATE_DYNAMO_USE_REGIONAL_COMPILATION")),
    ("dynamo_no_prefix", "dynamo_config keys without the dynamo_ prefix (backend: INDUCTOR)",
     fsdp({"fsdp_offload_params": False}, dynamo_config={"backend": "INDUCTOR"}), ("env:ACCELERATE_DYNAMO_BACKEND",)),
    ("enable_cpu_affinity", "top-level enable_cpu_affinity: true",
     fsdp({"fsdp_offload_params": False}, enable_cpu_affinity=True), ("env:ACCELERATE_CPU_AFFINITY",)),
    ("ds_moe_layer", "DeepSpeed inline: deepspeed_moe_layer_cls_names",
     {**BASE_FSDP, "distributed_type": "DEEPSPEED",
      "deepspeed_config": {"zero_stage": 2, "deepspeed_moe_layer_cls_names": "MixtralSparseMoeBlock"}},
     ("zero_stage", "env:ACCELERATE_DEEPSPEED_MOE_LAYER_CLS_NAMES")),
    ("ds_inline_basic", "DeepSpeed inline: zero_stage 3 + offload + zero3 flags + clipping",
     {**BASE_FSDP, "distributed_type": "DEEPSPEED",
      "deepspeed_config": {"zero_stage": 3, "offload_optimizer_device": "cpu", "offload_param_device": "cpu",
                           "zero3_init_flag": True, "zero3_save_16bit_model": True, "gradient_clipping": 1.0,
                           "gradient_accumulation_steps": 2}}, ()),
]
CASE_IDS = [c[0] for c in CASES]


# ----------------------------------------------------------------------------------------------------------------
# child: one release, in this interpreter
# ----------------------------------------------------------------------------------------------------------------
class TrackingNamespace(argparse.Namespace):
    """argparse namespace that records, in order, attribute writes (the launcher copying YAML keys onto it) and
    reads (also ``hasattr``/``getattr``) once ``_events`` is set."""

    def __setattr__(self, name, value):
        if not name.startswith("_"):
            events = object.__getattribute__(self, "__dict__").get("_events")
            if events is not None:
                events.append(("w", name, value))
        object.__setattr__(self, name, value)

    def __getattribute__(self, name):
        if not name.startswith("_"):
            d = object.__getattribute__(self, "__dict__")
            events = d.get("_events")
            if events is not None:
                events.append(("r", name, None))
        return object.__getattribute__(self, name)


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


def _attr_name(section, key):  # how accelerate 1.15 names a section key on the namespace (commands/launch.py)
    if section == "fsdp_config" and not key.startswith("fsdp"):
        return "fsdp_" + key
    if section == "fp8_config" and not key.startswith("fp8"):
        return "fp8_" + key
    if section == "dynamo_config" and not key.startswith("dynamo_"):
        return "dynamo_" + key
    return key


def _short(x):
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, (list, tuple, set)):
        return [_short(i) for i in x]
    name = getattr(x, "name", None)
    if isinstance(name, str):
        return name
    if hasattr(x, "offload_params"):
        return f"CPUOffload(offload_params={x.offload_params})"
    return getattr(x, "__name__", None) or type(x).__name__


def child_one(case: dict, workdir: Path) -> dict:
    import yaml

    out: dict = {"stage": "ok", "error": None, "unread": [], "env": {}, "plugin": {}}
    path = workdir / f"{case['id']}.yaml"
    path.write_text(yaml.safe_dump(case["yaml"]))
    raw = case["yaml"]

    def fail(stage, exc):
        out["stage"] = stage
        out["error"] = f"{type(exc).__name__}: {str(exc).strip()}".replace(str(workdir), "<dir>")[:300]
        return out

    from accelerate.commands.config.config_args import load_config_from_file

    try:
        load_config_from_file(str(path))
    except BaseException as e:  # noqa: BLE001 - SystemExit too
        return fail("load", e)
    import accelerate.utils.launch as ulaunch
    from accelerate.commands import launch as claunch

    ulaunch.is_port_in_use = lambda port=None: False
    parser = claunch.launch_command_parser()
    ns = TrackingNamespace()
    args = parser.parse_args(["--config_file", str(path), "train.py"], namespace=ns)
    ns._events = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            args, defaults, mp_from_config_flag = claunch._validate_launch_command(args)
    except BaseException as e:  # noqa: BLE001
        return fail("validate", e)
    cmd = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if args.use_deepspeed:
                fields = list(defaults.deepspeed_config.keys()) if defaults else []
                if mp_from_config_flag:
                    fields.append("mixed_precision")
                args.deepspeed_fields_from_accelerate_config = ",".join(fields)
                cmd, env = ulaunch.prepare_deepspeed_cmd_env(args)
                kind = "deepspeed"
            elif args.use_fsdp:
                env = ulaunch.prepare_multi_gpu_env(args)
                kind = "fsdp"
            else:
                env = ulaunch.prepare_multi_gpu_env(args)
                kind = "multi_gpu"
    except BaseException as e:  # noqa: BLE001
        return fail("launcher env", e)
    events = list(ns._events)
    ns._events = None
    torchrun: set = set()
    if cmd is None:  # torchrun reads the namespace itself (commands/launch.py multi_gpu_launcher)
        import torch.distributed.run as distrib_run

        torchrun = {a.dest for a in distrib_run.get_args_parser()._actions}
    for sec in ("fsdp_config", "deepspeed_config", "parallelism_config", "dynamo_config"):
        for k in (raw.get(sec) or {}):
            # the namespace name differs per release (the prefixing rules changed): the names this release
            # wrote while copying the section, among the spellings it could have used
            names = {k, _attr_name(sec, k)}
            if sec == "fsdp_config" and "fsdp" not in k:
                names.add("fsdp_" + k)
            value = raw[sec][k]
            copied = [i for i, (op, n, v) in enumerate(events) if op == "w" and n in names
                      and type(v) is type(value) and v == value]
            read_after = any(op == "r" and n == events[i][1] for i in copied for op, n, _v in events[i + 1:])
            if not read_after and not names & torchrun:
                out["unread"].append(f"{sec}.{k}")
    out["env"] = {k: v for k, v in env.items() if k.startswith(("FSDP_", "ACCELERATE_", "PARALLELISM_"))
                  and k not in ("ACCELERATE_CONFIG_DS_FIELDS",)}
    # the training process
    env = dict(env)
    env.update(LOCAL_RANK="0", RANK="0", WORLD_SIZE="2", LOCAL_WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
               MASTER_PORT="29500")
    import accelerate.utils.dataclasses as adc
    import torch

    adc.is_cuda_available = lambda: True  # sync_module_states wants a device index
    torch.cuda.current_device = lambda: 0
    try:
        with swapped_environ(env), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for f in case["fields"]:
                if f.startswith("env:"):
                    out["plugin"][f] = os.environ.get(f[4:])
            if kind == "fsdp":
                p = adc.FullyShardedDataParallelPlugin()
                for f in (f for f in case["fields"] if not f.startswith("env:")):
                    out["plugin"][f] = _short(getattr(p, f, "<no such field>"))
            elif kind == "deepspeed":
                p = adc.DeepSpeedPlugin()
                for f in ("zero_stage", "gradient_accumulation_steps", "gradient_clipping", "offload_optimizer_device",
                          "offload_param_device", "zero3_init_flag", "zero3_save_16bit_model",
                          "transformer_moe_cls_names") if not case["fields"] else [
                              f for f in case["fields"] if not f.startswith("env:")]:
                    out["plugin"][f] = _short(getattr(p, f, "<no such field>"))
    except BaseException as e:  # noqa: BLE001
        return fail("plugin", e)
    return out


def child_main(cases_path: str) -> int:
    import dataclasses

    import accelerate
    from accelerate.commands import launch as claunch
    from accelerate.commands.config.config_args import ClusterConfig

    cases = json.loads(Path(cases_path).read_text())
    res = {"accelerate": accelerate.__version__, "file": accelerate.__file__, "cases": {},
           # what this release can know at all: the top-level fields load_config_from_file accepts and the
           # argument names of `accelerate launch` (a YAML key with no argument of its name is never read)
           "cluster_fields": sorted(f.name for f in dataclasses.fields(ClusterConfig)),
           "launch_args": sorted({a.dest for a in claunch.launch_command_parser()._actions})}
    with tempfile.TemporaryDirectory() as d:
        for case in cases:
            try:
                res["cases"][case["id"]] = child_one(case, Path(d))
            except BaseException as e:  # noqa: BLE001
                res["cases"][case["id"]] = {"stage": "replay", "error": f"{type(e).__name__}: {e}"[:300]}
    print("RESULT " + json.dumps(res, default=str))
    return 0


# ----------------------------------------------------------------------------------------------------------------
# parent: every release
# ----------------------------------------------------------------------------------------------------------------
def vkey(v: str):
    return tuple(int(p) for p in v.split(".") if p.isdigit())


def find_releases(pattern: str = "/tmp/acc-*") -> list[str]:
    found = []
    for d in glob.glob(pattern):
        v = d.rsplit("acc-", 1)[1]
        if (Path(d) / "accelerate").is_dir() and all(p.isdigit() for p in v.split(".")):
            found.append(v)
    return sorted(found, key=vkey)


def run_release(version: str, cases: list[dict], folder: str) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(cases, f)
    env = dict(os.environ)
    env["PYTHONPATH"] = folder.format(version=version) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("ACCELERATE_CONFIG_FILE", "/nonexistent")
    env.pop("ACCELERATE_USE_FSDP", None)
    proc = subprocess.run([sys.executable, __file__, "--child", f.name], capture_output=True, text=True, env=env,
                          timeout=600)
    os.unlink(f.name)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"accelerate": version, "error": (proc.stderr or proc.stdout)[-600:], "cases": {}}


def summary(r: dict | None) -> str:
    if not r:
        return "(not replayed)"
    if r["stage"] != "ok":
        return f"raises at {r['stage']}: {r['error'][:140]}"
    parts = []
    if r.get("unread"):
        parts.append("unread: " + ", ".join(r["unread"]))
    if r.get("plugin"):
        parts.append(", ".join(f"{k}={v}" for k, v in r["plugin"].items()))
    return "; ".join(parts) or "read"


def ranges(versions: list[str], results: dict, case_id: str) -> list[tuple[str, str, str]]:
    """Consecutive releases with the same outcome: (first, last, outcome)."""
    out: list[tuple[str, str, str]] = []
    for v in versions:
        s = summary(results[v]["cases"].get(case_id))
        if out and out[-1][2] == s:
            out[-1] = (out[-1][0], v, s)
        else:
            out.append((v, v, s))
    return out


def known_keys() -> dict[str, list[str]]:
    """The keys the linter knows (accelerate 1.15), grouped as the launcher names them."""
    sys.path.insert(0, str(ROOT))
    from wizard.core.library import launcher as L
    from wizard.core.library.deepspeed import DS_INLINE_KEYS
    from wizard.core.library.fsdp import FSDP_KEYS

    return {"top level (ClusterConfig field)": sorted(L.CLUSTER_FIELDS),
            "fsdp_config (launch argument)": sorted(FSDP_KEYS),
            "deepspeed_config (launch argument)": sorted(DS_INLINE_KEYS),
            "dynamo_config (launch argument)": sorted(L.DYNAMO_KEYS),
            "parallelism_config (launch argument)": sorted(L.PARALLELISM_KEYS),
            "fp8_config (launch argument)": sorted(L.FP8_KEYS)}


def span_text(versions: list[str], have: list[bool]) -> str:
    out, start = [], None
    for i, (v, h) in enumerate(zip(versions, have, strict=True)):
        if h and start is None:
            start = v
        if start is not None and (not h or i == len(versions) - 1):
            end = v if h else versions[i - 1]
            out.append(start if start == end else f"{start} .. {end}")
            start = None
    return ", ".join(out) or "none"


def inventory(versions, results) -> list[str]:
    lines = ["## Which releases know each key", "",
             "A top-level key is known when ClusterConfig has the field (else loading fails with 'had unknown "
             "keys'); a section key when `accelerate launch` has an argument of that name (else it is copied onto "
             "the namespace and never read). Keys known by every replayed release are not listed.", ""]
    ok = [v for v in versions if results[v].get("cluster_fields")]
    for group, names in known_keys().items():
        field = "cluster_fields" if group.startswith("top") else "launch_args"
        rows = []
        for n in names:
            have = [n in results[v][field] for v in ok]
            if not any(have):
                rows.append(f"- `{n}`: no `accelerate launch` argument in any release (read with getattr, if at "
                            "all: see the cases)")
            elif not all(have):
                rows.append(f"- `{n}`: {span_text(ok, have)}")
        if rows:
            lines += [f"{group}:", ""] + rows + [""]
    extra = sorted(set().union(*(results[v]["cluster_fields"] for v in ok)) - set(known_keys()[
        "top level (ClusterConfig field)"]))
    for n in extra:
        have = [n in results[v]["cluster_fields"] for v in ok]
        lines.append(f"- top-level `{n}` (not a field in 1.15): {span_text(ok, have)}")
    return lines + [""]


def markdown(versions, results) -> str:
    lines = [f"Releases replayed: {', '.join(versions)} (torch {_torch()})", ""]
    for v in versions:
        if results[v].get("error"):
            lines.append(f"- accelerate {v}: the replay itself failed: {results[v]['error']}")
    lines += inventory(versions, results)
    lines += ["## Cases replayed", ""]
    for cid, what, _y, _f in CASES:
        lines.append(f"### `{cid}`: {what}")
        lines.append("")
        for a, b, s in ranges(versions, results, cid):
            span = a if a == b else f"{a} .. {b}"
            lines.append(f"- {span}: {s}")
        lines.append("")
    return "\n".join(lines)


def _torch() -> str:
    try:
        from importlib.metadata import version

        return version("torch")
    except Exception:  # noqa: BLE001
        return "?"


# ----------------------------------------------------------------------------------------------------------------
# transformers: HfTrainerDeepSpeedConfig per release
# ----------------------------------------------------------------------------------------------------------------
TF_DEPS = {**dict.fromkeys(("4.41.2", "4.42.4", "4.43.4", "4.44.2"), "/tmp/tfdeps-4.40.2"),
           "4.46.3": "/tmp/tfdeps-4.45.2",
           **dict.fromkeys(("4.47.1", "4.48.3", "4.49.0", "4.55.4"), "/tmp/tfdeps-4.50.3"),
           "4.56.2": "/tmp/tfdeps-4.57.6", **dict.fromkeys(("5.10.4", "5.15.1"), "/tmp/tfdeps-5.0.0"),
           **dict.fromkeys(("5.17.0", "5.18.0", "5.19.0", "5.20.2", "5.22.2", "5.23.0"), "/tmp/tfdeps-5.16.1")}
"""A release whose dependencies live in another release's folder (default: /tmp/tfdeps-<version>, if present)."""

ALL_AUTO = {
    "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto", "train_batch_size": "auto",
    "gradient_clipping": "auto", "steps_per_print": "auto",
    "optimizer": {"type": "AdamW", "params": {"lr": "auto", "betas": "auto", "eps": "auto",
                                               "weight_decay": "auto"}},
    "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_min_lr": "auto", "warmup_max_lr": "auto",
                                                       "warmup_num_steps": "auto", "total_num_steps": "auto"}},
    "fp16": {"enabled": "auto"}, "bf16": {"enabled": "auto"}, "amp": {"enabled": "auto", "opt_level": "auto"},
    "zero_optimization": {"stage": 3, "reduce_bucket_size": "auto", "stage3_prefetch_bucket_size": "auto",
                          "stage3_param_persistence_threshold": "auto"},
}
TRAIN_ARGS = {"per_device_train_batch_size": 4, "gradient_accumulation_steps": 2, "learning_rate": 3e-5,
              "weight_decay": 0.01, "max_grad_norm": 0.5, "warmup_steps": 10}
# (id, what it shows, json, TrainingArguments kwargs, model config {attr: value} or None for a model without one,
#  attributes set on the args after creation, auto_find_batch_size)
TF_CASES: list[tuple[str, str, dict, dict, dict | None, dict, bool]] = [
    ("all_auto", "every key 'auto' (ZeRO-3), model.config.hidden_size 4095", ALL_AUTO, TRAIN_ARGS,
     {"hidden_size": 4095}, {}, False),
    ("mismatch_micro", "train_micro_batch_size_per_gpu 8 vs per_device_train_batch_size 4",
     {"train_micro_batch_size_per_gpu": 8}, TRAIN_ARGS, {"hidden_size": 64}, {}, False),
    ("mismatch_str", "gradient_accumulation_steps \"2\" (a string) vs 2", {"gradient_accumulation_steps": "2"},
     TRAIN_ARGS, {"hidden_size": 64}, {}, False),
    ("mismatch_lr_twice", "optimizer lr 1e-4 and scheduler warmup_max_lr 1e-4 vs learning_rate 3e-5",
     {"optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},
      "scheduler": {"type": "WarmupLR", "params": {"warmup_max_lr": 1e-4}}}, TRAIN_ARGS, {"hidden_size": 64}, {},
     False),
    ("mismatch_auto_find", "train_micro_batch_size_per_gpu 8 with auto_find_batch_size",
     {"train_micro_batch_size_per_gpu": 8, "train_batch_size": 64}, TRAIN_ARGS, {"hidden_size": 64}, {}, True),
    ("text_config", "hidden-size keys 'auto', the model only has config.text_config.hidden_size 64",
     {"zero_optimization": {"stage": 3, "reduce_bucket_size": "auto", "stage3_prefetch_bucket_size": "auto"}},
     TRAIN_ARGS, {"text_config": {"hidden_size": 64}}, {}, False),
    ("hidden_sizes", "hidden-size keys 'auto', config.hidden_sizes [32, 64]",
     {"zero_optimization": {"stage": 2, "reduce_bucket_size": "auto"}}, TRAIN_ARGS, {"hidden_sizes": [32, 64]}, {},
     False),
    ("no_model_config", "hidden-size keys 'auto', a model without .config",
     {"zero_optimization": {"stage": 2, "reduce_bucket_size": "auto"}}, TRAIN_ARGS, None, {}, False),
    ("no_hidden_size", "hidden-size keys 'auto', model.config without any hidden size",
     {"zero_optimization": {"stage": 2, "reduce_bucket_size": "auto"}}, TRAIN_ARGS, {}, {}, False),
    ("warmup_zero", "scheduler warmup_num_steps 'auto' with warmup_steps 0",
     {"scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": "auto"}}},
     {**TRAIN_ARGS, "warmup_steps": 0}, {"hidden_size": 64}, {}, False),
    ("warmup_ratio", "scheduler warmup_num_steps 'auto' with warmup_ratio 0.1 (warmup_steps 0), 1000 steps",
     {"scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": "auto"}}},
     {**{k: v for k, v in TRAIN_ARGS.items() if k != "warmup_steps"}, "warmup_ratio": 0.1}, {"hidden_size": 64},
     {}, False),
    ("warmup_fraction", "scheduler warmup_num_steps 'auto' with warmup_steps 0.1 (a fraction), 1000 steps",
     {"scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": "auto"}}},
     {**TRAIN_ARGS, "warmup_steps": 0.1}, {"hidden_size": 64}, {}, False),
    ("fp16_auto_on", "fp16/amp 'auto' with args.fp16 True (set after creation: no GPU here)",
     {"fp16": {"enabled": "auto"}, "amp": {"enabled": "auto", "opt_level": "auto"}}, TRAIN_ARGS,
     {"hidden_size": 64}, {"fp16": True}, False),
    ("no_precision_section", "no fp16/bf16 section: the dtype the Trainer derives", {}, TRAIN_ARGS,
     {"hidden_size": 64}, {}, False),
    ("fp16_false", "fp16.enabled false: the dtype", {"fp16": {"enabled": False}}, TRAIN_ARGS, {"hidden_size": 64}, {},
     False),
]
TF_STEPS = 1000


def tf_child_main(cases_path: str) -> int:
    import copy
    import types

    import transformers
    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    cases = json.loads(Path(cases_path).read_text())
    res: dict = {"transformers": transformers.__version__, "file": transformers.__file__, "cases": {}}
    with tempfile.TemporaryDirectory() as d:
        for case in cases:
            out: dict = {"stage": "ok", "error": None}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        args = TrainingArguments(output_dir=d, report_to=[], **case["kwargs"])
                    except BaseException as e:  # noqa: BLE001
                        out.update(stage="TrainingArguments", error=f"{type(e).__name__}: {e}"[:300])
                        res["cases"][case["id"]] = out
                        continue
                    for k, v in case["set"].items():
                        object.__setattr__(args, k, v)
                    mc = case["model_config"]
                    if mc is None:
                        model = types.SimpleNamespace()
                    else:
                        cfg = types.SimpleNamespace(**{k: (types.SimpleNamespace(**v) if isinstance(v, dict) else v)
                                                       for k, v in mc.items()})
                        model = types.SimpleNamespace(config=cfg)
                    hf = HfTrainerDeepSpeedConfig(copy.deepcopy(case["json"]))
                    stage = "trainer_config_process"
                    hf.trainer_config_process(args, auto_find_batch_size=case["auto_find"])
                    stage = "trainer_config_finalize"
                    hf.trainer_config_finalize(args, model, TF_STEPS)
                    out["config"] = hf.config
                    out["dtype"] = str(hf._dtype).replace("torch.", "")
            except BaseException as e:  # noqa: BLE001
                out.update(stage=stage, error=f"{type(e).__name__}: {e}".replace("\n", " ")[:400])
            res["cases"][case["id"]] = out
    print("RESULT " + json.dumps(res, default=str))
    return 0


def tf_find_releases() -> list[str]:
    found = []
    for d in glob.glob("/tmp/tf-*"):
        v = d.rsplit("tf-", 1)[1]
        if (Path(d) / "transformers").is_dir() and all(p.isdigit() for p in v.split(".")):
            found.append(v)
    return sorted(found, key=vkey)


def tf_run_release(version: str, cases: list[dict]) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(cases, f)
    deps = TF_DEPS.get(version, f"/tmp/tfdeps-{version}")
    path = [f"/tmp/tf-{version}"] + ([deps] if Path(deps).is_dir() else [])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(path + [env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, __file__, "--tf-child", f.name], capture_output=True, text=True, env=env,
                          timeout=600)
    os.unlink(f.name)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"transformers": version, "error": (proc.stderr or proc.stdout)[-600:], "cases": {}}


def _flat(d, prefix=""):
    for k, v in d.items():
        if isinstance(v, dict):
            yield from _flat(v, f"{prefix}{k}.")
        else:
            yield f"{prefix}{k}", v


def tf_summary(case: dict, r: dict | None) -> str:
    if not r:
        return "(not replayed)"
    if r["stage"] != "ok":
        return f"raises in {r['stage']}: {r['error'][:300]}"
    asked = dict(_flat(case["json"]))
    got = dict(_flat(r["config"]))
    filled = [f"{k}={json.dumps(got.get(k))}" for k, v in asked.items() if v == "auto" and got.get(k) != "auto"]
    left = [k for k, v in asked.items() if v == "auto" and got.get(k) == "auto"]
    added = [f"{k}={json.dumps(v)}" for k, v in got.items() if k not in asked]
    parts = []
    if filled:
        parts.append("filled: " + ", ".join(filled))
    if left:
        parts.append("left 'auto': " + ", ".join(left))
    if added:
        parts.append("added: " + ", ".join(added))
    parts.append(f"dtype {r.get('dtype')}")
    return "; ".join(parts)


def tf_markdown(versions, results, cases) -> str:
    lines = [f"transformers releases replayed: {', '.join(versions)}; {TF_STEPS} training steps; TrainingArguments "
             f"{json.dumps(TRAIN_ARGS)} unless the case says otherwise", ""]
    for v in versions:
        if results[v].get("error"):
            lines.append(f"- transformers {v}: the replay itself failed: {results[v]['error']}")
    for case in cases:
        lines += [f"### `{case['id']}`: {case['what']}", ""]
        spans: list[tuple[str, str, str]] = []
        for v in versions:
            s = tf_summary(case, results[v]["cases"].get(case["id"]))
            if spans and spans[-1][2] == s:
                spans[-1] = (spans[-1][0], v, s)
            else:
                spans.append((v, v, s))
        for a, b, s in spans:
            lines.append(f"- {a if a == b else f'{a} .. {b}'}: {s}")
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--child")
    ap.add_argument("--tf-child")
    ap.add_argument("--transformers", action="store_true", help="replay the Trainer's DeepSpeed filling instead")
    ap.add_argument("--releases", help="comma-separated versions (default: every /tmp/acc-* folder)")
    ap.add_argument("--folder", default="/tmp/acc-{version}", help="where a release is installed")
    ap.add_argument("--case", action="append", help="only these case ids")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.child:
        return child_main(a.child)
    if a.tf_child:
        return tf_child_main(a.tf_child)
    if a.transformers:
        tv = sorted(a.releases.split(","), key=vkey) if a.releases else tf_find_releases()
        tcases = [{"id": c, "what": w, "json": j, "kwargs": kw, "model_config": mc, "set": st, "auto_find": af}
                  for c, w, j, kw, mc, st, af in TF_CASES if not a.case or c in a.case]
        tres = {v: tf_run_release(v, tcases) for v in tv}
        print(json.dumps(tres, indent=1, default=str) if a.json else tf_markdown(tv, tres, tcases))
        return 0
    versions = a.releases.split(",") if a.releases else find_releases(a.folder.replace("{version}", "*"))
    versions = sorted(versions, key=vkey)
    cases = [{"id": c, "yaml": y, "fields": list(f)} for c, _w, y, f in CASES if not a.case or c in a.case]
    results = {v: run_release(v, cases, a.folder) for v in versions}
    if a.json:
        print(json.dumps(results, indent=1, default=str))
    else:
        print(markdown(versions, results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
