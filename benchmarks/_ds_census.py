"""One gloo rank of a DeepSpeed run on CPU (benchmarks/memory.py starts two): a tiny model, one AdamW step, then the
bytes of the tensors this rank holds, by part, and where DeepSpeed put them. Prints one line ``RESULT {json}``.

argv: STAGE MASTER [FLAG ...]

- MASTER: ``fp32`` | ``bf16`` | ``bf16_with_states`` (a bf16 model with ``bf16.enabled``; bf16 master weights, and
  bf16 optimizer states too) or ``nomp`` (an fp32 model, no bf16/fp16 section: DeepSpeed without mixed precision);
- ``offload``: the optimizer on the CPU with DeepSpeedCPUAdam (which bf16 master weights with fp32 optimizer states
  require); ``offload_param``: ZeRO-3 parameter offload to the CPU; ``nvme DIR``: optimizer and parameter offload
  to NVMe under DIR (needs DeepSpeed's async_io op; DeepSpeed swaps only tensors of 1 MiB or more,
  deepspeed/runtime/swap_tensor/utils.py:14 MIN_AIO_BYTES, so NVMe runs use ``width 1024``); ``width N``: the
  Linear layers' width (256 by default).

Parts: ``parameters`` (the 16-bit, or fp32, parameters this rank keeps: ZeRO-3's partitions ``ds_tensor``),
``master`` (the fp32 or bf16 master partition), ``adam`` (exp_avg + exp_avg_sq), ``grads`` (what stays after the
step: ZeRO-3's gradient partition buffer, ZeRO-0's fp32 accumulator), ``host_grads`` (the fp32 gradient partition
DeepSpeed keeps on the host for the CPU step under optimizer offload), ``lp_grads_after_backward`` (the 16-bit
gradients alive right after backward), and ``devices``.
"""
import json
import os
import sys

import deepspeed
import torch

stage, master_mode = int(sys.argv[1]), sys.argv[2]
flags = sys.argv[3:]
offload = "offload" in flags
offload_param = "offload_param" in flags
nvme = flags[flags.index("nvme") + 1] if "nvme" in flags else None
nomp = master_mode == "nomp"
dtype = torch.float32 if nomp else torch.bfloat16
torch.manual_seed(0)
width = int(flags[flags.index("width") + 1]) if "width" in flags else 256
model = torch.nn.Sequential(*[torch.nn.Linear(width, width) for _ in range(4)]).to(dtype)
numel = sum(p.numel() for p in model.parameters())
cfg = {"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 1, "steps_per_print": 10 ** 9,
       "zero_optimization": {"stage": stage}, "zero_allow_untested_optimizer": True}
if not nomp:
    bf16 = {"enabled": True}
    if master_mode != "fp32":
        bf16["bf16_master_weights_and_grads"] = True
        bf16["bf16_optimizer_states"] = master_mode == "bf16_with_states"
    cfg["bf16"] = bf16
zero = cfg["zero_optimization"]
if offload or nvme:
    from deepspeed.ops.adam import DeepSpeedCPUAdam

    zero["offload_optimizer"] = {"device": "nvme", "nvme_path": nvme} if nvme else {"device": "cpu"}
    optimizer = DeepSpeedCPUAdam(model.parameters())
else:
    optimizer = torch.optim.AdamW(model.parameters())
if offload_param:
    zero["offload_param"] = {"device": "cpu"}
if nvme:
    zero["offload_param"] = {"device": "nvme", "nvme_path": nvme}  # DeepSpeed's defaults: 5 buffers of 1e8
engine, opt, _, _ = deepspeed.initialize(model=model, optimizer=optimizer, config=cfg, dist_init_required=True)
loss = engine(torch.randn(2, width, dtype=dtype)).float().sum()
engine.backward(loss)


def nbytes(ts):
    return sum(t.numel() * t.element_size() for t in ts if t is not None)


lp_grads = nbytes(p.grad for p in engine.module.parameters())
at_step = {}
inner = getattr(opt, "optimizer", opt)  # ZeRO-0 without mixed precision: the torch optimizer itself
if stage == 0:  # the gradients alive while the (wrapped) torch optimizer steps
    inner_step = inner.step

    def recording_step(*args, **kwargs):
        at_step["fp32_grads"] = nbytes(p.grad for g in inner.param_groups for p in g["params"])
        at_step["lp_grads"] = nbytes(p.grad for p in engine.module.parameters())
        return inner_step(*args, **kwargs)

    inner.step = recording_step
engine.step()

