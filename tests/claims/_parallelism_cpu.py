"""Builds Accelerators with a parallelism_config on two gloo ranks (tests/claims/test_rules_general.py starts it)
and prints one JSON line per rank: what each attempt raised. accelerate reaches its FSDP (and MULTI_GPU) path on
CPU only through the rehearsal shim, which importing ``_fsdp_cpu`` installs; the checks themselves are the
installed accelerate's."""
from __future__ import annotations

import json
import os
import sys

import _fsdp_cpu as f  # installs the CPU FSDP shim (ACCELERATE_USE_FSDP=true)
from accelerate.parallelism_config import ParallelismConfig


def attempt(**kwargs) -> str:
    f.reset()
    try:
        acc = f.Accelerator(**kwargs)
    except ValueError as exc:
        return str(exc)
    plugin = getattr(acc.state, "fsdp_plugin", None) if acc.distributed_type == "FSDP" else None
    return f"ok {acc.distributed_type.value}" + (f" v{plugin.fsdp_version}" if plugin else "")


if __name__ == "__main__":
    out = {"rank": int(os.environ["RANK"]),
           "fsdp1": attempt(fsdp_plugin=f.Plugin(fsdp_version=1),
                            parallelism_config=ParallelismConfig(dp_shard_size=2)),
           "fsdp2_tp_only": attempt(fsdp_plugin=f.Plugin(fsdp_version=2),
                                    parallelism_config=ParallelismConfig(tp_size=2)),
           "fsdp2_shard": attempt(fsdp_plugin=f.Plugin(fsdp_version=2),
                                  parallelism_config=ParallelismConfig(dp_shard_size=2))}
    os.environ["ACCELERATE_USE_FSDP"] = "false"  # no FSDP plugin: the (shimmed) MULTI_GPU type
    out["multi_gpu_cp"] = attempt(parallelism_config=ParallelismConfig(cp_size=2))
    out["multi_gpu_shard"] = attempt(parallelism_config=ParallelismConfig(dp_shard_size=2))
    print("RESULT " + json.dumps(out), flush=True)
    # exit without interpreter teardown: gloo's threads can abort it ('terminate called without an
    # active exception', SIGABRT) after the result is already out
    sys.stderr.flush()
    os._exit(0)
