"""The main screen's first frame, painted by one widget (issue 26).

A Textual widget costs its mount, the style of each of its nodes and its own render: the main screen's dozen widgets
(the status line, the list of groups, the memory bar, the first group's form, the explanation's frame, the findings
list and their containers) took longer to put on the screen than a bare Textual app takes to start. This widget paints
what they paint, cell for cell, from the same texts (the same functions build them) and the same colours (its
component classes carry the declarations the real widgets get from their stylesheets, and the boxes are drawn by
Textual's own border, padding and scrollbar code). The main screen puts the real widgets in its place right after the
first paint. It paints only the layout it knows (the narrow one, with a first form of choices that fits its place; the
lists with the scrollbars they need); elsewhere the real widgets are there from the first frame.
``tests/tui/test_first_frame_standins.py`` compares its frame with the real widgets' cell by cell.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual._styles_cache import StylesCache
from textual.color import Color
from textual.content import Content
from textual.geometry import Region, Size
from textual.scrollbar import ScrollBarRender
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from textual.css.styles import RulesMap

SIDE = 28
"""The side column's width below the wide layout (wizard.tcss ``#body { grid-columns: 28 1fr }``)."""
WIDE_AT = 120
"""From this terminal width on, the main screen's wide layout (MainScreen: the explanation gets its own column)."""
WIDE_SIDE = 32
"""The side column's width in the wide layout (wizard.tcss ``MainScreen.-wide #body { grid-columns: 32 1fr 1fr }``)."""
WIDE_FINDINGS_ROWS = 14
"""The findings' rows in the wide layout (``grid-rows: 1fr 14``)."""
MEMORY_ROWS = 5
"""The memory bar's height (``MemoryBar { height: 5 }``)."""
ROWS = {False: (8, 5), True: (5, 9)}
"""The explanation's and the findings' rows, without errors and with (wizard.tcss ``grid-rows: 1fr 8 5`` /
``1fr 5 9``)."""


class ListPlan:
    """What an option list shows: its options (prompt, disabled, a separator under it), the highlighted one, its
    titles."""

    __slots__ = ("options", "highlighted", "title", "subtitle")

    def __init__(self, options: Sequence[tuple[Text, bool, bool]], highlighted: int | None, title: str,
                 subtitle: str = "") -> None:
        self.options, self.highlighted, self.title, self.subtitle = options, highlighted, title, subtitle


class FramePlan:
    """Everything the first frame shows, built by the main screen from its state (a plain class: a dataclass costs
    its start a millisecond)."""

    __slots__ = ("status", "groups", "memory", "memory_title", "form", "explanation_title", "findings", "errors")

    def __init__(self, *, status: Callable[[int], Text], groups: ListPlan, memory: Callable[[int], Text],
                 memory_title: str,
                 form: Callable[[int, VisualStyle | None, VisualStyle | None, bool], list[Content]],
                 explanation_title: str, findings: ListPlan, errors: bool) -> None:
        self.status = status
        """The status line at a width."""
        self.groups = groups
        self.memory = memory
        """The memory bar's lines at a width."""
        self.memory_title = memory_title
        self.form = form
        """The first group's form at a width, with the muted and the control style, in the wide layout or not."""
        self.explanation_title = explanation_title
        self.findings = findings
        self.errors = errors
        """Whether the findings list errors (their pane gets more rows)."""


