"""The command line's own words that come from elsewhere (see :mod:`wizard.core.localized.screens`): argparse's
errors, the number flags' errors (:mod:`wizard.core.bounds`) and the ``--lang`` value error.
:mod:`wizard.core.localized.parsers` matches the English and says it in the language; option names, values, choices
and numbers stay as typed.

The ``argparse.*`` entries are argparse's own message templates (Python 3.11's, the same in 3.12 and 3.13; 3.14's
"maybe you meant" too) with its ``%(value)r`` / ``%s`` written as ``{name}``: :data:`ARGPARSE` keeps each one's
argparse spelling, so that a test can hold them to the installed argparse."""
from __future__ import annotations

from ...bounds import NUMBERS, PROBLEMS, RANGES

ARGPARSE: dict[str, str] = {
    "argparse.argument": "argument %(argument_name)s: %(message)s",
    "argparse.invalid_choice": "invalid choice: %(value)r (choose from %(choices)s)",
    "argparse.invalid_choice_closest": "invalid choice: %(value)r, maybe you meant %(closest)r? (choose from "
                                       "%(choices)s)",
    "argparse.expected_one": "expected one argument",
    "argparse.expected_at_most_one": "expected at most one argument",
    "argparse.expected_at_least_one": "expected at least one argument",
    "argparse.expected_count": "expected %s argument",
    "argparse.expected_counts": "expected %s arguments",
    "argparse.required": "the following arguments are required: %s",
    "argparse.one_required": "one of the arguments %s is required",
    "argparse.unrecognized": "unrecognized arguments: %s",
    "argparse.not_allowed_with": "not allowed with argument %s",
    "argparse.ignored_explicit": "ignored explicit argument %r",
    "argparse.ambiguous": "ambiguous option: %(option)s could match %(matches)s",
    "argparse.invalid_type": "invalid %(type)s value: %(value)r",
    "argparse.unexpected_option": "unexpected option string: %s",
}
"""Key -> argparse's own template (``_('...')`` in argparse.py), from which the English below is written."""

WORDS: dict[str, str] = {
    # argparse's errors: "argument --format: invalid choice: 'xml' (choose from 'text', 'json')"
    "argparse.argument": "argument {argument}: {message}",
    "argparse.invalid_choice": "invalid choice: {value} (choose from {choices})",
    "argparse.invalid_choice_closest": "invalid choice: {value}, maybe you meant {closest}? (choose from {choices})",
    "argparse.expected_one": "expected one argument",
    "argparse.expected_at_most_one": "expected at most one argument",
    "argparse.expected_at_least_one": "expected at least one argument",
    "argparse.expected_count": "expected {count} argument",
    "argparse.expected_counts": "expected {count} arguments",
    "argparse.required": "the following arguments are required: {names}",
    "argparse.one_required": "one of the arguments {names} is required",
    "argparse.unrecognized": "unrecognized arguments: {names}",
    "argparse.not_allowed_with": "not allowed with argument {other}",
    "argparse.ignored_explicit": "ignored explicit argument {value}",
    "argparse.ambiguous": "ambiguous option: {option} could match {matches}",
    "argparse.invalid_type": "invalid {type} value: {value}",
    "argparse.unexpected_option": "unexpected option string: {option}",
    # the wizard's words around them (wizard/cli.py: _Parser.error, _language)
    "options": "{message} (options: {see})",
    "not_a_language": "{value} is not a language of the wizard; use one of {languages} ({names})",
    # a number flag's error (wizard.core.bounds.NumberError): "--headroom 5: too large; give ..., from 0 ..."
    "number": "{shown}: {problem}; give {what}, {range}",
    "number.range_example": "{range} ({example})",
    "number.example": "e.g. {value}",
    "number.example_or": "{values} or {last}",
    **{f"number.problem.{problem}": problem for problem in PROBLEMS},
    **{f"number.range.{form}": words for form, words in RANGES.items()},
    **{f"number.what.{name}": bound.what for name, bound in NUMBERS.items()},
}
"""Key -> the English words."""
