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
@pytest.mark.parametrize("stage", [pytest.param(0, id="zero-0"), pytest.param(1, id="zero-1"),
                                   pytest.param(2, id="zero-2"), pytest.param(3, id="zero-3")])
def test_overlap_comm_defaults_by_stage(stage):
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    assert DeepSpeedZeroConfig(stage=stage).overlap_comm is (stage == 3)  # left unset
    assert DeepSpeedZeroConfig(stage=stage, overlap_comm=stage != 3).overlap_comm is (stage != 3)  # as written


@pytest.mark.claim("ds-contiguous-gradients-default")
@pytest.mark.claim("ds-bucket-defaults")
@pytest.mark.parametrize("case", ["contiguous-default-on", "contiguous-json-off", "reduce-bucket-size",
                                  "allgather-bucket-size", "sub-group-size"])
def test_zero_option_defaults(case):
    from deepspeed.runtime.config import DeepSpeedConfig

    def zero(**keys):
        return DeepSpeedConfig({"train_micro_batch_size_per_gpu": 1,
                                "zero_optimization": {"stage": 3, **keys}}).zero_config

    if case == "contiguous-default-on":
        assert zero().contiguous_gradients is True
    elif case == "contiguous-json-off":
        assert zero(contiguous_gradients=False).contiguous_gradients is False
    elif case == "reduce-bucket-size":
        assert zero().reduce_bucket_size == 500_000_000
    elif case == "allgather-bucket-size":
        assert zero().allgather_bucket_size == 500_000_000
    else:
        assert zero().sub_group_size == 1_000_000_000


