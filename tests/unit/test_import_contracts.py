"""Layers without cycles: contracts over the import graph of ``wizard/`` (read with ``ast``), and a runtime check.

* the core (``wizard.core``) imports nothing of ``wizard.tui``, ``wizard.run``, ``wizard.commands`` or
  ``wizard.cli`` (not even inside a function), and none of textual, torch, accelerate, deepspeed or transformers
  at module level (``verify`` imports them inside its functions);
* the commands never import ``wizard.cli`` (it imports them; exit codes and ``UsageError`` are in
  ``wizard.core.exits``); the run layer never imports the TUI, and the TUI never imports the commands;
* ``wizard.runtime`` (copied next to training scripts) imports nothing of the wizard;
* no cycle anywhere in ``wizard/``: neither among the module-level imports nor once the imports inside functions
  (the lazy ones that keep start-up light) are added to them;
* no cycle between folders either (the floors, docs/architecture.md): a folder's loose modules count as the folder
  (``wizard/cli.py`` is ``wizard``, ``wizard/core/vocab.py`` is ``wizard.core``), each subpackage is a folder of its
  own, and a folder may only import folders on the floors below it, even inside a function.

An edge is an ``import`` or ``from ... import`` statement: relative imports are resolved, ``from pkg import name``
points at ``pkg.name`` when that is a module, and importing ``a.b.c`` also runs the packages ``a`` and ``a.b``.
Imports under ``if TYPE_CHECKING:`` never run: they count for the layer contracts, not for cycles.
Run this file as a script to print the cycles it finds and the floors of the folders:
``PYTHONPATH=tests python tests/unit/test_import_contracts.py``. A failure names each offending import as ``file:line``.
"""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pytest
from helpers import ROOT

PACKAGE = "wizard"
HEAVY = ("textual", "torch", "accelerate", "deepspeed", "transformers")
OUTER_LAYERS = ("wizard.tui", "wizard.run", "wizard.commands", "wizard.cli")
"""What the core must not import: the layers above it."""


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    """A dotted module name: one of ``wizard/``'s, or an outside one (``textual.app``)."""
    line: int
    lazy: bool = False
    """Inside a function (runs when the function is called, not at import)."""
    typing: bool = False
    """Under ``if TYPE_CHECKING:`` (never runs)."""
    file: str = field(default="", compare=False)
    """The source's file, from the repository root (``wizard/core/render.py``)."""

    def __str__(self) -> str:
        how = ", in a function" if self.lazy else ", under TYPE_CHECKING" if self.typing else ""
        return f"{self.file}:{self.line}: {self.source} -> {self.target}{how}"


