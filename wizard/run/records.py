"""The run directory: ``DIR/runs/<id>/`` with the configs used, the full log, metrics and a summary.

Layout (the contract acceptance checks read)::

    runs/<id>/accelerate_config.yaml   the configs the run used (ds_config.json, answers.yaml too)
    runs/<id>/command.json             argv, working directory, environment overrides
    runs/<id>/processes.json           the wizard and every process of the run seen (pid, start time, command
                                       line): what the next launch stops if this wizard was killed (leftovers.py)
    runs/<id>/log.txt                  every byte the run wrote (stdout and stderr, interleaved)
    runs/<id>/metrics.jsonl            one JSON object per reported step: at least "step" and "loss"
    runs/<id>/summary.json             exit_code, status, effective_setup, checklist, diagnosis, ...
    runs/<id>/checkpoint/step-NNNNNN/  checkpoints the bundled script saved (accelerate's save_state)
    runs/<id>/checkpoint.json          the latest of them: {"latest": path, "format", "step", ...}
    runs/<id>/stop                     created when the run was stopped: asks the script to end after its step
    runs/<id>/consolidated/            model.safetensors, when the TUI's c (or consolidate) made it

``summary.json`` is rewritten atomically (temporary file + rename), so a reader never sees half of it.

Private by default (docs/security.md, section i22-secrets): each run folder is created 0700 (only its owner may list
or read it; the files inside follow the umask), ``runs/`` gets a ``.gitignore`` of ``*`` when the wizard creates it
or finds it without one (an output folder is often committed), and everything written here goes through one
:class:`~wizard.core.redact.Redactor`: the log line by line, the command, the metrics, the summary and the answers'
copy, so that a token in the environment or the output is stored as ``[redacted]``.
"""
from __future__ import annotations

import json
import logging
import math
import os
import secrets
import time
from pathlib import Path
from typing import IO, Any

from ..core.redact import Redactor

_logger = logging.getLogger(__name__)
LOG = "log.txt"
METRICS = "metrics.jsonl"
SUMMARY = "summary.json"
COMMAND = "command.json"
CHECKPOINT = "checkpoint.json"
"""Written by the bundled script (templates/train_gpt.py) after each checkpoint; read by ``consolidate``."""
ANSWERS_COPY = "answers.yaml"
"""The answers' copy in the run folder: a record, not read by the run, so it is stored redacted."""
GITIGNORE = ".gitignore"
RUN_DIR_MODE = 0o700
_PENDING_MAX = 1 << 20
"""A log line longer than this (no newline yet) is written in parts; the last :data:`_KEEP` bytes wait for the
rest, so a secret is cut only when a line runs past a mebibyte."""
_KEEP = 4096


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


