"""Issue 27: the reasons the run layer gives that the TUI's launch questions (and the command line) show, in Turkish
and Traditional Chinese: no GPU found, the run libraries a launch needs, the ``.deepspeed_env`` note. Each is built
by the function that builds it, then translated as the screens do (``localized.said`` / ``localized.screen``); the
names and values in it stay as written and no English frame is left."""
from __future__ import annotations

from pathlib import Path

import pytest

from wizard.core import i18n, localized
from wizard.core.answers import answers_from_mapping
from wizard.core.answers.multinode import env_file_note
from wizard.run.plan import no_gpu_problem
from wizard.run.requirements import INSTALL, problem

LANGS = ("tr", "zh-TW")
FSDP = answers_from_mapping({"backend": "fsdp", "fsdp_version": 2, "launch": {"num_processes": 4}})[0]
ONE = answers_from_mapping({"backend": "deepspeed", "launch": {"num_processes": 1}})[0]
PDSH = answers_from_mapping({"backend": "deepspeed", "launch": {
    "num_processes": 16, "num_machines": 2, "main_process_ip": "10.0.0.1", "ds_multinode_launcher": "pdsh"}})[0]
WORD = {"tr": {"gpu": "bulunamadı", "env": "ekler", "where": "klasördeki", "needs": "gerekir"},
        "zh-TW": {"gpu": "找不到", "env": "附加", "where": "資料夾", "needs": "需要"}}
"""A word of each translation that its English does not have."""



@pytest.fixture()
def no_gpu(monkeypatch):
    """This machine as one without a GPU: CUDA_VISIBLE_DEVICES hides every device (the detection's own rule)."""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("answers, here, backend", [(FSDP, "4", "FSDP2"), (ONE, "1", "DeepSpeed")])
def test_no_gpu_found_in_the_language(no_gpu, lang, answers, here, backend):
    english = no_gpu_problem(answers)
    assert english is not None and english.startswith("no GPU found on this machine")
    shown = localized.said(english, lang)
    assert WORD[lang]["gpu"] in shown
    for kept in ("GPU", "NVIDIA", "CUDA_VISIBLE_DEVICES", "CPU", here, backend):
        assert kept in shown
    assert "no GPU found" not in shown and "one per GPU" not in shown and "as the config describes" not in shown
    assert ("FSDP" in shown) == ("FSDP" in english)
    assert localized.said(english, "en") == english


