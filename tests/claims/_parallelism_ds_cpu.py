"""Builds a DeepSpeed Accelerator with a parallelism_config of total 2 on two gloo ranks (tests/claims/
test_rules_general.py starts it, DS_ACCELERATOR=cpu) and prints one JSON line per rank: what the attempt gave."""
from __future__ import annotations

import json
import os
import sys

from accelerate import Accelerator
from accelerate.parallelism_config import ParallelismConfig
from accelerate.utils import DeepSpeedPlugin, InitProcessGroupKwargs

if __name__ == "__main__":
    out = {"rank": int(os.environ["RANK"])}
    try:
        plugin = DeepSpeedPlugin(hf_ds_config={"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 2}})
        acc = Accelerator(deepspeed_plugin=plugin, parallelism_config=ParallelismConfig(dp_shard_size=2),
                          kwargs_handlers=[InitProcessGroupKwargs(backend="gloo")])
        out["deepspeed"] = f"ok {acc.distributed_type.value}"
    except ValueError as exc:
        out["deepspeed"] = str(exc)
    print("RESULT " + json.dumps(out), flush=True)
    # exit without interpreter teardown: gloo's and DeepSpeed's threads can abort it after the result is out
    sys.stderr.flush()
    os._exit(0)
