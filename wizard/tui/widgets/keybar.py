"""The key bar at the bottom of a screen: Textual's Footer, fitted to the terminal's width.

At 80 columns a screen's keys do not all fit in one row, and the Footer cuts the row wherever the width ends
(``^o Fol▏``), hiding the keys after the cut. Here the keys a screen names as the first to give way (those reached
as easily another way: the command palette, a labelled field) are left out below a width, so the keys that remain
are whole. F1 lists every key in any case.
"""
from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeyBar(Footer):
    def __init__(self, give_way: Iterable[str] = (), below: int = 0, **kw) -> None:
        """``give_way``: the actions whose keys are left out when the screen is narrower than ``below`` columns."""
        super().__init__(**kw)
        self.give_way = frozenset(give_way)
        self.below = below
        self._narrow: bool | None = None

    def narrow(self) -> bool:
        return self.app.size.width < self.below

    def compose(self) -> ComposeResult:
        self._narrow = self.narrow()
        for widget in super().compose():
            if self._narrow and isinstance(widget, FooterKey) and widget.action in self.give_way:
                continue
            yield widget

    def on_resize(self, event: events.Resize) -> None:
        if self._narrow is not None and self.narrow() != self._narrow:
            self.call_later(self.recompose)
