"""The Extra DeepSpeed JSON (``deepspeed.extra``) in the form: the value as indented JSON from its first line (a
one-line input showed only its tail), opened in :class:`~.json_editor.JsonEditor` to be edited over several lines."""
from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget

from ...core.catalog import Setting
from ...core.localized import ui
from ..shared.extra_json import pretty

SHOWN_LINES = 6
"""Lines of the value the form shows; the rest are counted."""


class JsonField(Widget, can_focus=True):
    """The value as indented JSON from its first line (at most :data:`SHOWN_LINES`); Enter, Space or a click opens the
    editor. Posts :class:`Changed` with the applied value."""

    BINDINGS = [Binding("enter,space", "edit", "Edit", tooltip="Open the JSON editor (ctrl+s applies)", show=False)]
    DEFAULT_CSS = """
    JsonField { height: auto; width: 1fr; padding: 0 1; background: $surface; text-wrap: nowrap;
                text-overflow: ellipsis; }
    JsonField:focus { background: $block-cursor-background; color: $block-cursor-foreground; }
    """

    class Changed(Message):
        def __init__(self, field: JsonField, value: Any) -> None:
            super().__init__()
            self.field = field
            self.value = value

        @property
        def control(self) -> JsonField:
            return self.field

    def __init__(self, setting: Setting, value: Any, **kw: Any) -> None:
        super().__init__(**kw)
        self.setting = setting
        self.value = value

    def set_value(self, value: Any) -> None:
        """Show ``value`` (changed elsewhere) without posting :class:`Changed`."""
        self.value = value
        self.refresh(layout=True)

    def render(self) -> Text:
        if not self.value:
            return Text("{}  " + ui("json_empty"), no_wrap=True, overflow="ellipsis")
        lines = pretty(self.value).splitlines()
        shown = lines if len(lines) <= SHOWN_LINES else lines[:SHOWN_LINES - 1]
        text = Text("\n".join(shown), no_wrap=True, overflow="ellipsis")
        if len(shown) < len(lines):
            text.append("\n" + ui("json_more", count=len(lines) - len(shown)), style="italic")
        return text

    def action_edit(self) -> None:
        def edited(value: Any) -> None:
            if value is not None and value != self.value:
                self.set_value(value)
                self.post_message(self.Changed(self, value))

        from .json_editor import JsonEditor

        self.app.push_screen(JsonEditor(self.setting, self.value), edited)

    def on_click(self) -> None:
        self.focus()
        self.action_edit()
