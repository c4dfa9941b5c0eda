"""Round trip of an accelerate config through the real accelerate and DeepSpeed code.

No training is launched and no process group is created. The stages mirror what really happens
(see docs/library-behaviour.md#how-a-config-reaches-the-libraries):

1. **load** (rule ``verify-load``): ``accelerate.commands.config.config_args.load_config_from_file``
   (``ClusterConfig.from_yaml_file``).
2. **launch** (``verify-launch``): ``launch_command_parser().parse_args(['--config_file', path, 'train.py'])``,
   ``_validate_launch_command(args)``, then the env preparation of the launcher ``launch_command`` would
   pick: ``prepare_deepspeed_cmd_env`` (DeepSpeed, after setting ``deepspeed_fields_from_accelerate_config``
   exactly as ``launch_command`` does), ``prepare_multi_gpu_env`` (FSDP / MULTI_GPU / Megatron) or
   ``prepare_simple_launcher_cmd_env`` (anything else but TPU/SageMaker). The exported environment is
   applied the way ``patch_environment`` does (upper-cased keys, ``str()`` values).
3. **plugin** (``verify-plugin``): in an environment made of the exported variables only, the objects
   ``Accelerator.__init__`` builds, in its order: ``TorchDynamoPlugin()``, ``DeepSpeedPlugin()``,
   ``FullyShardedDataParallelPlugin()``, ``ParallelismConfig()``; then what ``AcceleratorState`` does with
   mixed precision (``plugin.set_mixed_precision``), ``ParallelismConfig._validate_accelerator`` and the
   ``int(ACCELERATE_GRADIENT_ACCUMULATION_STEPS)`` of ``Accelerator.__init__``. The first exception
   stops the stage, as it would stop the real ``Accelerator()``.
4. **deepspeed config** (``verify-deepspeed-config``): the ``"auto"`` filling of
   ``Accelerator._prepare_deepspeed`` for a plain torch model + optimizer + one DataLoader, done with the
   plugin's own ``fill_match`` / ``deepspeed_config_process``, then deepspeed's own
   ``deepspeed.runtime.config.DeepSpeedConfig`` on the final dict.

With ``trainer_arguments`` (the Hugging Face Trainer is the training loop), stage 3 builds the real
``transformers.TrainingArguments`` from them in the exported environment (it makes the DeepSpeedPlugin from the
launcher's variables and decides the precision the Trainer hands its Accelerator), and stage 4 replays the
Trainer's path instead: ``propagate_args_to_deepspeed`` (``HfTrainerDeepSpeedConfig.trainer_config_process``),
``trainer_config_finalize(args, model, num_training_steps)`` (its mismatch ``ValueError`` included), then
accelerate's own filling for the Trainer's ``prepare(model, optimizer)`` (no DataLoader, an Accelerator told 1
accumulation step) and DeepSpeed's ``DeepSpeedConfig``. ``TrainingArguments.world_size`` is answered with
``num_processes`` (workaround #4: no process group exists), and transformers' global DeepSpeed config reference
is cleared afterwards.

The round trip models a GPU training node, not the machine running it. Three things are neutralised,
each only for the duration of one stage and restored afterwards: the device lookup of the FSDP plugin
(``_pretend_cuda_device``, only when no accelerator exists), the world size DeepSpeedConfig reads from a
missing process group (``_deepspeed_world_size``) and the launcher's local port probe
(``_port_probe_neutralised``). Python warnings and WARNING log records emitted in stages 3 and 4 become
``verify-library-warning`` findings.

torch / accelerate / deepspeed are imported only inside functions. ``os.environ``, ``sys.argv``, the
working directory, accelerate's singleton states and every patched attribute are restored exactly.
"""
from __future__ import annotations

import contextlib
import copy
import logging
import math
import os
import re
import sys
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import PurePath
from typing import Any

from ..findings import ERROR, WARNING, Finding
from ..vocab import FALSE_WORDS, TRUE_WORDS
from ..wizard_rules import VERIFY_DS_CONFIG as RULE_DS_CONFIG  # the registered names (docs/rules.md)
from ..wizard_rules import VERIFY_LAUNCH as RULE_LAUNCH
from ..wizard_rules import VERIFY_LIBRARY_WARNING as RULE_LIBRARY_WARNING
from ..wizard_rules import VERIFY_LOAD as RULE_LOAD
from ..wizard_rules import VERIFY_MISMATCH as RULE_MISMATCH
from ..wizard_rules import VERIFY_PLUGIN as RULE_PLUGIN
from . import keys as K

_SOURCE = "docs/library-behaviour.md#how-a-config-reaches-the-libraries; wizard/core/verify/roundtrip.py round trip"

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

