"""The explanation pane never contradicts the files or itself, for every setting and every target (issue 7)."""
from __future__ import annotations

import re

import pytest
from rich.console import Console

from wizard.core.answers import default_answers
from wizard.core.answers.render import render
from wizard.core.catalog import DEEPSPEED, FIXED_KEYS, FSDP1, FSDP2, SETTING_BY_ID, SETTINGS, TARGETS
from wizard.core.convert import rendered_value, show_value, written_for
from wizard.core.texts import TEXTS, precision_notes, precision_table
from wizard.tui.shared.explain import explain_setting
from wizard.tui.shared.session import from_preset, preset_names

BACKENDS = {FSDP1: {"backend": "fsdp", "fsdp_version": 1}, FSDP2: {"backend": "fsdp", "fsdp_version": 2},
            DEEPSPEED: {"backend": "deepspeed"}}


def answer_sets():
    """Every preset on every target, plus the defaults: the answers people start from."""
    out = []
    for target, change in BACKENDS.items():
        out.append((f"defaults-{target}", default_answers().replace(change)))
        for name in preset_names():
            out.append((f"{name}-{target}", from_preset(name).answers.replace(change)))
    return out


ANSWERS = answer_sets()


def plain(renderable, width: int) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def leaves(data, prefix=""):
    for key, value in (data or {}).items():
        if isinstance(value, dict) and value:
            yield from leaves(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


@pytest.mark.parametrize("label,answers", ANSWERS, ids=[a[0] for a in ANSWERS])
def test_written_now_is_what_the_render_writes(label, answers):
    """Each pane's "Written now" keys are in the rendered files with those values, and every rendered key
    is claimed by the pane of at least one setting."""
    rendered = render(answers)
    claimed = set()
    for s in SETTINGS:
        written = written_for(rendered, s.id)
        for file, path, value in written:
            assert rendered_value(rendered, path) == (file, value), (s.id, path)
            claimed.add(path)
        text = plain(explain_setting(s.id, answers, rendered, None, 200), 200)
        for _, path, value in written:
            assert f"{path}: {show_value(value)}" in text, (s.id, path)
        if s.applies_to(answers.target) and not written:
            assert "Written now" in text and "nothing" in text
        if written:
            assert "nothing (the library default" not in text, s.id
    rendered_keys = {path for path, _ in leaves(rendered.accelerate)} | {p for p, _ in leaves(rendered.deepspeed)}
    assert rendered_keys - frozenset(FIXED_KEYS) - claimed == set()  # keys every config gets


def test_fsdp2_optimizer_offload_pane_shows_the_offload_switch():
    answers = default_answers().replace({"offload.optimizer": "cpu", "offload.params": "cpu"})
    text = plain(explain_setting("offload.optimizer", answers, render(answers), None, 100), 100)
    assert "fsdp_config.fsdp_offload_params: true" in text and "Written now for FSDP2: nothing" not in text


def source_words(setting_id: str, answers) -> set[str]:
    s, t = SETTING_BY_ID[setting_id], TEXTS[setting_id]
    texts = [t.what, t.fsdp, t.deepspeed, t.versions, t.tips, s.counterpart, *s.where.values(),
             *s.not_applicable.values()]
    if s.group == "precision":
        md, mp = answers["precision.model_dtype"], answers["precision.mixed_precision"]
        texts += precision_notes(md, mp)
        for row in precision_table(md, mp):
            texts += [row.flat_params_or_prepared, row.checkpoint]
    return {w for text in texts for w in text.split()}


PANE_WIDTHS = (45, 48, 60, 84, 110)
"""Explanation widths: 80x24 (48), 120x40, 200x50 (84) and in between."""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("width", PANE_WIDTHS)
def test_no_word_is_broken_inside(target, width):
    """Every word of the texts (identifiers like fsdp_offload_params above all) appears whole in the pane."""
    answers = default_answers().replace({**BACKENDS[target], "precision.model_dtype": "bf16"})
    rendered = render(answers)
    for s in SETTINGS:
        shown = set(re.sub(r"[│┃┆╎─━┌┐└┘├┤┬┴┼╭╮╰╯┏┓┗┛]", " ", plain(
            explain_setting(s.id, answers, rendered, None, width), width)).split())
        broken = {w for w in source_words(s.id, answers) if len(w) <= width - 4 and w not in shown}
        assert not broken, (s.id, sorted(broken)[:5])


@pytest.mark.parametrize("target", TARGETS)
def test_headings_match_their_text(target):
    answers = default_answers().replace(BACKENDS[target])
    rendered = render(answers)
    for s in SETTINGS:
        text = plain(explain_setting(s.id, answers, rendered, None, 100), 100)
        assert "Versions (FSDP1 vs FSDP2)" not in text  # the version notes are about both backends


def test_deepspeed_wrapping_reason_agrees_with_the_pane():
    for sid in ("wrapping.policy", "wrapping.layer_classes", "wrapping.min_num_params"):
        reason = SETTING_BY_ID[sid].not_applicable[DEEPSPEED]
        assert "partitions whole parameters" not in reason and "hooks" in reason
    assert "hooks" in TEXTS["wrapping.policy"].deepspeed
