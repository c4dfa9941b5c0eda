"""``fsdpds-wizard estimate ANSWERS_OR_PRESET|CONFIG (--model CONFIG.json|NAME | --params N [--largest-layer N])
[--batch B] [--seq S] [--gpu-memory GiB [--headroom FRACTION]] [--format text|json]``: per-rank GPU and per-host CPU
memory (issue 10) of answers (taken as the config written from them) or of a config, through the effective model
(:mod:`wizard.core.effective`); with the GPU memory, whether it fits with a share kept free and the largest micro batch
that does (:mod:`wizard.core.memory.fit`, the same words as ``recommend`` and the TUI).

Imports neither torch nor accelerate, deepspeed or transformers: the model comes from a shipped shape, a
config.json or the counts given.
"""
from __future__ import annotations

import json
import os

from ..core.exits import EXIT_OK, UsageError
from ..core.memory.estimate import BREAKDOWN_KEYS, GIB, HOST_KEYS, Estimate, EstimateError, estimate
from ..core.memory.fit import micro_batch_line
from ..core.memory.report import at_peak, peak_line


def model_shape(value: str, *, params_option: bool = True):
    """The shape ``--model`` names (a config.json path or a shipped shape name); a usage error otherwise, which
    points to ``--params`` only where the command has it (``params_option``)."""
    from ..core.memory.shapes import PARAMS_HINT, ModelError, from_config_json, shape_by_name

    try:
        if os.path.exists(value) or value.endswith(".json"):
            return from_config_json(value)
        return shape_by_name(value, params_hint=params_option)
    except ModelError as exc:
        said = str(exc) if params_option else str(exc).replace(PARAMS_HINT, "")
        raise UsageError(f"--model {value}: {said}") from exc


def model_from_args(args, command: str, *, largest_with_model: bool = True):
    """The shape of ``--model`` (None with ``--params``), after the checks ``estimate`` and ``recommend`` share;
    ``largest_with_model`` False refuses ``--largest-layer`` next to ``--model``."""
    if args.model is None and args.params is None:
        raise UsageError(f"{command} needs the model: --model CONFIG.json|NAME (a shipped shape such as "
                         "llama-3.1-8b) or --params N [--largest-layer N]")
    if args.model is not None and args.params is not None:
        raise UsageError("--model and --params do not go together: give the model's config (or name), or its "
                         "parameter count")
    if not largest_with_model and args.model is not None and args.largest_layer is not None:
        raise UsageError("--largest-layer goes with --params only: with --model the largest layer comes from the "
                         "model's shape")
    if args.model is None and args.largest_layer is not None and args.largest_layer < 0:
        raise UsageError(f"--largest-layer {args.largest_layer}: give a parameter count of 0 or more")
    return model_shape(args.model) if args.model is not None else None


def compute(args) -> Estimate:
    from . import sources

    shape = model_from_args(args, "estimate")
    path, kind = sources.resolve(args.answers)
    if kind == sources.ANSWERS_KIND:
        sources.refuse_config_flags(args, path)
        source = sources.answers_of(path)
    else:
        source = sources.config_layout(path, args, shape)
    try:
        return estimate(source, params=args.params, largest_layer_params=args.largest_layer, shape=shape,
                        batch=args.batch, seq=args.seq, gpu_memory_gib=args.gpu_memory, headroom=args.headroom)
    except EstimateError as exc:
        raise UsageError(str(exc)) from exc


def _width(e: Estimate) -> int:
    """The width of a figure column: 10, or wider where a figure needs it (a long sequence at a large micro batch),
    so that figures never run together."""
    figures = [*e.per_rank.breakdown.values(), *at_peak(e).values(), e.per_rank.gpu_bytes,
               *e.host_breakdown.values(), e.host_bytes]
    if e.deepspeed_estimator:
        figures += [e.deepspeed_estimator["gpu_bytes"], e.deepspeed_estimator["cpu_bytes"]]
    return max(10, 2 + max(len(f"{n / GIB:.2f}") for n in figures))


def text_report(e: Estimate) -> str:
    """The estimate as the command prints it, in the wizard's language (``--lang``, the locale)."""
    from ..core.i18n import language

    return _text_report_in(e, language())


def _text_report_in(e: Estimate, lang: str) -> str:
    """:func:`text_report`'s lines in ``lang``: the words in the language (English: as written), the figures, keys
    and names as they are, the labels padded by their width on screen."""
    from ..core.i18n import cells
    from ..core.localized import memory as words
    from ..core.localized import said, screen

    w = _width(e)

    def gib(n: int | float) -> str:
        return f"{n / GIB:{w}.2f}"

    def say(key: str, **values: object) -> str:
        return screen("memory", key, lang, **values)

    def right(text: str, width: int) -> str:
        return " " * max(1, width - cells.width(text)) + text

    def row(label: str, figures: str) -> str:
        return f"  {cells.ljust(label, 46)}{figures}"

    name = e.shape or say("model")
    bpp = e.bytes_per_param
    lines = [say("report_heading", model=name, params=f"{e.params:,}", largest=f"{e.largest_layer_params:,}",
                 layout=said(e.layout, lang), batch=e.batch, seq=e.seq),
             say("cli.bytes_per_param", parameters=f"{bpp['parameters']:.2f}", gradients=f"{bpp['gradients']:.2f}",
                 optimizer_states=f"{bpp['optimizer_states']:.2f}"),
             "", f"{cells.ljust(say('col_per_gpu'), 48)}{'GiB':>{w}}{right(say('col_at_peak'), w)}"]
    held = at_peak(e)
    for k in BREAKDOWN_KEYS:
        lines.append(row(words.part(k, lang), gib(e.per_rank.breakdown[k]) + gib(held[k])))
    lines.append(row(say("row_peak"), f"{'':{w}}{gib(e.per_rank.gpu_bytes)}"))
    lines.append(f"  {said(peak_line(e), lang)}")
    if e.fit is not None:
        lines.append(f"  {words.verdict(e.fit, lang=lang)}")
        batch_line = micro_batch_line(e.fit)
        if batch_line is not None:
            lines.append(f"  {said(batch_line, lang)}")
    lines += ["", f"{cells.ljust(say('col_per_host', ranks=e.ranks_per_host), 48)}{'GiB':>{w}}"]
    for k in HOST_KEYS:
        if e.host_breakdown[k]:
            lines.append(row(words.part(k, lang), gib(e.host_breakdown[k])))
    lines.append(row(say("row_total"), gib(e.host_bytes)))
    ds = e.deepspeed_estimator
    if ds:
        lines += ["", say("cli.ds_comparison", version=ds["deepspeed_version"], function=ds["function"]),
                  row(say("cli.gpu_per_rank"), gib(ds["gpu_bytes"])),
                  row(say("cli.cpu_per_host"), gib(ds["cpu_bytes"]))]
    for note in e.notes:
        lines.append(say("note", note=words.note(note, lang=lang)))
    return "\n".join(lines)


def run(args) -> int:
    e = compute(args)
    if args.format == "json":
        print(json.dumps(e.to_json(), indent=2))
    else:
        print(text_report(e))
    return EXIT_OK
