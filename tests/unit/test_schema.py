"""The answers schema is derived from the catalogue, and docs/answers.md is current."""

import yaml
from helpers import ROOT

from wizard.core.answers.schema import json_schema, markdown_reference
from wizard.core.catalog import SETTINGS


def test_docs_answers_md_is_generated_from_the_catalogue():
    committed = (ROOT / "docs" / "answers.md").read_text()
    assert committed.strip() == markdown_reference().strip(), \
        "regenerate with: fsdpds-wizard schema --format markdown > docs/answers.md"


def test_json_schema_lists_every_setting():
    props = json_schema()["properties"]
    for s in SETTINGS:
        if len(s.path) == 1:
            assert s.id in props
        else:
            assert s.path[1] in props[s.path[0]]["properties"], s.id


def test_presets_use_only_schema_keys():
    props = json_schema()["properties"]
    for preset in (ROOT / "templates").glob("*.yaml"):
        data = yaml.safe_load(preset.read_text())
        for key, value in data.items():
            assert key in props, (preset.name, key)
            if isinstance(value, dict):
                assert set(value) <= set(props[key]["properties"]), (preset.name, key)
