"""fp8 in the effective model: which recipe accelerate builds, and what each written fp8_config key becomes.

With ``mixed_precision: fp8``, ``accelerate launch`` copies every fp8_config key onto its arguments (``fp8_``
prepended unless the key starts with ``fp8``) and exports every fp8 argument that is not None as
``ACCELERATE_FP8_<NAME>``: the written ones and its own defaults alike (:data:`FP8_LAUNCH_DEFAULTS`). The Accelerator
then builds one recipe: the one of ``fp8_config.backend``, or without it (or with NO) the first backend whose package
is installed (:data:`FP8_AUTO_ORDER`). That recipe reads its own variables only (:data:`FP8_RECIPE_KEYS`): an option
of another backend, or a name no recipe reads (``accelerate config``'s own ``amax_history_length``), is exported
and ignored.

Keys (the ones ``--verify`` reads back from the recipe accelerate built):

- ``fp8.backend``: AO, TE or MSAMP; None where the machine the run starts on decides (no backend written and the
  installed packages unknown: :attr:`Situation.fp8_installed`);
- ``fp8.<field>`` for each field of the recipe that runs, under the recipe's own names (``fp8.fp8_format``,
  ``fp8.margin``, ``fp8.override_linear_precision`` as [fprop, dgrad, wgrad], ...): written or the default;
- ``fp8.<name>`` for every written key that does not take effect, value None: ignored (another backend's option, a
  name no recipe reads, any fp8_config without mixed_precision fp8), or overridden (the backend is not written, so
  the installed packages decide whether its recipe runs).

Pure: the library tables (:mod:`..library.launcher`) and the vocabulary only.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..library.launcher import (
    FP8_AUTO_ORDER,
    FP8_BACKEND_NAMES,
    FP8_CHOICES,
    FP8_LAUNCH_DEFAULTS,
    FP8_MISNAMED,
    FP8_PACKAGES,
    FP8_PARSE,
    FP8_RECIPE_CLASS,
    FP8_RECIPE_KEYS,
)
from ..vocab import parse_bool, parse_int
from .builder import Builder
from .used import DEFAULT, IGNORED, OVERRIDDEN, WRITTEN

LAUNCH = "accelerate launch"
BACKEND_TYPE = "FP8BackendType"
"""``by`` of the failure an unknown backend value makes (the config rule ``fp8-backend-invalid`` reads it)."""
OWNER = {f: backend for backend, fields in FP8_RECIPE_KEYS.items() for f in fields}
"""Recipe field -> the backend whose recipe reads it."""


def launch_arg(name: str) -> str:
    """The launcher's argument for an fp8_config key: ``fp8_`` prepended unless it starts with ``fp8``
    (commands/launch.py:1272-1273)."""
    return name if name.startswith("fp8") else "fp8_" + name


FIELD_OF_ARG = {launch_arg(f): f for f in OWNER}
"""The launcher's argument -> the recipe field that reads its variable."""


def model_key(name: str) -> str:
    """The effective model's key for a written fp8_config key (or a launcher argument)."""
    arg = launch_arg(name)
    return "fp8." + FIELD_OF_ARG.get(arg, arg.removeprefix("fp8_"))


_BAD = object()


def _parse(field: str, value: Any) -> Any:
    """What the recipe makes of ``str(value)`` (what the launcher exports); :data:`_BAD` where it raises."""
    kind = FP8_PARSE[field]
    if kind == "int":
        number = parse_int(value)
        return _BAD if number is None else number
    if kind == "flag":
        flag = parse_bool(value)
        return _BAD if flag is None else flag
    if kind == "flags3":
        flags = [parse_bool(value[i]) for i in range(3)] if _triple(value) else [None]
        return _BAD if None in flags else flags
    text = str(value)
    text = text.upper() if kind == "upper" else text.lower() if kind == "lower" else text
    return text if text in FP8_CHOICES[field] else _BAD


def _triple(value: Any) -> bool:
    """The launcher indexes the value [0], [1], [2] (utils/launch.py:91-94): a text is indexed by character."""
    try:
        value[2]
    except (TypeError, IndexError, KeyError):
        return False
    return True


def _written(section: Any) -> dict[str, tuple[str, Any]]:
    """Launcher argument -> (the written key as a dotted path, its value); a later spelling replaces an earlier one
    as it does on the launcher's namespace."""
    out: dict[str, tuple[str, Any]] = {}
    if isinstance(section, Mapping):
        for k, v in section.items():
            out.pop(launch_arg(str(k)), None)
            out[launch_arg(str(k))] = (f"fp8_config.{k}", v)
    return out


