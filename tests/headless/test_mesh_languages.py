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
          "zh-TW": ("tp 群組：[0,1] [2,3] [4,5] [6,7]", "（共 16 組）")}


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_the_groups_lines_in_the_language_with_the_ranks_as_drawn(lang):
    from wizard.core.localized import mesh_picture as picture_in

    shown = picture_in(SIZES, per_machine=8, lang=lang)
    head, count = GROUPS[lang]
    assert shown[-1].startswith(head) and shown[-1].endswith(count)
    assert not any("groups" in line for line in shown)
    assert all(cells.width(line) <= 78 for line in shown[-3:])  # fitted by cells, as the English by characters


def test_the_picture_and_the_finding_say_the_groups_in_the_same_words():
    """One sentence per dimension's groups (wizard.core.mesh.groups_sentence), drawn in the picture and listed in the
    finding parallelism-mesh-layout: the same words in each language."""
    from wizard.core.localized import finding_message
    from wizard.core.localized import mesh_picture as picture_in
    from wizard.core.mesh import groups_sentence, mesh_groups

    sizes = {"dp_shard": 4, "tp": 2}
    sentences = [groups_sentence(d, g) for d, g in mesh_groups(sizes).items()]
    assert sentences == ["dp_shard groups: [0,2,4,6] [1,3,5,7]", "tp groups: [0,1] [2,3] [4,5] [6,7]"]
    from wizard.core.findings import Finding

    english = ("accelerate's mesh for 8 processes: dp_shard 4 x tp 2 (the last dimension varies fastest). "
               + "; ".join(sentences) + ".")
    finding = Finding("info", "parallelism-mesh-layout", ("parallelism_config.parallelism_config_tp_size",), english)
    for lang in ("tr", "zh-TW"):
        drawn = picture_in(sizes, lang=lang)[-2:]
        message = finding_message(finding, lang)
        assert all(line in message for line in drawn), (drawn, message)
        assert "groups" not in message and "varies fastest" not in message and "accelerate" in message


def test_the_explain_command_draws_the_groups_in_the_language():
    import subprocess
    import sys

    from helpers import ROOT

    out = subprocess.run([sys.executable, "-m", "wizard", "explain", "parallelism", "--lang", "zh-TW"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120).stdout
    assert "tp 群組：[0,1] [2,3] [4,5] [6,7]" in out and "tp groups:" not in out
