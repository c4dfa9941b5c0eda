"""The library versions the wizard judges the answers for, and where each one comes from (no Textual).

By default the versions the wizard's knowledge was verified against (``wizard/core/versions.py``). The
``--accelerate-version``, ``--deepspeed-version`` and ``--transformers-version`` flags name others, read by the
command line as ``--headless`` reads them. The command palette switches to the libraries installed here, or back to
the verified versions (or to the flags' versions), until the wizard exits. Every live check, the review and the
written files follow the choice; a rehearsal (F5) and a launch (ctrl+l) judge for the installed libraries whatever
is chosen, since the run uses them (``wizard/run/plan.py``).
"""
from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property

from ...core.context import LIBRARIES, SOURCE_ASSUMED, SOURCE_FLAG, SOURCE_INSTALLED, Context, make_context
from ...core.recordclass import field, record

VERIFIED = "verified"
GIVEN = "given"
INSTALLED = "installed"
MODE_LABELS = {VERIFIED: "the verified versions", GIVEN: "the versions given on the command line",
               INSTALLED: "the installed libraries"}
"""What each choice is called (the palette's "Judge for ..." entries say it)."""
MODE_HELP = {VERIFIED: "the versions the wizard's knowledge was verified against",
             GIVEN: "the --accelerate/--deepspeed/--transformers-version flags' versions",
             INSTALLED: "accelerate, deepspeed, transformers and torch as installed here, which F5 and ctrl+l use"}
"""What each choice judges for, in the palette's help line."""

RUN_NOTE = "F5 and ctrl+l judge for the installed ones (the run uses them)."


@record(frozen=True)
class Judged:
    """One choice of versions: ``mode`` (VERIFIED, GIVEN or INSTALLED) and the command line's versions (``given``,
    library -> version; empty without flags, kept to switch back to them)."""

    mode: str
    given: Mapping[str, str] = field(default_factory=dict)

    @cached_property
    def context(self) -> Context:
        """The versions judged for and their sources; worked out when first asked for (after the first paint)."""
        if self.mode == INSTALLED:
            return make_context()  # read from the packages' metadata; not installed: the verified version
        return make_context(flags=self.given if self.mode == GIVEN else {}, installed={})

    @property
    def versions(self) -> dict[str, str | None] | None:
        """What ``generate(versions=)`` takes: the versions given or installed; None for the verified ones."""
        return self.context.stated_versions() or None

    def switched(self, mode: str) -> Judged:
        return judged_for(mode, self.given)

    def offers(self) -> list[str]:
        """The choices the palette offers besides this one (the flags' versions only where flags were given)."""
        modes = [INSTALLED, VERIFIED] + ([GIVEN] if self.given else [])
        return [m for m in modes if m != self.mode]

    def source(self, lib: str) -> str:
        """Where ``lib``'s version comes from, in words: ``--transformers-version``, ``installed``, ``verified
        default`` (``not installed: verified default`` where the installed libraries were asked for)."""
        src = self.context.version_sources.get(lib, SOURCE_ASSUMED)
        if src == SOURCE_FLAG:
            return f"--{lib}-version"
        if src == SOURCE_INSTALLED:
            return "installed"
        return "not installed: verified default" if self.mode == INSTALLED else "verified default"

    def versions_text(self) -> str:
        """The versions by source, the flags' first: ``transformers 5.0.0 (--transformers-version); accelerate
        1.15.0, deepspeed 0.19.8, torch 2.13.0 (verified default)``."""
        by_source: dict[str, list[str]] = {}
        for lib in LIBRARIES:
            by_source.setdefault(self.source(lib), []).append(f"{lib} {self.context.versions.get(lib)}")
        order = sorted(by_source, key=lambda src: (not src.startswith("--"), src != "installed"))
        return "; ".join(f"{', '.join(by_source[src])} ({src})" for src in order)

    def text(self) -> str:
        """A few words for the review's findings, the help and the palette's switch: what is judged for, and what
        a run judges for."""
        if self.mode == VERIFIED:
            judged = "the verified versions: " + ", ".join(f"{lib} {self.context.versions.get(lib)}"
                                                           for lib in LIBRARIES)
        else:
            judged = self.versions_text()
        return f"Judged for {judged}. {RUN_NOTE}"


def judged_for(mode: str = VERIFIED, given: Mapping[str, str | None] | None = None) -> Judged:
    """The versions of one choice. ``given``: the command line's versions (kept, to switch back to them)."""
    named = {lib: str(v) for lib, v in (given or {}).items() if v}
    if mode == GIVEN and not named:
        mode = VERIFIED
    return Judged(mode, named)


def judged_from_context(context: Context | None) -> Judged:
    """The choice the command line made: the flags' versions (``--transformers-version 5.0.0``) where
    ``commands/common.judged_context`` found any, else the verified versions."""
    if context is None:
        return judged_for(VERIFIED)
    given = {lib: context.versions[lib] for lib in LIBRARIES
             if context.version_sources.get(lib) == SOURCE_FLAG and context.versions.get(lib)}
    return judged_for(GIVEN, given)
