"""Pilot tests for the rough edges a first user hit in the TUI (issue 7): each failed before its fix."""
from __future__ import annotations

import pytest
from helpers import ROOT, focused_on, main_of, press
from textual.widgets import Input

from wizard.core.answers import default_answers
from wizard.core.catalog import SETTING_BY_ID
from wizard.tui.app import create_app
from wizard.tui.shared.present import text_to_value, value_to_text
from wizard.tui.shared.session import Start, StartError, from_accelerate_config
from wizard.tui.widgets.fields import SettingField
from wizard.tui.widgets.findings import FindingsList
from wizard.tui.widgets.statusbar import StatusBar

SIZE = (80, 24)


# ---------------------------------------------------------------- script arguments as a command line


def test_script_arguments_round_trip_with_shell_quoting():
    s = SETTING_BY_ID["launch.script_args"]
    assert text_to_value(s, "--steps 3000 --name 'my run'") == (["--steps", "3000", "--name", "my run"], None)
    assert value_to_text(s, ["--steps", "3000", "--name", "my run"]) == "--steps 3000 --name 'my run'"
    value, problem = text_to_value(s, "--name 'unclosed")
    assert value is None and "quotation" in problem
    assert text_to_value(s, "") == ([], None)


@pytest.mark.asyncio
async def test_script_arguments_field_gives_separate_tokens():
    app = create_app(Start(default_answers()))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        field = await focused_on(pilot, "launch.script_args")
        control = field.control
        assert isinstance(control, Input) and "separated by commas" not in control.placeholder
        control.value = "--steps 3000 --name 'my run'"
        await pilot.pause()
        assert main.answers["launch.script_args"] == ["--steps", "3000", "--name", "my run"]
        control.value = "--steps 3000 --name 'oops"
        await pilot.pause()
        assert field.has_class("-invalid")  # shown in the field, no crash, answers keep the last good value
        assert "quotation" in str(field.query_one(".notes").render())
        assert main.answers["launch.script_args"] == ["--steps", "3000", "--name", "my run"]


# ---------------------------------------------------------------- fast typing


def burst(app, *keys: str) -> None:
    """Queue key events all at once, the way a terminal read hands over a fast burst of typing."""
    from textual import events

    for key in keys:
        event = events.Key(key, key if len(key) == 1 else None)
        event.set_sender(app)
        app._driver.send_message(event)


@pytest.mark.asyncio
async def test_fast_typing_in_a_number_field_loses_no_keystroke():
    app = create_app(Start(default_answers()))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await press(pilot, "down", "enter")  # Launch basics -> processes
        assert isinstance(app.focused, Input)
        # one burst, as a terminal delivers fast typing: every key is queued before the first is handled
        # (pilot.press waits for idle after each key, which hides the race)
        burst(app, "1", "6", "0", "backspace", "backspace", "backspace", "8")
        await pilot.pause()
        await pilot.pause()
        assert app.focused.value == "8"
        assert main.answers["launch.num_processes"] == 8


# ---------------------------------------------------------------- the palette finds settings


def focused_setting(app) -> str | None:
    node = app.focused
    field = next((n for n in node.ancestors_with_self if isinstance(n, SettingField)), None) if node else None
    return field.setting.id if field else None


def test_palette_search_finds_settings_by_native_names():
    from wizard.tui.commands import search_settings

    assert search_settings("dynamo")[0][1].setting_id.startswith("launch.dynamo_")
    assert search_settings("torch.compile")[0][1].setting_id == "launch.dynamo_backend"
    assert search_settings("fsdp_offload_params")[0][1].setting_id in ("offload.optimizer", "offload.params")
    assert search_settings("stage3_prefetch_bucket_size")[0][1].setting_id == "prefetch.ds_bucket_size"
    assert {e.setting_id for _, e in search_settings("zero3_init_flag")} == {"loading.ram_efficient"}
    assert not search_settings("no such thing at all")


@pytest.mark.asyncio
async def test_palette_jumps_to_a_setting():
    app = create_app(Start(default_answers()))
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "ctrl+p")
        await press(pilot, *"dynamo")
        await pilot.pause(0.5)
        await press(pilot, "enter")
        await pilot.pause(0.2)
        assert focused_setting(app) == "launch.dynamo_backend"


