"""The claim registry (wizard/core/claims/): every cited claim exists, points into docs/library-behaviour.md and the
library code, and is either demonstrated by a test in tests/claims/ that carries its marker or says why it can only
be read from the code; docs/claims.md is current; every text, setting line and switch note cites claims, \
and the rules that do not yet are
listed (tests/rules_without_claims.py) and may only become fewer."""
from __future__ import annotations

import ast
import re

import pytest
from helpers import ROOT

from wizard.core.claims import CLAIMS
from wizard.core.claims.doc import markdown
from wizard.core.claims.index import citations

BEHAVIOUR = (ROOT / "docs" / "library-behaviour.md").read_text(encoding="utf-8")
ANCHORS = set(re.findall(r'<a id="([A-Za-z0-9_-]+)"></a>', BEHAVIOUR))
LIBRARY_FILE = re.compile(r"(?<![\w./-])(accelerate|deepspeed|transformers|torch)/[\w/]+\.py:\d+")
CLAIM_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)+$")


def claim_tests() -> dict[str, list[str]]:
    """tests/claims/*.py: ``path::function`` -> the claim ids of its ``@pytest.mark.claim(...)`` markers."""
    out: dict[str, list[str]] = {}
    for path in sorted((ROOT / "tests" / "claims").glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.name.startswith("test_"):
                continue
            ids = [d.args[0].value for d in node.decorator_list
                   if isinstance(d, ast.Call) and ast.unparse(d.func) == "pytest.mark.claim"
                   and d.args and isinstance(d.args[0], ast.Constant)]
            out[f"tests/claims/{path.name}::{node.name}"] = ids
    return out


def test_claims_are_registered_with_doc_and_code_references():
    assert CLAIMS
    for c in CLAIMS.values():
        assert CLAIM_ID.match(c.id), c.id
        assert c.doc in ANCHORS, f"{c.id}: no anchor #{c.doc} in docs/library-behaviour.md"
        assert LIBRARY_FILE.search(c.code), f"{c.id}: cite the library file and line (accelerate/x.py:123): {c.code!r}"
        assert c.says.strip().endswith("."), c.id


def test_every_cited_claim_is_registered_and_every_claim_is_cited():
    cites = citations()
    unknown = {cid: whos for cid, whos in cites.items() if cid not in CLAIMS}
    assert not unknown, f"cited but not registered in wizard/core/claims/: {unknown}"
    uncited = [cid for cid in CLAIMS if not cites[cid]]
    assert not uncited, f"registered but stated nowhere (cite them in a text, setting or rule, or drop them): {uncited}"


def test_demonstrated_claims_name_a_test_that_carries_their_marker():
    tests = claim_tests()
    for c in CLAIMS.values():
        if c.demo:
            assert c.demo in tests, f"{c.id}: {c.demo} is not a test function in tests/claims/"
            assert c.id in tests[c.demo], f"{c.id}: {c.demo} lacks @pytest.mark.claim({c.id!r})"
        else:
            assert c.why_not_demo.strip(), c.id


def test_every_claim_test_demonstrates_a_registered_claim_that_names_it():
    for test, ids in claim_tests().items():
        assert ids, f"{test}: a test in tests/claims/ carries @pytest.mark.claim(...)"
        for cid in ids:
            assert cid in CLAIMS, f"{test}: unknown claim {cid!r}"
            assert CLAIMS[cid].demo == test, f"{test} demonstrates {cid}, but the claim names {CLAIMS[cid].demo!r}"


def _literal(node, names: dict[str, ast.AST]):
    """A parametrize argument as literal elements: a list or tuple, a dict (its keys), a module-level name bound to
    one, or ``list(...)`` / ``tuple(...)`` of those; None when it is computed."""
    if isinstance(node, ast.Call) and ast.unparse(node.func) in ("list", "tuple") and len(node.args) == 1:
        return _literal(node.args[0], names)
    if isinstance(node, ast.Name) and node.id in names:
        return _literal(names[node.id], names)
    if isinstance(node, ast.Dict):
        return node.keys
    if isinstance(node, (ast.List, ast.Tuple)):
        return node.elts
    return None


def _parametrize_ids(node: ast.Call, names: dict[str, ast.AST] | None = None) -> set[str]:
    """The test ids one ``@pytest.mark.parametrize(...)`` gives: its ``ids=[...]``, ``pytest.param(..., id=...)``
    entries, or the values themselves when they are plain constants (as pytest writes them); ``names``: the test
    module's top-level assignments, for ids or values held in a module constant."""
    names = names or {}
    ids = _literal(next((k.value for k in node.keywords if k.arg == "ids"), None), names)
    if ids is not None:
        return {str(e.value) for e in ids if isinstance(e, ast.Constant)}
    values = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "argvalues"),
                                                            None)
    out: set[str] = set()
    for e in _literal(values, names) or []:
        if isinstance(e, ast.Constant):
            out.add(str(e.value))
        elif isinstance(e, ast.Call) and ast.unparse(e.func) == "pytest.param":
            out |= {str(k.value.value) for k in e.keywords if k.arg == "id" and isinstance(k.value, ast.Constant)}
    return out


