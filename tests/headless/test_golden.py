"""Golden files: each preset renders to exactly the committed files (UPDATE_GOLDEN=1 rewrites them)."""
import os

import pytest
from helpers import PRESET_FILES as PRESETS
from helpers import ROOT

from wizard.core.answers import parse_answers_text
from wizard.core.answers.generate import generate

GOLDEN = ROOT / "tests" / "golden"


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.stem)
def test_preset_matches_golden(preset):
    answers, findings = parse_answers_text(preset.read_text())
    assert answers is not None, findings
    gen = generate(answers, None)
    assert gen.ok, [f.render() for f in gen.findings if f.severity == "error"]
    folder = GOLDEN / preset.stem
    if os.environ.get("UPDATE_GOLDEN"):
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        for name, text in gen.files.items():
            (folder / name).write_text(text)
    expected = {p.name: p.read_text() for p in folder.iterdir()}
    assert expected == gen.files


def test_every_preset_has_a_golden_folder():
    assert sorted(p.name for p in GOLDEN.iterdir() if p.is_dir()) == sorted(p.stem for p in PRESETS)


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.stem)
def test_headless_into_the_launch_folder_writes_the_golden_files(preset, tmp_path, monkeypatch):
    """The real command, from the folder it writes into: the relative deepspeed_config_file is `ds_config.json`
    whatever the machine, so the files are the committed ones byte for byte (deterministic: no cwd-dependence)."""
    from wizard.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["--headless", str(preset), "--out", "."]) == 0
    expected = {p.name: p.read_bytes() for p in (GOLDEN / preset.stem).iterdir()}
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == expected
