"""The DeepSpeed demonstration body of tests/claims/test_training.py: run by gloo_ranks.run_ds after its PRELUDE
(one gloo rank); not a module to import. The PRELUDE defines torch, os, Accelerator, DeepSpeedPlugin, GLOO, loader
and report (pyproject's per-file-ignores lets ruff accept them here)."""
import deepspeed.runtime.activation_checkpointing.checkpointing as ckpt
from accelerate.state import AcceleratorState, PartialState


def reset():
    AcceleratorState._reset_state(True)
    PartialState._reset_state()


def engine_for(plugin, **kw):
    acc = Accelerator(deepspeed_plugin=plugin, kwargs_handlers=GLOO, **kw)
    torch.manual_seed(0)
    m = torch.nn.Linear(4, 4)
    engine, opt, dl = acc.prepare(m, torch.optim.SGD(m.parameters(), lr=1.0), loader())
    return acc, engine, opt, dl


out = {}
# clipping values
os.environ["ACCELERATE_GRADIENT_CLIPPING"] = "0"
p = DeepSpeedPlugin(zero_stage=1)
del os.environ["ACCELERATE_GRADIENT_CLIPPING"]
out["inline_zero_in_config"] = "gradient_clipping" in p.deepspeed_config
acc, e, opt, dl = engine_for(p)
out["inline_zero"] = e.gradient_clipping()
reset()
p = DeepSpeedPlugin(zero_stage=1)
out["inline_missing_in_config"] = p.deepspeed_config.get("gradient_clipping")
acc, e, opt, dl = engine_for(p)
out["inline_missing"] = e.gradient_clipping()
reset()
base = {"train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 1}}
acc, e, opt, dl = engine_for(DeepSpeedPlugin(hf_ds_config=dict(base)))
out["json_missing"] = e.gradient_clipping()
reset()
# JSON 0.0: no clipping; clip_grad_norm_ returns the engine's norm and clips nothing
acc, e, opt, dl = engine_for(DeepSpeedPlugin(hf_ds_config={**base, "gradient_clipping": 0.0}))
out["json_zero"] = e.gradient_clipping()
x = torch.full((2, 4), 10.0)
w0 = e.module.weight.detach().clone()
acc.backward(e(x).sum())
norm = acc.clip_grad_norm_(e.parameters(), 1e-6)
out["returned"] = float(norm)
out["engine_norm"] = float(e.get_global_grad_norm())
out["update_norm"] = (e.module.weight.detach() - w0).norm().item()
reset()
acc, e, opt, dl = engine_for(DeepSpeedPlugin(hf_ds_config={**base, "gradient_clipping": 0.01}))
w0 = e.module.weight.detach().clone()
b0 = e.module.bias.detach().clone()
acc.backward(e(x).sum())
out["clipped_update_norm"] = ((e.module.weight.detach() - w0).pow(2).sum()
                              + (e.module.bias.detach() - b0).pow(2).sum()).sqrt().item()
reset()
# accumulation boundary: JSON count 4; backward without accumulate() steps every time
acc, e, opt, dl = engine_for(DeepSpeedPlugin(hf_ds_config={**base, "gradient_accumulation_steps": 4}),
                             gradient_accumulation_steps=4)
for _ in range(4):
    acc.backward(e(x).sum())
out["steps_without_accumulate"] = e.global_steps
for _ in range(4):
    with acc.accumulate(e):
        acc.backward(e(x).sum())
out["steps_after_accumulate"] = e.global_steps
reset()
# activation_checkpointing section: the engine never configures deepspeed.checkpointing
acc, e, opt, dl = engine_for(DeepSpeedPlugin(hf_ds_config={
    **base, "activation_checkpointing": {"cpu_checkpointing": True, "partition_activations": True}}))
out["ds_ckpt"] = {"cpu": ckpt.CPU_CHECKPOINT, "partition": ckpt.PARTITION_ACTIVATIONS,
                  "configured": ckpt.deepspeed_checkpointing_enabled}
out["plugin_fields_ac"] = [f for f in DeepSpeedPlugin.__dataclass_fields__ if "checkpoint" in f]
reset()
# micro batch: 'auto' from the DataLoader; no DataLoader raises; a fixed train_batch_size is not overwritten
acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(hf_ds_config=dict(base)), kwargs_handlers=GLOO)
m = torch.nn.Linear(4, 4)
try:
    acc.prepare(m, torch.optim.SGD(m.parameters(), lr=0.1))
    out["no_loader"] = ""
except ValueError as err:
    out["no_loader"] = str(err)
dl3 = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(9, 4)), batch_size=3)
e, opt, dl = acc.prepare(m, torch.optim.SGD(m.parameters(), lr=0.1), dl3)
out["micro_from_loader"] = e.train_micro_batch_size_per_gpu()
reset()
acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(hf_ds_config={**base, "train_batch_size": 16}),
                  kwargs_handlers=GLOO)
m = torch.nn.Linear(4, 4)
try:
    acc.prepare(m, torch.optim.SGD(m.parameters(), lr=0.1), loader())
    out["fixed_total"] = ""
except Exception as err:
    out["fixed_total"] = f"{type(err).__name__}: {err}"
reset()
# checkpoint with bf16 at ZeRO-1 and 2: 16-bit weights, fp32 master partition, zero_to_fp32.py next to the tags
for stage in (1, 2):
    acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(hf_ds_config={**base, "zero_optimization": {"stage": stage},
                                                                     "bf16": {"enabled": True}}),
                      kwargs_handlers=GLOO)
    m = torch.nn.Linear(4, 4)
    e, opt, dl = acc.prepare(m, torch.optim.SGD(m.parameters(), lr=0.1), loader())
    e.save_checkpoint(f"ckpt{stage}", tag="t")
    states = torch.load(f"ckpt{stage}/t/mp_rank_00_model_states.pt", weights_only=False)
    optim_files = [f for f in os.listdir(f"ckpt{stage}/t") if f.endswith("_optim_states.pt")]
    optim = torch.load(f"ckpt{stage}/t/" + optim_files[0], weights_only=False)["optimizer_state_dict"]
    master = optim["single_partition_of_fp32_groups"][0]
    out[f"ckpt{stage}"] = {"top": sorted(os.listdir(f"ckpt{stage}")), "optim_files": optim_files,
                           "weight_dtype": str(states["module"]["weight"].dtype),
                           "master_dtype": str(master.dtype), "master_numel": master.numel()}
    reset()
report(**out)
