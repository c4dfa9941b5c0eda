"""The reference documents generated from the registries: :mod:`.rules` writes docs/rules.md."""
