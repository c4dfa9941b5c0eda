"""Issue 27: the run screen and the memory screen (with the main screen's memory bar) speak the wizard's language:
their titles, labels, status words, hints and notes in Turkish and Traditional Chinese, keys and values as written,
and Chinese lines wrapped by cells, never cut. What wizard.run computes (the checklist's rows, the diagnoses, the
verdict) is shown in the language too, the records keeping the English; what wizard.core.memory computes (the
verdict, the estimate's parts, Suggest's labels and reasons) is translated too (wizard.core.localized.memory)."""
from __future__ import annotations

import io

import pytest
from helpers import main_of, main_ready, press, settle, until
from rich.console import Console
from test_run_screen import EXPECTED_FSDP2, recorded_events

from wizard.core import i18n, localized
from wizard.core.answers import default_answers
from wizard.core.i18n import cells
from wizard.core.localized import memory as memory_texts
from wizard.core.localized.screens import words
from wizard.tui.app import create_app
from wizard.tui.screens.run import RunScreen
from wizard.tui.shared.present import target_label
from wizard.tui.shared.session import MemoryContext, Start, memory_fields
from wizard.tui.widgets.checklist import ChecklistView, DiagnosisView
from wizard.tui.widgets.logtail import LogTail, SearchInput
from wizard.tui.widgets.memory_bar import MemoryBar, bar_text
from wizard.tui.widgets.plot import SeriesPlot, plot_lines

LANGS = ("tr", "zh-TW")
ZERO3 = {"backend": "deepspeed", "sharding.strategy": "full"}


def run_words(key: str, lang: str, **values) -> str:
    return localized.screen("run", key, lang, **values)


def mem_words(key: str, lang: str, **values) -> str:
    return localized.screen("memory", key, lang, **values)


def plain(renderable, width: int = 200) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def squeezed(text: str) -> str:
    return "".join(text.split())


SAME_AS_ENGLISH = {"eta", "rss", "bar.gpu", "field.model", "model", "gpus_one", "bar.set_model_short", "end.reason",
                   "end.plain", "flow.file_state", "flow.write_note"}
"""Words that read the same in a translation: names and units (ETA {eta}, RSS: ..., GPU {gib} GiB, Model, 1 GPU),
and placeholders with punctuation only (``  {file} ({state})``, ``{note}.``: zh-TW's own punctuation, tr's the same)."""


def test_every_word_of_both_screens_is_translated():
    for name in ("run", "memory"):
        for lang in LANGS:
            same = {k for k, en in words(name).items() if localized.screen(name, k, lang) == en}
            assert same <= SAME_AS_ENGLISH, (name, lang, same - SAME_AS_ENGLISH)


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", LANGS)
async def test_the_run_screen_speaks_the_language(lang):
    i18n.set_language(lang)
    events = recorded_events("rec_crash_rank1.log", EXPECTED_FSDP2, "failed", 1)
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.2)
        screen = RunScreen(None, heading="CPU rehearsal of FSDP2 full shard")
        await app.push_screen(screen)
        await pilot.pause()
        for ev in events:
            screen.feed(ev)
        await pilot.pause(0.5)
        status = str(screen.query_one("#run-status").render())
        assert f"{run_words('state.failed', lang)} " in status
        assert run_words("exit", lang, code=1) in status
        assert "failed │" not in status and " steps" not in status and "exit 1" not in status
        assert "CPU rehearsal of FSDP2 full shard" in status  # the heading is the caller's
        assert screen.query_one("#run-checks").border_title == run_words("title_checks", lang)
        diag = screen.query_one(DiagnosisView)
        assert diag.display and diag.border_title == run_words("title_diagnosis", lang)
        assert localized.labelled(run_words("diagnosis_fix", lang), "") in diag.text and "fix: " not in diag.text
        # the diagnosis wizard.run made: its title, why and fix in the language, the rank and exit code as they were
        title = localized.said("Rank 1 exited with code 3; the launcher stopped the other ranks", lang)
        assert title != "Rank 1 exited with code 3; the launcher stopped the other ranks"
        assert title in diag.text and "Rank 1" in title and "3" in title and "the launcher" not in diag.text
        assert "--rehearse --launch" in diag.text and "launch again" not in diag.text
        # the checklist's rows: translated, keys and values as written; the rows themselves keep the English
        rows = squeezed(plain(screen.query_one(ChecklistView).content))
        for english in ("Sharding strategy FULL_SHARD", "FSDP sharding active: each rank holds half of the parameters",
                        "Ran through the CPU rehearsal compatibility layer", "Mixed precision no"):
            assert squeezed(localized.said(english, lang)) in rows and squeezed(english) not in rows, english
        assert "FULL_SHARD" in rows and "float32" in rows and "parameters" not in rows
        assert "Sharding strategy FULL_SHARD" in screen.query_one(ChecklistView).statuses
        assert localized.said("took effect: 7 settings", lang) in status and "took effect" not in status
        tail = screen.query_one(LogTail)
        assert tail.border_title == run_words("title_log", lang)
        assert tail.query_one(SearchInput).placeholder == run_words("log_search", lang)
        assert str(tail.border_subtitle).endswith(run_words("log_lines", lang, count="").strip())
        plot = screen.query_one(SeriesPlot)
        assert str(plot.border_title).startswith(run_words("title_loss", lang) + " ")

        # a Chinese or Turkish line longer than the log is wrapped by cells: every row fits, nothing is lost
        width = tail.log_view.scrollable_content_region.width
        long = run_words("setup_unknown_stopped", lang) * 3
        tail.add([long])
        tail.flush()
        await pilot.pause()
        rows = [str(r) for r in tail.log_view.lines][-6:]
        assert all(cells.width(r) <= width for r in rows), (width, rows)
        assert squeezed(long) in squeezed("".join(rows))


