"""The device-mesh picture in Turkish and Traditional Chinese (issue 27): the groups' lines and the machines' row in
the language, the dimensions, ranks and numbers as drawn; English as it was."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from wizard.core.localized import said, ui
from wizard.core.mesh import mesh_picture

ROOT = Path(__file__).resolve().parents[2]
GROUPS = {"tr": "grupları:", "zh-TW": "群組："}
MORE = {"tr": "tp grupları: [0,1] [2,3] [4,5] [6,7] ... (16 grup)",
        "zh-TW": "tp 群組：[0,1] [2,3] [4,5] [6,7] ...（共 16 個群組）"}
TP = {"tr": "\ntp grupları: [0,1] [2,3] [4,5] [6,7]\n", "zh-TW": "\ntp 群組：[0,1] [2,3] [4,5] [6,7]\n"}
MACHINE = {"tr": "makine", "zh-TW": "機器"}


def _run(*args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "wizard", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_every_groups_line_and_the_machines_row_in_the_language(lang):
    sizes = {"dp_replicate": 2, "dp_shard": 8, "tp": 2}
    english = mesh_picture(sizes, per_machine=8)
    shown = [said(line, lang) for line in mesh_picture(sizes, per_machine=8, machine=ui("mesh_machine", lang))]
    groups = [line for line in shown if "[0," in line]
    assert len(groups) == 3 and all(GROUPS[lang] in line and "groups" not in line for line in groups)
    assert MORE[lang] in shown
    assert shown[1] == english[1]  # the rank row: "rank" stays English
    machine = shown[2]
    assert machine.startswith(MACHINE[lang]) and machine.split()[1:] == english[2].split()[1:]
    # the numbers stand in the same columns (counted in cells) as in English
    from wizard.core.i18n import cells

    assert cells.width(machine) == len(english[2])


def test_english_is_as_it_was():
    lines = mesh_picture({"dp_replicate": 2, "dp_shard": 8, "tp": 2}, per_machine=8)
    assert lines[2].startswith("machine ")
    assert lines[-1] == "tp groups: [0,1] [2,3] [4,5] [6,7] ... (16 groups)"
    assert mesh_picture({"dp_shard": 2, "tp": 2})[-1] == "tp groups: [0,1] [2,3]"
    assert [said(line, "en") for line in lines] == lines


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_explain_parallelism_draws_the_example_in_the_language(lang):
    out = _run("explain", "parallelism", "--lang", lang)
    assert f"  tp {GROUPS[lang]}" in out and f"  cp {GROUPS[lang]}" in out and f"  dp_shard {GROUPS[lang]}" in out
    assert "[0,1] [2,3] [4,5] [6,7]" in out
    assert "groups:" not in out and "varies fastest" not in out


@pytest.mark.parametrize("lang", ["tr", "zh-TW"])
def test_headless_draws_the_groups_in_the_language(tmp_path, lang):
    out = _run("--headless", "fsdp2-tp", "--transformers-version", "5.0.0", "--out", str(tmp_path / "o"),
               "--lang", lang)
    assert TP[lang] in out
    assert "groups:" not in out
