"""Who drives training in a script, read from its source (imports and calls; the script is never run).

``infer_loop(path)`` answers ``"hf"`` when the script builds a Hugging Face Trainer (transformers' Trainer or
Seq2SeqTrainer, a TRL trainer, a subclass of one, or the entry point of a project built on them such as
LLaMA-Factory or axolotl), ``"accelerate"`` when it builds an ``Accelerator`` and calls ``prepare`` without any
Trainer, and None when it cannot tell, always with the evidence (file:line) or the reason.

Stdlib only (``ast``). The script is read within a bound (:data:`MAX_BYTES`, a regular file only: a FIFO or a
device is refused before a byte is read), and a source nested too deep for the parser or for the walk gives "cannot
tell" with the ``--trainer`` fix, never a RecursionError or MemoryError.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from .context import LOOP_ACCELERATE, LOOP_HF
from .inputs import read_bounded

TRAINER_MODULES = ("transformers", "trl", "peft", "setfit", "sentence_transformers", "optimum")
"""Packages whose ``...Trainer`` classes are (or derive from) transformers' Trainer."""
TRAINER_ENTRY_MODULES = ("llamafactory", "llmtuner", "axolotl", "swift", "open_r1", "alignment")
"""Projects whose training entry points run a transformers/TRL Trainer."""
MAX_BYTES = 2_000_000


OWN = "own"
"""An object the script builds itself (a torch optimizer, a torch LR scheduler) and passes to prepare()."""
DUMMY = "dummy"
"""accelerate's DummyOptim / DummyScheduler (DeepSpeed builds the real one from its JSON block)."""
SCHEDULE_FUNCTIONS_FROM = ("transformers", "diffusers")
"""Packages whose ``get_..._schedule...`` functions return a torch LR scheduler (LambdaLR)."""


@dataclass(frozen=True)
class Prepared:
    """An optimizer or scheduler the script passes to ``Accelerator.prepare()``: :data:`OWN` or :data:`DUMMY`, and
    where (``train.py:12 passes opt (torch.optim.AdamW(...), line 9) to prepare()``)."""

    kind: str
    evidence: str


@dataclass(frozen=True)
class ScriptLoop:
    loop: str | None
    evidence: str
    """Where it was seen (``train.py:42 SFTTrainer(...)``) or, for None, why nothing could be told."""
    prepared: dict[str, Prepared] = field(default_factory=dict)
    """``"optimizer"`` / ``"scheduler"`` -> what the script passes to prepare(), where the source shows it (a
    name bound to a call the wizard recognises, or the call itself); missing: not seen."""


