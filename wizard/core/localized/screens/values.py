"""What a DeepSpeed JSON's value must be, as the schema check says it inside a finding ("expects an integer",
"Write true or false."): :data:`wizard.core.ds_schema.EXPECTED`, the one place they are stated, translated in the part
``screen-values``. A finding's translated sentence carries them as computed parts:
:func:`wizard.core.localized.phrases.phrase` puts each through these words (``{options}``, ``{sign}`` and ``{bound}``
filled in as they were).
"""
from __future__ import annotations

from ...ds_schema import EXPECTED

WORDS = dict(EXPECTED)
