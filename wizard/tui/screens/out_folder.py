"""Choose the output folder; returns the folder through ``dismiss`` (None: unchanged)."""
from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from ...core.localized import ui
from ..widgets.fields import FieldInput


def folder_problem(text: str) -> str | None:
    """Why a folder cannot take the files (None: it can, or it will be created when writing)."""
    value = text.strip()
    if not value:
        return ui("out_give")
    path = Path(value).expanduser()
    if path.exists() and not path.is_dir():
        return ui("out_not_folder", folder=value)
    return None


class OutFolderScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="out-cancel")]
    DEFAULT_CSS = """
    OutFolderScreen { align: center middle; }
    OutFolderScreen > Vertical {
        width: 80%; max-width: 100; height: auto; border: thick $accent; background: $surface; padding: 0 1;
    }
    OutFolderScreen #out-folder-problem { color: $text-error; }
    """

    def __init__(self, current: str) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = ui("out_title")
            yield Static(Text(ui("out_intro")))
            yield Label(ui("out_label"))
            yield FieldInput(self.current, id="out-folder", placeholder=ui("out_placeholder"))
            yield Static("", id="out-folder-problem")
            yield Static(ui("out_hint", folder=self.current), classes="dim")

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#out-folder-problem", Static).update(folder_problem(event.value) or "")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        problem = folder_problem(event.value)
        if problem:
            self.query_one("#out-folder-problem", Static).update(problem)
            return
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
