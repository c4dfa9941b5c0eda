"""One line on top: the target, the finding counts (icons and numbers), where files go, the start file."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...core.findings import Finding
from ..present import ICONS, counts


def status_text(target: str, out: str, findings: list[Finding], source: str) -> Text:
    c = counts(findings)
    text = Text()
    text.append("fsdpds-wizard ", style="bold")
    text.append(f"│ {target} ", style="bold cyan")
    text.append(f"│ {ICONS['error']} {c['error']} ", style="bold red" if c["error"] else "")
    text.append(f"{ICONS['warning']} {c['warning']} ", style="bold yellow" if c["warning"] else "")
    text.append(f"{ICONS['info']} {c['info']} ")
    text.append(f"│ out: {out} ")
    if source:
        text.append(f"│ from {source}", style="dim")
    return text


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; padding: 0 1; }
    """

    def show(self, target: str, out: str, findings: list[Finding], source: str) -> None:
        self.update(status_text(target, out, findings, source))
