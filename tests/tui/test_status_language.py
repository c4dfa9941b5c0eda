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


STATE = {"tr": ("parametre başına bayt (Adam), 2 süreç", "gradyan", "offload öncesinde bir GPU'nun payı"),
         "zh-TW": ("每個參數的位元組數（Adam），2 個行程", "梯度", "卸載前單一 GPU 的份額")}


@pytest.mark.parametrize("lang", sorted(STATE))
def test_the_state_bytes_table_in_the_language(lang):
    """The model-state bytes per parameter, FSDP and DeepSpeed side by side (the Memory screen, the precision group):
    its title, columns and note in the language, the targets' labels too, the numbers as in English."""
    from rich.console import Console

    from wizard.tui.shared.explain import state_bytes_block

    def shown() -> str:
        console = Console(width=100, record=True)
        console.print(state_bytes_block(default_answers(), 100))
        return console.export_text()

    english = shown()
    i18n.set_language(lang)
    said = shown()
    title, grad, note = STATE[lang]
    assert title in said and grad in said and note in said and WORDS[lang][2] in said
    for word in ("bytes per parameter", "grad ", "one GPU's share", "full shard"):
        assert word in english and word not in said
    numbers = [ln.split()[-4:] for ln in english.splitlines() if "ZeRO-3" in ln]
    assert numbers and all(n in said for n in numbers[0])
