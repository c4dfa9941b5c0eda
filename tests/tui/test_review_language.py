"""Issue 27: the review screen, the "Judged for ..." line, the palette's "Judge for ..." entries and Textual's own
palette entries (Theme, Quit, Keys, Screenshot) speak the wizard's language; file names, keys, the launch command and
versions stay as written, and a Chinese line is not cut."""
from __future__ import annotations

import io

import pytest
from helpers import TEMPLATES, main_ready, open_review, palette, press, settle, until
from rich.console import Console
from textual.widgets import Label, Static, TabbedContent

from wizard.core import i18n, localized
from wizard.core.answers import default_answers, parse_answers_text
from wizard.core.i18n import cells
from wizard.tui.app import create_app
from wizard.tui.screens.help import HelpScreen
from wizard.tui.screens.review import ReviewScreen
from wizard.tui.shared.judged import GIVEN, VERIFIED, judged_for
from wizard.tui.shared.session import Start

LANGS = ("tr", "zh-TW")


def review_words(key: str, lang: str, **values) -> str:
    return localized.screen("review", key, lang, **values)


def judged_words(key: str, lang: str, **values) -> str:
    return localized.screen("judged", key, lang, **values)


def plain(widget: Static, width: int = 400) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(widget.content)
    return console.export_text()


def test_every_word_of_the_two_screens_is_translated():
    from wizard.core.localized.screens import words

    for lang in LANGS:
        for name in ("review", "judged"):
            for key, english in words(name).items():
                said = localized.screen(name, key, lang)
                assert said != english or key in ("then", "sentence", "by_source", "trainer", "judged_now"), \
                    (lang, name, key)


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", LANGS)
async def test_the_review_speaks_the_language_and_keeps_names(in_tmp, lang):
    out = in_tmp / "out"
    out.mkdir()
    (out / "accelerate_config.yaml").write_text("old: 1\n")  # one file to replace: the Diff tab and the dialog
    i18n.set_language(lang)
    app = create_app(Start(default_answers()), str(out))
    async with app.run_test(size=(80, 24)) as pilot:
        await main_ready(pilot)
        review = await open_review(app, pilot)
        await settle(pilot)
        title = plain(review.query_one("#review-title", Static))
        assert title.startswith(review_words("title", lang) + " ") and "Review" not in title
        assert str(review.query_one("#out-label", Label).content) == review_words("out_label", lang)
        tabbed = review.query_one(TabbedContent)
        findings = review.generated.findings
        assert tabbed.get_tab("tab-findings").label.plain == review_words("findings_count", lang, count=len(findings))
        assert tabbed.get_tab("file-diff").label.plain == review_words("diff_count", lang, changed=1)
        assert tabbed.get_tab("file-accelerate_config-yaml").label.plain == (  # the file's name as written
            f"accelerate_config.yaml · {review_words('state_changed', lang)}")

        shown = plain(review.query_one("#findings-tab-text", Static))
        assert judged_words("run_note", lang) in shown and "Judged for" not in shown
        launch = plain(review.query_one("#launch", Static))
        assert launch.startswith(localized.labelled(review_words("launch", lang), "accelerate launch --config_file"))
        status = plain(review.query_one("#write-status", Static))
        assert review_words("ready_replacing", lang, count=len(review.generated.files),
                            names="accelerate_config.yaml") in status

        await press(pilot, "ctrl+s")  # the replace dialog, in the language
        await settle(pilot)
        assert app.screen.query_one("Vertical").border_title == review_words("replace_title", lang)
        message = str(app.screen.query_one("#confirm-message", Static).content)
        assert message.startswith(review_words("replace_message", lang, out=str(out),
                                               names="  accelerate_config.yaml").split("\n")[0])
        await press(pilot, "y")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        wrote = review_words("wrote", lang, count=len(review.generated.files), out=str(out))
        kept = review_words("kept", lang, names="accelerate_config.yaml.bak")
        assert review.status == "✔ " + review_words("sentence", lang, text=review_words("then", lang, first=wrote,
                                                                                         then=kept))
        diff = review.query_one("#diff-text", Static)  # now the same files: a line of words, not cut
        line = review_words("nothing_same", lang)
        assert plain(diff).strip() == line
        assert diff.styles.width.value >= cells.width(line)  # as wide as its widest line, counted in cells
        assert plain(diff, int(diff.styles.width.value)).strip() == line  # one line at that width
    assert (out / "accelerate_config.yaml.bak").read_text() == "old: 1\n"


