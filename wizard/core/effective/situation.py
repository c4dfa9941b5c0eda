"""What the effective model needs besides the written files: who drives training, and what the script decides.

The accelerate config and the DeepSpeed JSON do not say everything that runs: the DataLoader's batch size (FSDP has
no config key for it, and DeepSpeed's "auto" takes it from there), the accumulation steps an own loop passes to the
Accelerator on FSDP, the dtype the script loads the model in, whether the model checkpoints its activations under
DeepSpeed (no accelerate switch), its hidden size (DeepSpeed's hidden-size "auto" values), and, under the Hugging Face
Trainer, its TrainingArguments. :class:`Situation` carries them; each is None when unknown, and the model then says
which value it assumed.
"""
from __future__ import annotations

from collections.abc import Mapping

from ..context import LOOP_ACCELERATE, LOOP_HF
from ..recordclass import record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class Situation:
    loop: str | None = LOOP_ACCELERATE
    """``"accelerate"`` (an own Accelerator loop), ``"hf"`` (the HF Trainer) or None (unknown)."""
    trainer_arguments: Mapping[str, Any] | None = None
    """Under the Trainer: the TrainingArguments keyword arguments that matter here (``per_device_train_batch_size``,
    ``gradient_accumulation_steps``, ``max_grad_norm``, ``bf16``, ``fp16``); missing ones take their defaults."""
    micro_batch: int | None = None
    """The DataLoader's batch size per process (an own loop); None: unknown (1 is assumed, and said)."""
    gradient_accumulation_steps: int | None = None
    """What the script passes to ``Accelerator(gradient_accumulation_steps=...)`` on FSDP; None: 1."""
    model_dtype: str = "fp32"
    """The dtype the script loads the model in (``fp32``, ``bf16``, ``fp16``)."""
    activation_checkpointing: bool | None = None
    """Under DeepSpeed, whether the script enables gradient checkpointing on the model (there is no config switch)."""
    hidden_size: int | None = None
    """``model.config.hidden_size``, for DeepSpeed's hidden-size "auto" values; None: left unfilled."""
    transformers: bool = True
    """transformers is installed where the run starts (accelerate's zero3_init_flag default follows it)."""
    fp8_installed: tuple[str, ...] | None = None
    """The fp8 backends (AO, TE, MSAMP) whose packages are installed where the run starts; None: unknown (with no
    backend written, the model then leaves the recipe to that machine)."""

    @property
    def trainer(self) -> bool:
        return self.loop == LOOP_HF


__all__ = ["Situation"]
