"""The form of one group: a short heading and one :class:`SettingField` per catalogue setting."""
from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.style import Style as VisualStyle
from textual.widgets import Static

from ...core import localized
from ...core.answers import Answers
from ...core.answers.render import Rendered
from ...core.catalog import settings_in
from ...core.findings import Finding
from ..shared.present import show_value, uses_select, written_for
from .fields import SettingField, choice_text


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
        return heading_content(self.group_id, settings, target)

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


def heading_content(group_id: str, settings, target: str) -> Content:
    """A form's heading: the group's name, and under it how many of its settings the target uses when not all."""
    heading = Content.styled(localized.group_label(group_id), "bold $accent")
    hint = _hint(settings, target)
    return Content.assemble(heading, "\n", hint) if hint else heading


class FormPreview:
    """The first frame's form (issue 26): the lines a :class:`GroupForm` of choices shows (the heading, each field's
    label, its choice and the lines under it), for :class:`~wizard.tui.widgets.first_frame.FirstFrame` to paint
    before the form's widgets are mounted. A form it cannot draw the same way (other controls, more lines than its
    place: it scrolls) is never previewed (:meth:`fits`; ``FirstFrame.paints``).
    ``tests/tui/test_first_frame_standins.py`` compares the two cell by cell."""

    def __init__(self, group_id: str, answers: Answers, rendered: Rendered, problems: dict[str, Finding]) -> None:
        self.group_id = group_id
        settings = settings_in(group_id)
        self._heading = heading_content(group_id, settings, answers.target)
        self._state = (settings, answers, rendered, problems)
        self._fields: dict[bool, list[SettingField]] = {}
        """The fields (not mounted: their words and state), per layout, made when first drawn."""

    def _fields_for(self, wide: bool) -> list[SettingField]:
        if wide not in self._fields:
            settings, answers, rendered, problems = self._state
            self._fields[wide] = [SettingField(s, answers[s.id], answers.target, problems.get(s.id),
                                               _written(rendered, s.id), wide=wide) for s in settings]
        return self._fields[wide]

    @staticmethod
    def fits(group_id: str) -> bool:
        """Whether the group's form is one this preview draws: choices only."""
        return all(uses_select(s) for s in settings_in(group_id))

    def lines(self, width: int, muted: VisualStyle | None = None, control: VisualStyle | None = None, *,
              wide: bool = False) -> list[Content]:
        """The form's lines at ``width`` cells (the form's width less its padding), as the real widgets draw them
        with ``muted`` (``$text-muted``) and ``control`` (the choice's ``$surface``) styles (None: uncoloured); in the
        wide layout each label beside its choice and where the value is written under them (wizard.tcss)."""

        def style(content: Content, visual_style: VisualStyle | None) -> Content:
            return content.stylize_before(visual_style) if visual_style is not None else content

        out = [style(line, muted) for line in self._heading.wrap(width)]
        for field in self._fields_for(wide):
            label = Content(localized.setting_label(field.setting.id))
            if field.has_class("-na"):
                label = style(label, muted)
            if wide:  # MainScreen.-wide SettingField: grid-columns 30 1fr, the label's padding-right 1, no margin
                words = choice_text(field.choice_label, width - WIDE_LABEL - 2)  # less the choice's padding (1 + 1)
                choice = style(Content.from_rich_text(words).pad(1, 1), control)
                labels = label.wrap(WIDE_LABEL - 1)
                out += [Content.assemble(line.pad_right(WIDE_LABEL - line.cell_length), *([choice] if i == 0 else []))
                        for i, line in enumerate(labels)]
            else:
                out += label.wrap(width)
                words = choice_text(field.choice_label, width - 4)  # less the margin (2) and the padding (1 + 1)
                out.append(Content.assemble("  ", style(Content.from_rich_text(words).pad(1, 1), control)))
            notes = field.notes_content()
            if notes:
                out += [Content.assemble("  ", style(n, muted)) for n in notes.wrap(width - 2)]
        return out


WIDE_LABEL = 30
"""The label's column in the wide layout (wizard.tcss ``MainScreen.-wide SettingField { grid-columns: 30 1fr }``)."""


def _hint(settings, target: str) -> str:
    n = len(settings)
    applies = sum(1 for s in settings if s.applies_to(target))
    if applies == n:
        return ""
    if n == 1:
        return localized.ui("form_hint_one", applies=applies)
    return localized.ui("form_hint", applies=applies, count=n)


def _written(rendered: Rendered, setting_id: str) -> str:
    items = written_for(rendered, setting_id)
    return ", ".join(f"{path}: {show_value(v)}" for _, path, v in items[:2])
