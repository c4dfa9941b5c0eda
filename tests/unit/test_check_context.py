"""``check`` in its context (issue 9): a DeepSpeed JSON alone, who drives training (--trainer, --script), the
library versions judged for, and the JSON contract."""
from __future__ import annotations

import json

import pytest

from wizard.cli import main
from wizard.core.context import Context, VersionError, in_spec, make_context, parse_version
from wizard.core.lint import load_config_files
from wizard.core.rules import RULES, rule
from wizard.core.script_loop import infer_loop, infer_loop_from_source

TRAINER_JSON = {  # the shape Trainer-based projects ship: everything the Trainer fills is "auto"
    "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
    "gradient_clipping": "auto", "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"},
    "optimizer": {"type": "AdamW", "params": {"lr": "auto", "betas": "auto", "eps": "auto", "weight_decay": "auto"}},
    "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_min_lr": "auto", "warmup_max_lr": "auto",
                                                      "warmup_num_steps": "auto", "total_num_steps": "auto"}},
    "zero_optimization": {"stage": 3, "overlap_comm": True, "reduce_bucket_size": "auto",
                          "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto",
                          "stage3_gather_16bit_weights_on_model_save": True},
}


def check(capsys, path, *flags) -> tuple[int, dict]:
    code = main(["check", str(path), *flags, "--format", "json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def write(tmp_path, data, name="ds_config.json"):
    p = tmp_path / name
    p.write_text(json.dumps(data))
    return p


def errors(doc) -> list[dict]:
    return [f for f in doc["findings"] if f["severity"] == "error"]


# ------------------------------------------------------------------ a DeepSpeed JSON alone
def test_a_bare_json_is_recognised_and_linted_alone(tmp_path):
    loaded = load_config_files(write(tmp_path, TRAINER_JSON))
    assert loaded.bare_ds and loaded.ds == TRAINER_JSON and loaded.ds_path is not None
    yaml_like = write(tmp_path, {"distributed_type": "DEEPSPEED", "fp16": True}, "acc.json")
    assert not load_config_files(yaml_like).bare_ds  # accelerate keys (a flag-valued fp16 is accelerate's)


def test_trainer_json_passes_under_the_trainer_and_fails_in_an_own_loop(tmp_path, capsys):
    p = write(tmp_path, TRAINER_JSON)
    code, doc = check(capsys, p, "--trainer", "hf", "--num-processes", "8")
    assert code == 0 and not errors(doc), errors(doc)
    assert doc["context"]["loop"] == "hf" and doc["context"]["input"] == "deepspeed_json"
    assert doc["context"]["num_processes"] == 8
    code, doc = check(capsys, p, "--trainer", "accelerate", "--num-processes", "8")
    assert code == 2
    blamed = {k for f in errors(doc) for k in f["keys"]}
    assert blamed == {"optimizer.params.betas", "optimizer.params.eps"}, blamed
    code, doc = check(capsys, p, "--num-processes", "8")  # unknown loop: both outcomes, as warnings
    assert code == 0 and not errors(doc)
    rules = {f["rule"] for f in doc["findings"]}
    assert {"ds-json-auto-trainer-only", "context-loop-unknown"} <= rules


def test_batch_arithmetic_uses_num_processes(tmp_path, capsys):
    p = write(tmp_path, {"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4,
                         "gradient_accumulation_steps": 2, "zero_optimization": {"stage": 2}})
    assert check(capsys, p, "--trainer", "hf", "--num-processes", "8")[0] == 0  # 4 x 2 x 8 = 64
    code, doc = check(capsys, p, "--trainer", "hf", "--num-processes", "4")
    assert code == 2 and any(f["rule"] == "ds-json-batch-mismatch" for f in errors(doc))
    assert check(capsys, p, "--trainer", "hf")[0] == 0  # world unknown: no arithmetic


def test_trainer_lr_conflict_is_an_error_only_under_the_trainer(tmp_path, capsys):
    data = dict(TRAINER_JSON, optimizer={"type": "AdamW", "params": {"lr": 1e-4}},
                scheduler={"type": "WarmupLR", "params": {"warmup_max_lr": 3e-5, "warmup_num_steps": 10}})
    p = write(tmp_path, data)
    code, doc = check(capsys, p, "--trainer", "hf")
    assert code == 2 and {"optimizer.params.lr", "scheduler.params.warmup_max_lr"} <= set(errors(doc)[0]["keys"])
    assert check(capsys, p, "--trainer", "accelerate")[0] == 0


def test_num_processes_goes_with_a_bare_json_only(tmp_path, capsys):
    y = tmp_path / "acc.yaml"
    y.write_text("distributed_type: FSDP\nnum_processes: 2\nfsdp_config: {fsdp_version: 2}\n")
    _, doc = check(capsys, y, "--num-processes", "8")
    notes = [f for f in doc["findings"] if f["rule"] == "context-num-processes-not-used"]
    assert len(notes) == 1 and "(2) decides" in notes[0]["message"]


@pytest.mark.parametrize("text", ["", "[1, 2]", "{\"zero_optimization\": ", "\u0000\u0001", "{\"a\": {\"b\": 1}}",
                                  "{\"train_batch_size\": \"x\", \"zero_optimization\": []}", "{\"fp16\": 3}",
                                  "{\"zero_optimization\": {\"stage\": \"three\"}, \"optimizer\": 1}"])
def test_odd_files_give_the_json_contract(tmp_path, capsys, text):
    p = tmp_path / "ds.json"
    p.write_text(text)
    for loop in ("hf", "accelerate"):
        code = main(["check", str(p), "--trainer", loop, "--num-processes", "8", "--format", "json"])
        doc = json.loads(capsys.readouterr().out)
        assert code in (0, 2) and isinstance(doc["findings"], list)
        assert all({"severity", "rule", "keys", "message"} <= set(f) for f in doc["findings"])
        assert code == (2 if errors(doc) else 0)


# ------------------------------------------------------------------ who drives training, read from a script
def test_script_inference(tmp_path):
    cases = {
        "from trl import SFTTrainer\nSFTTrainer(model=m).train()\n": "hf",
        "import transformers\nclass T(transformers.Seq2SeqTrainer):\n    pass\nT(model=m).train()\n": "hf",
        "from transformers import Trainer as HT\nHT(model=m)\n": "hf",
        "from llamafactory.train.tuner import run_exp\nrun_exp()\n": "hf",
        "from accelerate import Accelerator\nacc = Accelerator()\nmodel, opt = acc.prepare(model, opt)\n": "accelerate",
        "import accelerate\nacc = accelerate.Accelerator()\nacc.prepare(m)\n": "accelerate",
        "from accelerate import Accelerator\nAccelerator()\n": None,  # no prepare(): cannot tell
        "import torch\nprint(1)\n": None,
        "def broken(:\n": None,
    }
    for text, want in cases.items():
        got = infer_loop_from_source(text, "train.py")
        assert got.loop == want, (text, got)
        assert got.evidence.startswith("train.py")
    bundled = infer_loop(__import__("wizard").__file__.replace("__init__.py", "") + "../templates/train_gpt.py")
    assert bundled.loop == "accelerate"


def test_check_script_sets_the_loop(tmp_path, capsys):
    s = tmp_path / "train.py"
    s.write_text("from transformers import Trainer, TrainingArguments\nTrainer(model=m, args=a).train()\n")
    code, doc = check(capsys, write(tmp_path, TRAINER_JSON), "--script", str(s))
    assert code == 0 and doc["context"]["loop"] == "hf" and "train.py:2" in doc["context"]["loop_source"]
    assert main(["check", str(tmp_path / "ds_config.json"), "--script", str(tmp_path / "nope.py")]) == 2
    assert main(["check", str(tmp_path / "ds_config.json"), "--script", str(s), "--trainer", "hf"]) == 2


# ------------------------------------------------------------------ versions
def test_version_ranges():
    assert parse_version("2.13.0+cpu") == (2, 13, 0) and parse_version("1.6.0.dev0") == (1, 6, 0)
    assert in_spec("0.19.8", ">=0.19.6") and not in_spec("0.19.5", ">=0.19.6")
    assert in_spec("1.7", ">=1.6,<1.10") and not in_spec("1.10.0", ">=1.6,<1.10") and in_spec("3", "")
    with pytest.raises(VersionError):
        parse_version("latest")
    with pytest.raises(ValueError):
        rule("test-bad-range", "info", "x", "y", section="config", versions={"deepspeed": "~=0.1"})
    with pytest.raises(ValueError):
        rule("test-bad-lib", "info", "x", "y", section="config", versions={"numpy": ">=1"})
    assert "test-bad-range" not in RULES and "test-bad-lib" not in RULES


def test_a_rule_outside_its_range_does_not_fire():
    from wizard.core.lint.base import ConfigCheck
    from wizard.core.lint.base import rule as config_rule

    name = "test-only-from-0-16"
    if name not in RULES:
        config_rule(name, "warning", "x", "y", versions={"deepspeed": ">=0.16"}, claims=("ds-unread-keys-ignored",))
    try:
        for version, fires in (("0.15.4", False), ("0.16.0", True), ("0.19.8", True), (None, True)):  # None: 0.19.8
            ctx = ConfigCheck(y={}, ds={}, gpus_per_node=None, ds_path_known=True, fp8_available=lambda: False,
                      context=Context(versions={"deepspeed": version}))
            ctx.emit(name, "k", "m")
            assert bool(ctx.findings) == fires, version
        old = "test-only-before-0-16"
        if old not in RULES:
            config_rule(old, "warning", "x", "y", versions={"deepspeed": "<0.16"}, claims=("ds-unread-keys-ignored",))
        ctx = ConfigCheck(y={}, ds={}, gpus_per_node=None, ds_path_known=True, fp8_available=lambda: False,
                  context=Context(versions={}))
        ctx.emit(old, "k", "m")
        assert not ctx.findings  # an unknown version is judged as the verified one (0.19.8)
    finally:
        RULES.pop(name, None)
        RULES.pop("test-only-before-0-16", None)


def test_versions_come_from_flags_then_installed_then_assumed():
    ctx = make_context(None, flags={"deepspeed": "0.16.4"}, installed={"accelerate": "1.10.1"})
    assert ctx.versions["deepspeed"] == "0.16.4" and ctx.version_sources["deepspeed"] == "flag"
    assert ctx.versions["accelerate"] == "1.10.1" and ctx.version_sources["accelerate"] == "installed"
    assert ctx.version_sources["transformers"] == "assumed"
    with pytest.raises(VersionError):
        make_context(None, flags={"deepspeed": "new"})


def test_check_reports_the_versions_it_judged_for(tmp_path, capsys):
    p = write(tmp_path, TRAINER_JSON)
    code, doc = check(capsys, p, "--deepspeed-version", "0.16.4", "--trainer", "hf")
    v = doc["context"]["versions"]
    assert v["deepspeed"] == {"version": "0.16.4", "source": "flag"}
    assert v["accelerate"]["source"] in ("installed", "assumed") and v["accelerate"]["version"]
    notes = [f for f in doc["findings"] if f["rule"] == "context-versions-not-verified"]
    assert len(notes) == 1 and "deepspeed" in notes[0]["keys"] and "0.16.4" in notes[0]["message"]
    assert main(["check", str(p), "--deepspeed-version", "latest"]) == 2
    capsys.readouterr()
    code, doc = check(capsys, p, "--trainer", "hf")  # the installed (= verified) versions: no note about them
    assert not [f for f in doc["findings"] if f["rule"] == "context-versions-not-verified" and "deepspeed" in f["keys"]]


def test_text_output_says_what_it_judged_for(tmp_path, capsys):
    main(["check", str(write(tmp_path, TRAINER_JSON)), "--trainer", "hf"])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("OK: ") and "(DeepSpeed JSON alone)" in last and "the Hugging Face Trainer" in last


def test_inline_deepspeed_values_the_trainer_compares(tmp_path, capsys):
    y = tmp_path / "acc.yaml"
    y.write_text("distributed_type: DEEPSPEED\nnum_processes: 8\nmixed_precision: bf16\ndeepspeed_config:\n"
                 "  zero_stage: 2\n  gradient_accumulation_steps: 4\n  gradient_clipping: 1.0\n")
    for loop, want in (("hf", True), ("accelerate", False)):
        _, doc = check(capsys, y, "--trainer", loop, "--gpus-per-node", "8")
        notes = [f for f in doc["findings"] if f["rule"] == "ds-json-trainer-values-must-match"]
        assert bool(notes) == want, loop
        if want:
            assert set(notes[0]["keys"]) == {"deepspeed_config.gradient_accumulation_steps",
                                             "deepspeed_config.gradient_clipping"}
            assert "gradient_accumulation_steps 4 = gradient_accumulation_steps (default 1)" in notes[0]["message"]


def test_auto_accumulation_with_fixed_batches(tmp_path, capsys):
    """GA "auto" is filled from the Trainer's / the Accelerator's accumulation: a fixed total that some whole
    number of steps reaches is a warning naming that number; one that none reaches is an error."""
    fits = write(tmp_path, {"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4,
                            "gradient_accumulation_steps": "auto", "zero_optimization": {"stage": 2}})
    for loop in ("hf", "accelerate"):
        code, doc = check(capsys, fits, "--trainer", loop, "--num-processes", "8")
        assert code == 0
        notes = [f for f in doc["findings"] if f["rule"] == "ds-json-fixed-batch-auto-accumulation"]
        assert notes and "exactly 2 accumulation step(s)" in notes[0]["message"]
    bad = write(tmp_path, {"train_batch_size": 60, "train_micro_batch_size_per_gpu": 4,
                           "gradient_accumulation_steps": "auto", "zero_optimization": {"stage": 2}}, "bad.json")
    code, doc = check(capsys, bad, "--trainer", "hf", "--num-processes", "8")
    assert code == 2 and errors(doc)[0]["rule"] == "ds-json-batch-mismatch"
    micro_auto = write(tmp_path, {"train_batch_size": 12, "train_micro_batch_size_per_gpu": "auto",
                                  "gradient_accumulation_steps": "auto", "zero_optimization": {"stage": 2}}, "m.json")
    code, doc = check(capsys, micro_auto, "--trainer", "hf", "--num-processes", "8")  # 12 over 8 processes: never
    assert code == 2 and errors(doc)[0]["rule"] == "ds-json-batch-mismatch"


def test_null_accumulation_fails_through_accelerate(tmp_path, capsys):
    """accelerate only fills a missing gradient_accumulation_steps; a null one is multiplied into the batch."""
    p = write(tmp_path, {"train_batch_size": 128, "train_micro_batch_size_per_gpu": 16,
                         "gradient_accumulation_steps": None, "zero_optimization": {"stage": 0}})
    for loop in ("hf", "accelerate"):
        code, doc = check(capsys, p, "--trainer", loop, "--num-processes", "8")
        assert code == 2 and [f["keys"] for f in errors(doc)] == [["gradient_accumulation_steps"]]


def test_a_comment_key_is_not_an_error(tmp_path, capsys):
    p = write(tmp_path, dict(TRAINER_JSON, _comment="tuned for 8 x A100"))
    code, doc = check(capsys, p, "--trainer", "hf")
    assert code == 0 and [f["severity"] for f in doc["findings"] if f["rule"] == "ds-json-comment-key"] == ["info"]


@pytest.mark.parametrize("body,want", [
    ("distributed_type: MULTI_GPU\nnum_machines: null\nnum_processes: 2\n", ["num_machines"]),
    ("distributed_type: MULTI_GPU\nnum_machines: 1\nnum_processes: null\n", ["num_processes"]),
    ("distributed_type: NO\nnum_processes: 1\nmixed_precision: bf16\n", []),  # unquoted NO is YAML's false
])
def test_null_counts_and_an_unquoted_no(tmp_path, capsys, body, want):
    y = tmp_path / "acc.yaml"
    y.write_text("compute_environment: LOCAL_MACHINE\n" + body)
    code, doc = check(capsys, y, "--gpus-per-node", "8")
    assert sorted(k for f in errors(doc) for k in f["keys"]) == want
    assert code == (2 if want else 0)


def test_inline_clipping_left_out_is_the_trainers_max_grad_norm(tmp_path, capsys):
    y = tmp_path / "acc.yaml"
    y.write_text("distributed_type: DEEPSPEED\nnum_processes: 8\nmixed_precision: bf16\ndeepspeed_config:\n"
                 "  zero_stage: 2\n")
    rules = {loop: {f["rule"] for f in check(capsys, y, "--trainer", loop, "--gpus-per-node", "8")[1]["findings"]}
             for loop in ("hf", "accelerate")}
    assert ("deepspeed-no-gradient-clipping" not in rules["hf"]
            and "deepspeed-no-gradient-clipping" in rules["accelerate"])


def test_transformers_version_bound_fills(tmp_path, capsys):
    """Fills of older Trainers that DeepSpeed refuses: reported only for the transformers releases that do them."""
    p = write(tmp_path, TRAINER_JSON)  # ZeRO-3, prefetch bucket "auto", WarmupDecayLR warmup_num_steps "auto"

    def rules(version):
        _, doc = check(capsys, p, "--trainer", "hf", "--transformers-version", version)
        return {f["rule"] for f in doc["findings"]}

    assert {"trainer-prefetch-bucket-float", "trainer-warmup-steps-zero"} <= rules("4.44.2")
    assert "trainer-prefetch-bucket-float" not in rules("4.45.2") and "trainer-warmup-steps-zero" in rules("5.17.0")
    assert not {"trainer-prefetch-bucket-float", "trainer-warmup-steps-zero"} & rules("5.24.0")
    _, doc = check(capsys, p, "--trainer", "accelerate", "--transformers-version", "4.44.2")
    assert not {"trainer-prefetch-bucket-float", "trainer-warmup-steps-zero"} & {f["rule"] for f in doc["findings"]}


def test_warmup_steps_must_be_a_positive_int(tmp_path, capsys):
    data = {"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 1},
            "scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": 0}}}
    p = write(tmp_path, data)
    code, doc = check(capsys, p, "--trainer", "accelerate")
    assert code == 2 and errors(doc)[0]["rule"] == "ds-json-warmup-steps-invalid"
    assert check(capsys, p, "--trainer", "accelerate", "--deepspeed-version", "0.19.2")[0] == 0  # clamped to 2 there