def _clean(value: Any) -> Any:
    """JSON-safe: NaN/inf become strings, unknown objects their str()."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def dumps(value: Any, **kw: Any) -> str:
    return json.dumps(_clean(value), allow_nan=False, **kw)


def _ignore_runs(runs: Path) -> None:
    """``runs/.gitignore`` holding ``*``, unless something is at that name already (a user's own file, or a link:
    never written through)."""
    try:
        fd = os.open(runs / GITIGNORE, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except FileExistsError:
        return
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("# written by fsdpds-wizard: run records hold logs and settings; keep them out of git\n*\n")


class RunDir:
    """Owns the files of one run. Appends are unbuffered enough for a live reader (flushed per chunk; the log per
    complete line, after redaction). ``redactor``: what is replaced in everything written (default: the secrets
    of this process's environment; the launcher adds the run's own)."""

    def __init__(self, root: Path, run_id: str | None = None, redactor: Redactor | None = None) -> None:
        self.run_id = run_id or new_run_id()
        runs = Path(root) / "runs"
        runs.mkdir(parents=True, exist_ok=True)
        _ignore_runs(runs)
        self.path = runs / self.run_id
        while True:
            try:
                self.path.mkdir(mode=RUN_DIR_MODE)
                break
            except FileExistsError:  # two runs in the same second
                self.run_id = new_run_id()
                self.path = runs / self.run_id
        os.chmod(self.path, RUN_DIR_MODE)  # whatever the umask left of it
        self.redactor = redactor if redactor is not None else Redactor()
        self._log: IO[bytes] | None = None
        self._pending = b""
        self._metrics: IO[str] | None = None

    def write_files(self, files: dict[str, str]) -> None:
        """The configs the run uses, as they are (the run reads them); the answers' copy redacted."""
        for name, text in files.items():
            if name == ANSWERS_COPY:
                text = self.redactor.text(text)
            (self.path / name).write_text(text, encoding="utf-8")

    def write_command(self, argv: list[str], cwd: str, env_overrides: dict[str, str], **extra: Any) -> None:
        record = self.redactor.value(_clean({"argv": argv, "cwd": cwd, "env": env_overrides, **extra}))
        (self.path / COMMAND).write_text(dumps(record, indent=2) + "\n", encoding="utf-8")

    # ---------------------------------------------------------------- streams
    def open(self) -> None:
        self._log = open(self.path / LOG, "ab", buffering=0)
        self._metrics = open(self.path / METRICS, "a", encoding="utf-8")

    def log_bytes(self, data: bytes) -> None:
        """Append to ``log.txt``: complete lines (up to the last ``\\n`` or ``\\r``) are redacted and written, the
        rest waits for its end (or :meth:`close`)."""
        if self._log is None:
            return
        buf = self._pending + data
        cut = max(buf.rfind(b"\n"), buf.rfind(b"\r")) + 1
        if cut == 0 and len(buf) > _PENDING_MAX:
            cut = len(buf) - _KEEP
        self._pending = buf[cut:]
        if cut:
            self._log.write(self.redactor.bytes(buf[:cut]))

    def add_metrics(self, records: list[dict]) -> None:
        if self._metrics is None or not records:
            return
        self._metrics.write("".join(dumps(self.redactor.value(_clean(r))) + "\n" for r in records))
        self._metrics.flush()

    def close(self) -> None:
        if self._log is not None and self._pending:
            try:
                self._log.write(self.redactor.bytes(self._pending))
            except OSError as exc:  # the disk is full: the summary says what it can
                _logger.warning("cannot write the end of %s: %s", self.path / LOG, exc)
            self._pending = b""
        for f in (self._log, self._metrics):
            if f is not None:
                try:
                    f.close()
                except OSError:
                    pass
        self._log = self._metrics = None

    def write_summary(self, summary: dict) -> Path:
        target = self.path / SUMMARY
        tmp = target.with_suffix(".json.tmp")
        tmp.write_text(dumps(self.redactor.value(_clean(summary)), indent=2, sort_keys=False) + "\n", encoding="utf-8")
        os.replace(tmp, target)
        return target


def redact_file(path: Path, redactor: Redactor | None = None) -> bool:
    """Rewrite ``path`` (a log written by someone else: a SLURM node's) with its secrets redacted, atomically;
    True when something was replaced. The file keeps its mode."""
    path = Path(path)
    data = path.read_bytes()
    clean = (redactor or Redactor()).bytes(data)
    if clean == data:
        return False
    tmp = path.with_name(path.name + ".redacting")
    tmp.write_bytes(clean)
    os.chmod(tmp, os.stat(path).st_mode & 0o777)
    os.replace(tmp, path)
    return True


def read_summary(run_path: Path) -> dict:
    return json.loads((Path(run_path) / SUMMARY).read_text(encoding="utf-8"))


def read_metrics(run_path: Path) -> list[dict]:
    out = []
    with open(Path(run_path) / METRICS, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                out.append(json.loads(line))
    return out


def read_checkpoint(run_path: Path) -> dict | None:
    """The run's latest checkpoint as recorded (``checkpoint.json``), or None when there is none."""
    try:
        value = json.loads((Path(run_path) / CHECKPOINT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None
