"""Claims about DeepSpeed through accelerate (wizard/core/claims/deepspeed.py).

Each test that needs accelerate's DeepSpeed state runs its demonstration in a fresh interpreter (accelerate keeps
global state, DeepSpeed initialises a process group): one gloo process, world size 1, DeepSpeed's CPU ops from
the cache the other tests use (tests/e2e/conftest.py). The child prints one JSON line, which the test reads.
"""
from __future__ import annotations

import os

import pytest
from gloo_ranks import EXTENSIONS, run_ds


# ------------------------------------------------------------------------------------------------ loading
@pytest.fixture(scope="module")
def zero3_init_flag_false(tmp_path_factory):
    """A tiny Transformers model saved before the DeepSpeed state exists, loaded after it with
    zero3_init_flag=False; accelerate's GatheredParameters helper tried on its embedding afterwards."""
    return run_ds("""
        from accelerate.utils import GatheredParameters
        from transformers import LlamaConfig, LlamaForCausalLM
        from transformers.integrations import is_deepspeed_zero3_enabled
        cfg = LlamaConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                          num_key_value_heads=2, vocab_size=64)
        LlamaForCausalLM(cfg).save_pretrained("tiny")
        before = is_deepspeed_zero3_enabled()
        default = DeepSpeedPlugin(zero_stage=3).zero3_init_flag
        plugin = DeepSpeedPlugin(zero_stage=3, zero3_init_flag=False)
        acc = Accelerator(deepspeed_plugin=plugin, kwargs_handlers=GLOO)
        model = LlamaForCausalLM.from_pretrained("tiny", dtype=torch.float32)
        w = model.model.embed_tokens.weight
        with GatheredParameters([w]):
            gathered = w.numel()
        report(before=before, default=default, flag=plugin.is_zero3_init_enabled(),
               enabled=is_deepspeed_zero3_enabled(), has_ds_id=hasattr(w, "ds_id"), numel=w.numel(),
               ds_numel=getattr(w, "ds_numel", None), gathered=gathered)
    """, tmp_path_factory.mktemp("zero3_init_flag_false"))


@pytest.mark.claim("ds-zero3-init-flag-does-not-stop-zero-init")
@pytest.mark.parametrize("case", ["default-on", "flag-false", "gathered-parameters-helper"])
def test_zero3_init_flag_false_does_not_stop_zero_init(zero3_init_flag_false, case):
    out = zero3_init_flag_false
    if case == "default-on":
        assert out["default"] is True  # ZeRO-3 turns the flag on by default
    elif case == "flag-false":
        assert out["before"] is False and out["flag"] is False
        assert out["enabled"] is True  # Transformers sees ZeRO-3 although the flag is off
        assert out["has_ds_id"] and out["numel"] == 0 and out["ds_numel"] == 64 * 16  # created partitioned
    else:  # what the flag does switch: accelerate's GatheredParameters is a no-op, the weight stays partitioned
        assert out["gathered"] == 0


@pytest.mark.claim("ds-zero3-init-flag-off-below-zero3")
@pytest.mark.parametrize("stage", [pytest.param(0, id="zero-0"), pytest.param(1, id="zero-1"),
                                   pytest.param(2, id="zero-2")])
def test_zero3_init_flag_is_turned_off_below_zero3(stage):
    from accelerate.utils import DeepSpeedPlugin

    with pytest.warns(UserWarning, match="only applicable for ZeRO Stage 3"):
        plugin = DeepSpeedPlugin(zero_stage=stage, zero3_init_flag=True)
    assert plugin.zero3_init_flag is False
    assert DeepSpeedPlugin(zero_stage=stage).zero3_init_flag is False


