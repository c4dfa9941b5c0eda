"""No cyclic garbage collection while the wizard starts.

Start-up builds objects that live as long as the app (modules, classes, the widget tree, the catalogue);
a collection then finds nothing to free, yet Python runs one every 700 new objects, about 120 of them
(13-14 ms on these machines, sometimes a 10 ms full pass) before the first screen is on the terminal.
:func:`pause` is called by the ``fsdpds-wizard`` entry before the TUI is imported; :func:`resume`
once the first screen and the full check are done (or when the app ends before that). Collection is
then as usual. Only a pause started here is resumed here: a program that disabled the collector itself
(or the tests, which build many apps in one process) keeps its own setting.
"""
from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Stop automatic collection until :func:`resume` (nothing happens if it is off already)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Turn automatic collection back on if :func:`pause` turned it off."""
    global _paused
    if _paused:
        _paused = False
        gc.enable()


def paused() -> bool:
    return _paused
