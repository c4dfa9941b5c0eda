"""``--verify``: the written files replayed through the installed accelerate and deepspeed, value by value.

- :mod:`.roundtrip`: load the config as ``accelerate launch`` does, build the plugins (and DeepSpeed's own config)
  in a sandboxed process state, and read back what the libraries really use (:class:`Effective`,
  :func:`flatten_effective`); :func:`compare` turns differences into findings. It is the face of the modules that
  do it: :mod:`.replay` (the stages), :mod:`.deepspeed_fill` (DeepSpeed's "auto" values filled),
  :mod:`.readback` (the built objects as plain values), :mod:`.guards` (the process state kept and restored),
  :mod:`.stubs` (what stands in for the model, the Accelerator and the process group) and :mod:`.comparison`
  (flattening and comparing values).
- :mod:`.answers`: what the answers say each of those values must be (from the catalogue), and the check of a
  generated folder against it (``--headless --verify``).
- :mod:`.keys`: which YAML keys reach the libraries, to tell a value never read from one read differently.

Importing this package loads no library: they are imported inside the functions that need them.
"""
from __future__ import annotations

from .roundtrip import _SOURCE, Effective, compare, effective_config, flatten_effective, values_equal

__all__ = ["Effective", "compare", "effective_config", "flatten_effective", "values_equal", "_SOURCE"]
