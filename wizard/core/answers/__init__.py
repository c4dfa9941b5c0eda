"""Answers: the user's intent, and everything that reads or checks it.

- :mod:`.model`: :class:`Answers`, the answers.yaml format (parse, coerce, dump) and its native-name hints.
- :mod:`.rules`: the answer rules (cross-setting checks, what cannot carry over to the chosen target).
- :mod:`.schema`: the answers.yaml JSON Schema and Markdown reference, derived from the catalogue.
- :mod:`.importer`: an existing accelerate config (and its DeepSpeed JSON) -> answers.
- :mod:`.imported`: a config imported *and* checked, as the TUI's ``--config`` start shows it.

The package itself exports the model only; the other modules are imported by name (``rules`` needs the renderer,
which needs the model).
"""
from __future__ import annotations

from .model import (
    SCHEMA_VERSION,
    Answers,
    AnswersError,
    answers_from_mapping,
    coerce_value,
    default_answers,
    dump_answers,
    load_answers_file,
    native_hint,
    number_text,
    parse_answers_text,
    range_text,
)

__all__ = [
    "SCHEMA_VERSION", "Answers", "AnswersError", "answers_from_mapping", "coerce_value", "default_answers",
    "dump_answers", "load_answers_file", "native_hint", "number_text", "parse_answers_text", "range_text",
]
