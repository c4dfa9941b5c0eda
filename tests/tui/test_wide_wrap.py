"""Rich breaks Chinese between characters in every pane (issue 27: the TUI wraps by cell width): a run without
spaces is no longer moved whole to the next line, leaving the line before half empty; English wraps as before."""
from __future__ import annotations

import rich._wrap as rich_wrap
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from wizard.core.i18n.cells import _pieces
from wizard.tui.app import break_between_wide_characters

CHINESE = ("f5 在 CPU 上預演：兩個行程、隨附的腳本，檢查清單證明設定已生效（其他的設定則保留）。之後 accelerate "
           "launch 以 fsdp_offload_params 啟動。")
ENGLISH = ("FSDP offloads parameters, gradients and the optimizer step together (fsdp_offload_params), while "
           "DeepSpeed offloads the optimizer state and the parameters separately: offload_optimizer_device.")


def _lines(text: str, width: int) -> list[str]:
    return [str(line) for line in Text(text).wrap(Console(width=200), width)]


def test_chinese_fills_each_line_and_keeps_every_character():
    break_between_wide_characters()
    for width in (20, 31, 46, 60):
        lines = _lines(CHINESE, width)
        assert "".join(lines).replace(" ", "") == CHINESE.replace(" ", "")  # nothing lost, nothing added
        assert all(cell_len(line) <= width for line in lines)
        # each line but the last is full: the next line's first piece (a wide character with the marks kept beside
        # it, or an English word) would not have fitted after it, a space between them counted
        for line, following in zip(lines, lines[1:], strict=False):
            first = _pieces(following)[0]
            assert cell_len(line) + 1 + cell_len(first) > width, (width, lines)
        # no mark that may not start a line starts one
        assert not any(line.lstrip().startswith(("，", "。", "、", "：", "）")) for line in lines)
        assert not any(line.rstrip().endswith("（") for line in lines)  # nor an opening mark ends one


def test_english_words_are_rich_s_own():
    break_between_wide_characters()
    own = [(m.start(), m.end(), m.group(0)) for m in rich_wrap.re_word.finditer(ENGLISH)]
    assert list(rich_wrap.words(ENGLISH)) == own
    break_between_wide_characters()  # once: calling again changes nothing
    assert list(rich_wrap.words(ENGLISH)) == own
