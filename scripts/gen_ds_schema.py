#!/usr/bin/env python
"""Generate ``wizard/data/ds_schema/<version>.json`` from the installed DeepSpeed.

The linter (``wizard/core/lint/``) must not import deepspeed, so what DeepSpeed accepts in a
DeepSpeed JSON is captured here once, as data, and a unit test regenerates it and compares.

How each part is derived (nothing below is typed in by hand unless marked "hand"):

* ``top_level_keys``: the keys ``DeepSpeedConfig`` looks up in the top-level dict. We build a
  ``DeepSpeedConfig`` from a minimal config wrapped in a dict subclass that records every ``get``,
  ``[]``, ``in`` and ``keys()`` membership test, with a fake process group (rank 0, world 1) so the
  code path that also reads ``sequence_parallel_size`` runs. The base config contains ``bf16`` and
  ``fp16`` blocks because accelerate always adds both before DeepSpeed sees the dict
  (``DeepSpeedPlugin.set_mixed_precision``); the legacy ``bfloat16`` key is therefore never read.
  ``defaults`` keeps the default value DeepSpeed passes to ``get`` for each scalar key.
* ``extra_top_level_keys`` (hand): keys read outside ``DeepSpeedConfig``: ``data_parallel_size``
  (``deepspeed/__init__.py`` reads it next to ``sequence_parallel_size``).
* ``sections``: every top-level key is probed with ``{"__probe__": 1}``. When DeepSpeed answers with a
  pydantic ``ValidationError`` the section is a strict pydantic model (unknown keys raise); the model
  class is found from the error title and location. Its ``model_json_schema()`` is stored (descriptions
  removed), plus ``x-names`` (alias -> field name: both spellings are accepted, not together) and
  ``x-deprecated`` (key -> replacement) read from the model fields.
* ``dict_sections``: sections that DeepSpeed reads key by key with ``dict.get`` (unknown keys are
  silently ignored). Their key list is recorded the same way as the top level, by building a config
  with an empty and with a probed section. A recorded sub-key that is itself a strict model
  (``timers.throughput``) becomes a section named by its dotted path.
* ``opaque_sections`` (hand): sections whose sub-keys are passed on to code we do not model
  (optimizer/scheduler constructors, the autotuner, data pipeline, pipeline engine, AutoEP, datastates).
* ``removed``: the removed-feature key tables of ``deepspeed/runtime/config.py`` (keys only).
* ``enums``: value lists DeepSpeed checks in code: optimizer names (``DEEPSPEED_OPTIMIZERS`` plus
  ``torch.optim`` classes, which ``engine._is_supported_optimizer`` also accepts), scheduler names
  (``VALID_LR_SCHEDULES`` plus ``torch.optim.lr_scheduler`` classes), ``gradient_allreduce_op``,
  ``checkpoint.tag_validation`` modes, dtype spellings (``DtypeEnum``), and the keyword arguments of
  each DeepSpeed LR scheduler (``inspect.signature``).

One file is shipped per supported DeepSpeed release (``wizard/core/ds_schema.py`` picks the one for the user's
target version). Each was made by running this script under that release, installed in a throw-away
environment (``pip install --no-deps --no-build-isolation deepspeed==X`` with ``DS_BUILD_OPS=0``). Releases
differ; the script copes with: pydantic v1 models (0.14, ``deepspeed.pydantic_v1``: fields read through
``__fields__``, the schema from ``.schema()`` with ``$defs`` and nullable fields written as v2 writes them,
``pydantic_major`` recorded for the validator), a v1 root validator that crashes after a field failed (the model is
read from the traceback), no removed-feature tables (before 0.19.7) and no ``gradient_allreduce_op`` (before 0.19.6).

Usage: ``python scripts/gen_ds_schema.py [--check] [--out FILE]`` (``--check`` exits 1 when the shipped file
differs; without ``--out`` the file is ``wizard/data/ds_schema/<installed version>.json``).
"""
from __future__ import annotations

import argparse
import copy
import inspect
import json
import logging
import sys
import typing
import warnings
from pathlib import Path

