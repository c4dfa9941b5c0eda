"""The words of the wizard's other screens (review, run, memory, ...), one module per screen, each a ``WORDS`` dict
(key -> English, ``{name}`` placeholders filled in after translation), translated in the part ``screen-<name>``; and
of what the command line's libraries say (``cli``: argparse's and the number flags' errors, ``yaml``: PyYAML's
problems, ``json``: the json module's; matched by :mod:`wizard.core.localized.parsers`).

A screen reads them with :func:`wizard.core.localized.screen`; :func:`wizard.core.localized.sources` lists them for
the translations' tests and tool. Adding a screen: a module here and its name in :data:`SCREENS`.
"""
from __future__ import annotations

SCREENS = ("review", "run", "memory", "judged", "findings", "switch", "cli", "yaml", "json", "values",
           "presets")
"""The screens whose words live here (a module of that name each)."""


def words(name: str) -> dict[str, str]:
    """The English words of the screen ``name`` (its module's ``WORDS``)."""
    from importlib import import_module

    return import_module(f"{__name__}.{name}").WORDS
