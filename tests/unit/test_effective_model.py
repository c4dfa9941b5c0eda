"""The effective model's own answers (wizard/core/effective), without the libraries: what runs and why, for the cases
that used to be worked out in several places. tests/verify/test_effective_differential.py holds it against the real
libraries."""
from __future__ import annotations

import sys

from wizard.core.answers import default_answers
from wizard.core.answers.of_answers import of_answers
from wizard.core.effective import (
    AUTO,
    CHANGED,
    DEFAULT,
    IGNORED,
    OVERRIDDEN,
    WRITTEN,
    Situation,
    effective,
    layout,
)

DS = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "DEEPSPEED", "num_processes": 8, "num_machines": 1}
FSDP = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "FSDP", "num_processes": 8, "num_machines": 1}


def test_zero2_nvme_optimizer_offload_runs_on_the_cpu():
    e = effective({**DS, "deepspeed_config": {"zero_stage": 2, "offload_optimizer_device": "nvme"}})
    assert e["deepspeed_validated.offload_optimizer_device"] == "nvme"  # what DeepSpeed's config holds
    u = e.used("runs.offload_optimizer")
    assert (u.value, u.why) == ("cpu", CHANGED) and u.keys == ("deepspeed_config.offload_optimizer_device",)
    # the inline NVMe path never reaches DeepSpeed
    e = effective({**DS, "deepspeed_config": {"zero_stage": 3, "offload_param_device": "nvme",
                                              "offload_param_nvme_path": "/nvme"}})
    u = e.used("deepspeed.zero_optimization.offload_param.nvme_path")
    assert (u.value, u.why) == ("none", IGNORED)


def test_parameter_offload_below_zero3_is_ignored():
    e = effective({**DS, "deepspeed_config": {"zero_stage": 1, "offload_param_device": "cpu"}})
    assert (e["runs.offload_param"], e.used("runs.offload_param").why) == ("none", IGNORED)


def test_fsdp1_reads_the_strategy_not_reshard_after_forward():
    e = effective({**FSDP, "fsdp_config": {"fsdp_version": 1, "fsdp_reshard_after_forward": False}})
    assert e["fsdp.sharding_strategy"] == "FULL_SHARD" and e.used("fsdp.sharding_strategy").why == DEFAULT
    assert e.used("fsdp.reshard_after_forward").why == IGNORED
    assert layout(e).fsdp_strategy == "FULL_SHARD"


def test_fsdp2_ignores_fsdp1_keys_and_prefetches_by_itself():
    e = effective({**FSDP, "fsdp_config": {"fsdp_version": 2, "fsdp_backward_prefetch": "BACKWARD_PRE",
                                           "fsdp_sharding_strategy": "NO_SHARD", "fsdp_reshard_after_forward": False}})
    assert e.used("fsdp.backward_prefetch").why == IGNORED and e["fsdp.backward_prefetch"] is None
    assert e.used("fsdp.sharding_strategy").why == IGNORED
    lay = layout(e)
    assert (lay.fsdp_strategy, lay.reshard, lay.prefetch) == ("SHARD_GRAD_OP", False, True)


def test_ram_efficient_loading_turns_sync_module_states_on():
    e = effective({**FSDP, "fsdp_config": {"fsdp_version": 1, "fsdp_sync_module_states": False,
                                           "fsdp_cpu_ram_efficient_loading": False}})
    assert e["fsdp.sync_module_states"] is False and e.ok
    e = effective({**FSDP, "fsdp_config": {"fsdp_version": 1, "fsdp_sync_module_states": False}})
    assert not e.ok and "sync_module_states" in e.failures[0].message  # the launcher refuses the default true


def test_auto_values_say_who_fills_them():
    ds = {"zero_optimization": {"stage": 3, "reduce_bucket_size": "auto"}, "train_micro_batch_size_per_gpu": "auto",
          "gradient_accumulation_steps": "auto", "gradient_clipping": "auto"}
    acc = {**DS, "deepspeed_config": {"deepspeed_config_file": "ds.json"}}
    own = effective(acc, ds, Situation(micro_batch=4, hidden_size=1024))
    assert own["deepspeed_validated.train_micro_batch_size_per_gpu"] == 4
    assert own["deepspeed_validated.reduce_bucket_size"] == 1024 * 1024
    u = own.used("deepspeed.gradient_clipping")
    assert (u.value, u.why, u.by) == (1.0, AUTO, "Accelerator.prepare")
    hf = effective(acc, ds, Situation(loop="hf", trainer_arguments={"per_device_train_batch_size": 2,
                                                                     "gradient_accumulation_steps": 8,
                                                                     "max_grad_norm": 0.5}))
    assert hf["deepspeed_validated.train_batch_size"] == 2 * 8 * 8
    assert (hf["deepspeed.gradient_clipping"], hf.used("deepspeed.gradient_clipping").by) == (0.5, "the HF Trainer")
    # unknown hidden size: the value stays open, and the model says who fills it
    u = effective(acc, ds).used("deepspeed.zero_optimization.reduce_bucket_size")
    assert u.value is None and u.why == AUTO


