"""Claims about the training loop: accumulation, clipping, batch sizes, activation-checkpoint offload, checkpoints
(wizard/core/claims/training.py).

Three demonstrations run once per session and several claims read their results: accelerate FSDP on two gloo ranks
(tests/claims/_training_cpu.py, built on _fsdp_cpu.py and its CPU shim), accelerate DeepSpeed on one gloo rank
(tests/claims/_training_ds_body.py through gloo_ranks.run_ds), and the HF Trainer on the CPU in this process.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from gloo_ranks import run_ds, run_ranks
from launch_support import BASE, Launch, ds_base

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def fsdp(tmp_path_factory):
    """Both ranks' results of _training_cpu.py, and the folder its FSDP2 save_state wrote."""
    out_dir = tmp_path_factory.mktemp("fsdp")
    out: dict = run_ranks(HERE / "_training_cpu.py", world=2, timeout=240, TRAINING_OUT=str(out_dir))
    out["dir"] = out_dir
    return out


@pytest.fixture(scope="module")
def ds(tmp_path_factory):
    return run_ds((HERE / "_training_ds_body.py").read_text(encoding="utf-8"), tmp_path_factory.mktemp("ds"))


# ------------------------------------------------------------------------------------------------ accumulation
@pytest.mark.claim("fsdp-accumulate-keeps-unsharded-grads")
@pytest.mark.parametrize("case", ["v1_each_False", "v1_each_True", "v2_each_False", "v2_each_True"],
                         ids=["fsdp1", "fsdp1-sync-each-batch", "fsdp2", "fsdp2-sync-each-batch"])
def test_fsdp_accumulation_skips_the_reduce_scatter_unless_sync_each_batch(fsdp, case):
    for rank in (0, 1):
        r = fsdp[rank]["accumulation"][case]
        if case == "v1_each_False":  # the unit's gradient: unsharded flat size (72) between steps, shard (36) after
            assert r["first"]["grad_numel"] == 72 == r["first"]["unsharded_numel"]
            assert r["second"]["grad_numel"] == 36 == r["second"]["flat_numel"]
        elif case == "v1_each_True":
            assert r["first"]["grad_numel"] == 36  # sync_each_batch: reduced every micro-batch
        elif case == "v2_each_False":  # no sharded gradient yet, the unsharded one kept; after the step the shard
            assert r["first"] == {"grad": None, "unsharded_grad": [8, 8], "full": [8, 8]}
            assert r["second"]["grad"] == [4, 8]  # half of 8 rows
        else:
            assert r["first"]["grad"] == [4, 8] and r["first"]["unsharded_grad"] is None


@pytest.mark.claim("ds-accumulate-drives-the-engine-step")
@pytest.mark.parametrize("where", ["outside-accumulate", "inside-accumulate"])
def test_deepspeed_steps_where_accelerate_says(ds, where):
    if where == "outside-accumulate":
        assert ds["steps_without_accumulate"] == 4  # JSON count 4, but every backward outside accumulate() stepped
    else:
        assert ds["steps_after_accumulate"] == 5  # four micro-batches in accumulate(): one step


@pytest.mark.claim("launch-accumulation-and-clipping-deepspeed-only")
@pytest.mark.parametrize("backend", ["fsdp", "deepspeed"])
def test_only_the_deepspeed_launcher_exports_accumulation_and_clipping(tmp_path, backend):
    if backend == "fsdp":
        flags = ("--gradient_accumulation_steps", "4", "--gradient_clipping", "0.5")
        fsdp = Launch(tmp_path, BASE, flags=flags)
        assert "ACCELERATE_GRADIENT_ACCUMULATION_STEPS" not in fsdp.env
        assert "ACCELERATE_GRADIENT_CLIPPING" not in fsdp.env
    else:
        deepspeed = Launch(tmp_path, ds_base(gradient_accumulation_steps=4, gradient_clipping=0.5))
        assert deepspeed.env["ACCELERATE_GRADIENT_ACCUMULATION_STEPS"] == "4"
        assert deepspeed.env["ACCELERATE_GRADIENT_CLIPPING"] == "0.5"


def _trainer(tmp_path, **kw):
    import torch
    from transformers import Trainer, TrainingArguments

    class Tiny(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 1)

        def forward(self, x, labels=None):
            return {"loss": (self.fc(x).squeeze(-1) * 10.0 - labels).pow(2).mean()}

    data = [{"x": torch.full((4,), float(i)), "labels": torch.tensor(0.0)} for i in range(8)]
    model = Tiny()
    args = TrainingArguments(str(tmp_path / "out"), use_cpu=True, per_device_train_batch_size=2, max_steps=1,
                             report_to=[], save_strategy="no", logging_strategy="no", **kw)
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    return Trainer(model=model, args=args, train_dataset=data, optimizers=(opt, None)), model


