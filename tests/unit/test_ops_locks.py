"""A build of DeepSpeed's CPU ops that was stopped leaves torch's build lock behind, and every later rank that loads
the op waits for it without end and without output (a rehearsal that never starts). The notes shown before a
rehearsal (headless and the TUI's run screen read the same ``ops_notes``) name such a lock and how to remove it."""
from __future__ import annotations

import os
import time

from wizard.run.rehearse import STALE_LOCK_S, deepspeed_ops_cached, ops_notes, stale_build_locks


def _built(root):
    for op in ("cpu_adam", "deepspeed_shm_comm"):
        (root / op).mkdir(parents=True)
        (root / op / f"{op}.so").write_bytes(b"\x7fELF")


def test_a_lock_left_by_a_stopped_build_is_named_with_its_removal(tmp_path):
    _built(tmp_path)
    lock = tmp_path / "deepspeed_shm_comm" / "lock"
    lock.touch()
    old = time.time() - STALE_LOCK_S - 60
    os.utime(lock, (old, old))
    env = {"TORCH_EXTENSIONS_DIR": str(tmp_path)}
    assert stale_build_locks(env) == [lock]
    notes = ops_notes(env)
    assert len(notes) == 1 and f"rm {lock}" in notes[0] and "wait for it without end" in notes[0]


def test_a_build_under_way_is_not_called_stale(tmp_path):
    _built(tmp_path)
    (tmp_path / "cpu_adam" / "lock").touch()  # a build that started just now holds it
    env = {"TORCH_EXTENSIONS_DIR": str(tmp_path)}
    assert stale_build_locks(env) == [] and ops_notes(env) == []


def test_ops_not_built_yet_say_how_long_the_first_build_takes(tmp_path):
    env = {"TORCH_EXTENSIONS_DIR": str(tmp_path)}
    assert not deepspeed_ops_cached(env)
    assert [n for n in ops_notes(env) if "--prewarm" in n]
