"""Entry for the interactive wizard (issue #3)."""
from __future__ import annotations

import sys

from ..core.exits import EXIT_INVALID


def run(args) -> int:
    from ..core.context import LIBRARIES

    judged = None
    if any(getattr(args, f"headless_{lib}_version", None) for lib in LIBRARIES):  # read only when given
        from .common import judged_context

        judged = judged_context(args)  # a --LIB-version flag that is not a version: exit 2 before the screen opens
    from ..tui.shared import startup_gc

    startup_gc.pause()  # resumed after the first screen (see wizard/tui/shared/startup_gc.py)
    try:
        from ..tui.app import run_app
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("wizard.tui"):
            print("fsdpds-wizard: the interactive wizard is not built yet. Use:\n"
                  "  fsdpds-wizard presets                                  list the presets\n"
                  "  fsdpds-wizard --headless PRESET_OR_ANSWERS --out DIR   write the configs\n"
                  "  fsdpds-wizard explain [GROUP]                          FSDP vs DeepSpeed, side by side\n"
                  "  fsdpds-wizard check CONFIG.yaml                        lint an existing config", file=sys.stderr)
            return EXIT_INVALID
        raise
    try:
        return run_app(args, judged)
    finally:
        startup_gc.resume()  # when the app ends before its first screen was painted