def modules(root: Path = ROOT, package: str = PACKAGE) -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (file, is a package) for every module of ``package`` under ``root``."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        found[".".join(parts)] = (path, is_package)
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(name: str, path: Path, is_package: bool, known: set[str], root: Path = ROOT) -> list[Edge]:
    """Every import statement of one module, as edges (duplicates kept: each statement is one)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    file = path.relative_to(root).as_posix()
    here = name.split(".") if is_package else name.split(".")[:-1]  # the package relative imports start from
    edges: list[Edge] = []

    def targets(node: ast.Import | ast.ImportFrom) -> list[str]:
        if isinstance(node, ast.Import):
            return [alias.name for alias in node.names]
        if node.level:
            base = here[:len(here) - (node.level - 1)]
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module or ""
        out = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module for alias in node.names]
        return list(dict.fromkeys(out))

    def visit(node: ast.AST, lazy: bool, typing: bool) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for target in targets(node):
                edges.append(Edge(name, target, node.lineno, lazy, typing, file))
                # importing a.b.c runs a and a.b first: edges to the target's packages the source is not inside
                parts = target.split(".")
                for i in range(1, len(parts)):
                    parent = ".".join(parts[:i])
                    if parent in known and not (name == parent or name.startswith(parent + ".")):
                        edges.append(Edge(name, parent, node.lineno, lazy, typing, file))
            return
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, lazy, True)
            for child in node.orelse:
                visit(child, lazy, typing)
            return
        inner = lazy or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, inner, typing)

    visit(tree, False, False)
    return edges


def import_graph(root: Path = ROOT, package: str = PACKAGE) -> dict[str, list[Edge]]:
    """Module -> its import edges, for every module of ``package``."""
    found = modules(root, package)
    known = set(found)
    return {name: imports_of(name, path, is_package, known, root) for name, (path, is_package) in found.items()}


@lru_cache(maxsize=1)
def wizard_graph() -> dict[str, list[Edge]]:
    return import_graph()


def cycles(graph: dict[str, list[Edge]], *, lazy: bool) -> list[tuple[list[str], list[Edge]]]:
    """Each group of modules that import each other in a circle (a strongly connected component), with one of its
    cycles as edges; among the edges that run at import (``lazy=False``) or also those inside functions
    (``lazy=True``). ``TYPE_CHECKING`` edges never count."""
    inner: dict[str, dict[str, Edge]] = {name: {} for name in graph}
    for name, edges in graph.items():
        for e in edges:
            if e.target in graph and e.target != e.source and not e.typing and (lazy or not e.lazy):
                inner[name].setdefault(e.target, e)  # the first statement of an edge names it
    # Tarjan's strongly connected components, iterative
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in inner:
        if start in index:
            continue
        work = [(start, iter(inner[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(inner[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    found = []
    for group in sorted(groups):
        members = set(group)
        # the shortest way from the group's first module back to itself
        first = group[0]
        paths = {first: []}
        queue = [first]
        cycle = None
        while queue and cycle is None:
            node = queue.pop(0)
            for target, e in sorted(inner[node].items()):
                if target not in members:
                    continue
                if target == first:
                    cycle = paths[node] + [e]
                    break
                if target not in paths:
                    paths[target] = paths[node] + [e]
                    queue.append(target)
        found.append((group, cycle or []))
    return found


def _show(found: list[tuple[list[str], list[Edge]]]) -> str:
    return "\n\n".join(f"  {len(group)} modules in a circle: {', '.join(group)}; one cycle:\n"
                       + "\n".join(f"    {e}" for e in cycle) for group, cycle in found)


def _is_in(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _listed(edges: list[Edge]) -> str:
    return "\n".join(f"  {e}" for e in edges)


# ----------------------------------------------------------------------------- folders


def folder_of(name: str, found: dict[str, tuple[Path, bool]]) -> str:
    """The folder a module counts as: a package is its own folder, a loose module its package's."""
    return name if found[name][1] else name.rsplit(".", 1)[0]


def folder_graph(graph: dict[str, list[Edge]], found: dict[str, tuple[Path, bool]]) -> dict[str, list[Edge]]:
    """Folder -> the imports that leave it for another folder of the package, as edges between folders; each keeps
    the file and line of the statement, and the modules are named in ``imports``."""
    out: dict[str, list[Edge]] = {folder_of(name, found): [] for name in graph}
    for name, edges in graph.items():
        here = folder_of(name, found)
        for e in edges:
            if e.target in graph and folder_of(e.target, found) != here:
                out[here].append(Edge(here, folder_of(e.target, found), e.line, e.lazy, e.typing, e.file))
    return out


def _module_edges(graph: dict[str, list[Edge]], found: dict[str, tuple[Path, bool]], a: str, b: str,
                  lazy: bool) -> list[Edge]:
    """The import statements that make folder ``a`` import folder ``b`` (each statement once)."""
    out: dict[tuple[str, int], Edge] = {}
    for name, edges in graph.items():
        if folder_of(name, found) == a:
            for e in edges:
                if e.target in graph and folder_of(e.target, found) == b and not e.typing and (lazy or not e.lazy):
                    out.setdefault((e.file, e.line), e)
    return list(out.values())


def folder_cycles(graph: dict[str, list[Edge]], found: dict[str, tuple[Path, bool]], *,
                  lazy: bool) -> list[tuple[list[str], list[Edge]]]:
    """Each group of folders that import each other in a circle, with one cycle, every step of it given as the
    module imports (file:line) that make it."""
    folders = folder_graph(graph, found)
    out = []
    for group, cycle in cycles(folders, lazy=lazy):
        out.append((group, [m for step in cycle for m in _module_edges(graph, found, step.source, step.target, lazy)]))
    return out


def floors(graph: dict[str, list[Edge]], found: dict[str, tuple[Path, bool]]) -> dict[str, int]:
    """Folder -> its floor: 0 for a folder that imports no other, else one above the highest folder it imports
    (imports inside functions count; ``TYPE_CHECKING`` ones do not). Only meaningful without folder cycles."""
    below = {f: {e.target for e in edges if not e.typing} for f, edges in folder_graph(graph, found).items()}
    memo: dict[str, int] = {}

    def floor(f: str, seen: tuple[str, ...] = ()) -> int:
        if f not in memo:
            inner = [floor(g, seen + (f,)) for g in below[f] if g not in seen]
            memo[f] = 1 + max(inner) if inner else 0
        return memo[f]

    return {f: floor(f) for f in sorted(below)}


