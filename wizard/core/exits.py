"""Exit codes and the usage error, shared by the CLI, the commands and the run layer.

Its own module (standard library only, imports nothing of the wizard) so that the commands and
``wizard.run.requirements`` need not import ``wizard.cli``, which imports the commands.

Exit codes: 0 success; 2 invalid input or a config with errors (findings on stderr or in the JSON);
3 an internal error (a bug: please report it).
"""
from __future__ import annotations

EXIT_OK = 0
EXIT_INVALID = 2
EXIT_INTERNAL = 3


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit 2."""


__all__ = ["EXIT_INTERNAL", "EXIT_INVALID", "EXIT_OK", "UsageError"]
