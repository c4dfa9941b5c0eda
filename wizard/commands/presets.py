"""``fsdpds-wizard presets``: list the bundled preset answers files (or those in FSDPDS_TEMPLATES)."""
from __future__ import annotations

import os

from ..core.exits import EXIT_INVALID, EXIT_OK
from ..core.i18n.lines import line
from ..core.presets import ENV, description, preset_paths, templates_dir


def run(args) -> int:
    """``args``: the parsed options of the command (none), see ``wizard.cli``."""
    presets = preset_paths()
    if not presets:  # where they were looked for (wizard.core.presets.where, in words of the language)
        folder = templates_dir()
        print(line("no_presets_env", path=folder, env=ENV) if os.environ.get(ENV) else line("no_presets", path=folder))
        return EXIT_INVALID
    width = max(len(n) for n in presets)
    for name, path in presets.items():
        print(f"{name:<{width}}  {description(name, path)}")
    print("\n" + line("presets_use_one", command=f"fsdpds-wizard --headless {next(iter(presets))} --out DIR"))
    return EXIT_OK