def test_the_json_decides_deepspeed_precision():
    acc = {**DS, "deepspeed_config": {"deepspeed_config_file": "ds.json"}}
    e = effective(acc, {"zero_optimization": {"stage": 2}, "bf16": {"enabled": True},
                        "train_micro_batch_size_per_gpu": 1})
    u = e.used("mixed_precision")
    assert (u.value, u.why) == ("bf16", OVERRIDDEN)
    e = effective({**acc, "mixed_precision": "bf16"}, {"zero_optimization": {"stage": 2}})
    assert not e.ok  # accelerate refuses mixed_precision next to a deepspeed_config_file


def test_a_json_without_a_stage_runs_zero0_while_accelerate_assumes_zero2():
    acc = {**DS, "deepspeed_config": {"deepspeed_config_file": "ds.json"}}
    e = effective(acc, {"zero_optimization": {}, "train_micro_batch_size_per_gpu": 1})
    assert e["deepspeed_plugin.zero_stage"] == 2 and e["deepspeed_validated.zero_stage"] == 0
    assert layout(e).stage == 0


def test_written_values_name_their_keys():
    e = effective({**FSDP, "fsdp_config": {"fsdp_version": 2, "fsdp_offload_params": True}})
    u = e.used("fsdp.cpu_offload")
    assert (u.value, u.why, u.keys) == (True, WRITTEN, ("fsdp_config.fsdp_offload_params",))
    assert layout(e).offload_optimizer == layout(e).offload_param == "cpu"


def test_answers_and_their_written_config_have_one_model():
    a = default_answers().replace({"backend": "deepspeed", "sharding.strategy": "grads_optimizer",
                                   "offload.optimizer": "nvme"})
    from wizard.core.answers.render import render

    r = render(a)
    assert layout(of_answers(a)) == layout(effective(r.accelerate, r.deepspeed,
                                                     of_answers(a).situation))
    assert layout(of_answers(a)).offload_optimizer == "cpu"


def test_the_model_imports_no_training_library():
    import subprocess

    code = ("import sys, wizard.core.answers.of_answers as m; "
            "m.of_answers(__import__('wizard.core.answers', fromlist=['x']).default_answers()); "
            "heavy = [n for n in ('torch', 'accelerate', 'deepspeed', 'transformers', 'textual') "
            "if n in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_a_superscript_digit_is_no_enum_code():
    """"¹".isdigit() is true but int() refuses it: the plugin raises, so the value is invalid (Hypothesis found it)."""
    from wizard.core.vocab import backward_prefetch_name, sharding_strategy_name

    assert sharding_strategy_name("¹") is None and backward_prefetch_name("¹") == (False, None)
    e = effective({**FSDP, "fsdp_config": {"fsdp_version": 1, "fsdp_backward_prefetch": "¹"}})
    assert not e.ok and "fsdp_config.fsdp_backward_prefetch" in e.failures[0].keys


def test_deepspeed_accumulation_left_to_the_script_is_unknown():
    """DeepSpeed's "auto" accumulation is the Accelerator's (the script's) or TrainingArguments': no file shows it, so
    the run's value is unknown unless the situation says it (the estimate then counts accumulation, and says so)."""
    acc = {**DS, "deepspeed_config": {"zero_stage": 2}}
    e = effective(acc)
    assert e["deepspeed_validated.gradient_accumulation_steps"] == 1  # what an Accelerator() without it runs
    assert e["runs.gradient_accumulation_steps"] is None and e.used("runs.gradient_accumulation_steps").why == AUTO
    known = effective(acc, situation=Situation(gradient_accumulation_steps=4))
    assert known["deepspeed_validated.gradient_accumulation_steps"] == known["runs.gradient_accumulation_steps"] == 4
    written = effective({**DS, "deepspeed_config": {"zero_stage": 2, "gradient_accumulation_steps": 8}})
    assert written["runs.gradient_accumulation_steps"] == 8
    hf = effective(acc, situation=Situation(loop="hf", trainer_arguments={"per_device_train_batch_size": 2}))
    assert hf["runs.gradient_accumulation_steps"] is None
    hf = effective(acc, situation=Situation(loop="hf", trainer_arguments={"gradient_accumulation_steps": 2}))
    assert hf["runs.gradient_accumulation_steps"] == 2