# ---------------------------------------------------------------- imported configs: the same findings as `check`

CORPUS = ROOT / "tests" / "data" / "check_corpus"


def check_json(path, capsys) -> list[tuple]:
    import json

    from wizard import cli

    cli.main(["check", str(path), "--format", "json"])
    out = json.loads(capsys.readouterr().out)["findings"]
    return [(f["severity"], f["rule"], tuple(f["keys"]), f["message"]) for f in out]


def as_rows(findings) -> list[tuple]:
    return [(f.severity, f.rule, tuple(f.keys), f.message) for f in findings]


@pytest.mark.parametrize("case", sorted(p.name for p in CORPUS.iterdir() if (p / "accelerate_config.yaml").exists()))
def test_imported_findings_are_those_of_check(case, capsys):
    """Every corpus config: the start findings about the file are check's, rule for rule and severity for
    severity; the importer's own notes are notes."""
    path = CORPUS / case / "accelerate_config.yaml"
    expected = check_json(path, capsys)
    try:
        start = from_accelerate_config(path)
    except StartError:
        return  # not importable (e.g. no distributed_type): the CLI prints check's errors and exits 2
    about_file = [f for f in start.findings if f.rule != "import"]
    assert as_rows(about_file) == expected
    assert all(f.severity == "info" for f in start.findings if f.rule == "import")


@pytest.mark.asyncio
@pytest.mark.parametrize("case", ["67_ds_file_missing", "23_fsdp2_sharding_strategy_shard_grad_op",
                                  "64_ds_file_plus_inline_zero_stage"])
async def test_header_counts_what_the_findings_list_shows(case):
    start = from_accelerate_config(CORPUS / case / "accelerate_config.yaml")
    app = create_app(start)
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await pilot.pause()
        listed = main.query_one(FindingsList).findings
        assert set(as_rows(listed)) == set(as_rows(main.findings + start.findings))
        errors = sum(f.severity == "error" for f in listed)
        assert errors >= 1  # each of these files has an error that check reports
        header = str(main.query_one(StatusBar).render())
        assert f"✖ {errors} " in header
        # the worst section is listed first, so the file's error is the first line at 80x24
        assert listed[0].severity == "error"


# ---------------------------------------------------------------- Enter on an import finding jumps


@pytest.mark.asyncio
async def test_enter_on_a_finding_about_a_config_key_jumps_to_its_setting():
    start = from_accelerate_config(CORPUS / "26_fsdp_min_num_params_1e8" / "accelerate_config.yaml")
    app = create_app(start)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await press(pilot, "ctrl+f")
        current = main_of(app).query_one(FindingsList).current
        assert current.keys == ("fsdp_config.fsdp_min_num_params",) and current.severity == "error"
        await press(pilot, "enter")
        await pilot.pause(0.1)
        assert focused_setting(app) == "wrapping.min_num_params"


@pytest.mark.asyncio
async def test_a_finding_with_several_keys_jumps_to_the_first_that_maps_and_says_so():
    start = from_accelerate_config(CORPUS / "64_ds_file_plus_inline_zero_stage" / "accelerate_config.yaml")
    app = create_app(start)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        main = main_of(app)
        finding = next(f for f in start.findings if f.rule == "deepspeed-file-with-inline-keys")
        assert finding.keys[:2] == ("deepspeed_config.gradient_accumulation_steps", "deepspeed_config.zero_stage")
        assert "deepspeed_config.deepspeed_config_file" in finding.keys  # the file mode is part of the fault
        await main.jump_to_finding(finding)
        await pilot.pause(0.1)
        assert focused_setting(app) == "training.gradient_accumulation_steps"
        notes = [n.message for n in app._notifications]
        assert any("for deepspeed_config.gradient_accumulation_steps" in n and "deepspeed_config.zero_stage" in n
                   for n in notes)


