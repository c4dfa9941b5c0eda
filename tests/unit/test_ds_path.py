"""Where deepspeed_config_file points (issue 13): relative to the launch folder when the output lies inside it."""
from pathlib import Path

import pytest
import yaml

from wizard.core.answers import default_answers
from wizard.core.answers.generate import ds_config_ref, generate, launch_command

JSON_ANSWERS = default_answers().replace({"backend": "deepspeed", "deepspeed.config_file": "yes"})


def test_inside_the_launch_folder_the_path_is_relative_to_it(tmp_path):
    assert ds_config_ref(tmp_path / "out", tmp_path) == "out/ds_config.json"
    assert ds_config_ref(tmp_path / "a" / "b", tmp_path) == "a/b/ds_config.json"
    assert ds_config_ref(tmp_path, tmp_path) == "ds_config.json"
    assert ds_config_ref(tmp_path / "x" / ".." / "out", tmp_path) == "out/ds_config.json"


def test_outside_the_launch_folder_or_asked_for_the_path_is_absolute(tmp_path):
    (tmp_path / "launch").mkdir()
    assert ds_config_ref(tmp_path / "out", tmp_path / "launch") == str(tmp_path / "out" / "ds_config.json")
    assert ds_config_ref(tmp_path / "launch" / "out", tmp_path / "launch", "absolute") == \
        str(tmp_path / "launch" / "out" / "ds_config.json")
    with pytest.raises(ValueError, match="auto"):
        ds_config_ref(tmp_path, tmp_path, "relative")


def test_the_launch_folder_defaults_to_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert ds_config_ref(Path("out")) == "out/ds_config.json"
    assert ds_config_ref(None) == "ds_config.json"


def test_generated_names_the_launch_folder_only_for_a_relative_json(tmp_path):
    gen = generate(JSON_ANSWERS, tmp_path / "out", launch_dir=tmp_path)
    assert yaml.safe_load(gen.files["accelerate_config.yaml"])["deepspeed_config"]["deepspeed_config_file"] == \
        "out/ds_config.json"
    assert gen.launch_dir == tmp_path.resolve()
    assert generate(JSON_ANSWERS, tmp_path / "out", launch_dir=tmp_path, ds_path="absolute").launch_dir is None
    assert generate(JSON_ANSWERS, tmp_path, launch_dir=tmp_path / "elsewhere").launch_dir is None
    assert generate(default_answers(), tmp_path / "out", launch_dir=tmp_path).launch_dir is None  # FSDP: no JSON
    inline = default_answers().replace({"backend": "deepspeed"})
    assert generate(inline, tmp_path / "out", launch_dir=tmp_path).launch_dir is None


def test_same_answers_folder_and_launch_folder_give_the_same_bytes(tmp_path):
    a = generate(JSON_ANSWERS, tmp_path / "repo" / "out", launch_dir=tmp_path / "repo").files
    b = generate(JSON_ANSWERS, tmp_path / "moved" / "out", launch_dir=tmp_path / "moved").files
    assert a == b  # relative: the files do not depend on where the project lies


def test_launch_command_names_the_config_relative_to_the_launch_folder(tmp_path):
    assert launch_command(tmp_path / "out", None, ["--steps", "2"], tmp_path) == \
        ["accelerate", "launch", "--config_file", "out/accelerate_config.yaml", "train.py", "--steps", "2"]
    assert launch_command(tmp_path / "out")[3] == str((tmp_path / "out" / "accelerate_config.yaml").resolve())
