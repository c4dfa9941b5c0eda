"""Which Trainer-based tool wrote a training YAML, told by its keys (issue 25): LLaMA-Factory's data and fine-tuning
arguments, axolotl's config schema. Stdlib only, so that ``check`` can look at a YAML without importing the effective
model; :mod:`wizard.core.effective.training_file` maps a recognised file onto TrainingArguments.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

LLAMAFACTORY = "llamafactory"
AXOLOTL = "axolotl"
KINDS = (LLAMAFACTORY, AXOLOTL)
KIND_LABELS = {LLAMAFACTORY: "LLaMA-Factory training YAML", AXOLOTL: "axolotl YAML"}

MARKERS = {
    LLAMAFACTORY: ("stage", "finetuning_type", "template", "cutoff_len", "model_name_or_path", "dataset",
                   "lora_target", "max_samples"),
    AXOLOTL: ("base_model", "micro_batch_size", "datasets", "sequence_len", "num_epochs", "lr_scheduler", "optimizer",
              "adapter", "val_set_size", "sample_packing"),
}
"""Keys only that tool's file has (LLaMA-Factory: hparams/data_args.py, finetuning_args.py, model_args.py; axolotl:
utils/schemas/config.py)."""
_ACCELERATE = ("distributed_type", "compute_environment", "deepspeed_config", "fsdp_config_version")


def detect_kind(data: Mapping[str, Any]) -> str | None:
    """Which tool's file this is, by the keys only that tool's file has: at least two, and more than the other's
    (None: neither, or an accelerate config)."""
    keys = {str(k) for k in data}
    if keys & set(_ACCELERATE):
        return None
    scores = {kind: len(keys & set(markers)) for kind, markers in MARKERS.items()}
    best = max(scores, key=lambda k: scores[k])
    if scores[best] >= 2 and all(scores[best] > s for k, s in scores.items() if k != best):
        return best
    return None


__all__ = ["AXOLOTL", "KINDS", "KIND_LABELS", "LLAMAFACTORY", "MARKERS", "detect_kind"]
