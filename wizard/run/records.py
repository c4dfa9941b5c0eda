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
"""
from __future__ import annotations

import json
import math
import os
import secrets
import time
from pathlib import Path
from typing import IO, Any

LOG = "log.txt"
METRICS = "metrics.jsonl"
SUMMARY = "summary.json"
COMMAND = "command.json"
CHECKPOINT = "checkpoint.json"
"""Written by the bundled script (templates/train_gpt.py) after each checkpoint; read by ``consolidate``."""


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


class RunDir:
    """Owns the files of one run. Appends are unbuffered enough for a live reader (flushed per chunk)."""

    def __init__(self, root: Path, run_id: str | None = None) -> None:
        self.run_id = run_id or new_run_id()
        self.path = Path(root) / "runs" / self.run_id
        while self.path.exists():  # two runs in the same second
            self.run_id = new_run_id()
            self.path = Path(root) / "runs" / self.run_id
        self.path.mkdir(parents=True)
        self._log: IO[bytes] | None = None
        self._metrics: IO[str] | None = None

    def write_files(self, files: dict[str, str]) -> None:
        for name, text in files.items():
            (self.path / name).write_text(text, encoding="utf-8")

    def write_command(self, argv: list[str], cwd: str, env_overrides: dict[str, str], **extra: Any) -> None:
        (self.path / COMMAND).write_text(dumps({"argv": argv, "cwd": cwd, "env": env_overrides, **extra},
                                               indent=2) + "\n", encoding="utf-8")

    # ---------------------------------------------------------------- streams
    def open(self) -> None:
        self._log = open(self.path / LOG, "ab", buffering=0)
        self._metrics = open(self.path / METRICS, "a", encoding="utf-8")

    def log_bytes(self, data: bytes) -> None:
        if self._log is not None:
            self._log.write(data)

    def add_metrics(self, records: list[dict]) -> None:
        if self._metrics is None or not records:
            return
        self._metrics.write("".join(dumps(r) + "\n" for r in records))
        self._metrics.flush()

    def close(self) -> None:
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
        tmp.write_text(dumps(summary, indent=2, sort_keys=False) + "\n", encoding="utf-8")
        os.replace(tmp, target)
        return target


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
