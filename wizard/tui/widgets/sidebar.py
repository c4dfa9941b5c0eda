"""The list of groups (plus "Review and write"), with a severity badge per group."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...core import localized
from ...core.catalog import GROUPS, SETTING_BY_ID, settings_in
from ...core.findings import ERROR, INFO, WARNING, Finding
from ..shared.present import ICONS, NOT_APPLICABLE_ICON

REVIEW = "review"


_RANK = {ERROR: 0, WARNING: 1, INFO: 2}


def _prompt(label: str, badge: str, style: str, muted: bool) -> Text:
    text = Text()
    text.append(f"{badge or ' '} ", style=style)
    text.append(label, style="dim" if muted else "")
    return text


class GroupList(OptionList):
    """Up/Down move between groups and show them; Enter goes into the form."""

    DEFAULT_CSS = """
    GroupList { height: 1fr; scrollbar-size-vertical: 1; }
    """

    def __init__(self, findings: list[Finding], target: str) -> None:
        super().__init__(*group_options(findings, target), id="groups")
        self.border_title = localized.ui("groups")
        self._prompts = group_prompts(findings, target)

    @property
    def group_id(self) -> str | None:
        option = self.highlighted_option
        return option.id if option is not None else None

    def select_group(self, group_id: str) -> None:
        self.highlighted = self.get_option_index(group_id)

    def relabel(self, findings: list[Finding], target: str) -> None:
        """After a language switch: every group's name and the title again."""
        self._prompts = {}
        self.border_title = localized.ui("groups")
        self.replace_option_prompt(REVIEW, Text("▶ " + localized.ui("review_and_write")))
        self.show_badges(findings, target)

    def show_badges(self, findings: list[Finding], target: str) -> None:
        prompts = group_prompts(findings, target)
        for gid, prompt in prompts.items():
            if prompt != self._prompts.get(gid):
                self.replace_option_prompt(gid, prompt)
        self._prompts = prompts


def group_options(findings: list[Finding], target: str) -> list[Option | None]:
    """The list's options: each group (:func:`group_prompts`), a separator, "Review and write"."""
    prompts = group_prompts(findings, target)
    options: list[Option | None] = [Option(prompts[g.id], id=g.id) for g in GROUPS]
    options.append(None)
    options.append(Option(Text("▶ " + localized.ui("review_and_write")), id=REVIEW))
    return options


def group_prompts(findings: list[Finding], target: str) -> dict[str, Text]:
    """Each group's line: an icon for its worst error/warning, or ⊘ when nothing in it applies."""
    worst: dict[str, str] = {}
    for f in findings:
        for key in f.keys:
            if key not in SETTING_BY_ID:
                continue
            group = SETTING_BY_ID[key].group
            if group in worst and _RANK[worst[group]] <= _RANK[f.severity]:
                continue
            worst[group] = f.severity
    prompts = {}
    for g in GROUPS:
        sev = worst.get(g.id)
        unused = not any(s.applies_to(target) for s in settings_in(g.id))
        if sev in (ERROR, WARNING):
            badge, style = ICONS[sev], "bold red" if sev == ERROR else "bold yellow"
        elif unused:
            badge, style = NOT_APPLICABLE_ICON, "dim"
        else:
            badge, style = "", ""
        prompts[g.id] = _prompt(localized.group_short(g.id), badge, style, unused)
    return prompts
