"""Where findings are made: every call of the wizard's code that makes a finding, read with ``ast``, once, for the two
readers of what the code says there: docs/rules.md (:mod:`wizard.core.docs.rules`: the keys a rule blames and its
fix) and the findings' messages in the other languages (:mod:`wizard.core.localized.messages`: the message and fix
templates).

A finding is made by

- ``ctx.emit(RULE, keys, message, fix)`` (the config rules, the converter; an ``emit("name", ...)`` whose first
  argument is a string is another kind of emit, not a finding),
- ``Finding(severity, RULE, keys, message, fix, ...)``,
- ``_ds_error(RULE, message, fix)`` (the DeepSpeed JSON's own errors; they blame ``DS_FILE_KEY``),
- an answer rule's ``yield (keys, message, fix)`` (in a function decorated ``@answer_rule("name", ...)``),

each with ``message=`` and ``fix=`` also as keywords; and a sentence shown outside a finding by ``said(message)``
(:func:`wizard.core.i18n.said`: a message, no rule). Each is a :class:`Site`: the expressions as written there, the
function and module they are in, and the rule's registered name where the code names it (a constant of the module
assigned ``RULE = rule("name", ...)`` at its top level, or the answer rule's decorator).

A call in a nested function is a site of each function around it, outermost first (a name in it is looked up in that
function's assignments), in the order :func:`ast.walk` meets functions and calls; the readers keep what they saw
first. Neither start path imports this module (only the two tools that read the code do).
"""
from __future__ import annotations

import ast
from pathlib import Path

from .recordclass import record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
"""The wizard package (``wizard/``): a site's path is relative to it (``core/lint/general.py``)."""
MARKERS = ("emit(", "Finding(", "answer_rule", "_ds_error(", "said(")
"""A module without any of these makes no finding (and is not parsed)."""


@record(frozen=True)
class Site:
    """One place a finding (or a ``said`` sentence) is made: its parts as written there (None where the call gives
    none)."""

    rule: str | None
    """The registered rule's name where the code names it by a constant or a decorator; else None."""
    keys: ast.AST | None
    message: ast.AST | None
    fix: ast.AST | None
    function: ast.FunctionDef | ast.AsyncFunctionDef
    module: ast.Module
    path: str
    """The module's file, relative to ``wizard/`` (posix)."""


def functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function (and method) in ``tree``, nested ones too, in :func:`ast.walk` order."""
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield n


def assigned(fn: ast.AST, name: str) -> list[ast.AST]:
    """Every value assigned to the plain name ``name`` in ``fn`` (``name = value``), in :func:`ast.walk` order."""
    return [n.value for n in ast.walk(fn)
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]


def module_value(module: ast.Module | None, name: str) -> ast.AST | None:
    """The value of ``name`` assigned once at the top level of ``module`` (a constant sentence or table), or in the
    sibling module it imports ``name`` from (``from .cli_words import COMMANDS``, when ``module`` was parsed by
    :func:`parse_file`); None when it is assigned there never or more than once."""
    found = [n.value for n in getattr(module, "body", ())
             if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]
    if len(found) == 1:
        return found[0]
    path = getattr(module, "source_path", None)
    if found or path is None:
        return None
    for n in module.body:  # type: ignore[union-attr]
        if isinstance(n, ast.ImportFrom) and n.level == 1 and n.module \
                and any(a.name == name and a.asname in (None, name) for a in n.names):
            sibling = path.parent.joinpath(*n.module.split(".")).with_suffix(".py")
            return module_value(parse_file(sibling), name) if sibling.is_file() else None
    return None


def parse_file(path: Path) -> ast.Module:
    """``path``'s syntax tree, knowing its file (for :func:`module_value`'s imported tables)."""
    module = ast.parse(path.read_text(encoding="utf-8"))
    module.source_path = path  # type: ignore[attr-defined]
    return module


def _registered(module: ast.Module) -> dict[str, str]:
    """Constant -> the rule's name, for each ``CONSTANT = rule("name", ...)`` at the module's top level."""
    out: dict[str, str] = {}
    for n in module.body:
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name) \
                and n.value.func.id == "rule" and n.value.args and isinstance(n.value.args[0], ast.Constant) \
                and isinstance(n.value.args[0].value, str):
            for target in n.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = n.value.args[0].value
    return out


def _answer_rule(fn: ast.AST) -> tuple[bool, str | None]:
    """Whether ``fn`` is decorated ``@answer_rule(...)``, and the rule's name when the decorator writes it."""
    decorators = [d for d in getattr(fn, "decorator_list", ()) if isinstance(d, ast.Call)
                  and isinstance(d.func, ast.Name) and d.func.id == "answer_rule"]
    names = [d.args[0].value for d in decorators if d.args and isinstance(d.args[0], ast.Constant)
             and isinstance(d.args[0].value, str)]
    return bool(decorators), (names[0] if names else None)


def _arg(args: list[ast.expr], i: int) -> ast.expr | None:
    return args[i] if len(args) > i else None


def sites_of(module: ast.Module, path: str) -> Iterator[Site]:
    """Every site of the parsed ``module`` (its file ``path``, relative to ``wizard/``), function by function."""
    registered = _registered(module)
    for fn in functions(module):
        is_answer_rule, answer_name = _answer_rule(fn)
        for node in ast.walk(fn):
            rule: ast.AST | None = None
            keys = message = fix = None
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                args = node.args
                if name == "emit" and args and not isinstance(args[0], ast.Constant):
                    rule, keys, message, fix = args[0], _arg(args, 1), _arg(args, 2), _arg(args, 3)
                elif name == "Finding" and len(args) >= 2:
                    rule, keys, message, fix = args[1], _arg(args, 2), _arg(args, 3), _arg(args, 4)
                elif name == "_ds_error" and args:
                    rule, keys, message, fix = args[0], ast.Name("DS_FILE_KEY", ast.Load()), _arg(args, 1), \
                        _arg(args, 2)
                elif name == "said" and len(args) == 1:
                    message = args[0]
                else:
                    continue
                for kw in node.keywords:
                    if kw.arg == "message":
                        message = kw.value
                    elif kw.arg == "fix":
                        fix = kw.value
                rule_name = registered.get(rule.id) if isinstance(rule, ast.Name) else None
            elif is_answer_rule and isinstance(node, ast.Yield) and isinstance(node.value, ast.Tuple) \
                    and len(node.value.elts) == 3:
                keys, message, fix = node.value.elts
                rule_name = answer_name
            else:
                continue
            yield Site(rule_name, keys, message, fix, fn, module, path)


def parsed(path: Path) -> tuple[ast.Module, str]:
    """The module at ``path`` parsed, and its path relative to ``wizard/``."""
    return ast.parse(path.read_text(encoding="utf-8")), path.resolve().relative_to(ROOT).as_posix()


def in_modules(modules: Iterable[ModuleType]) -> Iterator[Site]:
    """The sites of these imported modules of the wizard, module by module."""
    for mod in modules:
        yield from sites_of(*parsed(Path(str(mod.__file__))))


def everywhere() -> Iterator[Site]:
    """The sites of every module of the wizard (``wizard/**/*.py``, by path), but those without any of
    :data:`MARKERS`."""
    for path in sorted(ROOT.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if any(marker in source for marker in MARKERS):
            yield from sites_of(ast.parse(source), path.relative_to(ROOT).as_posix())
