"""One form row per catalogue setting: a label, a control, and the lines about it ("not used here", problems).

Fields never hold the answers: they post :class:`SettingChanged` with a parsed value and the screen
decides. The screen pushes values back with :meth:`SettingField.show_value` only when the change came
from elsewhere (a preset, an import, a key binding).
"""
from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Input, Static

from ...core import localized
from ...core.catalog import TARGET_LABELS, Setting
from ...core.findings import Finding
from ..shared.present import (
    ICONS,
    NOT_APPLICABLE_ICON,
    choice_options,
    placeholder,
    severity_word,
    text_to_value,
    uses_select,
    value_to_text,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (issue 26)
if TYPE_CHECKING:
    from typing import TypeGuard

    from .json_field import JsonField


def blank_prompt() -> str:
    """What a choice that may stay unset shows for "not set" (the library's default applies), in the language."""
    return localized.ui("library_default")


def not_accepted(problem: str | None) -> str:
    """The line under a text field whose value is not accepted, in the language ("" for an accepted value)."""
    return f"{ICONS['error']} " + localized.ui("field_not_accepted", problem=problem) if problem else ""


def field_id(setting_id: str) -> str:
    return "f-" + setting_id.replace(".", "--")


class SettingChanged(Message):
    """A field has a new valid value for a setting."""

    def __init__(self, setting_id: str, value: Any) -> None:
        super().__init__()
        self.setting_id = setting_id
        self.value = value


class Toggle(Widget, can_focus=True):
    """A one-line true/false control whose state is written out, not only coloured."""

    # "flip", not "toggle": DOMNode.action_toggle(attribute_name) is Textual's own action
    BINDINGS = [Binding("space,enter", "flip", "Toggle", show=False)]
    DEFAULT_CSS = """
    Toggle { height: 1; width: 1fr; padding: 0 1; background: $surface; }
    Toggle:focus { background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold; }
    """
    value: reactive[bool] = reactive(False)

    class Changed(Message):
        def __init__(self, toggle: Toggle, value: bool) -> None:
            super().__init__()
            self.toggle = toggle
            self.value = value

        @property
        def control(self) -> Toggle:
            return self.toggle

    def __init__(self, value: bool, **kw: Any) -> None:
        super().__init__(**kw)
        self.set_reactive(Toggle.value, value)

    def render(self) -> Text:
        return Text("[x] true" if self.value else "[ ] false")

    def action_flip(self) -> None:
        self.value = not self.value
        self.post_message(self.Changed(self, self.value))

    def on_click(self) -> None:
        self.focus()
        self.action_flip()


def choice_text(label: str, width: int) -> Text:
    """A choice's line at ``width`` cells: its words (cut with an ellipsis) and the ▼ at the right edge."""
    width = max(1, width)
    text = Text(label, no_wrap=True, overflow="ellipsis")
    text.truncate(max(1, width - 2), overflow="ellipsis")
    text.append(" " * max(1, width - 1 - text.cell_len) + "▼")
    return text


class Choice(Widget, can_focus=True):
    """A one-line drop-down: the chosen option, and a list that opens on Enter, Space, Up/Down or a click.

    It is drawn as one widget (the list is a small modal screen built when it opens), so a form of
    choices costs no more to show than a form of labels: Textual's ``Select`` mounts a hidden option
    list and four more widgets per field, which made the first screen paint about 30 ms later.
    """

    BINDINGS = [Binding("enter,space,down,up", "open", "Choose", id="choose",
                        tooltip="Open the list of choices (Enter picks, Escape keeps the current one)", show=False)]
    DEFAULT_CSS = """
    Choice { height: 1; width: 1fr; padding: 0 1; background: $surface; }
    Choice:focus { background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold; }
    Choice.-blank { color: $text-muted; }
    """

    class Changed(Message):
        def __init__(self, choice: Choice, value: Any) -> None:
            super().__init__()
            self.choice = choice
            self.value = value

        @property
        def control(self) -> Choice:
            return self.choice

    def __init__(self, options: list[tuple[str, Any]], value: Any, *, allow_blank: bool, prompt: str,
                 **kw: Any) -> None:
        super().__init__(**kw)
        self.options, self._value = self.entries(options, value, allow_blank=allow_blank, prompt=prompt)
        """(label, value) in the order shown; with ``allow_blank`` the prompt (value None) comes first."""
        self.set_class(self._value is None, "-blank")

    @staticmethod
    def entries(options: list[tuple[str, Any]], value: Any, *, allow_blank: bool,
                prompt: str) -> tuple[list[tuple[str, Any]], Any]:
        """The (label, value) pairs shown and the value chosen: ``value``, or the first when it is not one of them."""
        shown = ([(prompt, None)] if allow_blank else []) + list(options)
        return shown, value if any(v == value for _, v in shown) else shown[0][1]

    @property
    def value(self) -> Any:
        return self._value

    def set_value(self, value: Any) -> None:
        """Show ``value`` (changed elsewhere) without posting :class:`Changed`."""
        if not any(v == value for _, v in self.options):
            raise ValueError(f"{value!r} is not one of the choices")
        self._value = value
        self.set_class(value is None, "-blank")
        self.refresh()

    def _index(self) -> int:
        return next(i for i, (_, v) in enumerate(self.options) if v == self._value)

    @property
    def label(self) -> str:
        """The chosen option's words."""
        return self.options[self._index()][0]

    def render(self) -> Text:
        return choice_text(self.label, self.content_size.width)

    def action_open(self) -> None:
        from .choice_menu import ChoiceMenu

        def chosen(index: int | None) -> None:
            if index is None:
                return
            value = self.options[index][1]
            if value != self._value:
                self.set_value(value)
                self.post_message(self.Changed(self, value))

        self.app.push_screen(ChoiceMenu([label for label, _ in self.options], self._index(), self.region),
                             chosen)

    def on_click(self) -> None:
        self.focus()
        self.action_open()


class FieldInput(Input):
    """An Input whose own editing keys (backspace, delete, arrows...) take effect in the order typed.

    Textual inserts a printable key as soon as the Input receives it, but runs the Input's own
    non-priority bindings only after the key event has bubbled up through every ancestor to the App.
    In a fast burst (``160``, three backspaces, ``8``) the ``8`` is then inserted before the backspaces
    are applied and the field ends as ``1``. Running the Input's own bindings here, at once, keeps the
    order; priority bindings were already checked by the App before the key reached the Input, and the
    focused widget's bindings come first in the normal chain anyway, so no other key changes meaning.
    """

    async def _on_key(self, event: events.Key) -> None:
        if not event.is_printable:
            for binding in self._bindings.key_to_bindings.get(event.key, ()):
                if not binding.priority and await self.app.run_action(binding.action, self):
                    event.stop()
                    event.prevent_default()
                    self._restart_blink()
                    return
        await super()._on_key(event)


class SettingField(Vertical):
    """Label + control for one setting, and one line each, when there is something to say, for a value not
    accepted, "not used here", the problem found and (wide layout) where the value is written.

    The lines share one widget, mounted the first time there is something to say: every widget costs the first
    paint a millisecond or more, and a form at 80x24 shows several fields (issue 26)."""

    DEFAULT_CSS = """
    SettingField { height: auto; }
    SettingField > .label { width: 1fr; }
    SettingField > .control { width: 1fr; margin-left: 2; }
    SettingField > .notes { color: $text-muted; padding-left: 2; }
    SettingField > .notes.-empty { display: none; }
    SettingField.-na > .label { color: $text-muted; }
    """

    def __init__(self, setting: Setting, value: Any, target: str, finding: Finding | None, written: str,
                 *, wide: bool = False) -> None:
        super().__init__(id=field_id(setting.id))
        self.setting = setting
        self._initial = value
        self._wide = wide
        self._invalid = ""
        self._composed = False
        """True once compose has run: the notes' widget is then mounted by :meth:`_show_notes` when needed."""
        self._state = self._compute_state(target, finding, written)
        for cls, enabled in self._state[0].items():
            self.set_class(enabled, cls)

    def compose(self) -> ComposeResult:
        yield Static(localized.setting_label(self.setting.id), classes="label")
        yield self._make_control(self._initial)
        self._composed = True
        notes = self.notes_content()
        if notes:
            yield Static(notes, classes="notes")

    def relabel(self) -> None:
        """The label, the lines under the control, a choice's options (their words and "library default"), a text
        field's placeholder and a value not accepted in the current language (after a switch)."""
        self.query_one(".label", Static).update(localized.setting_label(self.setting.id))
        control = self.control
        if isinstance(control, Choice):
            control.options, _ = Choice.entries(choice_options(self.setting), control.value,
                                                allow_blank=self.setting.nullable, prompt=blank_prompt())
            control.refresh()
        elif isinstance(control, Input):
            control.placeholder = placeholder(self.setting)
            if self._invalid:
                self._invalid = not_accepted(text_to_value(self.setting, control.value)[1])
        self._state = self._compute_state(*self._shown_for)
        self._show_notes()

    def _make_control(self, value: Any) -> Widget:
        s = self.setting
        if uses_select(s):
            return Choice(choice_options(s), value, allow_blank=s.nullable, prompt=blank_prompt(), classes="control")
        if s.kind == "bool":
            return Toggle(bool(value), classes="control")
        if s.kind == "dict":  # the Extra DeepSpeed JSON: shown from its first line, edited over several
            from .json_field import JsonField  # its group is not on the first screen (issue 26)

            return JsonField(s, value, classes="control")
        return FieldInput(value_to_text(s, value), placeholder=placeholder(s), compact=True, classes="control")

    @property
    def choice_label(self) -> str:
        """The words the field's choice shows for its first value (a setting shown as a choice), before it is
        mounted too: what the first frame's form preview draws."""
        options, value = Choice.entries(choice_options(self.setting), self._initial, allow_blank=self.setting.nullable,
                                        prompt=blank_prompt())
        return next(label for label, v in options if v == value)

    @property
    def control(self) -> Widget:
        return self.query_one(".control")

    def notes_content(self) -> Content:
        """The lines under the control, each in its own colour (an empty Content when there is nothing)."""
        classes, na, problem, where = self._state
        lines: list[Content] = []
        if self._invalid:
            lines.append(Content.styled(self._invalid, "$text-error"))
        if na:
            lines.append(Content(na))
        if problem:
            colour = "$text-error" if classes["-error"] else "$text-warning" if classes["-warning"] else ""
            lines.append(Content.styled(problem, colour) if colour else Content(problem))
        if where and self._wide:
            lines.append(Content(where))
        return Content("\n").join(lines)

    def _show_notes(self) -> None:
        """Bring the lines up to date (before compose there is nothing to update: compose uses the state); their
        widget is mounted when they first have something to say."""
        if not self._composed:
            return
        notes = self.notes_content()
        widgets = list(self.query_children(".notes").results(Static))
        if not widgets and notes:
            self.mount(Static(notes, classes="notes"))
        for widget in widgets:
            widget.set_class(not notes, "-empty")
            widget.update(notes)

    def set_wide(self, wide: bool) -> None:
        """The wide layout also shows where the value is written."""
        if wide != self._wide:
            self._wide = wide
            self._show_notes()

    # -------------------------------------------------------------- from the control

    @on(Choice.Changed)
    def _choice_changed(self, event: Choice.Changed) -> None:
        event.stop()
        self.post_message(SettingChanged(self.setting.id, event.value))

    @on(Toggle.Changed)
    def _toggle_changed(self, event: Toggle.Changed) -> None:
        event.stop()
        self.post_message(SettingChanged(self.setting.id, event.value))

    def on_json_field_changed(self, event: JsonField.Changed) -> None:  # JsonField is imported with its first field
        event.stop()
        self.post_message(SettingChanged(self.setting.id, event.value))

    @on(Input.Changed)
    def _input_changed(self, event: Input.Changed) -> None:
        event.stop()
        value, problem = text_to_value(self.setting, event.value)
        self.set_class(problem is not None, "-invalid")
        self._invalid = not_accepted(problem)
        self._show_notes()
        if problem is None:
            self.post_message(SettingChanged(self.setting.id, value))
        else:  # the message sits under the input: bring it into view (at 80x24 the form is a few lines high)
            self.call_after_refresh(self.scroll_visible, animate=False)

    # -------------------------------------------------------------- from the screen

    def show_value(self, value: Any) -> None:
        """Display a value that changed elsewhere, without echoing a change back."""
        control = self.control
        if isinstance(control, Choice):
            control.set_value(value)
        elif isinstance(control, Toggle):
            control.value = bool(value)
        elif _is_json_field(control):
            control.set_value(value)
        elif isinstance(control, Input):
            current, problem = text_to_value(self.setting, control.value)
            if problem is not None or current != value:
                with self.prevent(Input.Changed):
                    control.value = value_to_text(self.setting, value)
                self.remove_class("-invalid")
                if self._invalid:
                    self._invalid = ""
                    self._show_notes()

    def _compute_state(self, target: str, finding: Finding | None, written: str):
        s = self.setting
        applies = s.applies_to(target)
        classes = {"-na": not applies, "-problem": finding is not None}
        for sev in ("error", "warning", "info"):
            classes[f"-{sev}"] = finding is not None and finding.severity == sev
        self._shown_for = (target, finding, written)
        why = localized.not_applicable(s.id, target) or localized.ui("no_such_setting")
        na = "" if applies else (f"{NOT_APPLICABLE_ICON} "
                                 + localized.ui("field_not_used", target=TARGET_LABELS[target], why=why))
        problem = (f"{ICONS[finding.severity]} {severity_word(finding.severity)}: {localized.finding_message(finding)}"
                   if finding else "")
        return classes, na, problem, (f"→ {written}" if written else "")

    def show_state(self, target: str, finding: Finding | None, written: str) -> None:
        state = self._compute_state(target, finding, written)
        if state == self._state:
            return
        self._state = state
        for cls, enabled in state[0].items():
            self.set_class(enabled, cls)
        self._show_notes()


def _is_json_field(widget: Widget) -> TypeGuard[JsonField]:
    """Whether the control is the Extra DeepSpeed JSON's (whose module is imported when its first field is made)."""
    from .json_field import JsonField

    return isinstance(widget, JsonField)
