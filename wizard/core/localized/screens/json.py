"""The JSON parser's own words (see :mod:`wizard.core.localized.screens`): what Python's json module says when an
input file is not valid JSON, as wizard/core/inputs.py shows it after ``not valid JSON (line N, column M):``. Each
key is the json module's message (``JSONDecodeError.msg``) as Python 3.11 to 3.14 word it: the C scanner's (the one
in use), and the pure-Python decoder's where it differs (its ``{0!r}`` written as ``{char}``: the character as
Python quotes it, kept as it is). :func:`wizard.core.localized.parsers.json_message` matches a message against them;
the line and column stay as the file has them."""
from __future__ import annotations

WORDS: dict[str, str] = {english: english for english in (
    "Expecting value",
    "Expecting property name enclosed in double quotes",
    "Expecting ':' delimiter",
    "Expecting ',' delimiter",
    "Extra data",
    "Unterminated string starting at",
    "Invalid control character at",
    "Invalid control character {char} at",
    "Invalid \\escape",
    "Invalid \\escape: {char}",
    "Invalid \\uXXXX escape",
    # Python 3.13 and newer
    "Illegal trailing comma before end of object",
    "Illegal trailing comma before end of array",
)}

SINCE: dict[str, tuple[int, int]] = {
    "Illegal trailing comma before end of object": (3, 13),
    "Illegal trailing comma before end of array": (3, 13),
}
"""The messages of a newer Python than the oldest the wizard runs on (the version that first says them)."""
