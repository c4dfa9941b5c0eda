"""Every rule source points at something a reader can open: a section of docs/library-behaviour.md that exists, or
a library file (relative to site-packages). The ids of the internal reference document (D4, F13, G7, ...) are gone
for good: that document is not in the repository."""
import re
from collections import Counter

import pytest
from helpers import ROOT

import wizard.core.answers.rules  # noqa: F401  (these three register every rule)
import wizard.core.lint  # noqa: F401
import wizard.core.wizard_rules  # noqa: F401
from wizard.core import verify
from wizard.core.findings import DOC
from wizard.core.rules import ANSWER, CONFIG, IMPORT, INPUT, RULES, VERIFY

BEHAVIOUR = ROOT / "docs" / "library-behaviour.md"
ANCHOR_CITE = re.compile(r"docs/library-behaviour\.md#([^\s;,)]+)")
LIBRARY_PATH = re.compile(r"(?<![\w./-])(accelerate|deepspeed|transformers|torch)/\w")
OLD_ID = re.compile(r"\b[DFG]\d{1,3}[a-z]?\b")
# Rules about the wizard's own input and its own faults: no library is involved, so they cite the wizard file
# that decides them (checked below to exist). Keep this list short; a new rule belongs here only for the same reason.
WIZARD_ONLY = {"answers-yaml", "answers-not-a-mapping", "answers-schema-version", "answers-unknown-key",
               "answers-bad-value", "answers-empty", "linter-internal-error"}


def anchors(text: str) -> set[str]:
    """The explicit anchors (``<a id="..."></a>``) of a Markdown text."""
    return set(re.findall(r'<a id="([A-Za-z0-9_-]+)"></a>', text))


ANCHORS = anchors(BEHAVIOUR.read_text(encoding="utf-8"))
SOURCES = ([(f"{i.section}:{n}", i.source) for n, i in RULES.items()]
           + [("verify:_SOURCE", verify._SOURCE)])


def problems(name: str, source: str, known: set[str]) -> list[str]:
    out = []
    cited = ANCHOR_CITE.findall(source)
    out += [f"{name}: no anchor #{a} in docs/library-behaviour.md" for a in cited if a not in known]
    if not cited and not LIBRARY_PATH.search(source) and name.split(":", 1)[1] not in WIZARD_ONLY:
        out.append(f"{name}: cites neither a docs/library-behaviour.md section nor a library file: {source!r}")
    if OLD_ID.search(source):
        out.append(f"{name}: cites an id of the internal reference document: {source!r}")
    return out


def test_the_registries_are_not_empty():
    count = Counter(i.section for i in RULES.values())
    assert count[CONFIG] > 100 and count[ANSWER] > 20 and count[INPUT] + count[IMPORT] + count[VERIFY] > 10
    assert len(ANCHORS) >= 30


@pytest.mark.parametrize("name,source", SOURCES, ids=[n for n, _ in SOURCES])
def test_source_cites_a_real_section_or_library_file(name, source):
    assert not problems(name, source, ANCHORS)


def test_wizard_only_rules_cite_a_wizard_file_that_exists():
    for name in WIZARD_ONLY:
        files = re.findall(r"wizard/[\w/]+\.py", RULES[name].source)
        assert files and all((ROOT / f).is_file() for f in files), (name, RULES[name].source)


def test_the_doc_prefix_is_the_document_checked_here():
    assert DOC == "docs/library-behaviour.md#"


def test_a_misspelt_anchor_fails():
    known = anchors('<a id="ds-nvme-offload"></a>\n### NVMe\n')
    assert problems("config:x", DOC + "ds-nvme-ofload; accelerate/utils/launch.py:565-586", known)
    assert not problems("config:x", DOC + "ds-nvme-offload; accelerate/utils/launch.py:565-586", known)


def test_an_old_reference_id_or_a_bare_text_fails():
    assert problems("config:x", "D4; accelerate/utils/launch.py:565-586", ANCHORS)
    assert problems("config:x", "F13 (the launcher)", ANCHORS)
    assert problems("config:x", "somewhere in the launcher", ANCHORS)


def test_internal_links_of_the_document_resolve():
    text = BEHAVIOUR.read_text(encoding="utf-8")
    assert not set(re.findall(r"\]\(#([^)]+)\)", text)) - ANCHORS