@pytest.fixture(scope="module")
def loaded_before_and_after(tmp_path_factory):
    return run_ds("""
        from transformers import LlamaConfig, LlamaForCausalLM
        cfg = LlamaConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                          num_key_value_heads=2, vocab_size=64)
        LlamaForCausalLM(cfg).save_pretrained("tiny")
        early = LlamaForCausalLM.from_pretrained("tiny", dtype=torch.float32)  # before any DeepSpeed state
        plugin = DeepSpeedPlugin(zero_stage=3, zero3_init_flag=True)
        acc = Accelerator(deepspeed_plugin=plugin, mixed_precision="bf16", kwargs_handlers=GLOO)
        late = LlamaForCausalLM.from_pretrained("tiny", dtype=torch.float32)
        own = torch.nn.Linear(4, 4)  # not Transformers: never created under zero.Init
        report(early=hasattr(early.model.embed_tokens.weight, "ds_id"),
               late=hasattr(late.model.embed_tokens.weight, "ds_id"),
               late_dtype=str(late.model.embed_tokens.weight.dtype), own=hasattr(own.weight, "ds_id"))
    """, tmp_path_factory.mktemp("loaded_before_and_after"))


@pytest.mark.claim("ds-zero3-init-needs-config-before-load")
@pytest.mark.parametrize("case", ["loaded-before-config", "loaded-after-config", "not-from-pretrained",
                                  "deepspeed-dtype"])
def test_a_model_loaded_before_the_deepspeed_state_is_not_partitioned(loaded_before_and_after, case):
    out = loaded_before_and_after
    if case == "loaded-before-config":
        assert out["early"] is False
    elif case == "loaded-after-config":
        assert out["late"] is True
    elif case == "not-from-pretrained":
        assert out["own"] is False
    else:
        assert out["late_dtype"] == "torch.bfloat16"  # zero.Init's dtype (the bf16 section), not dtype=float32


# ------------------------------------------------------------------------------------------------ training
@pytest.fixture(scope="module")
def accumulation_from_the_json(tmp_path_factory):
    """Accelerator(gradient_accumulation_steps=4) with a JSON without the key and with the key 2."""
    out = {}
    for name, extra in (("missing", ""), ("two", '"gradient_accumulation_steps": 2, ')):
        out[name] = run_ds("""
            plugin = DeepSpeedPlugin(hf_ds_config={EXTRA"train_micro_batch_size_per_gpu": "auto",
                                                   "zero_optimization": {"stage": 1}})
            in_config = plugin.deepspeed_config["gradient_accumulation_steps"]
            acc = Accelerator(deepspeed_plugin=plugin, gradient_accumulation_steps=4, kwargs_handlers=GLOO)
            before = acc.gradient_accumulation_steps
            m = torch.nn.Linear(4, 4)
            engine, opt, dl = acc.prepare(m, torch.optim.SGD(m.parameters(), lr=0.1), loader())
            report(in_config=in_config, before=before, after=acc.gradient_accumulation_steps,
                   engine=engine.gradient_accumulation_steps(), train_batch=engine.train_batch_size())
        """.replace("EXTRA", extra), tmp_path_factory.mktemp(f"accumulation_{name}"))
    return out


@pytest.mark.claim("ds-json-without-gradient-accumulation-is-1")
@pytest.mark.parametrize("case", ["json-value-wins", "warning-only", "json-without-key-is-1", "train-batch-checked"])
def test_a_json_without_gradient_accumulation_steps_overrides_the_accelerator_argument(accumulation_from_the_json,
                                                                                      case):
    missing, two = accumulation_from_the_json["missing"], accumulation_from_the_json["two"]
    if case == "json-value-wins":
        assert two["before"] == 4 and two["after"] == 2 and two["engine"] == 2
    elif case == "warning-only":
        assert "Gradient accumulation steps mismatch" in two["_stderr"]
        assert "Gradient accumulation steps mismatch" in missing["_stderr"]
    elif case == "json-without-key-is-1":
        assert missing["in_config"] == 1  # added by the plugin
        assert missing["before"] == 4
        assert missing["after"] == 1 and missing["engine"] == 1  # the script's 4 is replaced
    else:
        from deepspeed.runtime.config import DeepSpeedConfig

        assert missing["train_batch"] == 2 * 1 * 1 and two["train_batch"] == 2 * 2 * 1  # micro x accum. x world
        with pytest.raises(AssertionError, match="train_batch_size"):  # the engine's config checks the product
            DeepSpeedConfig({"train_batch_size": 5, "train_micro_batch_size_per_gpu": 2,
                             "gradient_accumulation_steps": 2})


