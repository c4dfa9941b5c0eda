"""After the run, print how long each step of the install test took (build, venvs, installs, rehearsal)."""
from __future__ import annotations

import sys


def pytest_terminal_summary(terminalreporter):
    timings = getattr(sys.modules.get("test_wheel"), "TIMINGS", None)
    if timings:
        terminalreporter.write_sep("-", "install test timings (s)")
        for name, seconds in timings.items():
            terminalreporter.write_line(f"{seconds:7.1f}  {name}")
