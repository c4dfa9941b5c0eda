"""Answers: the user's intent, stated once.

``answers.yaml`` (schema version 1) holds the backend, the FSDP version and one mapping per group of
the catalogue, for example::

    schema_version: 1
    backend: deepspeed
    fsdp_version: 2
    launch:
      num_processes: 8
    sharding:
      strategy: full
    offload:
      optimizer: cpu
      params: cpu

Every key is a catalogue setting (``wizard explain`` lists them); anything left out takes the
catalogue default. Unknown keys are errors with a "did you mean". :class:`Answers` is immutable:
editing returns a new value.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

from ..catalog import AUTO, GROUP_BY_ID, SETTING_BY_ID, SETTINGS, Setting, target_of
from ..findings import ERROR, WARNING, Finding
from ..i18n import said
from ..recordclass import field, record
from ..wizard_rules import (
    ANSWERS_BAD_VALUE,
    ANSWERS_DUPLICATE,
    ANSWERS_DUPLICATE_SAME,
    ANSWERS_EMPTY,
    ANSWERS_NOT_A_MAPPING,
    ANSWERS_SCHEMA_VERSION,
    ANSWERS_UNKNOWN_KEY,
    ANSWERS_YAML,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

SCHEMA_VERSION = 1
_TOP_LEVEL = ("schema_version",) + tuple(s.id for s in SETTINGS if s.group == "backend")

EXPECTED = {
    "an_integer_from_to": "an integer from {low} to {high}",
    "an_integer_bound": "an integer {sign} {bound}",
    "a_number_from_to": "a number from {low} to {high}",
    "a_non_empty_string": "a non-empty string",
    "a_list_of_strings": "a list of strings",
    "a_list_of_names": "a list of names (or one comma-separated string)",
    "a_mapping": "a mapping",
    "or_auto": "{expected}, or 'auto'",
    "or_null": "{expected}, or null",
    "or_null_short": "{expected} or null",
    "digits": "a {digits}-digit number",
    "more_digits": "a more than {digits}-digit number",
}
"""What an answer must be (``expected ...`` of the finding answers-bad-value) and how a too long number is named, in
the words the finding shows, beside those of :data:`wizard.core.ds_schema.EXPECTED` that answers share (``an
integer``, ``one of {options}``, ``a number {sign} {bound}``): stated here once and translated in the part
``screen-values`` (:func:`wizard.core.localized.phrases.expected` reads a computed part against them; an
``{expected}`` is itself one of these words)."""

_OWN_HINTS = {"version": "schema_version (the answers format) or fsdp_version (FSDP1/FSDP2)"}
"""Names that are not a library key (the library keys come from the catalogue: :func:`native_hint`)."""


def native_hint(name: str) -> str | None:
    """Where the intent behind a library's key name (``zero_stage``, ``fsdp_offload_params``) lives in answers.yaml:
    from the keys the catalogue writes each setting to, with their values' spellings."""
    from ..catalog.writes import native_names

    names = native_names()
    return _OWN_HINTS.get(name) or names.get(name) or names.get(name.removeprefix("fsdp_"))


class AnswersError(Exception):
    """Raised by :func:`parse_answers_text` callers when the answers cannot be used at all."""

    def __init__(self, findings: list[Finding]):
        self.findings = findings
        super().__init__("; ".join(f.message for f in findings))