@pytest.mark.claim("ds-inline-gradient-accumulation-auto-fails")
@pytest.mark.parametrize("value", ["auto"])
def test_inline_auto_gradient_accumulation_fails_in_accelerator(monkeypatch, value):
    from accelerate import Accelerator

    monkeypatch.setenv("ACCELERATE_GRADIENT_ACCUMULATION_STEPS", value)  # what launch exports for 'auto' inline
    with pytest.raises(ValueError, match="auto"):
        Accelerator(cpu=True)


# ------------------------------------------------------------------------------------------------ offload
@pytest.mark.claim("ds-offload-replaces-torch-optimizer")
@pytest.mark.parametrize("case", ["adamw_betas_eps_kept", "sgd_momentum_dropped"])
def test_the_cpu_optimizer_keeps_each_groups_adam_settings(case):
    """Only the constructor defaults are cut to lr and weight decay: the CPU optimizer is built from the script
    optimizer's parameter groups, so an AdamW's betas and eps (and each group's own lr) stay and one step equals torch
    AdamW's; what Adam has no use for (SGD's momentum) is lost."""
    os.environ.setdefault("TORCH_EXTENSIONS_DIR", str(EXTENSIONS))
    import torch
    from accelerate.utils.deepspeed import map_pytorch_optim_to_deepspeed
    from deepspeed.ops.adam import DeepSpeedCPUAdam

    torch.manual_seed(0)
    a, b = torch.nn.Parameter(torch.randn(8)), torch.nn.Parameter(torch.randn(8))
    grads = torch.randn(8), torch.randn(8)
    if case == "sgd_momentum_dropped":
        cpu = map_pytorch_optim_to_deepspeed(torch.optim.SGD([a], lr=0.1, momentum=0.9, weight_decay=0.01))
        group = cpu.param_groups[0]
        assert type(cpu) is DeepSpeedCPUAdam and cpu.adam_w_mode is False  # SGD becomes Adam (L2 decay)
        assert group["lr"] == 0.1 and "betas" in group  # Adam's betas now
        assert group["momentum"] == 0.9  # still in the group, and nothing reads it
        return
    groups = [{"params": [a]}, {"params": [b], "lr": 0.05}]
    kwargs = dict(lr=0.01, betas=(0.8, 0.95), eps=1e-5, weight_decay=0.1)
    cpu = map_pytorch_optim_to_deepspeed(torch.optim.AdamW(groups, **kwargs))
    assert type(cpu) is DeepSpeedCPUAdam and cpu.adam_w_mode is True
    assert [g["betas"] for g in cpu.param_groups] == [(0.8, 0.95)] * 2
    assert [g["eps"] for g in cpu.param_groups] == [1e-5] * 2
    assert [g["lr"] for g in cpu.param_groups] == [0.01, 0.05]
    a2, b2 = torch.nn.Parameter(a.detach().clone()), torch.nn.Parameter(b.detach().clone())
    ref = torch.optim.AdamW([{"params": [a2]}, {"params": [b2], "lr": 0.05}], **kwargs)
    for _ in range(2):
        for p, g in zip((a, b, a2, b2), grads * 2, strict=True):
            p.grad = g.clone()
        cpu.step()
        ref.step()
    torch.testing.assert_close(a.detach(), a2.detach())
    torch.testing.assert_close(b.detach(), b2.detach())


