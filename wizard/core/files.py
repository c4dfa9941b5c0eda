"""Files on disk: atomic writes that never replace a different file without permission, and how the files to
write compare with what is there (state, unified diffs).

What a write trusts and what it does not (docs/security.md, section i22-files):

- Nothing already in the folder is written through. A new file is placed with a hard link that fails when the
  name is taken; a replaced file is swapped with a rename; a backup is a new name for the old file (a hard link,
  or on a filesystem without them a copy created with ``O_CREAT|O_EXCL|O_NOFOLLOW``). A symlink or hard link
  planted at ``NAME`` or ``NAME.bak`` is never followed.
- A backup never replaces another: ``NAME.bak`` first, then ``NAME.1.bak``, ``NAME.2.bak``, ... (the first free
  name, a higher number is a later backup).
- All or nothing: when a temporary or a backup cannot be written (a full disk), every temporary and every backup
  made so far is removed again and the old files are untouched.
- Two wizards writing to one folder take turns: the folder is locked (``flock`` on the folder itself, no lock file
  left behind) from the comparison with what is on disk to the last rename. A file is "unchanged" only when its
  bytes on disk equal the bytes to write.
"""
from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from .recordclass import record

try:
    import fcntl
except ImportError:  # not POSIX (Windows): the folder lock is skipped, the no-replace placements still hold
    fcntl = None  # type: ignore[assignment]

# link() failing with these means "this filesystem (or this file) takes no new hard link", not "the name is taken"
_NO_HARD_LINK = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.EXDEV, errno.ENOSYS})
# flock() failing with these means "this filesystem has no such locks" (some network filesystems)
_NO_LOCK = frozenset({errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EBADF, errno.EINVAL, errno.ENOSYS})
MAX_BACKUPS = 1000  # NAME.bak, NAME.1.bak ... NAME.999.bak: past that, remove old ones first


class WriteRefused(Exception):
    """Files exist with other content and ``force`` was not given (or a file appeared while writing)."""

    def __init__(self, paths: list[Path], message: str | None = None):
        from .i18n.lines import LINES  # the commands' lines: the default wording is one of them

        self.paths = paths
        self.names = ", ".join(str(p) for p in paths)
        """The refused files, as the default wording names them."""
        self.default = message is None
        """Whether the message is the default wording (the line ``write_refused``, said in the language)."""
        super().__init__(message or LINES["write_refused"].format(names=self.names))


@record(frozen=True)
class WriteResult:
    written: list[Path]
    unchanged: list[Path]
    backups: list[Path]