@pytest.mark.claim("trainer-counts-accumulation-and-clips")
@pytest.mark.parametrize("case", ["accelerator-gets-1", "no-sync-by-default", "sync-each-batch", "clips",
                                  "max-grad-norm-0"])
def test_the_trainer_counts_accumulation_itself_and_clips_with_max_grad_norm(tmp_path, fresh_state, case):
    each = case == "sync-each-batch"
    kw = {"accelerator_config": {"gradient_accumulation_kwargs": {"sync_each_batch": True}}} if each else {}
    trainer, model = _trainer(tmp_path, gradient_accumulation_steps=4,
                              max_grad_norm=0.0 if case == "max-grad-norm-0" else 0.001, **kw)
    acc = trainer.accelerator
    no_sync, clip = acc.no_sync, acc.clip_grad_norm_
    calls = {"no_sync": 0, "max_norm": []}

    def counted_no_sync(*args, **kwargs):  # spies: count, then run accelerate's own
        calls["no_sync"] += 1
        return no_sync(*args, **kwargs)

    def recorded_clip(parameters, max_norm, *args, **kwargs):
        calls["max_norm"].append(max_norm)
        return clip(parameters, max_norm, *args, **kwargs)

    acc.no_sync, acc.clip_grad_norm_ = counted_no_sync, recorded_clip
    before = [p.detach().clone() for p in model.parameters()]
    trainer.train()
    moved = sum((p.detach() - b).pow(2).sum() for p, b in zip(model.parameters(), before, strict=True)).sqrt().item()
    if case == "accelerator-gets-1":
        assert acc.gradient_accumulation_steps == 1  # the Accelerator is told 1
        assert trainer.state.global_step == 1  # four micro-batches, one optimizer step
    elif case == "no-sync-by-default":
        assert calls["no_sync"] == 3  # the first three of the four micro-batches
    elif case == "sync-each-batch":
        assert acc.gradient_state.plugin_kwargs["sync_each_batch"] is True and calls["no_sync"] == 0
    elif case == "clips":
        assert calls["max_norm"] == [0.001]
        assert moved == pytest.approx(0.001, rel=1e-3)  # SGD lr 1: the update is the clipped gradient
    else:  # 0: no clipping, the call only measures the norm
        assert calls["max_norm"] == [float("inf")] and moved > 0.01


_TRAINER_MISMATCH = {  # a concrete DeepSpeed value, and the line the Trainer's ValueError gives for it
    "micro-batch": ({"train_micro_batch_size_per_gpu": 3}, "train_micro_batch_size_per_gpu=3 vs hf "
                                                           "per_device_train_batch_size=2"),
    "accumulation": ({"gradient_accumulation_steps": 1}, "gradient_accumulation_steps=1 vs hf "
                                                         "gradient_accumulation_steps=4"),
    "train-batch-size": ({"train_batch_size": 5}, "train_batch_size=5 vs hf "),
    "clipping": ({"gradient_clipping": 0.0}, "gradient_clipping=0.0 vs hf max_grad_norm=1.0"),
}


@pytest.mark.claim("trainer-ds-values-must-match-arguments")
@pytest.mark.parametrize("case", ["micro-batch", "accumulation", "train-batch-size", "clipping", "auto"])
def test_trainer_refuses_deepspeed_values_that_differ_from_its_arguments(tmp_path, fresh_state, case):
    import torch
    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    args = TrainingArguments(str(tmp_path / "out"), use_cpu=True, per_device_train_batch_size=2,
                             gradient_accumulation_steps=4, max_grad_norm=1.0, report_to=[])
    model = torch.nn.Linear(4, 4)
    auto = {"train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
            "train_batch_size": "auto", "gradient_clipping": "auto", "zero_optimization": {"stage": 1}}
    if case == "auto":
        cfg = HfTrainerDeepSpeedConfig(auto)
        cfg.trainer_config_process(args)
        cfg.trainer_config_finalize(args, model, 10)
        assert (cfg.config["train_micro_batch_size_per_gpu"], cfg.config["gradient_accumulation_steps"],
                cfg.config["train_batch_size"], cfg.config["gradient_clipping"]) == (2, 4, 8, 1.0)
        return
    value, line = _TRAINER_MISMATCH[case]
    fixed = HfTrainerDeepSpeedConfig({**auto, **value})  # this one key concrete and different, the rest auto
    fixed.trainer_config_process(args)
    with pytest.raises(ValueError) as err:
        fixed.trainer_config_finalize(args, model, 10)
    assert line in str(err.value)


