"""Builds a DeepSpeed Accelerator with each parallelism_config size on two gloo ranks and prepares a small model,
optimizer and DataLoader (tests/claims/test_parallelism.py starts it). Prints one ``RESULT`` line per rank: per size,
the device mesh accelerate built, the data-parallel world the engine trains over, or what prepare() raised."""
from __future__ import annotations

import json
import os
import sys

import torch
from accelerate import Accelerator
from accelerate.parallelism_config import ParallelismConfig
from accelerate.state import AcceleratorState, PartialState
from accelerate.utils import DeepSpeedPlugin, InitProcessGroupKwargs

SIZES = {"dp-shard": {"dp_shard_size": 2}, "dp-replicate": {"dp_replicate_size": 2}, "cp": {"cp_size": 2},
         "tp": {"tp_size": 2}}


def attempt(sizes: dict) -> dict:
    AcceleratorState._reset_state(True)
    PartialState._reset_state()
    acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(zero_stage=2, gradient_accumulation_steps=1),
                      parallelism_config=ParallelismConfig(**sizes),
                      kwargs_handlers=[InitProcessGroupKwargs(backend="gloo")])
    out = {"mesh": list(acc.torch_device_mesh.mesh_dim_names), "type": acc.distributed_type.value}
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 4)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(8, 4)), batch_size=2)
    try:
        engine, _, _ = acc.prepare(model, opt, loader)
    except ValueError as exc:
        out["prepare_error"] = str(exc)[:200]
        return out
    out["engine_dp_world"] = engine.dp_world_size
    out["zero_stage"] = engine.zero_optimization_stage()
    return out


if __name__ == "__main__":
    result = {"rank": int(os.environ["RANK"])}
    for case, sizes in SIZES.items():
        result[case] = attempt(sizes)
    print("RESULT " + json.dumps(result), flush=True)
    sys.stdout.flush()
    os._exit(0)
