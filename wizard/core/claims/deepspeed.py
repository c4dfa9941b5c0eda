"""Claims about deepspeed (see :mod:`wizard.core.claims`)."""
from __future__ import annotations

