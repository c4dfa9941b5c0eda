"""Undo and redo of the answers (ctrl+z, ctrl+y). No Textual here.

A step is the state before one change and what the change was, in words ("switch to DeepSpeed ZeRO"). Successive
edits of one field (a number typed digit by digit) are one step: undo takes the field back to where it was before
the typing began. The words may be a function that says them when they are shown, in the language of that moment
(the language may be switched between a change and its undo: issue 27).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

from ...core.recordclass import record

if TYPE_CHECKING:
    from collections.abc import Callable

    Words = str | Callable[[], str]
    """What a change was: the words, or a function that says them in the current language."""

State = TypeVar("State")

LIMIT = 200
"""The oldest steps are forgotten beyond this many."""


@record(frozen=True)
class Step(Generic[State]):
    state: State
    """Undo: the state before the change. Redo: the state after it."""
    what: Words
    """The change in a few words, for the message that says what was undone: the words, or a function that says them
    (called when they are shown: :attr:`words`)."""

    @property
    def words(self) -> str:
        """What the change was, said now (in the language of the moment)."""
        return self.what() if callable(self.what) else self.what


class History(Generic[State]):
    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._undo: list[Step[State]] = []
        self._redo: list[Step[State]] = []
        self._joinable: str | None = None
        """The field whose edits join the last step (None after any other change, an undo or a redo)."""

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def record(self, before: State, what: Words, field: str | None = None) -> None:
        """A change is about to be made from ``before``; ``what`` says what it is (a function: when it is shown).
        ``field``: the change is an edit of that field, and further edits of the same field join this step."""
        self._redo.clear()
        if field is not None and field == self._joinable and self._undo:
            return
        self._undo.append(Step(before, what))
        del self._undo[:-self.limit]
        self._joinable = field

    def undo(self, current: State) -> Step[State] | None:
        """The step to go back to (its state is the one before the change), or None; ``current`` becomes redoable."""
        if not self._undo:
            return None
        step = self._undo.pop()
        self._redo.append(Step(current, step.what))
        self._joinable = None
        return step

    def redo(self, current: State) -> Step[State] | None:
        """The step to go forward to (its state is the one after the change), or None; ``current`` becomes undoable
        again."""
        if not self._redo:
            return None
        step = self._redo.pop()
        self._undo.append(Step(current, step.what))
        self._joinable = None
        return step
