"""The list a :class:`~wizard.tui.widgets.fields.Choice` opens: a small modal screen just below the field."""
from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Region
from textual.screen import ModalScreen
from textual.widgets import OptionList


class ChoiceMenu(ModalScreen[int | None]):
    """Dismissed with the index picked (Enter or a click), or None (Escape, or a click outside)."""

    BINDINGS = [Binding("escape", "cancel", "Keep the current choice", id="cancel-choice", show=False)]
    DEFAULT_CSS = """
    ChoiceMenu { background: $background 0%; align: left top; }
    ChoiceMenu > OptionList { width: auto; height: auto; max-height: 12; border: tall $accent; padding: 0; }
    """

    def __init__(self, labels: list[str], highlighted: int, anchor: Region) -> None:
        super().__init__()
        self.labels = labels
        self.highlighted = highlighted
        self.field_region = anchor  # not self.anchor: Widget.anchor() is Textual's scroll anchoring
        """Where the field is on the screen: the list opens below it (above it when there is no room)."""

    def compose(self) -> ComposeResult:
        yield OptionList(*self.labels, id="choices")

    def on_mount(self) -> None:
        menu = self.query_one(OptionList)
        menu.highlighted = self.highlighted
        field = self.field_region
        menu.styles.min_width = max(12, field.width)
        height = min(len(self.labels), 10) + 2
        screen_h = self.app.size.height
        y = field.bottom if field.bottom + height <= screen_h else max(0, field.y - height)
        menu.styles.offset = (field.x, y)
        menu.focus()

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_index)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_click(self, event: Click) -> None:
        if event.widget is self:  # outside the list
            self.dismiss(None)