def claim_test_ids() -> dict[str, set[str]]:
    """tests/claims/*.py: ``path::function`` -> the ids of its parametrize decorators (all of them together)."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / "tests" / "claims").glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
                 if isinstance(t, ast.Name)}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_"):
                out[f"tests/claims/{path.name}::{node.name}"] = set().union(*(
                    _parametrize_ids(d, names) for d in node.decorator_list
                    if isinstance(d, ast.Call) and ast.unparse(d.func) == "pytest.mark.parametrize"))
    return out


def test_a_scoped_claim_is_tested_once_per_case_of_its_scope():
    """A claim's scope lists the cases its sentence covers; its test is parametrized over them, so a sentence wider
    than its test fails here (issue 23)."""
    ids = claim_test_ids()
    for c in CLAIMS.values():
        if c.scope and c.demo:
            missing = set(c.scope) - ids[c.demo]
            assert not missing, (f"{c.id}: its sentence covers {sorted(missing)}, but {c.demo} has no test id for "
                                 f"them (parametrize it, one id per case: ids={list(c.scope)!r})")


def test_every_claim_states_its_scope():
    """Issue 23: every claim says which cases its sentence covers (claim(..., scope=(...)))."""
    assert sorted(c.id for c in CLAIMS.values() if not c.scope) == []


_PROSE = ("text ", "group text ", "meaning change ", "dtype table")


def restated() -> dict[str, tuple[str, ...]]:
    """Claims stated in the prose of more than one explanation (a setting's text, a group's text, a switch note, the
    dtype table): each of those writes the fact in its own words, so two of them can come to disagree."""
    out = {}
    for cid, whos in citations().items():
        prose = tuple(w for w in whos if w.startswith(_PROSE))
        if len(prose) > 1:
            out[cid] = prose
    return out


def test_a_fact_stated_in_several_explanations_is_listed_and_the_list_only_shrinks():
    """One fact, one place (issue 23): a claim newly stated in a second explanation fails here; state it once (the
    claim's sentence, or one text the others point to) and take it off tests/claims_restated.py."""
    from claims_restated import RESTATED  # tests/claims_restated.py

    now = set(restated())
    assert now - RESTATED == set(), {cid: restated()[cid] for cid in now - RESTATED}
    assert RESTATED - now == set(), "stated once now: take these ids out of tests/claims_restated.py"


def test_a_scope_check_catches_a_sentence_wider_than_its_test():
    tree = ast.parse("@pytest.mark.parametrize('stage', [1, 2])\n"
                     "@pytest.mark.parametrize('loop', ['a'], ids=['own-loop'])\n"
                     "@pytest.mark.parametrize('v', [pytest.param(1, id='fsdp2')])\ndef test_x(stage): pass\n")
    got = set().union(*(_parametrize_ids(d) for d in tree.body[0].decorator_list))
    assert got == {"1", "2", "own-loop", "fsdp2"}
    assert {"0", "1", "2"} - got == {"0"}  # a sentence about ZeRO-0, 1 and 2 over a test of 1 and 2


def test_docs_claims_md_is_current():
    path = ROOT / "docs" / "claims.md"
    assert path.read_text(encoding="utf-8") == markdown(), \
        "docs/claims.md is stale: run `python -m wizard.core.claims.doc > docs/claims.md`"


def test_a_failing_claim_test_names_what_to_revisit():
    from wizard.core.claims.index import revisit

    some = next(iter(CLAIMS))
    text = revisit(some)
    assert some in text and CLAIMS[some].doc in text
    for who in citations()[some]:
        assert who in text
    assert "not registered" in revisit("no-such-claim")


# ------------------------------------------------------------------------------------------- everything cites
# What the wizard shows about the libraries (setting and group texts, the settings' counterpart and not-applicable
# lines, the backend-switch notes) cites the claims it states. (The list of what did not yet is empty and gone.)
@pytest.fixture(scope="module")
def stated():
    from wizard.core.catalog import SETTINGS
    from wizard.core.texts import GROUP_TEXTS, TEXTS

    out = {f"text {sid}": t.claims for sid, t in TEXTS.items()}
    out |= {f"group text {gid}": g.claims for gid, g in GROUP_TEXTS.items()}
    out |= {f"setting {s.id}": s.claims for s in SETTINGS if s.counterpart or s.not_applicable}
    from wizard.core.claims.index import meaning_change_name
    from wizard.core.texts.switching import MEANING_CHANGES

    for m in MEANING_CHANGES:  # two notes for one setting and direction share a name: all must cite claims
        name = meaning_change_name(m)
        out[name] = m.claims if name not in out else (out[name] if out[name] and m.claims else ())
    return out


def test_every_text_setting_line_and_switch_note_cites_its_claims(stated):
    assert len(stated) > 100
    missing = sorted(who for who, ids in stated.items() if not ids)
    assert not missing, f"cite the claims these state (claims=(...)): {missing}"


def test_rules_without_claims_are_listed_and_the_list_only_shrinks():
    from rules_without_claims import RULES_WITHOUT_CLAIMS  # tests/rules_without_claims.py

    from wizard.core.docs import rules as rules_doc  # noqa: F401 - registers every rule
    from wizard.core.rules import ANSWER, CONFIG, RULES

    library_rules = {n: r for n, r in RULES.items() if r.section in (CONFIG, ANSWER)}
    missing = sorted(n for n, r in library_rules.items() if not r.claims and n not in RULES_WITHOUT_CLAIMS)
    assert not missing, f"a new rule cites the claims its message states (claims=(...)): {missing}"
    done = sorted(n for n in RULES_WITHOUT_CLAIMS if n in library_rules and library_rules[n].claims)
    assert not done, f"these cite claims now: remove them from tests/rules_without_claims.py: {done}"
    gone = sorted(n for n in RULES_WITHOUT_CLAIMS if n not in library_rules)
    assert not gone, f"no longer registered: remove them from tests/rules_without_claims.py: {gone}"


def test_a_failing_claim_test_reports_the_claim_and_what_states_it(tmp_path):
    import os
    import subprocess
    import sys

    test = tmp_path / "test_upgrade.py"
    test.write_text('import pytest\n\n\n@pytest.mark.claim("ds-overlap-comm-default")\n'
                    'def test_behaviour_changed():\n    assert False\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)])}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "claims_plugin",
                           "-W", "ignore::pytest.PytestUnknownMarkWarning", str(test)],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Claim ds-overlap-comm-default no longer holds" in proc.stdout
    assert "text deepspeed.overlap_comm" in proc.stdout  # what to revisit
