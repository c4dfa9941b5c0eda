"""``check TRAIN.yaml`` for LLaMA-Factory and axolotl training files (issue 25): the file's arguments, mapped onto
TrainingArguments as each tool does, judged against the DeepSpeed JSON it names (opened from the folder the run
starts in). The JSONs and YAMLs are the real ones of tests/data/trainer_files/ (docs/corpus.md)."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from wizard.cli import main

DATA = yaml.safe_load((Path(__file__).parents[1] / "data" / "trainer_files" / "cases.yaml").read_text())
LF_Z3 = DATA["deepspeed"]["llamafactory/ds_z3_config"]["config"]
AX_Z3_BF16 = DATA["deepspeed"]["axolotl/zero3_bf16"]["config"]
LF_YAML = {  # the Trainer keys of examples/train_full/qwen3_full_sft.yaml, with some of its other keys
    "model_name_or_path": "Qwen/Qwen3-4B-Instruct-2507", "stage": "sft", "do_train": True, "finetuning_type": "full",
    "deepspeed": "examples/deepspeed/ds_z3_config.json", "dataset": "identity,alpaca_en_demo",
    "template": "qwen3_nothink", "cutoff_len": 2048, "output_dir": "saves/qwen3-4b/full/sft",
    "per_device_train_batch_size": 2, "gradient_accumulation_steps": 2, "learning_rate": 1.0e-5,
    "num_train_epochs": 3.0, "lr_scheduler_type": "cosine", "warmup_ratio": 0.1, "bf16": True, "plot_loss": True}
AX_YAML = {  # after examples/gpt-oss/gpt-oss-20b-fft-deepspeed-zero3.yaml
    "base_model": "openai/gpt-oss-20b", "datasets": [{"path": "HuggingFaceH4/Multilingual-Thinking",
                                                      "type": "chat_template"}],
    "sequence_len": 4096, "sample_packing": True, "gradient_accumulation_steps": 2, "micro_batch_size": 1,
    "num_epochs": 1, "optimizer": "adamw_torch_8bit", "lr_scheduler": "constant_with_warmup", "learning_rate": "2e-5",
    "bf16": True, "tf32": True, "warmup_ratio": 0.03, "deepspeed": "deepspeed_configs/zero3_bf16.json"}


def run(tmp_path, monkeypatch, capsys, train: dict, files: dict[str, dict], *flags, name="train.yaml"):
    monkeypatch.chdir(tmp_path)
    for rel, ds in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(json.dumps(ds))
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(yaml.safe_dump(train))
    code = main(["check", name, *flags, "--format", "json"])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if out.out.strip() else None), out.err


def rules(doc) -> dict[str, list[tuple[str, ...]]]:
    out: dict[str, list[tuple[str, ...]]] = {}
    for f in doc["findings"]:
        out.setdefault(f["rule"], []).append(tuple(f["keys"]))
    return out


def test_llamafactory_yaml_with_a_consistent_zero3_json_passes(tmp_path, monkeypatch, capsys):
    code, doc, _ = run(tmp_path, monkeypatch, capsys, LF_YAML, {"examples/deepspeed/ds_z3_config.json": LF_Z3})
    assert code == 0, doc["findings"]
    found = rules(doc)
    assert "training-file-read" in found and "ds-json-trainer-auto-filled" in found
    assert doc["context"]["input"] == "llamafactory_training_file" and doc["context"]["loop"] == "hf"
    assert doc["context"]["trainer_arguments"]["per_device_train_batch_size"] == 2
    # keys of the tool that are not about the pair give no findings
    assert not [f for f in doc["findings"] if any(w in f["message"] for w in ("cutoff_len", "plot_loss", "template"))]


def test_llamafactory_micro_batch_against_the_json_fails_naming_both(tmp_path, monkeypatch, capsys):
    ds = {**copy.deepcopy(LF_Z3), "train_micro_batch_size_per_gpu": 4}
    code, doc, _ = run(tmp_path, monkeypatch, capsys, LF_YAML, {"examples/deepspeed/ds_z3_config.json": ds})
    assert code == 2
    assert rules(doc)["ds-json-trainer-argument-mismatch"] == [("train_micro_batch_size_per_gpu",
                                                                 "per_device_train_batch_size")]


def test_axolotl_bf16_against_a_json_with_bf16_off_fails_naming_it(tmp_path, monkeypatch, capsys):
    ds = copy.deepcopy(AX_Z3_BF16)
    ds["bf16"]["enabled"] = False
    code, doc, _ = run(tmp_path, monkeypatch, capsys, AX_YAML, {"deepspeed_configs/zero3_bf16.json": ds})
    assert code == 2
    assert rules(doc)["ds-json-trainer-argument-mismatch"] == [("bf16.enabled", "bf16")]
    assert doc["context"]["input"] == "axolotl_training_file"


def test_axolotl_mapping(tmp_path, monkeypatch, capsys):
    """micro_batch_size is the per-device batch, a learning rate written as text is a number (pydantic), bf16: auto
    is true on a bf16 GPU, warmup_ratio is the warm-up fraction."""
    train = {**AX_YAML, "bf16": "auto", "micro_batch_size": 3}
    ds = {**copy.deepcopy(AX_Z3_BF16), "train_micro_batch_size_per_gpu": 3,
          "optimizer": {"type": "AdamW", "params": {"lr": 2e-5}}}
    code, doc, _ = run(tmp_path, monkeypatch, capsys, train, {"deepspeed_configs/zero3_bf16.json": ds})
    assert code == 0, doc["findings"]
    targs = doc["context"]["trainer_arguments"]
    assert (targs["per_device_train_batch_size"], targs["learning_rate"], targs["bf16"], targs["warmup_steps"]) \
        == (3, 2e-5, True, 0.03)
    (read,) = [f for f in doc["findings"] if f["rule"] == "training-file-read"]
    assert "micro_batch_size" in read["message"] and "bf16: auto" in read["message"]


def test_the_json_is_opened_from_the_folder_the_run_starts_in(tmp_path, monkeypatch, capsys):
    """Both tools open `deepspeed:` as written, from the current folder; one found only beside the YAML is an error
    that says so."""
    train = {**LF_YAML, "deepspeed": "ds_z3_config.json"}
    code, doc, _ = run(tmp_path, monkeypatch, capsys, train, {"configs/ds_z3_config.json": LF_Z3},
                       name="configs/train.yaml")
    assert code == 2
    (f,) = [f for f in doc["findings"] if f["rule"] == "training-file-deepspeed-not-found"]
    assert f["keys"] == ["deepspeed"] and "beside the YAML" in f["message"]


def test_axolotl_fsdp_says_what_is_checked_and_what_not(tmp_path, monkeypatch, capsys):
    train = {k: v for k, v in AX_YAML.items() if k != "deepspeed"}
    train.update(fsdp_version=2, fsdp_config={"reshard_after_forward": True, "state_dict_type": "FULL_STATE_DICT"})
    code, doc, _ = run(tmp_path, monkeypatch, capsys, train, {})
    assert code == 0
    (f,) = [f for f in doc["findings"] if f["rule"] == "training-file-fsdp-not-checked"]
    assert "Not checked" in f["message"] and "fsdp_config" in f["keys"]


def test_a_file_without_deepspeed_says_there_is_no_pair(tmp_path, monkeypatch, capsys):
    code, doc, _ = run(tmp_path, monkeypatch, capsys, {k: v for k, v in LF_YAML.items() if k != "deepspeed"}, {})
    assert code == 0 and "training-file-no-deepspeed" in rules(doc)


def test_axolotl_inline_deepspeed_config(tmp_path, monkeypatch, capsys):
    ds = {**copy.deepcopy(AX_Z3_BF16), "gradient_clipping": 0.3}
    code, doc, _ = run(tmp_path, monkeypatch, capsys, {**AX_YAML, "deepspeed": ds}, {})
    assert code == 2 and rules(doc)["ds-json-trainer-argument-mismatch"] == [("gradient_clipping", "max_grad_norm")]


def test_kind_forces_the_tool(tmp_path, monkeypatch, capsys):
    """Only TrainingArguments keys: not recognised (read as an accelerate config); --kind llamafactory reads it."""
    train = {"deepspeed": "ds.json", "per_device_train_batch_size": 2, "max_grad_norm": 0.5}
    ds = {**copy.deepcopy(LF_Z3), "gradient_clipping": 1.0}
    code, doc, _ = run(tmp_path, monkeypatch, capsys, train, {"ds.json": ds})
    assert doc["context"]["input"] == "accelerate_config"
    code, doc, _ = run(tmp_path, monkeypatch, capsys, train, {"ds.json": ds}, "--kind", "llamafactory")
    assert code == 2 and rules(doc)["ds-json-trainer-argument-mismatch"] == [("gradient_clipping", "max_grad_norm")]


@pytest.mark.parametrize("train,flags,words", [
    ({**LF_YAML, "learning_rate": "1e-5"}, (), "learning_rate: '1e-5' must be a number"),
    (LF_YAML, ("--trainer", "accelerate"), "--trainer accelerate"),
])
def test_usage_errors(tmp_path, monkeypatch, capsys, train, flags, words):
    code, doc, err = run(tmp_path, monkeypatch, capsys, train, {"examples/deepspeed/ds_z3_config.json": LF_Z3},
                         *flags)
    assert code == 2 and doc is None and words in err


def test_kind_on_an_unusable_file_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.yaml").write_text("- a list\n")
    assert main(["check", "t.yaml", "--kind", "axolotl"]) == 2
    assert "--kind axolotl" in capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(DATA["training"]))
def test_real_training_files_are_recognised_and_mapped_as_their_tools_do(name):
    """The real YAMLs (their keys that matter, tests/data/trainer_files/): recognised as their project's, and mapped
    onto the TrainingArguments read by hand from each tool's code (docs/corpus.md)."""
    from wizard.core.effective.training_file import detect_kind, training_file_from

    case = DATA["training"][name]
    kind = detect_kind(case["file"])
    assert kind == name.split("/")[0]
    assert training_file_from(case["file"], kind).arguments == case["arguments"]
