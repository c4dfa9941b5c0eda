"""docs/rules.md, generated from the rule registry (``rules.RULES``), by section: every config rule (registered by
the modules of ``wizard/core/lint/``), every answer rule (``answers.rules``) and the rules of the wizard's own steps
(``wizard_rules``: reading input, importing, ``--verify``). This module imports all of them.

Name, severity, meaning (the registered summary) and source come from the registrations. The keys a rule blames
and its fix come from the code that reports it: each ``ctx.emit(RULE, keys, message, fix)`` call and each
``yield (keys, message, fix)`` of an answer rule (:mod:`wizard.core.sites`, which reads where findings are made) is
read in general terms here (keys and fix as written there, computed parts shown as ``…``), so the document cannot
drift from what ``check`` and the wizard print.

Regenerate: ``python -m wizard.core.docs.rules > docs/rules.md`` (tests/unit/test_rules_doc.py checks it).
"""
from __future__ import annotations

import ast
import re

from .. import sites, wizard_rules  # noqa: F401 - wizard_rules registers the rules of the wizard's steps
from ..answers import rules as answer_rules
from ..findings import ERROR, INFO, WARNING
from ..lint import configfile, ds, dsjson, dszero, fsdp, general, linter
from ..lint import keys as key_rules
from ..lint import launch as launch_rules
from ..rules import ANSWER, CONFIG, IMPORT, INPUT, SECTIONS, VERIFY, in_section

CONFIG_MODULES = (key_rules, general, fsdp, ds, dsjson, dszero, configfile, linter, launch_rules)
STEP_SECTIONS = (INPUT, IMPORT, VERIFY)
"""The rules of the wizard's own steps: one table each, under one heading."""
DS_FILE_KEY = configfile.DS_FILE_KEY

HEADER = """# Rules

Every finding the wizard reports: `fsdpds-wizard check` (config rules), the wizard's answers (answer rules), and
its own steps (reading input, importing a config, `--verify`). Generated from the rule registry by
`python -m wizard.core.docs.rules > docs/rules.md`. Do not edit by hand.

## Severity contract

- **error**: the config fails, or a value written in it does not take effect as written (ignored, overridden,
  silently changed). `check` exits 2 and the wizard does not write the files.
- **warning**: it works as written, but is probably not what was meant, or is slow.
- **info**: a note.

Each rule has one severity. Where the verdict depends on the value, there are two rules (for example
`fsdp-min-num-params-unused`, an error, and `fsdp-min-num-params-unused-harmless`, a warning).

## Dead values

A value that no code reads ("dead", usually because another setting switches off the code that would read it) is
an **error** when what really happens differs from what the value says, and a **warning** when what happens anyway
equals it (harmless but dead: the message says it has no effect and can be removed). Examples: class names under a
size-based wrap policy, `zero3_save_16bit_model: true` below ZeRO-3 and a filled-in `deepspeed_config` under FSDP
are errors; `fsdp_use_orig_params: true` under FSDP2 (FSDP2 always uses the original parameters), an FSDP1
strategy under `fsdp_reshard_after_forward` that equals the strategy that runs, and the old
`aio.thread_count: 1` (the default `intra_op_parallelism` is 1) are warnings.

`ds-json-steps-per-print-overridden` stays a warning although accelerate always replaces `steps_per_print` (with
infinity, to silence DeepSpeed's own progress lines): no other setting makes it dead, it only affects logging, and
training runs exactly as configured, so it is "works, but probably not what was meant".

## Keys

`keys` names every key that must change, or may be changed, to fix the fault: a fault caused by several settings
(`gpu_ids` vs `num_processes`, a ZeRO stage vs an offload device, ...) names all of them. Keys are dotted paths in
the file checked (`fsdp_config.fsdp_min_num_params`, `zero_optimization.stage` in the DeepSpeed JSON) or answer
ids (`sharding.strategy`); `…` stands for a part computed from the config (the key as written, a section name).
"""


