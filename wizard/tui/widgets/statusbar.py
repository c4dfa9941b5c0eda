"""One line on top: the target, the finding counts (icons and numbers), where files go, the start file.

The line is fitted to the terminal: the program name and then the start file give way first, and a long
folder is shortened from the left ("…/path/out"), so the folder is always readable, also at 80 columns.
"""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...core.findings import Finding
from ..shared.present import ICONS, counts

ELLIPSIS = "…"


def shorten_left(text: str, width: int) -> str:
    """``text`` cut from the left to ``width`` characters, at a path separator when there is one."""
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    tail = text[-(width - 1):]
    cut = tail.find("/")
    if 0 <= cut < len(tail) - 1 and len(tail) - cut >= min(12, width - 1):
        tail = tail[cut:]
    return ELLIPSIS + tail


def status_text(target: str, out: str, findings: list[Finding], source: str, width: int = 200) -> Text:
    c = counts(findings)
    head = "fsdpds-wizard "
    body = [(f"│ {target} ", "bold cyan"),
            (f"│ {ICONS['error']} {c['error']} ", "bold red" if c["error"] else ""),
            (f"{ICONS['warning']} {c['warning']} ", "bold yellow" if c["warning"] else ""),
            (f"{ICONS['info']} {c['info']} ", "")]
    from ...core.i18n.cells import width as cells
    from ...core.localized import labelled, ui

    folder_label = "│ " + labelled(ui("status_folder"), "")  # the words in the wizard's language, fitted by cells
    tail = "│ " + ui("status_from", source=source) if source else ""
    fixed = sum(cells(t) for t, _ in body) + cells(folder_label) + 1

    def fits(*extra: str) -> bool:
        return fixed + len(out) + sum(cells(e) for e in extra) <= width

    show_head = fits(head, tail) or fits(head)
    show_tail = bool(tail) and fits(head if show_head else "", tail)
    room = width - fixed - (len(head) if show_head else 0) - (cells(tail) if show_tail else 0)
    text = Text(no_wrap=True, overflow="ellipsis")
    if show_head:
        text.append(head, style="bold")
    for t, style in body:
        text.append(t, style=style)
    text.append(folder_label)
    text.append(shorten_left(out, max(8, room)) + " ", style="bold")
    if show_tail:
        text.append(tail, style="dim")
    return text


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; padding: 0 1; }
    """

    def __init__(self, target: str, out: str, findings: list[Finding], source: str, **kw) -> None:
        super().__init__(**kw)
        self._parts = (target, out, list(findings), source)

    def show(self, target: str, out: str, findings: list[Finding], source: str) -> None:
        self._parts = (target, out, list(findings), source)
        self.refresh()

    def render(self) -> Text:
        return status_text(*self._parts, width=max(20, self.content_size.width or 200))
