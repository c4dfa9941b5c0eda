"""Issue 27: the TUI switches language without restarting: the palette's "Language: ..." and F1's ``l`` redraw the
sidebar, the titles and the explanation in the chosen language, and it is kept until the wizard exits."""
from __future__ import annotations

import io

import pytest
from helpers import main_of, main_ready, palette, press, settle, until
from rich.console import Console
from textual.widgets import Static

from wizard.core import i18n, localized
from wizard.core.answers import default_answers
from wizard.tui.app import create_app
from wizard.tui.screens.help import HelpScreen
from wizard.tui.shared.session import Start
from wizard.tui.widgets.explanation import ExplanationPane
from wizard.tui.widgets.sidebar import GroupList


def squeezed(text: str) -> str:
    """Without any whitespace: Chinese lines break without a space, so texts are compared without them."""
    return "".join(text.split())


def shown(app) -> str:
    """The explanation pane's text, squeezed."""
    console = Console(width=2000, record=True, file=io.StringIO())
    console.print(app.screen.query_one("#explanation-body", Static).content)
    return squeezed(console.export_text())


def sidebar(app) -> list[str]:
    groups = main_of(app).query_one(GroupList)
    return [str(groups.get_option_at_index(i).prompt) for i in range(groups.option_count)
            if groups.get_option_at_index(i).id != "review"]


def summary(lang: str) -> str:
    return squeezed(localized.group_text("offload", lang).summary)


