"""Reading a message against a template's literal runs: the one scan behind the findings' templates
(:mod:`.messages`) and the libraries' own messages (:mod:`.parsers`). No imports: both of them, and what they
import, may use it."""
from __future__ import annotations


def scan(literals: list[str] | tuple[str, ...], names: list[str] | tuple[str, ...],
         message: str) -> dict[str, str] | None:
    """The parts of ``message`` between a template's literal runs (one more than its placeholder ``names``; the first
    and last open and close the message), name -> text, or None when it was not made from them. Each run after a
    placeholder is found at its leftmost place (what a lazy ``(.*?)`` would take): linear in the message, whatever it
    holds. A name that stands twice must take the same text both times."""
    if not names:
        return {} if message == literals[0] else None
    first, last = literals[0], literals[-1]
    end = len(message) - len(last)
    if end < len(first) or not message.startswith(first) or not message.endswith(last):
        return None
    values: dict[str, str] = {}
    pos = len(first)
    for i, name in enumerate(names):
        if i == len(names) - 1:
            value = message[pos:end]
        else:
            following = literals[i + 1]
            found = message.find(following, pos, end)
            if found < 0:
                return None
            value, pos = message[pos:found], found + len(following)
        if values.get(name, value) != value:
            return None
        values[name] = value
    return values
