"""Answers: the user's intent, the files they are written as and read from, and what the wizard says about them.

- :mod:`.model`: :class:`Answers`, the answers.yaml format (parse, coerce, dump) and its native-name hints.
- :mod:`.schema`: the answers.yaml JSON Schema and Markdown reference, derived from the catalogue.
- :mod:`.render`: answers -> the accelerate YAML and DeepSpeed JSON dicts; :mod:`.multinode` (each machine's command,
  the hostfile) and :mod:`.slurm` (the batch script) beside it.
- :mod:`.importer`: an existing accelerate config (and its DeepSpeed JSON) -> answers; :mod:`.imported`: a config
  imported *and* checked, as the TUI's ``--config`` start shows it.
- :mod:`.rules`: the answer rules (cross-setting checks, what cannot carry over to the chosen target).
- :mod:`.generate`: answers -> findings + the exact file texts; :mod:`.convert`: answers for another target.
The package itself exports the model only; the other modules are imported by name (``rules`` needs the renderer,
which needs the model). docs/architecture.md places the folder among the others.
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
