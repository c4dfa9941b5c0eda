"""Ask for a path (answers.yaml or an accelerate config to import) and load it.

The dialog stays open when the file cannot be used: it shows why, in the same words as ``--headless`` and
``check`` (``PATH: WHAT; FIX``, from ``wizard.core.inputs``), so the path can be corrected. A loaded file is
returned through ``dismiss`` as a :class:`~wizard.tui.shared.session.Start`.
"""
from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ...core import localized
from ..shared.session import Start, StartError


def start_error_text(exc: StartError, limit: int = 3) -> str:
    """The message of a start file that cannot be used, with the first findings and their fixes, in the wizard's
    language (as the command line says it: :func:`wizard.core.localized.errors.error_words`)."""
    from ...core.localized.errors import error_words

    lines = [error_words(exc)]
    for f in exc.findings[:limit]:
        lines.append(f"• {localized.finding_message(f)}" + (f" — {localized.finding_fix(f)}" if f.fix else ""))
    if len(exc.findings) > limit:
        lines.append(localized.ui("open_more", count=len(exc.findings) - limit))
    return "\n".join(lines)


class OpenFileScreen(ModalScreen[Start | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="open-cancel")]
    DEFAULT_CSS = """
    OpenFileScreen { align: center middle; }
    OpenFileScreen > Vertical {
        width: 80%; max-width: 100; height: auto; border: thick $accent; background: $surface; padding: 0 1;
    }
    OpenFileScreen #open-error { color: $error; display: none; }
    OpenFileScreen #open-error.-shown { display: block; }
    """

    def __init__(self, title: str, hint: str, load: Callable[[str], Start]) -> None:
        super().__init__()
        self.title_text, self.hint, self.load = title, hint, load
        self.error: str = ""

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield Static(self.hint)
            yield Input(placeholder="path/to/file.yaml", id="path")
            yield Static("", id="open-error")
            yield Static(localized.ui("open_hint"), classes="dim")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        path = event.value.strip()
        if not path:
            self._show_error(localized.ui("open_type_path"))
            return
        try:
            start = self.load(path)
        except StartError as exc:
            self._show_error(start_error_text(exc))
            return
        self.dismiss(start)

    def _show_error(self, text: str) -> None:
        self.error = text
        box = self.query_one("#open-error", Static)
        box.update(text)
        box.add_class("-shown")

    def action_cancel(self) -> None:
        self.dismiss(None)