def fp8_values(y: Mapping[str, Any], mp: str | None, b: Builder,
               installed: tuple[str, ...] | None = None) -> None:
    """The ``fp8.*`` keys of a config whose accelerate YAML is ``y`` and whose mixed precision is ``mp``, into ``b``;
    ``installed``: the fp8 backends installed where the run starts (None: unknown)."""
    written = _written(y.get("fp8_config"))
    if mp != "fp8":
        for arg, (key, _) in written.items():
            b.put(model_key(arg), None, IGNORED, LAUNCH, (key,),
                  "fp8_config is exported only with mixed_precision fp8")
        return
    for arg, (key, _) in written.items():
        if arg != "fp8_backend" and arg not in FIELD_OF_ARG:
            right = FP8_MISNAMED.get(arg)
            b.put(model_key(arg), None, IGNORED, LAUNCH, (key,),
                  f"exported as ACCELERATE_{arg.upper()}, which no fp8 recipe reads"
                  + (f" (the recipe reads {right}; this name is accelerate config's own)" if right else ""))
    if "fp8_override_linear_precision" in written:
        key, value = written["fp8_override_linear_precision"]
        if not _triple(value):  # the launcher indexes it whichever backend runs
            b.fail((key,), f"accelerate launch reads three values from it (fprop, dgrad, wgrad), not {value!r}", LAUNCH)
    backend = _backend(written, b, installed)
    for field, owner in OWNER.items():
        arg = launch_arg(field)
        key = written[arg][0] if arg in written else ""  # "": not written, the launcher's default
        value = written[arg][1] if arg in written else FP8_LAUNCH_DEFAULTS[arg]
        name = f"fp8.{field}"
        if backend is None:
            if key:
                b.put(name, None, OVERRIDDEN, "Accelerator", (key,),
                      f"taken only where {FP8_PACKAGES[owner][1]} is the first fp8 package installed: no backend is "
                      "written, so the machine the run starts on decides")
            continue
        recipe = FP8_RECIPE_CLASS[backend]
        if owner != backend:
            if key:
                b.put(name, None, IGNORED, recipe, (key,),
                      f"only the {owner} recipe reads it; the {backend} recipe runs")
            continue
        parsed = _parse(field, value)
        if parsed is _BAD:
            if _triple(value) or FP8_PARSE[field] != "flags3":  # a launcher failure is stated above
                b.fail((key,) if key else (), f"{recipe} cannot read {field} = {value!r}"
                       + (f" (one of {', '.join(FP8_CHOICES[field])})" if field in FP8_CHOICES else ""), recipe)
            continue
        b.put(name, parsed, WRITTEN if key else DEFAULT, recipe, (key,) if key else ())


def _backend(written: Mapping[str, tuple[str, Any]], b: Builder, installed: tuple[str, ...] | None) -> str | None:
    key, value = written.get("fp8_backend", ("", None))
    keys = (key,) if key else ()
    text = None if value is None else str(value)
    if text is not None and text not in FP8_BACKEND_NAMES:
        b.put("fp8.backend", None, IGNORED, BACKEND_TYPE, keys, f"{text!r} is not a backend accelerate knows")
        b.fail(keys, f"FP8BackendType takes {', '.join(FP8_BACKEND_NAMES)} (upper case), not {text!r}", BACKEND_TYPE)
        return None
    if text in FP8_RECIPE_CLASS:
        b.put("fp8.backend", text, WRITTEN, "Accelerator", keys)
        return text
    order = ", ".join(FP8_PACKAGES[x][1] for x in FP8_AUTO_ORDER)
    if installed is None:
        b.put("fp8.backend", None, DEFAULT, "Accelerator", keys,
              f"the first installed of {order} where the run starts")
        return None
    pick = next((x for x in FP8_AUTO_ORDER if x in installed), None)
    if pick is None:
        b.put("fp8.backend", None, DEFAULT, "Accelerator", keys, f"none of {order} is installed")
        b.fail(keys or ("mixed_precision",), f"no fp8 backend is installed ({order}): the Accelerator raises",
               "Accelerator")
        return None
    b.put("fp8.backend", pick, DEFAULT, "Accelerator", keys,
          f"no backend written: {FP8_PACKAGES[pick][1]} is the first of {order} installed")
    return pick


def fp8_effective(y: Mapping[str, Any], mp: str | None, installed: tuple[str, ...] | None = None) -> Builder:
    """The fp8 part of the model alone (the config rules read it without building the whole model)."""
    b = Builder()
    fp8_values(y, mp, b, installed)
    return b


__all__ = ["BACKEND_TYPE", "FIELD_OF_ARG", "OWNER", "fp8_effective", "fp8_values", "launch_arg", "model_key"]