@pytest.mark.claim("trainer-precision-and-schedule-match-arguments")
@pytest.mark.parametrize("case", ["bf16-differs", "fp16-differs", "full-eval", "total-steps", "warmup-steps",
                                  "no-section"])
def test_trainer_matches_precision_and_the_schedule_against_its_arguments(tmp_path, fresh_state, case):
    import torch
    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    def finalize(ds: dict, steps: int = 50, **kw):
        args = TrainingArguments(str(tmp_path / "out"), use_cpu=True, report_to=[], **kw)
        cfg = HfTrainerDeepSpeedConfig({"train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 1},
                                        **ds})
        cfg.trainer_config_process(args)
        cfg.trainer_config_finalize(args, torch.nn.Linear(2, 2), steps)
        return cfg.config

    sched = {"type": "WarmupDecayLR", "params": {"total_num_steps": "auto", "warmup_num_steps": "auto"}}
    if case == "bf16-differs":
        with pytest.raises(ValueError, match="mismatch TrainingArguments") as err:
            finalize({"bf16": {"enabled": False}}, bf16=True)
        assert "bf16.enabled=False vs hf bf16|bf16_full_eval=True" in str(err.value)
    elif case == "fp16-differs":
        with pytest.raises(ValueError, match="fp16.enabled=True vs hf fp16"):
            finalize({"fp16": {"enabled": True}})
    elif case == "full-eval":  # bf16_full_eval alone makes the Trainer's value true: a true JSON passes
        assert finalize({"bf16": {"enabled": True}}, bf16_full_eval=True)["bf16"]["enabled"] is True
    elif case == "total-steps":
        assert finalize({"scheduler": sched}, steps=50)["scheduler"]["params"]["total_num_steps"] == 50
        with pytest.raises(ValueError, match="total_num_steps=70 vs hf num_training_steps"):
            finalize({"scheduler": {**sched, "params": {"total_num_steps": 70}}}, steps=50)
    elif case == "warmup-steps":  # warmup_steps below 1 is a fraction of the steps; no warm-up still fills 1
        assert finalize({"scheduler": sched}, steps=50, warmup_steps=0.1)["scheduler"]["params"][
            "warmup_num_steps"] == 5
        assert finalize({"scheduler": sched}, steps=50)["scheduler"]["params"]["warmup_num_steps"] == 1
        with pytest.raises(ValueError, match="warmup_num_steps=3 vs hf warmup_steps=5"):
            finalize({"scheduler": {**sched, "params": {"warmup_num_steps": 3}}}, steps=50, warmup_steps=5)
    else:  # no bf16 section: nothing compared even with bf16=True
        assert "bf16" not in finalize({}, bf16=True)


@pytest.mark.claim("trainer-lr-and-warmup-max-lr-match-learning-rate")
@pytest.mark.parametrize("case", ["optimizer-lr-differs", "warmup-max-lr-differs", "auto", "equal", "betas", "eps",
                                  "weight-decay"])
