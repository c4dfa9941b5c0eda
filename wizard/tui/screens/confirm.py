"""Yes/no before replacing files on disk (and before quitting with unwritten answers); returns the answer through
``dismiss``."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes, replace", id="confirm-yes"),
        Binding("n,escape", "answer(False)", "No, cancel", id="confirm-no"),
    ]
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: 80%; max-width: 100; height: auto; border: thick $warning; background: $surface; padding: 0 1;
    }
    ConfirmScreen Horizontal { height: auto; margin-top: 1; }
    ConfirmScreen Button { margin-right: 2; }
    """

    def __init__(self, title: str, message: str, yes: str | None = None, no: str | None = None,
                 id: str | None = None) -> None:  # noqa: A002 - Textual's name
        from ...core.localized import ui

        super().__init__(id=id)
        self.title_text, self.message = title, message
        self.yes = ui("confirm_replace") if yes is None else yes
        self.no = ui("confirm_cancel") if no is None else no

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield Static(Text(self.message), id="confirm-message")
            with Horizontal():
                yield Button(self.yes, id="yes", variant="warning", compact=True)
                yield Button(self.no, id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