@pytest.mark.asyncio
async def test_the_palette_and_the_help_switch_the_language_live(in_tmp):
    assert summary("tr") != summary("en") and summary("zh-TW") != summary("en"), "the offload texts are translated"
    assert localized.group_label("training", "tr") != localized.group_label("training", "en")
    app = create_app(Start(default_answers()))
    async with app.run_test(size=(80, 24)) as pilot:
        await main_ready(pilot)
        main = main_of(app)
        await main.focus_group("offload")
        await settle(pilot)
        assert summary("en") in shown(app)
        english_sidebar = sidebar(app)

        await palette(app, pilot, "language t")  # "Language (Dil, 語言): Türkçe"
        assert i18n.language() == "tr"
        text = shown(app)
        assert summary("tr") in text and summary("en") not in text
        assert "fsdp_offload_params" in text  # keys stay as the libraries spell them
        assert main.query_one(ExplanationPane).border_title == localized.ui("explanation", "tr")
        turkish_sidebar = sidebar(app)
        assert turkish_sidebar != english_sidebar
        assert any(localized.group_label("training", "tr") in line for line in turkish_sidebar)

        titles = [c.title for c in app.get_system_commands(app.screen)]  # the palette's entries
        assert localized.ui("palette_review", "tr") in titles
        assert localized.ui("palette_group", "tr", group=localized.group_label("training", "tr")) in titles

        await press(pilot, "f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        assert "Türkçe" in str(app.screen.query_one("#help-language", Static).content)
        await press(pilot, "l")  # the next language
        await settle(pilot)
        assert i18n.language() == "zh-TW"
        assert "繁體中文" in str(app.screen.query_one("#help-language", Static).content)
        assert app.screen.query_one("Vertical").border_title == localized.ui("help_title", "zh-TW")
        await press(pilot, "escape")
        await settle(pilot)
        assert summary("zh-TW") in shown(app)
        assert any(localized.group_label("offload", "zh-TW") in line for line in sidebar(app))

        await main.focus_group("training")  # kept while moving around
        await settle(pilot)
        assert squeezed(localized.group_text("training", "zh-TW").summary) in shown(app)

        await palette(app, pilot, "language english")
        assert i18n.language() == "en"
        assert sidebar(app) == english_sidebar


def declared_key_words() -> set[str]:
    """Every word of the key bindings the wizard declares: descriptions and tooltips of every class's BINDINGS,
    and the help's sections and navigation lines."""
    import importlib
    import inspect
    import pkgutil

    from textual.binding import Binding

    import wizard.tui.screens
    import wizard.tui.widgets
    from wizard.tui.app import WizardApp
    from wizard.tui.screens.help import binding_rows

    words: set[str] = set()
    names = ["wizard.tui.app"] + [f"{pkg.__name__}.{m.name}" for pkg in (wizard.tui.screens, wizard.tui.widgets)
                                  for m in pkgutil.iter_modules(pkg.__path__)]
    for name in names:
        for cls in vars(importlib.import_module(name)).values():
            if inspect.isclass(cls) and cls.__module__ == name:
                for b in cls.__dict__.get("BINDINGS", []):
                    if isinstance(b, Binding):
                        words |= {w for w in (b.description, b.tooltip) if w}
    for where, _, what in binding_rows(WizardApp):
        words |= {where, what}
    return words


def test_every_key_binding_word_is_in_the_translated_list():
    from wizard.core.localized.ui import KEY_WORDS

    declared = declared_key_words()
    assert not declared - set(KEY_WORDS), ("key binding words not in KEY_WORDS (wizard/core/localized/ui.py): add them "
                                           f"there and translate them: {sorted(declared - set(KEY_WORDS))}")
    assert not set(KEY_WORDS) - declared, f"KEY_WORDS no binding declares: {sorted(set(KEY_WORDS) - declared)}"


@pytest.mark.asyncio
async def test_the_key_bar_and_the_help_follow_the_language(in_tmp):
    from textual.widgets._footer import FooterKey

    app = create_app(Start(default_answers()))
    async with app.run_test(size=(120, 30)) as pilot:
        await main_ready(pilot)

        def bar() -> set[str]:
            return {k.description for k in app.screen.query(FooterKey)}

        await until(pilot, lambda: "Review" in bar(), what="the key bar (mounted after the first paint)")
        app.switch_language("zh-TW")
        await settle(pilot)
        await until(pilot, lambda: localized.key_words("Review", "zh-TW") in bar(), what="the key bar in zh-TW")
        assert "Review" not in bar()
        await press(pilot, "f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(app.screen.query_one("#help-table", Static).content)
        table = console.export_text()
        assert localized.key_words("Navigation", "zh-TW") in table
        assert localized.key_words("Review the files, then write them", "zh-TW") in table
        assert "ctrl+r" in table  # the keys themselves stay


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_the_finding_pane_names_the_rule_in_the_language(lang):
    from wizard.core.findings import WARNING, Finding
    from wizard.tui.shared.explain import explain_finding

    rule = "ds-json-fixed-batch-auto-micro"
    finding = Finding(WARNING, rule, ("train_batch_size",), "`train_batch_size: 16` is fixed ...", "Set both.")
    i18n.set_language(lang)
    console = Console(width=60, record=True, file=io.StringIO())
    console.print(explain_finding(finding, 60))
    text = squeezed(console.export_text())
    assert squeezed(localized.rule_summary(rule, lang)) in text
    assert localized.rule_summary(rule, lang) != localized.rule_summary(rule, "en")
    assert squeezed("`train_batch_size: 16` is fixed") in text  # the message as found


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
@pytest.mark.parametrize("width", [45, 73])  # the pane at 80x24, and zoomed (F2)
def test_no_translated_text_is_cut_by_the_pane(lang, width):
    """Every setting's and group's explanation, rendered at the pane's width in the language: no line wider than
    the pane (a CJK character takes two cells) and every translated text whole in it (nothing cropped or elided)."""
    from rich.cells import cell_len

    from wizard.core.answers import default_answers
    from wizard.core.answers.render import render
    from wizard.core.catalog import GROUPS, SETTINGS
    from wizard.core.localized import GROUP_FIELDS, TEXT_FIELDS
    from wizard.tui.shared.explain import explain_group, explain_setting

    side_by_side = ("fsdp", "deepspeed")  # from 56 cells two columns, read line by line across: checked narrow
    i18n.set_language(lang)
    for backend in ({"backend": "deepspeed"}, {}):
        answers = default_answers().replace(backend)
        rendered = render(answers)
        blocks = [(s.id, explain_setting(s.id, answers, rendered, None, width),
                   [getattr(localized.text(s.id), f) for f in TEXT_FIELDS if width < 56 or f not in side_by_side]
                   + [localized.where(s.id, t) for t in s.where if s.applies_to(t)])
                  for s in SETTINGS]
        blocks += [(g.id, explain_group(g.id, answers, width),
                    [getattr(localized.group_text(g.id), f) for f in GROUP_FIELDS
                     if width < 56 or f not in side_by_side]) for g in GROUPS]
        for name, block, texts in blocks:
            console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
            console.print(block)
            out = console.export_text()
            assert all(cell_len(line.rstrip()) <= width for line in out.splitlines()), name
            flat = squeezed(out)  # a text cropped or elided ("…") is not whole in it
            for text in texts:
                assert squeezed(text) in flat, (name, text[:60])
