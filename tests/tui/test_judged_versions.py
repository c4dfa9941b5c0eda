"""Issue 24: the wizard judges the answers for the library versions the command line names (--transformers-version,
read as --headless reads it), so that the TUI and `--headless --transformers-version 5.0.0` agree; the command palette
switches to the installed libraries or back to the verified versions, live; the review and the help say what is
judged for, and that a rehearsal or a launch judges for the installed libraries."""
from __future__ import annotations

import pytest
from helpers import main_of, main_ready, open_review, palette, press, settle

from wizard.cli import _check_mode, _main_parser
from wizard.commands.common import judged_context
from wizard.core.context import in_spec
from wizard.core.versions import VERIFIED_AGAINST, installed_version
from wizard.tui.app import app_from_args
from wizard.tui.widgets.findings import FindingsList

RULE = "parallelism-fsdp2-tp-transformers"


def wizard(argv: list[str]):
    """The wizard as `fsdpds-wizard ARGV` opens it: the command line's parser and checks, its version flags read as
    for --headless (commands/common.judged_context), then the app run_app would run."""
    args = _main_parser().parse_args(argv)
    args.script_args = []
    _check_mode(args)
    app = app_from_args(args, judged_context(args))
    assert not isinstance(app, int), app
    return app


def plain(static) -> str:
    """A Static's text as the screen shows it, on one wide line each (no wrapping to match across)."""
    import io

    from rich.console import Console

    console = Console(width=1000, record=True, file=io.StringIO())
    console.print(static.content)
    return console.export_text()


def error_rules(app) -> list[str]:
    return [f.rule for f in main_of(app).findings if f.severity == "error"]


@pytest.mark.asyncio
async def test_the_fsdp2_tp_preset_is_written_for_transformers_5_0(in_tmp):
    out = in_tmp / "out"
    app = wizard(["--preset", "fsdp2-tp", "--out", str(out), "--transformers-version", "5.0.0"])
    async with app.run_test(size=(80, 24)) as pilot:
        await main_ready(pilot)
        assert error_rules(app) == []
        review = await open_review(app, pilot)
        assert review.errors == []
        text = plain(review.query_one("#findings-tab-text"))
        assert "transformers 5.0.0 (--transformers-version)" in text, text
        assert f"torch {VERIFIED_AGAINST['torch']} (verified default)" in text, text
        assert "F5 and ctrl+l judge for the installed ones (the run uses them)" in text, text
        await press(pilot, "ctrl+s")
        await settle(pilot)
        assert review.status.startswith("✔ Wrote"), review.status
    written = (out / "accelerate_config.yaml").read_text()
    assert "parallelism_config_tp_size: 2" in written


@pytest.mark.asyncio
async def test_without_the_flag_the_fsdp2_tp_preset_shows_the_error_and_is_not_written(in_tmp):
    out = in_tmp / "out"
    app = wizard(["--preset", "fsdp2-tp", "--out", str(out)])
    async with app.run_test(size=(80, 24)) as pilot:
        await main_ready(pilot)
        assert error_rules(app) == [RULE]
        listed = main_of(app).query_one(FindingsList).findings  # the findings list shows it
        assert [f.rule for f in listed if f.severity == "error"] == [RULE]
        review = await open_review(app, pilot)
        assert [f.rule for f in review.errors] == [RULE]
        text = plain(review.query_one("#findings-tab-text"))
        assert f"Judged for the verified versions: accelerate {VERIFIED_AGAINST['accelerate']}" in text, text
        await press(pilot, "ctrl+s")
        await settle(pilot)
    assert not (out / "accelerate_config.yaml").exists()


@pytest.mark.asyncio
async def test_the_palette_switch_changes_the_verdict_live_and_is_kept(in_tmp):
    app = wizard(["--preset", "fsdp2-tp", "--out", str(in_tmp / "out"), "--transformers-version", "5.0.0"])
    async with app.run_test(size=(80, 24)) as pilot:
        await main_ready(pilot)
        assert error_rules(app) == []
        await palette(app, pilot, "Judge for the verified")
        assert app.judged.mode == "verified"
        assert error_rules(app) == [RULE]  # the same answers, now judged for transformers 5.24
        review = await open_review(app, pilot)  # the review judges for the choice too
        assert [f.rule for f in review.errors] == [RULE]
        await press(pilot, "escape")
        await settle(pilot)
        await palette(app, pilot, "Judge for the versions given")
        assert error_rules(app) == []
        await palette(app, pilot, "Judge for the installed")
        here = installed_version("transformers") or VERIFIED_AGAINST["transformers"]
        assert error_rules(app) == ([RULE] if in_spec(here, ">=5.1.0") else [])
        await press(pilot, "f1")
        await settle(pilot)
        help_text = plain(app.screen.query_one("#help-judged"))
        assert f"transformers {here}" in help_text and "(installed)" in help_text, help_text
        assert "F5 and ctrl+l judge for the installed ones" in help_text


@pytest.mark.asyncio
async def test_suggest_judges_its_candidates_for_the_same_versions(in_tmp):
    """The Memory screen's Suggest leaves out a candidate with an error: judged for the versions chosen, FSDP2 +
    tensor parallel is offered for transformers 5.0 and left out for the verified 5.24."""
    app = wizard(["--preset", "fsdp2-tp", "--model", "llama-3.1-8b", "--gpu-memory", "80", "--seq", "131072",
                  "--transformers-version", "5.0.0"])
    async with app.run_test(size=(100, 40)) as pilot:
        await main_ready(pilot)
        await press(pilot, "f3", "f4")
        await settle(pilot)
        rec = app.screen.recommendation
        assert any("tensor parallel 2" in c.label for c in rec.candidates), [c.label for c in rec.candidates]
        await press(pilot, "escape")
        await settle(pilot)
        await palette(app, pilot, "Judge for the verified")
        await press(pilot, "f3", "f4")
        await settle(pilot)
        rec = app.screen.recommendation
        assert not any("tensor parallel" in c.label for c in rec.candidates)
        assert any("tensor parallel 2" in label and RULE in why for label, why in rec.left_out), rec.left_out


@pytest.mark.asyncio
async def test_an_imported_config_is_judged_as_check_judges_it_with_the_same_flags(in_tmp):
    """--config FILE shows what `check FILE` says about it as loaded; with --transformers-version, what `check FILE
    --transformers-version ...` says (the flags' versions, the installed ones for the rest)."""
    from wizard.cli import main

    assert main(["--headless", "fsdp2-tp", "--out", str(in_tmp / "tp"), "--transformers-version", "5.0.0"]) == 0
    config = str(in_tmp / "tp" / "accelerate_config.yaml")
    here = installed_version("transformers") or VERIFIED_AGAINST["transformers"]
    for argv, refused in ((["--config", config], in_spec(here, ">=5.1.0")),
                          (["--config", config, "--transformers-version", "5.0.0"], False)):
        app = wizard(argv + ["--out", str(in_tmp / "out")])
        async with app.run_test(size=(80, 24)) as pilot:
            await main_ready(pilot)
            as_loaded = [f.rule for f in main_of(app).start.findings if f.severity == "error"]
            assert as_loaded == ([RULE] if refused else []), (argv, as_loaded)
            assert error_rules(app) == ([] if "--transformers-version" in argv else [RULE])
