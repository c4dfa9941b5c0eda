"""Files on disk: atomic writes that never replace a different file without permission, and how the files to
write compare with what is there (state, unified diffs)."""
from __future__ import annotations

import difflib
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path


class WriteRefused(Exception):
    """Files exist with other content and ``force`` was not given."""

    def __init__(self, paths: list[Path]):
        self.paths = paths
        names = ", ".join(str(p) for p in paths)
        super().__init__(f"refusing to replace existing file(s) with different content: {names} "
                         "(use --force to replace them; the old content is kept as NAME.bak)")


@dataclass(frozen=True)
class WriteResult:
    written: list[Path]
    unchanged: list[Path]
    backups: list[Path]


def plan_conflicts(files: dict[Path, str]) -> list[Path]:
    """Paths that exist with content other than what would be written."""
    conflicts = []
    for path, text in files.items():
        if path.exists():
            if not path.is_file():
                conflicts.append(path)
            elif path.read_text(encoding="utf-8", errors="replace") != text:
                conflicts.append(path)
    return conflicts


def file_state(path: Path, text: str) -> str:
    """``new``, ``same``, ``changed`` or ``unreadable``: the file at ``path`` against ``text`` to be written."""
    if not path.exists():
        return "new"
    try:
        return "same" if path.read_text(encoding="utf-8", errors="replace") == text else "changed"
    except OSError:
        return "unreadable"


def unified_diff(path: Path, text: str) -> str:
    """A unified diff from the file on disk to ``text`` (to be written there)."""
    old = path.read_text(encoding="utf-8", errors="replace")
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), text.splitlines(keepends=True),
                                        fromfile=f"{path.name} (on disk)", tofile=f"{path.name} (to write)"))


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


def write_files(files: dict[Path, str], *, force: bool = False) -> WriteResult:
    """Write every file or none: all temporaries first, then rename each into place.

    An existing file with the same content is left alone. One with other content is only replaced
    with ``force``, and then its old content is kept as ``NAME.bak``.
    """
    conflicts = plan_conflicts(files)
    if conflicts and not force:
        raise WriteRefused(conflicts)
    for path in conflicts:
        if path.exists() and not path.is_file():
            raise WriteRefused([path])
    temps: list[tuple[Path, Path]] = []
    unchanged: list[Path] = []
    try:
        for path, text in files.items():
            if path.exists() and path not in conflicts:
                unchanged.append(path)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            temps.append((Path(tmp_name), path))
            # mkstemp creates 0600; give the file the mode open() would (or keep the mode of the file replaced)
            os.fchmod(fd, file_mode(path))
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
    except BaseException:
        for tmp, _ in temps:
            tmp.unlink(missing_ok=True)
        raise
    backups = []
    for path in conflicts:
        backup = path.with_name(path.name + ".bak")
        shutil.copy2(path, backup)
        backups.append(backup)
    written = []
    for tmp, path in temps:
        os.replace(tmp, path)
        written.append(path)
    return WriteResult(written, unchanged, backups)