class FirstFrame(Widget):
    """The whole first frame; see the module's docstring."""

    COMPONENT_CLASSES = {
        "first-frame--status", "first-frame--groups", "first-frame--groups-highlighted", "first-frame--separator",
        "first-frame--pane", "first-frame--findings", "first-frame--findings-highlighted",
        "first-frame--disabled", "first-frame--form", "first-frame--muted", "first-frame--control",
    }
    # the declarations of the widgets painted here, as their stylesheets give them at the first frame: StatusBar;
    # GroupList (an OptionList, focused: #groups:focus-within); MemoryBar and the explanation (round $primary 50%);
    # FindingsList (an OptionList, not focused); FormPreview. Textual's Widget gives every widget the scrollbar colours.
    DEFAULT_CSS = """
    FirstFrame { height: 1fr; }
    FirstFrame > .first-frame--status { background: $panel; padding: 0 1; }
    FirstFrame > .first-frame--groups {
        color: $foreground; background: $surface; background-tint: $foreground 5%; padding: 0 1;
        border: round $accent; border-title-align: left; scrollbar-size-vertical: 1;
        scrollbar-background: $scrollbar-background; scrollbar-color: $scrollbar;
    }
    FirstFrame > .first-frame--groups-highlighted {
        color: $block-cursor-foreground; background: $block-cursor-background; text-style: $block-cursor-text-style;
    }
    FirstFrame > .first-frame--separator { color: $foreground 15%; }
    FirstFrame > .first-frame--pane {
        padding: 0 1; border: round $primary 50%; border-title-align: left; border-subtitle-align: right;
    }
    FirstFrame > .first-frame--findings {
        color: $foreground; background: $surface; padding: 0 1;
        border: round $primary 50%; border-title-align: left; border-subtitle-align: right;
        scrollbar-size-vertical: 2; scrollbar-background: $scrollbar-background; scrollbar-color: $scrollbar;
    }
    FirstFrame > .first-frame--findings-highlighted {
        color: $foreground; background: $block-cursor-blurred-background;
        text-style: $block-cursor-blurred-text-style;
    }
    FirstFrame > .first-frame--disabled { color: $text-disabled; }
    FirstFrame > .first-frame--form {
        padding: 0 1; scrollbar-size-vertical: 2; scrollbar-background: $scrollbar-background;
        scrollbar-color: $scrollbar;
    }
    FirstFrame > .first-frame--muted { color: $text-muted; }
    FirstFrame > .first-frame--control { background: $surface; }
    """

    can_focus = True
    """Focused while it is up: the keys typed then reach the main screen, which keeps them for the real widgets."""

    def __init__(self, plan: FramePlan, **kw) -> None:
        super().__init__(**kw)
        self.plan = plan

    # ------------------------------------------------------------------ what fits

    @staticmethod
    def paints(plan: FramePlan, width: int, height: int) -> bool:
        """Whether this widget paints the frame at ``width`` x ``height`` as the real widgets would: the narrow layout
        with room for each pane."""
        return _room(plan.errors, width, height)

    # ------------------------------------------------------------------ painting

    def render_lines(self, crop: Region) -> list[Strip]:
        width, height = self.size
        if not _room(self.plan.errors, width, height):  # a terminal made smaller before the real widgets came
            return [Strip.blank(crop.width, self.get_visual_style().rich_style)] * crop.height
        lines = self._frame(width, height)
        return [line.crop(crop.x, crop.right) for line in lines[crop.y:crop.bottom]]

    def _frame(self, width: int, height: int) -> list[Strip]:
        plan = self.plan
        body = height - 2
        side_width = WIDE_SIDE if width >= WIDE_AT else SIDE
        side = (self._list(plan.groups, "first-frame--groups", "first-frame--groups-highlighted",
                           Size(side_width, body - MEMORY_ROWS))
                + self._memory(Size(side_width, MEMORY_ROWS)))
        explanation_title = plan.explanation_title
        if width >= WIDE_AT:  # the form beside the side column, the explanation over the findings in a third
            form_width = (width - side_width) // 2  # grid-columns: 32 1fr 1fr (the second column the narrower)
            right = width - side_width - form_width
            form = self._form(Size(form_width, body), wide=True)
            panes = (self._box("first-frame--pane", Size(right, body - WIDE_FINDINGS_ROWS), explanation_title, "",
                               lambda y, w: None)
                     + self._list(plan.findings, "first-frame--findings", "first-frame--findings-highlighted",
                                  Size(right, WIDE_FINDINGS_ROWS)))
            columns = [side, form, panes]
        else:
            explanation_rows, findings_rows = ROWS[plan.errors]
            right = width - side_width
            columns = [side, self._form(Size(right, body - explanation_rows - findings_rows))
                       + self._box("first-frame--pane", Size(right, explanation_rows), explanation_title, "",
                                   lambda y, w: None)
                       + self._list(plan.findings, "first-frame--findings", "first-frame--findings-highlighted",
                                    Size(right, findings_rows))]
        screen = self.get_visual_style().rich_style
        rows = [self._status(width)]
        rows += [Strip.join(parts) for parts in zip(*columns, strict=True)]
        rows.append(Strip.blank(width, screen))  # the footer's row: its keys come after the first paint
        return rows

    def _screen_background(self) -> Color:
        """The colour under the panes (the screen's)."""
        return self.get_visual_style().background or Color(0, 0, 0, 0)

    def _status(self, width: int) -> Strip:
        style = self.get_visual_style("first-frame--status")
        styles = self.get_component_styles("first-frame--status")
        pad = styles.padding
        inner = width - pad.width
        line = self._content_lines(visualize(self, self.plan.status(inner)), inner, 1, style)[0]
        blank = style.rich_style
        return self._filtered(Strip.join([Strip.blank(pad.left, blank), line, Strip.blank(pad.right, blank)]),
                              style.background)

    def _filtered(self, strip: Strip, background) -> Strip:
        """``strip`` through the app's line filters (ANSI colours to the theme's, dim text blended), as a widget's
        lines go over ``background``."""
        for line_filter in self.get_line_filters():
            strip = strip.apply_filter(line_filter, background)
        return strip

    def _content_lines(self, visual: Visual, width: int, height: int | None, style: VisualStyle) -> list[Strip]:
        """``visual``'s lines at ``width`` (``height``: cut or filled to that many), as a widget renders it."""
        strips = Visual.to_strips(self, visual, width, height, style)
        lines = [strip.extend_cell_length(width, style.rich_style) for strip in strips]
        if height is not None:
            lines = lines[:height] + [Strip.blank(width, style.rich_style)] * (height - len(lines))
        return lines

    def _box(self, component: str, size: Size, title: str, subtitle: str,
             content: Callable[[int, int], Strip | None]) -> list[Strip]:
        """A bordered pane of ``size`` drawn by Textual's own code (border, titles, padding); ``content(y, width)``
        gives each content line (None: blank)."""
        styles = self.get_component_styles(component)
        base = self._screen_background()
        background = base + styles.background.tint(styles.background_tint)
        gutter = styles.gutter
        inner = Size(size.width - gutter.width, size.height - gutter.height)
        fill = RichStyle(bgcolor=background.rich_color)

        def line(y: int) -> Strip:
            strip = content(y, inner.width)
            return strip if strip is not None else Strip.blank(inner.width, fill)

        def label(text: str) -> tuple[Content, Color, Color, VisualStyle] | None:
            if not text:
                return None
            return (Content(text), styles.border_title_color, styles.border_title_background,
                    VisualStyle.from_rich_style(styles.border_title_style))

        return StylesCache().render(styles, size, base, background, line, self.get_line_filters(), label(title),
                                    label(subtitle),
                                    content_size=inner, padding=styles.padding,
                                    ansi_theme=self.app.ansi_theme, native_ansi=self.app.native_ansi_color)

    def _list(self, plan: ListPlan, component: str, highlighted: str, size: Size) -> list[Strip]:
        styles = self.get_component_styles(component)
        inner_width = size.width - styles.gutter.width
        window = size.height - styles.gutter.height
        heights = self._heights(plan, inner_width)
        if _virtual(plan, heights) > window:  # a scrollbar, and the text wrapped beside it
            inner_width -= styles.scrollbar_size_vertical
            heights = self._heights(plan, inner_width)
            text_width = inner_width
            inner_width += styles.scrollbar_size_vertical
        else:
            text_width = inner_width
        virtual = _virtual(plan, heights)
        scroll = _scroll_to(heights, plan.highlighted, window, virtual)
        base = self.get_visual_style(component)
        lines: list[Strip] = []
        # the options in runs of one style, each run drawn at once (a Visual per option costs ~0.3 ms), until the
        # window is full (the rest scrolls: only counted)
        run: list[Content] = []
        run_style = base

        def flush() -> None:
            if run:
                lines.extend(self._content_lines(Content("\n").join(run), text_width, None, run_style))
                run.clear()

        for i, (prompt, disabled, divider) in enumerate(plan.options):
            if sum(heights[:i]) >= scroll + window:
                break
            if disabled:
                style = self.get_visual_style(component, "first-frame--disabled")
            elif i == plan.highlighted:
                style = self.get_visual_style(component, highlighted)
            else:
                style = base
            if style != run_style:
                flush()
                run_style = style
            run.append(Content.from_rich_text(prompt))
            if divider:
                flush()
                rule = self.get_visual_style(component, "first-frame--separator").rich_style
                lines.append(Strip([Segment("─" * text_width, rule)], text_width))
        flush()
        lines = lines[scroll:]  # as the list scrolls to its highlighted option (Textual's OptionList on show)
        bar = self._scrollbar(styles, window, virtual, scroll, base.rich_style) if text_width < inner_width else []

        def content(y: int, width: int) -> Strip | None:
            if y >= len(lines):
                line = Strip.blank(text_width, base.rich_style)
            else:
                line = lines[y]
            return Strip.join([line, bar[y]]) if bar else line

        return self._box(component, size, plan.title, plan.subtitle, content)

    def _heights(self, plan: ListPlan, width: int) -> list[int]:
        """Each option's lines at ``width`` (its separator's included), as Textual's OptionList counts them."""
        rules = cast("RulesMap", self.styles)  # as the OptionList reads its own
        return [Content.from_rich_text(p).get_height(rules, width) + d for p, _, d in plan.options]

    def _memory(self, size: Size) -> list[Strip]:
        style = self.get_visual_style("first-frame--pane")
        styles = self.get_component_styles("first-frame--pane")
        width = size.width - styles.gutter.width
        lines = self._content_lines(visualize(self, self.plan.memory(width)), width,
                                    size.height - styles.gutter.height, style)
        return self._box("first-frame--pane", size, self.plan.memory_title, "",
                         lambda y, w: lines[y] if y < len(lines) else None)

    def _form(self, size: Size, *, wide: bool = False) -> list[Strip]:
        """The first group's form; one taller than its place gets its scrollbar (right of the text, inside the
        padding) and its text wrapped beside it, as the real form (a VerticalScroll) has them."""
        styles = self.get_component_styles("first-frame--form")
        pad = styles.padding
        width = size.width - pad.width
        style = self.get_visual_style()
        muted, control = self.get_visual_style("first-frame--muted"), self.get_visual_style("first-frame--control")
        content = self.plan.form(width, muted, control, wide)
        bar: list[Strip] = []
        if len(content) > size.height:
            width -= styles.scrollbar_size_vertical
            content = self.plan.form(width, muted, control, wide)
            bar = self._scrollbar(styles, size.height, len(content), 0, style.rich_style)
        lines = self._content_lines(Content("\n").join(content), width, size.height, style)
        blank = style.rich_style
        return [self._filtered(Strip.join([Strip.blank(pad.left, blank), line, *bar[y:y + 1],
                                           Strip.blank(pad.right, blank)]), style.background)
                for y, line in enumerate(lines)]

    def _scrollbar(self, styles, window: int, virtual: int, position: int, fill: RichStyle) -> list[Strip]:
        """A vertical scrollbar of ``window`` rows for ``virtual`` lines scrolled to ``position``, in ``styles``'
        scrollbar colours over ``fill``, drawn by Textual's own scrollbar code."""
        back = styles.scrollbar_background
        if back.a < 1:
            back = self._screen_background() + back
        color = back + styles.scrollbar_color
        thickness = styles.scrollbar_size_vertical
        segments = ScrollBarRender.render_bar(window, virtual, window if window < virtual else 0, position,
                                              thickness, True, back.rich_color, color.rich_color)
        return [Strip(Segment.apply_style([s], fill), thickness) for s in segments.segments
                if s.text and s.text != "\n"]