@pytest.fixture(scope="module")
def auto_buckets():
    """prepare() of a JSON with the three hidden-size keys "auto": a bare Linear (no config), one whose config has
    no hidden size, one with hidden_size 8."""
    proc = one_rank("""
        import types, torch
        from accelerate import Accelerator
        from accelerate.utils import DeepSpeedPlugin, InitProcessGroupKwargs
        ds = {"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1,
              "zero_optimization": {"stage": 1, "reduce_bucket_size": "auto",
                                    "stage3_prefetch_bucket_size": "auto",
                                    "stage3_param_persistence_threshold": "auto"}}
        acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(hf_ds_config=ds),
                          kwargs_handlers=[InitProcessGroupKwargs(backend="gloo")])
        bare = torch.nn.Linear(8, 8)
        try:
            acc.prepare(bare, torch.optim.AdamW(bare.parameters()))
        except ValueError as e:
            print("NO_CONFIG", "model.config" in str(e))
        sizeless = torch.nn.Linear(8, 8)
        sizeless.config = types.SimpleNamespace(vocab_size=8)
        try:
            acc.prepare(sizeless, torch.optim.AdamW(sizeless.parameters()))
        except ValueError as e:
            print("NO_HIDDEN_SIZE", "hidden_size" in str(e))
        model = torch.nn.Linear(8, 8)
        model.config = types.SimpleNamespace(hidden_size=8)
        model, opt = acc.prepare(model, torch.optim.AdamW(model.parameters()))
        zero = acc.deepspeed_plugin.deepspeed_config["zero_optimization"]
        print("FILLED", zero["reduce_bucket_size"], zero["stage3_prefetch_bucket_size"],
              zero["stage3_param_persistence_threshold"])
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.claim("ds-auto-buckets-from-hidden-size")
@pytest.mark.parametrize("case", ["reduce-bucket-size", "prefetch-bucket-size", "persistence-threshold",
                                  "no-config-raises", "no-hidden-size-raises"])
def test_auto_buckets_come_from_the_models_hidden_size(auto_buckets, case):
    filled = next(line.split()[1:] for line in auto_buckets.splitlines() if line.startswith("FILLED"))
    if case == "reduce-bucket-size":
        assert filled[0] == "64"  # 8 * 8
    elif case == "prefetch-bucket-size":
        assert filled[1] == "57"  # int(0.9 * 64)
    elif case == "persistence-threshold":
        assert filled[2] == "80"  # 10 * 8
    elif case == "no-config-raises":
        assert "NO_CONFIG True" in auto_buckets
    else:
        assert "NO_HIDDEN_SIZE True" in auto_buckets


_JSON_OWNS = {  # case -> the YAML key next to a deepspeed_config_file, its value, and whether the plugin raises
    "accumulation": ("gradient_accumulation_steps", 4, True), "clipping": ("gradient_clipping", 1.0, True),
    "stage": ("zero_stage", 2, True), "optimizer-device": ("offload_optimizer_device", "cpu", True),
    "param-device": ("offload_param_device", "cpu", True),
    "optimizer-nvme-path": ("offload_optimizer_nvme_path", "/nvme", True),
    "param-nvme-path": ("offload_param_nvme_path", "/nvme", True),
    "save-16bit": ("zero3_save_16bit_model", True, True), "mixed-precision": ("mixed_precision", "bf16", True),
    "init-flag-allowed": ("zero3_init_flag", True, False),
    "moe-allowed": ("deepspeed_moe_layer_cls_names", "Block", False),
    "launcher-allowed": ("deepspeed_multinode_launcher", "pdsh", False),
    "hostfile-allowed": ("deepspeed_hostfile", "/job/hostfile", False),
}


@pytest.mark.claim("ds-json-owns-its-keys")
@pytest.mark.parametrize("case", list(_JSON_OWNS))
def test_yaml_keys_next_to_a_json_file_raise(tmp_path, monkeypatch, case):
    from accelerate.utils import DeepSpeedPlugin

    ds_json = tmp_path / "ds.json"
    ds_json.write_text(json.dumps({"zero_optimization": {"stage": 2}, "train_micro_batch_size_per_gpu": "auto"}))
    key, value, raises = _JSON_OWNS[case]
    config = ds_yaml(ds_json) if key == "mixed_precision" else ds_yaml(ds_json, **{key: value})
    if key == "mixed_precision":  # a top-level key of the accelerate config
        config["mixed_precision"] = value
    env = ds_launch_env(tmp_path, config)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    if raises:
        with pytest.raises(ValueError, match="deepspeed_config_file"):
            DeepSpeedPlugin()
    else:
        assert DeepSpeedPlugin().zero_stage == 2  # taken from the file


@pytest.mark.claim("ds-inline-unknown-dropped")
@pytest.mark.parametrize("key, value, marker", [("train_micro_batch_size_per_gpu", 7, "MICRO"),
                                                ("overlap_comm", True, "OVERLAP")],
                         ids=["train_micro_batch_size_per_gpu", "overlap_comm"])
def test_unknown_inline_keys_never_reach_the_processes(tmp_path, key, value, marker):
    config = ds_yaml(tmp_path / "unused.json")
    del config["deepspeed_config"]["deepspeed_config_file"]
    config["deepspeed_config"].update({"zero_stage": 2, key: value})
    env = ds_launch_env(tmp_path, config)
    assert env["ACCELERATE_DEEPSPEED_ZERO_STAGE"] == "2"  # a known key is exported
    new = {k: v for k, v in env.items() if k not in os.environ or os.environ[k] != v}
    assert not [k for k, v in new.items() if marker in k or v == str(value)], new


_TYPOS = {  # section -> (a typo in it, the same key spelled right)
    "zero_optimization": ({"zero_optimization": {"stage": 2, "overlap_com": True}},
                          {"zero_optimization": {"stage": 2, "overlap_comm": True}}),
    "offload_optimizer": ({"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu", "pin_memroy": 1}}},
                          {"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu", "pin_memory": 1}}}),
    "fp16": ({"fp16": {"enabled": True, "loss_scal": 0}}, {"fp16": {"enabled": True, "loss_scale": 0}}),
}


@pytest.mark.claim("ds-sections-forbid-unknown-keys")
@pytest.mark.parametrize("section", list(_TYPOS), ids=list(_TYPOS))
def test_unknown_keys_in_zero_optimization_raise(section):
    from deepspeed.runtime.config import DeepSpeedConfig

    typo, right = _TYPOS[section]
    with pytest.raises(Exception, match="Extra inputs are not permitted"):
        DeepSpeedConfig({"train_micro_batch_size_per_gpu": 1, **typo})
    DeepSpeedConfig({"train_micro_batch_size_per_gpu": 1, **right})


@pytest.mark.claim("ds-removed-blocks-raise")
@pytest.mark.parametrize("block", ["amp", "sparse_attention", "elasticity"])
def test_blocks_of_removed_features_raise(block):
    from deepspeed.runtime.config import DeepSpeedConfig, DeepSpeedConfigError

    with pytest.raises(DeepSpeedConfigError, match="removed"):
        DeepSpeedConfig({"train_micro_batch_size_per_gpu": 1, block: {"enabled": True}})


@pytest.fixture(scope="module")
def optimizer_json_and_script():
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
    return proc.stdout


@pytest.mark.claim("ds-optimizer-json-and-script")
@pytest.mark.parametrize("case", ["optimizer", "scheduler", "checked-in-prepare"])
def test_an_optimizer_in_the_json_and_in_the_script_raises(optimizer_json_and_script, case):
    out = optimizer_json_and_script
    if case == "optimizer":
        assert "OPTIMIZER True True" in out  # the message names DummyOptim
    elif case == "scheduler":
        assert "SCHEDULER True True" in out  # the message names DummyScheduler
    else:
        assert "BUILT" in out


@pytest.fixture(scope="module")
def fsdp_units():
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
        groups = [b._get_fsdp_state()._fsdp_param_group for b in m2]
        print("V2_GROUPS", [len(g.fsdp_params) for g in groups], "ROOT", m2._get_fsdp_state()._fsdp_param_group)
        dist.destroy_process_group()
    """, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.mark.claim("fsdp-collectives-per-unit")
@pytest.mark.claim("fsdp1-flat-gradients")
@pytest.mark.parametrize("case", ["fsdp1-unit-collective", "fsdp2-unit-collective", "fsdp1-flat-gradient",
                                  "fsdp2-per-parameter-gradient"])
def test_fsdp1_keeps_one_flat_parameter_and_gradient_per_unit(fsdp_units, case):
    out = fsdp_units
    if case == "fsdp1-unit-collective":
        # the root plus one unit per Block; each unit's parameters (2 x (16 + 4) = 40) are one FlatParameter, the
        # tensor its all-gather and reduce-scatter move (the root owns no parameter of its own here)
        assert "V1_UNITS 3 FLAT 2" in out and "NUMEL [40, 40]" in out, out
    elif case == "fsdp2-unit-collective":
        # one parameter group per fully_shard call, holding that Block's 4 parameters: one collective per group
        assert "V2_GROUPS [4, 4] ROOT None" in out, out
    elif case == "fsdp1-flat-gradient":
        assert "FLAT 2 GRADS 2" in out, out  # one flat gradient per unit
    else:
        assert "V2_PARAMS 8 GRAD_TYPES ['DTensor']" in out, out  # every parameter keeps its own sharded gradient


@pytest.mark.claim("ds-auto-outside-the-list-raises")
@pytest.mark.parametrize("case", ["betas", "eps", "listed-value-filled"])
def test_an_auto_value_accelerate_does_not_fill_raises(case):
    from accelerate.utils import DeepSpeedPlugin

    params = {"lr": "auto", "betas": [0.9, 0.999], "eps": 1e-8}
    if case != "listed-value-filled":
        params[case] = "auto"
    ds = {"train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": 1,
          "zero_optimization": {"stage": 2}, "optimizer": {"type": "AdamW", "params": params}}
    plugin = DeepSpeedPlugin(hf_ds_config=ds)
    # what _prepare_deepspeed passes for a DummyOptim and a dataloader: lr is on the list, betas and eps are not
    filled = {"train_micro_batch_size_per_gpu": 4, "optimizer.params.lr": 1e-3, "optimizer.params.weight_decay": 0.0}
    if case == "listed-value-filled":
        plugin.deepspeed_config_process(must_match=False, **filled)
        assert plugin.deepspeed_config["optimizer"]["params"]["lr"] == 1e-3
    else:
        with pytest.raises(ValueError, match=f"optimizer.params.{case}. not found in kwargs"):
            plugin.deepspeed_config_process(must_match=False, **filled)


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
@pytest.mark.parametrize("key", ["betas", "eps"])
def test_the_trainer_fills_the_optimizer_eps(tmp_path, key):
    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    ds = {"train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
          "zero_optimization": {"stage": 2},
          "optimizer": {"type": "AdamW", "params": {"lr": "auto", "eps": "auto", "betas": "auto"}}}
    config = HfTrainerDeepSpeedConfig(ds)
    args = TrainingArguments(output_dir=str(tmp_path), adam_epsilon=1e-7, adam_beta1=0.8, use_cpu=True)
    config.trainer_config_process(args)
    params = config.config["optimizer"]["params"]
    if key == "eps":
        assert params["eps"] == 1e-7
    else:
        assert list(params["betas"]) == [0.8, 0.999]
