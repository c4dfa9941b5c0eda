"""The user's context that decides what a config does: who drives training, and which library versions run it.

A DeepSpeed JSON means different things under the Hugging Face Trainer (transformers' Trainer/Seq2SeqTrainer, TRL's
trainers and the projects built on them, which fill most "auto" values from TrainingArguments and refuse concrete
values that disagree with them) and under an own Accelerator loop (accelerate fills fewer values, and the optimizer
and scheduler blocks need DummyOptim/DummyScheduler). Some knowledge also holds only for some library versions.

``Context`` carries both. ``loop`` is ``"hf"``, ``"accelerate"`` or None (unknown: rules whose outcome depends on
the loop say what happens in each case, as warnings). ``versions`` maps a library to the version judged for and
``version_sources`` says where it came from (``flag``, ``installed``, ``assumed``: the version the wizard's
knowledge was verified against, when the library is not installed here and no flag names one).

Stdlib only; installed versions come from package metadata (``importlib.metadata``), never from importing them.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from .recordclass import field, record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

LOOP_HF = "hf"
LOOP_ACCELERATE = "accelerate"
LOOPS = (LOOP_HF, LOOP_ACCELERATE)
LOOP_LABELS = {LOOP_HF: "the Hugging Face Trainer", LOOP_ACCELERATE: "an own Accelerator loop",
               None: "an unknown training loop"}

LIBRARIES = ("accelerate", "deepspeed", "transformers", "torch")
"""The libraries whose versions decide what a config does (the keys of ``Context.versions``)."""

SOURCE_FLAG = "flag"
SOURCE_INSTALLED = "installed"
SOURCE_ASSUMED = "assumed"

_RELEASE = re.compile(r"^\s*v?(\d+(?:\.\d+)*)")
_SPEC = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(\S+)\s*$")


class VersionError(ValueError):
    """A version or version range that cannot be read."""


def parse_version(text: str) -> tuple[int, ...]:
    """The release numbers of a version string (``"0.19.8"`` -> (0, 19, 8); ``"2.13.0+cpu"`` -> (2, 13, 0);
    ``"1.6.0.dev0"`` -> (1, 6, 0)). Raises VersionError when it does not start with a number."""
    m = _RELEASE.match(str(text))
    if not m:
        raise VersionError(f"{text!r} is not a version (expected numbers like 0.19.8)")
    return tuple(int(p) for p in m.group(1).split("."))


def _cmp(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    n = max(len(a), len(b))
    a2, b2 = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
    return (a2 > b2) - (a2 < b2)


def check_spec(spec: str) -> None:
    """Raise VersionError unless ``spec`` is a comma-separated list of ``>=X``, ``<X``, ``<=X``, ``>X``, ``==X``,
    ``!=X`` (or empty)."""
    for part in filter(None, (p.strip() for p in spec.split(","))):
        m = _SPEC.match(part)
        if not m:
            raise VersionError(f"{part!r} is not a version condition (use e.g. >=0.16.0 or <1.6)")
        parse_version(m.group(2))


def in_spec(version: str, spec: str) -> bool:
    """Whether ``version`` satisfies every condition of ``spec`` (``">=1.6.0,<1.10"``); an empty spec holds for all."""
    v = parse_version(version)
    for part in filter(None, (p.strip() for p in spec.split(","))):
        m = _SPEC.match(part)
        if not m:
            raise VersionError(f"{part!r} is not a version condition (use e.g. >=0.16.0 or <1.6)")
        c = _cmp(v, parse_version(m.group(2)))
        ok = {">=": c >= 0, "<=": c <= 0, ">": c > 0, "<": c < 0, "==": c == 0, "!=": c != 0}[m.group(1)]
        if not ok:
            return False
    return True


def describe_spec(lib: str, spec: str) -> str:
    """``deepspeed >=0.16.0, <0.19`` for messages and docs."""
    return f"{lib} " + ", ".join(p.strip() for p in spec.split(",") if p.strip())


def installed_versions() -> dict[str, str | None]:
    """The installed version of each library in LIBRARIES (None: not installed), from package metadata only."""
    from .versions import installed_version

    return {lib: installed_version(lib) for lib in LIBRARIES}


@record(frozen=True)
class Context:
    """Who drives training, and the library versions a config is judged for."""

    loop: str | None = None
    versions: Mapping[str, str | None] = field(default_factory=dict)
    version_sources: Mapping[str, str] = field(default_factory=dict)
    loop_source: str = ""
    """How the loop was decided, for reports: ``--trainer``, ``script train.py: ...``, ``answers`` or empty."""
    prepared: Mapping[str, Any] = field(default_factory=dict)
    """What the script passes to ``Accelerator.prepare()``, read from its source (``--script``): ``"optimizer"`` /
    ``"scheduler"`` -> a ``script_loop.Prepared`` (``kind`` own or dummy, ``evidence``); missing: not known."""
    trainer_arguments: Mapping[str, Any] | None = None
    """Under the Trainer: the TrainingArguments fields the user passes (``--training-args``; the others take the
    dataclass defaults), None when not known. The Trainer matches the DeepSpeed JSON against them."""
    trainer_arguments_source: str = ""
    """Where they came from, for reports (the file given to ``--training-args``)."""

    def version(self, lib: str) -> str | None:
        return self.versions.get(lib)

    def allows(self, ranges: Mapping[str, str]) -> bool:
        """Whether knowledge with these version ranges holds in this context; a library whose version is unknown
        is judged as the version the wizard was verified against (``wizard/core/versions.py``)."""
        from .versions import VERIFIED_AGAINST

        for lib, spec in ranges.items():
            v = self.versions.get(lib) or VERIFIED_AGAINST.get(lib)
            if v is not None and spec and not in_spec(v, spec):
                return False
        return True

    def stated_versions(self) -> dict[str, str | None]:
        """The versions given (a flag) or found installed, without those assumed: what ``generate(versions=)`` and
        the config rules take (a library left out is judged as the version the wizard was verified against)."""
        return {lib: v for lib, v in self.versions.items() if self.version_sources.get(lib) != SOURCE_ASSUMED}

    @property
    def loop_label(self) -> str:
        return LOOP_LABELS.get(self.loop, LOOP_LABELS[None])

    def to_dict(self) -> dict:
        return {"loop": self.loop, "loop_source": self.loop_source or None,
                "trainer_arguments": None if self.trainer_arguments is None else {
                    str(k): v for k, v in self.trainer_arguments.items()
                    if v is None or isinstance(v, (bool, int, float, str))},
                "trainer_arguments_source": self.trainer_arguments_source or None,
                "versions": {lib: {"version": self.versions.get(lib),
                                   "source": self.version_sources.get(lib)} for lib in LIBRARIES}}


def make_context(loop: str | None = None, *, flags: Mapping[str, str | None] | None = None,
                 installed: Mapping[str, str | None] | None = None, loop_source: str = "",
                 prepared: Mapping[str, Any] | None = None, trainer_arguments: Mapping[str, Any] | None = None,
                 trainer_arguments_source: str = "") -> Context:
    """The context for a check: each library's version from ``flags`` (``--deepspeed-version``), else what is
    installed here (``installed``, default: read from package metadata), else the version the wizard was verified
    against (``assumed``). Raises VersionError for a flag that is not a version, ValueError for an unknown loop."""
    from .versions import VERIFIED_AGAINST

    if loop is not None and loop not in LOOPS:
        raise ValueError(f"unknown training loop {loop!r} (use one of: {', '.join(LOOPS)})")
    flags = flags or {}
    have = installed_versions() if installed is None else installed
    versions: dict[str, str | None] = {}
    sources: dict[str, str] = {}
    for lib in LIBRARIES:
        given = flags.get(lib)
        if given:
            parse_version(given)
            versions[lib], sources[lib] = str(given).strip(), SOURCE_FLAG
        elif have.get(lib):
            versions[lib], sources[lib] = have[lib], SOURCE_INSTALLED
        else:
            versions[lib], sources[lib] = VERIFIED_AGAINST.get(lib), SOURCE_ASSUMED
    return Context(loop=loop, versions=versions, version_sources=sources, loop_source=loop_source,
                   prepared=dict(prepared or {}),
                   trainer_arguments=None if trainer_arguments is None else dict(trainer_arguments),
                   trainer_arguments_source=trainer_arguments_source)


VERIFIED = Context(loop=None)
"""A context with nothing known: no loop, no versions (every rule judged as for the verified versions)."""
