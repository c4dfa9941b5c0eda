"""Issue 27: the wizard's severity words (ERROR / WARN / NOTE), the findings pane's words around them and the key
bar's command palette key follow the wizard's language; `check` keeps its English severities (scripts read them)."""
from __future__ import annotations

import io

import pytest
from helpers import main_ready, settle, until
from rich.console import Console

from wizard.core import i18n
from wizard.core.answers import default_answers
from wizard.core.findings import ERROR, INFO, WARNING, Finding
from wizard.core.i18n import cells
from wizard.tui.app import create_app
from wizard.tui.screens.help import binding_rows
from wizard.tui.shared.explain import explain_finding
from wizard.tui.shared.present import severity_tag, severity_word
from wizard.tui.shared.session import Start
from wizard.tui.widgets.findings import finding_prompt, sections

WORDS = {"en": ("ERROR", "WARN", "NOTE"), "tr": ("HATA", "UYARI", "NOT"), "zh-TW": ("錯誤", "警告", "備註")}



@pytest.mark.parametrize("lang", ["en", "tr", "zh-TW"])
def test_the_severity_words_follow_the_language(lang):
    i18n.set_language(lang)
    assert tuple(severity_word(s) for s in (ERROR, WARNING, INFO)) == WORDS[lang]
    f = Finding(WARNING, "some-rule", ("launch.num_machines",), "a message")
    assert severity_tag(WARNING) == f"▲ {WORDS[lang][1]}"
    prompt = finding_prompt(f).plain
    assert prompt.startswith(f"▲ {WORDS[lang][1]}")
    before = prompt[:prompt.index("launch.num_machines")]
    assert cells.width(before) == 8  # the words padded to 5 cells (a CJK character takes 2)
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(explain_finding(f, 80))
    assert f"▲ {WORDS[lang][1]}  [some-rule]" in console.export_text()


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_the_findings_lists_headings_follow_the_language(lang):
    loaded = [Finding(ERROR, "a-rule", ("k",), "m")]
    i18n.set_language("en")
    english = sections([], loaded, "accelerate_config.yaml")[0][0]
    assert english == "In accelerate_config.yaml as loaded (as `fsdpds-wizard check` reports it):"
    i18n.set_language(lang)
    said = sections([], loaded, "accelerate_config.yaml")[0][0]
    assert said != english and "accelerate_config.yaml" in said and "`fsdpds-wizard check`" in said


@pytest.mark.asyncio
async def test_the_palette_key_in_the_key_bar_follows_the_language(in_tmp):
    from textual.widgets._footer import FooterKey

    app = create_app(Start(default_answers()))
    async with app.run_test(size=(120, 30)) as pilot:
        await main_ready(pilot)

        def palette_key() -> set[str]:
            return {k.description for k in app.screen.query(FooterKey) if "-command-palette" in k.classes}

        await until(pilot, lambda: palette_key() == {"palette"}, what="Textual's palette key, in English")
        app.switch_language("zh-TW")
        await settle(pilot)
        await until(pilot, lambda: palette_key() == {"命令面板"}, what="the palette key in zh-TW")
    # a system binding: F1 lists ctrl+p once, under Navigation, as before
    assert [where for where, keys, _ in binding_rows(type(app)) if "ctrl+p" in keys] == ["Navigation"]
