"""``fsdpds-wizard presets``: list the bundled preset answers files (or those in FSDPDS_TEMPLATES)."""
from __future__ import annotations

from ..core.exits import EXIT_INVALID, EXIT_OK
from ..core.presets import preset_paths, where


def describe(path) -> str:
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("# ").strip())
    return " ".join(lines)


def run(args) -> int:
    """``args``: the parsed options of the command (none), see ``wizard.cli``."""
    presets = preset_paths()
    if not presets:
        print(f"no presets found in {where()}")
        return EXIT_INVALID
    width = max(len(n) for n in presets)
    for name, path in presets.items():
        print(f"{name:<{width}}  {describe(path)}")
    print(f"\nuse one with: fsdpds-wizard --headless {next(iter(presets))} --out DIR")
    return EXIT_OK