@dataclass
class Effective:
    """What the libraries make of one accelerate config file.

    ``fsdp`` keys: fsdp_version, sharding_strategy (ShardingStrategy name, v1; None for v2),
    reshard_after_forward (bool for v2; for v1 the ShardingStrategy name of the fallback or None),
    cpu_offload, auto_wrap_policy (TRANSFORMER_BASED_WRAP / SIZE_BASED_WRAP / NO_WRAP),
    transformer_cls_names_to_wrap, min_num_params, backward_prefetch, forward_prefetch, state_dict_type,
    use_orig_params, sync_module_states, cpu_ram_efficient_loading, activation_checkpointing,
    activation_checkpointing_offload, ignored_modules, mixed_precision_policy (bool: a policy is set),
    param_dtype, reduce_dtype, buffer_dtype (v1), output_dtype (v2) (``"bfloat16"``-style names or None).

    ``deepspeed`` keys: ``config`` (the final DeepSpeed dict handed to ``deepspeed.initialize``, or the
    furthest stage reached), ``config_file`` (resolved ``deepspeed_config_file`` or None), ``zero_stage``
    and ``zero3_init_flag`` (plugin attributes), ``gradient_accumulation_steps`` (the Accelerator's value
    after ``_prepare_deepspeed``), ``validated`` (values DeepSpeedConfig derived, or None when it failed).
    """

    path: str = ""
    distributed_type: str | None = None
    num_processes: int | None = None
    num_machines: int | None = None
    env: dict[str, str] = field(default_factory=dict)
    fsdp: dict | None = None
    deepspeed: dict | None = None
    mixed_precision: str | None = None
    dynamo_backend: str | None = None
    parallelism: dict | None = None
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)


# ==================================================================================================
# Public API


def effective_config(
    yaml_path: str | os.PathLike,
    *,
    micro_batch_size: int = 1,
    hidden_size: int | None = None,
    optimizer: str = "auto",
    scheduler: str = "auto",
    launch_dir: str | os.PathLike | None = None,
    trainer_arguments: Mapping[str, Any] | None = None,
    num_training_steps: int = 100,
) -> Effective:
    """Run ``yaml_path`` through accelerate's launcher and plugins and DeepSpeed's config validation.

    micro_batch_size: batch size of the DataLoader passed to ``prepare`` (fills
        ``train_micro_batch_size_per_gpu: "auto"``).
    hidden_size: ``model.config.hidden_size`` of the model; None means a plain ``nn.Module`` without
        ``config`` (hidden-size ``"auto"`` keys then fail exactly as in accelerate).
    optimizer: ``"torch"`` (a torch optimizer), ``"dummy"`` (``accelerate.utils.DummyOptim``), ``"none"``,
        or ``"auto"``: DummyOptim when the DeepSpeed dict has an ``optimizer`` section, else torch.
    scheduler: ``"dummy"`` (DummyScheduler), ``"none"``, or ``"auto"``: DummyScheduler when the dict has a
        ``scheduler`` section, else none.
    launch_dir: the directory ``accelerate launch`` is run from (relative ``deepspeed_config_file`` paths
        are resolved against it); default: the current directory.
    trainer_arguments: the Hugging Face Trainer drives training, with ``TrainingArguments(**trainer_arguments)``
        (``output_dir`` is a scratch folder); None: an own Accelerator loop. ``num_training_steps`` is what the
        Trainer passes to ``trainer_config_finalize``.

    Never raises for a bad config: every failure becomes a finding.
    """
    yaml_abs = os.path.abspath(os.fspath(yaml_path))
    eff = Effective(path=yaml_abs)
    run = _RoundTrip(
        eff,
        yaml_abs=yaml_abs,
        file_key=os.fspath(yaml_path),
        micro_batch_size=micro_batch_size,
        hidden_size=hidden_size,
        optimizer=optimizer,
        scheduler=scheduler,
        launch_dir=None if launch_dir is None else os.path.abspath(os.fspath(launch_dir)),
        trainer_arguments=None if trainer_arguments is None else dict(trainer_arguments),
        num_training_steps=num_training_steps,
    )
    with _Sandbox() as sandbox:
        try:
            run.execute(sandbox)
        except Exception as exc:  # a failure of this module's own glue: report, never raise
            eff.findings.append(_finding(ERROR, run.stage_rule, [run.file_key], exc))
    return eff


def flatten_effective(e: Effective) -> dict[str, object]:
    """Stable dotted keys for comparison.

    ``distributed_type``, ``num_processes``, ``num_machines``, ``mixed_precision``, ``dynamo_backend``;
    ``env.<VAR>`` for each exported variable; ``fsdp.<field>`` (see :class:`Effective`);
    ``deepspeed.<path>`` for every leaf of the final DeepSpeed dict (``deepspeed.zero_optimization.stage``,
    ``deepspeed.zero_optimization.offload_param.device``, ``deepspeed.gradient_clipping``, ...; lists and
    empty dicts are leaves); ``deepspeed_plugin.{config_file,zero_stage,zero3_init_flag,
    gradient_accumulation_steps}``; ``deepspeed_validated.<name>`` (what DeepSpeedConfig derived:
    world_size, zero_stage, offload_{param,optimizer}_{device,nvme_path}, gradient_clipping,
    gradient_accumulation_steps, train_batch_size, train_micro_batch_size_per_gpu, fp16_enabled,
    bf16_enabled, zero_allow_untested_optimizer, gather_16bit_weights_on_model_save);
    ``parallelism.<size>``. Sections that were not reached are absent.
    """
    out: dict[str, object] = {
        "distributed_type": e.distributed_type,
        "num_processes": e.num_processes,
        "num_machines": e.num_machines,
        "mixed_precision": e.mixed_precision,
        "dynamo_backend": e.dynamo_backend,
    }
    for name in sorted(e.env):
        out[f"env.{name}"] = e.env[name]
    if e.fsdp is not None:
        for k, v in e.fsdp.items():
            out[f"fsdp.{k}"] = v
    if e.deepspeed is not None:
        _flatten_into(e.deepspeed.get("config") or {}, "deepspeed", out)
        for k in ("config_file", "zero_stage", "zero3_init_flag", "gradient_accumulation_steps"):
            if k in e.deepspeed:
                out[f"deepspeed_plugin.{k}"] = e.deepspeed[k]
        validated = e.deepspeed.get("validated")
        if validated is not None:
            for k, v in validated.items():
                out[f"deepspeed_validated.{k}"] = v
    if e.parallelism is not None:
        for k, v in e.parallelism.items():
            out[f"parallelism.{k}"] = v
    return out


