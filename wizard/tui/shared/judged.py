"""The library versions the wizard judges the answers for, and where each one comes from (no Textual).

By default the versions the wizard's knowledge was verified against (``wizard/core/versions.py``). The
``--accelerate-version``, ``--deepspeed-version`` and ``--transformers-version`` flags name others, read by the
command line as ``--headless`` reads them. The command palette switches to the libraries installed here, or back to
the verified versions (or to the flags' versions), until the wizard exits. Every live check, the review and the
written files follow the choice; a rehearsal (F5) and a launch (ctrl+l) judge for the installed libraries whatever
is chosen, since the run uses them (``wizard/run/plan.py``).

The words are in the wizard's language (:mod:`wizard.core.localized.screens.judged`, part ``screen-judged``), with
those of the palette's entries Textual adds itself (:func:`translated_command`).
"""
from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property

from ...core import localized
from ...core.context import LIBRARIES, SOURCE_ASSUMED, SOURCE_FLAG, SOURCE_INSTALLED, Context, make_context
from ...core.localized.screens.judged import TEXTUAL_KEYS, WORDS
from ...core.recordclass import field, record

VERIFIED = "verified"
GIVEN = "given"
INSTALLED = "installed"
MODE_LABELS = {mode: WORDS[f"mode_{mode}"] for mode in (VERIFIED, GIVEN, INSTALLED)}
"""What each choice is called (the palette's "Judge for ..." entries say it), in English: :func:`mode_label`."""
MODE_HELP = {mode: WORDS[f"help_{mode}"] for mode in (VERIFIED, GIVEN, INSTALLED)}
"""What each choice judges for, in the palette's help line, in English: :func:`palette_entry`."""

RUN_NOTE = WORDS["run_note"]


def _say(key: str, **values: object) -> str:
    return localized.screen("judged", key, None, **values)


def mode_label(mode: str) -> str:
    """What the choice ``mode`` is called, in the wizard's language."""
    return _say(f"mode_{mode}")


def palette_entry(mode: str, now: str) -> tuple[str, str]:
    """The palette's entry that switches to ``mode`` while ``now`` is chosen: its title and its help line."""
    return (_say("judge_for", mode=mode_label(mode)),
            _say("judge_for_help", what=_say(f"help_{mode}"), now=mode_label(now)))


def switched_note(judged: Judged) -> str:
    """The notification after a switch: what is judged for now."""
    return _say("judged_now", text=judged.text())


def help_line(judged: Judged) -> str:
    """The help's line: what is judged for, and how to switch."""
    return judged.text() + " " + _say("help_switch", judge_for=_say("judge_for", mode="..."))


def translated_command(command):
    """One of the palette's entries Textual adds (``App.get_system_commands``: a ``SystemCommand``) with its title
    and help in the wizard's language; as it is where Textual's English is not known here."""
    title, help_ = (_say(TEXTUAL_KEYS[w]) if w in TEXTUAL_KEYS else w for w in (command.title, command.help))
    return command._replace(title=title, help=help_)


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
        default`` (``not installed: verified default`` where the installed libraries were asked for); in the wizard's
        language, the flag as written."""
        return self._source_words(self._source_kind(lib))

    def _source_kind(self, lib: str) -> str:
        """``--LIB-version``, ``installed``, ``not_installed`` or ``verified``."""
        src = self.context.version_sources.get(lib, SOURCE_ASSUMED)
        if src == SOURCE_FLAG:
            return f"--{lib}-version"
        if src == SOURCE_INSTALLED:
            return "installed"
        return "not_installed" if self.mode == INSTALLED else "verified"

    @staticmethod
    def _source_words(kind: str) -> str:
        return kind if kind.startswith("--") else _say(f"source_{kind}")

    def versions_text(self) -> str:
        """The versions by source, the flags' first: ``transformers 5.0.0 (--transformers-version); accelerate
        1.15.0, deepspeed 0.19.8, torch 2.13.0 (verified default)``."""
        by_source: dict[str, list[str]] = {}
        for lib in LIBRARIES:
            by_source.setdefault(self._source_kind(lib), []).append(f"{lib} {self.context.versions.get(lib)}")
        order = sorted(by_source, key=lambda src: (not src.startswith("--"), src != "installed"))
        return "; ".join(_say("by_source", versions=", ".join(by_source[src]), source=self._source_words(src))
                         for src in order)

    def text(self) -> str:
        """A few words for the review's findings, the help and the palette's switch: what is judged for, and what
        a run judges for."""
        if self.mode == VERIFIED:
            versions = ", ".join(f"{lib} {self.context.versions.get(lib)}" for lib in LIBRARIES)
            return _say("judged_verified", versions=versions, run_note=_say("run_note"))
        return _say("judged", versions=self.versions_text(), run_note=_say("run_note"))


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
