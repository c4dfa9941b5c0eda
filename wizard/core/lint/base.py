"""Shared pieces of the config linter: rule registration, the lint context and value helpers.

The helpers reproduce how accelerate turns a YAML value into the environment string its plugins parse
(``str(value)``, sometimes lower-cased), so the rules can tell exactly what a value becomes.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping

from ..context import VERIFIED, Context
from ..findings import DOC, ERROR, INFO, WARNING, Finding, RuleInfo  # DOC, RuleInfo: re-exported for the rule modules
from ..library.fsdp import fsdp_key  # re-exported for the rule modules
from ..recordclass import field, record
from ..rules import CONFIG, RULES
from ..rules import rule as register
from ..vocab import FALSE_WORDS, TRUE_WORDS, as_int, parse_bool, parse_int  # re-exported for the rule modules

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

A = "accelerate/"  # source prefixes, relative to site-packages
DS = "deepspeed/"


def ds_range(check_id: str) -> dict[str, str]:
    """The DeepSpeed releases a check that lives in DeepSpeed's code holds in (wizard/data/ds_versions.json, from
    each release's code: docs/versions.md), as a rule's ``versions``."""
    from ..ds_schema import check_versions

    spec = check_versions().get(check_id)
    if spec is None:
        raise KeyError(f"{check_id!r} has no range in wizard/data/ds_versions.json")
    return {"deepspeed": spec}


def rule(name: str, severity: str, summary: str, source: str, *, keys: str = "", fix: str = "",
         claims: tuple[str, ...] = (), versions: Mapping[str, str] | None = None) -> str:
    """Register a config rule (section ``config`` of the registry, wizard/core/rules.py); returns its name so
    modules can keep it in a constant."""
    return register(name, severity, summary, source, section=CONFIG, keys=keys, fix=fix, claims=claims,
                    versions=versions)


# ----------------------------------------------------------------------------------------------------------------
# values as accelerate sees them
# ----------------------------------------------------------------------------------------------------------------
# (parse_bool, parse_int, as_int and the truth words live in wizard.core.vocab)
MISSING = object()


def env_str(value: Any) -> str:
    """What ``str(args.x)`` exports for a YAML value (accelerate never type-checks sub-keys)."""
    return str(value)


def fmt(value: Any) -> str:
    """A value as it would be written in YAML/JSON, for messages."""
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif value is None:
        text = "null"
    else:
        try:
            text = json.dumps(value, default=str, sort_keys=True, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def kv(key: str, value: Any) -> str:
    return f"`{key}: {fmt(value)}`"


def truthy(value: Any) -> bool:
    try:
        return bool(value)
    except Exception:  # noqa: BLE001 - objects with odd __bool__ are still "set"
        return True


# ----------------------------------------------------------------------------------------------------------------
# context
# ----------------------------------------------------------------------------------------------------------------
DIST_FSDP = "FSDP"
DIST_DEEPSPEED = "DEEPSPEED"
MULTI_DEVICE_TYPES = frozenset({"MULTI_GPU", "MULTI_NPU", "MULTI_MLU", "MULTI_SDAA", "MULTI_MUSA", "MULTI_XPU",
                                "MULTI_HPU", "MULTI_NEURON"})


@record
class ConfigCheck:
    """One check of one config: everything a rule needs (the files, what the launcher derives from them) and the
    findings so far. Not the user's :class:`~wizard.core.context.Context` (loop and versions), which it carries."""

    y: dict
    ds: dict | None
    gpus_per_node: int | None
    ds_path_known: bool
    fp8_available: Callable[..., bool]
    """Whether an FP8 package can be imported here; with import names (``"transformer_engine"``): one of those."""
    findings: list[Finding] = field(default_factory=list)
    context: Context = VERIFIED
    """Who drives training and the library versions judged for (wizard/core/context.py)."""
    bare: bool = False
    """A DeepSpeed JSON checked alone: no accelerate YAML around it (its keys are not the user's)."""
    hostfile: list[str] | None = None
    """The lines of the DeepSpeed hostfile the YAML names, when the loader could read it here (None: not read)."""
    model: Any = None
    """The model the config will train (a :class:`~wizard.core.memory.shapes.ModelShape`, from ``check --model``);
    None: unknown, so the rules that need its shape say what they could not check."""

    # derived in ``derive()``
    dist: str | None = None
    kind: str | None = None  # "fsdp" | "deepspeed" | "other" | None (unusable distributed_type)
    nproc: int | None = None  # num_processes when it is a usable int
    nmach: int = 1
    mp: str | None = "no"  # effective mixed precision, lower-case; None when invalid
    ds_file_mode: bool = False
    fsdp: dict = field(default_factory=dict)  # normalised name -> (key as written, value)
    fsdp_version: int | None = 1  # None when invalid
    stage: int | None = None  # effective ZeRO stage (DeepSpeed), None when unknown
    _fp8: Any = field(default=None, repr=False)  # the fp8 part of the effective model, once asked for (fp8())

    def section(self, name: str) -> dict:
        value = self.y.get(name)
        return value if isinstance(value, dict) else {}

    def fp8(self) -> Any:
        """The effective model's fp8 part for this config (wizard/core/effective/fp8.py: which recipe runs and what
        each written fp8_config key becomes), computed once; imported here, not at start: few configs use fp8."""
        if self._fp8 is None:
            from ..effective.fp8 import fp8_effective

            self._fp8 = fp8_effective(self.y, self.mp)
        return self._fp8

    def fp8_ignored(self) -> list[str]:
        """The written fp8_config keys the effective model says are ignored (exported, read by no recipe that runs)."""
        from ..effective.used import IGNORED

        return [u.keys[0] for u in self.fp8().values.values() if u.why == IGNORED and u.keys]

    def fp8_unread(self, name: str) -> bool:
        """Whether the fp8_config key ``name`` is one no fp8 recipe reads (the model: ignored by the launcher)."""
        from ..effective.fp8 import LAUNCH, model_key
        from ..effective.used import IGNORED

        u = self.fp8().values.get(model_key(name))
        return u is not None and u.why == IGNORED and u.by == LAUNCH

    def fp8_backend_refused(self) -> bool:
        """Whether the written fp8 backend is a value accelerate's FP8BackendType refuses (the model's failure)."""
        from ..effective.fp8 import BACKEND_TYPE

        return any(f.by == BACKEND_TYPE for f in self.fp8().failures)

    @property
    def loop(self) -> str | None:
        """``"hf"`` (the Hugging Face Trainer), ``"accelerate"`` (an own Accelerator loop) or None (unknown)."""
        return self.context.loop

    @property
    def versions(self) -> Mapping[str, str | None]:
        return self.context.versions

    def emit(self, name: str, keys, message: str, fix: str = "", source: str | None = None) -> None:
        info = RULES[name]
        if info.versions and not self.context.allows(dict(info.versions)):
            return  # knowledge that does not hold for the versions judged for
        if isinstance(keys, str):
            keys = (keys,)
        self.findings.append(Finding(info.severity, name, tuple(str(k) for k in keys), message, fix,
                                     source or info.source))

    @property
    def nproc_per_node(self) -> int | None:
        if self.nproc is None or self.nmach < 1:
            return None
        return self.nproc // self.nmach

    @property
    def fsdp_like(self) -> bool:
        return self.kind in ("fsdp", "deepspeed")


__all__ = ["A", "DS", "DOC", "ERROR", "WARNING", "INFO", "RuleInfo", "RULES", "rule", "ConfigCheck", "env_str",
           "parse_bool", "parse_int", "as_int", "fmt", "kv", "truthy", "MISSING", "TRUE_WORDS", "FALSE_WORDS",
           "fsdp_key", "DIST_FSDP", "DIST_DEEPSPEED", "MULTI_DEVICE_TYPES"]
