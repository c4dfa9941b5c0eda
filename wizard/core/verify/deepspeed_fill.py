"""Stage 4 of a round trip: the "auto" values of the DeepSpeed dict filled as the training loop fills them.

:func:`_fill_auto` is what ``Accelerator._prepare_deepspeed`` does before ``deepspeed.initialize`` (the micro batch
from the DataLoader, accumulation, clipping, the hidden-size based bucket sizes, the optimizer and scheduler
sections and their checks), done with the plugin's own ``fill_match`` / ``deepspeed_config_process``.
:func:`_trainer_fill` is what the Hugging Face Trainer does first (``trainer_config_process`` and
``trainer_config_finalize``, its mismatch ``ValueError`` included). Both change the plugin's dict in place and raise
what the libraries would raise; the replay turns that into a finding.

transformers is imported inside :func:`_trainer_fill` only.
"""
from __future__ import annotations

import logging
from typing import Any

from .stubs import _ModelStub, _WorldSize


def _fill_auto(
    plugin: Any,
    accel_gas: int,
    parallelism: Any,
    *,
    world_size: int,
    micro_batch_size: int,
    hidden_size: int | None,
    optimizer: str,
    scheduler: str,
    trainer: bool,
) -> int:
    """accelerate/accelerator.py ``Accelerator._prepare_deepspeed`` up to ``deepspeed.initialize``,
    for (model, optimizer, DataLoader(batch_size=micro_batch_size)[, scheduler]).

    accel_gas: the Accelerator's accumulation steps; world_size: ``num_processes``; optimizer, scheduler: as
    :func:`.replay.effective_config` takes them; trainer: the Hugging Face Trainer prepares (model, optimizer), with
    no DataLoader and an Accelerator told 1 step. Returns the Accelerator's accumulation steps afterwards.
    """
    acc_logger = logging.getLogger("accelerate.accelerator")
    config = plugin.deepspeed_config
    sp_size = parallelism.sp_size if parallelism is not None else 1

    if plugin.is_auto("train_micro_batch_size_per_gpu"):
        if trainer:  # the Trainer prepares (model, optimizer): no DataLoader
            raise ValueError("When using DeepSpeed, `accelerate.prepare()` requires you to pass at least one of "
                             "training or evaluation dataloaders with `batch_size` attribute returning an "
                             "integer value or alternatively set an integer value in "
                             "`train_micro_batch_size_per_gpu` in the deepspeed config file")
        batch_size_per_device = micro_batch_size
    else:
        batch_size_per_device = plugin.get_value("train_micro_batch_size_per_gpu")

    plugin.fill_match("gradient_accumulation_steps", must_match=False, gradient_accumulation_steps=accel_gas)
    ds_gas = plugin.get_value("gradient_accumulation_steps")
    if ds_gas != accel_gas and trainer:
        accel_gas = ds_gas  # the Trainer's Accelerator is told 1 and counts accumulation itself: not a finding
    elif ds_gas != accel_gas:
        acc_logger.warning(
            f"Gradient accumulation steps mismatch: GradientAccumulationPlugin has {accel_gas}, "
            f"DeepSpeed config has {ds_gas}. Using DeepSpeed's value."
        )
        accel_gas = ds_gas

    config_kwargs: dict[str, Any] = {
        "gradient_clipping": 1.0,
        "zero_optimization.stage3_gather_16bit_weights_on_model_save": False,
    }
    if batch_size_per_device is not None:
        config_kwargs["train_micro_batch_size_per_gpu"] = batch_size_per_device
        config_kwargs["train_batch_size"] = (
            batch_size_per_device
            * plugin.get_value("gradient_accumulation_steps")
            * world_size
            // sp_size
        )

    if optimizer == "auto":
        optimizer = "dummy" if "optimizer" in config else "torch"
    if scheduler == "auto":
        scheduler = "dummy" if "scheduler" in config else "none"

    if optimizer != "none":
        if "optimizer" in config and optimizer != "dummy":
            raise ValueError(
                "You cannot specify an optimizer in the config file and in the code at the same time. "
                "Please remove the optimizer from the config file or "
                "create `accelerate.utils.DummyOptim` in the code."
            )
        elif "optimizer" not in config and optimizer == "dummy":
            raise ValueError("You cannot create a `DummyOptim` without specifying an optimizer in the config file.")
        if optimizer == "torch":
            config["zero_allow_untested_optimizer"] = True
    if scheduler == "dummy":
        if "scheduler" not in config:
            raise ValueError(
                "Either specify a scheduler in the config file or "
                "pass in the `lr_scheduler_callable` parameter when using `accelerate.utils.DummyScheduler`."
            )
        if optimizer != "dummy":
            raise ValueError(
                "You can only specify `accelerate.utils.DummyScheduler` in the code when using "
                "`accelerate.utils.DummyOptim`."
            )

    # model present: hidden-size based "auto" keys
    hidden_size_based_keys = [
        "zero_optimization.reduce_bucket_size",
        "zero_optimization.stage3_prefetch_bucket_size",
        "zero_optimization.stage3_param_persistence_threshold",
    ]
    hidden_size_auto_keys = [x for x in hidden_size_based_keys if plugin.is_auto(x)]
    if hidden_size_auto_keys:
        reasoning = (
            "therefore it's not possible to automatically fill out the following `auto` entries "
            + f"in the DeepSpeed config file: {hidden_size_auto_keys}. You can fix that by replacing "
            + "`auto` values for these keys with an integer value of your choice."
        )
        if hidden_size is None:
            raise ValueError("Can't find `model.config` entry, " + reasoning)
        hs = int(hidden_size)
        config_kwargs.update(
            {
                "zero_optimization.reduce_bucket_size": hs * hs,
                "zero_optimization.stage3_prefetch_bucket_size": int(0.9 * hs * hs),
                "zero_optimization.stage3_param_persistence_threshold": 10 * hs,
            }
        )
    if optimizer == "dummy":
        # accelerate.utils.DummyOptim defaults: lr=0.001, weight_decay=0
        config_kwargs.update({"optimizer.params.lr": 0.001, "optimizer.params.weight_decay": 0})
    if scheduler == "dummy":
        # DummyScheduler(optimizer) defaults: warmup_num_steps=0 (-> max(1, 0)), total_num_steps=None
        config_kwargs.update(
            {
                "scheduler.params.warmup_min_lr": 0,
                "scheduler.params.warmup_max_lr": 0.001,
                "scheduler.params.warmup_num_steps": 1,
            }
        )
    plugin.deepspeed_config_process(must_match=False, **config_kwargs)
    if parallelism is not None and parallelism.sp_backend == "deepspeed" and parallelism.sp_size > 1:
        config["train_batch_size"] = (
            config["train_micro_batch_size_per_gpu"]
            * config["gradient_accumulation_steps"]
            * parallelism.data_parallel_size
        )
    return accel_gas


def _trainer_fill(
    plugin: Any, training_args: Any, *, world_size: int, hidden_size: int | None, num_training_steps: int
) -> None:
    """transformers ``propagate_args_to_deepspeed`` (Trainer.create_accelerator_and_postprocess) and
    ``trainer_config_finalize`` (deepspeed_init, at train()): the Trainer's "auto" filling and its mismatch
    check against TrainingArguments."""
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    args = _WorldSize(training_args, world_size)
    hf = HfTrainerDeepSpeedConfig(plugin.hf_ds_config.config)
    plugin.hf_ds_config = hf
    plugin.deepspeed_config = hf.config
    hf.trainer_config_process(args)
    hf.trainer_config_finalize(args, _ModelStub(hidden_size), num_training_steps)
    if "optimizer" not in hf.config:  # transformers deepspeed_optim_sched: its own torch optimizer
        hf.config["zero_allow_untested_optimizer"] = True
