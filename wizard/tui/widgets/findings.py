"""The live findings list. Selecting a finding asks the screen to jump to the setting at fault."""
from __future__ import annotations

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...core.findings import ERROR, WARNING, Finding
from ..present import ICONS, WORDS, counts_text, finding_setting

_STYLE = {ERROR: "bold red", WARNING: "bold yellow"}


def finding_prompt(f: Finding, prefix: str = "") -> Text:
    text = Text()
    text.append(f"{ICONS[f.severity]} {WORDS[f.severity]:<5} ", style=_STYLE.get(f.severity, "bold"))
    where = finding_setting(f) or (f.keys[0] if f.keys else "")
    text.append(f"{prefix}{where}: ", style="bold")
    text.append(f.message)
    return text


def _options(findings: list[Finding], loaded: list[Finding], loaded_label: str) -> list:
    options: list = []
    if not findings:
        options.append(Option(Text("✔ OK    no findings: ready to write (ctrl+r)", style="green"),
                              id="none", disabled=True))
    for i, f in enumerate(findings):
        options.append(Option(finding_prompt(f), id=f"f{i}"))
    if loaded:
        options.append(None)
        options.append(Option(Text(f"In {loaded_label} (as loaded):", style="italic"), id="loaded", disabled=True))
        for j, f in enumerate(loaded):
            options.append(Option(finding_prompt(f), id=f"f{len(findings) + j}"))
    return options


class FindingsList(OptionList):
    """Errors first. Enter or a click on a finding jumps to its setting."""

    DEFAULT_CSS = """
    FindingsList { height: 1fr; }
    """

    class Jump(Message):
        def __init__(self, finding: Finding) -> None:
            super().__init__()
            self.finding = finding

    def __init__(self, findings: list[Finding], loaded: list[Finding], loaded_label: str) -> None:
        super().__init__(*_options(findings, loaded, loaded_label), id="findings")
        self.findings: list[Finding] = list(findings) + list(loaded)
        self._shown = (tuple(findings), tuple(loaded), loaded_label)
        self.border_title = "Findings"
        self.border_subtitle = counts_text(findings)

    def show(self, findings: list[Finding], loaded: list[Finding], loaded_label: str) -> None:
        shown = (tuple(findings), tuple(loaded), loaded_label)
        if shown == self._shown:
            return
        self._shown = shown
        self.findings = list(findings) + list(loaded)
        highlighted = self.highlighted
        self.set_options(_options(findings, loaded, loaded_label))
        if highlighted is not None and self.option_count:
            self.highlighted = min(highlighted, self.option_count - 1)
        self.border_subtitle = counts_text(findings)

    def finding_at(self, index: int | None) -> Finding | None:
        if index is None:
            return None
        option = self.get_option_at_index(index)
        if option.id and option.id.startswith("f") and option.id[1:].isdigit():
            return self.findings[int(option.id[1:])]
        return None

    @property
    def current(self) -> Finding | None:
        return self.finding_at(self.highlighted)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        finding = self.finding_at(event.option_index)
        if finding is not None:
            event.stop()
            self.post_message(self.Jump(finding))
