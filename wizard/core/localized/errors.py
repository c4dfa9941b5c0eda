"""What the command line and the wizard's own start print for an error, in the language: a usage error's sentence,
an unusable file's path kept and its ``what`` and ``fix`` translated each, a number flag's error, an error that says
itself (``in_language()``). English: the message as it is, no translation read."""
from __future__ import annotations

import sys
from typing import Any


def error_words(exc: BaseException) -> str:
    """A usage error or an unusable input as main prints it, in the language: its sentence's translation
    (wizard.core.localized, templates of part messages-errors) with flags, values and paths as given; an input
    error's path kept and its ``what`` and ``fix`` translated each; a ``FLAG VALUE: REASON`` whose whole has no
    translation gets its reason's; a number flag's (wizard.core.localized.parsers) with its value and limits as typed;
    an error with an ``in_language()`` (argparse's own, a config with errors) says itself. In English the message as
    it is (no translation read)."""
    from ..i18n import ENGLISH, language

    lang = language()
    if lang == ENGLISH:
        return str(exc)
    own = getattr(exc, "in_language", None)  # an error that says itself (argparse's, a config with errors)
    if callable(own):
        return own()
    bounds = sys.modules.get("wizard.core.bounds")
    if bounds is not None and isinstance(exc.__cause__, bounds.NumberError) \
            and str(exc).endswith(f" {exc.__cause__}"):  # --headroom 5: too large; give ...
        from .parsers import number_error

        return f"{str(exc).removesuffix(str(exc.__cause__))}{number_error(exc.__cause__, lang)}"
    from . import said as in_language  # (not a said(...) the templates' reader reads)

    inner = exc.__context__  # a flag's file that cannot be used: "--training-args " + the input error as it says
    if is_input_error(exc) or (is_input_error(inner) and (str(exc) == str(inner) or str(exc).endswith(f" {inner}"))):
        from ..i18n.cells import has_wide

        error: Any = exc if is_input_error(exc) else inner  # an InputError (its module is not imported here)
        path, what, fix = error.path, in_language(error.what), in_language(error.fix)
        return f"{str(exc).removesuffix(str(error))}{path}: {what}{'；' if has_wide(what) else '; '}{fix}"
    text = str(exc)
    words = in_language(text)
    if words == text and ": " in text:
        head, _, reason = text.partition(": ")
        words = f"{head}: {in_language(reason)}"
    return words


def is_input_error(exc: BaseException | None) -> bool:
    """Whether ``exc`` is core/inputs.py's InputError. Only a command that read a file can raise one, and it has
    imported that module by then: a start that reads none does not import it for this test."""
    inputs = sys.modules.get("wizard.core.inputs")
    return inputs is not None and isinstance(exc, inputs.InputError)
