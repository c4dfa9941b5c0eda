"""Runs accelerate FSDP2 on CPU gloo ranks for tests/claims/test_rules_answers.py and prints one JSON line.

``hsdp`` (two ranks): a hybrid parallelism_config with one process per machine. ``size`` (one rank): the size policy
over a model whose block list is a ModuleList. Reuses tests/claims/_fsdp_cpu.py (its import installs the rehearsal
shim wizard/run/cpu_fsdp_compat.py, and gives the plugin and the prepare helper); the rest is the installed code.
"""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
from _fsdp_cpu import Accelerator, Plugin, prepared, reset  # noqa: E402 - installs the shim first


def hsdp() -> dict:
    from accelerate.parallelism_config import ParallelismConfig

    out: dict = {}
    for name, sizes in (("replicate_only", (2, 1)), ("shard", (1, 2))):
        try:
            Accelerator(fsdp_plugin=Plugin(fsdp_version=2),
                        parallelism_config=ParallelismConfig(dp_replicate_size=sizes[0], dp_shard_size=sizes[1]))
            out[name] = "ok"
        except ValueError as e:
            out[name] = str(e)
        reset()
    return out


class Blocks(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(2)])  # 72 parameters each
        self.head = torch.nn.Linear(8, 2)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


def size() -> dict:
    out: dict = {}
    for threshold in (100, 1000):  # the list holds 144 parameters: selected at 100, not at 1000
        try:
            prepared(Plugin(fsdp_version=2, auto_wrap_policy="SIZE_BASED_WRAP", min_num_params=threshold),
                     model=Blocks())
            out[str(threshold)] = "ok"
        except ValueError as e:
            out[str(threshold)] = str(e)
        reset()
    return out


if __name__ == "__main__":
    result = {"hsdp": hsdp, "size": size}[sys.argv[1]]()
    print("RESULT " + json.dumps({"rank": int(os.environ.get("RANK", 0)), **result}), flush=True)
    # exit without interpreter teardown: gloo's threads can abort it ('terminate called without an
    # active exception', SIGABRT) after the result is already out
    sys.stderr.flush()
    os._exit(0)
