"""The pure domain of fsdpds-wizard.

Nothing in this package imports textual, torch, accelerate or deepspeed at import time; modules that
need the heavy libraries (``verify``) import them inside functions.

Its loose modules (``vocab``, ``findings``, ``rules``, ``context``, ``inputs``, ...) are its ground floor: they import
none of its subpackages, and every part may import them (docs/architecture.md).
"""
