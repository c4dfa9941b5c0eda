"""Whether an estimate fits, and the largest micro batch that does: one definition for every face (issue 20).

``fsdpds-wizard estimate``, ``recommend``, the TUI's memory bar, its Memory screen and Suggest all read a
:class:`Fit` made here, and say it with :func:`verdict`; none of them compares bytes on its own.

- **kept free**: a share of one GPU's memory left unused (``headroom``, :data:`DEFAULT_HEADROOM` = 10%), for what the
  estimate does not count: the caching allocator's fragmentation, NCCL's buffers, a longer sample than planned;
- **fits**: the per-rank peak plus what is kept free is at most the GPU's memory, and, when the host memory of a node
  is given, the estimate's per-host bytes are at most that;
- **the largest micro batch**: the largest ``b`` whose peak still leaves the kept-free bytes free (0 when even one
  sample does not; None without the model's shape, when activations are not counted).

Pure: the standard library and the bounds of core/bounds.py.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..bounds import NumberError, check
from ..i18n import said

GIB = 2 ** 30

DEFAULT_HEADROOM = 0.10
"""The share of a GPU's memory kept free when none is asked for (``--headroom`` of ``estimate`` and ``recommend``)."""


def headroom_problem(headroom: Any) -> str | None:
    """None for a usable share to keep free (0 up to, not including, 1: its bound in core/bounds.py); otherwise what
    is wrong, naming ``--headroom``."""
    try:
        check("headroom", headroom)
    except NumberError as exc:
        return exc.said_by("--headroom")
    return None


def kept_free_bytes(gpu_bytes: int, headroom: float) -> int:
    """The bytes of one GPU's memory kept free."""
    return int(headroom * gpu_bytes)


def largest_micro_batch(peak_at: Callable[[int], int], limit: int) -> int:
    """The largest ``b`` >= 1 with ``peak_at(b) <= limit`` (``peak_at`` grows with ``b``); 0 when ``b`` = 1 is
    already over."""
    if peak_at(1) > limit:
        return 0
    lo, hi = 1, 2
    while peak_at(hi) <= limit:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if peak_at(mid) <= limit else (lo, mid)
    return lo


@dataclass(frozen=True)
class Fit:
    """One rank's peak against one GPU's memory with a share kept free, and the host's bytes against its memory."""

    gpu_bytes: int
    """The memory of one GPU."""
    headroom: float
    """The share of it kept free (0.1 = 10%)."""
    kept_free_bytes: int
    peak_bytes: int
    """The estimated per-rank peak."""
    max_micro_batch: int | None
    """The largest micro batch whose peak leaves ``kept_free_bytes`` free (None without activations)."""
    host_memory_bytes: int | None = None
    """The CPU memory of one node, when given."""
    host_peak_bytes: int = 0
    """The estimate's per-host bytes (offloaded states, pinned buffers, loading the model)."""

    @property
    def usable_bytes(self) -> int:
        """What the peak may take: the GPU's memory less what is kept free."""
        return self.gpu_bytes - self.kept_free_bytes

    @property
    def spare_bytes(self) -> int:
        """What is left once the peak and the kept-free bytes are taken (negative: short by that much)."""
        return self.usable_bytes - self.peak_bytes

    @property
    def free_bytes(self) -> int:
        """The GPU's memory less the peak, the kept-free bytes included."""
        return self.gpu_bytes - self.peak_bytes

    @property
    def gpu_fits(self) -> bool:
        return self.spare_bytes >= 0

    @property
    def host_fits(self) -> bool | None:
        """None when no host memory was given."""
        return None if self.host_memory_bytes is None else self.host_peak_bytes <= self.host_memory_bytes

    @property
    def host_short_bytes(self) -> int:
        return 0 if self.host_memory_bytes is None else max(0, self.host_peak_bytes - self.host_memory_bytes)

    @property
    def fits(self) -> bool:
        return self.gpu_fits and self.host_fits is not False

    @property
    def short_by_bytes(self) -> int:
        """What is missing to fit: GPU bytes beyond what may be used plus host bytes beyond the host memory."""
        return max(0, -self.spare_bytes) + self.host_short_bytes

    def to_json(self) -> dict[str, Any]:
        return {"gpu_memory_bytes": self.gpu_bytes, "headroom": self.headroom,
                "kept_free_bytes": self.kept_free_bytes, "peak_bytes": self.peak_bytes,
                "spare_bytes": self.spare_bytes, "short_by_bytes": self.short_by_bytes, "fits": self.fits,
                "max_micro_batch": self.max_micro_batch, "host_memory_bytes": self.host_memory_bytes,
                "host_bytes": self.host_peak_bytes, "host_fits": self.host_fits, "verdict": verdict(self)}


