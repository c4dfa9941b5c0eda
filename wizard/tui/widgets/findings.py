"""The live findings list. Selecting a finding asks the screen to jump to the setting at fault."""
from __future__ import annotations

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...core import localized
from ...core.catalog import SETTING_BY_ID
from ...core.findings import ERROR, SEVERITY_RANK, WARNING, Finding
from ...core.i18n import cells
from ...core.localized import ui
from ..shared.present import ICONS, counts_text, severity_word

_STYLE = {ERROR: "bold red", WARNING: "bold yellow"}


def finding_prompt(f: Finding, prefix: str = "") -> Text:
    text = Text()
    text.append(f"{ICONS[f.severity]} {cells.ljust(severity_word(f.severity), 5)} ",
                style=_STYLE.get(f.severity, "bold"))
    where = next((k for k in f.keys if k in SETTING_BY_ID), f.keys[0] if f.keys else "")
    text.append(f"{prefix}{where}: ", style="bold")
    text.append(localized.finding_message(f))
    return text


IMPORT_RULE = "import"
"""The importer's notes about its own translation (see :mod:`wizard.core.answers.imported`)."""


def sections(findings: list[Finding], loaded: list[Finding], loaded_label: str) -> list[tuple[str, list[Finding]]]:
    """(heading, findings) in the order listed: the section with the worst severity first (ties: the answers).

    Every finding of every section is listed and counted: the header and the list border count the same."""
    about_file = [f for f in loaded if f.rule != IMPORT_RULE]
    notes = [f for f in loaded if f.rule == IMPORT_RULE]
    parts = [("", list(findings))]
    if about_file:
        parts.append((localized.screen("findings", "as_loaded", label=loaded_label), about_file))
    if notes:
        parts.append((localized.screen("findings", "imported", label=loaded_label), notes))

    def worst(part: tuple[str, list[Finding]]) -> int:
        return min((SEVERITY_RANK[f.severity] for f in part[1]), default=len(SEVERITY_RANK))

    first, rest = parts[0], sorted(parts[1:], key=worst)
    if rest and worst(rest[0]) < worst(first):
        return [rest[0], first, *rest[1:]]
    return [first, *rest]


def listed(findings: list[Finding], loaded: list[Finding], loaded_label: str = "") -> list[Finding]:
    """Every finding in the order the list shows them."""
    return [f for _, part in sections(findings, loaded, loaded_label) for f in part]


def options(findings: list[Finding], loaded: list[Finding], loaded_label: str) -> list:
    options: list = []
    index = 0
    for heading, part in sections(findings, loaded, loaded_label):
        if heading:
            if options:
                options.append(None)
            options.append(Option(Text(heading, style="italic"), id=f"h{len(options)}", disabled=True))
        elif not part:
            if options:
                options.append(None)
            options.append(Option(Text("✔ OK    " + localized.screen("findings", "no_findings"), style="green"),
                                  id="none", disabled=True))
        for f in part:
            options.append(Option(finding_prompt(f), id=f"f{index}"))
            index += 1
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
        super().__init__(*options(findings, loaded, loaded_label), id="findings")
        self.findings: list[Finding] = listed(findings, loaded, loaded_label)
        from ...core.i18n import language

        self._shown = (tuple(findings), tuple(loaded), loaded_label, language())
        self.border_title = ui("findings")
        self.border_subtitle = counts_text(self.findings)

    _measured_at = -1
    """The content width the options' lines were last measured at."""

    def _update_lines(self) -> None:
        # Textual's OptionList measures its options' lines once, at the width of their first layout; a scrollbar that
        # appears later narrows the text without a resize, and the lines kept from before would cut the last line of
        # a long finding: measured again when the width changes
        width = self.scrollable_content_region.width
        if width != self._measured_at:
            self._measured_at = width
            self._line_cache.clear()
            self._option_render_cache.clear()
        super()._update_lines()

    def show(self, findings: list[Finding], loaded: list[Finding], loaded_label: str) -> None:
        from ...core.i18n import language

        shown = (tuple(findings), tuple(loaded), loaded_label, language())  # drawn again after a language switch
        if shown == self._shown:
            return
        self._shown = shown
        self.findings = listed(findings, loaded, loaded_label)
        highlighted = self.highlighted
        self.set_options(options(findings, loaded, loaded_label))
        if highlighted is not None and self.option_count:
            self.highlighted = min(highlighted, self.option_count - 1)
        self.border_subtitle = counts_text(self.findings)

    def finding_at(self, index: int | None) -> Finding | None:
        if index is None:
            return None
        option = self.get_option_at_index(index)
        if option.id and option.id.startswith("f") and option.id[1:].isdigit():
            return self.findings[int(option.id[1:])]
        return None

    def highlight_first(self) -> None:
        """Highlight the first finding (the headings cannot be highlighted)."""
        for i in range(self.option_count):
            if not self.get_option_at_index(i).disabled:
                self.highlighted = i
                return

    def highlight_finding(self, finding: Finding) -> None:
        """Highlight ``finding`` (the first listed that is the same object), so the list shows where ctrl+n is."""
        index = next((i for i, f in enumerate(self.findings) if f is finding), None)
        if index is None:
            return
        self.highlighted = self.get_option_index(f"f{index}")

    @property
    def current(self) -> Finding | None:
        return self.finding_at(self.highlighted)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        finding = self.finding_at(event.option_index)
        if finding is not None:
            event.stop()
            self.post_message(self.Jump(finding))
