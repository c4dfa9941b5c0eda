"""The round trip's public face: the names ``--verify`` and the tests import (the code is in :mod:`.replay`)."""
from __future__ import annotations

from .replay import _SOURCE, Effective, compare, effective_config, flatten_effective, values_equal

__all__ = ["Effective", "compare", "effective_config", "flatten_effective", "values_equal", "_SOURCE"]