def test_every_key_the_wizard_writes_maps_back_to_its_setting():
    from wizard.core.answers import default_answers as defaults
    from wizard.core.answers.render import render
    from wizard.core.catalog.key_lookup import setting_for_key

    for backend in ({"backend": "fsdp", "fsdp_version": 1}, {"backend": "fsdp"}, {"backend": "deepspeed"}):
        rendered = render(defaults().replace(backend))
        for path, _sid in rendered.provenance.items():
            assert setting_for_key(path) is not None, path
    assert setting_for_key("fsdp_config.min_num_params") == "wrapping.min_num_params"  # prefix-less spelling
    assert setting_for_key("zero_optimization.offload_param.buffer_size") == "offload.params"
    assert setting_for_key("tpu_env") is None


# ---------------------------------------------------------------- the output folder can be found and changed


@pytest.mark.asyncio
async def test_output_folder_has_a_key_a_palette_command_and_a_help_line(in_tmp):
    from wizard.tui.app import WizardApp
    from wizard.tui.screens.help import binding_rows
    from wizard.tui.screens.out_folder import OutFolderScreen

    assert any(what.startswith("Output folder…") and keys == "ctrl+o" for _, keys, what in binding_rows(WizardApp))
    app = create_app(Start(default_answers()))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        titles = [c.title for c in app.get_system_commands(main)]
        assert "Output folder…" in titles
        await press(pilot, "ctrl+o")
        assert isinstance(app.screen, OutFolderScreen)
        folder = app.screen.query_one("#out-folder", Input)
        folder.value = str(in_tmp / "elsewhere")
        await press(pilot, "enter")
        assert main.out == str(in_tmp / "elsewhere") and main.out_fixed
        assert "/elsewhere" in str(main.query_one(StatusBar).render())
        # a file is not a folder: the dialog says so and stays open
        (in_tmp / "afile").write_text("x")
        await press(pilot, "ctrl+o")
        app.screen.query_one("#out-folder", Input).value = str(in_tmp / "afile")
        await press(pilot, "enter")
        assert isinstance(app.screen, OutFolderScreen) and main.out == str(in_tmp / "elsewhere")
        await press(pilot, "escape")
        # the review's folder is a labelled, bordered input, and ctrl+o focuses it
        await press(pilot, "ctrl+r")
        review_input = app.screen.query_one("#out", Input)
        assert not review_input.has_class("-textual-compact")
        assert "Output folder" in str(app.screen.query_one("#out-label").render())
        await press(pilot, "ctrl+o")
        assert app.focused is review_input


# ---------------------------------------------------------------- the diff against the imported files