def fit_of(*, gpu_bytes: int, peak_bytes: int, headroom: float = DEFAULT_HEADROOM,
           peak_at: Callable[[int], int] | None = None, host_memory_bytes: int | None = None,
           host_peak_bytes: int = 0) -> Fit:
    """The :class:`Fit` of a peak; ``peak_at(b)``, the peak at micro batch ``b``, gives the largest micro batch
    (None without it)."""
    kept = kept_free_bytes(gpu_bytes, headroom)
    max_mb = largest_micro_batch(peak_at, gpu_bytes - kept) if peak_at is not None else None
    return Fit(gpu_bytes, headroom, kept, peak_bytes, max_mb, host_memory_bytes, host_peak_bytes)


def _pct(headroom: float) -> str:
    return f"{headroom * 100:.3g}%"


def _gib(n: float, digits: int = 2) -> str:
    return f"{n / GIB:.{digits}f}"


def verdict(fit: Fit, width: int | None = None) -> str:
    """Whether it fits, with what is kept free, in one line: the full sentence, or with ``width`` the longest of
    shorter forms (for the memory bar) that fits in it."""
    full, short_forms = verdict_forms(fit)
    if width is None:
        return full
    return next((v for v in short_forms if len(v) <= width), short_forms[-1])


def verdict_forms(fit: Fit) -> tuple[str, list[str]]:
    """The verdict's full sentence and its shorter forms, longest first (each a ``said`` sentence: a face in another
    language translates each and picks the longest that fits its width)."""
    g, kept, pct = _gib(fit.gpu_bytes), _gib(fit.kept_free_bytes), _pct(fit.headroom)
    margin = f"with {kept} GiB ({pct}) kept free" if fit.kept_free_bytes else "with nothing kept free"
    spare, short = _gib(fit.spare_bytes), _gib(-fit.spare_bytes)
    host = ""
    if fit.host_memory_bytes is not None:
        hp, hm = _gib(fit.host_peak_bytes), _gib(fit.host_memory_bytes)
        host = (said(f"the host holds its {hp} of {hm} GiB") if fit.host_fits else
                said(f"the host needs {hp} GiB per node, {_gib(fit.host_short_bytes)} GiB more than the {hm} GiB "
                     "given"))
    if fit.fits:
        full = said(f"fits in {g} GiB " + margin + f": {spare} GiB to spare" + (f"; {host}" if host else ""))
        s1 = _gib(fit.spare_bytes, 1)
        short_forms = [said(f"fits, {s1} GiB to spare, {pct} kept free"),
                       said(f"fits: {s1} GiB spare, {pct} kept free"), said(f"fits: {s1} spare, {pct} kept free"),
                       said(f"fits, {s1} spare, {pct} kept"),
                       said(f"✔ {s1} GiB spare, {pct} kept"), said(f"✔ {s1} spare, {pct} kept")]
    elif fit.gpu_fits:  # the host alone
        full = said(f"does not fit: {host} (the GPU fits in {g} GiB " + margin + f": {spare} GiB to spare)")
        h1 = _gib(fit.host_short_bytes, 1)
        short_forms = [said(f"does not fit: the host is short by {h1} GiB"), said(f"✖ host short by {h1} GiB"),
                       said(f"✖ host short {h1}")]
    else:
        full = said(f"does not fit in {g} GiB " + margin + f": short by {short} GiB"
                    + (f"; {host}" if host and not fit.host_fits else ""))
        s1 = _gib(-fit.spare_bytes, 1)
        short_forms = [said(f"does not fit with {pct} kept free: short by {s1} GiB"),
                       said(f"short by {s1} GiB with {pct} kept free"), said(f"✖ short by {s1} GiB, {pct} kept"),
                       said(f"✖ short by {s1}, {pct} kept"), said(f"✖ short {s1}, {pct} kept")]
    return full, short_forms


def micro_batch_line(fit: Fit) -> str | None:
    """The largest micro batch, with what is kept free (None without it)."""
    if fit.max_micro_batch is None:
        return None
    margin = (f"with {_gib(fit.kept_free_bytes)} GiB ({_pct(fit.headroom)}) kept free" if fit.kept_free_bytes
              else "with nothing kept free")
    return said("largest micro batch that fits " + margin + f": {fit.max_micro_batch}")


__all__ = ["DEFAULT_HEADROOM", "Fit", "fit_of", "headroom_problem", "kept_free_bytes", "largest_micro_batch",
           "micro_batch_line", "verdict", "verdict_forms"]