name = type(opt).__name__
grads = host_grads = None
devices = {}
if stage == 3:
    params = nbytes(p.ds_tensor for p in engine.module.parameters())
    devices["parameters"] = str(next(engine.module.parameters()).ds_tensor.device)
    flat = opt.fp32_partitioned_groups_flat
    master = nbytes(flat)
    devices["master"] = str(flat[0].device)
    if not (offload or nvme):
        grads = nbytes([opt.grad_partitions_flat_buffer])
    else:
        # the fp32 gradient partition the CPU step reads: the .grad of the fp32 master partition
        host_grads = nbytes(t.grad for t in flat)
        buf = getattr(opt, "grad_partitions_flat_buffer", None)
        grads = nbytes([buf]) if buf is not None else None  # the 16-bit gradient partition, on the host here
        devices["grads"] = str(buf.device) if buf is not None else None
elif name == "BF16_Optimizer":  # ZeRO-0 with bf16
    params = nbytes(engine.module.parameters())
    master = nbytes(opt.fp32_groups_flat_partition)
    grads = nbytes(opt.fp32_groups_gradients_flat)  # the fp32 accumulator of every gradient, kept whole
elif name == "FP16_UnfusedOptimizer":  # ZeRO-0 with bf16/fp16 (DeepSpeed 0.19.8, grad_accum_dtype unset)
    params = nbytes(engine.module.parameters())
    master = nbytes(p for g in opt.fp32_groups for p in g)  # an fp32 copy of every parameter, whole
    grads = at_step.get("fp32_grads", 0) + at_step.get("lp_grads", 0)  # at the step: 16-bit + fp32 copies
elif stage == 0:  # no mixed precision: the torch optimizer on the module's own parameters
    params = nbytes(engine.module.parameters())
    master = 0
    grads = at_step.get("fp32_grads", 0)  # the module's own gradients, at the step (the engine zeroes them after)
else:
    params = nbytes(engine.module.parameters())
    master = nbytes(opt.single_partition_of_fp32_groups)
    devices["master"] = str(opt.single_partition_of_fp32_groups[0].device)
    if offload:
        host_grads = nbytes(t.grad for t in opt.single_partition_of_fp32_groups)
base = getattr(opt, "optimizer", opt)
state = [t for st in base.state.values() for k, t in st.items() if torch.is_tensor(t) and k != "step"]
adam = nbytes(state)
devices["adam"] = str(state[0].device) if state else None
# where DeepSpeed decided to put things (on a CPU-only machine every device reads "cpu", so the decision is read
# from the optimizer's own flags): ZeRO-1/2 cpu_offload, ZeRO-3 offload_optimizer / offload_param
placement = {k: bool(getattr(opt, k)) for k in ("cpu_offload", "offload_optimizer", "offload_param")
             if hasattr(opt, k)}
if stage == 3:
    placement["param_partition_location"] = str(getattr(next(engine.module.parameters()).ds_tensor,
                                                        "final_location", None))
swapper = getattr(opt, "optimizer_swapper", None)
param_swapper = None
for p in engine.module.parameters():
    param_swapper = getattr(p, "nvme_swapper", None)
    if param_swapper is not None:
        break
pinned = {}
if swapper is not None:  # the optimizer swapper's host buffers (swap_tensor/utils.py SwapBufferManager.all_buffers)
    pinned["optimizer_swap_buffers"] = nbytes(swapper.swap_buffer_manager.all_buffers)
    pinned["optimizer_swap_buffer_count"] = len(swapper.swap_buffer_manager.all_buffers)
    pinned["optimizer_largest_numel"] = swapper.largest_numel
if param_swapper is not None:  # the parameter swapper's (partitioned_param_swapper.py:124 self.buffers)
    pinned["param_swap_buffers"] = nbytes([param_swapper.buffers])
    pinned["param_buffer_count"] = param_swapper.param_buffer_count
    pinned["param_elements_per_buffer"] = param_swapper.aligned_elements_per_buffer
if nvme:  # what stays in host memory after the step: the partitions DeepSpeed did not swap out
    placement["swapped_param_partitions"] = sum(str(p.ds_tensor.final_location) == "OffloadDeviceEnum.nvme"
                                                for p in engine.module.parameters())
    placement["swap_files"] = sum(len(files) for _, _, files in os.walk(nvme))
print("RESULT " + json.dumps({"numel": numel, "parameters": params, "master": master, "adam": adam, "grads": grads,
                              "host_grads": host_grads, "lp_grads_after_backward": lp_grads, "offload": offload,
                              "optimizer": name, "devices": devices, "placement": placement, "pinned": pinned,
                              "param_dtype": str(next(engine.module.parameters()).dtype), "width": width}),
      flush=True)
sys.stderr.flush()
os._exit(0)  # gloo's threads can abort a normal interpreter teardown after the result is out