@pytest.mark.asyncio
async def test_review_diffs_against_the_imported_files_too(in_tmp):
    from wizard.core.answers.generate import imported_diff
    from wizard.tui.screens.review import ReviewScreen

    case = CORPUS / "64_ds_file_plus_inline_zero_stage"
    start = from_accelerate_config(case / "accelerate_config.yaml")
    assert [p.name for p in start.files] == ["accelerate_config.yaml", "ds_z2_config.json"]
    app = create_app(start, str(in_tmp / "out"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await press(pilot, "ctrl+r")
        review = app.screen
        assert isinstance(review, ReviewScreen) and review.imported == start.files
        diff = imported_diff(review.imported, review.generated.files)
        # the inline keys the plugin refuses are gone from the YAML; the JSON is compared with ds_config.json
        assert ("-  zero_stage: 2" in diff and "ds_z2_config.json (imported)" in diff
                and "ds_config.json (to write)" in diff)
        label = str(review.query_one("#files").get_tab("file-diff").label)
        assert "import: changed" in label and "folder: 0 changed" in label


# ---------------------------------------------------------------- 80x24: nothing important is cut off

LONG_OUT = "/tmp/some/very/long/path/that/goes/on/and/on/out"


def test_header_keeps_the_folder_readable_at_80_columns():
    from wizard.tui.widgets.statusbar import status_text

    text = status_text("FSDP2 no reshard (≈SHARD_GRAD_OP)", LONG_OUT, [], "preset zero3-nvme-offload", width=78).plain
    assert len(text) <= 78
    assert "folder: …" in text and text.rstrip().endswith("/and/on/out")
    wide = status_text("FSDP2 full shard", LONG_OUT, [], "preset zero3-nvme-offload", width=198).plain
    assert LONG_OUT in wide and "from preset zero3-nvme-offload" in wide and wide.startswith("fsdpds-wizard")


@pytest.mark.asyncio
async def test_review_at_80x24_keeps_its_key_bar_and_long_lines_scroll(tmp_path):
    from textual.widgets import Footer

    from wizard.tui.screens.review import ReviewScreen

    out = tmp_path / "a" / "rather" / "long" / "folder" / "name" / "for" / "the" / "configs"
    out.mkdir(parents=True)
    (out / "accelerate_config.yaml").write_text("old: content\n")
    answers = default_answers().replace({"backend": "deepspeed", "deepspeed.config_file": "yes"})
    app = create_app(Start(answers), str(out))
    async with app.run_test(size=SIZE) as pilot:
        await press(pilot, "ctrl+r")
        review = app.screen
        assert isinstance(review, ReviewScreen)
        status = str(review.query_one("#write-status").render())
        assert status.startswith("Ready") and "asks before replacing accelerate_config.yaml" in status
        footer = review.query_one(Footer)
        assert footer.region.height == 1 and footer.region.y == SIZE[1] - 1
        review.query_one("#files").active = "file-accelerate_config-yaml"
        await pilot.pause(0.2)
        scroll = review.query_one("#file-accelerate_config-yaml-text").parent
        assert scroll.max_scroll_x > 0  # deepspeed_config_file: <the long folder>/ds_config.json scrolls sideways


# ---------------------------------------------------------------- the switch report lists changes of meaning


def _switch(preset: str, target: str):
    from wizard.tui.shared.session import from_preset
    from wizard.tui.shared.switch import switch

    before = from_preset(preset).answers
    switched = switch(before, target)  # what ctrl+t runs
    return before, switched.answers, switched.report


def _preset_switches():
    from wizard.core.catalog import TARGETS
    from wizard.tui.shared.session import from_preset, preset_names

    return [(p, t) for p in preset_names() for t in TARGETS if t != from_preset(p).answers.target]


@pytest.mark.parametrize("preset,target", _preset_switches())
def test_switch_report_lists_every_change_of_meaning(preset, target):
    from wizard.core.convert import in_effect, unplaced
    from wizard.core.texts import meaning_changes
    from wizard.tui.screens.switch_report import report_renderable

    before, after, report = _switch(preset, target)
    t0 = before.target
    ran, _ = in_effect(before, quiet=True)
    # an answer the new ZeRO stage has no place for is not in effect there: it did not carry over (kept, not written)
    not_there = {sid for sid, (runs, _) in unplaced(after).items() if ran[sid] != runs}
    assert not_there <= {d.setting_id for d in report.dropped}
    expected = set()
    for s in (SETTING_BY_ID[i] for i in SETTING_BY_ID):
        if s.id in not_there:
            continue
        if s.applies_to(t0) and s.applies_to(target) and (before.is_set(s.id) or s.id in (
                "sharding.strategy", "offload.optimizer", "offload.params", "loading.ram_efficient",
                "checkpoint.format", "precision.mixed_precision")):
            expected |= {(s.id, text) for text in meaning_changes(s.id, ran[s.id], t0, target, after[s.id])}
    assert {(m.setting_id, m.text) for m in report.changed_meaning} == expected
    from rich.console import Console

    console = Console(width=100, record=True)
    console.print(report_renderable(report, 100))
    shown = console.export_text()
    assert ("Nothing was lost" in shown) == report.lossless
    for m in report.changed_meaning:
        assert m.setting_id in shown


def test_deepspeed_offload_to_fsdp2_is_not_reported_as_lossless():
    from wizard.core.catalog import FSDP2

    _, _, report = _switch("zero3-cpu-offload", FSDP2)
    assert not report.lossless
    offload = " ".join(m.text for m in report.changed_meaning if m.setting_id == "offload.optimizer")
    assert "DeepSpeed CPU optimizer" in offload and "gradients" in offload
