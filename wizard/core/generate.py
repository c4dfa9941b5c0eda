"""Answers -> findings + the exact file texts to write. Shared by --headless and the TUI."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .answer_rules import check_answers
from .answers import Answers, dump_answers
from .findings import SEVERITY_RANK, Finding, dedupe, has_errors, sort_findings
from .render import ACCELERATE_YAML, ANSWERS_YAML, DS_JSON, Rendered, processes_per_node, render


@dataclass
class Generated:
    answers: Answers
    rendered: Rendered
    findings: list[Finding]
    files: dict[str, str] = field(default_factory=dict)
    """File name (inside the output folder) -> exact text."""

    @property
    def ok(self) -> bool:
        return not has_errors(self.findings)


def yaml_text(data: dict) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=True, default_flow_style=False, allow_unicode=True)


def json_text(data: dict) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def ds_config_ref(out_dir: Path | None) -> str:
    """What deepspeed_config_file points at: an absolute path, since accelerate resolves it against
    the working directory of ``accelerate launch``, not against the YAML."""
    if out_dir is None:
        return DS_JSON
    return str((Path(out_dir).expanduser().resolve()) / DS_JSON)


def generate(answers: Answers, out_dir: Path | None = None) -> Generated:
    rendered = render(answers, ds_config_ref(out_dir))
    intent = check_answers(answers)
    findings = intent + _not_covered(lint_rendered(answers, rendered), intent)
    files = {ACCELERATE_YAML: yaml_text(rendered.accelerate), ANSWERS_YAML: dump_answers(answers)}
    if rendered.deepspeed is not None:
        files[DS_JSON] = json_text(rendered.deepspeed)
    return Generated(answers, rendered, sort_findings(dedupe(findings)), files)


def lint_rendered(answers: Answers, rendered: Rendered) -> list[Finding]:
    """Run the config linter over what we render; blame the answers behind each key."""
    from .config_rules import lint

    raw = lint(rendered.accelerate, rendered.deepspeed, gpus_per_node=processes_per_node(answers))
    fallback = _key_to_answer()
    out = []
    for f in raw:
        ids = []
        for key in f.keys:
            ids.append(rendered.provenance.get(key) or fallback.get(key) or key)
        ids = list(dict.fromkeys(ids))
        where = ", ".join(f.keys)
        out.append(Finding(f.severity, f.rule, tuple(ids), f"{f.message} (generated key: {where})", f.fix, f.source))
    return out


def _not_covered(lint: list[Finding], intent: list[Finding]) -> list[Finding]:
    """Drop linter findings that an answer rule already reports, as severely, on the same setting."""
    out = []
    for f in lint:
        covered = any(set(f.keys) & set(g.keys) and SEVERITY_RANK[g.severity] <= SEVERITY_RANK[f.severity] for g in intent)
        if not covered:
            out.append(f)
    return out


_KEY_TO_ANSWER: dict[str, str] = {}


def _key_to_answer() -> dict[str, str]:
    """Config key -> answer id, from the catalogue's where-strings (for keys a render did not write)."""
    if not _KEY_TO_ANSWER:
        import re

        from .catalog import SETTINGS

        for s in SETTINGS:
            for where in s.where.values():
                for key in re.findall(r"[a-z_][a-z0-9_.]*[a-z0-9_]", where):
                    if "_" in key or "." in key:
                        _KEY_TO_ANSWER.setdefault(key, s.id)
                        _KEY_TO_ANSWER.setdefault("deepspeed_config." + key, s.id)
    return _KEY_TO_ANSWER


def launch_command(out_dir: Path, script: str | None = None, args: list[str] | None = None) -> list[str]:
    cfg = str(Path(out_dir).expanduser().resolve() / ACCELERATE_YAML)
    return ["accelerate", "launch", "--config_file", cfg, script or "train.py", *(args or [])]
