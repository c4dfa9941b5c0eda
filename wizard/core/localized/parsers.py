"""What the libraries the command line stands on say, in the language: argparse's errors, the number flags' errors
PyYAML's problems and the json module's (their English in :mod:`.screens.cli`, :mod:`.screens.yaml` and
:mod:`.screens.json`, translated in the parts ``screen-cli``, ``screen-yaml`` and ``screen-json``).

Each English template (``invalid choice: {value} (choose from {choices})``) is matched against the message by a
left-to-right scan (each literal run found at its leftmost place after the one before, the first and the last opening
and closing the message: linear in the message, whatever the user typed); the parts it leaves (the value, the choices,
an option's name, a quoted character) go into the translation as they are. A message no template matches stays
English. Nothing here is imported at start: only an error printed in another language loads it.
"""
from __future__ import annotations

from functools import cache

from ..i18n import ENGLISH

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from ..bounds import NumberError


@cache
def _pieces(template: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The literal runs of a ``{name}`` template (one more than its placeholders) and the placeholders' names."""
    from string import Formatter

    literals, names, run = [], [], ""
    for literal, name, _spec, _conversion in Formatter().parse(template):
        run += literal
        if name is not None:
            literals.append(run)
            names.append(name)
            run = ""
    literals.append(run)
    return tuple(literals), tuple(names)


def match(template: str, message: str) -> dict[str, str] | None:
    """The parts of ``message`` if it was made from ``template`` (name -> text as written), else None."""
    from .matching import scan

    literals, names = _pieces(template)
    return scan(literals, names, message)


def _say(part: str, key: str, lang: str, **values: str) -> str:
    """The words under ``key`` of the screen ``part`` (``cli``, ``yaml``) in the language, filled in (what
    :func:`wizard.core.localized.screen` does, without importing the package that imports this module)."""
    from ..i18n import filled
    from .screens import words

    return filled(f"screen-{part}", key, words(part)[key], lang, **values)


def _first_match(words: dict[str, str], keys, message: str) -> tuple[str, dict[str, str]] | None:
    """The key whose English matches ``message`` (the one with the most literal words where several do)."""
    found = [(key, values) for key in keys if (values := match(words[key], message)) is not None]
    if not found:
        return None
    return max(found, key=lambda kv: sum(len(x) for x in _pieces(words[kv[0]])[0]))


# ----------------------------------------------------------------------------------------------------------------
# argparse
# ----------------------------------------------------------------------------------------------------------------
def argparse_message(message: str, lang: str) -> str:
    """An argparse error message (``argument --format: invalid choice: 'xml' (choose from 'text', 'json')``,
    ``unrecognized arguments: --x``) in the language; the English where nothing matches."""
    if lang == ENGLISH:
        return message
    from .screens.cli import WORDS

    def say(key: str, **values: str) -> str:
        return _say("cli", key, lang, **values)

    def inner(text: str) -> str:
        keys = [k for k in WORDS if k.startswith("argparse.") and k != "argparse.argument"] + ["not_a_language"]
        found = _first_match(WORDS, keys, text)
        return say(found[0], **found[1]) if found else text

    around = match(WORDS["argparse.argument"], message)
    if around is not None:
        return say("argparse.argument", argument=around["argument"], message=inner(around["message"]))
    return inner(message)


def parser_error(prefix: str, message: str, see: str, lang: str) -> str:
    """The command line's line for an argparse error: ``check: `` (``prefix``), the message in the language, and
    where the options are (``see``)."""
    if lang == ENGLISH:
        return f"{prefix}{message} (options: {see})"

    return prefix + _say("cli", "options", lang, message=argparse_message(message, lang), see=see)


# ----------------------------------------------------------------------------------------------------------------
# numbers
# ----------------------------------------------------------------------------------------------------------------
def number_error(exc: NumberError, lang: str) -> str:
    """``str(exc)`` (``5: too large; give the fraction of GPU memory to keep free, from 0 up to (not including) 1
    (e.g. 0.1)``) in the language: the value and the limits as written."""
    if lang == ENGLISH:
        return str(exc)
    from ..bounds import NUMBERS
    from .screens.cli import WORDS

    def say(key: str, **values: str) -> str:
        return _say("cli", key, lang, **values)

    bound = NUMBERS[exc.name]
    low, high = bound.limits()
    where = say(f"number.range.{bound.range_form()}", low=low, high=high)
    if bound.example:
        where = say("number.range_example", range=where, example=_example(bound.example, say))
    problem = f"number.problem.{exc.problem}"
    return say("number", shown=exc.shown, problem=say(problem) if problem in WORDS else exc.problem,
               what=say(f"number.what.{exc.name}"), range=where)


def _example(example: str, say) -> str:
    """A bound's example (``e.g. 80``, ``8030261248, 8e9, 8B or 350M``) in the language."""
    from .screens.cli import WORDS

    for key in ("number.example", "number.example_or"):
        values = match(WORDS[key], example)
        if values is not None:
            return say(key, **values)
    return example


# ----------------------------------------------------------------------------------------------------------------
# PyYAML
# ----------------------------------------------------------------------------------------------------------------
def yaml_problem(text: str, lang: str) -> str | None:
    """``text`` holding ``not valid YAML (line N, column M): PROBLEM`` (after a path, say) in the language, the text
    before it as it is; None when it holds none, or PyYAML's problem is not one of :mod:`.screens.yaml`'s."""
    from .screens.yaml import AROUND, WORDS

    start = text.rfind("not valid YAML (line ")
    if lang == ENGLISH or start < 0:
        return None
    around = match(AROUND, text[start:])
    if around is None:
        return None
    found = _first_match(WORDS, [k for k in WORDS if k != AROUND], around["problem"])
    if found is None:
        return None
    problem = _say("yaml", found[0], lang, **found[1])
    return text[:start] + _say("yaml", AROUND, lang, line=around["line"], column=around["column"],
                               problem=problem)


# ----------------------------------------------------------------------------------------------------------------
# json
# ----------------------------------------------------------------------------------------------------------------
def json_message(text: str, lang: str) -> str | None:
    """The json module's message (``Expecting ',' delimiter``: ``JSONDecodeError.msg``, one of
    :mod:`.screens.json`'s) in the language, a quoted character as it is; None for any other text, and for
    English."""
    if lang == ENGLISH or not text:
        return None
    from .screens.json import WORDS

    if text in WORDS:
        return _say("json", text, lang)
    found = _first_match(WORDS, [k for k in WORDS if "{" in k], text)
    return _say("json", found[0], lang, **found[1]) if found is not None else None
