"""The process guards of a round trip: what it changes in this process, and how each change is undone.

- :class:`_Sandbox`: a snapshot of ``os.environ``, ``sys.argv``, the working directory and accelerate's singleton
  states, restored exactly when the round trip ends; :func:`_scrubbed` names the variables removed from the
  environment meanwhile (so the caller's shell does not leak in, and every variable the launcher sets shows as
  exported), :func:`_set_environ` applies an environment touching only the keys that differ.
- :func:`_capture_library_messages`: Python warnings and WARNING log records, which become findings.
- The three things that make the round trip model a GPU training node rather than the machine running it, each for
  one stage only: :func:`_pretend_cuda_device` (the FSDP plugin's device lookup), :func:`_port_probe_neutralised`
  (the launcher's local port probe), :func:`_deepspeed_world_size` (the world size DeepSpeedConfig asks a missing
  process group for).

torch / accelerate / deepspeed are imported inside the functions that patch them.
"""
from __future__ import annotations

import contextlib
import logging
import os
import sys
import warnings
from collections.abc import Iterator, Mapping
from typing import Any

from .stubs import _DistShim

# Variables the launcher or the plugins read or write. They are removed from the environment for the
# duration of a round trip so that the result does not depend on the caller's shell, and so that every
# variable the launcher sets is visible as "exported".
_SCRUB_PREFIXES = ("ACCELERATE_", "FSDP_", "PARALLELISM_CONFIG_", "MEGATRON_LM_")
_SCRUB_NAMES = frozenset(
    {
        "OMP_NUM_THREADS",
        "PYTHONPATH",
        "CUDA_VISIBLE_DEVICES",
        "ZE_AFFINITY_MASK",
        "MLU_VISIBLE_DEVICES",
        "SDAA_VISIBLE_DEVICES",
        "MUSA_VISIBLE_DEVICES",
        "ASCEND_RT_VISIBLE_DEVICES",
        "HABANA_VISIBLE_MODULES",
        "NEURON_RT_VISIBLE_CORES",
        "NCCL_P2P_DISABLE",
        "NCCL_IB_DISABLE",
        "XLA_USE_BF16",
        "XLA_DOWNCAST_BF16",
        "MASTER_ADDR",
        "MASTER_PORT",
        "RANK",
        "LOCAL_RANK",
        "WORLD_SIZE",
        "LOCAL_WORLD_SIZE",
        "MPI_LOCALNRANKS",
        "OMPI_COMM_WORLD_LOCAL_SIZE",
        "MV2_COMM_WORLD_LOCAL_SIZE",
    }
)


def _scrubbed(name: str) -> bool:
    return name.startswith(_SCRUB_PREFIXES) or name in _SCRUB_NAMES


def _set_environ(target: Mapping[str, str]) -> None:
    """Make ``os.environ`` equal to ``target`` touching only the keys that differ."""
    for k in [k for k in os.environ if k not in target]:
        del os.environ[k]
    for k, v in target.items():
        if os.environ.get(k) != v:
            os.environ[k] = v


class _Sandbox:
    """Snapshot and exact restore of process-global state touched by a round trip."""

    def __enter__(self) -> _Sandbox:
        self.environ = dict(os.environ)
        self.argv_obj = sys.argv
        self.argv = list(sys.argv)
        self.cwd = os.getcwd()
        self._states: list[tuple[dict, dict]] = []
        self._snap_states()
        return self

    def _snap_states(self) -> None:
        """Accelerate's Borg singletons (only if accelerate.state is already imported)."""
        mod = sys.modules.get("accelerate.state")
        if mod is None or self._states:
            return
        for name in ("PartialState", "AcceleratorState", "GradientState"):
            cls = getattr(mod, name, None)
            shared = getattr(cls, "_shared_state", None)
            if isinstance(shared, dict):
                self._states.append((shared, dict(shared)))

    def after_import(self) -> None:
        self._snap_states()

    def __exit__(self, *exc_info: Any) -> None:
        for shared, saved in self._states:
            if shared != saved or list(shared) != list(saved):
                shared.clear()
                shared.update(saved)
        if os.getcwd() != self.cwd:
            os.chdir(self.cwd)
        if sys.argv is not self.argv_obj:
            sys.argv = self.argv_obj
        if sys.argv != self.argv:
            sys.argv[:] = self.argv
        _set_environ(self.environ)


