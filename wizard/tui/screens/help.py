"""Every key binding, read from the classes that declare them (so the list cannot drift)."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ...core.localized import key_words, ui
from ..shared.judged import help_line

NAVIGATION = [
    ("tab / shift+tab", "Next / previous field or panel"),
    ("up / down", "Move in a list (groups, findings, a choice menu)"),
    ("enter", "Groups: edit the group · Findings: jump to the setting · Choice: open / pick"),
    ("space", "Flip a true/false setting; open a choice"),
    ("escape", "Close a menu or dialog; leave the review"),
    ("left / right", "Review: previous / next file tab"),
    ("pageup / pagedown", "Scroll the form, the explanation or a file"),
    ("ctrl+p", "Command palette: every action by name (switch backend, load a preset, go to a group...)"),
    ("ctrl+q", "Quit"),
    ("mouse", "Click groups, fields, findings, tabs and buttons; the wheel scrolls"),
]


def _key(binding: Binding) -> str:
    return " / ".join(k.strip() for k in binding.key.split(","))


def binding_rows(app_class: type[App]) -> list[tuple[str, str, str]]:
    """(where, keys, what) for every binding the wizard declares, then the standard navigation keys.

    ``app_class``: the App whose bindings apply everywhere (the help screen passes its own app's class, so this
    module need not import ``wizard.tui.app``, which imports it)."""
    from ..widgets.choice_menu import ChoiceMenu
    from ..widgets.fields import Choice, Toggle
    from .confirm import ConfirmScreen
    from .main import MainScreen
    from .memory import APPLY_KEY, MemoryScreen
    from .review import ReviewScreen
    from .run import RunScreen
    from .switch_report import SwitchReportScreen

    rows: list[tuple[str, str, str]] = []
    everywhere: set[str] = set()
    for where, cls in (("Everywhere", app_class), ("Settings", MainScreen), ("Memory (F3)", MemoryScreen),
                       ("Review", ReviewScreen), ("Run", RunScreen), ("Switch report", SwitchReportScreen),
                       ("Replace dialog", ConfirmScreen), ("true/false field", Toggle), ("choice field", Choice),
                       ("choice list", ChoiceMenu), ("Help", HelpScreen)):
        for b in cls.BINDINGS:
            if isinstance(b, Binding) and b.description and not b.system and _key(b) not in everywhere:
                rows.append((where, _key(b), b.tooltip or b.description))
                if cls is app_class:
                    everywhere.add(_key(b))
        if cls is MemoryScreen:  # the list's own Enter, which no binding declares
            rows.append((where, *APPLY_KEY))
    rows.extend(("Navigation", k, d) for k, d in NAVIGATION)
    return rows


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "close", "Close help", id="close-help"),
                Binding("l", "next_language", "Next language", id="next-language")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 95%; max-width: 120; height: 95%; border: thick $accent; background: $surface; padding: 0 1;
    }
    """

    def compose(self) -> ComposeResult:
        table = Table(expand=True, box=None, show_header=False, padding=(0, 1))
        table.add_column("keys", style="bold cyan", no_wrap=True, min_width=14)
        table.add_column("what it does", ratio=1, overflow="fold")  # a Chinese line has no space to break at
        last = None
        for where, keys, what in binding_rows(type(self.app)):
            if where != last:
                if last is not None:
                    table.add_row("", "")
                table.add_row(Text(key_words(where), style="bold underline"), "")
                last = where
            table.add_row(keys, key_words(what))
        with Vertical() as box:
            box.border_title = ui("help_title")
            with VerticalScroll(id="help-scroll"):
                yield Static(Text(ui("help_intro")), classes="intro")
                judged = getattr(self.app, "judged", None)
                if judged is not None:
                    yield Static(Text(help_line(judged), style="dim"), id="help-judged")
                yield Static(self._language_line(), id="help-language")
                yield Static(table, id="help-table")

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()

    @staticmethod
    def _language_line() -> Text:
        from ...core.i18n import LANGUAGES, NAMES, language

        others = " → ".join(NAMES[code] for code in LANGUAGES)
        return Text(f"{ui('language_now', name=NAMES[language()])} · l: {others} · ctrl+p: \"Language\"",
                    style="dim")

    async def action_next_language(self) -> None:
        """``l``: the next language (English, Türkçe, 繁體中文, English, ...), for the whole wizard; the help is
        drawn again in it."""
        from ...core.i18n import LANGUAGES, language

        switch = getattr(self.app, "switch_language", None)
        if switch is None:
            return
        switch(LANGUAGES[(LANGUAGES.index(language()) + 1) % len(LANGUAGES)])
        await self.recompose()
        self.query_one("#help-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)
