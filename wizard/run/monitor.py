"""Turn a training run's raw output into records: fast, bounded in memory, hostile-input safe.

:class:`Monitor` is fed raw bytes (any chunking) and keeps:

* the effective-setup records of every rank (``{"fsdpds": 1, "kind": "setup", ...}``, see
  :mod:`wizard.runtime`), merged per rank;
* metric records from four sources, normalised to ``{"step", "loss", "lr", ...}``:
  the fsdpds JSON step records, Hugging Face Trainer log dicts (``{'loss': 1.23, ...}``, values as
  numbers or, since transformers 5, as strings), tqdm bars (``42%|####  | 42/100 [.., 3.1it/s, loss=2.1]``)
  and plain ``loss=`` / ``loss:`` lines (with an optional ``step N`` / ``iter N``);
* progress (step, total, loss, rate), a tail of recent lines and a ring of lines that look like errors,
  which :mod:`wizard.run.diagnose` reads.

Robustness: lines are split on ``\\n`` and ``\\r`` (tqdm redraws), decoded as UTF-8 with replacement,
stripped of ANSI escape sequences and other control characters, and cut at ``max_line`` characters; a
line that never ends is cut and the rest of it skipped without buffering. Everything kept in memory is
a bounded deque. Work is done per chunk where it can be (one ANSI/control-character pass, one search for
error words), so ordinary lines cost a few ``in`` tests each.
"""
from __future__ import annotations

import codecs
import json
import re
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ..runtime import describe_record

MARKER_PREFIX = '{"fsdpds"'
CUT = " …[cut]"
# the C scanner: (object, end) or StopIteration. typeshed does not declare this instance attribute (set in
# JSONDecoder.__init__), and its json.scanner.make_scanner stub does not accept a decoder as the context.
_SCAN = json.JSONDecoder().scan_once  # type: ignore[attr-defined]

# CSI sequences, OSC/DCS/PM/APC strings (never across a newline, so the result does not depend on how
# the output was chunked) and two-character escapes.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"
                   r"|[PX^_][^\x1b\n]*(?:\x1b\\)?|[@-Z\\-_])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# Words that make a line worth keeping for the diagnosis. Plain substrings, not one big regex: each is
# looked for once per chunk with str's fast search, and only the words present are tried per line. The
# list is short on purpose (the chunk scan costs one pass per word): Python exceptions ("...Error:",
# "...Exception:"), torchrun's failure report (exitcode, local_rank, Root Cause, SIGxxx), collective
# timeouts, C++ aborts and the shell's "Killed".
TRIGGER_WORDS = (
    "rror", "xception", "Traceback", "out of memory", "imeout", "imed out", "Watchdog", "exitcode", "local_rank",
    "Root Cause", "SIG", "terminate called", "Killed", "Segmentation fault",
)
_NUM = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|NaN|inf|Inf)"
_LOSS = re.compile(r"(?<![\w.])(?:train[_ ])?loss\b\s*[=:]?\s*(" + _NUM + ")", re.IGNORECASE)
_STEP = re.compile(r"(?<![\w.])(?:global[_ ]step|step|iter(?:ation)?)\b\s*[=:#]?\s*(\d+)(?:\s*/\s*(\d+))?",
                   re.IGNORECASE)
_LR = re.compile(r"(?<![\w.])(?:lr|learning[_ ]rate)\b\s*[=:]?\s*(" + _NUM + ")", re.IGNORECASE)
_HF_PAIR = re.compile(r"'([A-Za-z_][\w/.-]*)':\s*'?(" + _NUM + ")'?")
_TQDM = re.compile(
    r"(\d+)%\|[^|]*\|\s*(\d+)/(\d+)\s*\[[^\]<]*<[^\],]*,\s*(?:([0-9.]+)\s*([A-Za-z]+/s|s/[A-Za-z]+)|\?[A-Za-z]*/s)?(?:,\s*([^\]]*))?\]")
_TQDM_POSTFIX = re.compile(r"([A-Za-z_][\w/.-]*)\s*=\s*(" + _NUM + ")")


