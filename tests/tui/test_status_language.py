"""Issue 27: the status line's own words (where the files go, the start file) and the target's label, and the
command palette's search line, in the wizard's language; names, paths and keys as written; English as before."""
from __future__ import annotations

import pytest
from helpers import main_of

from wizard.core import i18n
from wizard.core.answers import default_answers
from wizard.core.i18n.cells import width
from wizard.tui.app import create_app
from wizard.tui.shared.present import target_label
from wizard.tui.shared.session import Start
from wizard.tui.widgets.statusbar import StatusBar, status_text

WORDS = {"en": ("folder: ", "from start.yaml", "FSDP2 full shard", "FSDP2 hybrid full shard", "Search for commands…"),
         "tr": ("klasör: ", "kaynak: start.yaml", "FSDP2 tam shard", "FSDP2 hibrit tam shard", "Komut arayın…"),
         "zh-TW": ("資料夾：", "來源：start.yaml", "FSDP2 完全分片", "FSDP2 混合完全分片", "搜尋命令…")}


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    i18n.reset()


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_the_status_lines_words_and_the_target_in_the_language(lang):
    i18n.set_language(lang)
    folder, source, full, hybrid, _ = WORDS[lang]
    answers = default_answers()
    assert target_label(answers) == full
    assert target_label(answers.replace({"sharding.strategy": "hybrid_full", "launch.num_machines": 2})) == hybrid
    line = str(status_text(full, "out/configs", [], "start.yaml", width=200))
    assert f"│ {folder}out/configs" in line and line.rstrip().endswith(f"│ {source}")
    narrow = str(status_text(full, "a/very/long/output/folder/name", [], "start.yaml", width=60))
    assert width(narrow) <= 60 and folder in narrow  # fitted by cells: the start file gives way first
    assert "folder" not in line or lang == "en"


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", sorted(WORDS))
async def test_the_palettes_search_line_in_the_language(lang):
    from textual.command import CommandInput

    i18n.set_language(lang)
    app = create_app(Start(default_answers()))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert app.screen.query_one(CommandInput).placeholder == WORDS[lang][4]
        await pilot.press("escape")
        assert WORDS[lang][0] in str(main_of(app).query_one(StatusBar).render())