def compare(expected: Mapping[str, object], effective: Mapping[str, object]) -> list[Finding]:
    """One ``verify-mismatch`` ERROR per expected dotted key whose effective value differs.

    A key absent from ``effective`` counts as None. Equivalences: bools vs truth strings
    (``"true"``/``"false"``/``"yes"``/``"1"``...), enum members vs their names or values, numbers vs equal
    numbers (int/float) or numeric strings, ``Path`` vs ``str`` (normalised), torch dtypes vs their names
    (``torch.bfloat16`` ~ ``"bfloat16"``), lists vs tuples vs comma-separated strings, nested dicts.
    """
    findings = []
    for key, exp in expected.items():
        got = effective.get(key)
        if not values_equal(exp, got):
            present = key in effective
            findings.append(
                Finding(
                    ERROR,
                    RULE_MISMATCH,
                    (key,),
                    f"{key}: expected {exp!r}, effective {got!r}"
                    + ("" if present else " (not present in the effective config)"),
                    source=_SOURCE,
                )
            )
    return findings


# ==================================================================================================
# Value comparison



def _is_dtype(x: Any) -> bool:
    t = type(x)
    return t.__name__ == "dtype" and t.__module__ == "torch"


def _scalar_norm(x: Any) -> Any:
    if _is_dtype(x):
        return str(x).removeprefix("torch.")
    if isinstance(x, PurePath):
        return os.path.normpath(str(x))
    return x


def values_equal(a: Any, b: Any) -> bool:
    """Equality with the obvious equivalences documented in :func:`compare`."""
    a, b = _scalar_norm(a), _scalar_norm(b)
    if isinstance(a, Enum) or isinstance(b, Enum):
        if isinstance(a, Enum) and isinstance(b, Enum):
            return a is b or (a.name == b.name and a.value == b.value)
        enum, other = (a, b) if isinstance(a, Enum) else (b, a)
        if isinstance(other, str):
            return other in (enum.name, str(enum.value))
        return values_equal(enum.value, other)
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        if isinstance(a, bool) and isinstance(b, bool):
            return a == b
        flag, other = (a, b) if isinstance(a, bool) else (b, a)
        if isinstance(other, str):
            low = other.strip().lower()
            return low in (TRUE_WORDS if flag else FALSE_WORDS)
        return False
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return a == b
    if isinstance(a, (int, float)) != isinstance(b, (int, float)):
        num, other = (a, b) if isinstance(a, (int, float)) else (b, a)
        if isinstance(other, str):
            try:
                return float(other) == float(num)
            except ValueError:
                return False
        return False
    if isinstance(a, str) and isinstance(b, str):
        if a == b:
            return True
        if os.sep in a or os.sep in b:
            return os.path.normpath(a) == os.path.normpath(b)
        return False
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if set(a) != set(b):
            return False
        return all(values_equal(a[k], b[k]) for k in a)
    seq = (list, tuple)
    if isinstance(a, str) and isinstance(b, seq):
        a = [s.strip() for s in a.split(",")]
    elif isinstance(b, str) and isinstance(a, seq):
        b = [s.strip() for s in b.split(",")]
    if isinstance(a, seq) and isinstance(b, seq):
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _flatten_into(node: Mapping[str, Any], prefix: str, out: dict[str, object]) -> None:
    for k, v in node.items():
        key = f"{prefix}.{k}"
        if isinstance(v, Mapping) and v:
            _flatten_into(v, key, out)
        else:
            out[key] = v


# ==================================================================================================
# Guards


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


class _DistShim:
    """Stands in for ``deepspeed.comm`` inside ``DeepSpeedConfig.__init__`` only."""

    def __init__(self, world_size: int) -> None:
        self._world_size = world_size

    def get_rank(self, group: Any = None) -> int:
        return 0

    def get_world_size(self, group: Any = None) -> int:
        return self._world_size


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


# ==================================================================================================
# The round trip


