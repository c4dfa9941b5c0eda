"""Launch, monitor, check and diagnose training runs (``--launch``, ``--rehearse`` and the TUI run screen).

Public API (nothing here imports torch, accelerate or deepspeed):

* :func:`plan.plan_launch` - answers -> run directory + :class:`launcher.LaunchSpec`
* :class:`launcher.Run` - async: ``start()``, ``events()`` / ``subscribe()``, ``stop()``, ``wait()``
* :func:`launcher.run_sync` - the same to completion in a fresh event loop (headless)
* :class:`monitor.Monitor` - output parser; :func:`checklist.compare`; :func:`diagnose.diagnose`
* :mod:`wizard.runtime` - the reporter training scripts import (separate, stdlib-only)
"""