@pytest.mark.asyncio
async def test_the_run_screen_follows_a_switch_of_language():
    events = recorded_events("rec_stopped_sigint.log", EXPECTED_FSDP2, "stopped", 1,
                             stop={"requested": True, "reason": "stopped from the wizard (ctrl+c)",
                                   "signals_sent": ["SIGINT"]})
    app = create_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause(0.2)
        screen = RunScreen(None)
        await app.push_screen(screen)
        await pilot.pause()
        for ev in events:
            screen.feed(ev)
        await pilot.pause(0.3)
        assert screen.query_one("#run-checks").border_title == "Effective setup vs config"
        assert "stopped │ Run │" in str(screen.query_one("#run-status").render())
        app.switch_language("zh-TW")
        await pilot.pause(0.3)
        status = str(screen.query_one("#run-status").render())
        assert f"{run_words('state.stopped', 'zh-TW')} │ Run │" in status  # the heading was given in English
        assert screen.query_one("#run-checks").border_title == run_words("title_checks", "zh-TW")
        assert screen.query_one(LogTail).border_title == run_words("title_log", "zh-TW")


def test_settings_not_in_effect_keeps_its_emphasis():
    from wizard.tui.screens.run import _loud

    assert localized.screen("run", "not_in_effect", "en", not_=_loud("not")) == "settings NOT in effect"
    i18n.set_language("tr")
    assert localized.screen("run", "not_in_effect", not_=_loud(localized.screen("run", "not"))) == \
        "ayarlar etkin DEĞİL"


@pytest.mark.parametrize("width", [12, 20, 40])
def test_an_empty_plot_wraps_chinese_by_cells(width):
    text = run_words("plot_ended", "zh-TW")
    lines = plot_lines([], width, 4, text)
    assert len(lines) == 4 and all(cells.width(ln) == width for ln in lines), lines
    assert squeezed(text) in squeezed("".join(lines))
    assert plot_lines([], 40, 3)[1].startswith("waiting for the first step…")  # English as before


@pytest.mark.parametrize("lang", LANGS)
def test_the_memory_bar_fits_its_width_in_cells(lang):
    i18n.set_language(lang)
    for width in (16, 24, 40):  # the bar is 24 cells at 80 columns
        for text in (bar_text(None, None, width), bar_text(30 * 2 ** 30, None, width)):
            assert all(cells.width(line) <= width for line in text.plain.splitlines()), text.plain
    assert mem_words("bar.no_model", lang) in bar_text(None, None, 24).plain
    assert "no model given" not in bar_text(None, None, 24).plain


def context() -> MemoryContext:
    memory, errors = memory_fields({"model": "gpt2-xl", "gpu_memory": "40"})
    assert errors == {}
    return memory


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", LANGS)
async def test_the_memory_screen_speaks_the_language(in_tmp, lang):
    i18n.set_language(lang)
    app = create_app(Start(default_answers().replace(ZERO3)), memory=context())
    async with app.run_test(size=(100, 40)) as pilot:
        await main_ready(pilot)
        assert main_of(app).query_one(MemoryBar).border_subtitle == "gpt2-xl"  # a name, as written
        await press(pilot, "f3")
        screen = app.screen
        assert type(screen).__name__ == "MemoryScreen"
        answers = main_of(app).answers
        head = str(screen.query_one("#mem-head").render())
        assert head == mem_words("head_one", lang, target=target_label(answers),
                                 processes=answers["launch.num_processes"], machines=1)
        labels = [str(s.render()) for s in screen.query(".mem-label")]
        assert mem_words("label_shape", lang) in labels
        assert mem_words("field.gpu_memory", lang) in labels and "GPU memory per GPU (GiB)" not in labels
        buttons = [str(b.label) for b in screen.query("Button")]
        assert buttons == [mem_words("button_suggest", lang), mem_words("button_back", lang)]
        report = squeezed(plain(screen.query_one("#mem-report").content))
        for key in ("col_per_gpu", "col_side", "row_gpu_per_rank"):
            assert squeezed(mem_words(key, lang)) in report, key
        assert "sidebyside" not in report and "perGPU(eachrank)" not in report

        await press(pilot, "f4")
        await until(pilot, lambda: screen.candidates, what="the suggestions")
        note = squeezed(plain(screen.query_one("#mem-suggest-note").content))
        n = int(answers["launch.num_processes"])  # one machine: all of them on it
        gpus = mem_words("gpus_one" if n == 1 else "gpus_many", lang, count=n)
        machines = mem_words("machines_one", lang, count=1)
        assert squeezed(mem_words("ranked", lang, gpus=gpus, machines=machines)) in note
        chosen = memory_texts.candidate_label(screen.recommendation.chosen, lang)  # its label in the language too
        assert squeezed(mem_words("best", lang, label=chosen)) in note
        assert "Rankedfor" not in note and "Best:" not in note


