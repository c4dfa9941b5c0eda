"""``fsdpds-wizard recommend (--model CONFIG.json|NAME | --params N [--largest-layer N]) --gpus-per-node N
--gpu-memory GiB [--nodes K] [--host-memory GiB] [--batch B] [--seq S] [--headroom FRACTION] [--base ANSWERS]
[--write DIR|FILE [--force]] [--format text|json]``: candidate configs from both backends, ranked, each with the
reason for its place (issue 10); ``--write`` writes the chosen one's answers.yaml.

Exit codes: 0 a candidate fits (and was written, with ``--write``); 1 nothing fits (the ranked list is still printed,
nothing is written); 2 bad input, a ``--base`` config with errors as ``check`` reports them (listed, nothing written, as
``convert`` refuses one), or ``--write`` would replace a different file without ``--force``.
Imports neither torch nor accelerate, deepspeed or transformers.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ..core.exits import EXIT_INVALID, EXIT_OK, UsageError
from ..core.i18n.lines import line
from ..core.memory.estimate import GIB, EstimateError
from ..core.memory.recommend import Recommendation, recommend
from .estimate import model_from_args

EXIT_NOTHING_FITS = 1
"""No candidate fits the GPUs (with the headroom) and, when given, the host memory."""

ANSWERS_NAME = "answers.yaml"


def compute(args) -> Recommendation:
    shape = model_from_args(args, "recommend", largest_with_model=False)
    base = _base(args.base) if args.base is not None else None
    try:
        return recommend(shape=shape, params=args.params, largest_layer_params=args.largest_layer,
                         gpus_per_node=args.gpus_per_node, gpu_memory_gib=args.gpu_memory, nodes=args.nodes,
                         host_memory_gib=args.host_memory, batch=args.batch, seq=args.seq, base=base,
                         headroom=args.headroom)
    except EstimateError as exc:
        raise UsageError(str(exc)) from exc


def _base(name: str):
    """``--base``: answers or a preset as they are; a config imported into answers, as ``convert`` reads it."""
    from . import sources

    path, kind = sources.resolve(name)
    return sources.answers_of(path) if kind == sources.ANSWERS_KIND else sources.config_answers(path)


def write_target(value: str) -> Path:
    """``--write DIR|FILE``: a folder (existing, ending in a slash, or a name without .yaml/.yml) gets
    answers.yaml inside it; anything else is the file itself."""
    path = Path(value).expanduser()
    if path.is_dir() or value.endswith(("/", os.sep)):
        return path / ANSWERS_NAME
    if path.exists() or path.suffix in (".yaml", ".yml"):
        return path
    return path / ANSWERS_NAME


def _gib(n: float) -> str:
    return f"{n / GIB:.1f}"


def text_report(r: Recommendation, args) -> str:
    """The ranked candidates as the command prints them, in the wizard's language (``--lang``, the locale)."""
    from ..core.i18n import language

    return _text_report_in(r, args, language())


def _text_report_in(r: Recommendation, args, lang: str) -> str:
    """:func:`text_report`'s lines in ``lang`` (English: as written): the words, labels and reasons in the language;
    figures, keys and names as they are; the columns aligned by their width on screen."""
    from ..core.i18n import cells
    from ..core.localized import memory as words
    from ..core.localized import said, screen

    def say(key: str, **values: object) -> str:
        return screen("memory", key, lang, **values)

    def right(text: str, width: int) -> str:
        return " " * max(0, width - cells.width(text)) + text

    first = r.candidates[0].estimate if r.candidates else None
    lines = []
    if first is not None:
        values = {"model": first.shape or say("model"), "params": f"{first.params:,}", "nodes": args.nodes,
                  "gpus": args.gpus_per_node, "gpu_gib": f"{args.gpu_memory:g}", "headroom": f"{args.headroom:.0%}",
                  "batch": first.batch, "seq": first.seq}
        if args.host_memory is not None:
            lines.append(say("rec.heading_host", host=f"{args.host_memory:g}", **values))
        else:
            lines.append(say("rec.heading", **values))
    rows = [(_gib(c.estimate.per_rank.gpu_bytes), _gib(c.fit.spare_bytes), _gib(c.estimate.host_bytes),
             "-" if c.max_micro_batch is None else str(c.max_micro_batch)) for c in r.candidates]
    heads = [say("rec.gpu"), say("rec.spare"), say("rec.host"), say("rec.max_mb")]
    w = [max([least, cells.width(heads[i]), *(len(row[i]) for row in rows)]) for i, least in enumerate((8, 7, 8, 6))]
    yes, no = say("rec.yes"), say("rec.no")
    fw = max(4, cells.width(say("rec.fits")), cells.width(yes), cells.width(no))
    lines += ["", f"{'#':>3}  {cells.ljust(say('rec.fits'), fw)}  "
                  + "  ".join(right(h, w[i]) for i, h in enumerate(heads)) + f"  {say('rec.candidate')}"]
    for i, (c, row) in enumerate(zip(r.candidates, rows, strict=True), 1):
        mark = f"   {say('rec.chosen_mark')}" if c is r.chosen else ""
        figures = "  ".join(right(x, w[j]) for j, x in enumerate(row))
        fits = cells.ljust(yes if c.fits else no, fw)
        lines.append(f"{i:>3}  {fits}  {figures}  {words.candidate_label(c, lang)}{mark}")
        lines.append(f"{'':5}{words.reason(c, lang)}")
    lines.append("")
    if r.chosen is not None:
        lines.append(say("rec.chosen", label=words.candidate_label(r.chosen, lang),
                         layout=said(r.chosen.estimate.layout, lang)))
    else:
        lines.append(say("rec.nothing_fits"))
    for note in r.notes:
        lines.append(say("note", note=words.note(note, r, lang)))
    return "\n".join(lines)


