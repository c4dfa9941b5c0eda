"""Switching backend: the settings whose meaning changes when the same answer moves to another backend."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MeaningChange:
    """An answer that carries over to another target but means something else there.

    Reported by a switch next to the values that were dropped: the same words in the config, a
    different behaviour in the run."""

    setting_id: str
    values: tuple | None
    """The answer values the change applies to (None: any value)."""
    before: tuple[str, ...]
    """Targets switched from."""
    after: tuple[str, ...]
    """Targets switched to."""
    text: str
    claims: tuple[str, ...] = ()
    """The claims (:mod:`wizard.core.claims`) the text states."""


_FSDP = ("fsdp1", "fsdp2")
_DS = ("deepspeed",)

MEANING_CHANGES: tuple[MeaningChange, ...] = (
    MeaningChange(
        "offload.optimizer", ("cpu", "nvme"), _DS, _FSDP,
        "DeepSpeed moved only the optimizer state and step off the GPU and ran the step in DeepSpeedCPUAdam "
        "(accelerate swaps the script's torch optimizer for it); FSDP's single fsdp_offload_params also moves the "
        "parameters and gradients to the CPU and runs your own torch optimizer's step there.",
        claims=("ds-offload-replaces-torch-optimizer", "ds-offload-blocks-independent",
                "fsdp-offload-single-switch")),
    MeaningChange(
        "offload.optimizer", ("nvme",), _DS, _FSDP,
        "NVMe becomes CPU RAM: FSDP cannot offload to NVMe, so the host needs room for all of it.",
        claims=("fsdp-offload-single-switch",)),
    MeaningChange(
        "offload.params", ("cpu", "nvme"), _DS, _FSDP,
        "DeepSpeed offloaded the parameters separately from the optimizer (ZeRO-3 only); on FSDP the same switch "
        "offloads parameters, gradients and the optimizer step together.",
        claims=("ds-offload-blocks-independent", "ds-param-offload-zero3-only", "fsdp-offload-single-switch")),
    MeaningChange(
        "offload.optimizer", ("cpu",), _FSDP, _DS,
        "FSDP's switch moved parameters, gradients and the optimizer step to the CPU; DeepSpeed offloads the "
        "optimizer on its own, and accelerate replaces the script's torch optimizer (SGD too) with "
        "DeepSpeedCPUAdam (built on first use).",
        claims=("fsdp-offload-single-switch", "ds-offload-blocks-independent", "ds-offload-replaces-torch-optimizer",
                "ds-cpu-optimizer-built-on-first-use")),
    MeaningChange(
        "offload.params", ("cpu",), _FSDP, _DS,
        "On DeepSpeed parameter offload is separate from optimizer offload and only works at ZeRO-3.",
        claims=("ds-offload-blocks-independent", "ds-param-offload-zero3-only", "fsdp-offload-single-switch")),
    MeaningChange(
        "sharding.strategy", ("optimizer",), _DS, _FSDP,
        "ZeRO-1 (optimizer state only) has no FSDP form: it is written as FSDP's no-reshard mode, which shards "
        "the gradients and the parameters' storage too.",
        claims=("ds-zero-stages-partition", "fsdp-reshard-after-forward")),
    MeaningChange(
        "sharding.strategy", ("none",), _DS, ("fsdp2",),
        "ZeRO-0 has no FSDP2 form: FSDP2 has no NO_SHARD, and the closest mode still shards between steps.",
        claims=("fsdp-reshard-after-forward", "fsdp2-ignores-v1-keys")),
    MeaningChange(
        "loading.ram_efficient", (True,), _DS, _FSDP,
        "DeepSpeed's zero3_init_flag created the parameters already partitioned (ZeRO-3 only); FSDP's "
        "cpu_ram_efficient_loading broadcasts rank 0's weights while sharding, and every rank still reads the "
        "checkpoint (memory-mapped) in from_pretrained.",
        claims=("ds-zero3-init-flag-off-below-zero3", "ds-zero3-init-needs-config-before-load",
                "fsdp1-sync-module-states-broadcasts", "fsdp2-no-broadcast-unless-ram-efficient",
                "transformers-fsdp-loading-every-rank-reads")),
    MeaningChange(
        "loading.ram_efficient", (True,), _FSDP, _DS,
        "FSDP broadcast rank 0's weights while sharding; DeepSpeed's zero3_init_flag creates the parameters "
        "partitioned instead, and only at ZeRO-3 (below it nothing is written).",
        claims=("ds-zero3-init-flag-off-below-zero3", "ds-zero3-init-needs-config-before-load",
                "fsdp1-sync-module-states-broadcasts", "fsdp2-no-broadcast-unless-ram-efficient",
                "transformers-fsdp-loading-every-rank-reads")),
    MeaningChange(
        "checkpoint.format", ("full",), _DS, _FSDP,
        "DeepSpeed's full save gathers 16-bit weights (zero3_save_16bit_model); FSDP's FULL_STATE_DICT gathers "
        "the parameters in their own dtype, fp32 with mixed precision, so the file is about twice as large.",
        claims=("ds-zero3-state-dict-needs-16bit-gather", "fsdp-saved-weights-fp32", "fsdp-get-state-dict-full")),
    MeaningChange(
        "checkpoint.format", ("full",), _FSDP, _DS,
        "FSDP's FULL_STATE_DICT saved the parameters' own dtype; DeepSpeed's full save writes 16-bit weights "
        "(zero3_save_16bit_model, ZeRO-3 only).",
        claims=("ds-zero3-state-dict-needs-16bit-gather", "fsdp-saved-weights-fp32", "fsdp-get-state-dict-full")),
    MeaningChange(
        "precision.mixed_precision", ("bf16", "fp16", "fp8"), _DS, _FSDP,
        "DeepSpeed cast the model itself to 16 bits and kept an fp32 master partition; FSDP upcasts the "
        "trainable parameters to fp32 (FSDP1: whole units) and casts them for each forward and backward.",
        claims=("fsdp1-upcast-per-unit", "fsdp2-upcast-per-parameter", "fsdp-policy-from-mixed-precision",
                "ds-module-cast-fp32-master")),
    MeaningChange(
        "precision.mixed_precision", ("bf16", "fp16", "fp8"), _FSDP, _DS,
        "FSDP kept fp32 trainable parameters and cast them per forward and backward; DeepSpeed casts the model "
        "itself to 16 bits and keeps an fp32 master partition (unless bf16 master weights are chosen).",
        claims=("fsdp1-upcast-per-unit", "fsdp2-upcast-per-parameter", "fsdp-policy-from-mixed-precision",
                "ds-module-cast-fp32-master", "ds-bf16-master-weights-option")),
    MeaningChange(
        "training.gradient_accumulation_steps", None, _DS, _FSDP,
        "DeepSpeed took gradient accumulation from the config; FSDP takes it from "
        "Accelerator(gradient_accumulation_steps=...) in your script (or TrainingArguments), so the config no longer "
        "sets it.",
        claims=("launch-accumulation-and-clipping-deepspeed-only", "fsdp-accumulate-keeps-unsharded-grads",
                "trainer-counts-accumulation-and-clips")),
    MeaningChange(
        "training.gradient_clipping", None, _DS, _FSDP,
        "The DeepSpeed engine clipped from the config; FSDP clips only where the loop calls "
        "accelerator.clip_grad_norm_() (the HF Trainer does, with max_grad_norm).",
        claims=("launch-accumulation-and-clipping-deepspeed-only", "ds-clip-grad-norm-only-reports",
                "fsdp-clip-grad-norm-over-shards", "trainer-counts-accumulation-and-clips")),
)


def meaning_changes(setting_id: str, value, before: str, after: str) -> list[str]:
    """What an answer means differently after a switch from target ``before`` to ``after``."""
    return [m.text for m in MEANING_CHANGES
            if m.setting_id == setting_id and before in m.before and after in m.after
            and (m.values is None or value in m.values)]
