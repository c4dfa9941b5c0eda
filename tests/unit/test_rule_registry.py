"""Every finding name the product emits is registered (and so listed in docs/rules.md).

The scan reads every module of the package with ``ast``: each ``Finding(severity, RULE, ...)`` construction, and,
where RULE is a parameter of the function that builds the finding (``ctx.emit(name, ...)``, ``exc.finding(rule,
...)``, ``_finding(sev, rule, ...)``, the ``@answer_rule(name)`` decorator of the answer rules), \
every call of that function,
followed until the name is a string literal or a module constant (``X = "..."`` or ``X = rule("...", ...)``, also
imported from another module). Only ``f.rule`` (re-emitting an existing finding under its own name) is passed
through. A rule argument the scan cannot follow fails the test: name the rule with a literal or a constant.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import ROOT

import wizard.core.lint  # noqa: F401  (these three register every rule the product emits)
import wizard.core.wizard_rules  # noqa: F401
from wizard.core.answers import rules as answer_rules
from wizard.core.rules import ANSWER, RULES, SECTIONS, in_section, rule

PACKAGE = ROOT / "wizard"


class Unresolved(Exception):
    pass


class Module:
    def __init__(self, path: Path, root: Path = PACKAGE.parent):
        self.path, self.root = path, root
        self.name = ".".join(path.relative_to(root).with_suffix("").parts)
        self.tree = ast.parse(path.read_text(), str(path))
        self.parent: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
        self.imports: dict[str, tuple[str, str]] = {}  # local name -> (module, name) for `from X import name`
        self.imported_modules: set[str] = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom):
                base = self.name.split(".")[:-node.level] if node.level else []
                mod = ".".join(base + ([node.module] if node.module else []))
                self.imported_modules.add(mod)
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = (mod, alias.name)
                    self.imported_modules.add(f"{mod}.{alias.name}")

    def scopes(self, node: ast.AST) -> list[ast.AST]:
        """The enclosing functions, innermost first."""
        out = []
        while node in self.parent:
            node = self.parent[node]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                out.append(node)
        return out

    def where(self, node: ast.AST) -> str:
        return f"{self.path.relative_to(self.root)}:{getattr(node, 'lineno', '?')}"


MODULES = {m.name: m for m in (Module(p) for p in sorted(PACKAGE.rglob("*.py")))}


def _callers(mod: Module, fn: ast.FunctionDef):
    """Calls of ``fn``: by name in its module or where it is imported from there; as a method (``x.fn(...)``) in
    its package folder and in modules importing its module."""
    package = mod.name.rsplit(".", 1)[0]
    method = bool(fn.args.args) and fn.args.args[0].arg in ("self", "cls")
    for other in MODULES.values():
        by_name = (other is mod and fn.name not in other.imports) or other.imports.get(fn.name) == (mod.name, fn.name)
        by_attr = method and (other.name.rsplit(".", 1)[0] == package or mod.name in other.imported_modules)
        for node in ast.walk(other.tree):
            if isinstance(node, ast.Call):
                f = node.func
                if (by_name and isinstance(f, ast.Name) and f.id == fn.name) or \
                        (by_attr and isinstance(f, ast.Attribute) and f.attr == fn.name):
                    yield other, node


def _module_value(mod: Module, name: str, seen) -> set[str]:
    for node in mod.tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return _resolve(mod, node.value, node, seen)
    if name in mod.imports:
        src, orig = mod.imports[name]
        if src in MODULES:
            return _module_value(MODULES[src], orig, seen)
    raise Unresolved(f"{mod.where(mod.tree)}: cannot follow the name {name!r}")


def _resolve(mod: Module, expr: ast.AST, at: ast.AST, seen: set) -> set[str]:
    """The rule names an expression can have."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return {expr.value}
    if isinstance(expr, ast.IfExp):
        return _resolve(mod, expr.body, at, seen) | _resolve(mod, expr.orelse, at, seen)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "rule" and expr.args:
        return _resolve(mod, expr.args[0], at, seen)  # X = rule("name", ...) registers and returns the name
    if isinstance(expr, ast.Attribute):
        if expr.attr == "rule":
            return set()  # an existing finding re-emitted under its own name
        values = set()  # self.stage_rule = RULE_X anywhere in the module
        for node in ast.walk(mod.tree):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == expr.attr
                                                    for t in node.targets):
                values |= _resolve(mod, node.value, node, seen)
        if not values:
            raise Unresolved(f"{mod.where(at)}: cannot follow {ast.unparse(expr)}")
        return values
    if isinstance(expr, ast.Name):
        for fn in mod.scopes(at):
            assigned = [n for n in ast.walk(fn) if isinstance(n, ast.Assign)
                        and any(isinstance(t, ast.Name) and t.id == expr.id for t in n.targets)]
            if assigned:
                return set().union(*(_resolve(mod, n.value, n, seen) for n in assigned))
            params = [a.arg for a in fn.args.posonlyargs + fn.args.args] if not isinstance(fn, ast.Lambda) else []
            if expr.id in params:
                return _through_callers(mod, fn, expr.id, params, seen)
        return _module_value(mod, expr.id, seen)
    raise Unresolved(f"{mod.where(at)}: cannot follow {ast.unparse(expr)}")


