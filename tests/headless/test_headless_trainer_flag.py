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


def test_the_tool_snippet_and_its_json_pass_check_from_the_launch_folder(tmp_path, capsys, monkeypatch):
    answers = tmp_path / "axolotl.yaml"
    answers.write_text("schema_version: 1\nbackend: deepspeed\nsharding: {strategy: full}\n"
                       "launch: {num_processes: 8, training_loop: trainer, trainer_tool: axolotl}\n"
                       "training: {micro_batch_size: 2, gradient_accumulation_steps: 4, gradient_clipping: 0.5}\n")
    monkeypatch.chdir(tmp_path)
    assert main(["--headless", str(answers), "--out", "out"]) == 0
    snippet = (tmp_path / "out" / "axolotl_args.yaml").read_text()
    assert "deepspeed: out/ds_config.json" in snippet and "micro_batch_size: 2" in snippet
    capsys.readouterr()
    assert main(["check", "out/axolotl_args.yaml", "--kind", "axolotl"]) == 0
    out = capsys.readouterr()
    assert "0 error(s)" in out.out + out.err
    # the same JSON against a file that says otherwise: the mismatch the Trainer would raise
    (tmp_path / "out" / "other.yaml").write_text(snippet.replace("micro_batch_size: 2", "micro_batch_size: 3"))
    ds = (tmp_path / "out" / "ds_config.json").read_text().replace('"train_micro_batch_size_per_gpu": "auto"',
                                                                   '"train_micro_batch_size_per_gpu": 2')
    (tmp_path / "out" / "ds_config.json").write_text(ds)
    assert main(["check", "out/other.yaml", "--kind", "axolotl"]) == EXIT_INVALID
    err = capsys.readouterr()
    assert "train_micro_batch_size_per_gpu" in err.out + err.err and "per_device_train_batch_size" in err.out + err.err


def test_a_training_file_goes_with_a_local_rehearsal_and_must_be_readable(tmp_path, capsys):
    assert main(["--headless", "zero2", "--out", str(tmp_path / "o"), "--training-file", "x.yaml"]) == EXIT_INVALID
    assert "--training-file goes with --headless ANSWERS.yaml --launch --rehearse" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("per_device_train_batch_size: two\n")
    assert main(["--headless", "zero2", "--trainer", "hf", "--out", str(tmp_path / "o"), "--launch", "--rehearse",
                 "--training-file", str(bad)]) == EXIT_INVALID
    err = capsys.readouterr().err
    assert "--training-file" in err and "per_device_train_batch_size" in err
    assert not (tmp_path / "o").exists()  # refused before anything was written
