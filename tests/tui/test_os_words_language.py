"""An OS error the TUI reports (the review's diff of an imported file it cannot read, the Memory screen's model file)
says the system's words in the wizard's language where its errno's are translated (issue 27); the path as written."""
from __future__ import annotations

import errno
import os

import pytest

from wizard.core import i18n
from wizard.core.localized import screen

LANGS = ("tr", "zh-TW")


@pytest.mark.parametrize("lang", LANGS)
def test_the_review_says_why_an_imported_file_cannot_be_read_in_the_language(tmp_path, lang):
    from wizard.tui.screens.review import _bare_json_diff

    folder = tmp_path / "ds_config.json"
    folder.mkdir()  # reading it raises IsADirectoryError
    i18n.set_language(lang)
    header = _bare_json_diff((folder,), {})
    assert header.startswith("--- ") and str(folder) in header
    assert os.strerror(errno.EISDIR) not in header
    assert screen("run", "os.EISDIR", lang) in header


@pytest.mark.parametrize("lang", LANGS)
def test_the_memory_screen_says_why_a_model_file_cannot_be_read_in_the_language(tmp_path, lang):
    """The model field's error as resolve_model raises it for an OSError ("PATH: the system's words"): English as it
    is, the words in the language on the screen (in_language), the path as typed."""
    from wizard.tui.shared.session import MemoryInputError

    path = str(tmp_path / "config.json")
    error = MemoryInputError("model", f"{path}: {os.strerror(errno.EISDIR)}")
    assert str(error).endswith(f"{path}: {os.strerror(errno.EISDIR)}")
    said = error.in_language(lang)
    assert path in said and os.strerror(errno.EISDIR) not in said, said
    assert said.endswith(screen("run", "os.EISDIR", lang))
