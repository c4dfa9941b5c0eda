"""The linter behind ``fsdpds-wizard check``: rules over an accelerate config and the DeepSpeed JSON it names.

``lint()`` is a pure function of the two parsed files (plus the GPU count); it never raises. Every rule is
registered (wizard/core/rules.py, section ``config``) with a stable name, a severity, a one-line summary and its
source (a section of docs/library-behaviour.md and the accelerate / DeepSpeed file:line it comes from).

Severity contract: ERROR = the config fails, or a value written in it does not take effect as written;
WARNING = works as written but is probably not what is wanted (or is an ignored/obsolete key whose effect is
the same anyway); INFO = notes.

The rules live in ``keys`` (unknown/ignored keys), ``general`` (launcher, precision, processes, dynamo, FP8,
parallelism), ``fsdp``, ``ds`` (accelerate's DeepSpeed plugin) and ``dsjson`` / ``dszero`` (the DeepSpeed JSON),
beside this module in ``wizard/core/lint/``. Only pyyaml and the standard library are imported here: no torch,
accelerate or deepspeed.
"""
from __future__ import annotations

from collections.abc import Callable

from .. import ds_schema as _ds_schema
from ..context import VERIFIED, Context
from ..findings import Finding, dedupe, sort_findings
from . import configfile as _configfile  # noqa: F401 - registers the loader's rules
from . import ds as _ds
from . import dsjson as _dsjson
from . import dszero as _dszero
from . import fsdp as _fsdp
from . import general as _gen
from . import keys as _keys
from . import launch as _launch
from .base import DIST_DEEPSPEED, INFO, ConfigCheck, rule

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["lint", "lint_ds_json", "fp8_backend_importable"]

INTERNAL = rule("linter-internal-error", INFO, "A rule crashed on this input (a linter bug; other rules still ran)",
                "wizard/core/lint/linter.py",
                keys="none")


def fp8_backend_importable(*names: str) -> bool:
    """Whether torchao, Transformer Engine or MS-AMP (or one of ``names``, the packages' import names) could be
    imported here (found, not imported)."""
    import importlib.util  # here: the start of check and --headless does without it (issue 26)

    for name in names or ("torchao", "transformer_engine", "msamp"):
        try:
            if importlib.util.find_spec(name) is not None:
                return True
        except (ImportError, ValueError):
            continue
    return False


def _run(ctx: ConfigCheck, check: Callable[..., Any], *args) -> None:
    try:
        check(ctx, *args)
    except Exception as e:  # noqa: BLE001 - one broken rule must not hide the others
        where = f"{check.__module__.removeprefix('wizard.core.')}.{check.__name__}"  # lint.fsdp.check
        ctx.emit(INTERNAL, (), f"{where} failed on this input: {type(e).__name__}: {e}",
                 "Please report this config to the fsdpds-wizard maintainers.")


def _json_checks(ctx: ConfigCheck, ds: dict) -> None:
    """The DeepSpeed JSON's rules; each gets the parsed JSON (``ctx.ds``, known here not to be None). They read the
    schema of the DeepSpeed version judged for (wizard/core/ds_schema.py, ``using``)."""
    with _ds_schema.using(ctx.context.version("deepspeed")):
        _json_checks_for_version(ctx, ds)


def _json_checks_for_version(ctx: ConfigCheck, ds: dict) -> None:
    if not _dsjson.check_zero_present(ctx, ds):
        _run(ctx, _dsjson.check_keys_and_values, ds)
        _run(ctx, _dsjson.check_autos, ds)
        _run(ctx, _dsjson.check_batch, ds)
        return
    for check in (_dsjson.check_keys_and_values, _dsjson.check_autos, _dsjson.check_batch, _dszero.check_precision,
                  _dszero.check_zero, _dszero.check_optimizer_and_scheduler, _launch.check_hpz):
        _run(ctx, check, ds)


def _any(probe: Callable[[], bool]) -> Callable[..., bool]:
    """A test's FP8 probe (no arguments) answering for every package as for any."""
    return lambda *names: probe()