def _open_regular(path: Path) -> tuple[int, os.stat_result] | None:
    """A read descriptor on ``path`` and its status, or None when it is not a regular file. O_NONBLOCK: a FIFO
    swapped in after a check does not hang the open."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        return None
    return fd, st


def _state(path: Path, text: str) -> str:
    """``new`` (nothing there, or a dangling symlink), ``same`` (its bytes are the bytes to write), ``changed``
    or ``other`` (not a regular file: a folder, a FIFO, a device). Reads at most one byte more than ``text``."""
    data = text.encode("utf-8")
    try:
        opened = _open_regular(path)
    except FileNotFoundError:
        return "new"
    if opened is None:
        return "other"
    fd, st = opened
    try:
        if st.st_size != len(data):
            return "changed"
        with os.fdopen(os.dup(fd), "rb") as fh:
            return "same" if fh.read(len(data) + 1) == data else "changed"
    finally:
        os.close(fd)


def plan_conflicts(files: dict[Path, str]) -> list[Path]:
    """Paths that exist with content other than what would be written (byte for byte), or are not files."""
    return [path for path, text in files.items() if _state(path, text) in ("changed", "other")]


def file_state(path: Path, text: str) -> str:
    """``new``, ``same``, ``changed`` or ``unreadable``: the file at ``path`` against ``text`` to be written."""
    try:
        state = _state(path, text)
    except OSError:
        return "unreadable"
    return "unreadable" if state == "other" else state


def unified_diff(path: Path, text: str) -> str:
    """A unified diff from the file on disk to ``text`` (to be written there)."""
    import difflib  # only where a diff is shown (issue 26: --headless starts without it)

    from .i18n.lines import line  # the headers' words in the language, the file's name as it is

    old = path.read_text(encoding="utf-8", errors="replace")
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), text.splitlines(keepends=True),
                                        fromfile=line("diff_on_disk", name=path.name),
                                        tofile=line("diff_to_write", name=path.name)))


def _umask() -> int:
    """The process umask (reading it means setting it, so it is put back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode(path: Path) -> int:
    """The permission bits a written file gets: an existing file's own, else 0666 minus the umask (what ``open()``
    gives; a file a library wrote 0600, or a temporary, is set to this before it takes ``path``'s place)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return 0o666 & ~_umask()


def backup_names(path: Path) -> Iterator[Path]:
    """Where the old content of ``path`` may go, in order: ``NAME.bak``, ``NAME.1.bak``, ``NAME.2.bak``, ..."""
    yield path.with_name(path.name + ".bak")
    for n in range(1, MAX_BACKUPS):
        yield path.with_name(f"{path.name}.{n}.bak")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _copy_to_new(path: Path, backup: Path) -> None:
    """Copy ``path`` (what is there: a symlink stays a symlink) to ``backup``, which must not exist; a copy that
    cannot be finished (a full disk) is removed. FileExistsError when ``backup`` is taken (also by a symlink)."""
    st = path.lstat()
    if stat.S_ISLNK(st.st_mode):
        os.symlink(os.readlink(path), backup)
        return
    opened = _open_regular(path)
    if opened is None:
        raise WriteRefused([path], f"{path} is not a regular file; it is not replaced")
    src, sst = opened
    try:
        with os.fdopen(os.dup(src), "rb") as fh:
            data = fh.read()
    finally:
        os.close(src)
    fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.fchmod(fd, stat.S_IMODE(sst.st_mode))
        _write_all(fd, data)
        os.utime(fd, ns=(sst.st_atime_ns, sst.st_mtime_ns))
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        backup.unlink(missing_ok=True)  # O_EXCL made it: it is ours
        raise
    os.close(fd)


def _backup(path: Path) -> Path:
    """Keep what is at ``path`` under the first free backup name, never writing through anything there."""
    for backup in backup_names(path):
        try:
            os.link(path, backup, follow_symlinks=False)  # the old file itself gets a second name
            return backup
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno not in _NO_HARD_LINK:
                raise
        try:
            _copy_to_new(path, backup)
            return backup
        except FileExistsError:
            continue
    raise WriteRefused([path], f"{path}: {MAX_BACKUPS} backups of it exist already ({path.name}.bak, "
                               f"{path.name}.1.bak ... {path.name}.{MAX_BACKUPS - 1}.bak); remove old ones first")


_TEMPORARY_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _new_temporary(path: Path) -> tuple[int, Path]:
    """A new empty file beside ``path`` that only this user may read (0600), ``.NAME.<12 random hex>.tmp``, open
    for writing. Created with O_EXCL, so nothing already there (a file, a planted symlink) is opened or followed:
    what ``tempfile.mkstemp`` does, without the modules it imports (shutil, random, the compressors: issue 26)."""
    for _ in range(100):
        tmp = path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp"
        try:
            return os.open(tmp, _TEMPORARY_FLAGS, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(path.parent))


def _place_new(tmp: Path, path: Path, *, dangling: bool) -> None:
    """Give the finished temporary ``tmp`` the name ``path``, which was free (or a ``dangling`` symlink, replaced,
    never followed) when the files were compared: a file that appeared there since (a writer that does not take
    the folder lock) is refused, never replaced."""
    if dangling:
        os.replace(tmp, path)
        return
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise WriteRefused([path], f"refusing to replace {path}: it appeared while writing (another program "
                                   "writes to this folder); nothing written") from None
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINK:
            raise
        os.replace(tmp, path)
    else:
        tmp.unlink()


@contextlib.contextmanager
def folder_lock(folders: list[Path]) -> Iterator[None]:
    """Hold an exclusive ``flock`` on each folder (in a fixed order, so two writers cannot deadlock) until the
    block ends. Every wizard that writes takes it, so two writers to one folder take turns. On a filesystem
    without such locks, or for a folder this user may not read, the block runs unlocked (the no-replace
    placements of ``write_files`` still hold)."""
    fds: list[int] = []
    try:
        for folder in sorted(set(folders)):
            if fcntl is None:
                break
            try:
                fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            except PermissionError:  # a folder one may write to but not list (mode 0733): it cannot be locked
                continue
            fds.append(fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError as exc:
                if exc.errno not in _NO_LOCK:
                    raise
        yield
    finally:
        for fd in fds:
            os.close(fd)  # closing releases the lock


def write_files(files: dict[Path, str], *, force: bool = False) -> WriteResult:
    """Write every file or none: all temporaries first, then backups, then each into place.

    An existing file with the same bytes is left alone. One with other content is only replaced with ``force``,
    and then its old content is kept as ``NAME.bak`` (or the first free ``NAME.N.bak``). The folders are locked
    from the comparison to the last rename.
    """
    folders = []
    for path in files:
        path.parent.mkdir(parents=True, exist_ok=True)
        folders.append(path.parent)
    with folder_lock(folders):
        return _write_locked(files, force)


def _write_locked(files: dict[Path, str], force: bool) -> WriteResult:
    states = {path: _state(path, text) for path, text in files.items()}
    conflicts = [p for p, s in states.items() if s in ("changed", "other")]
    if conflicts and not force:
        raise WriteRefused(conflicts)
    dangling = {p for p, s in states.items() if s == "new" and os.path.lexists(p)}
    others = [p for p in conflicts if states[p] == "other"]
    if others:
        raise WriteRefused(others)
    temps: dict[Path, Path] = {}
    made: list[Path] = []  # backups and new files placed: removed again if a later step fails
    backups: list[Path] = []
    try:
        try:
            for path, text in files.items():
                if states[path] == "same":
                    continue
                fd, temps[path] = _new_temporary(path)
                # created 0600; give the file the mode open() would (or keep the mode of the file replaced)
                os.fchmod(fd, file_mode(path))
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(text)
                    fh.flush()
                    os.fsync(fh.fileno())
            for path in conflicts:
                backup = _backup(path)
                made.append(backup)
                backups.append(backup)
            for path in temps:
                if states[path] == "new":
                    _place_new(temps[path], path, dangling=path in dangling)
                    made.append(path)
        except BaseException:
            for p in reversed(made):
                p.unlink(missing_ok=True)
            raise
        for path in conflicts:  # from here on the backups hold the old content: they stay
            os.replace(temps[path], path)
    finally:
        for tmp in temps.values():
            tmp.unlink(missing_ok=True)
    written = list(temps)
    return WriteResult(written, [p for p, s in states.items() if s == "same"], backups)
