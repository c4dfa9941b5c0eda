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
    from wizard.core.lint import keys as K
    from wizard.core.vocab import FSDP_KEYS

    return {"top level (ClusterConfig field)": sorted(K.CLUSTER_FIELDS),
            "fsdp_config (launch argument)": sorted(FSDP_KEYS),
            "deepspeed_config (launch argument)": sorted(K.DS_INLINE_KEYS),
            "dynamo_config (launch argument)": sorted(K.DYNAMO_KEYS),
            "parallelism_config (launch argument)": sorted(K.PARALLELISM_KEYS),
            "fp8_config (launch argument)": sorted(K.FP8_KEYS)}


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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--child")
    ap.add_argument("--releases", help="comma-separated versions (default: every /tmp/acc-* folder)")
    ap.add_argument("--folder", default="/tmp/acc-{version}", help="where a release is installed")
    ap.add_argument("--case", action="append", help="only these case ids")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.child:
        return child_main(a.child)
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