OUT_DIR = Path(__file__).resolve().parent.parent / "wizard" / "data" / "ds_schema"
PROBE = "__probe__"
HAND_EXTRA_TOP_LEVEL = ["data_parallel_size"]
HAND_OPAQUE = ["autotuning", "data_efficiency", "datastates_ckpt", "expert_parallel", "optimizer", "pipeline",
               "scheduler"]


# --------------------------------------------------------------------------------------------------------------
# recording dict
# --------------------------------------------------------------------------------------------------------------
class _Keys:
    def __init__(self, owner):
        self._owner = owner

    def __contains__(self, k):
        self._owner._rec(k, None)
        return dict.__contains__(self._owner, k)

    def __iter__(self):
        return iter(dict.keys(self._owner))

    def __len__(self):
        return dict.__len__(self._owner)


class Recording(dict):
    """A dict that logs lookups as dotted paths (and the default passed to ``get``)."""

    log: dict = {}

    def __init__(self, *a, path=(), **k):
        super().__init__(*a, **k)
        self._path = path

    def _rec(self, k, default):
        if isinstance(k, str):
            key = ".".join(self._path + (k,))
            if key not in Recording.log or Recording.log[key] is None:
                Recording.log[key] = default

    def _wrap(self, k, v):
        if isinstance(v, dict) and not isinstance(v, Recording):
            v = Recording(v, path=self._path + (k,))
            dict.__setitem__(self, k, v)
        return v

    def get(self, k, default=None):
        self._rec(k, default)
        if dict.__contains__(self, k):
            return self._wrap(k, dict.__getitem__(self, k))
        return default

    def __getitem__(self, k):
        self._rec(k, None)
        return self._wrap(k, dict.__getitem__(self, k))

    def __contains__(self, k):
        self._rec(k, None)
        return dict.__contains__(self, k)

    def keys(self):
        return _Keys(self)

    def __copy__(self):
        return Recording(dict(self), path=self._path)


class _FakeDist:
    def get_rank(self, *a, **k):
        return 0

    def get_world_size(self, *a, **k):
        return 1


def _run(cfg: dict):
    """Build DeepSpeedConfig(cfg) and return (lookups, exception or None)."""
    import deepspeed.runtime.config as dsc

    Recording.log = {}
    old = dsc.dist
    dsc.dist = _FakeDist()
    try:
        dsc.DeepSpeedConfig(Recording(copy.deepcopy(cfg)))
        err = None
    except Exception as e:  # noqa: BLE001 - any failure is an answer here
        err = e
    finally:
        dsc.dist = old
    return dict(Recording.log), err


BASE = {"train_batch_size": 1, "bf16": {"enabled": False}, "fp16": {"enabled": False}}


