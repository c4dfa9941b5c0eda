"""The replay: one accelerate config through accelerate's launcher and plugins and DeepSpeed's config validation.

:func:`effective_config` runs :class:`_RoundTrip` inside a :class:`.guards._Sandbox`; the round trip's stages are
methods of it, in the order :mod:`.roundtrip` describes: ``_load`` (stage 1), ``_launch`` (2), ``_plugins`` (3,
the Trainer's ``TrainingArguments`` included) and ``_deepspeed`` (4, whose "auto" filling is in
:mod:`.deepspeed_fill`). Each stage writes what the libraries built into an :class:`.comparison.Effective` (read
back by :mod:`.readback`) and turns the first exception into a finding of its rule, as it would stop the real run.

torch / accelerate / deepspeed / transformers are imported only inside the methods.
"""
from __future__ import annotations

import contextlib
import copy
import os
import re
import warnings
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any

from ..findings import ERROR, INFO, WARNING, Finding
from ..i18n import said
from ..library.fsdp import FSDP_PLAIN
from ..wizard_rules import VERIFY_DS_CONFIG as RULE_DS_CONFIG  # the registered names (docs/rules.md)
from ..wizard_rules import VERIFY_FP8_RECIPE as RULE_FP8_RECIPE
from ..wizard_rules import VERIFY_LAUNCH as RULE_LAUNCH
from ..wizard_rules import VERIFY_LIBRARY_WARNING as RULE_LIBRARY_WARNING
from ..wizard_rules import VERIFY_LOAD as RULE_LOAD
from ..wizard_rules import VERIFY_PLUGIN as RULE_PLUGIN
from . import keys as K
from .comparison import _SOURCE, Effective
from .deepspeed_fill import _fill_auto, _trainer_fill
from .guards import (
    _capture_library_messages,
    _CaptureHandler,
    _deepspeed_world_size,
    _fp8_package_answered,
    _port_probe_neutralised,
    _pretend_cuda_device,
    _quiet_cpu_accelerator_notice,
    _Sandbox,
    _scrubbed,
    _set_environ,
)
from .readback import _deepspeed_validated, _ds_config_file, _fp8_summary, _fsdp_summary, _parallelism_summary
from .stubs import _AcceleratorStub, _training_arguments

_WARNING_NEEDLES: tuple[tuple[str, str], ...] = (
    ("backward_prefetch", "fsdp_backward_prefetch"), ("sharding_strategy", "fsdp_sharding_strategy"),
    *sorted(((k.field, k.arg) for k in FSDP_PLAIN if k.field), key=lambda pair: -len(pair[0])),
)
"""A plugin warning that names one of these fields is about that fsdp_config key (the longest name first:
``activation_checkpointing_offload`` before ``activation_checkpointing``)."""


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
    progress: Callable[[str], None] | None = None,
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
    progress: called with a few words as each stage starts (the imports alone take seconds).

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
        progress=progress,
    )
    with _Sandbox() as sandbox:
        try:
            run.execute(sandbox)
        except Exception as exc:  # a failure of this module's own glue: report, never raise
            eff.findings.append(_finding(ERROR, run.stage_rule, [run.file_key], exc))
    return eff


def _finding(severity: str, rule: str, keys: list[str], exc: BaseException | str, fix: str = "") -> Finding:
    if isinstance(exc, BaseException):
        message = f"{type(exc).__name__}: {exc}"
    else:
        message = exc
    return Finding(severity, rule, tuple(keys), message, fix=fix, source=_SOURCE)