# ----------------------------------------------------------------------------------------------------------------
# reading keys and fixes off the reporting code
# ----------------------------------------------------------------------------------------------------------------
def _text(node: ast.AST, fn: ast.AST | None, depth: int = 0) -> str | None:
    """A string expression in general terms: literal parts kept, computed parts as '…'."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                out.append(str(v.value))
            else:
                inner = v.value if isinstance(v, ast.FormattedValue) else v
                out.append(_key_call(inner) or "…")
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _text(node.left, fn, depth), _text(node.right, fn, depth)
        return None if a is None and b is None else (a or "…") + (b or "…")
    if isinstance(node, ast.BoolOp):
        parts = [_text(v, fn, depth) for v in node.values]
        return next((p for p in reversed(parts) if p), None)
    if isinstance(node, ast.IfExp):
        return _text(node.body, fn, depth)
    if isinstance(node, ast.Name) and fn is not None and depth < 3:
        values = sites.assigned(fn, node.id)
        return _text(values[-1], fn, depth + 1) if values else None
    if isinstance(node, ast.Call):
        k = _key_call(node)
        if k:
            return k
    return None


def _key_call(node: ast.AST) -> str | None:
    """``key("fsdp_x")`` in the FSDP rules names ``fsdp_config.fsdp_x`` (as written)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "key" and node.args \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return "fsdp_config." + node.args[0].value
    if isinstance(node, ast.Name) and node.id == "DS_FILE_KEY":
        return DS_FILE_KEY
    return None