def _num(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


@dataclass
class Progress:
    step: int | None = None
    total: int | None = None
    loss: float | None = None
    lr: float | None = None
    tokens_per_s: float | None = None
    step_time: float | None = None
    rate: str | None = None
    """tqdm's own rate text (``3.1it/s``) when the progress came from a bar."""
    updated: float = 0.0


@dataclass
class FeedResult:
    """What one :meth:`Monitor.feed` call found (the launcher turns it into events)."""

    lines: list[str] = field(default_factory=list)
    metrics: list[dict] = field(default_factory=list)
    setups: list[dict] = field(default_factory=list)
    ends: list[dict] = field(default_factory=list)
    progress: bool = False


class Monitor:
    """Stateful parser of one run's output. Feed bytes; read the state. Not thread-safe."""

    def __init__(self, *, max_line: int = 4096, tail: int = 400, error_lines: int = 500,
                 metrics_kept: int = 5000, keep_lines: bool = True) -> None:
        self.max_line = max_line
        self.keep_lines = keep_lines
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._partial = ""
        self._skipping = False  # inside an over-long line: drop until the next newline
        self.tail: deque[str] = deque(maxlen=tail)
        self.error_lines: deque[tuple[int, str]] = deque(maxlen=error_lines)
        self.first_errors: list[tuple[int, str]] = []  # the first few, never rotated out
        self.metrics: deque[dict] = deque(maxlen=metrics_kept)
        self.setups: dict[int, dict] = {}
        self.end_record: dict | None = None
        self.progress = Progress()
        self.line_count = 0
        self.byte_count = 0
        self.truncated_lines = 0
        self.bad_records = 0
        self.metric_count = 0
        self.first_loss: float | None = None
        self.last_loss: float | None = None
        self.min_loss: float | None = None
        self._auto_step = {"hf": 0, "text": 0}
        self._last_tqdm_n: int | None = None
        self._t0 = time.monotonic()
        self._now = 0.0  # seconds since start, refreshed once per chunk

    # ------------------------------------------------------------------ input
    def feed(self, data: bytes) -> FeedResult:
        """Parse a chunk of raw output; return what it contained."""
        self.byte_count += len(data)
        text = self._decoder.decode(data)
        return self._feed_text(text)

    def finish(self) -> FeedResult:
        """End of stream: flush the last unterminated line."""
        text = self._decoder.decode(b"", final=True)
        res = self._feed_text(text)
        if self._partial and not self._skipping:
            line, self._partial = self._partial, ""
            self._lines([line], res)
        self._partial = ""
        return res

    def feed_text(self, text: str) -> FeedResult:
        """Parse already-decoded text (recorded logs, tests)."""
        return self._feed_text(text)

    def _feed_text(self, text: str) -> FeedResult:
        res = FeedResult()
        if not text:
            return res
        if "\r" in text:
            text = text.replace("\r", "\n")
        parts = text.split("\n")
        # the first part continues the pending line, the last part is the new pending line
        first = parts[0]
        if self._skipping:
            if len(parts) > 1:
                self._skipping = False
                parts[0] = ""
            else:
                return res
        else:
            parts[0] = self._partial + first
        last = parts.pop()
        if len(last) > self.max_line:
            self.truncated_lines += 1
            parts.append(last[: self.max_line - len(CUT)] + CUT)
            self._partial = ""
            self._skipping = True
        else:
            self._partial = last
        if parts:
            self._lines(parts, res)
        return res

    # ------------------------------------------------------------------ per line
    def _lines(self, lines: list[str], res: FeedResult) -> None:
        joined = "\n".join(lines)
        if "\x1b" in joined:
            joined = _ANSI.sub("", joined)
            lines = joined.split("\n")
        if _CONTROL.search(joined):
            joined = _CONTROL.sub("", joined)
            lines = joined.split("\n")
        triggers = [w for w in TRIGGER_WORDS if w in joined]
        self._now = round(time.monotonic() - self._t0, 3)
        max_line = self.max_line
        out = res.lines
        keep = self.keep_lines
        for line in lines:
            if not line or line.isspace():
                continue
            self.line_count += 1
            if len(line) > max_line:
                self.truncated_lines += 1
                line = line[:max_line - len(CUT)] + CUT
            self.tail.append(line)
            if triggers and any(w in line for w in triggers):
                item = (self.line_count, line)
                self.error_lines.append(item)
                if len(self.first_errors) < 50:
                    self.first_errors.append(item)
            i = line.find(MARKER_PREFIX) if "{" in line else -1
            if i >= 0:
                found = self._record(line[i:], res)
                if keep:  # shown as a readable line; log.txt and the tail keep the record as printed
                    text = describe_record(found[1], found[0]) if found is not None else None
                    out.append(line if text is None else line[:i] + text)
                continue
            if keep:
                out.append(line)
            if "{" in line:
                if "'loss'" in line or "_loss'" in line:
                    self._hf(line, res)
                    continue
                if '"loss"' in line:
                    self._json(line, res)
                    continue
            if "%|" in line:
                self._tqdm(line, res)
                continue
            if "oss" in line or "OSS" in line:
                self._text(line, res)

    def _record(self, text: str, res: FeedResult) -> tuple[Any, dict] | None:
        """Parse one fsdpds record; return (kind, record) for display, None when it is not one."""
        try:
            rec, _ = _SCAN(text, 0)
        except (StopIteration, ValueError, RecursionError):
            self.bad_records += 1
            return None
        if not isinstance(rec, dict):
            self.bad_records += 1
            return None
        kind = rec.get("kind")
        if kind == "step":
            del rec["fsdpds"], rec["kind"]
            if "step" in rec and rec["step"].__class__ is not int:
                try:
                    rec["step"] = int(rec["step"])
                except (TypeError, ValueError):
                    self.bad_records += 1
                    return None
            rec["source"] = "fsdpds"
            self._metric(rec, res)
        elif kind == "setup":
            self._setup(rec, res)
        elif kind == "end":
            self.end_record = {k: v for k, v in rec.items() if k not in ("fsdpds", "kind")}
            res.ends.append(self.end_record)
        # unknown kinds are ignored: newer scripts may report more
        return kind, rec

    def _setup(self, rec: dict, res: FeedResult) -> None:
        rank = rec.get("rank", 0)
        if not isinstance(rank, int):
            try:
                rank = int(rank)
            except (TypeError, ValueError):
                self.bad_records += 1
                return
        body = {k: v for k, v in rec.items() if k not in ("fsdpds", "kind", "update")}
        if len(self.setups) >= 4096 and rank not in self.setups:
            return  # bounded, whatever a script claims
        merged = self.setups.setdefault(rank, {})
        merged.update(body)
        res.setups.append(merged)

    def _hf(self, line: str, res: FeedResult) -> None:
        pairs = {k: _num(v) for k, v in _HF_PAIR.findall(line)}
        loss = pairs.get("loss")
        if loss is None:
            loss = pairs.get("train_loss")
        if loss is None:
            if pairs.get("eval_loss") is not None:
                eval_rec = {"kind": "eval", "eval_loss": pairs["eval_loss"], "source": "hf"}
                eval_rec.update({k: v for k, v in pairs.items() if k != "eval_loss" and v is not None})
                eval_rec["step"] = self._auto_step["hf"]
                res.metrics.append(eval_rec)  # reported, not folded into the training loss curve
                self.metrics.append(eval_rec)
            return
        step = pairs.get("step")
        if step is None:
            step = self._auto_step["hf"]
            self._auto_step["hf"] += 1
        rec: dict[str, Any] = {"step": int(step), "loss": loss, "source": "hf"}
        if pairs.get("learning_rate") is not None:
            rec["lr"] = pairs["learning_rate"]
        for key in ("grad_norm", "epoch"):
            if pairs.get(key) is not None:
                rec[key] = pairs[key]
        if "train_runtime" in pairs:
            rec["final"] = True
        self._metric(rec, res)

    def _json(self, line: str, res: FeedResult) -> None:
        """A script's own JSON log line with a "loss" key (not an fsdpds record)."""
        try:
            rec, _ = _SCAN(line, line.find("{"))
        except (StopIteration, ValueError, RecursionError):
            self._text(line, res)
            return
        if not isinstance(rec, dict) or not isinstance(rec.get("loss"), (int, float, str)):
            return
        loss = _num(str(rec["loss"]))
        if loss is None:
            return
        out: dict[str, Any] = {k: v for k, v in rec.items() if isinstance(v, (int, float, str, bool)) or v is None}
        out["loss"] = loss
        step = rec.get("step", rec.get("global_step", rec.get("iter")))
        if isinstance(step, (int, float)) and not isinstance(step, bool):
            out["step"] = int(step)
        else:
            out["step"] = self._auto_step["text"]
            self._auto_step["text"] += 1
        if "lr" not in out and isinstance(rec.get("learning_rate"), (int, float)):
            out["lr"] = rec["learning_rate"]
        out["source"] = "json"
        self._metric(out, res)

    def _tqdm(self, line: str, res: FeedResult) -> None:
        m = _TQDM.search(line)
        if not m:
            if "oss" in line:
                self._text(line, res)
            return
        n, total = int(m.group(2)), int(m.group(3))
        p = self.progress
        p.step, p.total = n, total
        if m.group(4):
            p.rate = m.group(4) + m.group(5)
            value = _num(m.group(4))
            if value:
                p.step_time = value if m.group(5).startswith("s/") else 1.0 / value
        p.updated = self._now
        res.progress = True
        postfix = m.group(6) or ""
        if "loss" in postfix and n != self._last_tqdm_n:
            values = {k: _num(v) for k, v in _TQDM_POSTFIX.findall(postfix)}
            loss = values.get("loss", values.get("train_loss"))
            if loss is not None:
                self._last_tqdm_n = n
                rec = {"step": n, "loss": loss, "source": "tqdm", "total_steps": total}
                lr = values.get("lr", values.get("learning_rate"))
                if lr is not None:
                    rec["lr"] = lr
                self._metric(rec, res)

    def _text(self, line: str, res: FeedResult) -> None:
        m = _LOSS.search(line)
        if not m:
            return
        loss = _num(m.group(1))
        if loss is None:
            return
        before = line[max(0, m.start() - 12):m.start()].lower()
        if "val" in before or "test" in before:
            return  # an evaluation loss, not the training curve
        s = _STEP.search(line)
        rec: dict[str, Any]
        if s:
            rec = {"step": int(s.group(1)), "loss": loss, "source": "text"}
            if s.group(2):
                rec["total_steps"] = int(s.group(2))
        else:
            rec = {"step": self._auto_step["text"], "loss": loss, "source": "text"}
            self._auto_step["text"] += 1
        lr = _LR.search(line)
        if lr:
            value = _num(lr.group(1))
            if value is not None:
                rec["lr"] = value
        self._metric(rec, res)

    def _metric(self, rec: dict, res: FeedResult) -> None:
        if "time" not in rec:
            rec["time"] = self._now
        self.metric_count += 1
        self.metrics.append(rec)
        res.metrics.append(rec)
        res.progress = True
        p = self.progress
        p.updated = self._now
        loss = rec.get("loss")
        if loss.__class__ is float or loss.__class__ is int:
            if self.first_loss is None:
                self.first_loss = loss
            self.last_loss = loss
            p.loss = loss
            if loss == loss and (self.min_loss is None or loss < self.min_loss):
                self.min_loss = loss
        step = rec.get("step")
        if step.__class__ is int:
            p.step = step + 1 if rec.get("source") == "fsdpds" else step
        total = rec.get("total_steps")
        if total.__class__ is int:
            p.total = total
        value = rec.get("lr")
        if value.__class__ is float:
            p.lr = value
        value = rec.get("tokens_per_s")
        if value.__class__ is float:
            p.tokens_per_s = value
        value = rec.get("step_time")
        if value.__class__ is float:
            p.step_time = value

    # ------------------------------------------------------------------ views
    @property
    def effective_setup(self) -> dict | None:
        """Rank 0's setup record plus a per-rank table; None when no rank reported."""
        if not self.setups:
            return None
        ranks = sorted(self.setups)
        base = dict(self.setups.get(0) or self.setups[ranks[0]])
        per_rank_keys = ("local_param_numel", "local_param_bytes", "param_fraction", "optimizer_state_bytes",
                         "optimizer_state_dtype", "distributed_type", "world_size", "device")
        base["ranks"] = [{"rank": r, **{k: self.setups[r].get(k) for k in per_rank_keys if k in self.setups[r]}}
                         for r in ranks]
        base["ranks_reported"] = len(ranks)
        return base

    def metric_summary(self) -> dict:
        last = self.metrics[-1] if self.metrics else None
        return {"count": self.metric_count, "first_loss": self.first_loss, "last_loss": self.last_loss,
                "min_loss": self.min_loss, "last_step": last.get("step") if last else None}

    def stats(self) -> dict:
        return {"lines": self.line_count, "bytes": self.byte_count, "truncated_lines": self.truncated_lines,
                "bad_records": self.bad_records}


def parse_log(text: str | bytes, **kw: Any) -> Monitor:
    """Parse a whole recorded log; return the monitor with its state."""
    mon = Monitor(keep_lines=False, **kw)
    if isinstance(text, bytes):
        mon.feed(text)
    else:
        mon.feed_text(text)
    mon.finish()
    return mon
