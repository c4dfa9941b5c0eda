#!/usr/bin/env python
"""Ask a real (possibly old) DeepSpeed whether it accepts the keys whose acceptance changed between releases.

Usage: ``python scripts/check_ds_versions.py PYTHON [PYTHON ...]``: each PYTHON is the interpreter of an
environment that has a DeepSpeed installed (a throw-away venv with ``deepspeed==X``). For each sample below the
script builds ``DeepSpeedConfig`` (or the LR scheduler) in that environment and prints one line:
``version  sample  accepted|REJECTED  (first words of the error)``; then, for comparison, what the shipped schemas
predict through ``wizard.core.ds_schema.using(version)`` (``predicted``: accepted, or the finding kind).

Run inside such an environment with ``--inner`` it prints JSON (used by the outer call). The test suite does not
run this: it needs the old DeepSpeed environments, which only exist where someone built them.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name -> (DeepSpeed JSON, dotted key the sample is about). The zero_optimization samples use stage 3 so
# every ZeRO key is read.
SAMPLES: dict[str, tuple[dict, str]] = {
    "curriculum_learning": ({"curriculum_learning": {"enabled": False}}, "curriculum_learning"),
    "mics_shard_size": ({"zero_optimization": {"stage": 3, "mics_shard_size": -1}},
                        "zero_optimization.mics_shard_size"),
    "compile.disable": ({"compile": {"disable": False}}, "compile.disable"),
    "fp16.opt_level": ({"fp16": {"enabled": True, "opt_level": "O2"}}, "fp16.opt_level"),
    "bf16.loss_scale": ({"bf16": {"enabled": True, "loss_scale": 0}}, "bf16.loss_scale"),
    "bf16.auto_cast": ({"bf16": {"enabled": True, "auto_cast": False}}, "bf16.auto_cast"),
    "cpu_offload_params": ({"zero_optimization": {"stage": 3, "cpu_offload_params": True}},
                           "zero_optimization.cpu_offload_params"),
    "find_unused_parameters": ({"zero_optimization": {"stage": 2, "find_unused_parameters": True}},
                               "zero_optimization.find_unused_parameters"),
    "fp16.min_loss_scale=0.5": ({"fp16": {"enabled": True, "min_loss_scale": 0.5}}, "fp16.min_loss_scale"),
    "stage3_max_reuse_distance=-1": ({"zero_optimization": {"stage": 3, "stage3_max_reuse_distance": -1}},
                                     "zero_optimization.stage3_max_reuse_distance"),
    "reduce_bucket_size=0": ({"zero_optimization": {"stage": 2, "reduce_bucket_size": 0}},
                             "zero_optimization.reduce_bucket_size"),
    "compute_grad_norm": ({"zero_optimization": {"stage": 2, "compute_grad_norm": True}},
                          "zero_optimization.compute_grad_norm"),
    "bf16_master_weights_and_grads": ({"bf16": {"enabled": True, "bf16_master_weights_and_grads": True},
                                       "zero_optimization": {"stage": 2}}, "bf16.bf16_master_weights_and_grads"),
    "torch_autocast": ({"torch_autocast": {"enabled": True}}, "torch_autocast"),
}
SCHEDULER_SAMPLES = {"WarmupLR warmup_num_steps=0": ("WarmupLR", {"warmup_num_steps": 0}),
                     "WarmupDecayLR warmup_num_steps=0": ("WarmupDecayLR", {"warmup_num_steps": 0,
                                                                            "total_num_steps": 10})}


def _inner() -> dict:
    import logging
    import warnings

    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    import deepspeed
    import deepspeed.runtime.config as dsc
    import torch
    from deepspeed.runtime import lr_schedules

    class _Dist:
        def get_rank(self, *a, **k):
            return 0

        def get_world_size(self, *a, **k):
            return 1

    dsc.dist = _Dist()
    out: dict = {"version": deepspeed.__version__, "results": {}}
    for name, (sample, _) in SAMPLES.items():
        cfg = dict({"train_batch_size": 1}, **json.loads(json.dumps(sample)))
        try:
            dsc.DeepSpeedConfig(cfg)
            out["results"][name] = [True, ""]
        except Exception as e:  # noqa: BLE001 - any failure is the answer
            out["results"][name] = [False, f"{type(e).__name__}: " + " ".join(str(e).split())[:150]]
    for name, (cls, kwargs) in SCHEDULER_SAMPLES.items():
        opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
        try:
            getattr(lr_schedules, cls)(opt, **kwargs)
            out["results"][name] = [True, ""]
        except Exception as e:  # noqa: BLE001
            out["results"][name] = [False, f"{type(e).__name__}: " + " ".join(str(e).split())[:150]]
    return out


def _predicted(version: str, sample: dict, key: str) -> str:
    sys.path.insert(0, str(ROOT))
    from wizard.core import ds_schema as S
    from wizard.core.lint.linter import lint

    with S.using(version):
        found = lint({"distributed_type": "DEEPSPEED", "deepspeed_config": {"deepspeed_config_file": "ds.json"}},
                     dict({"train_batch_size": 1}, **sample), gpus_per_node=1)
        used = S.schema_version()
    about = [f for f in found if f.severity == "error" and any(k == key or k.startswith(key + ".") for k in f.keys)]
    return f"schema {used}: " + (", ".join(sorted({f.rule for f in about})) if about else "no error")


def main(argv: list[str]) -> int:
    if argv == ["--inner"]:
        print("RESULT " + json.dumps(_inner()))
        return 0
    if not argv:
        print(__doc__)
        return 2
    for py in argv:
        proc = subprocess.run([py, __file__, "--inner"], capture_output=True, text=True, timeout=600)
        line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
        if line is None:
            print(f"{py}: failed\n{proc.stderr[-2000:]}")
            continue
        doc = json.loads(line[len("RESULT "):])
        v = doc["version"]
        for name, (ok, err) in doc["results"].items():
            pred = ""
            if name in SAMPLES:
                pred = "  | predicted " + _predicted(v, *SAMPLES[name])
            print(f"{v:8} {name:34} {'accepted' if ok else 'REJECTED'}{pred}" + (f"  ({err})" if err else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