# --------------------------------------------------------------------------------------------------------------
# pydantic models -> JSON schema
# --------------------------------------------------------------------------------------------------------------
def _json_safe(obj):
    """Drop what JSON cannot hold (callables, classes) and descriptions (library prose)."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if k == "description" or callable(v) or v == "<function>":
                continue
            out[str(k)] = _json_safe(v)
        return out
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj if not callable(v)]
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        if isinstance(obj, float) and obj != obj:  # NaN
            return None
        if isinstance(obj, float) and obj in (float("inf"), float("-inf")):
            return str(obj)
        return obj
    return str(obj)


def _schema_generator():
    from pydantic.json_schema import GenerateJsonSchema

    class Lenient(GenerateJsonSchema):
        """Arbitrary Python types (torch.dtype, object, callables) become an empty schema."""

        def handle_invalid_for_json_schema(self, schema, error_info):
            return {"x-python-type": str(error_info)[:80]}

        def callable_schema(self, schema):
            return {"x-python-type": "callable"}

    return Lenient


def _unwrap(annotation):
    """Optional[X] / Annotated[X, ...] -> X (the model class when there is one)."""
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(args[0])
    if args:
        for a in args:
            if a is not type(None):
                return _unwrap(a)
    return annotation


# DeepSpeed 0.14 builds its models on pydantic v1 (``deepspeed.pydantic_v1``, i.e. ``pydantic.v1``); 0.15 and
# later on pydantic v2. The helpers below read a model's fields the same way under both.
def _is_v1(model) -> bool:
    return not hasattr(model, "model_fields")


def _fields(model) -> list[tuple[str, str, typing.Any, dict, bool]]:
    """(field name, accepted key, inner annotation, extra dict, None accepted) for each field of ``model``."""
    out = []
    if _is_v1(model):
        for name, f in model.__fields__.items():
            extra = f.field_info.extra if isinstance(f.field_info.extra, dict) else {}
            out.append((name, f.alias or name, f.type_, extra, bool(f.allow_none)))
        return out
    for name, f in model.model_fields.items():
        extra = f.json_schema_extra if isinstance(f.json_schema_extra, dict) else {}
        out.append((name, f.alias or name, _unwrap(f.annotation), extra, False))
    return out


def _is_model(t) -> bool:
    from deepspeed.runtime.config_utils import DeepSpeedConfigModel

    return isinstance(t, type) and (issubclass(t, DeepSpeedConfigModel) or hasattr(t, "model_fields")
                                    or hasattr(t, "__fields__") and hasattr(t, "schema"))


def _model_extras(model) -> dict:
    names, deprecated = {}, {}
    for name, key, _, extra, _ in _fields(model):
        if key != name:
            names[key] = name
        if extra.get("deprecated"):
            deprecated[key] = str(extra.get("new_param", ""))
    return {"x-names": dict(sorted(names.items())), "x-deprecated": dict(sorted(deprecated.items()))}


def _all_models(model):
    seen, todo = [], [model]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.append(m)
        for _, _, inner, _, _ in _fields(m):
            if _is_model(inner):
                todo.append(inner)
    return seen


def _add_extras_to_defs(schema: dict, model) -> dict:
    """Attach x-names / x-deprecated to the root model and to every nested model in $defs."""
    schema.update(_model_extras(model))
    for m in _all_models(model):
        if m.__name__ in schema.get("$defs", {}):
            schema["$defs"][m.__name__].update(_model_extras(m))
    return schema


def _v1_schema(model) -> dict:
    """pydantic v1's schema in v2's layout: ``$defs`` instead of ``definitions``; a field that accepts None (v1
    ``Optional``, written without ``null`` in v1's schema) becomes ``anyOf [..., null]`` as v2 writes it."""
    try:
        raw = model.schema(ref_template="#/$defs/{model}")
    except (ValueError, TypeError):  # an arbitrary type (torch.dtype) v1 cannot declare: field by field
        raw = _v1_schema_by_field(model)
    raw["$defs"] = raw.pop("definitions", {}) | raw.get("$defs", {})

    def nullable(node: dict, m) -> None:
        props = node.get("properties", {})
        for _, key, _, _, allow_none in _fields(m):
            if allow_none and key in props and props[key].get("type") != "null":
                props[key] = {"anyOf": [props[key], {"type": "null"}]}

    nullable(raw, model)
    for m in _all_models(model):
        if m.__name__ in raw["$defs"]:
            nullable(raw["$defs"][m.__name__], m)
    return raw


def _v1_schema_by_field(model) -> dict:
    from pydantic.v1.schema import field_schema

    props, defs = {}, {}
    for name, f in model.__fields__.items():
        try:
            sub, sub_defs, _ = field_schema(f, model_name_map={m: m.__name__ for m in _all_models(model)},
                                            ref_template="#/$defs/{model}")
            defs.update(sub_defs)
        except (ValueError, TypeError, KeyError):
            sub = {"x-python-type": str(f.type_)[:80]}
        props[f.alias or name] = sub
    return {"title": model.__name__, "type": "object", "properties": props, "additionalProperties": False,
            "definitions": defs}


def model_schema(model) -> dict:
    if _is_v1(model):
        schema = _json_safe(_v1_schema(model))
        schema["x-model"] = f"{model.__module__}.{model.__name__}"
        return _add_extras_to_defs(schema, model)
    # json_schema_extra of deprecated fields holds a converter function, which pydantic cannot serialise:
    # blank the callables while the schema is generated, then put them back.
    stash = []
    for m in _all_models(model):
        for field in m.model_fields.values():
            extra = field.json_schema_extra
            if isinstance(extra, dict):
                for k, v in list(extra.items()):
                    if callable(v):
                        stash.append((extra, k, v))
                        extra[k] = "<function>"
    try:
        raw = model.model_json_schema(schema_generator=_schema_generator())
    finally:
        for extra, k, v in stash:
            extra[k] = v
    schema = _json_safe(raw)
    schema["x-model"] = f"{model.__module__}.{model.__name__}"
    return _add_extras_to_defs(schema, model)


def _find_model(title: str):
    from deepspeed.runtime.config_utils import DeepSpeedConfigModel

    todo, found = [DeepSpeedConfigModel], {}
    while todo:
        c = todo.pop()
        for s in c.__subclasses__():
            found.setdefault(s.__name__, s)
            todo.append(s)
    return found.get(title)


def _validation_error_types() -> tuple:
    import pydantic

    types = [pydantic.ValidationError]
    try:
        from pydantic import v1

        types.append(v1.ValidationError)
    except ImportError:
        pass
    return tuple(types)


def _model_from_failed_validator(err: BaseException, key: str):
    """pydantic v1 runs a model's root validators even after a field failed; DeepSpeed 0.14's monitor validator
    then raises AttributeError instead of the ValidationError. The section is still strict: the model is read from
    the traceback (pydantic v1's ``validate_model(model, ...)`` frame) and the nested model of ``key`` returned."""
    tb = err.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        model = frame.f_locals.get("model") if frame.f_code.co_name == "validate_model" else None
        if isinstance(model, type) and _is_v1(model):
            inner = next((t for name, k, t, _, _ in _fields(model) if key in (name, k)), None)
            if _is_model(inner):
                return inner
        tb = tb.tb_next
    return None


def _probe_model(path: list[str]):
    """Return the strict pydantic model that validates the section at ``path``, or None."""
    cfg = {"train_batch_size": 1}
    node = cfg
    for p in path[:-1]:
        node = node.setdefault(p, {})
    node[path[-1]] = {PROBE: 1}
    _, err = _run(cfg)
    if err is not None and not isinstance(err, _validation_error_types()):
        return _model_from_failed_validator(err, path[-1])
    if not isinstance(err, _validation_error_types()):
        return None
    model = getattr(err, "model", None) if not hasattr(err, "title") else _find_model(err.title)
    loc = list(err.errors()[0]["loc"])
    if not loc or loc[-1] != PROBE or model is None:
        return None
    for part in loc[:-1]:  # e.g. DeepSpeedMonitorConfig -> tensorboard -> TensorBoardConfig
        inner = next((t for name, key, t, _, _ in _fields(model) if part in (name, key)), None)
        if inner is None:
            return None
        model = inner
    return model


def _dict_section_keys(key: str) -> set[str]:
    """Sub-keys DeepSpeed reads from a hand-parsed section. Some are only read when others are set (before 0.17.1
    the fp16 keys only with ``enabled: true``, the dynamic-loss-scale keys only when one of them is present), so
    the probe is repeated with every key read so far set to the default DeepSpeed passed, until nothing new is read."""
    subs: set[str] = set()
    probes: list[dict] = [{}, {PROBE: 1}, {"enabled": True}]
    tried: list[dict] = []
    while probes:
        probe = probes.pop(0)
        tried.append(probe)
        sub_log, sub_err = _run({"train_batch_size": 1, key: probe})
        if sub_err is not None:
            continue
        read = {k.split(".", 1)[1]: v for k, v in sub_log.items() if k.startswith(key + ".")}
        read = {k: v for k, v in read.items() if "." not in k and k != PROBE}
        if set(read) - subs:
            subs |= set(read)
            grown = dict({"enabled": True}, **{k: v for k, v in read.items()
                                               if isinstance(v, (bool, int, float, str)) and k != "enabled"})
            if grown not in tried:
                probes.append(grown)
    return subs


# --------------------------------------------------------------------------------------------------------------
# the document
# --------------------------------------------------------------------------------------------------------------
def build_schema() -> dict:
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)  # DeepSpeed logs a warning per probe
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pydantic: non-JSON defaults (torch.float16) are left out
            return _build()
    finally:
        logging.disable(previous)


