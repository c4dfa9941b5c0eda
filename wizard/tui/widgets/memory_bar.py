"""The main screen's per-rank memory bar: the estimate of the current answers against the GPU's memory.

It sits under the list of groups (at 80x24 that column has five empty rows), three lines in a small panel:
``GPU 41.2 of 80.0 GiB``, the bar (its last cells, the share kept free, drawn as ``▒``), and the estimate's verdict
at the panel's width (:func:`wizard.core.memory.fit.verdict`: ``✔ 38.0 spare, 10% kept``, or ``✖ short by 4.5, 10%
kept`` at 80 columns), the same fit as ``fsdpds-wizard estimate``, the Memory screen and Suggest. Without a model
it says how to give one. The estimate module is imported only once a model is set (never before the first paint).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from ...core.i18n import cells
from ...core.localized import said, screen, ui

if TYPE_CHECKING:
    from ...core.answers import Answers
    from ...core.memory.estimate import Estimate
    from ...core.memory.fit import Fit
    from ..shared.session import MemoryContext

GIB = 2 ** 30
FULL, EMPTY, KEPT_FREE = "█", "░", "▒"


def _w(key: str, **values: object) -> str:
    """The bar's words (part ``screen-memory``, keys ``bar.*``) in the wizard's language."""
    return screen("memory", f"bar.{key}", None, **values)


def _fit(width: int, *variants: str) -> str:
    """The longest variant that fits ``width`` cells (the last one otherwise)."""
    for v in variants:
        if cells.width(v) <= width:
            return v
    return variants[-1]


def bar_text(used: int | None, fit: Fit | None, width: int, *, message: str = "") -> Text:
    """Three lines for ``used`` bytes against ``fit`` (either None: what is missing, and where to set it)."""
    width = max(10, width)
    t = Text(no_wrap=True, overflow="ellipsis")
    if message:
        t.append(_fit(width, _w("cannot_estimate"), _w("no_estimate")) + "\n", style="bold red")
        t.append(message[: width * 2 - 8] if len(message) > width else message)
        return t
    if used is None:
        t.append(_w("no_model") + "\n", style="bold")
        t.append(_fit(width, _w("set_model"), _w("set_model_short")) + "\n")
        t.append(_fit(width, _w("and_gpu_memory"), ""), style="dim")
        return t
    if fit is None:
        gib = f"{used / GIB:.1f}"
        t.append(_fit(width, _w("gpu_per_rank", gib=gib), _w("gpu", gib=gib)) + "\n", style="bold")
        t.append(_fit(width, _w("no_gpu_size"), _w("gpu_size_short")) + "\n")
        t.append(_fit(width, _w("set_it"), "F3"), style="dim")
        return t
    from ...core.localized.memory import verdict  # the fit's words in the language, the longest form that fits

    capacity = fit.gpu_bytes
    style = "green" if fit.fits else "red"
    u, c = used / GIB, capacity / GIB
    t.append(_fit(width, _w("gpu_of", used=f"{u:.1f}", capacity=f"{c:.1f}"), f"{u:.1f}/{c:.1f} GiB") + "\n",
             style="bold")
    filled = min(width, round(width * used / capacity)) if capacity > 0 else width
    kept_from = min(width, round(width * fit.usable_bytes / capacity)) if capacity > 0 else width
    t.append(FULL * filled, style=style)
    t.append(EMPTY * max(0, kept_from - filled), style="dim")
    t.append(KEPT_FREE * (width - max(filled, kept_from)) + "\n", style="dim")
    t.append(verdict(fit, width), style=style if fit.fits else "bold red")
    return t


class MemoryBar(Static):
    """The estimate's per-rank total against the GPU memory of the Memory screen (or --model / --gpu-memory)."""

    DEFAULT_CSS = """
    MemoryBar { height: 5; border: round $primary 50%; border-title-align: left; border-subtitle-align: right;
                padding: 0 1; }
    """

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.border_title = ui("memory_per_rank")
        self.used: int | None = None
        self.capacity: int | None = None
        self.fit: Fit | None = None
        """The estimate's :class:`~wizard.core.memory.fit.Fit` (None without a model or the GPU memory)."""
        self.message = ""
        self.estimate: Estimate | None = None
        """The last :class:`~wizard.core.memory.estimate.Estimate` (None without a model, or when it failed)."""

    def show(self, answers: Answers, memory: MemoryContext) -> None:
        """Estimate ``answers`` for ``memory``'s model and GPUs (nothing is imported without a model)."""
        self.estimate, self.message = None, ""
        self.used = self.capacity = self.fit = None
        if memory.has_model:
            from ...core.memory.estimate import EstimateError

            try:
                e = memory.estimate(answers)
            except EstimateError as exc:
                self.message = said(str(exc))  # the estimate's reason in the language
            else:
                self.estimate, self.used, self.capacity, self.fit = e, e.per_rank.gpu_bytes, e.gpu_memory_bytes, e.fit
        name = getattr(memory.shape, "name", "") or (_w("params", count=f"{memory.params:,}") if memory.params else "")
        self.border_subtitle = name
        self.refresh()

    @property
    def plain(self) -> str:
        """The bar's words, as shown (tests read them)."""
        return self.render().plain

    def render(self) -> Text:
        return bar_text(self.used, self.fit, self.content_size.width or 24, message=self.message)
