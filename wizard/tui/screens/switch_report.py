"""After a change of backend or FSDP version: what carried over (and how it is written now), what carried with
another meaning, what did not (the lines and their classes are the core's: :func:`wizard.core.convert.switch`)."""
from __future__ import annotations

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ...core import localized
from ...core.catalog import SETTING_BY_ID
from ...core.localized import said
from ..shared.present import ICONS, NOT_APPLICABLE_ICON, severity_word
from ..shared.switch import SwitchReport


def words(key: str, **values: object) -> str:
    """The switch report's words (:mod:`wizard.core.localized.screens.switch`) in the wizard's language."""
    return localized.screen("switch", key, None, **values)


def _indented(text: Text, left: int) -> Padding:
    return Padding(text, (0, 0, 0, left))


def _reason(line) -> str:
    """Why a line did not carry over, in the language: the catalogue's not-applicable reason for the new target, or
    the report's own sentence."""
    setting = SETTING_BY_ID.get(line.setting_id)
    if setting is not None:
        for target, why in setting.not_applicable.items():
            if why == line.reason:
                return localized.not_applicable(line.setting_id, target)
    return said(line.reason)


def _written_now(before: str, after: str) -> Text:
    text = Text()
    text.append(f"{before} ", style="dim")
    text.append("→ ")
    text.append(after)
    return text


def report_renderable(report: SwitchReport, width: int = 80) -> Group:
    parts: list = []
    if report.changed:
        parts.append(Text("↻ " + words("changed", by=report.changed_by), style="bold cyan"))
        for m in report.changed:
            text = Text()
            text.append(f"{m.setting_id}: ", style="bold")
            text.append(m.text.split(": ", 1)[-1])  # the values only: the heading says what changed them
            parts.append(_indented(text, 2))
            if m.before != m.after:
                parts.append(_indented(_written_now(m.before, m.after), 4))
    if report.carried:
        if parts:
            parts.append(Text(""))
        parts.append(Text("✔ " + words("carried", target=report.after), style="bold green"))
        if width >= 100:
            table = Table(box=None, padding=(0, 1), show_header=True, header_style="bold", expand=True)
            table.add_column(words("answer"), ratio=3)
            table.add_column(words("was", target=report.before), ratio=4)
            table.add_column(words("now", target=report.after), ratio=4)
            for line in report.carried:
                table.add_row(f"{line.setting_id} = {line.value}", line.before, line.after)
            parts.append(table)
        else:
            for line in report.carried:  # wrapped lines keep their indent
                parts.append(_indented(Text(f"{line.setting_id} = {line.value}", style="bold"), 2))
                parts.append(_indented(_written_now(line.before, line.after), 4))
    if report.changed_meaning:
        parts.append(Text(""))
        parts.append(Text("≠ " + words("meaning"), style="bold yellow"))
        shown: set[str] = set()
        for m in report.changed_meaning:
            text = Text()
            text.append(f"{m.setting_id} = {m.value}: ", style="bold")
            text.append(said(m.text))
            parts.append(_indented(text, 2))
            if m.setting_id not in shown and m.before != m.after:  # how it is written now, once per setting
                shown.add(m.setting_id)
                parts.append(_indented(_written_now(m.before, m.after), 4))
    if report.dropped:
        parts.append(Text(""))
        parts.append(Text(f"{NOT_APPLICABLE_ICON} " + words("dropped"), style="bold yellow"))
        for line in report.dropped:
            parts.append(_indented(Text(f"{line.setting_id} = {line.value}: {_reason(line)}"), 2))
    if report.new_findings:
        parts.append(Text(""))
        parts.append(Text(words("new_findings"), style="bold yellow"))
        for f in report.new_findings:
            finding = (f"{ICONS[f.severity]} {severity_word(f.severity)} {', '.join(f.keys)}: "
                       f"{localized.finding_message(f)}")
            parts.append(_indented(Text(finding), 2))
    if report.lossless:
        parts.append(Text(""))
        parts.append(Text(words("lossless"), style="green"))
    return Group(*parts)


class SwitchReportScreen(ModalScreen[None]):
    """Enter or Escape closes it. A long report scrolls inside the box; the OK button stays below it, in view."""

    BINDINGS = [Binding("escape,enter", "close", "Close", id="close-report")]
    DEFAULT_CSS = """
    SwitchReportScreen { align: center middle; }
    SwitchReportScreen > Vertical {
        width: 90%; max-width: 130; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    SwitchReportScreen VerticalScroll { height: auto; max-height: 1fr; }
    SwitchReportScreen #ok { dock: bottom; margin-top: 1; }
    """

    def __init__(self, report: SwitchReport) -> None:
        super().__init__()
        self.report = report

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = words("title", before=self.report.before, after=self.report.after)
            with VerticalScroll():
                yield Static(report_renderable(self.report, self.app.size.width), id="switch-report")
            yield Button(words("ok"), id="ok", compact=True, variant="primary")

    def on_button_pressed(self) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
