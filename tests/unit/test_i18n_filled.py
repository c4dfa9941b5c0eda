"""wizard.core.i18n.filled: the one "translate a keyed English text, then fill in its values" behind localized.ui,
localized.screen and the commands' lines."""
import pytest

from wizard.core import i18n, localized
from wizard.core.i18n import entries, filled
from wizard.core.i18n.lines import LINES, line
from wizard.core.localized.screens import words
from wizard.core.localized.ui import UI


@pytest.fixture
def turkish():
    i18n.set_language("tr")
    yield
    i18n.reset()


def test_the_translation_is_filled_in():
    english = UI["language_now"]
    stored = entries("tr", "ui")["language_now"]["text"]
    assert "{name}" in stored and stored != english
    assert filled("ui", "language_now", english, "tr", name="X") == stored.format(name="X")
    assert filled("ui", "language_now", english, "en", name="X") == "Language: X"


def test_english_stands_where_the_translation_is_of_other_english_or_missing():
    assert filled("ui", "language_now", "Tongue: {name}", "tr", name="X") == "Tongue: X"  # fingerprint differs
    assert filled("ui", "no-such-key", "A {thing}", "tr", thing="b") == "A b"


def test_without_values_the_text_is_as_it_is():
    assert filled("ui", "no-such-key", "braces {kept} {{too}}", "tr") == "braces {kept} {{too}}"


def test_values_may_be_named_like_its_parameters():
    assert filled("p", "k", "{part} {key} {english} {lang}", "en", part=1, key=2, english=3, lang=4) == "1 2 3 4"


def test_ui_screen_and_line_are_filled(turkish):
    assert localized.ui("language_now", name="X") == filled("ui", "language_now", UI["language_now"], "tr", name="X")
    review = words("review")
    assert localized.screen("review", "title_files", files=3, new=1, changed=1, same=1) == filled(
        "screen-review", "title_files", review["title_files"], "tr", files=3, new=1, changed=1, same=1)
    assert line("wrote", path="a.yaml") == filled("lines", "wrote", LINES["wrote"], "tr", path="a.yaml")
    assert line("wrote", path="a.yaml") != LINES["wrote"].format(path="a.yaml")  # Turkish indeed


def test_the_switch_reports_words_are_a_screens_and_translated():
    english = words("switch")
    assert english["title"] == "Switched {before} → {after}"
    assert "switch_title" not in UI
    for lang in ("tr", "zh-TW"):
        assert set(entries(lang, "screen-switch")) == set(english)
        shown = localized.screen("switch", "title", lang, before="FSDP2", after="DeepSpeed")
        assert shown != "Switched FSDP2 → DeepSpeed" and "FSDP2" in shown and "DeepSpeed" in shown
