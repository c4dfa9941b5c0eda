"""A bounded, searchable tail of a run's output that a flood cannot block.

Lines are *added* as fast as the run prints them (a deque append, nothing drawn) and *flushed* to the
screen by the owner's timer, at most a screenful of new lines per flush: however much a run prints,
one refresh costs about the same. The widget keeps the last ``keep`` lines for searching; everything
is in the run's ``log.txt`` anyway. The search box filters the tail to the lines that contain the
text (case-insensitive); Escape in the box clears it.
"""
from __future__ import annotations

import textwrap
from collections import deque
from collections.abc import Iterable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Log

from ...core import localized
from ...core.i18n import cells


class SearchInput(Input):
    BINDINGS = [Binding("escape", "clear_search", "Clear search", show=False)]

    def action_clear_search(self) -> None:
        self.value = ""
        parent = self.parent
        if parent is not None:
            parent.query_one(Log).focus()


class LogTail(Vertical):
    DEFAULT_CSS = """
    LogTail { height: 1fr; }
    LogTail > Log { height: 1fr; overflow-x: hidden; }
    LogTail > SearchInput { height: 1; border: none; padding: 0 1; }
    """

    def __init__(self, *, keep: int = 5000, shown: int = 1000, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: deque[str] = deque(maxlen=keep)
        """The last ``keep`` lines (what search looks through)."""
        self.shown = shown
        self._pending: deque[str] = deque(maxlen=shown)
        self._not_shown = 0
        self.query_text = ""
        self.total = 0
        """Every line added, kept or not."""
        self.following = True
        """The view follows the end (until the reader scrolls up); a flush with nothing new still catches up."""
        self._left_at = 0.0
        """Where the last scroll to the end left the view (the reader has scrolled when it is elsewhere)."""

    def compose(self) -> ComposeResult:
        yield Log(max_lines=self.shown, highlight=False, id="log-view")
        yield SearchInput(placeholder=localized.screen("run", "log_search"), id="log-search", compact=True)

    @property
    def log_view(self) -> Log:
        return self.query_one(Log)

    # ---------------------------------------------------------------- input (cheap, any rate)
    def add(self, lines: Iterable[str], skipped_before: int = 0) -> None:
        if skipped_before:
            self.add([localized.screen("run", "log_skipped", count=skipped_before)])
        lines = list(lines)
        self.total += len(lines)
        self.lines.extend(lines)
        q = self.query_text
        shown = [ln for ln in lines if q in ln.lower()] if q else lines
        overflow = len(self._pending) + len(shown) - self.shown
        if overflow > 0:
            self._not_shown += overflow
        self._pending.extend(shown)

    # ---------------------------------------------------------------- drawing (the owner's timer)
    def flush(self) -> None:
        log = self.log_view
        self.following = self._still_following(log)
        if not self._pending and not self._not_shown:
            # nothing new, but the end may have moved since the last scroll (the layout settled, the horizontal
            # scrollbar appeared with the first long line): the last lines of a finished run must be in view
            if self.following and log.scroll_y < log.max_scroll_y:
                self._to_end()
            return
        batch = list(self._pending)
        self._pending.clear()
        if self._not_shown:
            batch.insert(0, localized.screen("run", "log_not_shown", count=self._not_shown))
            self._not_shown = 0
        log.write_lines(self._wrapped(batch), scroll_end=False)
        if self.following:
            self._to_end()
            log.call_after_refresh(self._catch_up)  # scroll_end above used the size before the new lines
        self._update_subtitle()

    def _wrapped(self, lines: list[str]) -> list[str]:
        """``lines`` wrapped to the log's width (a long line goes on, indented, on the next rows), so that none is
        cut at the right edge. The lines kept for search stay whole."""
        width = self.log_view.scrollable_content_region.width
        if width < 20:  # no layout yet
            return lines
        out: list[str] = []
        for line in lines:
            if cells.width(line) <= width:
                out.append(line)
            elif cells.has_wide(line):  # Chinese: two cells a character, broken between characters
                out.extend(cells.wrap(line, width, subsequent_indent="  ") or [line])
            else:
                out.extend(textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False,
                                         drop_whitespace=False, replace_whitespace=False) or [line])
        return out

    def _still_following(self, log: Log) -> bool:
        """Follow the end unless the reader scrolled away from where the last flush left the view."""
        if log.is_vertical_scrollbar_grabbed:
            return False
        if log.scroll_y >= log.max_scroll_y:
            return True  # at the end (again)
        return self.following and log.scroll_y == self._left_at

    def _to_end(self) -> None:
        log = self.log_view
        log.scroll_end(animate=False, immediate=True, x_axis=False)
        self._left_at = log.scroll_y

    def _catch_up(self) -> None:
        if self._still_following(self.log_view):
            self._to_end()

    def _update_subtitle(self) -> None:
        if self.query_text:
            self.border_subtitle = localized.screen("run", "log_matching", count=self.log_view.line_count,
                                                    query=self.query_text)
        else:
            self.border_subtitle = localized.screen("run", "log_lines", count=f"{self.total:,}")

    @on(Input.Changed, "#log-search")
    def _search(self, event: Input.Changed) -> None:
        self.query_text = event.value.strip().lower()
        self._pending.clear()
        self._not_shown = 0
        q = self.query_text
        matches = [ln for ln in self.lines if q in ln.lower()] if q else list(self.lines)
        self.log_view.clear()
        self.log_view.write_lines(self._wrapped(matches[-self.shown:]))
        self._update_subtitle()

    def relanguage(self) -> None:
        """After the language changed: the search box's hint and the line count in the wizard's language."""
        self.query_one(SearchInput).placeholder = localized.screen("run", "log_search")
        if self.total or self.query_text:
            self._update_subtitle()

    def focus_search(self) -> None:
        self.query_one(SearchInput).focus()

    @property
    def visible_lines(self) -> list[str]:
        """The lines the log widget holds now (tests)."""
        return list(self.log_view.lines)
