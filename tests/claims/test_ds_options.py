"""Claims about DeepSpeed engine options and the FSDP facts they are compared with (wizard/core/claims/ds_options.py).

DeepSpeed's config models and accelerate's launcher run in this process; anything that needs a process group or an
engine runs in a subprocess (one gloo rank), so accelerate's global state never leaks into other tests."""
from __future__ import annotations

import json
import os

import pytest
from gloo_ranks import one_rank, run_ds
from launch_support import ds_launch_env, ds_yaml


@pytest.mark.claim("ds-overlap-comm-default")
def test_overlap_comm_defaults_by_stage():
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    assert {stage: DeepSpeedZeroConfig(stage=stage).overlap_comm for stage in range(4)} == {
        0: False, 1: False, 2: False, 3: True}
    assert DeepSpeedZeroConfig(stage=2, overlap_comm=True).overlap_comm is True


@pytest.mark.claim("ds-contiguous-gradients-default")
@pytest.mark.claim("ds-bucket-defaults")
def test_zero_option_defaults():
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    z = DeepSpeedZeroConfig(stage=3)
    assert z.contiguous_gradients is True
    assert (z.reduce_bucket_size, z.allgather_bucket_size, z.sub_group_size) == (500_000_000, 500_000_000,
                                                                                1_000_000_000)


