"""``fsdpds-wizard schema [--format json|markdown]``: the answers.yaml schema from the catalogue."""
from __future__ import annotations

import argparse
import json

from ..cli import EXIT_OK
from ..core.schema import json_schema, markdown_reference


def run(rest: list[str]) -> int:
    p = argparse.ArgumentParser(prog="fsdpds-wizard schema", description="Print the answers.yaml schema.")
    p.add_argument("--format", choices=("json", "markdown"), default="json")
    args = p.parse_args(rest)
    if args.format == "json":
        print(json.dumps(json_schema(), indent=2))
    else:
        print(markdown_reference())
    return EXIT_OK