def _build() -> dict:
    import deepspeed
    import deepspeed.runtime.config as dsc
    import torch
    from deepspeed.runtime import constants as C
    from deepspeed.runtime import lr_schedules
    from deepspeed.runtime.config_utils import DeepSpeedConfigModel

    # the removed-feature tables arrived in 0.19.7; older releases have none
    removed_top = getattr(dsc, "_REMOVED_TOP_LEVEL_CONFIG_KEYS", {})
    removed_zero = getattr(dsc, "_REMOVED_ZERO_CONFIG_KEYS", {})
    log, err = _run(BASE)
    if err is not None:
        raise RuntimeError(f"minimal DeepSpeed config rejected: {err!r}")
    top = {k: v for k, v in log.items() if "." not in k}
    top_keys = sorted(set(top) | set(HAND_EXTRA_TOP_LEVEL))

    sections, dict_sections, defaults = {}, {}, {}
    for key in sorted(top):
        if key in removed_top:
            continue
        model = _probe_model([key])
        if model is not None:
            sections[key] = model_schema(model)
            continue
        if key in HAND_OPAQUE:
            continue
        default = top[key]
        if isinstance(default, dict) or default is None:
            subs = _dict_section_keys(key)
            if subs:
                for s in sorted(subs):
                    nested = _probe_model([key, s])
                    if nested is not None:
                        sections[f"{key}.{s}"] = model_schema(nested)
                dict_sections[key] = sorted(subs)
                continue
        if isinstance(default, (bool, int, float, str)) or default is None:
            defaults[key] = _json_safe(default)

    torch_optims = sorted(n for n, c in vars(torch.optim).items()
                          if isinstance(c, type) and issubclass(c, torch.optim.Optimizer)
                          and c is not torch.optim.Optimizer)
    torch_scheds = sorted(n for n, c in vars(torch.optim.lr_scheduler).items()
                          if isinstance(c, type) and issubclass(c, torch.optim.lr_scheduler.LRScheduler)
                          and not n.startswith("_") and n != "LRScheduler")
    sched_params = {}
    for name in lr_schedules.VALID_LR_SCHEDULES:
        sig = inspect.signature(getattr(lr_schedules, name).__init__)
        sched_params[name] = sorted(p for p in sig.parameters if p not in ("self", "optimizer"))

    dtype_names = sorted({str(v) for member in dsc.DtypeEnum for v in member._all_values if isinstance(v, str)})
    return {
        "deepspeed_version": deepspeed.__version__,
        "pydantic_major": 1 if _is_v1(DeepSpeedConfigModel) else 2,
        "generated_by": "scripts/gen_ds_schema.py",
        "top_level_keys": top_keys,
        "defaults": dict(sorted(defaults.items())),
        "sections": dict(sorted(sections.items())),
        "dict_sections": dict(sorted(dict_sections.items())),
        "opaque_sections": sorted(HAND_OPAQUE),
        "removed": {
            "top_level": sorted(removed_top),
            "zero_optimization": sorted(removed_zero),
            "issue": getattr(dsc, "_REMOVED_FEATURES_ISSUE", None),
        },
        "enums": {
            "deepspeed_optimizers": sorted(dsc.DEEPSPEED_OPTIMIZERS),
            "torch_optimizers": torch_optims,
            "deepspeed_schedulers": sorted(lr_schedules.VALID_LR_SCHEDULES),
            "torch_schedulers": torch_scheds,
            "scheduler_params": dict(sorted(sched_params.items())),
            # gradient_allreduce_op arrived in 0.19.6; older releases: no values (the key is not read)
            "gradient_allreduce_op": sorted(getattr(C, "GRADIENT_ALLREDUCE_OP_SUPPORTED", ())),
            "checkpoint_tag_validation": sorted(C.CHECKPOINT_TAG_VALIDATION_MODES),
            "dtype_names": dtype_names,
        },
    }


def render(doc: dict) -> str:
    """Compact canonical form (sorted keys, no indent): one file per release is shipped."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":")) + "\n"


def out_path(doc: dict) -> Path:
    """Where the schema of the DeepSpeed release that built ``doc`` is shipped."""
    return OUT_DIR / f"{doc['deepspeed_version']}.json"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the shipped file instead of writing it")
    ap.add_argument("--out", type=Path, default=None,
                    help="file to write (or compare); default wizard/data/ds_schema/<deepspeed version>.json")
    a = ap.parse_args(argv)
    doc = build_schema()
    text = render(doc)
    out = a.out or out_path(doc)
    if a.check:
        same = out.exists() and out.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{out} differs from the installed deepspeed: regenerate it")
        return 0 if same else 1
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