@lru_cache(maxsize=1)
def wizard_modules() -> dict[str, tuple[Path, bool]]:
    return modules()


# ----------------------------------------------------------------------------- the graph is really read


def test_the_graph_resolves_relative_and_submodule_imports():
    g = wizard_graph()
    assert {"wizard.cli", "wizard.core.catalog", "wizard.tui.app", "wizard.tui.screens.main"} <= set(g)
    kinds = {(e.source, e.target): set() for edges in g.values() for e in edges}
    for edges in g.values():
        for e in edges:
            kinds[e.source, e.target].add("lazy" if e.lazy else "typing" if e.typing else "module")
    assert kinds["wizard.cli", "wizard.core.exits"] == {"module"}  # from .exits import ...
    assert kinds["wizard.cli", "wizard.commands.headless"] == {"lazy"}  # from .commands import headless, in main()
    assert "module" in kinds["wizard.tui.app", "wizard.core"]  # the package runs before wizard.core.catalog
    assert "module" in kinds["wizard.tui.app", "textual.app"]
    assert kinds["wizard.tui.screens.flows", "wizard.tui.screens.run"] == {"typing", "lazy"}


def test_a_cycle_is_found(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from .. import a\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n")
    g = import_graph(tmp_path, "pkg")
    assert cycles(g, lazy=False) == []
    found = cycles(g, lazy=True)
    assert [(group, [(e.source, e.target) for e in cycle]) for group, cycle in found] == [
        (["pkg.a", "pkg.sub.b"], [("pkg.a", "pkg.sub.b"), ("pkg.sub.b", "pkg.a")])]
    (pkg / "sub" / "b.py").write_text("import pkg.a\n")
    assert len(cycles(import_graph(tmp_path, "pkg"), lazy=False)) == 1


def test_a_cycle_between_folders_is_found_where_modules_have_none(tmp_path):
    """pkg/top.py imports pkg/sub, pkg/sub imports pkg/bottom.py: no module cycle, but the loose modules of pkg/ are
    one folder, above and below pkg/sub at once."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "top.py").write_text("from .sub import middle\n")
    (pkg / "sub" / "middle.py").write_text("import json\n\n\ndef f():\n    from .. import bottom\n")
    (pkg / "bottom.py").write_text("X = 1\n")
    g, found = import_graph(tmp_path, "pkg"), modules(tmp_path, "pkg")
    assert cycles(g, lazy=True) == []
    assert folder_cycles(g, found, lazy=False) == []  # the upward import is inside a function
    [(group, steps)] = folder_cycles(g, found, lazy=True)
    assert group == ["pkg", "pkg.sub"]
    assert [str(e) for e in steps] == ["pkg/top.py:1: pkg.top -> pkg.sub.middle",
                                       "pkg/sub/middle.py:5: pkg.sub.middle -> pkg.bottom, in a function"]
    (pkg / "bottom.py").unlink()
    (pkg / "sub" / "bottom.py").write_text("X = 1\n")
    (pkg / "sub" / "middle.py").write_text("from . import bottom\n")
    g, found = import_graph(tmp_path, "pkg"), modules(tmp_path, "pkg")
    assert folder_cycles(g, found, lazy=True) == []
    assert floors(g, found) == {"pkg": 1, "pkg.sub": 0}


# ----------------------------------------------------------------------------- the contracts


def test_no_cycle_among_module_level_imports():
    found = cycles(wizard_graph(), lazy=False)
    assert not found, "import cycles at module level:\n" + _show(found)


def test_no_cycle_even_with_the_imports_inside_functions():
    """A lazy import keeps start-up light; it must still point down the layers, never back up."""
    found = cycles(wizard_graph(), lazy=True)
    assert not found, "import cycles (counting the imports inside functions):\n" + _show(found)


def test_no_cycle_between_folders_even_with_the_imports_inside_functions():
    """The floors: a folder (its loose modules together) never imports a folder that imports it back, directly or
    through others. Where it fails, move the module to the floor its imports say it is on (docs/architecture.md)."""
    found = folder_cycles(wizard_graph(), wizard_modules(), lazy=True)
    assert not found, "folders importing each other in a circle (a folder's loose modules count as the folder):\n" + \
        "\n\n".join(f"  {', '.join(group)}; the imports of one cycle:\n" + "\n".join(f"    {e}" for e in steps)
                     for group, steps in found)


def _imports_between(sources: tuple[str, ...], targets: tuple[str, ...]) -> list[Edge]:
    return [e for name, edges in wizard_graph().items() if _is_in(name, sources)
            for e in edges if _is_in(e.target, targets)]


def test_the_core_imports_no_outer_layer():
    bad = _imports_between(("wizard.core",), OUTER_LAYERS)
    assert not bad, "the core imports the layers above it:\n" + _listed(bad)


def test_the_run_layer_never_imports_the_tui():
    """The TUI drives runs; a run knows nothing of the screens showing it (the CLI drives the same runs)."""
    bad = _imports_between(("wizard.run",), ("wizard.tui",))
    assert not bad, "wizard.run importing the TUI:\n" + _listed(bad)


def test_the_tui_never_imports_the_commands():
    """The commands start the TUI (``tui_entry``); what both need lives in the core or the run layer."""
    bad = _imports_between(("wizard.tui",), ("wizard.commands", "wizard.cli"))
    assert not bad, "the TUI importing the commands or the CLI:\n" + _listed(bad)


def test_the_runtime_imports_nothing_of_the_wizard():
    """``wizard.runtime`` runs inside the user's training script and can be copied there alone."""
    bad = [e for name, edges in wizard_graph().items() if _is_in(name, ("wizard.runtime",))
           for e in edges if _is_in(e.target, ("wizard",)) and not _is_in(e.target, ("wizard.runtime",))]
    assert not bad, "wizard.runtime importing the rest of the wizard:\n" + _listed(bad)


def test_every_package_is_listed_for_the_wheel():
    """pyproject's ``[tool.setuptools] packages`` names each package by hand; one left out is missing from the
    wheel (tests/install builds it, in the slow tier)."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    packages = {name for name, (_, is_package) in wizard_modules().items() if is_package}
    assert packages - listed == set(), "add them to [tool.setuptools] packages in pyproject.toml"


def test_the_core_imports_no_heavy_library_at_module_level():
    bad = [e for name, edges in wizard_graph().items() if _is_in(name, ("wizard.core",))
           for e in edges if not e.lazy and not e.typing and e.target.split(".")[0] in HEAVY]
    assert not bad, "heavy imports at module level in the core:\n" + _listed(bad)


def test_the_commands_never_import_the_cli():
    bad = _imports_between(("wizard.commands",), ("wizard.cli",))
    assert not bad, "commands importing wizard.cli (use wizard.core.exits):\n" + _listed(bad)


CORE_MODULES = sorted(name for name in modules() if _is_in(name, ("wizard.core",)))


@pytest.mark.parametrize("module", CORE_MODULES)
def test_importing_a_core_module_loads_no_heavy_library(module):
    """In a fresh interpreter, so that nothing else imported them first."""
    src = (f"import sys, json, {module}\n"
           f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({list(HEAVY)!r}))))")
    proc = subprocess.run([sys.executable, "-c", src], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [], f"import {module} loads {proc.stdout.strip()}"


if __name__ == "__main__":
    g, found_modules = wizard_graph(), wizard_modules()
    for lazy, what in ((False, "module-level imports"), (True, "module-level and function-level imports")):
        found = cycles(g, lazy=lazy)
        print(f"{len(found)} cycle(s) among the {what}" + (":\n" + _show(found) if found else ""))
    between = folder_cycles(g, found_modules, lazy=True)
    print(f"{len(between)} cycle(s) between folders" + "".join(
        f"\n  {', '.join(group)}:\n" + "\n".join(f"    {e}" for e in steps) for group, steps in between))
    if not between:
        levels = floors(g, found_modules)
        imported = {f: sorted({e.target for e in edges if not e.typing})
                    for f, edges in folder_graph(g, found_modules).items()}
        print("floors, from the top (a folder imports only folders below it):")
        for f in sorted(levels, key=lambda f: (-levels[f], f)):
            print(f"  {levels[f]:2}  {f:22} imports {', '.join(imported[f]) or 'nothing of the wizard'}")