def _through_callers(mod: Module, fn: ast.FunctionDef, param: str, params: list[str], seen: set) -> set[str]:
    if (mod.name, fn.name, param) in seen:
        return set()
    seen = seen | {(mod.name, fn.name, param)}
    index = params.index(param)
    values, calls = set(), 0
    for other, call in _callers(mod, fn):
        shift = 1 if params and params[0] in ("self", "cls") and isinstance(call.func, ast.Attribute) else 0
        arg = next((k.value for k in call.keywords if k.arg == param), None)
        if arg is None and 0 <= index - shift < len(call.args):
            arg = call.args[index - shift]
        if arg is None:
            continue
        calls += 1
        values |= _resolve(other, arg, call, seen)
    if not calls:
        raise Unresolved(f"{mod.where(fn)}: no caller of {fn.name}() passes {param!r}")
    return values


def emitted_rule_names() -> dict[str, str]:
    """rule name -> where a finding with that name is made."""
    out: dict[str, str] = {}
    for mod in MODULES.values():
        for node in ast.walk(mod.tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Finding"):
                continue
            arg = next((k.value for k in node.keywords if k.arg == "rule"), None)
            if arg is None and len(node.args) > 1:
                arg = node.args[1]
            assert arg is not None, f"{mod.where(node)}: Finding(...) without a rule"
            for name in _resolve(mod, arg, node, set()):
                out.setdefault(name, mod.where(node))
    return out


REGISTERED = RULES


def test_the_scan_follows_every_emitter():
    names = emitted_rule_names()
    # one of each kind of emitter, so a scan that silently finds nothing cannot pass
    for name in ("answers-unknown-key", "answers-yaml", "config-unreadable", "import", "import-unsupported",
                 "verify-mismatch", "verify-load", "verify-library-warning", "duplicate-key",
                 "ds-config-file-invalid-json", "fsdp-min-num-params-unused", "multinode-needs-main-ip"):
        assert name in names, name


def test_every_emitted_rule_name_is_registered():
    missing = {name: where for name, where in emitted_rule_names().items() if name not in REGISTERED}
    assert not missing, ("emitted but not registered (register each with wizard/core/rules.py's rule(), in "
                         "wizard_rules.py, the config or the answer rules, then regenerate docs/rules.md): "
                         f"{missing}")


def test_every_registered_rule_is_emitted_somewhere():
    unused = set(REGISTERED) - set(emitted_rule_names())
    assert not unused, f"registered but never emitted: {sorted(unused)}"


def test_one_registry_a_name_registers_once_in_a_known_section():
    assert {info.section for info in RULES.values()} == set(SECTIONS)
    assert all(name == info.name for name, info in RULES.items())
    with pytest.raises(ValueError, match="registered twice"):
        rule("duplicate-key", "error", "a config rule's name again, as an answer rule", "x", section=ANSWER)
    with pytest.raises(ValueError, match="unknown section"):
        rule("stray-rule", "error", "a section the registry does not have", "x", section="lint")
    assert "stray-rule" not in RULES


def test_answer_rules_are_functions_named_after_their_rule():
    answer = in_section(ANSWER)
    assert len(answer) > 20
    for name, info in answer.items():
        fn = getattr(answer_rules, name.replace("-", "_"))
        assert info.check is not None and info.check.__wrapped__ is fn, name
    assert not [name for name, info in RULES.items() if info.check is not None and info.section != ANSWER]


def test_the_scan_catches_an_unregistered_literal(tmp_path):
    """The scan itself: a Finding with a literal name nobody registered is reported."""
    src = tmp_path / "wizard" / "core" / "stray.py"
    src.parent.mkdir(parents=True)
    src.write_text("from .findings import ERROR, Finding\n\n\ndef f(why):\n"
                   "    return Finding(ERROR, 'stray-rule', ('x',), why)\n")
    mod = Module(src, tmp_path)
    call = next(n for n in ast.walk(mod.tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Finding")
    assert _resolve(mod, call.args[1], call, set()) == {"stray-rule"}
    assert "stray-rule" not in REGISTERED
    with pytest.raises(Unresolved):
        _resolve(mod, ast.parse("why", mode="eval").body, call, set())


@pytest.mark.parametrize("emit", ["answers_text", "answers_mapping", "import_refused", "import_note", "check_missing"])
def test_emitters_at_run_time_use_registered_names_and_severities(emit, tmp_path, capsys):
    from wizard.core.answers import answers_from_mapping, parse_answers_text
    from wizard.core.answers.importer import import_mapping

    if emit == "answers_text":
        _, found = parse_answers_text("a: [" + "[" * 100 + "]" * 100 + "]")
    elif emit == "answers_mapping":
        _, found = answers_from_mapping({"schema_version": 9, "launch": {"num_procs": 2}, "backend": "x"})
    elif emit == "import_refused":
        _, found = import_mapping({"distributed_type": "MULTI_GPU"})
    elif emit == "import_note":
        _, found = import_mapping({"distributed_type": "FSDP", "num_processes": "many", "fsdp_config": {}})
    else:
        from wizard.core.answers.importer import import_config

        _, found = import_config(tmp_path / "missing.yaml")
    assert found
    for f in found:
        assert f.rule in REGISTERED, f.rule
        assert f.severity == REGISTERED[f.rule].severity, (f.rule, f.severity)
