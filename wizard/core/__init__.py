"""The pure domain of fsdpds-wizard.

Nothing in this package imports textual, torch, accelerate or deepspeed at import time; modules that
need the heavy libraries (``verify``) import them inside functions.
"""
