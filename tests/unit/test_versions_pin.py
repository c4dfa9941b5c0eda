"""The test environment runs the stack the knowledge is verified against: `make venv` installs the [run] extra under
constraints/verified.txt, which must say what wizard/core/versions.py VERIFIED_AGAINST says (a new accelerate release,
1.16, changed FSDP defaults the rules describe; the suite must not change with the registry's newest release)."""
from __future__ import annotations

import re
from importlib.metadata import version

from helpers import ROOT

from wizard.core.versions import VERIFIED_AGAINST


def _pins() -> dict[str, str]:
    out = {}
    for line in (ROOT / "constraints" / "verified.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            m = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", line)
            assert m, f"constraints/verified.txt: {line!r} is not NAME==VERSION"
            out[m.group(1).lower()] = m.group(2)
    return out


def test_constraints_pin_the_verified_versions():
    assert _pins() == VERIFIED_AGAINST


def test_the_makefile_installs_under_the_constraints():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "-c constraints/verified.txt" in makefile
    assert "constraints/verified.txt" in makefile.split("$(STAMP):", 1)[1].splitlines()[0]


def test_this_environment_runs_the_verified_stack():
    for name, verified in VERIFIED_AGAINST.items():
        assert version(name).split("+")[0] == verified, f"{name} {version(name)} installed, {verified} verified"
