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
from ..shared.present import ICONS, NOT_APPLICABLE_ICON, WORDS
from ..shared.switch import SwitchReport


def _indented(text: Text, left: int) -> Padding:
    return Padding(text, (0, 0, 0, left))


def _written_now(before: str, after: str) -> Text:
    text = Text()
    text.append(f"{before} ", style="dim")
    text.append("→ ")
    text.append(after)
    return text


def report_renderable(report: SwitchReport, width: int = 80) -> Group:
    parts: list = []
    if report.changed:
        parts.append(Text(f"↻ Changed by {report.changed_by} (not carried over: chosen anew):", style="bold cyan"))
        for m in report.changed:
            text = Text()
            text.append(f"{m.setting_id}: ", style="bold")
            text.append(m.text.split(": ", 1)[-1])
            parts.append(_indented(text, 2))
            if m.before != m.after:
                parts.append(_indented(_written_now(m.before, m.after), 4))
    if report.carried:
        if parts:
            parts.append(Text(""))
        parts.append(Text(f"✔ Carried over (the same intent, written the {report.after} way):", style="bold green"))
        if width >= 100:
            table = Table(box=None, padding=(0, 1), show_header=True, header_style="bold", expand=True)
            table.add_column("answer", ratio=3)
            table.add_column(f"was ({report.before})", ratio=4)
            table.add_column(f"now ({report.after})", ratio=4)
            for line in report.carried:
                table.add_row(f"{line.setting_id} = {line.value}", line.before, line.after)
            parts.append(table)
        else:
            for line in report.carried:  # wrapped lines keep their indent
                parts.append(_indented(Text(f"{line.setting_id} = {line.value}", style="bold"), 2))
                parts.append(_indented(_written_now(line.before, line.after), 4))
    if report.changed_meaning:
        parts.append(Text(""))
        parts.append(Text("≠ Carried over with another meaning (the same answer, a different run):",
                          style="bold yellow"))
        shown: set[str] = set()
        for m in report.changed_meaning:
            text = Text()
            text.append(f"{m.setting_id} = {m.value}: ", style="bold")
            text.append(m.text)
            parts.append(_indented(text, 2))
            if m.setting_id not in shown and m.before != m.after:  # how it is written now, once per setting
                shown.add(m.setting_id)
                parts.append(_indented(_written_now(m.before, m.after), 4))
    if report.dropped:
        parts.append(Text(""))
        parts.append(Text(f"{NOT_APPLICABLE_ICON} Did not carry over (kept in the answers, not written):",
                          style="bold yellow"))
        for line in report.dropped:
            parts.append(_indented(Text(f"{line.setting_id} = {line.value}: {line.reason}"), 2))
    if report.new_findings:
        parts.append(Text(""))
        parts.append(Text("New findings after the switch (see Findings):", style="bold yellow"))
        for f in report.new_findings:
            finding = f"{ICONS[f.severity]} {WORDS[f.severity]} {', '.join(f.keys)}: {localized.finding_message(f)}"
            parts.append(_indented(Text(finding), 2))
    if report.lossless:
        parts.append(Text(""))
        parts.append(Text("Nothing was lost in the switch.", style="green"))
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
            box.border_title = f"Switched {self.report.before} → {self.report.after}"
            with VerticalScroll():
                yield Static(report_renderable(self.report, self.app.size.width), id="switch-report")
            yield Button("OK (Enter)", id="ok", compact=True, variant="primary")

    def on_button_pressed(self) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
