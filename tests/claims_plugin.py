"""The claim tests' report hook: a failing ``@pytest.mark.claim("id")`` test says which claim no longer holds and
which texts, settings and rules state it (wizard.core.claims.index.revisit). Loaded by tests/claims/conftest.py;
tests/unit/test_claims.py runs it on a failing test of its own."""
from __future__ import annotations

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and report.when == "call":
        from wizard.core.claims.index import revisit

        for marker in item.iter_markers("claim"):
            report.sections.append(("claim", revisit(marker.args[0])))