@pytest.mark.parametrize("lang", LANGS)
def test_the_command_lines_no_gpu_refusal_has_the_reason_in_the_language_too(no_gpu, lang):
    """``--launch`` puts the reason in its own translated error: the reason inside is translated as well."""
    from wizard.commands.launch_cmd import require_gpu_for_args
    from wizard.core.exits import UsageError

    class Args:
        launch, rehearse, slurm, allow_no_gpu = True, False, False, False

    with pytest.raises(UsageError) as refused:
        require_gpu_for_args(Args(), FSDP)
    english = str(refused.value)
    shown = localized.said(english, lang)
    assert "--launch" in shown and "--rehearse" in shown and "--allow-no-gpu" in shown
    assert WORD[lang]["gpu"] in shown and "no GPU found" not in shown


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("rehearse", [True, False])
def test_the_run_libraries_a_launch_needs_in_the_language(monkeypatch, lang, rehearse):
    """The flows' sentence: the action's words in the language (``flow.needs_*``), then the command line's sentence
    around it; the libraries and the install command as written."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "deepspeed" else real(name, *a))
    key = "flow.needs_rehearsal" if rehearse else "flow.needs_launch"
    english = problem(localized.screen("run", key, "en"), "deepspeed")
    assert english is not None
    assert english.startswith("A CPU rehearsal (F5) needs " if rehearse else "A launch (ctrl+l) needs ")
    shown = localized.said(problem(localized.screen("run", key, lang), "deepspeed"), lang)
    assert WORD[lang]["needs"] in shown and "deepspeed" in shown and INSTALL in shown
    assert ("F5" if rehearse else "ctrl+l") in shown
    assert "rehearsal" not in shown and "A launch" not in shown and "not installed" not in shown


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("launch_dir", ["/work/runs", None])
def test_the_deepspeed_env_note_in_the_language(lang, launch_dir):
    english = env_file_note(PDSH, launch_dir)
    assert english is not None and ".deepspeed_env" in english
    shown = localized.said(english, lang)
    assert WORD[lang]["env"] in shown
    for kept in ("pdsh", "accelerate launch", "umask", "DeepSpeed", "'cmd = ...'", ".deepspeed_env"):
        assert kept in shown
    if launch_dir is not None:
        assert "/work/runs/.deepspeed_env" in shown
    else:
        assert WORD[lang]["where"] in shown and "in the folder it starts from" not in shown
    assert "appends its whole environment" not in shown and "delete the file" not in shown
    assert localized.said(english, "en") == english


@pytest.mark.parametrize("lang", LANGS)
def test_the_quit_questions_lines_and_the_start_files_name_in_the_language(lang):
    """The quit question's list (``MainScreen.unwritten``'s (name, state) pairs) and the findings list's name of a
    start file without a path."""
    from wizard.tui.app import unwritten_line

    i18n.set_language(lang)
    shown = unwritten_line("accelerate_config.yaml", "changed")
    assert shown.startswith("  accelerate_config.yaml") and localized.screen("review", "state_changed") in shown
    assert "changed" not in shown
    assert unwritten_line("a (b)", "new").startswith("  a (b)") and "new" not in unwritten_line("a (b)", "new")
    assert "gone" in unwritten_line("x.json", "gone")  # not a state the review screen names: as it is
    assert localized.ui("start_file") not in ("", "the start file")
    i18n.set_language("en")
    assert unwritten_line("accelerate_config.yaml", "changed") == "  accelerate_config.yaml (changed)"
    assert unwritten_line("answers.yaml", "new") == "  answers.yaml (new)"
    assert localized.ui("start_file") == "the start file"


REHEARSED = answers_from_mapping({"backend": "fsdp", "fsdp_version": 2, "wrapping": {"ignored_modules": "vision.*"},
                                  "launch": {"num_processes": 8, "dynamo_backend": "inductor"}})[0]
NAME_WORD = {"tr": {"processes": "süreçler", "argument": "argüman", "ignored modules": "yok sayılan modüller"},
             "zh-TW": {"processes": "行程數", "argument": "引數", "ignored modules": "忽略的模組"}}


def _adjustments():
    from wizard.run.rehearse import rehearsal_answers

    _, notes, _ = rehearsal_answers(REHEARSED, port=29999, extra_args=["--foo", "3"])
    return {n.name: n for n in notes}


@pytest.mark.parametrize("lang", LANGS)
def test_the_rehearsals_short_names_in_the_language(lang):
    from wizard.run.rehearse import short_in_language

    notes = _adjustments()
    cases = {"processes": ("processes 8 (ran 2)", ("8", "2")),
             "argument": ("argument --foo 3 (dropped)", ("--foo 3",)),
             "ignored modules": ("ignored modules vision.* (ran none)", ("vision.*", "none"))}
    for name, (english, kept) in cases.items():
        assert notes[name].short() == english
        shown = short_in_language(english, lang)
        assert shown.startswith(NAME_WORD[lang][name]), shown
        assert all(value in shown for value in kept)
        assert "(ran" not in shown and "(dropped)" not in shown and name not in shown
        assert short_in_language(english, "en") == english
    tp = short_in_language("tp 4 (ran 2)", lang)  # a name: kept, the frame translated
    assert tp.startswith("tp 4") and "(ran" not in tp
    assert short_in_language("odd words", lang) == "odd words"


def test_every_short_name_of_the_rehearsal_has_the_run_screens_words():
    """A new name in rehearse._LABELS or a new catalogue ``short`` shows here: each is a ``short.name.*`` of the run
    screen, or a name kept as written."""
    from wizard.core.catalog import SETTINGS
    from wizard.core.localized.screens import words
    from wizard.run.rehearse import _LABELS

    kept = {"tp", "cp", "sp", "dp_replicate", "AutoTP"}
    listed = {k.removeprefix("short.name.") for k in words("run") if k.startswith("short.name.")}
    names = {*_LABELS.values(), *(s.short for s in SETTINGS if s.short and s.rehearsal), "argument"}
    assert names - kept <= listed and not listed & kept
    assert listed <= names  # none left over


@pytest.mark.parametrize("lang", LANGS)
def test_the_catalogues_reasons_why_the_bundled_model_cannot_run_a_setting(lang):
    from wizard.core.catalog import SETTINGS

    reasons = [s.rehearsal for s in SETTINGS if s.rehearsal]
    assert len(reasons) >= 2
    for english in reasons:
        shown = localized.said(english, lang)
        assert shown != english and "bundled" not in shown
        assert ("MoE" in shown) == ("MoE" in english)
    why = _adjustments()["ignored modules"].why
    assert why in reasons and localized.said(why, lang) != why


@pytest.mark.parametrize("lang", LANGS)
def test_the_checklists_not_rehearsed_row_in_the_language(lang):
    """The run screen's row: its label's words and the short name in the language, the reason too; the record keeps
    the English."""
    from wizard.run.checklist import in_language, not_rehearsed_items

    adj = _adjustments()["ignored modules"]
    row, = not_rehearsed_items([adj.to_dict()])
    assert row.label == "Not rehearsed: ignored modules vision.* (ran none)"
    label = in_language(row.label, lang)
    assert NAME_WORD[lang]["ignored modules"] in label and "vision.*" in label
    assert "Not rehearsed" not in label and "(ran" not in label
    assert in_language(row.detail, lang) == localized.said(adj.why, lang) != adj.why
    assert in_language(row.label, "en") == row.label


# ---------------------------------------------------------------------------------------- computed phrases (item 4)
FORMAT_WORD = {"tr": "tam state dict", "zh-TW": "完整 state dict"}
LATEST_WORD = {"tr": "en son adım klasörü", "zh-TW": "最新的步驟資料夾"}


def _safetensors(path: Path) -> Path:
    """A one-tensor safetensors file, written by hand (its 8-byte header length, the JSON header, the data)."""
    import json

    header = json.dumps({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode()
    path.write_bytes(len(header).to_bytes(8, "little") + header + b"\0\0\0\0")
    return path


@pytest.mark.parametrize("lang", LANGS)
def test_a_checkpoints_format_and_how_it_was_found_in_the_language(tmp_path, lang):
    from wizard.run.consolidate import FORMATS, find_checkpoint

    step = tmp_path / "step-000010"
    step.mkdir()
    (step / "pytorch_model_fsdp.bin").write_bytes(b"")
    ck = find_checkpoint(tmp_path)
    english = ck.describe()
    assert english == f"FSDP full state dict in {step} (step 10), found through the latest step folder"
    shown = localized.said(english, lang)
    assert FORMAT_WORD[lang] in shown and LATEST_WORD[lang] in shown and str(step) in shown and "10" in shown
    assert FORMATS["fsdp_full"] not in shown and "the latest step folder" not in shown and "found through" not in shown
    given = localized.said(find_checkpoint(step).describe(), lang)
    assert localized.screen("run", "found.given", lang) in given and "the folder given" not in given
    assert localized.said(english, "en") == english


@pytest.mark.parametrize("lang", LANGS)
def test_how_a_moved_run_records_checkpoint_was_found(lang):
    from wizard.core.localized.phrases import phrase

    moved = phrase("the run record (checkpoint.json) (the run folder has moved)", lang)
    assert moved is not None and "checkpoint.json" in moved
    assert "run record" not in moved and "has moved" not in moved
    assert phrase("the run record (checkpoint.json) (the run folder has moved)", "en") is None
    assert phrase("some other words", lang) is None


def test_every_format_and_every_way_of_finding_a_checkpoint_has_the_run_screens_words():
    """The phrases are looked up by their English: a format, a way or a tool renamed in wizard/run shows here."""
    import ast
    import inspect

    from wizard.core.localized.screens import words
    from wizard.run import consolidate
    from wizard.run.records import CHECKPOINT, SUMMARY

    run = words("run")
    assert {f"format.{k}": v for k, v in consolidate.FORMATS.items()} == {k: v for k, v in run.items()
                                                                          if k.startswith("format.")}
    ways = {run[k] for k in run if k.startswith("found.")}
    source = inspect.getsource(consolidate)
    for way in ("the folder given", "the latest step folder", "the run's checkpoint/ folder"):
        assert f'"{way}"' in source and way in ways
    assert {f"the run record ({CHECKPOINT})", f"the run record ({SUMMARY})"} <= ways
    assert f'via + "{" (the run folder has moved)"}"' in source
    tools = {run[k] for k in run if k.startswith("tool.")}
    for node in ast.walk(ast.parse(source)):  # every tool's name _RUNS and the tools return, but dotted names
        if isinstance(node, ast.FunctionDef) and node.name in ("_merge_fsdp", "_full_state_dict", "_copy"):
            returned = [n.value for n in ast.walk(node) if isinstance(n, ast.Return)]
            first = ast.literal_eval(ast.unparse(returned[-1].elts[0]))
            assert first in tools, first
    assert {v for v in consolidate._RUNS.values() if " " in v and "+" not in v} <= tools


@pytest.mark.parametrize("lang", LANGS)
def test_consolidates_progress_and_tool_in_the_language(tmp_path, lang):
    """A safetensors checkpoint, consolidated for real (a copy): each progress line and the tool it ran."""
    from wizard.core.localized.phrases import shown
    from wizard.run.consolidate import consolidate, find_checkpoint

    folder = tmp_path / "ck"
    folder.mkdir()
    _safetensors(folder / "model.safetensors")
    lines: list[str] = []
    result = consolidate(find_checkpoint(folder), tmp_path / "out", progress=lines.append)
    assert lines[1] == "running a copy (CPU-bound: large models take minutes)"
    running = localized.said(lines[1], lang)
    assert localized.screen("run", "tool.copy", lang) in running and "a copy" not in running
    consolidating = localized.said(lines[0].removeprefix("consolidating "), lang)
    assert localized.screen("run", "format.model", lang) in consolidating and "whole model weights" not in consolidating
    assert result.tool == "copied (already one safetensors file)"
    assert shown(result.tool, lang) == localized.screen("run", "tool.copy_ran", lang) != result.tool
    assert shown(result.tool, "en") == result.tool


@pytest.mark.parametrize("lang", LANGS)
def test_an_os_errors_words_in_the_language(tmp_path, lang):
    """checkpoint_io's "cannot read it (...)" with the OS's words for a known errno translated; another errno's and
    the file names as they are."""
    import errno
    import os

    from wizard.core.localized.phrases import ERRNOS, os_error
    from wizard.run.checkpoint_io import UnreadableCheckpoint, read_safetensors_header

    with pytest.raises(UnreadableCheckpoint) as refused:
        read_safetensors_header(tmp_path)  # a folder
    english = str(refused.value)
    assert english == f"{tmp_path}: cannot read it ({os.strerror(errno.EISDIR)})"
    shown = localized.said(english, lang)
    assert str(tmp_path) in shown and localized.screen("run", "os.EISDIR", lang) in shown
    assert os.strerror(errno.EISDIR) not in shown
    for name in ERRNOS:
        words = os.strerror(getattr(errno, name))
        assert os_error(words, lang) == localized.screen("run", f"os.{name}", lang) != words
    code = errno.EACCES
    assert os_error(f"[Errno {code}] {os.strerror(code)}: '/x y'", lang) == \
        f"[Errno {code}] {localized.screen('run', 'os.EACCES', lang)}: '/x y'"
    assert os_error(os.strerror(errno.ECHILD), lang) is None  # not mapped: the OS's text stays
    assert os_error(os.strerror(errno.EACCES), "en") is None
