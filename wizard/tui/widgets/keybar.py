"""The key bar at the bottom of a screen: Textual's Footer, fitted to the terminal's width.

At 80 columns a screen's keys do not all fit in one row, and the Footer cuts the row wherever the width ends
(``^o Fol▏``), hiding the keys after the cut. Here the keys a screen names as the first to give way (those reached
as easily another way: the command palette, a labelled field) are left out below a width, so the keys that remain
are whole. F1 lists every key in any case. The keys' words are shown in the wizard's language.
"""
from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from ...core import localized
from ...core.i18n import cells


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
        widgets = []
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                if self._narrow and widget.action in self.give_way:
                    continue
                widget.description = localized.key_words(widget.description)  # in the wizard's language
                if widget.tooltip:
                    widget.tooltip = localized.key_words(str(widget.tooltip))
            widgets.append(widget)
        yield from self._fitted(widgets)

    def _fitted(self, widgets: list) -> list:
        """The keys that fit the width whole: in another language the words can be longer than the English the
        widths were chosen for, so the keys that give way go first, then the last ones (F1 lists them all)."""
        def cells_of(w) -> int:
            if not isinstance(w, FooterKey):
                return 0
            return cells.width(w.key_display) + cells.width(w.description) + 2

        room = self.app.size.width
        keys = [w for w in widgets if isinstance(w, FooterKey) and "-command-palette" not in w.classes]
        used = sum(cells_of(w) for w in widgets)
        for w in sorted(keys, key=lambda k: (k.action not in self.give_way, -keys.index(k))):
            if used <= room:
                break
            widgets.remove(w)
            used -= cells_of(w)
        return widgets

    def on_resize(self, event: events.Resize) -> None:
        if self._narrow is not None and self.narrow() != self._narrow:
            self.call_later(self.recompose)