class _RoundTrip:
    """One round trip: its options, the raw YAML, the stage reached (whose rule a failure of the glue is reported
    under) and the Trainer's ``TrainingArguments`` once built; each stage writes into ``eff``."""

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
        progress: Callable[[str], None] | None = None,
    ) -> None:
        self.eff = eff
        self.progress = progress
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
    def say(self, text: str) -> None:
        if self.progress is not None:
            self.progress(text)

    def error(self, rule: str, keys: list[str], exc: BaseException | str) -> None:
        self.eff.findings.append(_finding(ERROR, rule, keys or [self.file_key], exc))

    def note(self, rule: str, keys: list[str], message: str) -> None:
        self.eff.findings.append(_finding(INFO, rule, keys or [self.file_key], message))

    @property
    def fp8_run(self) -> bool:
        """The YAML asks for fp8 (the launcher's and the Accelerator's fp8 steps run)."""
        return isinstance(self.raw, Mapping) and str(self.raw.get("mixed_precision", "")).lower() == "fp8"

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
        for needle, arg in _WARNING_NEEDLES:
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
        self.say(said("importing torch, accelerate, deepspeed" + (" and transformers" if self.trainer_arguments
                                                                  is not None else "")
                      + " (the first time takes seconds)"))
        if not self._import_libraries():
            return
        sandbox.after_import()
        self.say(said(f"accelerate reads {os.path.basename(self.yaml_abs)}"))
        defaults = self._load()
        if defaults is None:
            return
        self.say(said("accelerate launch turns it into the environment the processes get"))
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
        self.say(said("accelerate builds its plugins from that environment"
                      + (" (and the Trainer's TrainingArguments)" if self.trainer_arguments is not None else "")))
        self._plugins()

    def _import_libraries(self) -> bool:
        try:
            with warnings.catch_warnings(), _quiet_cpu_accelerator_notice():
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
            # fp8: the launcher's package check answered yes where no fp8 package is installed here (guards.py #5)
            with warnings.catch_warnings(record=True), _port_probe_neutralised(), \
                    (_fp8_package_answered(None) if self.fp8_run else contextlib.nullcontext()):
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
            if mixed_precision == "fp8" and not is_fp8_available() and not self.fp8_run:
                # (a YAML with fp8 gets its package check answered, as in the launch stage: see _fp8)
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
            eff.fsdp = _fsdp_summary(fsdp_plugin)

        if ds_plugin is not None:
            eff.deepspeed = {
                "config": copy.deepcopy(ds_plugin.deepspeed_config),
                "config_file": _ds_config_file(env),
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

        # Accelerator.__init__: the fp8 recipe handler from the launcher's ACCELERATE_FP8_* variables
        if mixed_precision == "fp8" and not self._fp8(distributed_type, fsdp_plugin):
            return

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
            self.say(said("DeepSpeed fills \"auto\" and validates its config"))
            self._deepspeed(ds_plugin, accel_gas, parallelism)


    def _fp8(self, distributed_type: Any, fsdp_plugin: Any) -> bool:
        """What ``Accelerator.__init__`` does with fp8 and no recipe handler passed: the backend from
        ``ACCELERATE_FP8_BACKEND`` (NO: the first of torchao, Transformer Engine, MS-AMP installed), then that
        backend's recipe kwargs, which read the launcher's ``ACCELERATE_FP8_*`` variables; read back into
        ``eff.fp8``. Where the backend's package is missing here, the recipe is built with its package check answered
        yes (guards.py #5) and an INFO finding says the fp8 start-up itself was not replayed. False: it failed."""
        from accelerate.utils import AORecipeKwargs, DistributedType, MSAMPRecipeKwargs, TERecipeKwargs
        from accelerate.utils.dataclasses import FP8BackendType
        from accelerate.utils.environment import parse_choice_from_env
        from accelerate.utils.imports import is_msamp_available, is_torchao_available, is_transformer_engine_available

        written = K.fp8_yaml_keys(self.raw)
        backend_keys = [written["fp8_backend"]] if "fp8_backend" in written else []
        try:
            chosen = FP8BackendType(parse_choice_from_env("ACCELERATE_FP8_BACKEND", "NO")).value
        except ValueError as exc:
            self.error(RULE_PLUGIN, backend_keys or ["fp8_config"], exc)
            return False
        # accelerator.py tries torchao, then Transformer Engine, then MS-AMP (library.launcher.FP8_AUTO_ORDER)
        probes = (("AO", is_torchao_available), ("TE", is_transformer_engine_available), ("MSAMP", is_msamp_available))
        installed = tuple(name for name, probe in probes if probe())
        self.eff.fp8_installed = installed or None
        if chosen == "NO":
            if not installed:
                self.eff.fp8 = {"backend": None}
                self.note(RULE_FP8_RECIPE, backend_keys or ["mixed_precision"],
                          "No fp8 backend is written and none of torchao, Transformer Engine, MS-AMP is installed "
                          "here: the Accelerator takes the first one installed where the run starts, so no recipe "
                          "was built or read back here.")
                return True
            chosen = installed[0]
        recipe_class = {"AO": AORecipeKwargs, "TE": TERecipeKwargs, "MSAMP": MSAMPRecipeKwargs}[chosen]
        try:
            with _fp8_package_answered(chosen) as answered:
                recipe = recipe_class()
        except Exception as exc:
            self.error(RULE_PLUGIN, K.fp8_error_keys(exc, self.raw, chosen), exc)
            return False
        self.eff.fp8 = _fp8_summary(chosen, recipe)
        if answered:
            self.note(RULE_FP8_RECIPE, backend_keys or ["mixed_precision"],
                      f"{answered} is not installed here: the fp8 recipe was read back from {recipe_class.__name__} "
                      "built from the launch environment (the package checks answered yes), which is what accelerate "
                      "hands the package; the Accelerator's fp8 start-up with the package itself was not replayed.")
        # Accelerator.__init__ refuses torchao with FSDP and cpu_ram_efficient_loading (accelerator.py)
        if chosen == "AO" and distributed_type == DistributedType.FSDP and fsdp_plugin is not None \
                and fsdp_plugin.cpu_ram_efficient_loading:
            self.error(RULE_PLUGIN, [*backend_keys, K.fsdp_yaml_key(self.raw, "fsdp_cpu_ram_efficient_loading")],
                       "the Accelerator refuses torchao fp8 with FSDP while cpu_ram_efficient_loading is on "
                       "(accelerator.py, after the recipe handlers)")
            return False
        return True

    # -- stage 4 -------------------------------------------------------------------------------
    def _deepspeed(self, plugin: Any, accel_gas: int, parallelism: Any) -> None:
        from deepspeed.runtime.config import DeepSpeedConfig

        ds = self.eff.deepspeed
        if ds is None:  # _plugins fills it in with the plugin before it calls this
            return
        inline = ds["config_file"] is None
        world_size = int(self.eff.num_processes or 1)
        try:
            if self.training_args is not None:
                _trainer_fill(plugin, self.training_args, world_size=world_size, hidden_size=self.hidden_size,
                              num_training_steps=self.num_training_steps)
            gas = _fill_auto(plugin, accel_gas, parallelism, world_size=world_size,
                             micro_batch_size=self.micro_batch_size, hidden_size=self.hidden_size,
                             optimizer=self.optimizer, scheduler=self.scheduler,
                             trainer=self.training_args is not None)
        except Exception as exc:
            ds["config"] = copy.deepcopy(plugin.deepspeed_config)
            # the Trainer's mismatch ValueError lists each key: "- ds gradient_accumulation_steps=8 vs hf ..."
            keys = re.findall(r"^- ds ([\w.]+)=", str(exc), flags=re.MULTILINE)
            self.error(RULE_DS_CONFIG, keys or K.ds_config_error_keys(exc, plugin.deepspeed_config, inline), exc)
            return
        final = plugin.deepspeed_config
        ds["config"] = copy.deepcopy(final)
        ds["gradient_accumulation_steps"] = gas
        # with Ulysses, deepspeed.initialize gets accelerate's sequence-parallel groups (mpu) and its config counts
        # processes / sp data-parallel ranks (claim ds-ulysses-batch-needs-dp-sizes)
        sp = parallelism.sp_size if parallelism is not None and parallelism.sp_backend == "deepspeed" else 1
        try:
            with _deepspeed_world_size(world_size // sp if sp > 1 else world_size):
                cfg = DeepSpeedConfig(copy.deepcopy(final))
        except Exception as exc:
            self.error(RULE_DS_CONFIG, K.ds_config_error_keys(exc, final, inline), exc)
            return
        ds["validated"] = _deepspeed_validated(cfg)


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
