"""``fsdpds-wizard schema [--format json|markdown]``: the answers.yaml schema from the catalogue."""
from __future__ import annotations

import json

from ..core.answers.schema import json_schema, markdown_reference
from ..core.exits import EXIT_OK


def run(args) -> int:
    """``args``: the command's parsed options (``format``), from ``wizard.cli``."""
    if args.format == "json":
        print(json.dumps(json_schema(), indent=2))
    else:
        print(markdown_reference())
    return EXIT_OK
