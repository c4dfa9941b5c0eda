"""How the suite is split: the fast tier, and what runs apart when pytest-xdist runs the suite on several workers.

The fast tier (``make test-fast``) is tests/unit and tests/headless without the tests marked ``verify`` (a round trip
through the real accelerate/deepspeed code), ``real`` (torch, accelerate or deepspeed run for real: a measured
training step, a library replay in a child process, a build of DeepSpeed's ops), ``e2e`` (a launch) or
``install`` (a wheel in a fresh virtual environment). What is ``real`` in those two folders is decided here, by
module, so one list says it.

The whole suite (``make test``) runs on pytest-xdist workers with ``--dist loadgroup``:

- tests that share a fixture wider than one test (a module's one training run, the e2e folder's rehearsals, the
  SLURM cluster of tests/slurm, the wheel of tests/install) form one group and run on one worker, so that fixture is
  built once; the group is the fixture's module, or the folder of the conftest that defines it;
- DeepSpeed's CPU ops are built before any worker starts (:func:`pytest_sessionstart` in the controller), so no two
  tests wait on the same build lock;
- the groups of real processes are put first, so the longest work starts while the short tests fill the gaps.

Ports need no grouping: no test picks a port for a process to bind later (tests/claims/gloo_ranks.py, the
rehearsal's standalone rendezvous, the SLURM cluster's retry); every test writes under its own ``tmp_path``.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

REAL_MODULES = {
    # module (relative to tests/) -> why its tests are not in the fast tier
    "unit/test_memory_peak_measured.py": "trains a tiny Llama with torch to measure its peak memory",
}
"""Modules of tests/unit and tests/headless whose every test runs the training libraries or heavy tools for real."""

FIRST = ("install", "slurm", "e2e", "claims", "verify", "tui")
"""The folders whose tests run long, longest first: under xdist they start first."""

NEEDS_DEEPSPEED_OPS = {"claims", "e2e", "slurm", "install", "tui", "verify"}
"""Folders with tests that load DeepSpeed's CPU ops (a rank, a rehearsal, DeepSpeedCPUAdam)."""


def _shared_group(item) -> str | None:
    """The widest fixture of module, package or session scope this test uses and that some folder or module of
    tests/ defines (the root conftest's are cheap and everyone's): its module, or its conftest's folder."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    found: list[str] = []
    for name in item.fixturenames:
        defs = info.name2fixturedefs.get(name)
        if not defs:
            continue
        fixture = defs[-1]
        if fixture.scope not in ("module", "package", "session"):
            continue
        baseid = fixture.baseid or ""
        if baseid in ("", "tests") or not baseid.startswith("tests/"):
            continue  # a plugin's or the root conftest's: cheap, or meant for every worker
        found.append(baseid)
    return min(found, key=lambda b: (b.count("/"), b)) if found else None


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks
def pytest_collection_modifyitems(config, items):
    rank: dict[str, int] = {}
    for item in items:
        try:
            rel = Path(str(item.fspath)).resolve().relative_to(TESTS)
        except ValueError:
            rank[item.nodeid] = len(FIRST)
            continue
        rank[item.nodeid] = FIRST.index(rel.parts[0]) if rel.parts[0] in FIRST else len(FIRST)
        if rel.as_posix() in REAL_MODULES:
            item.add_marker(pytest.mark.real)
        group = _shared_group(item)
        if group is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group.replace("/", ".")))
    # stable: within a folder the collection order stays
    items.sort(key=lambda it: rank[it.nodeid])


def _is_controller(config) -> bool:
    return not hasattr(config, "workerinput")


def _selects_folders_needing_ops(config) -> bool:
    for arg in [a for a in config.args if not a.startswith("-")] or [str(TESTS)]:
        path = Path(config.invocation_params.dir, arg.split("::")[0]).resolve()
        if path == TESTS or path in TESTS.parents:
            return True
        if TESTS in path.parents and path.relative_to(TESTS).parts[0] in NEEDS_DEEPSPEED_OPS:
            return True
    return False


STALE_LOCK_S = 30 * 60
"""torch's extension builder waits for ever on a ``lock`` file left by a build that was killed; a real build of a
DeepSpeed op takes 60-100 s here, so a lock older than this is stale."""


def _remove_stale_build_locks() -> None:
    """A killed run leaves a build lock in the DeepSpeed ops cache; every test that loads an op would then hang."""
    root = Path(os.environ.get("TORCH_EXTENSIONS_DIR") or "")
    now = time.time()
    for lock in root.glob("*/lock") if root.is_dir() else ():
        try:
            age = now - lock.stat().st_mtime
        except FileNotFoundError:
            continue
        if age > STALE_LOCK_S:
            lock.unlink(missing_ok=True)
            print(f"tests: removed a stale build lock ({age / 60:.0f} min old): {lock}", file=sys.stderr)


def ensure_deepspeed_ops() -> float:
    """Build DeepSpeed's CPU ops (shared-memory comm, CPU Adam) into TORCH_EXTENSIONS_DIR in one process unless they
    are there (a file check); the seconds it took. Raises RuntimeError with the build's error."""
    from wizard.run.rehearse import deepspeed_ops_cached, prewarm_deepspeed_ops

    t0 = time.monotonic()
    if not deepspeed_ops_cached():
        proc = prewarm_deepspeed_ops(timeout=900)
        if proc.returncode != 0:
            raise RuntimeError(f"building DeepSpeed's CPU ops failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return time.monotonic() - t0


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """Remove stale build locks; then, in the controller (or a plain run), build DeepSpeed's CPU ops once, before any
    worker or rank needs them, when the selected tests include a folder that loads them and the cache lacks them."""
    config = session.config
    _remove_stale_build_locks()
    if not _is_controller(config) or not _selects_folders_needing_ops(config):
        return
    import importlib.util

    from wizard.run.rehearse import deepspeed_ops_cached

    if deepspeed_ops_cached() or importlib.util.find_spec("deepspeed") is None:
        return  # built already, or the run libraries are not installed (the tests that need them say so)
    print(f"tests: building DeepSpeed's CPU ops once into {os.environ.get('TORCH_EXTENSIONS_DIR')} "
          "(60-100 s each on 2 cores) ...", file=sys.stderr, flush=True)
    try:
        took = ensure_deepspeed_ops()
    except RuntimeError as e:
        raise pytest.UsageError(str(e)) from e
    print(f"tests: DeepSpeed's CPU ops built in {took:.0f} s", file=sys.stderr, flush=True)