def lint(yaml_cfg: dict, ds_cfg: dict | None, *, gpus_per_node: int | None, ds_path_known: bool = True,
         fp8_available: Callable[[], bool] | None = None, context: Context | None = None,
         hostfile: list[str] | None = None, model: Any = None) -> list[Finding]:
    """Lint an accelerate config (as ``yaml.safe_load`` returns it) and its DeepSpeed JSON, if any.

    ``ds_cfg`` is the parsed DeepSpeed JSON named by ``deepspeed_config.deepspeed_config_file`` (None for inline
    DeepSpeed settings, or when it could not be read). ``ds_path_known=False`` says the JSON is named but its
    content is unknown; rules that need it are skipped (the loader reports the missing file). GPU-count rules
    run only when ``gpus_per_node`` is known. ``fp8_available`` (tests) replaces the FP8-backend probe (its answer
    stands for every backend's package).
    ``context`` (wizard/core/context.py): the training loop and library versions judged for; rules whose outcome
    depends on them follow it (unknown: warnings that say what happens in each case). ``hostfile``: the lines of the
    DeepSpeed hostfile the YAML names, when it could be read here (the loader reads it). ``model``: the model's
    shape (:class:`~wizard.core.memory.shapes.ModelShape`) when the user named it (``check --model``).
    Returns findings sorted errors first; never raises.
    """
    try:
        y = yaml_cfg if isinstance(yaml_cfg, dict) else {}
        ds = ds_cfg if isinstance(ds_cfg, dict) and ds_path_known else None
        gpus = gpus_per_node if isinstance(gpus_per_node, int) and not isinstance(gpus_per_node, bool) \
            and gpus_per_node > 0 else None
        ctx = ConfigCheck(y=y, ds=ds, gpus_per_node=gpus, ds_path_known=ds_path_known,
                  fp8_available=fp8_backend_importable if fp8_available is None else _any(fp8_available),
                  context=context or VERIFIED,
                  hostfile=list(hostfile) if hostfile is not None else None, model=model)
    except Exception:  # noqa: BLE001
        return []
    for derive in (_gen.derive, _fsdp.derive, _ds.derive):
        _run(ctx, derive)
    _run(ctx, _keys.check_top_level)
    _run(ctx, _gen.check_distributed_type)
    _run(ctx, _gen.check_legacy_top_level)
    _run(ctx, _gen.check_rdzv_backend)
    if y.get("compute_environment") == "AMAZON_SAGEMAKER" or ctx.dist is None:
        return _finish(ctx)
    _run(ctx, _gen.check_mixed_precision, ctx.fp8_available)
    _run(ctx, _gen.check_processes)
    _run(ctx, _launch.check)
    _run(ctx, _keys.check_ignored_sections)
    _run(ctx, _keys.check_dynamo_keys)
    _run(ctx, _gen.check_dynamo)
    _run(ctx, _keys.check_parallelism_keys)
    _run(ctx, _gen.check_parallelism)
    _run(ctx, _launch.check_hsdp_layout)
    _run(ctx, _keys.check_fp8_keys)
    if ctx.kind == "fsdp":
        _run(ctx, _keys.check_fsdp_keys)
        _run(ctx, _fsdp.check)
    elif ctx.kind == "deepspeed":
        _run(ctx, _keys.check_deepspeed_keys)
        _run(ctx, _ds.check)
        if ctx.ds_file_mode and ctx.ds is not None:
            _json_checks(ctx, ctx.ds)
    _run(ctx, _gen.report_gpu_unknown)
    return _finish(ctx)


def _finish(ctx: ConfigCheck) -> list[Finding]:
    # findings.dedupe also compares the severity; the same here, since every finding comes from ConfigCheck.emit, which
    # takes it from the rule's one registration
    return sort_findings(dedupe(ctx.findings))


def lint_ds_json(ds_cfg: dict, *, num_processes: int | None = None, context: Context | None = None) -> list[Finding]:
    """Lint a DeepSpeed JSON alone (no accelerate YAML around it): the JSON's own rules, with the batch arithmetic
    over ``num_processes`` when it is known, in ``context``. Never raises."""
    try:
        n = num_processes if isinstance(num_processes, int) and not isinstance(num_processes, bool) \
            and num_processes > 0 else None
        ctx = ConfigCheck(y={}, ds=ds_cfg if isinstance(ds_cfg, dict) else {}, gpus_per_node=None, ds_path_known=True,
                  fp8_available=lambda: False, context=context or VERIFIED, bare=True)
        ctx.dist, ctx.kind, ctx.ds_file_mode, ctx.nproc, ctx.mp = DIST_DEEPSPEED, "deepspeed", True, n, None
    except Exception:  # noqa: BLE001
        return []
    _run(ctx, _ds.derive_file_stage)
    _run(ctx, _ds.check_json_accumulation)
    assert ctx.ds is not None
    _json_checks(ctx, ctx.ds)
    return _finish(ctx)