class _Finder(ast.NodeVisitor):
    def __init__(self) -> None:
        self.trainer_names: set[str] = set()  # names bound to Trainer classes (imports, subclasses)
        self.trainer_modules: set[str] = set()  # names bound to modules that hold Trainer classes
        self.accelerator_names: set[str] = {"Accelerator"}
        self.accelerate_modules: set[str] = set()
        self.entry: tuple[int, str] | None = None
        self.trainer_call: tuple[int, str] | None = None
        self.accelerator_call: tuple[int, str] | None = None
        self.prepare_call: int | None = None
        self.imported_accelerator = False
        self.prepare_args: list[tuple[int, ast.expr]] = []  # every argument of every .prepare(...) call
        self.assigned: dict[str, list[ast.Call]] = {}  # name -> the calls assigned to it (any scope)
        self.optim_modules: set[str] = set()  # names bound to torch.optim (or another .optim module)
        self.sched_modules: set[str] = set()  # names bound to torch.optim.lr_scheduler
        self.torch_names: set[str] = set()  # names bound to torch
        self.optimizer_classes: set[str] = set()  # names imported from an optim module
        self.scheduler_names: set[str] = set()  # LR scheduler classes and schedule functions imported by name

    # imports --------------------------------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            top = alias.name.split(".")[0]
            bound = alias.asname or top
            if top == "torch" and not alias.asname:
                self.torch_names.add("torch")
            elif alias.asname and alias.name.endswith(".lr_scheduler"):
                self.sched_modules.add(alias.asname)
            elif alias.asname and alias.name.split(".")[-1] == "optim":
                self.optim_modules.add(alias.asname)
            elif alias.name == "torch":
                self.torch_names.add(bound)
            if top in TRAINER_MODULES:
                self.trainer_modules.add(bound)
            elif top == "accelerate":
                self.accelerate_modules.add(bound)
            elif top in TRAINER_ENTRY_MODULES and self.entry is None:
                self.entry = (node.lineno, f"import {alias.name}")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        top = (node.module or "").split(".")[0]
        parts = (node.module or "").split(".")
        for alias in node.names:
            bound = alias.asname or alias.name
            if alias.name == "optim":
                self.optim_modules.add(bound)
            elif alias.name == "lr_scheduler":
                self.sched_modules.add(bound)
            elif parts[-1] == "lr_scheduler":
                self.scheduler_names.add(bound)
            elif parts[-1] == "optim" or ".optim." in f".{node.module}.":
                self.optimizer_classes.add(bound)
            elif top in SCHEDULE_FUNCTIONS_FROM and alias.name.startswith("get_") and "schedule" in alias.name:
                self.scheduler_names.add(bound)
            if top in TRAINER_MODULES and alias.name.endswith("Trainer"):
                self.trainer_names.add(bound)
            elif top == "accelerate" and alias.name == "Accelerator":
                self.accelerator_names.add(bound)
                self.imported_accelerator = True
            elif top in TRAINER_ENTRY_MODULES and self.entry is None:
                self.entry = (node.lineno, f"from {node.module} import {alias.name}")
        self.generic_visit(node)

    # classes and calls ----------------------------------------------------------------------------------------
    def _is_trainer_ref(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name) and node.id in self.trainer_names:
            return node.id
        if isinstance(node, ast.Attribute) and node.attr.endswith("Trainer"):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in self.trainer_modules:
                return ast.unparse(node)
        return None

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if any(self._is_trainer_ref(b) for b in node.bases):
            self.trainer_names.add(node.name)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = self._is_trainer_ref(node.func)
        if name and self.trainer_call is None:
            self.trainer_call = (node.lineno, f"{name}(...)")
        f = node.func
        is_acc = (isinstance(f, ast.Name) and f.id in self.accelerator_names and self.imported_accelerator) or (
            isinstance(f, ast.Attribute) and f.attr == "Accelerator" and isinstance(f.value, ast.Name)
            and f.value.id in self.accelerate_modules)
        if is_acc and self.accelerator_call is None:
            self.accelerator_call = (node.lineno, "Accelerator(...)")
        if isinstance(f, ast.Attribute) and f.attr == "prepare":
            if self.prepare_call is None:
                self.prepare_call = node.lineno
            self.prepare_args += [(node.lineno, a.value if isinstance(a, ast.Starred) else a) for a in node.args]
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        if isinstance(node.value, ast.Call):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self.assigned.setdefault(target.id, []).append(node.value)
        self.generic_visit(node)

    # what prepare() gets ----------------------------------------------------------------------------------------
    def classify(self, call: ast.Call) -> tuple[str, str] | None:
        """("optimizer" | "scheduler", OWN | DUMMY) for a call that builds one, else None."""
        f = call.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
        if name == "DummyOptim":
            return "optimizer", DUMMY
        if name == "DummyScheduler":
            return "scheduler", DUMMY
        if isinstance(f, ast.Name):
            if f.id in self.scheduler_names:
                return "scheduler", OWN
            if f.id in self.optimizer_classes and f.id[:1].isupper():
                return "optimizer", OWN
            return None
        if not isinstance(f, ast.Attribute):
            return None
        chain, root = [], f.value  # torch.optim.lr_scheduler.X -> ["lr_scheduler", "optim"], root torch
        while isinstance(root, ast.Attribute):
            chain.append(root.attr)
            root = root.value
        if not isinstance(root, ast.Name):
            return None
        path = [root.id, *reversed(chain)]
        if root.id in self.sched_modules or "lr_scheduler" in path[1:]:
            return "scheduler", OWN
        if (root.id in self.optim_modules or "optim" in path[1:]) and f.attr[:1].isupper():
            return "optimizer", OWN
        return None

    def prepared(self, name: str) -> dict[str, Prepared]:
        out: dict[str, Prepared] = {}
        for line, arg in self.prepare_args:
            if isinstance(arg, ast.Call):
                calls, shown = [arg], None
            elif isinstance(arg, ast.Name):
                calls, shown = self.assigned.get(arg.id, []), arg.id
            else:
                continue
            for call in calls:
                found = self.classify(call)
                if found and found[0] not in out:
                    built = f"{ast.unparse(call.func)}(...)"
                    what = built if shown is None else f"{shown} ({built}, line {call.lineno})"
                    out[found[0]] = Prepared(found[1], f"{name}:{line} passes {what} to prepare()")
                    break
        return out


