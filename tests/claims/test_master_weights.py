"""Claims about DeepSpeed's bf16 master weights and FSDP's bf16 counterpart (wizard/core/claims/master_weights.py).

The DeepSpeed facts come from real ZeRO engines (``deepspeed.initialize``) on CPU in one subprocess with a single
gloo rank, started once for the module (:func:`facts`): a tiny MLP, one forward/backward/step per config. The
offload cases build DeepSpeed's CPU Adam op, once per machine (TORCH_EXTENSIONS_DIR, default
~/.cache/fsdpds-wizard/torch_extensions as for the e2e tests).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from gloo_ranks import EXTENSIONS, one_rank_env

_ENGINES = textwrap.dedent(r'''
    import json, os, sys
    import torch, deepspeed
    from torch import nn

    def config(stage, bf16=True, master=None, states=None, offload=False, optimizer_block=False):
        c = {"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 1,
             "zero_optimization": {"stage": stage}, "bf16": {"enabled": bf16}}
        if master is not None:
            c["bf16"]["bf16_master_weights_and_grads"] = master
        if states is not None:
            c["bf16"]["bf16_optimizer_states"] = states
        if offload:
            c["zero_optimization"]["offload_optimizer"] = {"device": "cpu"}
        if optimizer_block:
            c["optimizer"] = {"type": "AdamW", "params": {"lr": 1e-3}}
        return c

    def engine(c, optimizer="torch"):
        """One step of a ZeRO engine; what it keeps in which dtype, or the error that stopped it."""
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
        kwargs = {}
        if optimizer == "torch":
            kwargs["optimizer"] = torch.optim.AdamW(model.parameters(), lr=1e-3)
        elif optimizer == "accelerate-swap":  # what accelerate hands DeepSpeed for a torch optimizer + offload
            from accelerate.utils.deepspeed import map_pytorch_optim_to_deepspeed
            kwargs["optimizer"] = map_pytorch_optim_to_deepspeed(torch.optim.AdamW(model.parameters(), lr=1e-3))
        else:  # "block": DeepSpeed builds the optimizer from the JSON
            kwargs["model_parameters"] = model.parameters()
        try:
            deepspeed.runtime.config.DeepSpeedConfig(c)
        except Exception as exc:
            return {"config_error": f"{type(exc).__name__}: {exc}"}
        try:
            eng, *_ = deepspeed.initialize(model=model, config=c, **kwargs)
        except Exception as exc:
            return {"init_error": f"{type(exc).__name__}: {exc}"}
        zo = eng.optimizer
        loss = eng(torch.randn(2, 8).to(next(eng.module.parameters()).dtype)).float().pow(2).mean()
        eng.backward(loss)
        grads = sorted({str(t.dtype) for ts in zo.averaged_gradients.values() for t in ts})
        eng.step()
        weights = next(eng.module.parameters())
        if hasattr(zo, "single_partition_of_fp32_groups"):
            master, bit16 = zo.single_partition_of_fp32_groups[0], zo.bit16_groups_flat[0]
        else:
            master, bit16 = zo.fp32_partitioned_groups_flat[0], zo.fp16_partitioned_groups_flat[0]
        states = [v for s in zo.optimizer.state.values() for v in s.values() if torch.is_tensor(v) and v.numel() > 1]
        numel = sum(p.numel() for p in model.parameters())
        return {"optimizer": type(zo.optimizer).__name__, "weights": str(weights.dtype), "grads": grads,
                "master": str(master.dtype), "master_separate": master.data_ptr() != bit16.data_ptr(),
                "states": sorted({str(v.dtype) for v in states}),
                "state_bytes_per_param": sum(v.numel() * v.element_size() for v in states) / numel}

    both = {"master": True, "states": True}
    cases = {
        "zero0_master": (config(0, master=True), "torch"),
        "states_without_master": (config(2, states=True), "torch"),
        "zero1_fp32": (config(1), "torch"),
        "zero1_both": (config(1, **both), "torch"),
        "zero2_both": (config(2, **both), "torch"),
        "zero3_fp32": (config(3), "torch"),
        "zero3_both": (config(3, **both), "torch"),
        "zero1_master_only": (config(1, master=True), "torch"),
        "zero2_master_only": (config(2, master=True), "torch"),
        "zero3_master_only": (config(3, master=True), "torch"),
        "zero2_both_bf16_off": (config(2, bf16=False, **both), "torch"),
    }
    if "--offload" in sys.argv:
        cases |= {
            "zero2_master_only_offload": (config(2, master=True, offload=True), "accelerate-swap"),
            "zero2_both_offload_swap": (config(2, offload=True, **both), "accelerate-swap"),
            "zero2_both_offload_block": (config(2, offload=True, optimizer_block=True, **both), "block"),
        }
    print("FACTS " + json.dumps({name: engine(c, opt) for name, (c, opt) in cases.items()}), flush=True)
    sys.stderr.flush()
    # exit without interpreter teardown: gloo's and DeepSpeed's threads can abort it ('terminate called without an
    # active exception', exit -6; seen in CI) after the facts were printed
    os._exit(0)
''')


def _run_engines(*args: str) -> dict:
    env = one_rank_env(CUDA_VISIBLE_DEVICES="", DS_ACCELERATOR="cpu", OMP_NUM_THREADS="1")
    env.setdefault("TORCH_EXTENSIONS_DIR", EXTENSIONS)
    proc = subprocess.run([sys.executable, "-c", _ENGINES, *args], capture_output=True, text=True, timeout=900,
                          env=env)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("FACTS ")), None)
    assert proc.returncode == 0 and line, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(line.removeprefix("FACTS "))


@pytest.fixture(scope="module")
def facts() -> dict:
    return _run_engines()


@pytest.fixture(scope="module")
def offload_facts() -> dict:
    return _run_engines("--offload")


@pytest.mark.claim("master-weights-zero-stages")
@pytest.mark.parametrize("case", ["zero-0", "zero-1", "zero-2", "zero-3", "states-without-master"])
def test_the_config_refuses_zero0_and_states_without_master(facts, case):
    if case == "zero-0":
        assert "only supported with ZeRO Stage 1, 2, or 3" in facts["zero0_master"]["config_error"]
    elif case == "states-without-master":
        assert "requires bf16_master_weights_and_grads" in facts["states_without_master"]["config_error"]
    else:
        f = facts[f"zero{case[-1]}_both"]
        assert "config_error" not in f and "init_error" not in f, f


@pytest.mark.claim("master-weights-bf16-dtypes")
@pytest.mark.parametrize("stage", [1, 2, 3], ids=["zero-1", "zero-2", "zero-3"])
def test_both_flags_keep_master_grads_and_adam_state_in_bf16(facts, stage):
    if stage != 2:  # the default: fp32 master and moments (8 bytes of moments per parameter)
        default = facts[f"zero{stage}_fp32"]
        assert (default["master"], default["states"], default["state_bytes_per_param"]) == \
            ("torch.float32", ["torch.float32"], 8.0)
    f = facts[f"zero{stage}_both"]  # no offload anywhere
    assert f["weights"] == "torch.bfloat16" and f["grads"] == ["torch.bfloat16"]
    assert f["master"] == "torch.bfloat16" and f["master_separate"] is True  # a copy: 2 more bytes
    assert f["states"] == ["torch.bfloat16"] and f["state_bytes_per_param"] == 4.0  # two bf16 moments


@pytest.mark.claim("master-weights-fp32-states-need-offload")
@pytest.mark.parametrize("case", ["zero-1", "zero-2", "zero-3", "offloaded-cpu-adam"])
def test_master_without_states_needs_offload_and_cpu_adam(request, case):
    if case != "offloaded-cpu-adam":
        error = request.getfixturevalue("facts")[f"zero{case[-1]}_master_only"]["init_error"]
        assert "AssertionError" in error and "Offload with DeepSpeedCPUAdam" in error
        return
    f = request.getfixturevalue("offload_facts")["zero2_master_only_offload"]  # the CPU Adam keeps fp32 moments
    assert f["optimizer"] == "DeepSpeedCPUAdam" and f["master"] == "torch.bfloat16", f
    assert f["states"] == ["torch.float32"]


@pytest.mark.claim("master-weights-offloaded-states-need-bf16-cpu-adam")
@pytest.mark.parametrize("case", ["accelerate-swap-refused", "json-optimizer-block"])
def test_offloaded_bf16_states_need_cpu_adam_with_bf16_moments(offload_facts, case):
    if case == "accelerate-swap-refused":
        error = offload_facts["zero2_both_offload_swap"]["init_error"]
        assert "AssertionError" in error and "fp32_optimizer_states=False" in error
        return
    f = offload_facts["zero2_both_offload_block"]
    assert f["optimizer"] == "DeepSpeedCPUAdam" and f["master"] == "torch.bfloat16", f
    assert f["states"] == ["torch.bfloat16"]


@pytest.mark.claim("master-weights-read-without-bf16")
@pytest.mark.parametrize("case", ["bf16-off"])
def test_the_flags_apply_with_bf16_off(facts, case):
    f = facts["zero2_both_bf16_off"]
    assert f["weights"] == "torch.float32"
    assert f["master"] == "torch.bfloat16" and f["states"] == ["torch.bfloat16"]


@pytest.mark.claim("master-weights-fsdp-load-dtype")
@pytest.mark.parametrize("version", ["fsdp1", "fsdp2"])
def test_fsdp2_without_policy_trains_in_bf16(version):
    if version == "fsdp1":  # through accelerate with mixed_precision no (tests/claims/precision_runs/fsdp_run.py)
        from pathlib import Path

        from gloo_ranks import result_of
        from helpers import ROOT

        env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
        script = Path(__file__).parent / "precision_runs" / "fsdp_run.py"
        proc = subprocess.run([sys.executable, str(script), "1", "no"], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=120)
        r = result_of(proc.stdout, proc.returncode, proc.stderr)
        assert r["policy"] == "NoneType"  # accelerate sets no FSDP policy
        assert set(r["params"].values()) == {"torch.bfloat16"} and r["adam_dtypes"] == ["torch.bfloat16"]
        b = r["bytes"]
        assert (b["weights"] + b["grads"] + b["adam"]) / b["numel"] == 8  # no master copy
        return
    code = textwrap.dedent('''
        import torch, torch.distributed as dist
        from torch import nn
        from torch.distributed.fsdp import fully_shard
        dist.init_process_group("gloo")
        model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).to(torch.bfloat16)
        fully_shard(model)  # no mp_policy: what accelerate builds for mixed_precision "no"
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        model(torch.randn(2, 8, dtype=torch.bfloat16)).float().pow(2).mean().backward()
        grads = {str(p.grad.dtype) for p in model.parameters()}
        opt.step()
        states = [v for s in opt.state.values() for v in s.values() if v.numel() > 1]
        numel = sum(p.numel() for p in model.parameters())
        print("FACTS", sorted({str(p.dtype) for p in model.parameters()}), sorted(grads),
              sorted({str(v.dtype) for v in states}), sum(v.numel() * v.element_size() for v in states) / numel)
        dist.destroy_process_group()
    ''')
    env = one_rank_env(LOCAL_WORLD_SIZE=None, CUDA_VISIBLE_DEVICES="", OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("FACTS ")), "")
    assert proc.returncode == 0 and line, proc.stderr[-3000:]
    # weights, gradients and the two moments all bf16: 2 + 2 + 4 = 8 bytes per parameter, no master copy
    assert line == "FACTS ['torch.bfloat16'] ['torch.bfloat16'] ['torch.bfloat16'] 4.0"
