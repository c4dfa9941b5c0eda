"""What a value must be, as the findings say it ("expects an integer", "Write true or false.", "expected an integer
from 1 to 65,535, or null"), and what a file's top level is ("the top level is a number (108)"):
:data:`wizard.core.ds_schema.EXPECTED` (a DeepSpeed JSON's values), :data:`wizard.core.answers.model.EXPECTED` (an
answers file's, keys ``answers.*``) and :data:`wizard.core.inputs.TOP_LEVEL` (keys ``top_level.*``), the one places
they are stated, translated in the part ``screen-values``. A finding's translated sentence carries them as computed
parts: :func:`wizard.core.localized.phrases.phrase` puts each through these words (``{options}``, ``{sign}``,
``{bound}``, ``{low}``, ``{high}``, ``{digits}`` and ``{value}`` filled in as they were; an ``{expected}`` is itself
one of these words).
"""
from __future__ import annotations

from ...answers.model import EXPECTED as ANSWERS_EXPECTED
from ...ds_schema import EXPECTED
from ...inputs import TOP_LEVEL

WORDS = {**EXPECTED, **{f"answers.{key}": english for key, english in ANSWERS_EXPECTED.items()},
         **{f"top_level.{key}": english for key, english in TOP_LEVEL.items()}}
