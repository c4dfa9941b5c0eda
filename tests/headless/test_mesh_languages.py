"""The device-mesh picture in Turkish and Traditional Chinese (issue 27): the machines' row labelled in the language,
its numbers in the same columns; English as it was."""
from __future__ import annotations

import pytest

from wizard.core.i18n import cells
from wizard.core.localized import said, ui
from wizard.core.mesh import mesh_picture

MACHINE = {"tr": "makine", "zh-TW": "機器"}
SIZES = {"dp_replicate": 2, "dp_shard": 8, "tp": 2}


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_the_machines_row_in_the_language_with_the_numbers_in_their_columns(lang):
    english = mesh_picture(SIZES, per_machine=8)
    shown = [said(line, lang) for line in mesh_picture(SIZES, per_machine=8, machine=ui("mesh_machine", lang))]
    assert shown[1] == english[1]  # the rank row: "rank" stays English
    machine = shown[2]
    assert machine.startswith(MACHINE[lang] + " ") and machine.split()[1:] == english[2].split()[1:]
    assert cells.width(machine) == len(english[2])  # counted in cells, the same width as the English row


def test_english_is_as_it_was():
    lines = mesh_picture(SIZES, per_machine=8)
    assert lines[2] == "machine         0  0  0  0  0  0  0  0  1  1  1  1  1  1  1  1"
    assert lines[-1] == "tp groups: [0,1] [2,3] [4,5] [6,7] ... (16 groups)"
    assert [said(line, "en") for line in lines] == lines


GROUPS = {"tr": ("tp grupları: [0,1] [2,3] [4,5] [6,7]", "(16 grup)"),
          "zh-TW": ("tp 群組: [0,1] [2,3] [4,5] [6,7]", "（共 16 組）")}


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_the_groups_lines_in_the_language_with_the_ranks_as_drawn(lang):
    shown = mesh_picture(SIZES, per_machine=8, machine=ui("mesh_machine", lang),
                         groups_of=lambda name: ui("mesh_groups", lang, name=name),
                         count_of=lambda n: ui("mesh_group_count", lang, count=n))
    head, count = GROUPS[lang]
    assert shown[-1].startswith(head) and shown[-1].endswith(count)
    assert not any("groups" in line for line in shown)
    assert all(cells.width(line) <= 78 for line in shown[-3:])  # fitted by cells, as the English by characters


def test_the_explain_command_draws_the_groups_in_the_language():
    import subprocess
    import sys

    from helpers import ROOT

    out = subprocess.run([sys.executable, "-m", "wizard", "explain", "parallelism", "--lang", "zh-TW"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120).stdout
    assert "tp 群組: [0,1] [2,3] [4,5] [6,7]" in out and "tp groups:" not in out