_PASS_TRAINER = "pass --trainer hf|accelerate"


def infer_loop_from_source(text: str, name: str = "script") -> ScriptLoop:
    too_deep = ScriptLoop(None, f"{name} is nested too deep for the wizard to read, so who drives training cannot "
                          f"be told ({_PASS_TRAINER})")
    try:
        tree = ast.parse(text, filename=name)
    except SyntaxError as e:
        return ScriptLoop(None, f"{name} is not Python the wizard can read (line {e.lineno}: {e.msg}; "
                          f"{_PASS_TRAINER})")
    except (RecursionError, MemoryError):  # the parser gives up on deep nesting with one or the other
        return too_deep
    finder = _Finder()
    try:
        # two passes: classes defined below their first use, names imported late
        finder.visit(tree)
        finder.trainer_call = finder.accelerator_call = None
        finder.prepare_call = None
        finder.prepare_args, finder.assigned = [], {}
        finder.visit(tree)
    except RecursionError:  # the walk recurses once per level of the tree
        return too_deep
    if finder.trainer_call:
        line, what = finder.trainer_call
        return ScriptLoop(LOOP_HF, f"{name}:{line} builds {what}")
    if finder.entry:
        line, what = finder.entry
        return ScriptLoop(LOOP_HF, f"{name}:{line} {what} (a project that trains through the Hugging Face Trainer)")
    if finder.accelerator_call and finder.prepare_call:
        try:
            prepared = finder.prepared(name)  # ast.unparse recurses too
        except RecursionError:
            return too_deep
        line, what = finder.accelerator_call
        return ScriptLoop(LOOP_ACCELERATE, f"{name}:{line} builds {what} and calls prepare() at line "
                          f"{finder.prepare_call}, with no Trainer", prepared)
    if finder.accelerator_call:
        line, _ = finder.accelerator_call
        return ScriptLoop(None, f"{name}:{line} builds Accelerator(...) but never calls prepare(), and builds no "
                          f"Trainer: the training may happen in another module ({_PASS_TRAINER})")
    return ScriptLoop(None, f"{name} builds neither a Trainer nor an Accelerator: the training may happen in another "
                      "module (pass --trainer hf|accelerate)")


def infer_loop(path: str | Path) -> ScriptLoop:
    """Read ``path`` (at most MAX_BYTES of it) and tell who drives training. Raises OSError when it cannot be read,
    ``InputError`` when it is not a regular file (a FIFO, a device)."""
    p = Path(path)
    data = read_bounded(p, MAX_BYTES, "training script")[:MAX_BYTES]
    return infer_loop_from_source(data.decode("utf-8", errors="replace"), p.name)
