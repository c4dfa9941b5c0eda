"""docs/rules.md is generated from the rule registries and current; every rule has keys, a fix and a real source."""
import re

from helpers import ROOT

from wizard.core.docs.rules import render_rules_doc, rule_rows  # imports every module that registers rules
from wizard.core.rules import RULES


def test_docs_rules_md_is_generated_from_the_registry():
    committed = (ROOT / "docs" / "rules.md").read_text()
    assert committed == render_rules_doc(), "regenerate with: python -m wizard.core.docs.rules > docs/rules.md"


def test_the_document_lists_every_registered_rule():
    config, answers, steps = rule_rows()
    listed = [r[0] for r in config + answers + steps]
    assert len(listed) == len(set(listed)) and set(listed) == set(RULES)


def test_every_rule_is_listed_once_with_its_severity():
    doc = render_rules_doc()
    for name, info in RULES.items():
        rows = [line for line in doc.splitlines() if line.startswith(f"| `{name}` |")]
        assert len(rows) == 1, name
        assert f"| {info.severity} |" in rows[0], name


def test_every_rule_names_keys_and_a_fix():
    config, answers, steps = rule_rows()
    for name, _sev, keys, meaning, fixes, source in config + answers + steps:
        assert keys and all(keys), f"{name}: no keys (declare keys= in its registration)"
        assert fixes and all(fixes), f"{name}: no fix (declare fix= in its registration)"
        assert meaning and source, name


def test_sources_cite_more_than_a_reference_id():
    """Ids such as D4 or F13 point into a document that is not in the repository: each source also names a file."""
    for name, info in RULES.items():
        rest = re.sub(r"\b[GFD]\d+[a-z]?\b", "", info.source)
        assert ".py" in rest or "#" in rest, f"{name}: {info.source!r}"


def test_contract_is_explained_at_the_top():
    head = render_rules_doc().split("## Config rules")[0]
    for words in ("error", "warning", "info", "Dead values", "steps_per_print", "keys"):
        assert words in head