@pytest.mark.asyncio
async def test_the_memory_screen_follows_a_switch_of_language(in_tmp):
    app = create_app(Start(default_answers().replace(ZERO3)), memory=context())
    async with app.run_test(size=(100, 40)) as pilot:
        await main_ready(pilot)
        await press(pilot, "f3")
        screen = app.screen
        assert [str(b.label) for b in screen.query("Button")] == ["Suggest (F4)", "Back (Esc)"]
        app.switch_language("tr")  # the palette's "Language: Türkçe", F1's l
        assert i18n.language() == "tr"
        await settle(pilot)
        assert app.screen is screen
        assert [str(b.label) for b in screen.query("Button")] == [mem_words("button_suggest", "tr"),
                                                                   mem_words("button_back", "tr")]
        assert app.memory.shape.name == "gpt2-xl" and app.memory.gpu_memory_gib == 40.0  # kept
        report = squeezed(plain(screen.query_one("#mem-report").content))
        assert squeezed(mem_words("col_side", "tr")) in report


@pytest.mark.parametrize("lang", ("en", *LANGS))
def test_the_memory_screens_labels_fit_their_column(lang):
    """A field's label sits in a column of 28 cells (one padding) on a one-row line: a longer one would be cut."""
    from wizard.tui.screens.memory import MemoryScreen

    assert "MemoryScreen .mem-label { width: 28; padding: 0 1 0 0;" in MemoryScreen.DEFAULT_CSS
    keys = ["label_shape", "label_typed", *(k for k in words("memory") if k.startswith("field."))]
    too_long = {k: mem_words(k, lang) for k in keys
                if cells.width(mem_words(k, lang)) + (2 if k == "label_typed" else 0) > 27}
    assert not too_long, too_long


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", LANGS)
async def test_the_memory_screen_says_the_estimate_and_suggestions_in_the_language(in_tmp, lang):
    """What wizard.core.memory computes, on the Memory screen and in the bar: the estimate's parts, the peak line, the
    verdict, the layout, each candidate's label and reason, in the language (figures and names as computed)."""
    from textual.widgets import OptionList

    from wizard.core.memory.estimate import BREAKDOWN_KEYS
    from wizard.core.memory.report import LABELS, peak_line

    i18n.set_language(lang)
    app = create_app(Start(default_answers().replace(ZERO3)), memory=context())
    async with app.run_test(size=(100, 40)) as pilot:
        await main_ready(pilot)
        bar = main_of(app).query_one(MemoryBar)
        width = bar.content_size.width
        verdict_line = bar.plain.splitlines()[-1]
        assert verdict_line == memory_texts.verdict(bar.fit, width, lang) != memory_texts.verdict(bar.fit, width, "en")
        assert cells.width(verdict_line) <= width
        await press(pilot, "f3")
        screen = app.screen
        e = app.memory.estimate(main_of(app).answers)
        report = squeezed(plain(screen.query_one("#mem-report").content))
        for k in BREAKDOWN_KEYS:
            assert squeezed(memory_texts.part(k, lang)) in report, k
        assert squeezed(LABELS["optimizer_states"]) not in report
        assert squeezed(localized.said(peak_line(e), lang)) in report and squeezed(peak_line(e)) not in report
        assert squeezed(memory_texts.verdict(e.fit, lang=lang)) in report and "GiBtospare" not in report
        assert squeezed(localized.said(e.layout, lang)) in report and "DeepSpeedZeRO-3over" not in report

        await press(pilot, "f4")
        await until(pilot, lambda: screen.candidates, what="the suggestions")
        options = screen.query_one("#mem-candidates", OptionList)
        shown = squeezed(plain(options.get_option_at_index(0).prompt))
        first = screen.candidates[0]
        assert squeezed(memory_texts.candidate_label(first, lang)) in shown
        assert squeezed(memory_texts.reason(first, lang)) in shown and squeezed(first.reason) not in shown
