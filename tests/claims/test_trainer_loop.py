"""Demonstrations of wizard/core/claims/trainer_loop.py: the Hugging Face Trainer's own handling of precision, the
learning rate and the optimizer under DeepSpeed, run on CPU with the installed transformers."""
from __future__ import annotations

import pytest


@pytest.mark.claim("trainer-passes-precision-to-accelerate")
@pytest.mark.parametrize("case", ["from-launcher", "argument-wins", "accelerator", "ds-concrete-must-equal",
                                  "ds-auto"])
def test_the_trainer_precision_comes_from_its_arguments(tmp_path, fresh_state, case):
    import torch
    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    fresh_state.setenv("ACCELERATE_MIXED_PRECISION", "bf16")
    from_launcher = TrainingArguments(str(tmp_path / "a"), use_cpu=True, report_to=[])
    overridden = TrainingArguments(str(tmp_path / "b"), use_cpu=True, fp16=True, report_to=[])
    if case == "from-launcher":
        assert from_launcher.mixed_precision == "bf16"  # the launcher's value when no argument says otherwise
    elif case == "argument-wins":
        assert overridden.mixed_precision == "fp16"  # the argument wins over the accelerate config
    elif case == "accelerator":
        from transformers import Trainer

        assert Trainer(model=torch.nn.Linear(2, 2), args=from_launcher).accelerator.mixed_precision == "bf16"
    elif case == "ds-concrete-must-equal":  # under DeepSpeed a concrete bf16.enabled must equal the bf16 argument
        fixed = HfTrainerDeepSpeedConfig({"bf16": {"enabled": True}, "zero_optimization": {"stage": 1}})
        fixed.trainer_config_process(from_launcher)  # bf16 argument false, though the launcher said bf16
        with pytest.raises(ValueError, match=r"bf16.enabled=True vs hf bf16\|bf16_full_eval=False"):
            fixed.trainer_config_finalize(from_launcher, torch.nn.Linear(2, 2), 10)
    else:  # 'auto' takes the arguments
        auto = HfTrainerDeepSpeedConfig({"bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"},
                                         "zero_optimization": {"stage": 1}})
        auto.trainer_config_process(overridden)
        assert auto.config["fp16"]["enabled"] is True and auto.config["bf16"]["enabled"] is False


@pytest.mark.claim("trainer-builds-the-ds-optimizer-itself")
@pytest.mark.parametrize("case", ["optimizer-block", "no-optimizer-block"])
def test_the_trainer_picks_the_deepspeed_optimizer_from_the_json(tmp_path, case):
    import torch
    from accelerate.utils import DummyOptim, DummyScheduler
    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig, deepspeed_optim_sched

    args = TrainingArguments(str(tmp_path), use_cpu=True, report_to=[])
    model = torch.nn.Linear(2, 2)
    made = []

    class TrainerStub:  # what deepspeed_optim_sched asks of the Trainer when the JSON has no optimizer block
        def create_optimizer(self):
            made.append(torch.optim.AdamW(model.parameters()))
            return made[-1]

    if case == "optimizer-block":
        with_block = HfTrainerDeepSpeedConfig({"zero_optimization": {"stage": 1},
                                               "optimizer": {"type": "AdamW", "params": {"lr": 1e-3}}})
        optimizer, scheduler = deepspeed_optim_sched(TrainerStub(), with_block, args, 10, list(model.parameters()))
        assert isinstance(optimizer, DummyOptim) and isinstance(scheduler, DummyScheduler) and not made
    else:
        without = HfTrainerDeepSpeedConfig({"zero_optimization": {"stage": 1}})
        optimizer, scheduler = deepspeed_optim_sched(TrainerStub(), without, args, 10, list(model.parameters()))
        assert made and optimizer is made[0] and scheduler is None
        assert without.config["zero_allow_untested_optimizer"] is True


@pytest.mark.claim("trainer-bf16-needs-a-bf16-gpu")
@pytest.mark.parametrize("case", ["bf16-refused", "use-cpu-no-distribution", "fp16-accepted"])
def test_the_trainer_refuses_bf16_without_a_bf16_gpu(tmp_path, fresh_state, case):
    import torch
    from accelerate.utils import DistributedType
    from transformers import TrainingArguments

    assert not torch.cuda.is_available()  # the CPU machine this claim is about
    if case == "bf16-refused":
        with pytest.raises(ValueError, match="doesn't support bf16/gpu"):
            TrainingArguments(str(tmp_path / "a"), bf16=True, report_to=[])
    elif case == "use-cpu-no-distribution":
        fresh_state.setenv("ACCELERATE_USE_DEEPSPEED", "true")  # what accelerate launch exports for DeepSpeed
        args = TrainingArguments(str(tmp_path / "b"), bf16=True, use_cpu=True, report_to=[])
        assert args.distributed_state.distributed_type == DistributedType.NO
    else:
        assert TrainingArguments(str(tmp_path / "c"), fp16=True, report_to=[]).fp16 is True