def _keys(node: ast.AST | None, fn: ast.AST | None, depth: int = 0) -> list[str]:
    """The keys an expression names, in general terms (none for a missing argument, ``node`` None)."""
    if node is None:
        return []
    k = _key_call(node)
    if k:
        return [k]
    if isinstance(node, (ast.Constant, ast.JoinedStr)):
        t = _text(node, fn)
        return [t] if t else []
    if isinstance(node, (ast.Tuple, ast.List)):
        return [x for e in node.elts for x in _keys(e, fn, depth)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _keys(node.left, fn, depth) + _keys(node.right, fn, depth)
    if isinstance(node, ast.IfExp):
        return _keys(node.body, fn, depth) + _keys(node.orelse, fn, depth)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("tuple", "list") \
            and node.args:
        return _keys(node.args[0], fn, depth)
    if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
        elt = node.elt
        gen = node.generators[0]
        if isinstance(elt, ast.Call) and isinstance(elt.func, ast.Name) and elt.func.id == "key" \
                and isinstance(gen.iter, (ast.Tuple, ast.List)):
            return ["fsdp_config." + e.value for e in gen.iter.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if isinstance(elt, ast.Name) and isinstance(gen.iter, (ast.Tuple, ast.List)):
            return [x for e in gen.iter.elts for x in _keys(e, fn, depth)]
        t = _text(elt, fn)
        return [t] if t else []
    if isinstance(node, ast.Name) and fn is not None and depth < 3:
        found = []
        for n in ast.walk(fn):  # every assignment and append to the variable
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets):
                found += _keys(n.value, fn, depth + 1)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == node.id:
                found += _keys(n.value, fn, depth + 1)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend") \
                    and isinstance(n.func.value, ast.Name) and n.func.value.id == node.id and n.args:
                found += _keys(n.args[0], fn, depth + 1)
        return found
    return []


def _dedupe(items) -> list[str]:
    out: list[str] = []
    for i in items:
        if i and i not in out:
            out.append(i)
    return out


def _reports() -> dict[str, dict[str, list[str]]]:
    """rule name -> {"keys": [...], "fix": [...]} from every site (:mod:`wizard.core.sites`) of the config rules'
    modules and the answer rules that names its rule: each ``emit`` / ``Finding`` / ``_ds_error`` call and each
    ``yield (keys, message, fix)`` of an answer rule."""
    reports: dict[str, dict[str, list[str]]] = {}
    for site in sites.in_modules((*CONFIG_MODULES, answer_rules)):
        if site.rule is None:
            continue
        r = reports.setdefault(site.rule, {"keys": [], "fix": []})
        r["keys"] += _keys(site.keys, site.function)
        t = _text(site.fix, site.function) if site.fix is not None else None
        if t:
            r["fix"].append(t)
    return reports


# ----------------------------------------------------------------------------------------------------------------
# rendering
# ----------------------------------------------------------------------------------------------------------------
def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _source(src: str) -> str:
    """Library paths are relative to site-packages (accelerate 1.15, deepspeed 0.19); a section of
    docs/library-behaviour.md becomes a link (rules.md sits in the same folder)."""
    return re.sub(r"docs/library-behaviour\.md#([A-Za-z0-9_-]+)", r"[library-behaviour.md#\1](library-behaviour.md#\1)",
                  _cell(src))


def _table(rows) -> list[str]:
    out = ["| Rule | Severity | Keys | What it means | Fix | Source |", "|---|---|---|---|---|---|"]
    for name, sev, keys, meaning, fix, src in rows:
        shown = ", ".join(k if " " in k else f"`{k}`" for k in keys)  # declared prose vs key paths
        out.append(f"| `{name}` | {sev} | {_cell(shown) or '—'} | {_cell(meaning)} | "
                   f"{_cell(' / '.join(fix)) or '—'} | {_source(src)} |")
    return out


def rule_rows():
    """(name, severity, keys, meaning, fixes, source) for every config rule, every answer rule, and every rule of the
    wizard's own steps (three lists)."""
    order = {ERROR: 0, WARNING: 1, INFO: 2}
    reports = _reports()

    def row(info, reps):
        found = reps.get(info.name, {})
        keys = [info.keys] if info.keys else _dedupe(found.get("keys", []))
        fixes = [info.fix] if info.fix else _dedupe(found.get("fix", []))
        return info.name, info.severity, keys, info.summary, fixes, info.source

    def by_severity(section):
        return sorted(in_section(section).values(), key=lambda i: (order[i.severity], i.name))

    config = [row(i, reports) for i in by_severity(CONFIG)]
    answers = [row(i, reports) for i in by_severity(ANSWER)]
    steps = [row(i, {}) for section in STEP_SECTIONS for i in by_severity(section)]
    return config, answers, steps


def render_rules_doc() -> str:
    config, answers, steps = rule_rows()
    lines = [HEADER.rstrip(), "",
             f"## {SECTIONS[CONFIG]} ({len(config)})", "",
             "What `fsdpds-wizard check` reports about an accelerate config and the DeepSpeed JSON it names. Library "
             "paths in the sources are relative to site-packages (accelerate 1.15, deepspeed 0.19); a "
             "`library-behaviour.md#…` link is the section of [library-behaviour.md](library-behaviour.md) that "
             "explains, in our words, what the libraries do with the keys involved.", ""]
    lines += _table(config)
    lines += ["", f"## {SECTIONS[ANSWER]} ({len(answers)})", "",
              "What the wizard reports about answers (answers.yaml, the TUI) before it writes any file. An error "
              "blocks writing; a warning means the closest equivalent is written and the message says what differs.",
              ""]
    lines += _table(answers)
    lines += ["", f"## Input, import and verify rules ({len(steps)})", "",
              "What the wizard reports about its own steps: a file it cannot use at all (answers or accelerate config; "
              "`check`, `--headless`, the wizard's `--answers`/`--config` and open dialogs word it the same), an "
              "answers file that does not fit the schema, how an imported config was translated (`import` notes), "
              "and what `--verify` finds when it replays a config through the installed accelerate and DeepSpeed.",
              ""]
    for n, section in enumerate(STEP_SECTIONS):
        names = set(in_section(section))
        lines += ([""] if n else []) + [f"### {SECTIONS[section]}", ""]
        lines += _table([r for r in steps if r[0] in names])
    return "\n".join(lines) + "\n"


def main() -> int:
    import sys

    sys.stdout.write(render_rules_doc())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