class _CaptureHandler(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class _CpuFallbackNotice(logging.Filter):
    """Drops DeepSpeed's "Setting accelerator to CPU ..." record (deepspeed/accelerator/real_accelerator.py,
    ``get_accelerator``), and nothing else."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.filename == "real_accelerator.py"
                    and str(record.msg).startswith("Setting accelerator to CPU"))


@contextlib.contextmanager
def _quiet_cpu_accelerator_notice() -> Iterator[None]:
    """``import deepspeed`` detects the accelerator once and, on a machine without one, prints a WARNING line
    through its own stdout handler. That line is about the machine the replay runs on, not about the config,
    so it is kept off the user's screen: a filter on DeepSpeed's logger (created by name before deepspeed
    configures it, so the filter survives) drops that one record for the duration. Which accelerator DeepSpeed
    picks is not touched; every other DeepSpeed message still goes through."""
    ds_logger = logging.getLogger("DeepSpeed")
    notice = _CpuFallbackNotice()
    ds_logger.addFilter(notice)
    try:
        yield
    finally:
        ds_logger.removeFilter(notice)


@contextlib.contextmanager
def _capture_library_messages() -> Iterator[tuple[_CaptureHandler, list]]:
    """Python warnings (all of them, even if already shown once) and WARNING+ log records.

    DeepSpeed's logger does not propagate and prints to stdout through its own handler; that handler is
    muted while capturing (its level is restored afterwards), since every record becomes a finding.
    """
    handler = _CaptureHandler()
    ds_logger = logging.getLogger("DeepSpeed")
    loggers = [logging.getLogger(), ds_logger]
    muted = [(h, h.level) for h in ds_logger.handlers]
    for h, _ in muted:
        h.setLevel(logging.CRITICAL + 1)
    for lg in loggers:
        lg.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield handler, caught
    finally:
        for lg in loggers:
            lg.removeHandler(handler)
        for h, level in muted:
            h.setLevel(level)


@contextlib.contextmanager
def _pretend_cuda_device() -> Iterator[bool]:
    """GPU-less workaround #1 (FSDP plugin only).

    ``FullyShardedDataParallelPlugin.__post_init__`` (accelerate/utils/dataclasses.py, the
    ``if self.sync_module_states:`` block) picks ``torch.<device>.current_device()`` for its
    ``param_init_fn`` and raises ``RuntimeError: There are currently no available devices found`` when no
    accelerator exists. The launch default of ``fsdp_sync_module_states`` is true, so every FSDP1 config
    would fail here. When (and only when) none of accelerate's device probes finds a device, this makes
    ``accelerate.utils.dataclasses.is_cuda_available`` return True and ``torch.cuda.current_device``
    return 0 for the duration of the plugin construction; both are restored afterwards. The only effect
    on the plugin is the device captured by ``param_init_fn``, which the round trip does not report.
    """
    import accelerate.utils.dataclasses as dc
    import torch

    probes = (
        "is_npu_available",
        "is_mlu_available",
        "is_musa_available",
        "is_cuda_available",
        "is_xpu_available",
        "is_hpu_available",
        "is_neuron_available",
    )
    if any(getattr(dc, p)() for p in probes if hasattr(dc, p)):
        yield False
        return
    # accelerate 1.16 has no such probe there (it refuses sync_module_states on CPU outright): patch what this
    # accelerate has, so a newer one reports its own error as a finding rather than an AttributeError of ours
    saved_probe = getattr(dc, "is_cuda_available", None)
    saved_current = torch.cuda.current_device
    if saved_probe is not None:
        dc.is_cuda_available = lambda: True
    torch.cuda.current_device = lambda: 0
    try:
        yield True
    finally:
        if saved_probe is not None:
            dc.is_cuda_available = saved_probe
        torch.cuda.current_device = saved_current


@contextlib.contextmanager
def _port_probe_neutralised() -> Iterator[None]:
    """Machine-independence workaround #3 (launch stage only).

    ``prepare_multi_gpu_env`` / ``prepare_deepspeed_cmd_env`` probe ``localhost:main_process_port`` with
    ``is_port_in_use``: on one machine a busy port only adds a warning, but with ``num_machines > 1`` and
    ``machine_rank: 0`` it raises ``ConnectionError``. Whether port 29500 is busy on the machine running the
    wizard says nothing about the config, so the name ``is_port_in_use`` in ``accelerate.utils.launch`` answers
    False for the duration of the launch stage and is restored afterwards.
    """
    import accelerate.utils.launch as launch_mod

    saved = launch_mod.is_port_in_use
    launch_mod.is_port_in_use = lambda port=None: False
    try:
        yield
    finally:
        launch_mod.is_port_in_use = saved


@contextlib.contextmanager
def _deepspeed_world_size(world_size: int) -> Iterator[None]:
    """GPU-less / process-group-less workaround #2.

    ``DeepSpeedConfig.__init__`` (deepspeed/runtime/config.py) takes the world size from
    ``deepspeed.comm`` (``dist.get_rank()`` then ``dist.get_world_size()``) and silently falls back to
    world size 1 when no process group exists, before even looking at ``mpu`` - so passing an mpu does not
    help, and the batch assertion ``train_batch_size == micro * gas * world_size`` would be checked against
    1. The name ``dist`` in the module ``deepspeed.runtime.config`` is replaced, for the duration of one
    ``DeepSpeedConfig(...)`` call, by a shim answering rank 0 and the configured ``num_processes``; this is
    what ``deepspeed.initialize`` sees on a real node without sequence parallelism (mpu=None,
    mesh_device=None). The real ``deepspeed.comm`` module is not touched.
    """
    import deepspeed.runtime.config as ds_config_mod

    saved = ds_config_mod.dist
    ds_config_mod.dist = _DistShim(world_size)
    try:
        yield
    finally:
        ds_config_mod.dist = saved


@contextlib.contextmanager
def _fp8_package_answered(backend: str | None) -> Iterator[str | None]:
    """Machine-independence workaround #5 (fp8 only): the fp8 package the training node has, missing here.

    ``accelerate launch`` and ``AcceleratorState`` refuse ``mixed_precision: fp8`` where none of torchao, Transformer
    Engine and MS-AMP is installed (``is_fp8_available``), and ``TERecipeKwargs`` / ``AORecipeKwargs`` check their
    own package first thing in ``__post_init__``, before they read the environment. When the package of ``backend``
    (``"TE"``, ``"AO"``, ``"MSAMP"``; None: the launch stage, any package) is not installed here, those checks answer
    yes for the duration of one stage, and for torchao a stand-in ``torchao.float8`` module gives a
    ``Float8LinearConfig`` that keeps the arguments it is given (what AORecipeKwargs builds from the environment).
    Yields the package's name in words when something was answered (the round trip says so in a finding), None when
    the real package is there. Everything is restored afterwards.
    """
    import importlib.util
    import types

    import accelerate.utils.dataclasses as dc
    import accelerate.utils.launch as launch_mod

    from ..library.launcher import FP8_PACKAGES

    names = [FP8_PACKAGES[backend]] if backend in FP8_PACKAGES else list(FP8_PACKAGES.values())
    if any(importlib.util.find_spec(module) is not None for module, _ in names):
        yield None
        return
    saved = [(mod, attr, getattr(mod, attr)) for mod, attr in (
        (launch_mod, "is_fp8_available"), (dc, "is_transformer_engine_available"), (dc, "is_torchao_available"))
        if hasattr(mod, attr)]
    for mod, attr, _ in saved:
        setattr(mod, attr, lambda *a, **k: True)
    stand_in = {}
    if backend == "AO":
        float8 = types.ModuleType("torchao.float8")
        float8.Float8LinearConfig = lambda **kwargs: types.SimpleNamespace(**kwargs)  # type: ignore[attr-defined]
        stand_in = {"torchao": types.ModuleType("torchao"), "torchao.float8": float8}
    before = {name: sys.modules.get(name) for name in stand_in}
    sys.modules.update(stand_in)
    try:
        yield " / ".join(words for _, words in names)
    finally:
        for mod, attr, value in saved:
            setattr(mod, attr, value)
        for name, value in before.items():
            if value is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = value
