"""The form of one group: a short heading and one :class:`SettingField` per catalogue setting."""
from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ...core import localized
from ...core.answers import Answers
from ...core.answers.render import Rendered
from ...core.catalog import settings_in
from ...core.findings import Finding
from ..shared.present import show_value, written_for
from .fields import SettingField


def form_id(group_id: str) -> str:
    return f"form-{group_id}"


class GroupForm(VerticalScroll, can_focus=False):
    """Built from the catalogue the first time its group is shown."""

    DEFAULT_CSS = """
    GroupForm { height: 1fr; padding: 0 1; }
    GroupForm > .heading { color: $text-muted; }
    """

    def __init__(self, group_id: str, answers: Answers, rendered: Rendered, problems: dict[str, Finding],
                 *, wide: bool = False) -> None:
        super().__init__(id=form_id(group_id))
        self.group_id = group_id
        self._initial = (answers, rendered, problems)
        self._wide = wide
        self._to_show: SettingField | None = None
        """A field to bring into view once the form has its layout (see :meth:`bring_into_view`)."""

    def compose(self) -> ComposeResult:
        answers, rendered, problems = self._initial
        settings = settings_in(self.group_id)
        yield Static(self._heading(settings, answers.target), classes="heading")
        for s in settings:
            yield SettingField(s, answers[s.id], answers.target, problems.get(s.id), _written(rendered, s.id),
                               wide=self._wide)

    def _heading(self, settings, target: str) -> Content:
        """The group's name, and under it how many of its settings the target uses when not all."""
        heading = Content.styled(localized.group_label(self.group_id), "bold $accent")
        hint = _hint(settings, target)
        return Content.assemble(heading, "\n", hint) if hint else heading

    @property
    def fields(self) -> list[SettingField]:
        return list(self.query(SettingField))

    def show_values(self, answers: Answers) -> None:
        for f in self.fields:
            f.show_value(answers[f.setting.id])

    def show_state(self, answers: Answers, rendered: Rendered, problems: dict[str, Finding]) -> None:
        target = answers.target
        fields = self.fields
        self.query_one(".heading", Static).update(self._heading([f.setting for f in fields], target))
        for f in fields:
            f.show_state(target, problems.get(f.setting.id), _written(rendered, f.setting.id))

    def relabel(self, target: str) -> None:
        """After a language switch: the heading and every field's label in the new language."""
        fields = self.fields
        self.query_one(".heading", Static).update(self._heading([f.setting for f in fields], target))
        for f in fields:
            f.relabel()

    def set_wide(self, wide: bool) -> None:
        self._wide = wide
        for f in self.fields:
            f.set_wide(wide)

    def bring_into_view(self, field: SettingField) -> None:
        """Scroll so that ``field`` is shown whole. A form shown again while a dialog closes (the command palette's
        "go to setting") gets its layout a few frames later: then it scrolls when it is given its size."""
        if self.size.height == 0:
            self._to_show = field
            return
        self._to_show = None
        self.scroll_to_widget(field, animate=False)

    def on_resize(self, event: events.Resize) -> None:
        if self._to_show is not None:
            self.call_after_refresh(self.bring_into_view, self._to_show)

    def first_control(self):
        fields = self.fields
        return fields[0].control if fields else None


def _hint(settings, target: str) -> str:
    n = len(settings)
    applies = sum(1 for s in settings if s.applies_to(target))
    if applies == n:
        return ""
    return (f"{applies} of {n} setting{'s' * (n != 1)} used by this target; the others are kept for a "
                "switch and marked ⊘.")


def _written(rendered: Rendered, setting_id: str) -> str:
    items = written_for(rendered, setting_id)
    return ", ".join(f"{path}: {show_value(v)}" for _, path, v in items[:2])