def _write(r: Recommendation, args) -> tuple[int, Path | None, str]:
    from ..core.answers import dump_answers
    from ..core.files import WriteRefused, write_files

    assert r.chosen is not None
    target = write_target(args.write)
    if target.exists() and target.is_dir():
        raise UsageError(f"--write {args.write}: {target} is a folder; give a file name or another folder")
    try:
        result = write_files({target: dump_answers(r.chosen.answers)}, force=args.force)
    except WriteRefused as exc:  # in the language, as --headless and convert say it
        print(f"fsdpds-wizard: --write: {line('write_refused', names=exc.names) if exc.default else exc}",
              file=sys.stderr)
        return EXIT_INVALID, None, ""
    except OSError as exc:
        from ..core import localized
        from ..core.i18n import said
        from ..core.localized.phrases import os_words

        print(f"fsdpds-wizard: --write {args.write}: "
              f"{localized.said(said(f'cannot write {target}: {os_words(exc)}'))}", file=sys.stderr)
        return EXIT_INVALID, None, ""
    # the lines of wizard/core/i18n/lines.py, in the wizard's language (English: as before, word for word)
    message = line("unchanged" if result.unchanged else "wrote", path=target)
    message += "".join(f" ({line('kept_previous', path=b)})" for b in result.backups)
    message += "; " + line("write_configs_with", command=f"fsdpds-wizard --headless {target} --out DIR")
    if r.chosen.parallelism:  # written from the answers' parallelism group
        message += "; " + line("its_parallelism", values=", ".join(f"{k}: {v}" for k, v in r.chosen.parallelism))
    return EXIT_OK, target, message


def _refuse(args, refused) -> int:
    """``--base`` names a config with errors: the errors (stdout, or the JSON's ``findings``), then why (stderr)."""
    from .common import print_findings

    if args.format == "json":
        print(json.dumps({"error": str(refused), "findings": [f.to_dict() for f in refused.errors], "chosen": None,
                          "candidates": [], "written": None}, indent=2))
    else:
        print(line("base_not_used", name=args.base))
        print_findings(refused.errors, sys.stdout)
    print(f"fsdpds-wizard: --base: {refused.in_language()}", file=sys.stderr)
    return EXIT_INVALID


def run(args) -> int:
    from .sources import SourceHasErrors

    try:
        r = compute(args)
    except SourceHasErrors as exc:
        return _refuse(args, exc)
    code = EXIT_OK if r.chosen is not None else EXIT_NOTHING_FITS
    written, message = None, ""
    if args.write is not None and r.chosen is not None:
        code, written, message = _write(r, args)
        if code != EXIT_OK:  # refused or failed: said on stderr in one line, nothing on stdout
            return code
    if args.format == "json":
        out = r.to_json()
        out["settings"] = {"gpus_per_node": args.gpus_per_node, "nodes": args.nodes, "gpu_memory_gib": args.gpu_memory,
                           "host_memory_gib": args.host_memory, "headroom": args.headroom}
        out["written"] = str(written) if written is not None else None
        print(json.dumps(out, indent=2))
    else:
        print(text_report(r, args))
        if message:
            print(message)
    if args.write is not None and r.chosen is None:
        print("fsdpds-wizard: " + line("nothing_fits_not_written", path=args.write), file=sys.stderr)
    return code