@record(frozen=True)
class Answers:
    """A complete, validated set of answers: every catalogue id has a value."""

    values: Mapping[str, Any]
    explicit: frozenset = field(default_factory=frozenset)
    """Ids the user stated (the rest are defaults). Used to decide what deserves a finding."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", MappingProxyType(dict(self.values)))

    def __getitem__(self, setting_id: str) -> Any:
        return self.values[setting_id]

    def get(self, setting_id: str, default: Any = None) -> Any:
        return self.values.get(setting_id, default)

    @property
    def backend(self) -> str:
        return self.values["backend"]

    @property
    def fsdp_version(self) -> int:
        return self.values["fsdp_version"]

    @property
    def target(self) -> str:
        return target_of(self.backend, self.fsdp_version)

    def is_set(self, setting_id: str) -> bool:
        """The user stated a value that differs from the default."""
        return setting_id in self.explicit and self.values[setting_id] != SETTING_BY_ID[setting_id].default

    def replace(self, changes: Mapping[str, Any]) -> Answers:
        for key in changes:
            if key not in SETTING_BY_ID:
                raise KeyError(f"unknown setting {key!r}")
        values = dict(self.values)
        values.update(changes)
        return Answers(values, self.explicit | frozenset(changes))

    def to_nested(self) -> dict[str, Any]:
        """The answers.yaml structure, every setting present, in catalogue order."""
        out: dict[str, Any] = {"schema_version": SCHEMA_VERSION}
        for s in SETTINGS:
            value = _copy(self.values[s.id])
            if len(s.path) == 1:
                out[s.id] = value
            else:
                out.setdefault(s.path[0], {})[s.path[1]] = value
        return out


def _copy(value: Any) -> Any:
    if isinstance(value, list):
        return list(value)
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


def default_answers() -> Answers:
    return Answers({s.id: _copy(s.default) for s in SETTINGS}, frozenset())


def _did_you_mean(word: str, candidates: Iterable[str]) -> str:
    import difflib  # only for a word it does not know (issue 26: a start stays light)

    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return close[0] if close else ""


def _unknown_key(full_key: str, leaf: str, candidates: Iterable[str]) -> Finding:
    cands = list(candidates)
    guess = _did_you_mean(leaf, cands)
    hint = native_hint(leaf)
    if guess:
        fix = f"did you mean '{guess}'? (the same intent may live in {hint})" if hint else f"did you mean '{guess}'?"
    elif hint:
        fix = f"answers state intent once: use {hint}"
    else:
        fix = "remove it; valid keys here: " + ", ".join(cands)
    return Finding(ERROR, ANSWERS_UNKNOWN_KEY, (full_key,), f"unknown key '{full_key}'", fix,
                   "answers.yaml schema 1 (fsdpds-wizard explain lists every key)")


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def coerce_value(setting: Setting, value: Any) -> tuple[Any, Finding | None]:
    """Check one value against its setting; return (normalised value, finding or None)."""
    sid = setting.id

    def bad(expected: str, fix: str = "", what: str = "") -> tuple[Any, Finding]:
        problem = ("too small: " if what == _TOO_SMALL else "too large: " if what == _TOO_LARGE
                   else "not a finite number: " if what == _NOT_FINITE else "")
        return setting.default, Finding(
            ERROR, ANSWERS_BAD_VALUE, (sid,),
            f"'{sid}' is {_shown(value)} ({_type_name(value)}); {problem}expected {expected}",
            fix if fix else f"write one of the expected values, or remove the key to use the default "
                            f"({setting.default!r})",
            "answers.yaml schema 1")

    if value is None:
        if setting.nullable:
            return None, None
        return bad(_expected(setting))
    if setting.allow_auto and isinstance(value, str) and value.strip().lower() == AUTO:
        return AUTO, None
    kind = setting.kind
    if kind == "bool":
        if isinstance(value, bool):
            return value, None
        return bad(_ds_words()["true_or_false"])
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                return bad(_expected(setting), said(f"write it as a plain integer: {int(value)}"))
            if isinstance(value, str):
                try:
                    num = float(value)
                except ValueError:
                    return bad(_expected(setting))
                if num.is_integer():
                    return bad(_expected(setting),
                               said(f"write it as a plain integer without quotes or exponent: {int(num)}"))
            return bad(_expected(setting))
        return _bounded(setting, value, bad)
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return bad(_expected(setting))
        return _bounded(setting, float(value), bad)
    if kind == "choice":
        if isinstance(value, str):
            for c in setting.choices:
                if isinstance(c, str) and c.lower() == value.strip().lower():
                    return c, None
        elif not isinstance(value, bool):
            for c in setting.choices:
                if c == value and type(c) is type(value):
                    return c, None
        guess = _did_you_mean(str(value), [str(c) for c in setting.choices])
        return bad(_expected(setting), said(f"did you mean '{guess}'?") if guess else "")
    if kind == "str":
        if isinstance(value, str) and value.strip():
            return value.strip(), None
        text = EXPECTED["a_non_empty_string"]
        return bad(EXPECTED["or_null_short"].format(expected=text) if setting.nullable else text)
    if kind == "list":
        if isinstance(value, str):
            value = [v for v in (p.strip() for p in value.split(",")) if v]
        if isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value):
            return [v.strip() for v in value], None
        return bad(EXPECTED["a_list_of_names"])
    if kind == "dict":
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return value, None
        return bad(EXPECTED["a_mapping"])
    raise AssertionError(f"unknown kind {kind}")  # catalogue bug, caught by the catalogue tests


_TOO_SMALL, _TOO_LARGE, _NOT_FINITE = "small", "large", "finite"
"""What is wrong with a number of the right kind (``bad``'s ``what``: the message's words in front of "expected")."""


def _bounded(setting: Setting, value: Any, bad) -> tuple[Any, Finding | None]:
    """The catalogue's range (``minimum``/``maximum`` of the setting); floats must be finite."""
    in_range = said("write a value in that range, or remove the key to use the default" + (
        f" ({setting.default!r})" if setting.default is not None else ""))
    if isinstance(value, float) and not math.isfinite(value):
        return bad(_expected(setting), in_range, _NOT_FINITE)
    if setting.minimum is not None and value < setting.minimum:
        return bad(_expected(setting), in_range, _TOO_SMALL)
    if setting.maximum is not None and value > setting.maximum:
        return bad(_expected(setting), in_range, _TOO_LARGE)
    return value, None


