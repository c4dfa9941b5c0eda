"""One gloo rank of a DeepSpeed run on CPU (benchmarks/memory.py starts two): a tiny bf16 model, one AdamW step,
then the bytes of the tensors this rank holds, by part. Prints one line ``RESULT {json}``.

argv: STAGE MASTER [offload] (MASTER: fp32 | bf16 | bf16_with_states; offload: the optimizer on the CPU with
DeepSpeedCPUAdam, which bf16 master weights with fp32 optimizer states require)."""
import json
import os
import sys

import deepspeed
import torch

stage, master_mode = int(sys.argv[1]), sys.argv[2]
offload = sys.argv[3:] == ["offload"]
torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Linear(256, 256) for _ in range(4)]).to(torch.bfloat16)
numel = sum(p.numel() for p in model.parameters())
bf16 = {"enabled": True}
if master_mode != "fp32":
    bf16["bf16_master_weights_and_grads"] = True
    bf16["bf16_optimizer_states"] = master_mode == "bf16_with_states"
cfg = {"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 1, "steps_per_print": 10 ** 9,
       "zero_optimization": {"stage": stage}, "bf16": bf16, "zero_allow_untested_optimizer": True}
if offload:
    from deepspeed.ops.adam import DeepSpeedCPUAdam

    cfg["zero_optimization"]["offload_optimizer"] = {"device": "cpu"}
    optimizer = DeepSpeedCPUAdam(model.parameters())
else:
    optimizer = torch.optim.AdamW(model.parameters())
engine, opt, _, _ = deepspeed.initialize(model=model, optimizer=optimizer, config=cfg, dist_init_required=True)
loss = engine(torch.randn(2, 256, dtype=torch.bfloat16)).float().sum()
engine.backward(loss)
engine.step()


def nbytes(ts):
    return sum(t.numel() * t.element_size() for t in ts)


if stage == 3:
    params = nbytes(p.ds_tensor for p in engine.module.parameters())
    master = nbytes(opt.fp32_partitioned_groups_flat)
    grads = None if offload else nbytes([opt.grad_partitions_flat_buffer])
else:
    params = nbytes(engine.module.parameters())
    master = nbytes(opt.single_partition_of_fp32_groups)
    grads = None  # ZeRO-1/2 free their gradient partitions after the step
base = getattr(opt, "optimizer", opt)
adam = nbytes(t for st in base.state.values() for k, t in st.items() if torch.is_tensor(t) and k != "step")
print("RESULT " + json.dumps({"numel": numel, "parameters": params, "master": master, "adam": adam, "grads": grads,
                              "offload": offload, "optimizer": type(opt).__name__}), flush=True)
sys.stderr.flush()
os._exit(0)  # gloo's threads can abort a normal interpreter teardown after the result is out
