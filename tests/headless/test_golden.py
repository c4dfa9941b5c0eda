"""Golden files: each preset renders to exactly the committed files (UPDATE_GOLDEN=1 rewrites them)."""
import os

import pytest
from helpers import BLOCKED_PRESETS as BLOCKED
from helpers import PRESET_FILES as PRESETS
from helpers import ROOT, blocked_here

from wizard.core.answers import parse_answers_text
from wizard.core.answers.generate import generate

GOLDEN = ROOT / "tests" / "golden"
@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.stem)
def test_preset_matches_golden(preset):
    answers, findings = parse_answers_text(preset.read_text())
    assert answers is not None, findings
    gen = generate(answers, None)
    blocked = blocked_here(preset.stem)
    errors = [f.rule for f in gen.findings if f.severity == "error"]
    # a preset the installed versions cannot run says so, with that one error and no other
    assert errors == ([blocked] if blocked else []), [f.render() for f in gen.findings if f.severity == "error"]
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
    if blocked_here(preset.stem):
        assert main(["--headless", str(preset), "--out", "."]) == 2  # the error, and nothing written
        assert list(tmp_path.iterdir()) == []
        return
    assert main(["--headless", str(preset), "--out", "."]) == 0
    expected = {p.name: p.read_bytes() for p in (GOLDEN / preset.stem).iterdir()}
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == expected


def test_the_fsdp2_tp_preset_passes_check_for_the_transformers_it_needs(capsys):
    """The golden FSDP2 + TP config is judged for transformers 5.0 (the last release accelerate 1.15's FSDP2 + TP
    prepare() can import from): no error, the mesh of 4 x 2 stated; for 5.24 the one error of BLOCKED."""
    from wizard.cli import main

    path = str(GOLDEN / "fsdp2-tp" / "accelerate_config.yaml")
    common = ["check", path, "--accelerate-version", "1.15.0", "--format", "json", "--gpus-per-node", "8",
              "--trainer", "accelerate", "--model", "llama-3.1-8b"]
    assert main([*common, "--transformers-version", "5.0.0"]) == 0
    import json

    rules = {f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert "parallelism-mesh-layout" in rules and not rules & {"parallelism-tp-heads", "parallelism-total-mismatch"}
    assert main([*common, "--transformers-version", "5.24.0"]) == 2
    errors = {f["rule"] for f in json.loads(capsys.readouterr().out)["findings"] if f["severity"] == "error"}
    assert errors == {BLOCKED["fsdp2-tp"][0]}
