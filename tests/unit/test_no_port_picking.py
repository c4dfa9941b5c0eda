"""No test, benchmark or run chooses a port by binding port 0, closing the socket and handing the number to a process
that binds it later: anything else on the machine (another suite, a rank's own connection attempts) can take it in
between (issue 19: "Gloo connectFullMesh failed ... Connection closed by peer"). What they do instead:
tests/claims/gloo_ranks.py (port 0 for a world of one, a store the test listens on for several ranks), the
rehearsal's standalone rendezvous (wizard/run/rehearse.py ``rehearsal_env``), the SLURM tests' retry on exactly a
taken port (tests/slurm)."""
from __future__ import annotations

import re

from helpers import ROOT

PICK = re.compile(r"getsockname\(\)\[1\]|\bfree_port\(")
ALLOWED = {
    "wizard/run/rehearse.py": "rehearsal_port's last resort on a machine with no free port below the ephemeral range; "
                              "on one machine only accelerate probes it, and a run that loses it is diagnosed "
                              "port-taken",
    "tests/claims/test_launch.py": "the busy-port claim keeps its socket listening for the whole test",
}


def test_no_port_is_picked_and_released_for_another_process():
    found = {}
    for folder in ("wizard", "tests", "benchmarks", "templates", "scripts"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == "tests/unit/test_no_port_picking.py":
                continue
            lines = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if PICK.search(line)]
            if lines:
                found[rel] = lines
    assert set(found) <= set(ALLOWED), {k: v for k, v in found.items() if k not in ALLOWED}
    assert found.keys() == ALLOWED.keys(), "an allowed place no longer picks a port: drop it from ALLOWED"
