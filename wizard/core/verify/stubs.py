"""What stands in, during a round trip, for the parts of a training run that do not exist there.

No model, no Accelerator and no process group are built; the library code replayed reads a few attributes of them,
which these answer as a GPU training node would: :class:`_ModelStub` (``model.config.hidden_size``),
:class:`_AcceleratorStub` (what ``ParallelismConfig._validate_accelerator`` reads), :class:`_WorldSize`
(``TrainingArguments.world_size`` answered by ``num_processes``), :class:`_DistShim` (``deepspeed.comm`` inside
``DeepSpeedConfig``). :func:`_training_arguments` builds the real ``TrainingArguments`` without writing anything.

transformers / accelerate are imported inside the functions that need them.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class _ModelStub:
    """What ``trainer_config_finalize`` reads of the model: ``config.hidden_size`` (None: a model without a config,
    so hidden-size "auto" values fail as they would)."""

    def __init__(self, hidden_size: int | None) -> None:
        if hidden_size is not None:
            self.config = type("Config", (), {"hidden_size": int(hidden_size)})()


class _AcceleratorStub:
    """The attributes ``ParallelismConfig._validate_accelerator`` reads from an Accelerator on a GPU node."""

    def __init__(self, distributed_type: Any, num_processes: int, fsdp_plugin: Any) -> None:
        from accelerate.utils import DistributedType

        self.distributed_type = distributed_type if distributed_type is not None else DistributedType.MULTI_GPU
        self.num_processes = num_processes
        self.is_main_process = True
        self.is_fsdp2 = (
            self.distributed_type == DistributedType.FSDP
            and fsdp_plugin is not None
            and fsdp_plugin.fsdp_version == 2
        )
        self.multi_device = num_processes > 1 and self.distributed_type == DistributedType.MULTI_GPU


class _WorldSize:
    """``TrainingArguments`` with ``world_size`` answered by ``num_processes`` (workaround #4: the real property asks
    a process group, which a round trip never creates); every other attribute is the real one."""

    def __init__(self, args: Any, world_size: int) -> None:
        self._args = args
        self.world_size = world_size

    def __getattr__(self, name: str) -> Any:
        return getattr(self._args, name)


class _DistShim:
    """Stands in for ``deepspeed.comm`` inside ``DeepSpeedConfig.__init__`` only."""

    def __init__(self, world_size: int) -> None:
        self._world_size = world_size

    def get_rank(self, group: Any = None) -> int:
        return 0

    def get_world_size(self, group: Any = None) -> int:
        return self._world_size


def _training_arguments(kwargs: Mapping[str, Any]) -> Any:
    """The real ``TrainingArguments`` in the exported environment, on CPU (``use_cpu``: the bf16 check of a GPU-less
    machine would refuse bf16), writing nothing (a scratch output_dir, no reports, no saves). transformers' global
    DeepSpeed config reference, which its DeepSpeedPlugin sets, is cleared again."""
    import tempfile

    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import unset_hf_deepspeed_config

    with tempfile.TemporaryDirectory(prefix="fsdpds_verify_trainer_") as out:
        try:
            return TrainingArguments(**{"output_dir": out, "use_cpu": True, "report_to": [], "save_strategy": "no",
                                        **kwargs})
        finally:
            unset_hf_deepspeed_config()
