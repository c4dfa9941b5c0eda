"""Ask for a path (answers.yaml or an accelerate config to import); returns it through ``dismiss``."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class OpenFileScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="open-cancel")]
    DEFAULT_CSS = """
    OpenFileScreen { align: center middle; }
    OpenFileScreen > Vertical {
        width: 80%; max-width: 100; height: auto; border: thick $accent; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, title: str, hint: str) -> None:
        super().__init__()
        self.title_text, self.hint = title, hint

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield Static(self.hint)
            yield Input(placeholder="path/to/file.yaml", id="path")
            yield Static("Enter opens it · Escape cancels", classes="dim")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
