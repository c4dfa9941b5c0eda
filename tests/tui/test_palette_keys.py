"""The palette's setting finder knows every key the catalogue says a setting is written to."""
from wizard.core.catalog import SETTINGS
from wizard.tui.commands import score, setting_entries


def test_every_written_key_finds_its_setting():
    entries = {e.setting_id: e for e in setting_entries()}
    missed = [(s.id, w.key) for s in SETTINGS for writes in s.writes.values() for w in writes
              if score(entries[s.id], w.key.rsplit(".", 1)[-1]) == 0]
    assert missed == []


def test_words_of_a_where_line_find_it_too():
    entries = {e.setting_id: e for e in setting_entries()}
    assert score(entries["precision.model_dtype"], "torch_dtype") > 0
