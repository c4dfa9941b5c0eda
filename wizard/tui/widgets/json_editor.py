"""The editor of the Extra DeepSpeed JSON (``deepspeed.extra``), over the screen: :class:`JsonEditor`, where ctrl+s
applies and Escape cancels. An edit that would drop keys the value holds now (an imported file's ``optimizer`` block,
say) is applied only after :class:`DropConfirm` has shown what goes, as a diff. The form's block is
:class:`~.json_field.JsonField`, which imports this module when it opens (TextArea stays off the start-up path).
"""
from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static, TextArea

from ...core import localized
from ...core.catalog import Setting
from ...core.localized import ui
from ..shared.extra_json import diff, dropped, pretty
from ..shared.present import text_to_value


class JsonEditor(ModalScreen[Any]):
    """Edit a JSON object over several lines. Dismisses with the parsed value, or None when cancelled."""

    BINDINGS = [
        Binding("ctrl+s", "apply", "Apply", id="json-apply", priority=True),
        Binding("escape", "cancel", "Cancel", id="json-cancel", priority=True),
    ]
    DEFAULT_CSS = """
    JsonEditor { align: center middle; }
    JsonEditor > Vertical { width: 90%; max-width: 110; height: 90%; border: thick $accent; background: $surface;
                            padding: 0 1; }
    JsonEditor #json-help { color: $text-muted; }
    JsonEditor TextArea { height: 1fr; }
    JsonEditor #json-error { color: $text-error; height: auto; }
    JsonEditor #json-error.-empty { display: none; }
    JsonEditor Horizontal { height: auto; }
    JsonEditor Button { margin-right: 2; }
    """

    def __init__(self, setting: Setting, value: Any) -> None:
        super().__init__()
        self.setting = setting
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = f"{localized.setting_label(self.setting.id)} ({self.setting.id})"
            yield Static(ui("json_help"), id="json-help")
            yield TextArea(pretty(self.value), id="json-text", soft_wrap=False, tab_behavior="indent",
                           show_line_numbers=True)
            yield Static("", id="json-error", classes="-empty")
            with Horizontal():
                yield Button(ui("json_apply"), id="json-apply", variant="primary", compact=True)
                yield Button(ui("json_cancel"), id="json-cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    def show_problem(self, problem: str) -> None:
        error = self.query_one("#json-error", Static)
        error.update(Text("✖ " + ui("json_not_applied", problem=problem) if problem else ""))
        error.set_class(not problem, "-empty")

    def action_apply(self) -> None:
        value, problem = text_to_value(self.setting, self.text)
        if problem is not None:
            self.show_problem(problem)
            return
        self.show_problem("")
        lost = dropped(self.value, value)
        if not lost:
            self.dismiss(value)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss(value)

        self.app.push_screen(DropConfirm(lost, diff(self.value, value)), answered)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "json-apply":
            self.action_apply()
        else:
            self.action_cancel()


class DropConfirm(ModalScreen[bool]):
    """What an edit drops, as a list and a diff; y applies it, n or Escape goes back to the editor."""

    BINDINGS = [
        Binding("y", "answer(True)", "Drop them and apply", id="drop-yes"),
        Binding("n,escape", "answer(False)", "Back to the editor", id="drop-no"),
    ]
    DEFAULT_CSS = """
    DropConfirm { align: center middle; }
    DropConfirm > Vertical { width: 90%; max-width: 110; height: auto; max-height: 90%; border: thick $warning;
                             background: $surface; padding: 0 1; }
    DropConfirm VerticalScroll { height: auto; max-height: 16; }
    DropConfirm Horizontal { height: auto; margin-top: 1; }
    DropConfirm Button { margin-right: 2; }
    """

    def __init__(self, lost: list[str], diff_text: str) -> None:
        super().__init__()
        self.lost = lost
        self.diff_text = diff_text

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = ui("drop_title")
            yield Static(Text(ui("drop_message", keys=", ".join(self.lost))), id="drop-message")
            with VerticalScroll(id="drop-diff"):
                yield Static(_diff_text(self.diff_text))
            with Horizontal():
                yield Button(ui("drop_yes"), id="yes", variant="warning", compact=True)
                yield Button(ui("drop_no"), id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def _diff_text(text: str) -> Text:
    out = Text(no_wrap=True, overflow="ellipsis")
    for line in text.splitlines():
        style = "red" if line.startswith("-") and not line.startswith("---") else \
            "green" if line.startswith("+") and not line.startswith("+++") else ""
        out.append(line + "\n", style=style)
    return out
