"""A small text plot of one series (the loss), drawn with eighth-block characters; no dependencies.

:func:`plot_lines` is pure (values, width, height -> lines) so it is tested without a screen;
:class:`SeriesPlot` is the widget: give it the values with :meth:`SeriesPlot.show` and it redraws to its
size. Many more values than columns are averaged per column, so the cost of a redraw is bounded by the
width, not by the length of the run.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

from ...core import localized
from ...core.i18n import cells as term_cells

BLOCKS = " ▁▂▃▄▅▆▇█"
GUTTER = 8
"""Columns on the left for the axis labels."""


def _label(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 1000 or abs(value) < 0.01:
        return f"{value:.1e}"
    return f"{value:.3g}" if abs(value) < 10 else f"{value:.1f}"


def bucket(values: Sequence[float], columns: int) -> list[float]:
    """At most ``columns`` values: the means of equal runs of ``values`` (the last one always included)."""
    finite = [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    n = len(finite)
    if n <= columns:
        return list(finite)
    out = []
    for c in range(columns):
        lo, hi = c * n // columns, (c + 1) * n // columns
        chunk = finite[lo:max(hi, lo + 1)]
        out.append(sum(chunk) / len(chunk))
    return out


WAITING = "waiting for the first step…"


def plot_lines(values: Sequence[float], width: int, height: int, empty: str = WAITING) -> list[str]:
    """``height`` lines of ``width`` characters: the axis labels, then one column per (bucketed) value."""
    width, height = max(width, 1), max(height, 1)
    columns = max(width - GUTTER, 1)
    data = bucket(values, columns)
    if data and len(data) * 2 <= columns:  # few values: widen each to a bar of up to 4 columns
        k = min(columns // len(data), 4)
        data = [v for v in data for _ in range(k)]
    if not data:
        blank = ["".ljust(width)] * height
        if term_cells.has_wide(empty):  # Chinese: wrapped by cells from the middle row, never cut
            wrapped = term_cells.wrap(empty, width)
            start = max(0, min(height // 2, height - len(wrapped)))
            for i, line in enumerate(wrapped[:height - start]):
                blank[start + i] = term_cells.ljust(line, width)
            return blank
        blank[height // 2] = empty[:width].ljust(width)
        return blank
    lo, hi = min(data), max(data)
    span = hi - lo
    levels = height * 8
    heights = [levels if span == 0 else 1 + round((v - lo) / span * (levels - 1)) for v in data]
    lines = []
    for row in range(height):
        floor = (height - 1 - row) * 8
        cells = "".join(BLOCKS[min(max(h - floor, 0), 8)] for h in heights)
        if row == 0:
            label = _label(hi)
        elif row == height - 1:
            label = _label(lo)
        else:
            label = ""
        lines.append((label.rjust(GUTTER - 1) + "┤" if label else " " * (GUTTER - 1) + "│") + cells.ljust(columns))
    return [ln[:width] for ln in lines]


class SeriesPlot(Widget):
    """A bar-style plot of a series that fills the widget; the values are set with :meth:`show`."""

    DEFAULT_CSS = """
    SeriesPlot { height: 8; color: $accent; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.values: list[float] = []
        """The series as last shown (already bounded by the caller)."""
        self.empty = localized.screen("run", "plot_waiting")
        """What an empty plot says ("stopped before the first step" once a run has ended)."""

    def show(self, values: Sequence[float], empty: str | None = None) -> None:
        self.values = list(values)
        if empty is not None:
            self.empty = empty
        self.refresh()

    def render(self) -> Text:
        width, height = self.content_size.width, self.content_size.height
        return Text("\n".join(plot_lines(self.values, width, height, self.empty)), no_wrap=True, overflow="crop")
