"""The shape of a claim: one fact about what a library does, with its evidence."""
from __future__ import annotations

from dataclasses import dataclass

DEMONSTRATED = "demonstrated"
"""Evidence kind: a test in tests/claims/ runs the installed library on CPU and shows the fact."""
READ_FROM_CODE = "read from code"
"""Evidence kind: the fact can only be read from the library code (it needs a GPU, several machines, ...)."""


@dataclass(frozen=True)
class Claim:
    id: str
    """Kebab-case, stable: texts, settings and rules cite it (``claims=("fsdp2-no-autocast",)``)."""
    says: str
    """The fact, in our words, one or two sentences."""
    doc: str
    """The section of docs/library-behaviour.md that explains it (an anchor, without ``#``)."""
    code: str
    """Where the libraries decide it: ``accelerate/accelerator.py:1676-1681; torch/...`` (paths relative to
    site-packages), for the versions in ``wizard.core.versions.VERIFIED_AGAINST``."""
    demo: str = ""
    """The test that demonstrates it: ``tests/claims/test_precision.py::test_fsdp2_adds_no_autocast``; "" when it
    can only be read from the code (then :attr:`why_not_demo` says why)."""
    why_not_demo: str = ""
    """Why no CPU test can show it (needs CUDA kernels, several machines, ...)."""
    scope: tuple[str, ...] = ()
    """The cases the sentence covers, each a short id (``zero-0``, ``zero-1``, ``own-loop``, ``trainer``,
    ``frozen``, ``trainable``, ``fsdp1``, ``fsdp2``): the demonstrating test is parametrized over them, one test id
    per case (tests/unit/test_claims.py checks it), so a sentence cannot be wider than its test. Every claim states
    one (a read-from-code claim too: stated, not checked)."""

    @property
    def evidence(self) -> str:
        return DEMONSTRATED if self.demo else READ_FROM_CODE