def test_trainer_matches_both_learning_rates_against_one_argument(tmp_path, fresh_state, case):
    import torch
    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    model = torch.nn.Linear(4, 4)

    def finalize(lr, top, learning_rate, **params):
        args = TrainingArguments(str(tmp_path / "out"), use_cpu=True, learning_rate=learning_rate, adam_beta1=0.8,
                                 adam_beta2=0.95, adam_epsilon=1e-6, weight_decay=0.1, report_to=[])
        cfg = HfTrainerDeepSpeedConfig({"train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 1},
                                        "optimizer": {"type": "AdamW", "params": {"lr": lr, "betas": "auto",
                                                                                  "eps": "auto", **params}},
                                        "scheduler": {"type": "WarmupLR", "params": {"warmup_max_lr": top}}})
        cfg.trainer_config_process(args)
        cfg.trainer_config_finalize(args, model, 10)
        return cfg.config

    if case.endswith("differs"):  # lr 1e-4 and warmup_max_lr 2e-5: whichever argument is passed, one differs
        learning_rate = 2e-5 if case == "optimizer-lr-differs" else 1e-4
        with pytest.raises(ValueError, match="mismatch TrainingArguments") as err:
            finalize(1e-4, 2e-5, learning_rate)
        assert "learning_rate" in str(err.value)
    elif case == "auto":
        filled = finalize("auto", "auto", 3e-5)
        assert filled["optimizer"]["params"]["lr"] == filled["scheduler"]["params"]["warmup_max_lr"] == 3e-5
    elif case == "equal":
        assert finalize(1e-4, 1e-4, 1e-4)["optimizer"]["params"]["lr"] == 1e-4  # equal concrete values pass
    else:  # betas, eps, weight_decay: 'auto' takes adam_beta1/2, adam_epsilon, weight_decay; another number fails
        key, hf, other, hf_name = {"betas": ("betas", [0.8, 0.95], [0.9, 0.999], "adam_beta1+adam_beta2"),
                                   "eps": ("eps", 1e-6, 1e-8, "adam_epsilon"),
                                   "weight-decay": ("weight_decay", 0.1, 0.0, "weight_decay")}[case]
        assert finalize(1e-4, 1e-4, 1e-4, **{key: "auto"})["optimizer"]["params"][key] == hf
        assert finalize(1e-4, 1e-4, 1e-4, **{key: hf})["optimizer"]["params"][key] == hf  # an equal value passes
        with pytest.raises(ValueError, match="mismatch TrainingArguments") as err:
            finalize(1e-4, 1e-4, 1e-4, **{key: other})
        assert f"vs hf {hf_name}=" in str(err.value)

# ------------------------------------------------------------------------------------------------ clipping
@pytest.mark.claim("fsdp-clip-grad-norm-over-shards")
@pytest.mark.parametrize("version", ["v1", "v2"], ids=["fsdp1", "fsdp2"])
def test_fsdp_clip_grad_norm_clips_over_all_shards(fsdp, version):
    for rank in (0, 1):
        c = fsdp[rank]["clipping"]
        assert c[version]["returned"] == pytest.approx(c["reference_norm"], rel=1e-5)  # the whole model's norm
        assert c[version]["after"] == pytest.approx(0.5, rel=1e-5)  # over both ranks' shards
        assert "do not support `clip_grad_value_`" in c[version]["value"]


@pytest.mark.claim("ds-clip-grad-norm-only-reports")
@pytest.mark.parametrize("case", ["returns-engine-norm", "max-norm-ignored", "engine-clips"])
def test_deepspeed_clip_grad_norm_returns_the_engines_norm(ds, case):
    if case == "returns-engine-norm":
        assert ds["returned"] == pytest.approx(ds["engine_norm"])  # the norm of the step already taken
    elif case == "max-norm-ignored":
        assert ds["json_zero"] == 0.0  # the engine itself does not clip in this run
        assert ds["update_norm"] == pytest.approx(80.0)  # SGD lr 1, unclipped: max_norm 1e-6 was not applied
    else:
        assert ds["clipped_update_norm"] == pytest.approx(0.01, rel=1e-3)  # the engine clips to gradient_clipping


@pytest.mark.claim("ds-gradient-clipping-on-unless-json-zero")
@pytest.mark.parametrize("case", ["inline-zero", "inline-missing", "json-missing", "json-zero"])
def test_clipping_stays_on_unless_a_json_says_zero(ds, case):
    if case == "inline-zero":
        assert ds["inline_zero_in_config"] is False and ds["inline_zero"] == 1.0  # 0 dropped, DeepSpeed's 1.0
    elif case == "inline-missing":
        assert ds["inline_missing_in_config"] == "auto" and ds["inline_missing"] == 1.0  # auto filled with 1.0
    elif case == "json-missing":
        assert ds["json_missing"] == 1.0  # DeepSpeed's default
    else:
        assert ds["json_zero"] == 0.0


# ------------------------------------------------------------------------------------------------ batch size
@pytest.mark.claim("ds-micro-batch-auto-from-dataloader")
@pytest.mark.parametrize("case", ["inline-auto", "from-dataloader", "no-dataloader", "fixed-train-batch-size"])
def test_auto_micro_batch_comes_from_the_dataloader(ds, case):
    from accelerate.utils import DeepSpeedPlugin

    if case == "inline-auto":
        assert DeepSpeedPlugin(zero_stage=2).deepspeed_config["train_micro_batch_size_per_gpu"] == "auto"
    elif case == "from-dataloader":
        assert ds["micro_from_loader"] == 3
    elif case == "no-dataloader":
        assert "dataloaders" in ds["no_loader"]
    else:
        assert ds["fixed_total"].startswith("AssertionError: Check batch related parameters")
        assert "16 != 2 * 1 * 1" in ds["fixed_total"]  # 16 kept, the pieces filled from the DataLoader