def plan_options(options: Sequence[Option | None]) -> list[tuple[Text, bool, bool]]:
    """An option list's options (``None``: a separator under the option before it) as :class:`ListPlan` has them."""
    out: list[tuple[Text, bool, bool]] = []
    for option in options:
        if option is None:
            if out:
                out[-1] = (out[-1][0], out[-1][1], True)
            continue
        prompt = option.prompt  # the wizard's lists have rich Text prompts
        out.append((prompt if isinstance(prompt, Text) else Text(str(prompt)), option.disabled, False))
    return out


def _room(errors: bool, width: int, height: int) -> bool:
    """Whether ``width`` x ``height`` has room for the layout's panes (a row at least for the form, the explanation
    and the groups)."""
    if width >= WIDE_AT:
        return height - 2 - WIDE_FINDINGS_ROWS >= 3 and height - 2 - MEMORY_ROWS >= 3
    explanation, findings = ROWS[errors]
    return width >= SIDE + 20 and height - 2 - explanation - findings >= 1 and height - 2 - MEMORY_ROWS >= 3


def first_enabled(options: Sequence[tuple[Text, bool, bool]]) -> int | None:
    """The option a new list highlights (Textual's OptionList highlights its first enabled option)."""
    return next((i for i, (_, disabled, _) in enumerate(options) if not disabled), None)


def _virtual(plan: ListPlan, heights: list[int]) -> int:
    """The list's lines (a separator under the last option is not counted: Textual's OptionList)."""
    return sum(heights) - (1 if plan.options and plan.options[-1][2] else 0)


def _scroll_to(heights: list[int], highlighted: int | None, window: int, virtual: int) -> int:
    """Where a list of options ``heights`` tall scrolls to show its highlighted option (Textual's OptionList scrolls
    the least that brings it into its ``window`` rows, its top where it is taller)."""
    if highlighted is None:
        return 0
    top = sum(heights[:highlighted])
    height = min(heights[highlighted], window)
    scroll = 0 if top + height <= window else min(top, top - (window - height), key=abs)
    return max(0, min(scroll, virtual - window))