@pytest.mark.asyncio
async def test_the_machines_tab_in_chinese_keeps_commands(in_tmp):
    answers, _ = parse_answers_text((TEMPLATES / "fsdp2-two-node.yaml").read_text())
    i18n.set_language("zh-TW")
    app = create_app(Start(answers), "out")
    async with app.run_test(size=(160, 50)) as pilot:
        review = await open_review(app, pilot)
        text = review.machines_text()
        assert text.startswith("# " + review_words("machines_each", "zh-TW", count=2) + "\n")
        assert "# " + review_words("slurm_head", "zh-TW") in text and "#SBATCH --nodes=2" in text
        assert "--machine_rank 1" in text
        assert review.query_one(TabbedContent).get_tab("file-machines").label.plain == review_words("machines",
                                                                                                     "zh-TW")


@pytest.mark.asyncio
async def test_a_switch_in_the_help_redraws_the_review(in_tmp):
    app = create_app(Start(default_answers()), "out")
    async with app.run_test(size=(120, 30)) as pilot:
        await main_ready(pilot)
        review = await open_review(app, pilot)
        assert plain(review.query_one("#review-title", Static)).startswith("Review ")
        await press(pilot, "f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        await press(pilot, "l")  # English -> Türkçe
        await settle(pilot)
        help_line = plain(app.screen.query_one("#help-judged", Static))
        assert judged_words("help_switch", "tr", judge_for=judged_words("judge_for", "tr", mode="...")) in help_line
        await press(pilot, "escape")
        await settle(pilot)
        assert app.screen is review
        assert plain(review.query_one("#review-title", Static)).startswith(review_words("title", "tr") + " ")
        assert str(review.query_one("#out-label", Label).content) == review_words("out_label", "tr")
        assert judged_words("run_note", "tr") in plain(review.query_one("#findings-tab-text", Static))


@pytest.mark.asyncio
async def test_the_palette_judges_and_textual_entries_in_the_language(in_tmp):
    app = create_app(Start(default_answers()), "out", judged=judged_for(GIVEN, {"transformers": "5.0.0"}))
    async with app.run_test(size=(120, 30)) as pilot:
        await main_ready(pilot)
        english = [c.title for c in app.get_system_commands(app.screen)]
        assert {"Theme", "Quit", "Keys", "Screenshot", "Judge for the verified versions"} <= set(english)
        app.switch_language("zh-TW")
        await settle(pilot)
        titles = {c.title: c.help for c in app.get_system_commands(app.screen)}
        for key in ("textual_theme", "textual_quit", "textual_keys", "textual_screenshot"):
            assert judged_words(key, "zh-TW") in titles
            assert localized.screen("judged", key, "en") not in titles
        verified = judged_words("judge_for", "zh-TW", mode=judged_words("mode_verified", "zh-TW"))
        assert titles[verified] == judged_words("judge_for_help", "zh-TW", what=judged_words("help_verified", "zh-TW"),
                                                now=judged_words("mode_given", "zh-TW"))
        await palette(app, pilot, judged_words("mode_verified", "zh-TW"))
        assert app.judged.mode == VERIFIED


def test_judged_text_names_the_sources_in_the_language():
    judged = judged_for(GIVEN, {"transformers": "5.0.0"})
    english = judged.text()
    assert english.startswith("Judged for transformers 5.0.0 (--transformers-version); accelerate ")
    i18n.set_language("zh-TW")
    text = judged.text()
    assert text.startswith(judged_words("judged", "zh-TW", versions="transformers 5.0.0（--transformers-version）; "
                                        "accelerate", run_note="")[:-1])
    assert text.endswith(judged_words("run_note", "zh-TW"))
    assert "（" + judged_words("source_verified", "zh-TW") + "）" in text
    assert judged_for(VERIFIED).text().startswith("依已驗證的版本判斷：accelerate ")
