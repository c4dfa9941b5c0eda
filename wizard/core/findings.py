"""Findings: what a rule says about answers or a config."""
from __future__ import annotations

from collections.abc import Callable, Iterable

from .recordclass import field, record

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)
SEVERITY_RANK = {ERROR: 0, WARNING: 1, INFO: 2}
_RANK = SEVERITY_RANK

DOC = "docs/library-behaviour.md#"
"""Rule sources start with this + an anchor of that document (what the libraries do, in our words)."""


@record(frozen=True)
class RuleInfo:
    """A registered rule (wizard/core/rules.py): what docs/rules.md lists for it."""

    name: str
    severity: str
    summary: str
    source: str
    keys: str = ""
    """The keys it blames, in general terms, where the reporting code computes them (docs/rules.md)."""
    fix: str = ""
    """The fix in general terms, where the reporting code computes it (docs/rules.md)."""
    section: str = ""
    """Which kind of rule: ``config``, ``answer``, ``input``, ``import`` or ``verify`` (``rules.SECTIONS``)."""
    check: Callable[..., Iterable[Finding]] | None = field(default=None, compare=False, repr=False)
    """An answer rule's function: answers -> its findings (None for the rules emitted by the code that finds them)."""
    claims: tuple[str, ...] = ()
    """The claims (:mod:`wizard.core.claims`) its message states about the libraries."""
    versions: tuple[tuple[str, str], ...] = ()
    """The library versions it holds for: (library, range) pairs like ("deepspeed", ">=0.16.0"); none = all the
    versions in the supported ranges. A finding of the rule is only reported when the context's versions are in
    range (wizard/core/context.py)."""


@record(frozen=True)
class Finding:
    """One problem (or note) found in answers or in a config.

    severity: ``error`` means the config will fail, or a value written in it will not take effect as
    written (ignored, overridden or silently changed); ``warning`` means it works as written but is
    probably not what the user wants, or is slow; ``info`` is a note.
    """

    severity: str
    rule: str
    """Stable rule name, e.g. ``fsdp1-strategy-under-reshard-key``."""
    keys: tuple[str, ...]
    """The keys at fault: dotted paths in the file checked (``fsdp_config.fsdp_min_num_params``,
    ``zero_optimization.stage``) or answer ids (``sharding.strategy``)."""
    message: str
    """What is wrong, in one or two sentences."""
    fix: str = ""
    """How to fix it."""
    source: str = ""
    """Where the fact comes from (library file:line, issue, reference id)."""

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")
        if isinstance(self.keys, (list, str)):
            object.__setattr__(self, "keys", tuple([self.keys] if isinstance(self.keys, str) else self.keys))

    def to_dict(self) -> dict:
        return {
            "severity": self.severity,
            "rule": self.rule,
            "keys": list(self.keys),
            "message": self.message,
            "fix": self.fix,
            "source": self.source,
        }

    def render(self, message: str | None = None, fix_line: str | None = None) -> str:
        """``SEVERITY [rule] keys: message`` and an indented ``fix: ...`` line; ``message`` and ``fix_line`` in
        another language (``localized.finding_text``) replace the English."""
        keys = ", ".join(self.keys)
        text = f"{self.severity.upper()} [{self.rule}] {keys}: {self.message if message is None else message}"
        if self.fix:
            text += f"\n    {f'fix: {self.fix}' if fix_line is None else fix_line}"
        return text


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Errors first, then warnings, then info; stable within a severity."""
    return sorted(findings, key=lambda f: _RANK[f.severity])


def has_errors(findings: Iterable[Finding]) -> bool:
    return any(f.severity == ERROR for f in findings)


def dedupe(findings: Iterable[Finding]) -> list[Finding]:
    """Drop exact repeats (same severity, rule, keys and message), keeping the first."""
    seen: set = set()
    out = []
    for f in findings:
        key = (f.severity, f.rule, f.keys, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out
