"""The file writer against a hostile folder (issue 22, items 5, 7, 12 and 13): links planted at the backup name,
a full disk while keeping the backup, a second --force, two writers to one folder, a file that decodes like the
planned text. Every test is an attack: it plants something, then checks that nothing outside the files to write
(and their new backups) changed. docs/security.md (section i22-files) names these tests."""
from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from helpers import ROOT

from wizard.core import files as files_mod
from wizard.core.files import WriteRefused, file_state, plan_conflicts, write_files


@pytest.fixture
def out(tmp_path):
    d = tmp_path / "out"
    d.mkdir()
    (d / "cfg.yaml").write_text("hand written: true\n")
    return d


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith((".tmp", ".bak")))


@pytest.fixture
def no_hard_links(monkeypatch):
    """A filesystem without hard links (vfat, some network filesystems): link() fails with EPERM."""
    def link(src, dst, *a, **kw):
        raise OSError(errno.EPERM, "Operation not permitted (no hard links here)", str(dst))
    monkeypatch.setattr(os, "link", link)


# ------------------------------------------------------------------------------------------- item 5
@pytest.mark.parametrize("links", ["hard links", "no hard links"])
@pytest.mark.parametrize("plant", ["symlink", "dangling symlink", "hard link"])
def test_a_link_planted_at_the_backup_name_is_never_written_through(out, victim, plant, links, request):
    bak = out / "cfg.yaml.bak"
    target = victim.parent / "created-through-the-link.txt"
    if plant == "symlink":
        bak.symlink_to(victim)
    elif plant == "dangling symlink":
        bak.symlink_to(target)
    else:
        os.link(victim, bak)
    if links == "no hard links":
        request.getfixturevalue("no_hard_links")
    result = write_files({out / "cfg.yaml": "written: true\n"}, force=True)
    assert victim.read_text() == "the victim's own words\n"
    assert not target.exists()
    assert (out / "cfg.yaml").read_text() == "written: true\n"
    assert result.backups == [out / "cfg.yaml.1.bak"]  # the planted name is skipped, not replaced
    assert (out / "cfg.yaml.1.bak").read_text() == "hand written: true\n"
    assert not (out / "cfg.yaml.1.bak").is_symlink()
    assert bak.is_symlink() == (plant != "hard link")  # the planted link is left as it was


def test_a_symlink_at_the_file_itself_is_replaced_and_kept_as_a_link(out, victim):
    (out / "cfg.yaml").unlink()
    (out / "cfg.yaml").symlink_to(victim)
    result = write_files({out / "cfg.yaml": "written: true\n"}, force=True)
    assert victim.read_text() == "the victim's own words\n"
    assert not (out / "cfg.yaml").is_symlink() and (out / "cfg.yaml").read_text() == "written: true\n"
    assert result.backups == [out / "cfg.yaml.bak"]
    assert (out / "cfg.yaml.bak").is_symlink() and (out / "cfg.yaml.bak").resolve() == victim


def test_the_backup_keeps_the_old_file_mode_and_time(out, no_hard_links):
    (out / "cfg.yaml").chmod(0o640)
    os.utime(out / "cfg.yaml", ns=(1_000_000_000, 2_000_000_000))
    write_files({out / "cfg.yaml": "written: true\n"}, force=True)
    st = (out / "cfg.yaml.bak").stat()
    assert (st.st_mode & 0o777, st.st_mtime_ns) == (0o640, 2_000_000_000)


# ------------------------------------------------------------------------------------------ item 13
@pytest.mark.parametrize("links", ["hard links", "no hard links"])
def test_a_second_force_keeps_the_first_backup(out, links, request):
    if links == "no hard links":
        request.getfixturevalue("no_hard_links")
    p = out / "cfg.yaml"
    assert write_files({p: "first: 1\n"}, force=True).backups == [out / "cfg.yaml.bak"]
    p.write_text("edited again by hand\n")
    assert write_files({p: "second: 2\n"}, force=True).backups == [out / "cfg.yaml.1.bak"]
    p.write_text("and once more\n")
    assert write_files({p: "third: 3\n"}, force=True).backups == [out / "cfg.yaml.2.bak"]
    assert (out / "cfg.yaml.bak").read_text() == "hand written: true\n"
    assert (out / "cfg.yaml.1.bak").read_text() == "edited again by hand\n"
    assert (out / "cfg.yaml.2.bak").read_text() == "and once more\n"
    assert write_files({p: "third: 3\n"}, force=True).backups == []  # the same bytes: nothing to keep


def test_when_every_backup_name_is_taken_nothing_is_replaced(out, monkeypatch):
    monkeypatch.setattr(files_mod, "MAX_BACKUPS", 3)
    for name in ("cfg.yaml.bak", "cfg.yaml.1.bak", "cfg.yaml.2.bak"):
        (out / name).write_text(f"{name}\n")
    with pytest.raises(WriteRefused, match="remove old ones first"):
        write_files({out / "cfg.yaml": "new: 1\n", out / "other.yaml": "o: 1\n"}, force=True)
    assert (out / "cfg.yaml").read_text() == "hand written: true\n" and not (out / "other.yaml").exists()
    assert _leftovers(out) == ["cfg.yaml.1.bak", "cfg.yaml.2.bak", "cfg.yaml.bak"]


