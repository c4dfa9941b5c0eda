"""The libraries' tables have one home, ``wizard/core/library/`` (issue 20): no other module of ``wizard/`` states
one of them again, in whole or in good part, as a literal; and the few tables that are derived from another (an
inverse, a union) still are what they were stated as. Pure: reads the sources with ``ast``, imports no library."""
from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest
from helpers import ROOT

import wizard.core.library as library
from wizard.core.library import auto, deepspeed, fsdp, launcher

HOME = "wizard/core/library/"
SENTINELS = ("ACCELERATE_DEEPSPEED_ZERO_STAGE", "ACCELERATE_GRADIENT_CLIPPING", "FSDP_SHARDING_STRATEGY",
             "FSDP_TRANSFORMER_CLS_TO_WRAP", "zero_optimization.offload_param.device",
             "zero_optimization.stage3_gather_16bit_weights_on_model_save", "stage3_max_reuse_distance")
"""Members of the home's tables that no literal dict or set elsewhere has a reason to hold: one that does is a
table stated a second time."""
NOT_A_RESTATEMENT = ("wizard/runtime/", "wizard/core/verify/roundtrip.py", "wizard/core/verify/deepspeed_fill.py",
                     "wizard/core/verify/replay.py")
"""``wizard.runtime`` runs inside the user's training script and imports nothing of the wizard (test_import_contracts):
it names the environment variables it records itself. ``--verify``'s replay of the libraries' own code (accelerate's
``Accelerator._prepare_deepspeed`` among it, in roundtrip.py) is a transcript of that code, independent of the home on
purpose: the differential test (tests/verify/test_effective_differential.py) compares the effective model, which reads
the home, with what the replay builds (split into replay.py and deepspeed_fill.py, roundtrip.py their face)."""


def _home_tables() -> dict[str, set[str]]:
    """``module.NAME`` -> the strings of each table of the home (keys, members and string values), for the tables of
    five strings or more."""
    out = {}
    for info in pkgutil.iter_modules(library.__path__):
        module = importlib.import_module(f"{library.__name__}.{info.name}")
        tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
        assigned = {t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                    for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                    if isinstance(t, ast.Name)}
        for name, value in vars(module).items():
            if not name.isupper() or name not in assigned:  # stated here, not imported from a neighbour
                continue
            strings: set[str] = set()
            if isinstance(value, dict):
                strings = {s for pair in value.items() for s in pair if isinstance(s, str)}
            elif isinstance(value, (set, frozenset, tuple, list)):
                strings = {s for s in value if isinstance(s, str)}
            if len(strings) >= 5:
                out[f"{info.name}.{name}"] = strings
    return out


def _literals(path: Path):
    """(line, kind, the string constants directly inside) of every literal set, list, tuple, and dict of data (its
    values constants, not a record built from expressions) of a module."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Dict):
            if sum(isinstance(v, ast.Constant) for v in node.values) * 2 < len(node.values):
                continue
            parts, kind = [*node.keys, *node.values], "dict"
        elif isinstance(node, (ast.Set, ast.List, ast.Tuple)):
            parts, kind = node.elts, type(node).__name__.lower()
        else:
            continue
        strings = {p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str)}
        if strings:
            yield node.lineno, kind, strings


def restatements(root: Path = ROOT) -> list[str]:
    """``file:line`` of each literal outside the home that holds a sentinel (a dict or set), or shares five strings or
    more with one of the home's tables, more than half of the table's and of its own."""
    tables = _home_tables()
    found = []
    for path in sorted((root / "wizard").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith((HOME, *NOT_A_RESTATEMENT)):
            continue
        for line, kind, strings in _literals(path):
            hits = sorted(strings.intersection(SENTINELS)) if kind in ("dict", "set") else []
            hits += [f"{len(strings & members)} of the {len(members)} of {name}" for name, members in tables.items()
                     if len(strings & members) >= 5 and 2 * len(strings & members) > max(len(members), len(strings))]
            if hits:
                found.append(f"{rel}:{line}: {', '.join(hits)}")
    return found


def test_no_module_outside_the_home_restates_a_library_table():
    found = restatements()
    assert not found, ("library tables stated outside wizard/core/library/ (import them from there instead):\n  "
                       + "\n  ".join(found))


def test_a_restated_table_is_found(tmp_path):
    """The check sees a table stated again (the env map of the DeepSpeed inline keys, turned around), and a sentinel
    in a dict; the home itself is allowed."""
    (tmp_path / "wizard" / "core" / "library").mkdir(parents=True)
    (tmp_path / "wizard" / "core" / "library" / "deepspeed.py").write_text(
        "ENV = {'ACCELERATE_DEEPSPEED_ZERO_STAGE': 'zero_stage'}\n")
    half = dict(list({v: k for k, v in deepspeed.DS_ENV_TO_KEY.items()}.items())[:6])
    (tmp_path / "wizard" / "elsewhere.py").write_text(f"BACK = {half!r}\nOK = ('FSDP_SHARDING_STRATEGY',)\n"
                                                      "ONE = {'x': 'zero_optimization.offload_param.device'}\n")
    found = restatements(tmp_path)
    assert [f.split(":", 2)[:2] for f in found] == [["wizard/elsewhere.py", "1"], ["wizard/elsewhere.py", "3"]]
    assert "ACCELERATE_DEEPSPEED_ZERO_STAGE" in found[0] and "deepspeed.DS_ENV_TO_KEY" in found[0]


# ----------------------------------------------------------------------------- derived, not restated


def test_the_inverse_and_the_unions_are_derived():
    assert deepspeed.PATH_TO_INLINE == {path: name for name, path in deepspeed.INLINE_TO_PATH.items()}
    assert len(deepspeed.PATH_TO_INLINE) == len(deepspeed.INLINE_TO_PATH) == 8
    # accelerate refuses next to a deepspeed_config_file exactly the keys it maps into the JSON, and mixed_precision
    assert deepspeed.DS_FILE_CONFLICTING_FIELDS == (*deepspeed.INLINE_TO_PATH, "mixed_precision")
    assert set(deepspeed.INLINE_TO_PATH) <= deepspeed.DS_INLINE_KEYS
    assert set(deepspeed.DS_ENV_TO_KEY.values()) <= deepspeed.DS_INLINE_KEYS
    assert set(deepspeed.LAUNCH_DEEPSPEED_DEFAULTS) <= set(deepspeed.INLINE_TO_PATH)
    assert set(deepspeed.INLINE_TO_PATH.values()) | set(auto.HIDDEN_SIZE_AUTO_KEYS) | set(auto.ACCELERATE_FILLS) \
        <= auto.AUTO_FILLED
    assert fsdp.FSDP_KEYS == set(fsdp.FSDP_ENV_TO_ARG.values()) == set(fsdp.LAUNCH_FSDP_DEFAULTS)
    assert launcher.PARALLELISM_KEYS == launcher.PARALLELISM_ALWAYS | launcher.PARALLELISM_CP | launcher.PARALLELISM_SP


@pytest.mark.parametrize("h", [1, 64, 4096, 8192])
def test_hidden_size_fills(h):
    assert [auto.hidden_size_fill(k, h) for k in auto.HIDDEN_SIZE_AUTO_KEYS] == [h * h, int(0.9 * h * h), 10 * h]


def test_the_home_imports_nothing_of_the_wizard():
    """Pure data at the bottom of the floors: every part may import it (docs/architecture.md)."""
    for path in sorted((ROOT / HOME).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                assert node.level == 1, f"{path.name} imports {'.' * node.level}{node.module} (outside the home)"
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                assert not any(n.startswith("wizard") for n in names), f"{path.name}: {names}"
