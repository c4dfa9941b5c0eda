"""``fsdpds-wizard consolidate RUN_DIR [--out DIR] [--force] [--format text|json]``: one safetensors file from
a run's checkpoint, made by the libraries' own tools (see :mod:`wizard.run.consolidate`).

RUN_DIR is a run record folder (``OUT/runs/<id>``), a checkpoint folder or a folder of checkpoints. The file
goes to ``DIR/model.safetensors`` (default ``RUN_DIR/consolidated/``); an existing file is replaced only with
``--force``. Progress goes to stderr, the result to stdout. Exit 0 written, 2 bad input (with what to do), also a
checkpoint refused because it would run code or is damaged (:mod:`wizard.run.checkpoint_io`).
torch, accelerate and deepspeed are imported only once the checkpoint is found.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..core.exits import EXIT_OK, UsageError


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


def run(args) -> int:
    from ..core import localized
    from ..core.i18n.lines import line
    from ..core.localized import phrases
    from ..run.consolidate import ConsolidateError, consolidate, find_checkpoint

    def progress(text: str) -> None:  # text: a said(...) sentence of wizard/run/consolidate.py, in the language
        what = text.removeprefix("consolidating ")  # (one word of its own: a line of lines.py, not a template)
        shown = line("consolidating", what=localized.said(what)) if what != text else localized.said(text)
        print(f"consolidate: {shown}", file=sys.stderr, flush=True)

    try:
        ck = find_checkpoint(args.run_dir)
        backend = {"fsdp_sharded": "fsdp", "fsdp_full": "fsdp", "deepspeed_zero": "deepspeed"}.get(ck.format)
        if backend is not None:  # the base install has no torch: say what to install, exit 2
            from ..run.requirements import require

            require("consolidate", backend)
        target = Path(args.run_dir).expanduser()
        out = Path(args.out).expanduser() if args.out else target / "consolidated"
        result = consolidate(ck, out, force=args.force, progress=progress)
    except ConsolidateError as exc:
        raise UsageError(str(exc)) from exc
    if args.format == "json":
        print(json.dumps(result.to_dict(), indent=2))
        return EXIT_OK
    dtypes = ", ".join(f"{d} x{n}" for d, n in sorted(result.dtypes.items()))
    print(line("consolidated", file=result.out_file, size=_size(result.size_bytes), params=f"{result.num_params:,}",
               tensors=result.num_tensors, dtypes=dtypes))
    print(f"  {line('consolidated_from', what=localized.said(ck.describe()))}")
    print(f"  {line('consolidated_ran', tool=phrases.shown(result.tool))}")
    print(f"  {line('consolidated_same_as', command=localized.said(result.command))}")  # a command, or a sentence
    for note in result.notes:
        print(f"  {line('note', note=localized.said(note))}")
    return EXIT_OK