# ------------------------------------------------------------------------------------------ item 12
_FULL_DISK = textwrap.dedent("""
    import errno, os, resource, signal, sys
    from pathlib import Path
    from wizard.core.files import write_files
    out, links = Path(sys.argv[1]), sys.argv[2]
    if links == "none":
        def link(src, dst, *a, **kw):
            raise OSError(errno.EPERM, "no hard links here", str(dst))
        os.link = link
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) like one on a full disk
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    try:
        r = write_files({out / "a.yaml": "a: new\\n", out / "big.yaml": "big: new\\n"}, force=True)
    except OSError as exc:
        print("failed", errno.errorcode.get(exc.errno))
    else:
        print("wrote", " ".join(sorted(p.name for p in r.backups)))
""")


@pytest.mark.parametrize("links", ["hard links", "none"])
def test_a_full_disk_while_keeping_the_backup_leaves_nothing_behind(tmp_path, links):
    """The old big.yaml (64 KiB) cannot be copied under a 4 KiB file size limit; the new files (a few bytes) can."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.yaml").write_text("a: old\n")
    big = "# hand written\n" + "x: 1\n" * 13_000
    (out / "big.yaml").write_text(big)
    run = subprocess.run([sys.executable, "-c", _FULL_DISK, str(out), links], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert run.returncode == 0, run.stderr
    if links == "hard links":  # a backup is a second name for the old file: no byte is copied, nothing can fail
        assert run.stdout.split() == ["wrote", "a.yaml.bak", "big.yaml.bak"]
        assert (out / "big.yaml.bak").read_text() == big and (out / "big.yaml").read_text() == "big: new\n"
        return
    assert run.stdout.split() == ["failed", "EFBIG"]
    assert _leftovers(out) == []  # no temporary, no half backup, not even a.yaml.bak made before it
    assert (out / "a.yaml").read_text() == "a: old\n" and (out / "big.yaml").read_text() == big


def test_no_space_for_the_backup_name_leaves_nothing_behind(out, monkeypatch):
    (out / "b.yaml").write_text("b: old\n")
    real = os.link

    def link(src, dst, *a, **kw):
        if str(dst).endswith("b.yaml.bak"):
            raise OSError(errno.ENOSPC, "No space left on device", str(dst))
        return real(src, dst, *a, **kw)

    monkeypatch.setattr(os, "link", link)
    with pytest.raises(OSError) as info:
        write_files({out / "cfg.yaml": "c: new\n", out / "b.yaml": "b: new\n", out / "new.yaml": "n\n"}, force=True)
    assert info.value.errno == errno.ENOSPC
    assert _leftovers(out) == [] and not (out / "new.yaml").exists()
    assert (out / "cfg.yaml").read_text() == "hand written: true\n" and (out / "b.yaml").read_text() == "b: old\n"


# ------------------------------------------------------------------------------------------- item 7
def test_unchanged_only_when_the_bytes_on_disk_are_the_bytes_to_write(out):
    crlf = out / "crlf.yaml"
    crlf.write_bytes(b"x: 1\r\n")  # reads as "x: 1\n" in text mode
    bad = out / "bad.yaml"
    bad.write_bytes(b"x: \xff\n")  # reads as "x: \ufffd\n" with errors="replace"
    planned = {crlf: "x: 1\n", bad: "x: \ufffd\n"}
    assert plan_conflicts(planned) == [crlf, bad]
    assert file_state(crlf, "x: 1\n") == file_state(bad, "x: \ufffd\n") == "changed"
    with pytest.raises(WriteRefused):
        write_files(planned)
    result = write_files(planned, force=True)
    assert result.unchanged == [] and result.written == [crlf, bad]
    assert crlf.read_bytes() == b"x: 1\n" and (out / "crlf.yaml.bak").read_bytes() == b"x: 1\r\n"


def _blocked_on(folder: Path) -> bool:
    """True when /proc/locks shows a process waiting for a lock on ``folder`` (a line with "->")."""
    st = folder.stat()
    ident = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    return any("->" in line and ident in line.split() for line in Path("/proc/locks").read_text().splitlines())


def _pause_after_first_fsync(monkeypatch, during):
    """Run ``during()`` once, while the first writer is between its comparison and its renames."""
    real, done = os.fsync, []

    def fsync(fd):
        real(fd)
        if not done:
            done.append(True)
            during()

    monkeypatch.setattr(os, "fsync", fsync)


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="reads /proc/locks (Linux)")
@pytest.mark.parametrize("force", [False, True])
def test_two_writers_to_one_folder_take_turns(tmp_path, monkeypatch, force):
    out = tmp_path / "out"
    out.mkdir()
    mine = {out / "accelerate_config.yaml": "mine: yaml\n", out / "ds_config.json": "{\"mine\": 1}\n"}
    theirs = {out / "accelerate_config.yaml": "theirs: yaml\n", out / "ds_config.json": "{\"theirs\": 1}\n"}
    outcome: dict = {}

    def second_writer():
        try:
            outcome["result"] = write_files(theirs, force=force)
        except WriteRefused as exc:
            outcome["refused"] = exc

    second = threading.Thread(target=second_writer)

    def start_the_second_writer_and_see_it_wait():
        second.start()
        while second.is_alive() and not _blocked_on(out):  # it waits on the lock, or (no lock) finishes
            second.join(0.01)
        outcome["waited"] = second.is_alive()

    _pause_after_first_fsync(monkeypatch, start_the_second_writer_and_see_it_wait)
    first = write_files(mine, force=force)
    second.join(60)
    assert outcome["waited"], "the second writer did not wait for the first"
    assert sorted(p.name for p in first.written) == ["accelerate_config.yaml", "ds_config.json"]
    if not force:  # the second sees the first's files and refuses, with nothing replaced
        assert sorted(p.name for p in outcome["refused"].paths) == ["accelerate_config.yaml", "ds_config.json"]
        assert {p: p.read_text() for p in mine} == mine
        assert _leftovers(out) == []
    else:  # one whole set after the other: the last set on disk, the first kept whole as the backups
        assert {p: p.read_text() for p in theirs} == theirs
        assert sorted(p.name for p in outcome["result"].backups) == ["accelerate_config.yaml.bak",
                                                                    "ds_config.json.bak"]
        assert {p: p.with_name(p.name + ".bak").read_text() for p in mine} == mine


def test_a_file_that_appears_while_writing_is_refused_not_replaced(tmp_path, monkeypatch):
    """Another program (that takes no lock) creates a file the wizard found missing: it is kept; nothing of this
    write stays (the backup made for the forced file is removed again, the old file is untouched)."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.yaml").write_text("old\n")
    late = out / "late.yaml"
    _pause_after_first_fsync(monkeypatch, lambda: late.write_text("someone else's\n"))
    with pytest.raises(WriteRefused, match="appeared while writing"):
        write_files({out / "old.yaml": "new\n", late: "mine\n"}, force=True)
    assert late.read_text() == "someone else's\n" and (out / "old.yaml").read_text() == "old\n"
    assert _leftovers(out) == []


