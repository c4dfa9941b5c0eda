"""Run by tests/claims/test_precision.py in a fresh process: one-rank DeepSpeed engines on CPU (gloo) on a tiny
model loaded in bf16, one per precision setting, plus zero.Init. Prints one line ``RESULT {json}``."""
import json
import os
import sys

# a world of one: rank 0's store binds a port the kernel gives it (MASTER_PORT=0), nothing is picked in advance
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="0", RANK="0", WORLD_SIZE="1", LOCAL_RANK="0")
import deepspeed  # noqa: E402
import torch  # noqa: E402


def tiny(dtype=torch.bfloat16):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.Linear(64, 4)).to(dtype)  # the load dtype
    m.register_buffer("freq", torch.ones(3))  # an fp32 buffer (rotary frequencies, say)
    return m

def nbytes(ts):
    return sum(t.numel() * t.element_size() for t in ts)

def run(stage, bf16, dtype=torch.bfloat16):
    model = tiny(dtype)
    numel = sum(p.numel() for p in model.parameters())
    cfg = {"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 1, "steps_per_print": 10**9,
           "zero_optimization": {"stage": stage}, "bf16": bf16, "zero_allow_untested_optimizer": True}
    try:
        engine, opt, _, _ = deepspeed.initialize(model=model, optimizer=torch.optim.AdamW(model.parameters()),
                                                 config=cfg, dist_init_required=True)
    except AssertionError as e:
        return {"assert": str(e)}
    loss = engine(torch.randn(2, 64, dtype=dtype)).float().sum()
    engine.backward(loss)
    engine.step()
    base = getattr(opt, "optimizer", opt)
    state = [t for st in base.state.values() for k, t in st.items() if torch.is_tensor(t) and k != "step"]
    master = list(getattr(opt, "single_partition_of_fp32_groups", []))
    return {"optimizer": type(opt).__name__, "numel": numel,
            "module": sorted({str(p.dtype) for p in engine.module.parameters()}),
            "buffer": str(engine.module.freq.dtype), "master": sorted({str(m.dtype) for m in master}),
            "state": sorted({str(t.dtype) for t in state}), "comm": str(engine.communication_data_type),
            "bytes": {"weights": nbytes(engine.module.parameters()), "master": nbytes(master), "adam": nbytes(state)},
            "dynamic_loss_scale": getattr(opt, "dynamic_loss_scale", None)}

res = {"zero1_bf16": run(1, {"enabled": True}), "zero1_off": run(1, {"enabled": False}),
       "zero1_bf16_master": run(1, {"enabled": True, "bf16_master_weights_and_grads": True,
                                    "bf16_optimizer_states": True}),
       "zero1_bf16_master_only": run(1, {"enabled": True, "bf16_master_weights_and_grads": True}),
       "zero0_off": run(0, {"enabled": False}), "zero1_fp32": run(1, {"enabled": False}, torch.float32)}
for name, block, asked in (("zero_init", {"bf16": {"enabled": True}}, torch.float32),
                           ("zero_init_fp16", {"fp16": {"enabled": True}}, torch.float32),
                           ("zero_init_fp32", {}, torch.bfloat16)):  # neither enabled: a bf16 request gets fp32
    with deepspeed.zero.Init(config_dict_or_path={"train_micro_batch_size_per_gpu": 1, **block,
                                                  "zero_optimization": {"stage": 3}}):
        lin = torch.nn.Linear(8, 8, dtype=asked)  # as from_pretrained(torch_dtype=asked) would create it
    res[name] = str(lin.weight.ds_tensor.dtype)
print("RESULT " + json.dumps(res), flush=True)
# exit without interpreter teardown: gloo's threads can abort it ('terminate called without an
# active exception', SIGABRT) after the result is already out
sys.stderr.flush()
os._exit(0)