def _finding(severity: str, rule: str, keys: list[str], exc: BaseException | str, fix: str = "") -> Finding:
    if isinstance(exc, BaseException):
        message = f"{type(exc).__name__}: {exc}"
    else:
        message = exc
    return Finding(severity, rule, tuple(keys), message, fix=fix, source=_SOURCE)


def _dtype_name(x: Any) -> str | None:
    return None if x is None else str(x).removeprefix("torch.")


def _enum_name(x: Any) -> Any:
    return x.name if isinstance(x, Enum) else x


def _enum_value(x: Any) -> Any:
    return x.value if isinstance(x, Enum) else x


class _RoundTrip:
    def __init__(
        self,
        eff: Effective,
        *,
        yaml_abs: str,
        file_key: str,
        micro_batch_size: int,
        hidden_size: int | None,
        optimizer: str,
        scheduler: str,
        launch_dir: str | None,
        trainer_arguments: dict[str, Any] | None = None,
        num_training_steps: int = 100,
    ) -> None:
        self.eff = eff
        self.trainer_arguments = trainer_arguments
        self.num_training_steps = num_training_steps
        self.training_args: Any = None
        self.yaml_abs = yaml_abs
        self.file_key = file_key
        self.micro_batch_size = micro_batch_size
        self.hidden_size = hidden_size
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.launch_dir = launch_dir
        self.stage_rule = RULE_LOAD
        self.raw: Mapping[str, Any] | None = None

    # -- helpers -------------------------------------------------------------------------------
    def error(self, rule: str, keys: list[str], exc: BaseException | str) -> None:
        self.eff.findings.append(_finding(ERROR, rule, keys or [self.file_key], exc))

    def warn(self, keys: list[str], message: str) -> None:
        f = _finding(WARNING, RULE_LIBRARY_WARNING, keys or [self.file_key], message)
        if f not in self.eff.findings:
            self.eff.findings.append(f)

    def collect(self, handler: _CaptureHandler, caught: list) -> None:
        for w in caught:
            text = str(w.message)
            self.warn(self._warning_keys(text), f"{w.category.__name__}: {text}")
        for rec in handler.records:
            text = rec.getMessage()
            self.warn(self._warning_keys(text), f"{rec.levelname} [{rec.name}]: {text}")
        handler.records.clear()
        caught.clear()

    def _warning_keys(self, text: str) -> list[str]:
        for needle, arg in (
            ("backward_prefetch", "fsdp_backward_prefetch"),
            ("use_orig_params", "fsdp_use_orig_params"),
            ("sync_module_states", "fsdp_sync_module_states"),
            ("ignored_modules", "fsdp_ignored_modules"),
            ("sharding_strategy", "fsdp_sharding_strategy"),
        ):
            if needle in text and self.eff.distributed_type == "FSDP":
                return [K.fsdp_yaml_key(self.raw, arg)]
        if "Zero3 Init flag" in text:
            return ["deepspeed_config.zero3_init_flag"]
        m = re.search(r"Config parameter (\w+) is deprecated", text)
        if m and self.eff.deepspeed is not None:
            path = _find_key_path(self.eff.deepspeed.get("config") or {}, m.group(1))
            if path:
                return [path]
        if "Gradient accumulation steps mismatch" in text:
            return ["gradient_accumulation_steps"]
        return []

    # -- driver --------------------------------------------------------------------------------
    def execute(self, sandbox: _Sandbox) -> None:
        self.stage_rule = RULE_LOAD
        if not self._import_libraries():
            return
        sandbox.after_import()
        defaults = self._load()
        if defaults is None:
            return
        self.stage_rule = RULE_LAUNCH
        baseline = {k: v for k, v in sandbox.environ.items() if not _scrubbed(k)}
        _set_environ(baseline)
        if self.launch_dir is not None:
            os.chdir(self.launch_dir)
        exported = self._launch(baseline)
        if exported is None:
            return
        self.stage_rule = RULE_PLUGIN
        _set_environ({**baseline, **exported})
        self._plugins()

    def _import_libraries(self) -> bool:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # torch, then accelerate, then deepspeed (as they depend on each other): the first import that
                # fails is the one reported, so the order is kept
                # isort: off
                import torch  # noqa: F401
                import torch.distributed.fsdp  # noqa: F401
                import torch.distributed.fsdp.wrap  # noqa: F401
                import accelerate  # noqa: F401
                import accelerate.commands.launch  # noqa: F401
                import accelerate.utils.launch  # noqa: F401
                import accelerate.utils.dataclasses  # noqa: F401
                import accelerate.parallelism_config  # noqa: F401
                import deepspeed  # noqa: F401
                import deepspeed.runtime.config  # noqa: F401
                if self.trainer_arguments is not None:
                    import transformers  # noqa: F401
                    import transformers.integrations.deepspeed  # noqa: F401
                    import transformers.training_args  # noqa: F401
                # isort: on
        except Exception as exc:
            self.error(RULE_LOAD, [self.file_key], exc)
            return False
        return True

    # -- stage 1 -------------------------------------------------------------------------------
    def _load(self) -> Any:
        import yaml
        from accelerate.commands.config.config_args import ClusterConfig, load_config_from_file

        try:
            with open(self.yaml_abs, encoding="utf-8") as f:
                raw = yaml.safe_load(f)
            self.raw = raw if isinstance(raw, Mapping) else None
        except Exception:
            self.raw = None  # load_config_from_file reports it
        try:
            defaults = load_config_from_file(self.yaml_abs)
        except Exception as exc:
            self.error(RULE_LOAD, K.load_error_keys(exc), exc)
            return None
        if not isinstance(defaults, ClusterConfig):
            self.error(RULE_LOAD, ["compute_environment"], "only LOCAL_MACHINE configs can be verified")
            return None
        dt = defaults.distributed_type
        self.eff.distributed_type = dt.value if isinstance(dt, Enum) else str(dt)
        return defaults

    # -- stage 2 -------------------------------------------------------------------------------
    def _launch(self, baseline: Mapping[str, str]) -> dict[str, str] | None:
        from accelerate.commands.config.config_args import ComputeEnvironment
        from accelerate.commands.launch import _validate_launch_command, launch_command_parser
        from accelerate.utils.launch import (
            prepare_deepspeed_cmd_env,
            prepare_multi_gpu_env,
            prepare_simple_launcher_cmd_env,
        )

        try:
            # Launch-stage warnings describe this machine (e.g. a busy port), not the config: dropped.
            with warnings.catch_warnings(record=True), _port_probe_neutralised():
                warnings.simplefilter("always")
                args = launch_command_parser().parse_args(["--config_file", self.yaml_abs, "train.py"])
                args, defaults, mp_from_config_flag = _validate_launch_command(args)
                self.eff.num_processes = args.num_processes
                self.eff.num_machines = args.num_machines
                # Dispatch exactly as accelerate/commands/launch.py:launch_command.
                if args.use_deepspeed and not args.cpu:
                    fields = list(defaults.deepspeed_config.keys()) if defaults else []
                    if mp_from_config_flag:
                        fields.append("mixed_precision")
                    args.deepspeed_fields_from_accelerate_config = ",".join(fields)
                    _, current_env = prepare_deepspeed_cmd_env(args)
                elif (args.use_fsdp or args.use_megatron_lm or args.multi_gpu) and not args.cpu:
                    current_env = prepare_multi_gpu_env(args)
                elif args.tpu and not args.cpu:
                    current_env = dict(os.environ)  # TPU launchers are not modelled
                elif defaults is not None and defaults.compute_environment == ComputeEnvironment.AMAZON_SAGEMAKER:
                    current_env = dict(os.environ)
                else:
                    _, current_env = prepare_simple_launcher_cmd_env(args)
        except Exception as exc:
            self.error(RULE_LAUNCH, K.launch_error_keys(exc, self.raw), exc)
            return None
        # patch_environment semantics: upper-cased keys, str() values.
        exported = {}
        for k, v in current_env.items():
            key, value = str(k).upper(), str(v)
            if baseline.get(key) != value:
                exported[key] = value
        self.eff.env = dict(sorted(exported.items()))
        return self.eff.env

    # -- stage 3 -------------------------------------------------------------------------------
    def _plugins(self) -> None:
        with _capture_library_messages() as (handler, caught):
            try:
                self._plugins_inner()
            finally:
                self.collect(handler, caught)

    def _plugins_inner(self) -> None:
        from accelerate.parallelism_config import ParallelismConfig
        from accelerate.utils import (
            DeepSpeedPlugin,
            DistributedType,
            FullyShardedDataParallelPlugin,
            TorchDynamoPlugin,
        )
        from accelerate.utils.environment import parse_choice_from_env, parse_flag_from_env
        from accelerate.utils.imports import is_fp8_available

        env = dict(os.environ)
        eff = self.eff
        use_ds = env.get("ACCELERATE_USE_DEEPSPEED", "false").lower() == "true"
        use_fsdp = env.get("ACCELERATE_USE_FSDP", "false").lower() == "true"

        # Accelerator.__init__: dynamo plugin
        try:
            dynamo = TorchDynamoPlugin()
        except Exception as exc:
            self.error(RULE_PLUGIN, ["dynamo_config.dynamo_backend"], exc)
            return
        backend = dynamo.backend
        eff.dynamo_backend = str(backend.value) if isinstance(backend, Enum) else str(backend)

        # The Trainer: TrainingArguments(...) builds the DeepSpeedPlugin from env and decides the precision
        trainer_mp = None
        ds_plugin = None
        if self.trainer_arguments is not None:
            try:
                self.training_args = _training_arguments(self.trainer_arguments)
            except Exception as exc:
                self.error(RULE_PLUGIN, K.ds_plugin_error_keys(exc, env) if use_ds else [], exc)
                return
            trainer_mp = self.training_args.mixed_precision  # Trainer._build_accelerator_args
            ds_plugin = self.training_args.deepspeed_plugin if use_ds else None

        # Accelerator.__init__: DeepSpeedPlugin() from env
        if use_ds and ds_plugin is None:
            try:
                ds_plugin = DeepSpeedPlugin()
            except Exception as exc:
                self.error(RULE_PLUGIN, K.ds_plugin_error_keys(exc, env), exc)
                return

        # Accelerator.__init__: FullyShardedDataParallelPlugin() from env
        fsdp_plugin = None
        if use_fsdp:
            try:
                with _pretend_cuda_device():
                    fsdp_plugin = FullyShardedDataParallelPlugin()
            except Exception as exc:
                self.error(RULE_PLUGIN, K.fsdp_error_keys(exc, env, self.raw), exc)
                return

        # Accelerator.__init__: ParallelismConfig() from env
        parallelism = None
        if env.get("ACCELERATE_USE_PARALLELISM_CONFIG", "false").lower() == "true":
            try:
                parallelism = ParallelismConfig()
            except Exception as exc:
                self.error(RULE_PLUGIN, ["parallelism_config"], exc)
                return
            eff.parallelism = _parallelism_summary(parallelism)

        # AcceleratorState.__init__ (accelerate/state.py): mixed precision handling.
        cpu = parse_flag_from_env("ACCELERATE_USE_CPU")
        mixed_precision = parse_choice_from_env("ACCELERATE_MIXED_PRECISION", "no")
        if trainer_mp is not None:
            mixed_precision = trainer_mp  # Accelerator(mixed_precision=args.mixed_precision) beats the env
        try:
            if mixed_precision == "fp8" and not is_fp8_available():
                raise ValueError("Using `fp8` precision requires `transformer_engine` or `MS-AMP` to be installed.")
            # (On CUDA without fp8 capability AcceleratorState falls back to fp16: hardware, not modelled.)
            if ds_plugin is not None and not cpu:  # use_ds: the plugin was built above
                distributed_type = DistributedType.DEEPSPEED
                internal_mp = "no" if mixed_precision != "fp8" else mixed_precision
                ds_plugin.set_mixed_precision(mixed_precision)
            elif use_fsdp or (parallelism is not None and parallelism.cp_enabled):
                # On a GPU node PartialState reports MULTI_GPU, which AcceleratorState turns into FSDP.
                distributed_type = DistributedType.FSDP
                internal_mp = mixed_precision
                if internal_mp != "no" and fsdp_plugin is not None:
                    fsdp_plugin.set_mixed_precision(internal_mp)
            else:
                distributed_type = None
                internal_mp = mixed_precision
        except Exception as exc:
            keys = ["mixed_precision"] if "mixed precision" in str(exc).lower() or "fp8" in str(exc) else []
            if use_ds and not keys:
                keys = K.ds_plugin_error_keys(exc, env)
            self.error(RULE_PLUGIN, keys, exc)
            return

        # AcceleratorState.mixed_precision property
        if ds_plugin is not None and distributed_type == DistributedType.DEEPSPEED and internal_mp != "fp8":
            cfg = ds_plugin.deepspeed_config
            if cfg.get("fp16", {}).get("enabled", False):
                eff.mixed_precision = "fp16"
            elif cfg.get("bf16", {}).get("enabled", False):
                eff.mixed_precision = "bf16"
            else:
                eff.mixed_precision = "no"
        else:
            eff.mixed_precision = internal_mp

        if fsdp_plugin is not None:
            eff.fsdp = self._fsdp_summary(fsdp_plugin)

        if ds_plugin is not None:
            eff.deepspeed = {
                "config": copy.deepcopy(ds_plugin.deepspeed_config),
                "config_file": self._ds_config_file(env),
                "zero_stage": ds_plugin.zero_stage,
                "zero3_init_flag": ds_plugin.zero3_init_flag,
                "gradient_accumulation_steps": None,
                "validated": None,
            }
            # NOTE: AcceleratorState also calls ds_plugin.select() -> set_deepspeed_weakref(), which needs
            # `transformers` installed in the training environment; that is not reproduced here.

        # Accelerator.__init__: ParallelismConfig._validate_accelerator
        if parallelism is not None:
            try:
                parallelism._validate_accelerator(
                    _AcceleratorStub(distributed_type, eff.num_processes or 1, fsdp_plugin)
                )
            except Exception as exc:
                self.error(RULE_PLUGIN, ["parallelism_config"], exc)
                return
            eff.parallelism = _parallelism_summary(parallelism)  # _validate_accelerator may resize

        # Accelerator.__init__: gradient accumulation steps from the env (the Trainer passes num_steps=1)
        try:
            accel_gas = int(parse_choice_from_env("ACCELERATE_GRADIENT_ACCUMULATION_STEPS", 1))
        except Exception as exc:
            self.error(RULE_PLUGIN, ["deepspeed_config.gradient_accumulation_steps"], exc)
            return
        if self.training_args is not None:
            accel_gas = 1  # transformers/trainer.py create_accelerator_and_postprocess

        if ds_plugin is not None:
            self.stage_rule = RULE_DS_CONFIG
            self._deepspeed(ds_plugin, accel_gas, parallelism)

    @staticmethod
    def _ds_config_file(env: Mapping[str, str]) -> str | None:
        value = env.get("ACCELERATE_DEEPSPEED_CONFIG_FILE")
        if value is None or value == "none":
            return None
        return os.path.abspath(value) if os.path.exists(value) else value

    @staticmethod
    def _fsdp_summary(p: Any) -> dict:
        from torch.distributed.fsdp.wrap import size_based_auto_wrap_policy, transformer_auto_wrap_policy

        version = p.fsdp_version
        policy = p.auto_wrap_policy
        if policy is transformer_auto_wrap_policy:
            policy_name = "TRANSFORMER_BASED_WRAP"
        elif policy is size_based_auto_wrap_policy:
            policy_name = "SIZE_BASED_WRAP"
        elif policy is None:
            policy_name = "NO_WRAP"
        else:
            policy_name = repr(policy)

        offload = p.cpu_offload
        if hasattr(offload, "offload_params"):  # FSDP1 CPUOffload
            cpu_offload = bool(offload.offload_params)
        else:  # FSDP2 OffloadPolicy / CPUOffloadPolicy
            cpu_offload = type(offload).__name__ == "CPUOffloadPolicy"

        rab = p.reshard_after_forward
        reshard = rab if isinstance(rab, bool) or rab is None else _enum_name(rab)

        mp = p.mixed_precision_policy
        names = p.transformer_cls_names_to_wrap
        return {
            "fsdp_version": version,
            "sharding_strategy": None if p.sharding_strategy is None else _enum_name(p.sharding_strategy),
            "reshard_after_forward": reshard,
            "cpu_offload": cpu_offload,
            "auto_wrap_policy": policy_name,
            "transformer_cls_names_to_wrap": None if names is None else list(names),
            "min_num_params": p.min_num_params,
            "backward_prefetch": None if p.backward_prefetch is None else _enum_name(p.backward_prefetch),
            "forward_prefetch": p.forward_prefetch,
            "state_dict_type": None if p.state_dict_type is None else _enum_name(p.state_dict_type),
            "use_orig_params": p.use_orig_params,
            "sync_module_states": p.sync_module_states,
            "cpu_ram_efficient_loading": p.cpu_ram_efficient_loading,
            "activation_checkpointing": p.activation_checkpointing,
            "activation_checkpointing_offload": p.activation_checkpointing_offload,
            "ignored_modules": p.ignored_modules,
            "mixed_precision_policy": mp is not None,
            "param_dtype": _dtype_name(getattr(mp, "param_dtype", None)),
            "reduce_dtype": _dtype_name(getattr(mp, "reduce_dtype", None)),
            "buffer_dtype": _dtype_name(getattr(mp, "buffer_dtype", None)),
            "output_dtype": _dtype_name(getattr(mp, "output_dtype", None)),
        }

    # -- stage 4 -------------------------------------------------------------------------------
    def _deepspeed(self, plugin: Any, accel_gas: int, parallelism: Any) -> None:
        from deepspeed.runtime.config import DeepSpeedConfig

        ds = self.eff.deepspeed
        if ds is None:  # _plugins fills it in with the plugin before it calls this
            return
        inline = ds["config_file"] is None
        try:
            if self.training_args is not None:
                self._trainer_fill(plugin)
            gas = self._fill_auto(plugin, accel_gas, parallelism)
        except Exception as exc:
            ds["config"] = copy.deepcopy(plugin.deepspeed_config)
            # the Trainer's mismatch ValueError lists each key: "- ds gradient_accumulation_steps=8 vs hf ..."
            keys = re.findall(r"^- ds ([\w.]+)=", str(exc), flags=re.MULTILINE)
            self.error(RULE_DS_CONFIG, keys or K.ds_config_error_keys(exc, plugin.deepspeed_config, inline), exc)
            return
        final = plugin.deepspeed_config
        ds["config"] = copy.deepcopy(final)
        ds["gradient_accumulation_steps"] = gas
        try:
            with _deepspeed_world_size(int(self.eff.num_processes or 1)):
                cfg = DeepSpeedConfig(copy.deepcopy(final))
        except Exception as exc:
            self.error(RULE_DS_CONFIG, K.ds_config_error_keys(exc, final, inline), exc)
            return
        z = cfg.zero_config
        op, oo = z.offload_param, z.offload_optimizer
        ds["validated"] = {
            "world_size": cfg.world_size,
            "zero_stage": int(cfg.zero_optimization_stage),
            "offload_param_device": None if op is None else _enum_value(op.device),
            "offload_param_nvme_path": None if op is None or op.nvme_path is None else str(op.nvme_path),
            "offload_optimizer_device": None if oo is None else _enum_value(oo.device),
            "offload_optimizer_nvme_path": None if oo is None or oo.nvme_path is None else str(oo.nvme_path),
            "gradient_clipping": cfg.gradient_clipping,
            "gradient_accumulation_steps": cfg.gradient_accumulation_steps,
            "train_batch_size": cfg.train_batch_size,
            "train_micro_batch_size_per_gpu": cfg.train_micro_batch_size_per_gpu,
            "fp16_enabled": bool(cfg.float16_config.enabled),
            "bf16_enabled": bool(cfg.bfloat16_config.enabled),
            "zero_allow_untested_optimizer": bool(cfg.zero_allow_untested_optimizer),
            "gather_16bit_weights_on_model_save": bool(z.gather_16bit_weights_on_model_save),
            # the ZeRO sizes and switches the memory estimate reads (the effective model states them too)
            "reduce_bucket_size": z.reduce_bucket_size,
            "allgather_bucket_size": z.allgather_bucket_size,
            "prefetch_bucket_size": z.prefetch_bucket_size,
            "max_live_parameters": z.max_live_parameters,
            "param_persistence_threshold": z.param_persistence_threshold,
            "sub_group_size": z.sub_group_size,
            "zero_hpz_partition_size": z.zero_hpz_partition_size,
            "overlap_comm": bool(z.overlap_comm),
        }

    def _trainer_fill(self, plugin: Any) -> None:
        """transformers ``propagate_args_to_deepspeed`` (Trainer.create_accelerator_and_postprocess) and
        ``trainer_config_finalize`` (deepspeed_init, at train()): the Trainer's "auto" filling and its mismatch
        check against TrainingArguments."""
        from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

        args = _WorldSize(self.training_args, int(self.eff.num_processes or 1))
        hf = HfTrainerDeepSpeedConfig(plugin.hf_ds_config.config)
        plugin.hf_ds_config = hf
        plugin.deepspeed_config = hf.config
        hf.trainer_config_process(args)
        hf.trainer_config_finalize(args, _ModelStub(self.hidden_size), self.num_training_steps)
        if "optimizer" not in hf.config:  # transformers deepspeed_optim_sched: its own torch optimizer
            hf.config["zero_allow_untested_optimizer"] = True

    def _fill_auto(self, plugin: Any, accel_gas: int, parallelism: Any) -> int:
        """accelerate/accelerator.py ``Accelerator._prepare_deepspeed`` up to ``deepspeed.initialize``,
        for (model, optimizer, DataLoader(batch_size=micro_batch_size)[, scheduler])."""
        import logging as _logging

        acc_logger = _logging.getLogger("accelerate.accelerator")
        config = plugin.deepspeed_config
        sp_size = parallelism.sp_size if parallelism is not None else 1

        if plugin.is_auto("train_micro_batch_size_per_gpu"):
            if self.training_args is not None:  # the Trainer prepares (model, optimizer): no DataLoader
                raise ValueError("When using DeepSpeed, `accelerate.prepare()` requires you to pass at least one of "
                                 "training or evaluation dataloaders with `batch_size` attribute returning an "
                                 "integer value or alternatively set an integer value in "
                                 "`train_micro_batch_size_per_gpu` in the deepspeed config file")
            batch_size_per_device = self.micro_batch_size
        else:
            batch_size_per_device = plugin.get_value("train_micro_batch_size_per_gpu")

        plugin.fill_match("gradient_accumulation_steps", must_match=False, gradient_accumulation_steps=accel_gas)
        ds_gas = plugin.get_value("gradient_accumulation_steps")
        if ds_gas != accel_gas and self.training_args is not None:
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
                * int(self.eff.num_processes or 1)
                // sp_size
            )

        optimizer = self.optimizer
        if optimizer == "auto":
            optimizer = "dummy" if "optimizer" in config else "torch"
        scheduler = self.scheduler
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
            if self.hidden_size is None:
                raise ValueError("Can't find `model.config` entry, " + reasoning)
            hs = int(self.hidden_size)
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