def number_text(x: float) -> str:
    """A bound for messages: ``1,048,576``, ``0.5``."""
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def _shown(value: Any) -> str:
    """A value for a message, never thousands of characters long (a 2,770-digit number is named by its length)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**20:
        try:
            digits = f"{len(str(abs(value))):,}"
        except ValueError:  # longer than Python's int-to-text limit (sys.get_int_max_str_digits)
            return EXPECTED["more_digits"].format(digits="4,300")
        return EXPECTED["digits"].format(digits=digits)
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _ds_words() -> dict[str, str]:
    """The words of :data:`wizard.core.ds_schema.EXPECTED` (imported when a value is wrong: not at start)."""
    from ..ds_schema import EXPECTED as DS_EXPECTED

    return DS_EXPECTED


def _expected(setting: Setting) -> str:
    """What the setting's value must be, in the words of :data:`EXPECTED` (and DeepSpeed's that answers share)."""
    ds = _ds_words()
    if setting.kind == "choice":
        text = ds["one_of"].format(options=", ".join(repr(c) for c in setting.choices))
    elif setting.kind in ("int", "float"):
        text = _number_words(setting, setting.kind == "int")
    else:
        text = {"bool": ds["true_or_false"], "str": ds["a_string"], "list": EXPECTED["a_list_of_strings"],
                "dict": EXPECTED["a_mapping"]}[setting.kind]
    if setting.allow_auto:
        text = EXPECTED["or_auto"].format(expected=text)
    if setting.nullable:
        text = EXPECTED["or_null"].format(expected=text)
    return text


def _number_words(setting: Setting, integer: bool) -> str:
    """``an integer from 1 to 65,535``, ``a number >= 0``, ``an integer``: the kind and the catalogue range (the
    words :func:`range_text` puts after the kind in the answers' schema)."""
    ds = _ds_words()
    lo, hi = setting.minimum, setting.maximum
    if lo is not None and hi is not None:
        return EXPECTED["an_integer_from_to" if integer else "a_number_from_to"].format(
            low=number_text(lo), high=number_text(hi))
    if lo is not None:
        return (EXPECTED["an_integer_bound"] if integer else ds["a_number_bound"]).format(
            sign=">=", bound=number_text(lo))
    if hi is not None:
        return (EXPECTED["an_integer_bound"] if integer else ds["a_number_bound"]).format(
            sign="<=", bound=number_text(hi))
    return ds["an_integer" if integer else "a_number"]


def range_text(setting: Setting) -> str:
    """The catalogue range of a number setting: `` from 1 to 1,048,576``, `` >= 0`` (leading space), or ``""``."""
    lo, hi = setting.minimum, setting.maximum
    if lo is not None and hi is not None:
        return f" from {number_text(lo)} to {number_text(hi)}"
    if lo is not None:
        return f" >= {number_text(lo)}"
    if hi is not None:
        return f" <= {number_text(hi)}"
    return ""


def answers_from_mapping(data: Any) -> tuple[Answers | None, list[Finding]]:
    """Validate a parsed answers.yaml. Returns the answers (None when there is an error) and findings."""
    findings: list[Finding] = []
    if data is None:
        data = {}
    if not isinstance(data, dict):
        from ..inputs import ANSWERS, not_a_mapping

        exc = not_a_mapping("answers", data, ANSWERS)
        return None, [Finding(ERROR, ANSWERS_NOT_A_MAPPING, ("answers",), exc.what, exc.fix,
                              "answers.yaml schema 1")]
    values = {s.id: _copy(s.default) for s in SETTINGS}
    explicit: set[str] = set()
    version = data.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        findings.append(Finding(ERROR, ANSWERS_SCHEMA_VERSION, ("schema_version",),
                                f"schema_version {version!r} is not supported "
                                f"(this wizard reads version {SCHEMA_VERSION})",
                                f"set schema_version: {SCHEMA_VERSION}", "answers.yaml schema 1"))
    groups = [g.id for g in GROUP_BY_ID.values() if g.id != "backend"]
    for key, raw in data.items():
        if not isinstance(key, str):
            findings.append(Finding(ERROR, ANSWERS_UNKNOWN_KEY, (str(key),), f"key {key!r} is not a string",
                                    "use the keys listed by fsdpds-wizard explain", "answers.yaml schema 1"))
            continue
        if key == "schema_version":
            continue
        if key in SETTING_BY_ID and "." not in key:
            value, problem = coerce_value(SETTING_BY_ID[key], raw)
            if problem:
                findings.append(problem)
            else:
                values[key] = value
                explicit.add(key)
            continue
        if key not in groups:
            findings.append(_unknown_key(key, key, list(_TOP_LEVEL) + groups))
            continue
        if raw is None:
            continue
        if not isinstance(raw, dict):
            findings.append(Finding(ERROR, ANSWERS_BAD_VALUE, (key,),
                                    f"'{key}' must be a mapping of settings, got {_type_name(raw)}",
                                    f"write it as '{key}:' followed by indented 'name: value' lines",
                                    "answers.yaml schema 1"))
            continue
        names = [s.path[1] for s in SETTINGS if s.group == key]
        for name, sub in raw.items():
            sid = f"{key}.{name}"
            if sid not in SETTING_BY_ID:
                findings.append(_unknown_key(sid, str(name), names))
                continue
            value, problem = coerce_value(SETTING_BY_ID[sid], sub)
            if problem:
                findings.append(problem)
            else:
                values[sid] = value
                explicit.add(sid)
    if any(f.severity == ERROR for f in findings):
        return None, findings
    return Answers(values, frozenset(explicit)), findings


def _duplicate_findings(dups: list[tuple[str, bool]], path: str | Path) -> list[Finding]:
    """A key written twice: an error when the values differ (the first is silently dropped), else a warning."""
    out = []
    for key, same in dups:
        if same:
            out.append(Finding(WARNING, ANSWERS_DUPLICATE_SAME, (key,),
                               f"'{key}' is written twice in {path} with the same value", "delete one of the two lines",
                               "answers.yaml schema 1"))
        else:
            out.append(Finding(ERROR, ANSWERS_DUPLICATE, (key,),
                               f"'{key}' is written twice in {path} with different values: YAML keeps the last "
                               "one and silently drops the first", "keep one line with the value you want",
                               "answers.yaml schema 1"))
    return out


def _with_duplicates(data: Any, dups: list[tuple[str, bool]], path: str | Path) -> tuple[Answers | None, list[Finding]]:
    answers, findings = answers_from_mapping(data)
    dup = _duplicate_findings(dups, path)
    if any(f.severity == ERROR for f in dup):
        answers = None
    return answers, dup + findings


def parse_answers_text(text: str, path: str = "answers.yaml") -> tuple[Answers | None, list[Finding]]:
    """Parse and validate answers.yaml text. A text that cannot be used at all (not YAML, too deep, aliases
    expanding too far, not a mapping) gives one error finding with the shared wording of ``wizard.core.inputs``;
    a key written twice is reported as ``check`` reports it in a config."""
    from ..inputs import ANSWERS, InputError, mapping_from_text, yaml_duplicates

    dups: list[tuple[str, bool]] = []
    try:
        data = mapping_from_text(text, path, ANSWERS, as_json=False, allow_empty=True,
                                 on_node=lambda node: dups.extend(yaml_duplicates(node)))
    except InputError as exc:
        rule = ANSWERS_NOT_A_MAPPING if exc.problem == "not-a-mapping" else ANSWERS_YAML
        return None, [exc.finding(rule, "answers", "answers.yaml schema 1")]
    return _with_duplicates(data, dups, path)


def load_answers_file(path: str | Path, not_found_fix: str | None = None) -> tuple[Answers | None, list[Finding]]:
    """Read and validate an answers file: (answers or None when a setting is wrong, findings).

    Raises ``InputError`` when the file cannot be used at all (not found, a folder, too large, not UTF-8 text,
    not YAML, nested too deep, aliases expanding too far, not a mapping). An empty file means every default,
    with a warning.
    """
    from ..inputs import ANSWERS, mapping_from_text, read_text, yaml_duplicates

    dups: list[tuple[str, bool]] = []
    text = read_text(path, ANSWERS, not_found_fix, as_json=False)
    data = mapping_from_text(text, path, ANSWERS, as_json=False, allow_empty=True,
                             on_node=lambda node: dups.extend(yaml_duplicates(node)))
    answers, findings = _with_duplicates(data, dups, path)
    if data is None:
        findings = [Finding(WARNING, ANSWERS_EMPTY, ("answers",),
                            f"{path} is empty (or only comments): every setting takes its default",
                            "write the settings you mean, e.g. 'backend: deepspeed'; `fsdpds-wizard explain` "
                            "lists every key", "answers.yaml schema 1")] + findings
    return answers, findings


HEADER = (
    "# fsdpds-wizard answers (schema 1): the intent behind the generated configs.\n"
    "# Regenerate them with: fsdpds-wizard --headless answers.yaml --out DIR\n"
    "# Every key is listed with its value; 'fsdpds-wizard explain GROUP' explains each one.\n"
)


def dump_answers(answers: Answers) -> str:
    """Normalised answers.yaml text: every setting, catalogue order, stable."""
    from ..yaml_dump import safe_dump

    nested = answers.to_nested()
    parts = [HEADER]
    top = {k: v for k, v in nested.items() if not isinstance(v, dict) or k in ("schema_version",)}
    parts.append(safe_dump(top, sort_keys=False, default_flow_style=False))
    for group in GROUP_BY_ID:
        if group in nested and isinstance(nested[group], dict):
            parts.append(safe_dump({group: nested[group]}, sort_keys=False, default_flow_style=False))
    return "".join(parts)