@pytest.mark.claim("ds-partial-offload-zero3-only")
@pytest.mark.parametrize("stage", [pytest.param(0, id="zero-0"), pytest.param(1, id="zero-1"),
                                   pytest.param(2, id="zero-2"), pytest.param(3, id="zero-3-accepted")])
def test_partial_optimizer_offload_needs_zero3(stage):
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    if stage == 3:
        assert DeepSpeedZeroConfig(stage=3, offload_optimizer={"device": "cpu", "ratio": 0.5}).stage == 3
        return
    with pytest.raises(Exception, match="Partial offloading only supported for ZeRO Stage 3"):
        DeepSpeedZeroConfig(stage=stage, offload_optimizer={"device": "cpu", "ratio": 0.5})


@pytest.mark.claim("ds-nvme-optimizer-offload-below-zero3-is-cpu")
@pytest.mark.parametrize("stage", [pytest.param(1, id="zero-1"), pytest.param(2, id="zero-2")])
def test_nvme_optimizer_offload_at_zero2_runs_on_cpu(tmp_path, stage):
    out = run_ds("""
        cfg = {"train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": 1,
               "zero_optimization": {"stage": STAGE,
                                     "offload_optimizer": {"device": "nvme", "nvme_path": "swap"}}}
        acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(hf_ds_config=cfg), kwargs_handlers=GLOO)
        m = torch.nn.Linear(4, 4)
        engine, opt, dl = acc.prepare(m, torch.optim.AdamW(m.parameters(), lr=0.1), loader())
        inner = engine.optimizer
        report(kind=type(inner).__name__, cpu_offload=inner.cpu_offload, swap=os.path.exists("swap"),
               opt=type(inner.optimizer).__name__)
    """.replace("STAGE", str(stage)), tmp_path)
    assert out["kind"] == "DeepSpeedZeroOptimizer" and out["cpu_offload"] is True
    assert out["swap"] is False  # nothing is written to the NVMe folder
    assert out["opt"] == "DeepSpeedCPUAdam"


# ------------------------------------------------------------------------------------------------ checkpoint
@pytest.fixture(scope="module")
def zero3_state_dict(tmp_path_factory):
    """get_state_dict and save_model at ZeRO-3, with the 16-bit gather off (the default) and on."""
    out = {}
    for gather in (False, True):
        out[gather] = run_ds("""
            plugin = DeepSpeedPlugin(zero_stage=3, zero3_save_16bit_model=GATHER)
            acc = Accelerator(deepspeed_plugin=plugin, kwargs_handlers=GLOO)
            m = torch.nn.Linear(4, 4)
            engine, opt, dl = acc.prepare(m, torch.optim.SGD(m.parameters(), lr=0.1), loader())
            errors = []
            for call in (lambda: acc.get_state_dict(engine), lambda: acc.save_model(engine, "out")):
                try:
                    call()
                    errors.append("")
                except ValueError as e:
                    errors.append(str(e))
            report(errors=errors, saved=sorted(os.listdir("out")) if os.path.isdir("out") else [])
        """.replace("GATHER", str(gather)), tmp_path_factory.mktemp(f"zero3_state_dict_{gather}"))
    return out


@pytest.mark.claim("ds-zero3-state-dict-needs-16bit-gather")
@pytest.mark.parametrize("case", ["get-state-dict", "save-model", "gather-on"])
def test_zero3_get_state_dict_raises_without_16bit_gather(zero3_state_dict, case):
    off, on = zero3_state_dict[False]["errors"], zero3_state_dict[True]
    if case == "get-state-dict":
        assert "stage3_gather_16bit_weights_on_model_save" in off[0], off
        assert "zero_to_fp32.py" in off[0]  # the message points to the sharded checkpoint's script
    elif case == "save-model":
        assert "stage3_gather_16bit_weights_on_model_save" in off[1], off
    else:
        assert on["errors"] == ["", ""], on["errors"]
        assert on["saved"], on  # save_model wrote the gathered weights