@pytest.mark.claim("fsdp-knows-no-batch-size")
@pytest.mark.parametrize("where", ["plugin", "launch-env"])
def test_fsdp_has_no_batch_size(tmp_path, where):
    from accelerate.utils import FullyShardedDataParallelPlugin

    if where == "plugin":
        assert not [f for f in FullyShardedDataParallelPlugin.__dataclass_fields__ if "batch" in f]
    else:
        assert not [k for k in Launch(tmp_path, BASE).env if "BATCH" in k]


# ------------------------------------------------------------------------------------------------ checkpointing
@pytest.mark.claim("fsdp2-ac-offload-wrapper")
@pytest.mark.usefixtures("clean_env")
@pytest.mark.parametrize("case", ["without-checkpointing", "fsdp1", "fsdp2-wrapper"])
def test_activation_checkpoint_offload_is_an_fsdp2_offload_wrapper(fsdp, case):
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin

    if case == "without-checkpointing":
        with pytest.raises(ValueError, match="requires `activation_checkpointing=True`"):
            Plugin(fsdp_version=2, activation_checkpointing_offload=True)
        return
    if case == "fsdp1":
        with pytest.raises(ValueError, match="requires `fsdp_version=2`"):
            Plugin(fsdp_version=1, activation_checkpointing=True, activation_checkpointing_offload=True)
        return
    o = fsdp[0]["offload"]
    assert o["is_offload"] and o["inner_is_checkpoint"]  # OffloadWrapper(checkpoint wrapper(block))
    assert o["innermost"] == "FSDPBlock"


@pytest.mark.claim("ds-activation-checkpointing-section-api-only")
@pytest.mark.parametrize("who", ["engine", "accelerate-plugin"])
def test_the_engine_never_configures_deepspeed_checkpointing(ds, who):
    if who == "engine":
        assert ds["ds_ckpt"] == {"cpu": False, "partition": False, "configured": False}
    else:
        assert ds["plugin_fields_ac"] == []  # no accelerate switch for DeepSpeed


@pytest.mark.claim("fsdp-merge-weights-full-file")
@pytest.mark.parametrize("folder", ["state_v1", "state"], ids=["fsdp1", "fsdp2"])
def test_merge_weights_turns_a_sharded_folder_into_one_file(fsdp, tmp_path, folder):
    from accelerate.utils import merge_fsdp_weights
    from safetensors.torch import load_file

    merge_fsdp_weights(str(fsdp["dir"] / folder / "pytorch_model_fsdp_0"), str(tmp_path / "merged"))
    files = sorted(os.listdir(tmp_path / "merged"))
    assert files == ["model.safetensors"]
    sd = load_file(str(tmp_path / "merged" / files[0]))
    assert list(sd["head.weight"].shape) == [2, 8]  # the full tensor, both ranks' halves


@pytest.mark.claim("ds-checkpoint-16bit-weights-fp32-master-script")
@pytest.mark.parametrize("stage", [1, 2], ids=["zero-1", "zero-2"])
def test_a_bf16_checkpoint_holds_16bit_weights_fp32_masters_and_the_script(ds, stage):
    c = ds[f"ckpt{stage}"]
    assert "zero_to_fp32.py" in c["top"] and "latest" in c["top"]
    assert c["optim_files"] == ["bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt"]  # one per rank
    assert c["weight_dtype"] == "torch.bfloat16" and c["master_dtype"] == "torch.float32"
    assert c["master_numel"] == 20  # the whole Linear(4, 4) on one rank


@pytest.mark.claim("ds-config-numbers-run-as-written")
@pytest.mark.parametrize("case", ["micro-batch", "accumulation", "clipping"])
def test_deepspeed_takes_the_batch_accumulation_and_clipping_of_its_config(monkeypatch, case):
    monkeypatch.setenv("DS_ACCELERATOR", "cpu")
    from deepspeed.runtime.config import DeepSpeedConfig

    config = DeepSpeedConfig({"train_micro_batch_size_per_gpu": 3, "gradient_accumulation_steps": 2,
                              "gradient_clipping": 0.5, "zero_optimization": {"stage": 2}})
    got = {"micro-batch": config.train_micro_batch_size_per_gpu, "accumulation": config.gradient_accumulation_steps,
           "clipping": config.gradient_clipping}[case]
    assert got == {"micro-batch": 3, "accumulation": 2, "clipping": 0.5}[case]
    assert config.train_batch_size == 3 * 2  # one process here: the batch identity holds with these numbers
