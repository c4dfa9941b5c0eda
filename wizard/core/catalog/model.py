"""The shapes of the catalogue: targets, groups, settings, and where a setting is written (:class:`Write`)."""
from __future__ import annotations

from collections import namedtuple
from collections.abc import Mapping
from functools import cached_property

from ..recordclass import field, record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

FSDP1 = "fsdp1"
FSDP2 = "fsdp2"
DEEPSPEED = "deepspeed"
TARGETS = (FSDP1, FSDP2, DEEPSPEED)
TARGET_LABELS = {FSDP1: "FSDP1", FSDP2: "FSDP2", DEEPSPEED: "DeepSpeed"}

AUTO = "auto"

# the files a value is written to
YAML = "yaml"
"""The accelerate config (``accelerate_config.yaml``); keys are dotted paths from its root."""
JSON = "json"
"""The DeepSpeed JSON (``ds_config.json``); keys are dotted paths from its root."""

# when the renderer writes a one-to-one value (Write.when)
ALWAYS = "always"
"""Every render for the target writes it."""
SET = "set"
"""Written when the answer is not null (null: the library default applies)."""
ZERO3 = "zero3"
"""Written when the answer is not null and the ZeRO stage is 3 (the key means nothing to ZeRO-0/1/2)."""
CUSTOM = "custom"
"""Not one-to-one: ``render.py``'s own code decides whether and what to write (several answers, or one answer to
several keys); the key is declared all the same, so every mapping derived from the catalogue knows it."""


class Write(namedtuple("Write", ("file", "key", "values", "when", "effective", "versions", "library_default"),
                       defaults=(None, ALWAYS, "", "", None))):
    """One key a setting's value is written to, on one target (a named tuple: ``typing.NamedTuple`` costs the
    start-up the ``typing`` module, issue 26).

    - ``file``: :data:`YAML` or :data:`JSON`.
    - ``key``: dotted path inside the file: ``fsdp_config.fsdp_offload_params``, ``zero_optimization.stage``.
    - ``values`` (None): answer value -> the library's spelling (``{"pre": "BACKWARD_PRE", ...}``); None: written as
      it is.
    - ``when`` (:data:`ALWAYS`): :data:`ALWAYS`, :data:`SET`, :data:`ZERO3` (one-to-one, written by the catalogue's
      rule) or :data:`CUSTOM`. On DeepSpeed a YAML key that accelerate refuses beside a DeepSpeed JSON
      (``vocab.DS_FILE_CONFLICTING_FIELDS``) is only written without one, a JSON key only into one; a JSON key with
      no YAML twin makes the JSON necessary.
    - ``effective`` (""): where ``--verify`` reads the value back from the libraries (a key of
      ``verify.flatten_effective``: ``fsdp.forward_prefetch``), compared with the spelling written here. "" for a
      one-to-one JSON key means ``deepspeed.<key>`` (the config accelerate hands to DeepSpeed); "" elsewhere:
      compared by hand, or not at all.
    - ``versions`` (""): the library versions where this holds, e.g. ``accelerate>=1.15``; "" for every version the
      wizard knows (``wizard.core.versions.VERIFIED_AGAINST``).
    - ``library_default`` (None): the library's own spelling when the key is absent (``NO_WRAP``), read back by the
      importer; None: the key's absence means the catalogue default.
    """

    __slots__ = ()
    file: str
    key: str
    values: Mapping[Any, Any] | None
    when: str
    effective: str
    versions: str
    library_default: Any


@record(frozen=True)
class Group:
    id: str
    label: str
    guide: bool
    """True for the groups of the Accelerate concept guide "FSDP vs DeepSpeed"."""


@record(frozen=True)
class Setting:
    id: str
    """``group.name``; settings of the ``backend`` group have no dot and sit at the top level."""
    label: str
    kind: str
    """bool, int, float, choice, str, list, dict."""
    default: Any
    writes: dict[str, tuple[Write, ...]] = field(default_factory=dict)
    """Target -> the keys the value is written to, as data (see :class:`Write`)."""
    where_text: dict[str, str] = field(default_factory=dict)
    """Target -> the "where" line in words, where the key list alone says too little (``{keys}`` stands for that
    list), or where the value lives outside the config files (the script, the command line)."""
    not_applicable: dict[str, str] = field(default_factory=dict)
    """Target -> why the setting has no effect there."""
    choices: tuple = ()
    nullable: bool = False
    """``null`` is allowed (it means: do not write it; the library default applies)."""
    empty: str = ""
    """What ``null`` means, where it is not "the library default" (a value the wizard derives instead)."""
    allow_auto: bool = False
    """The string ``auto`` is allowed (filled by accelerate at run time)."""
    minimum: float | None = None
    maximum: float | None = None
    counterpart: str = ""
    """One line: the nearest setting on the other backend, or why there is none."""
    claims: tuple[str, ...] = ()
    """The claims (:mod:`wizard.core.claims`) its counterpart and not-applicable lines state about the libraries."""
    rehearsal: str = ""
    """Why a CPU rehearsal (``--rehearse``, which trains the bundled model) runs the default instead of a stated
    value, e.g. a value that names modules of the user's model; "" when it rehearses the value as answered."""
    short: str = ""
    """A short name for status lines ("ignored modules"); "" when none is needed."""

    @property
    def group(self) -> str:
        return self.id.split(".", 1)[0] if "." in self.id else "backend"

    @property
    def path(self) -> tuple[str, ...]:
        """Where the value sits in answers.yaml."""
        return tuple(self.id.split(".", 1)) if "." in self.id else (self.id,)

    @cached_property
    def where(self) -> dict[str, str]:
        """Target -> where the value is written, one line for people (``explain``, the TUI, docs/answers.md):
        the keys of :attr:`writes` unless :attr:`where_text` says it in words."""
        return {t: where_line(self, t) for t in TARGETS if t in self.writes or t in self.where_text}

    def applies_to(self, target: str) -> bool:
        return (target in self.writes or target in self.where_text) and target not in self.not_applicable


def key_list(writes: tuple[Write, ...]) -> str:
    """``zero_stage / zero_optimization.stage``: the keys, an inline DeepSpeed key without its ``deepspeed_config.``
    section when a JSON key stands beside it (the same name once)."""
    beside_json = any(w.file == JSON for w in writes)
    names: list[str] = []
    for w in writes:
        name = w.key
        if beside_json and w.file == YAML and name.startswith("deepspeed_config."):
            name = name.split(".", 1)[1]
        if name not in names:
            names.append(name)
    return " / ".join(names)


def versions_note(writes: tuple[Write, ...]) -> str:
    """`` (needs torch>=2.7)``: the library versions the writes need, once each; "" when they hold everywhere."""
    needs: list[str] = []
    for w in writes:
        if w.versions and w.versions not in needs:
            needs.append(w.versions)
    return f" (needs {', '.join(needs)})" if needs else ""


def where_line(setting: Setting, target: str) -> str:
    writes = setting.writes.get(target, ())
    keys = key_list(writes)
    text = setting.where_text.get(target)
    line = keys if text is None else text.replace("{keys}", keys)
    return line + versions_note(writes)
