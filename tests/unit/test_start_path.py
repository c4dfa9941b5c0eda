"""The start path of `check`, `--headless` and `explain` stays light, without timing anything (issue 26): each
command, run in a fresh interpreter, imports no module that tests/start_path.py does not list for it, and every
module listed there it still imports (the lists only shrink)."""
import sys

import pytest
from start_path import COMMANDS, EXPECTED, KINDS, STDLIB_PYTHON, imported

HOW_TO_ADD = ("import it inside the function that needs it; if the command must import it at start, add it to "
              "EXPECTED[{cmd!r}][{kind!r}] in tests/start_path.py on purpose (PYTHONPATH=. python tests/start_path.py "
              "prints the lists as they are now) and say why in the commit")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_start_path_imports_only_what_is_listed(command):
    got = imported(command)
    assert got["code"] == 0, f"{command} failed: exit {got['code']}"
    kinds = KINDS if sys.version_info[:2] == STDLIB_PYTHON else tuple(k for k in KINDS if k != "stdlib")
    problems = []
    for kind in kinds:
        expected, now = EXPECTED[command][kind], got[kind]
        if now - expected:
            problems.append(f"new on the start path of {command} ({kind}): {sorted(now - expected)}; "
                            + HOW_TO_ADD.format(cmd=command, kind=kind))
        if expected - now:
            problems.append(f"no longer imported by {command} ({kind}): {sorted(expected - now)}; take it out of "
                            f"EXPECTED[{command!r}][{kind!r}] in tests/start_path.py: the list only shrinks")
    assert not problems, "\n".join(problems)


def test_every_measured_command_has_its_lists():
    assert set(EXPECTED) == set(COMMANDS)
    for command, lists in EXPECTED.items():
        assert set(lists) == set(KINDS), command
