"""The explanation pane: follows focus (a setting, a group, a finding); scrolls with the keyboard."""
from __future__ import annotations

from collections.abc import Callable

from rich.console import RenderableType
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...core.localized import ui


class ExplanationPane(VerticalScroll):
    """Holds what to explain, not the text: :meth:`refresh_content` rebuilds it for the current width."""

    ALLOW_MAXIMIZE = True
    DEFAULT_CSS = """
    ExplanationPane { height: 1fr; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__(id="explanation")
        self.border_title = ui("explanation")
        self._build: Callable[[int], RenderableType] | None = None
        self.subject: tuple[str, str] | None = None
        """What is explained: ("setting", id), ("group", id) or ("finding", rule)."""

    def compose(self):
        return ()  # the body is mounted with its first content (the first resize, after the first paint: issue 26)

    def explain(self, subject: tuple[str, str], build: Callable[[int], RenderableType]) -> None:
        """Explain something; before mount this only records it (the first resize renders it)."""
        if subject != self.subject and self.is_mounted:
            self.scroll_home(animate=False)
        self.subject = subject
        self._build = build
        self.refresh_content()

    def refresh_content(self) -> None:
        if self._build is None or not self.is_mounted or not self.size.width:
            return
        width = max(20, self.size.width - 3)
        self._width = width
        content = self._build(width)
        bodies = self.query_children("#explanation-body").results(Static)
        body = next(bodies, None)
        if body is None:
            self.mount(Static(content, id="explanation-body"))
        else:
            body.update(content)

    def on_resize(self) -> None:
        if self.size.width - 3 != getattr(self, "_width", None):
            self.refresh_content()