@pytest.mark.claim("ds-zero12-checkpoint-weights-whole")
@pytest.mark.parametrize("stage", [pytest.param(0, id="zero0"), pytest.param(1, id="zero1"),
                                   pytest.param(2, id="zero2")])
def test_checkpoint_layout_below_zero3(tmp_path, stage):
    """ZeRO-1/2: one whole-weights file, per-rank optimizer files and zero_to_fp32.py beside them. ZeRO-0 (bf16, so
    the engine keeps fp32 masters): the one model-states file holds the optimizer state too, nothing per rank and
    no zero_to_fp32.py."""
    out = run_ds("""
        cfg = {"train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": 1,
               "zero_optimization": {"stage": STAGE}, "bf16": {"enabled": True}}
        acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(hf_ds_config=cfg), kwargs_handlers=GLOO)
        m = torch.nn.Linear(4, 4)
        engine, opt, dl = acc.prepare(m, torch.optim.AdamW(m.parameters(), lr=0.1), loader())
        engine.save_checkpoint("ckpt", tag="t")
        files = sorted(os.listdir("ckpt/t"))
        states = torch.load("ckpt/t/mp_rank_00_model_states.pt", weights_only=False)
        report(files=files, beside=sorted(os.listdir("ckpt")), shape=list(states["module"]["weight"].shape),
               optimizer_in_model_states=bool(states.get("optimizer")))
    """.replace("STAGE", str(stage)), tmp_path)
    files, beside = out["files"], out["beside"]
    assert "mp_rank_00_model_states.pt" in files  # one weights file, no rank in its name
    assert out["shape"] == [4, 4]  # the full weight
    assert not any("zero_pp_rank_" in f and f.endswith("_model_states.pt") for f in files)
    per_rank = [f for f in files if "zero_pp_rank_" in f and f.endswith("_optim_states.pt")]
    if stage == 0:
        assert per_rank == [] and "zero_to_fp32.py" not in beside, (files, beside)
        assert out["optimizer_in_model_states"] is True  # the whole optimizer state sits beside the weights
    else:
        assert [f for f in per_rank if "zero_pp_rank_0_" in f], files  # rank 0's optimizer file (bf16_ prefix)
        assert "zero_to_fp32.py" in beside, beside  # copied into the checkpoint folder, beside the tag folders
        assert out["optimizer_in_model_states"] is False


# ------------------------------------------------------------------------------------------------ backend
@pytest.fixture(scope="module")
def two_models(tmp_path_factory):
    return run_ds("""
        acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(zero_stage=1), kwargs_handlers=GLOO)
        a, b = torch.nn.Linear(4, 4), torch.nn.Linear(4, 4)
        try:
            acc.prepare(a, b, torch.optim.SGD(a.parameters(), lr=0.1), loader())
            refused = ""
        except AssertionError as e:
            refused = str(e)
        first, _, _ = acc.prepare(a, torch.optim.SGD(a.parameters(), lr=0.1), loader())
        second, _ = acc.prepare(b, torch.optim.SGD(b.parameters(), lr=0.1))
        report(refused=refused, second=type(second).__name__,
               backward_drives_first=acc.deepspeed_engine_wrapped.engine is first)
    """, tmp_path_factory.mktemp("two_models"))


@pytest.mark.claim("ds-one-model-per-prepare")
@pytest.mark.parametrize("case", ["one-call-raises", "separate-calls-accepted", "backward-drives-first"])
def test_deepspeed_refuses_two_models_in_one_prepare_call(two_models, case):
    if case == "one-call-raises":
        assert "multiple models" in two_models["refused"]
    elif case == "separate-calls-accepted":
        assert two_models["second"] == "DeepSpeedEngine"
    else:  # ...but accelerator.backward() keeps driving the first engine, with a warning
        assert two_models["backward_drives_first"] is True
        assert "A wrapped DeepSpeed engine reference is currently tied" in two_models["_stderr"]