def test_a_dangling_symlink_at_a_new_file_is_replaced_not_followed(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    target = tmp_path / "created-through-the-link.txt"
    (out / "cfg.yaml").symlink_to(target)
    result = write_files({out / "cfg.yaml": "c: 1\n"})
    assert result.written == [out / "cfg.yaml"] and result.backups == []
    assert not target.exists() and not (out / "cfg.yaml").is_symlink()


_FIFO = textwrap.dedent("""
    import sys
    from pathlib import Path
    from wizard.core.files import WriteRefused, file_state, write_files
    fifo = Path(sys.argv[1])
    print(file_state(fifo, "x: 1\\n"))
    try:
        write_files({fifo: "x: 1\\n"}, force=True)
    except WriteRefused as exc:
        print("refused", [p.name for p in exc.paths])
""")


def test_a_fifo_at_the_output_path_is_refused_at_once(tmp_path):
    """A FIFO planted where a config goes (nobody writes into it): the TUI's file states and the write answer at
    once instead of waiting for a writer forever (the child is only given a generous ceiling to fail on)."""
    fifo = tmp_path / "accelerate_config.yaml"
    os.mkfifo(fifo)
    run = subprocess.run([sys.executable, "-c", _FIFO, str(fifo)], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["unreadable", "refused ['accelerate_config.yaml']"]


def test_a_symlink_planted_at_the_temporary_name_is_passed_over_not_followed(out, tmp_path, monkeypatch):
    """The temporary each file is first written to is created with O_EXCL (as tempfile.mkstemp did, without its
    imports: issue 26): a symlink already at the name it draws is neither followed nor replaced; another name is
    drawn, and the file is written only for this user until it is given its final mode."""
    victim = tmp_path / "victim"
    victim.write_text("not yours\n")
    draws = iter([b"\x00" * 6, b"\x01" * 6])
    monkeypatch.setattr(os, "urandom", lambda n: next(draws))
    planted = out / f".new.yaml.{'00' * 6}.tmp"
    planted.symlink_to(victim)
    fd, tmp = files_mod._new_temporary(out / "new.yaml")
    os.close(fd)
    assert tmp.name == f".new.yaml.{'01' * 6}.tmp"
    assert (tmp.stat().st_mode & 0o777) == 0o600
    assert victim.read_text() == "not yours\n" and planted.is_symlink()
    tmp.unlink()
    monkeypatch.setattr(os, "urandom", lambda n: b"\x00" * 6)  # every name drawn is taken: refused, not followed
    with pytest.raises(FileExistsError):
        files_mod._new_temporary(out / "new.yaml")
    assert victim.read_text() == "not yours\n"