@pytest.mark.claim("ds-auto-buckets-from-hidden-size")
def test_auto_buckets_come_from_the_models_hidden_size():
    proc = one_rank("""
        import types, torch
        from accelerate import Accelerator
        from accelerate.utils import DeepSpeedPlugin, InitProcessGroupKwargs
        ds = {"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1,
              "zero_optimization": {"stage": 1, "reduce_bucket_size": "auto"}}
        acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(hf_ds_config=ds),
                          kwargs_handlers=[InitProcessGroupKwargs(backend="gloo")])
        bare = torch.nn.Linear(8, 8)
        try:
            acc.prepare(bare, torch.optim.AdamW(bare.parameters()))
        except ValueError as e:
            print("NO_CONFIG", "model.config" in str(e))
        model = torch.nn.Linear(8, 8)
        model.config = types.SimpleNamespace(hidden_size=8)
        model, opt = acc.prepare(model, torch.optim.AdamW(model.parameters()))
        print("FILLED", acc.deepspeed_plugin.deepspeed_config["zero_optimization"]["reduce_bucket_size"])
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "NO_CONFIG True" in proc.stdout
    assert "FILLED 64" in proc.stdout  # 8 * 8


@pytest.mark.claim("ds-json-owns-its-keys")
def test_yaml_keys_next_to_a_json_file_raise(tmp_path, monkeypatch):
    from accelerate.utils import DeepSpeedPlugin

    ds_json = tmp_path / "ds.json"
    ds_json.write_text(json.dumps({"zero_optimization": {"stage": 2}, "train_micro_batch_size_per_gpu": "auto"}))
    for key, value in [("gradient_accumulation_steps", 4), ("gradient_clipping", 1.0), ("zero_stage", 2),
                       ("offload_optimizer_device", "cpu"), ("zero3_save_16bit_model", True)]:
        env = ds_launch_env(tmp_path, ds_yaml(ds_json, **{key: value}))
        with monkeypatch.context() as m:
            for k, v in env.items():
                m.setenv(k, v)
            with pytest.raises(ValueError, match="deepspeed_config_file"):
                DeepSpeedPlugin()
    mixed = {**ds_yaml(ds_json), "mixed_precision": "bf16"}
    env = ds_launch_env(tmp_path, mixed)
    with monkeypatch.context() as m:
        for k, v in env.items():
            m.setenv(k, v)
        with pytest.raises(ValueError, match="deepspeed_config_file"):
            DeepSpeedPlugin()
    allowed = ds_yaml(ds_json, zero3_init_flag=True, deepspeed_moe_layer_cls_names="Block")
    env = ds_launch_env(tmp_path, allowed)
    with monkeypatch.context() as m:
        for k, v in env.items():
            m.setenv(k, v)
        assert DeepSpeedPlugin().zero_stage == 2  # taken from the file


@pytest.mark.claim("ds-inline-unknown-dropped")
def test_unknown_inline_keys_never_reach_the_processes(tmp_path):
    config = ds_yaml(tmp_path / "unused.json")
    del config["deepspeed_config"]["deepspeed_config_file"]
    config["deepspeed_config"].update(zero_stage=2, train_micro_batch_size_per_gpu=7, overlap_comm=True)
    env = ds_launch_env(tmp_path, config)
    assert env["ACCELERATE_DEEPSPEED_ZERO_STAGE"] == "2"  # a known key is exported
    new = {k: v for k, v in env.items() if k not in os.environ or os.environ[k] != v}
    assert not [k for k, v in new.items() if "MICRO" in k or "OVERLAP" in k or v == "7"], new


@pytest.mark.claim("ds-sections-forbid-unknown-keys")
def test_unknown_keys_in_zero_optimization_raise():
    from deepspeed.runtime.config import DeepSpeedConfig

    with pytest.raises(Exception, match="Extra inputs are not permitted"):
        DeepSpeedConfig({"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 2, "overlap_com": True}})
    DeepSpeedConfig({"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 2, "overlap_comm": True}})


@pytest.mark.claim("ds-removed-blocks-raise")
def test_blocks_of_removed_features_raise():
    from deepspeed.runtime.config import DeepSpeedConfig, DeepSpeedConfigError

    for block in ("amp", "sparse_attention", "elasticity"):
        with pytest.raises(DeepSpeedConfigError, match="removed"):
            DeepSpeedConfig({"train_micro_batch_size_per_gpu": 1, block: {"enabled": True}})


@pytest.mark.claim("ds-optimizer-json-and-script")
def test_an_optimizer_in_the_json_and_in_the_script_raises():
    proc = one_rank("""
        import torch
        from accelerate import Accelerator
        from accelerate.utils import DeepSpeedPlugin, InitProcessGroupKwargs
        ds = {"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1,
              "zero_optimization": {"stage": 1}, "optimizer": {"type": "AdamW", "params": {"lr": 1e-3}},
              "scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": 1}}}
        acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(hf_ds_config=ds),
                          kwargs_handlers=[InitProcessGroupKwargs(backend="gloo")])
        print("BUILT")  # the Accelerator takes the config: the check is in prepare()
        model = torch.nn.Linear(4, 4)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        try:
            acc.prepare(model, opt)
        except ValueError as e:
            print("OPTIMIZER", "optimizer in the config file and in the code" in str(e), "DummyOptim" in str(e))
        # prepare() reads the config when it is called: without the optimizer block, the scheduler's turn
        del acc.deepspeed_plugin.deepspeed_config["optimizer"]
        try:
            acc.prepare(model, opt, torch.optim.lr_scheduler.LambdaLR(opt, lambda step: 1.0))
        except ValueError as e:
            print("SCHEDULER", "scheduler in the config file and in the code" in str(e), "DummyScheduler" in str(e))
    """, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "BUILT" in proc.stdout
    assert "OPTIMIZER True True" in proc.stdout
    assert "SCHEDULER True True" in proc.stdout


@pytest.mark.claim("fsdp-collectives-per-unit")
@pytest.mark.claim("fsdp1-flat-gradients")
def test_fsdp1_keeps_one_flat_parameter_and_gradient_per_unit():
    proc = one_rank("""
        import torch, torch.distributed as dist
        from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, fully_shard
        from torch.distributed.fsdp.wrap import ModuleWrapPolicy
        dist.init_process_group("gloo")
        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.a, self.b = torch.nn.Linear(4, 4), torch.nn.Linear(4, 4)
            def forward(self, x):
                return self.b(self.a(x))
        def net():
            torch.manual_seed(0)
            return torch.nn.Sequential(Block(), Block())
        v1 = FSDP(net(), auto_wrap_policy=ModuleWrapPolicy({Block}), device_id=torch.device("cpu"))
        v1(torch.randn(2, 4)).sum().backward()
        units = [m for m in v1.modules() if isinstance(m, FSDP)]
        flat = [m._flat_param for m in units if m._flat_param is not None]
        print("V1_UNITS", len(units), "FLAT", len(flat), "GRADS", sum(f.grad is not None for f in flat),
              "NUMEL", [f.numel() for f in flat])
        m2 = net()
        for block in m2:
            fully_shard(block)
        fully_shard(m2)
        m2(torch.randn(2, 4)).sum().backward()
        grads = [type(p.grad).__name__ for p in m2.parameters()]
        print("V2_PARAMS", len(grads), "GRAD_TYPES", sorted(set(grads)))
        dist.destroy_process_group()
    """, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # FSDP1: the root plus one unit per Block; each unit's parameters (2 x (16 + 4) = 40) are one FlatParameter with
    # one flat gradient (the root owns no parameter of its own here)
    assert "V1_UNITS 3 FLAT 2 GRADS 2 NUMEL [40, 40]" in proc.stdout, proc.stdout
    # FSDP2: every parameter keeps its own (sharded) gradient
    assert "V2_PARAMS 8 GRAD_TYPES ['DTensor']" in proc.stdout, proc.stdout


@pytest.mark.claim("ds-auto-outside-the-list-raises")
def test_an_auto_value_accelerate_does_not_fill_raises():
    from accelerate.utils import DeepSpeedPlugin

    ds = {"train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": 1,
          "zero_optimization": {"stage": 2},
          "optimizer": {"type": "AdamW", "params": {"lr": "auto", "eps": "auto"}}}
    plugin = DeepSpeedPlugin(hf_ds_config=ds)
    # what _prepare_deepspeed passes for a DummyOptim and a dataloader: lr is on the list, eps is not
    filled = {"train_micro_batch_size_per_gpu": 4, "optimizer.params.lr": 1e-3, "optimizer.params.weight_decay": 0.0}
    with pytest.raises(ValueError, match="optimizer.params.eps. not found in kwargs"):
        plugin.deepspeed_config_process(must_match=False, **filled)
    ds["optimizer"]["params"]["eps"] = 1e-8
    plugin = DeepSpeedPlugin(hf_ds_config=ds)
    plugin.deepspeed_config_process(must_match=False, **filled)
    assert plugin.deepspeed_config["optimizer"]["params"]["lr"] == 1e-3


_OWN_LOOP_AUTO = {  # every "auto" an own loop's prepare() fills, and what it becomes in this run
    "train_micro_batch_size_per_gpu": 2, "train_batch_size": 2, "gradient_accumulation_steps": 1,
    "gradient_clipping": 1.0, "bf16.enabled": True,
    "optimizer.params.lr": 0.01, "optimizer.params.weight_decay": 0.1,
    "scheduler.params.warmup_min_lr": 0, "scheduler.params.warmup_max_lr": 0.01,
    "scheduler.params.warmup_num_steps": 3, "scheduler.params.total_num_steps": 20,
    "zero_optimization.stage": 2, "zero_optimization.offload_optimizer.device": "none",
    "zero_optimization.offload_param.device": "none", "zero_optimization.offload_optimizer.nvme_path": "none",
    "zero_optimization.offload_param.nvme_path": "none",
    "zero_optimization.stage3_gather_16bit_weights_on_model_save": False,
}


@pytest.fixture(scope="module")
def own_loop_filled(tmp_path_factory):
    """One own-loop prepare() of a JSON with every value of _OWN_LOOP_AUTO written "auto" (DummyOptim and
    DummyScheduler in the script, as accelerate asks when the JSON has both blocks); returns the config the engine
    was built from."""
    return run_ds("""
        from accelerate.utils import DummyOptim, DummyScheduler
        cfg = {"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
               "gradient_accumulation_steps": "auto", "gradient_clipping": "auto", "bf16": {"enabled": "auto"},
               "zero_optimization": {"stage": "auto",
                                     "offload_optimizer": {"device": "auto", "nvme_path": "auto"},
                                     "offload_param": {"device": "auto", "nvme_path": "auto"},
                                     "stage3_gather_16bit_weights_on_model_save": "auto"},
               "optimizer": {"type": "AdamW", "params": {"lr": "auto", "weight_decay": "auto", "torch_adam": True}},
               "scheduler": {"type": "WarmupDecayLR",
                             "params": {"warmup_min_lr": "auto", "warmup_max_lr": "auto",
                                        "warmup_num_steps": "auto", "total_num_steps": "auto"}}}
        acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(hf_ds_config=cfg), mixed_precision="bf16",
                          kwargs_handlers=GLOO)
        m = torch.nn.Linear(4, 4)
        opt = DummyOptim(m.parameters(), lr=0.01, weight_decay=0.1)
        engine, opt, dl, sched = acc.prepare(m, opt, loader(),
                                             DummyScheduler(opt, total_num_steps=20, warmup_num_steps=3))
        report(config=acc.state.deepspeed_plugin.deepspeed_config, engine=type(engine).__name__)
    """, tmp_path_factory.mktemp("own_loop_auto"), timeout=400)


@pytest.mark.claim("ds-own-loop-fills-auto")
@pytest.mark.parametrize("loop", ["own-loop"])  # the claim's scope; the Trainer fills them from its arguments
@pytest.mark.parametrize("path", list(_OWN_LOOP_AUTO), ids=list(_OWN_LOOP_AUTO))
def test_an_own_loop_fills_each_listed_auto_value(own_loop_filled, path, loop):
    """Wider than the micro-batch, accumulation, clipping, precision and buckets: the total batch, the optimizer's
    lr and weight decay (DummyOptim), the scheduler's four values (DummyScheduler) and the plugin's stage, offload
    devices, NVMe paths and 16-bit gather are filled too, and prepare() builds the engine."""
    assert own_loop_filled["engine"] == "DeepSpeedEngine"
    value = own_loop_filled["config"]
    for part in path.split("."):
        value = value[part]
    assert value == _OWN_LOOP_AUTO[path], (path, value)


@pytest.mark.claim("trainer-fills-more-auto")
def test_the_trainer_fills_the_optimizer_eps(tmp_path):
    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    ds = {"train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
          "zero_optimization": {"stage": 2},
          "optimizer": {"type": "AdamW", "params": {"lr": "auto", "eps": "auto", "betas": "auto"}}}
    config = HfTrainerDeepSpeedConfig(ds)
    args = TrainingArguments(output_dir=str(tmp_path), adam_epsilon=1e-7, adam_beta1=0.8, use_cpu=True)
    config.trainer_config_process(args)
    params = config.config["optimizer"]["params"]
    assert params["eps"] == 1e-7 and list(params["betas"]) == [0.8, 0.999]
