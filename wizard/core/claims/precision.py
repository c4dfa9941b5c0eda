"""Claims about precision (see :mod:`wizard.core.claims`)."""
from __future__ import annotations

