"""One gloo rank of the hpZ-groups demonstration (tests/claims/test_multinode_claims.py): DeepSpeed's own group
builder with a size that does not divide the world, then one above the world size."""
import json

import deepspeed
import torch.distributed as dist
from deepspeed.utils import groups

deepspeed.init_distributed(dist_backend="gloo")

out = {"world": dist.get_world_size()}
try:
    groups._create_zero_param_parallel_group(2)
    out["size_2"] = "built"
except AssertionError as exc:
    out["size_2"] = str(exc)
groups._create_zero_param_parallel_group(8)  # above the world size: cut down to it
out["size_8_ranks"] = dist.get_process_group_ranks(groups._get_zero_param_intra_parallel_group())
print("RESULT " + json.dumps(out), flush=True)
dist.destroy_process_group()
