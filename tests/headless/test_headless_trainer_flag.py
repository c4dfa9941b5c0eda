"""``--headless ... --trainer hf|accelerate``: who drives training, over the answers' launch.training_loop (the files
are written for that loop, and a rehearsal trains through it)."""
from __future__ import annotations

import json

import yaml

from wizard.cli import main
from wizard.core.exits import EXIT_INVALID


def test_trainer_hf_writes_the_configs_for_the_trainer(tmp_path, capsys):
    assert main(["--headless", "zero2", "--trainer", "hf", "--out", str(tmp_path / "hf")]) == 0
    assert json.loads((tmp_path / "hf" / "training_arguments.json").read_text()) == {
        "gradient_accumulation_steps": 1, "max_grad_norm": 1.0, "bf16": True}
    answers = yaml.safe_load((tmp_path / "hf" / "answers.yaml").read_text())
    assert answers["launch"]["training_loop"] == "trainer"
    assert main(["--headless", "zero2", "--trainer", "accelerate", "--out", str(tmp_path / "own")]) == 0
    assert not (tmp_path / "own" / "training_arguments.json").exists()


def test_trainer_goes_with_headless(capsys):
    assert main(["--trainer", "hf"]) == EXIT_INVALID
    assert "--trainer goes with --headless" in capsys.readouterr().err
    assert main(["check", "x.yaml", "--trainer", "maybe"]) == EXIT_INVALID  # check's own flag, its own choices