class _WorldSize:
    """``TrainingArguments`` with ``world_size`` answered by ``num_processes`` (workaround #4: the real property asks
    a process group, which a round trip never creates); every other attribute is the real one."""

    def __init__(self, args: Any, world_size: int) -> None:
        self._args = args
        self.world_size = world_size

    def __getattr__(self, name: str) -> Any:
        return getattr(self._args, name)


class _ModelStub:
    """What ``trainer_config_finalize`` reads of the model: ``config.hidden_size`` (None: a model without a config,
    so hidden-size "auto" values fail as they would)."""

    def __init__(self, hidden_size: int | None) -> None:
        if hidden_size is not None:
            self.config = type("Config", (), {"hidden_size": int(hidden_size)})()


def _find_key_path(node: Mapping[str, Any], key: str, prefix: str = "") -> str | None:
    """Dotted path of the first occurrence of ``key`` in a nested dict (breadth first)."""
    if key in node:
        return f"{prefix}{key}"
    for k, v in node.items():
        if isinstance(v, Mapping):
            found = _find_key_path(v, key, f"{prefix}{k}.")
            if found:
                return found
    return None


def _parallelism_summary(pc: Any) -> dict:
    return {
        "dp_replicate_size": pc.dp_replicate_size,
        "dp_shard_size": pc.dp_shard_size,
        "tp_size": pc.tp_size,
        "cp_size": pc.cp_size,
        "cp_backend": pc.cp_backend,
        "sp_size": pc.sp_size,
        "sp_backend": pc.sp_backend,
        "total_size": pc.total_size,
    }


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


def _scrubbed(name: str) -> bool:
    return name.startswith(_SCRUB_PREFIXES) or name in _SCRUB_NAMES
