"""Issue 27, the last English lines: ``recommend``'s "--base ...: not used" and ``--write``'s "wrote ..." line and
``--headless --verify``'s progress lines in Turkish and Traditional Chinese (``python -m wizard`` subprocesses where
cheap, the functions otherwise), with paths, flags, names and figures as the English has them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wizard.core import i18n, localized
from wizard.core.i18n.lines import LINES

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("tr", "zh-TW")
L8 = ["--model", "llama-3.1-8b", "--gpus-per-node", "8", "--gpu-memory", "80"]


def wizard(*argv: str) -> subprocess.CompletedProcess:
    """``python -m wizard ARGV`` from this tree, without the caller's locale."""
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "wizard", *argv], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)


def _in(lang: str, key: str, **values: object) -> str:
    """The line ``key`` of wizard/core/i18n/lines.py in ``lang``, filled in."""
    return i18n.filled("lines", key, LINES[key], lang, **values)


# ---------------------------------------------------------------------------------------------------------------
# recommend
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["base_not_used", "write_configs_with", "its_parallelism", "verify_progress"])
@pytest.mark.parametrize("lang", LANGS)
def test_the_new_lines_are_translated_and_keep_their_values(key, lang):
    values = {"name": "base.yaml", "command": "fsdpds-wizard --headless a.yaml --out DIR", "values": "tp_size: 2",
              "text": "TEXT", "seconds": "1.5"}
    english = _in("en", key, **values)
    translated = _in(lang, key, **values)
    assert translated != english
    for name in ("name", "command", "values", "text", "seconds"):
        if "{" + name + "}" in LINES[key]:
            assert str(values[name]) in translated


@pytest.mark.parametrize("lang", LANGS)
def test_recommend_write_line_in_the_language(tmp_path, lang):
    target = tmp_path / "mine.yaml"
    target.write_text("backend: fsdp\n")
    proc = wizard("recommend", *L8, "--write", str(target), "--force", "--lang", lang)
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.rstrip("\n").splitlines()[-1]
    command = f"fsdpds-wizard --headless {target} --out DIR"
    assert last == (_in(lang, "wrote", path=target) + f" ({_in(lang, 'kept_previous', path=f'{target}.bak')})"
                    + "; " + _in(lang, "write_configs_with", command=command))
    assert "wrote" not in last and "write the configs with" not in last
    again = wizard("recommend", *L8, "--write", str(target), "--lang", lang)  # the same content: left alone
    assert again.returncode == 0, again.stderr
    assert again.stdout.rstrip("\n").splitlines()[-1] == (_in(lang, "unchanged", path=target) + "; "
                                                          + _in(lang, "write_configs_with", command=command))


def test_recommend_write_line_in_english_as_before(tmp_path):
    target = tmp_path / "mine.yaml"
    target.write_text("backend: fsdp\n")
    proc = wizard("recommend", *L8, "--write", str(target), "--force", "--lang", "en")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip("\n").splitlines()[-1] == (
        f"wrote {target} (kept the previous version as {target}.bak); write the configs with: "
        f"fsdpds-wizard --headless {target} --out DIR")


@pytest.mark.parametrize("lang", LANGS)
def test_recommend_base_not_used_in_the_language(tmp_path, lang):
    base = tmp_path / "both.json"
    base.write_text(json.dumps({"fp16": {"enabled": True}, "bf16": {"enabled": True},
                                "train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 2}}))
    proc = wizard("recommend", *L8, "--base", str(base), "--lang", lang)
    assert proc.returncode == 2
    first = proc.stdout.splitlines()[0]
    assert first == _in(lang, "base_not_used", name=base) and first.startswith(f"--base {base}")
    assert "not used" not in first


def test_recommend_parallelism_words_in_the_language():
    from wizard.core.i18n.lines import line

    i18n.set_language("tr")
    try:
        assert line("its_parallelism", values="tp_size: 2, dp_shard_size: 4").endswith("tp_size: 2, dp_shard_size: 4")
        assert not line("its_parallelism", values="x").startswith("its ")
    finally:
        i18n.reset()


# ---------------------------------------------------------------------------------------------------------------
# --headless --verify's progress
# ---------------------------------------------------------------------------------------------------------------
VERIFY_PROGRESS = (
    "importing torch, accelerate, deepspeed (the first time takes seconds)",
    "importing torch, accelerate, deepspeed and transformers (the first time takes seconds)",
    "accelerate reads accelerate_config.yaml",
    "accelerate launch turns it into the environment the processes get",
    "accelerate builds its plugins from that environment",
    "accelerate builds its plugins from that environment (and the Trainer's TrainingArguments)",
    'DeepSpeed fills "auto" and validates its config',
    "comparing every value with the answers",
)
"""What the replay says as each stage starts (wizard/core/verify/replay.py, answers.py), as it says it."""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("english", VERIFY_PROGRESS)
def test_verify_progress_sentences_are_translated(english, lang):
    translated = localized.said(english, lang)
    assert translated != english
    for name in ("torch", "accelerate", "deepspeed", "DeepSpeed", "accelerate_config.yaml", "TrainingArguments",
                 '"auto"', "transformers"):
        if name in english.replace("accelerate_config.yaml", ""):
            assert name in translated
    if "accelerate_config.yaml" in english:
        assert "accelerate_config.yaml" in translated


def test_verify_progress_sentences_are_the_replays_own():
    """The sentences above are the ones the code says: each is a template of wizard/core/verify read off the code."""
    from wizard.core.localized.messages import templates

    known = {t for _part, t in templates()}
    for english in VERIFY_PROGRESS:
        assert english.replace("accelerate_config.yaml", "{0}") in known, english


@pytest.mark.verify
def test_headless_verify_progress_in_turkish(tmp_path):
    proc = wizard("--headless", "zero2", "--out", str(tmp_path / "out"), "--verify", "--lang", "tr")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    progress = [x for x in proc.stderr.splitlines() if x.startswith("doğrulama: ")]
    assert len(progress) >= 4, proc.stderr
    assert progress[0].startswith("doğrulama: " + localized.said(VERIFY_PROGRESS[0], "tr"))
    assert progress[-1].startswith("doğrulama: " + localized.said(VERIFY_PROGRESS[-1], "tr"))
    assert "verify: " not in proc.stderr and " s so far)" not in proc.stderr


# ---------------------------------------------------------------------------------------------------------------
# consolidate
# ---------------------------------------------------------------------------------------------------------------
def _safetensors(folder: Path) -> Path:
    """A checkpoint folder holding one whole-model safetensors file, written by hand (no torch needed)."""
    import struct

    folder.mkdir()
    header = json.dumps({"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}).encode()
    header += b" " * (-len(header) % 8)
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + bytes(24))
    return folder


@pytest.mark.parametrize("lang", LANGS)
def test_consolidate_lines_in_the_language(tmp_path, lang):
    ck = _safetensors(tmp_path / "ck")
    out = tmp_path / "out"
    proc = wizard("consolidate", str(ck), "--out", str(out), "--lang", lang)
    assert proc.returncode == 0, proc.stderr
    assert (out / "model.safetensors").is_file()
    first, frm, ran, same = proc.stdout.splitlines()[:4]
    size = f"{(ck / 'model.safetensors').stat().st_size} B"
    assert first == _in(lang, "consolidated", file=out / "model.safetensors", size=size, params="6", tensors=1,
                        dtypes="F32 x1")
    english_from = f"whole model weights (safetensors) in {ck}, found through the folder given"
    assert frm == "  " + _in(lang, "consolidated_from", what=localized.said(english_from, lang))
    assert localized.said(english_from, lang) != english_from and str(ck) in frm
    assert ran.startswith("  " + _in(lang, "consolidated_ran", tool="")) and same.startswith("  ")
    progress = [x.removeprefix("consolidate: ") for x in proc.stderr.splitlines()]
    assert localized.said("running a copy (CPU-bound: large models take minutes)", lang) in progress
    assert progress[0] == _in(lang, "consolidating", what=localized.said(english_from, lang))
    assert not any(x.startswith(("running ", "wrote ")) for x in progress), progress
    # a refusal: the output exists and --force is not given
    again = wizard("consolidate", str(ck), "--out", str(out), "--lang", lang)
    assert again.returncode == 2
    refusal = f"{out / 'model.safetensors'} exists; add --force to replace it, or choose another folder with --out"
    assert again.stderr.strip() == "fsdpds-wizard: " + localized.said(refusal, lang)
    assert localized.said(refusal, lang) != refusal and "--force" in again.stderr and "--out" in again.stderr


@pytest.mark.parametrize("lang", LANGS)
def test_consolidate_no_such_folder_in_the_language(tmp_path, lang):
    missing = tmp_path / "nowhere"
    proc = wizard("consolidate", str(missing), "--lang", lang)
    assert proc.returncode == 2
    english = f"{missing}: no such folder; give a run record folder (OUT/runs/<id>) or a checkpoint folder"
    assert proc.stderr.strip() == "fsdpds-wizard: " + localized.said(english, lang) != "fsdpds-wizard: " + english
    assert "OUT/runs/<id>" in proc.stderr


def test_consolidate_lines_in_english_as_before(tmp_path):
    ck = _safetensors(tmp_path / "ck")
    out = tmp_path / "out"
    proc = wizard("consolidate", str(ck), "--out", str(out), "--lang", "en")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    size = (ck / "model.safetensors").stat().st_size
    assert lines[0] == f"{out / 'model.safetensors'}: {size} B, 6 parameters in 1 tensors (F32 x1)"
    assert lines[1] == f"  from: whole model weights (safetensors) in {ck}, found through the folder given"
    assert lines[2] == "  ran:  copied (already one safetensors file)"
    assert lines[3] == f"  same as: cp {ck / 'model.safetensors'} OUT/model.safetensors"
    assert proc.stderr.splitlines()[:2] == [f"consolidate: consolidating whole model weights (safetensors) in {ck}, "
                                            "found through the folder given",
                                            "consolidate: running a copy (CPU-bound: large models take minutes)"]


@pytest.mark.parametrize("lang", LANGS)
def test_a_refused_checkpoint_says_why_in_the_language(tmp_path, lang):
    """wizard/run/checkpoint_io.py's reasons (a damaged safetensors file here) reach the command line translated."""
    ck = tmp_path / "ck"
    ck.mkdir()
    (ck / "model.safetensors").write_bytes(b"abc")
    proc = wizard("consolidate", str(ck), "--out", str(tmp_path / "out"), "--lang", lang)
    assert proc.returncode == 2 and not (tmp_path / "out").exists()
    english = f"{ck / 'model.safetensors'}: 3 bytes, too short for a safetensors file"
    translated = localized.said(english, lang)
    assert translated != english and str(ck / "model.safetensors") in translated
    assert proc.stderr.strip() == f"fsdpds-wizard: {translated}"


# ---------------------------------------------------------------------------------------------------------------
# the memory screen's field errors (F3)
# ---------------------------------------------------------------------------------------------------------------
FIELDS = {"model": "lama-3.1-8b", "gpu_memory": "1e300", "seq": "abc", "batch": "1.5"}


def test_field_errors_in_english_as_before():
    from wizard.tui.shared.session import memory_fields

    _ctx, errors = memory_fields(FIELDS, "en")
    assert errors["gpu_memory"] == ("GPU memory per GPU (GiB): 1e300: too large; give the memory of one GPU in GiB, "
                                    "above 0 and at most 16,384 (e.g. 80)")
    assert errors["seq"] == ("Sequence length: abc: not a number; give the sequence length in tokens, from 1 to "
                             "134,217,728 (e.g. 2048)")
    assert errors["model"].startswith("Model: unknown model 'lama-3.1-8b'. Did you mean 'llama-3.1-8b'? ")
    assert errors["model"].endswith("; or give a config.json path, or a parameter count (8e9, 8B).")
    _ctx, errors = memory_fields({"model": "llama-3.1-8b", "largest_layer": "5"}, "en")
    assert errors == {"largest_layer": "Largest layer (params): the model's shape gives its largest layer; this "
                                       "field is for a parameter count (clear it)"}
    _ctx, errors = memory_fields({"model": "8e9", "largest_layer": "9e9"}, "en")
    assert errors == {"largest_layer": "Largest layer (params): 9e9 is more than the model's 8,000,000,000 parameters"}


@pytest.mark.parametrize("lang", LANGS)
def test_field_errors_in_the_language(lang):
    from wizard.core.localized.parsers import number_error
    from wizard.tui.shared.session import MEMORY_FIELDS, memory_fields

    i18n.set_language(lang)  # the wizard's language, as the screen has it (no lang given)
    try:
        _ctx, errors = memory_fields(FIELDS)
    finally:
        i18n.reset()
    english = memory_fields(FIELDS, "en")[1]
    assert set(errors) == set(english) == set(FIELDS)
    for name, text in errors.items():
        label = localized.screen("memory", f"field.{name}", lang)  # the field's name as the screen shows it
        assert text.startswith(label) and text != english[name]
        assert label == MEMORY_FIELDS[name] or MEMORY_FIELDS[name] not in text  # ("Model" is Turkish too)
    assert "1e300" in errors["gpu_memory"] and "16,384" in errors["gpu_memory"] and "(e.g." not in errors["gpu_memory"]
    from wizard.core.bounds import NumberError, parse

    with pytest.raises(NumberError) as caught:
        parse("seq", "abc")
    assert errors["seq"].endswith(number_error(caught.value, lang))
    model = errors["model"]
    assert "'lama-3.1-8b'" in model and "'llama-3.1-8b'" in model and "config.json" in model
    assert localized.said("a parameter count (8e9, 8B)", lang) in model
    assert "--params" not in model and "unknown model" not in model
    _ctx, errors = memory_fields({"model": "llama-3.1-8b", "largest_layer": "5"}, lang)
    assert "this field is for" not in errors["largest_layer"]
    _ctx, errors = memory_fields({"model": "8e9", "largest_layer": "9e9"}, lang)
    assert "9e9" in errors["largest_layer"] and "8,000,000,000" in errors["largest_layer"]
    assert "is more than" not in errors["largest_layer"]


# ---------------------------------------------------------------------------------------------------------------
# the effective model's notes on an estimate
# ---------------------------------------------------------------------------------------------------------------
ZERO2 = """compute_environment: LOCAL_MACHINE
distributed_type: DEEPSPEED
deepspeed_config:
  zero_stage: 2
  offload_param_device: cpu
  offload_optimizer_device: nvme
  gradient_accumulation_steps: 1
mixed_precision: bf16
num_machines: 1
num_processes: 8
"""
ZERO2_NOTES = (("deepspeed_config.offload_optimizer_device",
                "ZeRO-2 offloads the optimizer to the CPU whatever the device"),
               ("deepspeed_config.offload_param_device", "ZeRO-2 offloads no parameters"))


def _notes(out: str, lang: str) -> list[str]:
    head = localized.screen("memory", "note", lang, note="")  # the estimate's "note: " (part screen-memory)
    return [x.removeprefix(head) for x in out.splitlines() if x.startswith(head)]


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_estimate_notes_of_the_effective_model(tmp_path, lang):
    config = tmp_path / "z2.yaml"
    config.write_text(ZERO2)
    proc = wizard("estimate", str(config), "--model", "llama-3.1-8b", "--gpu-memory", "80", "--lang", lang)
    assert proc.returncode == 0, proc.stderr
    notes = _notes(proc.stdout, lang)
    for keys, english in ZERO2_NOTES:
        if lang == "en":
            assert f"{keys}: {english}" in notes
            continue
        why = localized.said(english, lang)
        assert why != english and "ZeRO-2" in why
        assert any(n.startswith(keys) and n.endswith(why) for n in notes), notes
    if lang != "en":
        assert not any("offloads" in n for n in notes), notes


@pytest.mark.parametrize("lang", LANGS)
def test_every_note_the_effective_model_adds_is_translated(lang):
    """The notes Layout takes from the effective model (wizard/core/effective, part messages-memory)."""
    from wizard.core.localized.messages import PART_OF_MODULE, templates

    assert PART_OF_MODULE["core/effective/fsdp.py"] == PART_OF_MODULE["core/effective/deepspeed.py"] \
        == "messages-memory"
    for english in ("FSDP1 reads fsdp_sharding_strategy (default FULL_SHARD); reshard_after_forward is not read",
                    "FSDP2 reads fsdp_reshard_after_forward",
                    "FSDP2 has no backward_prefetch: it prefetches the next unit by itself",
                    "ZeRO-0 offloads nothing", "hpZ is a ZeRO-3 option",
                    "at ZeRO-3 from_pretrained creates the model under zero.Init whatever zero3_init_flag says"):
        assert ("messages-memory", english) in templates()
        translated = localized.said(english, lang)
        assert translated != english
        for name in ("FSDP1", "FSDP2", "ZeRO-0", "ZeRO-3", "hpZ", "fsdp_sharding_strategy", "FULL_SHARD",
                     "reshard_after_forward", "backward_prefetch", "from_pretrained", "zero.Init", "zero3_init_flag"):
            if name in english:
                assert name in translated


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_recommend_nothing_fits_nothing_written_in_the_language(tmp_path, lang):
    out = tmp_path / "configs"
    proc = wizard("recommend", "--model", "llama-3.1-70b", "--gpus-per-node", "1", "--gpu-memory", "8",
                  "--write", str(out), "--lang", lang)
    assert not out.exists()
    last = proc.stderr.strip().splitlines()[-1]
    assert last == "fsdpds-wizard: " + _in(lang, "nothing_fits_not_written", path=out)
    assert (last == f"fsdpds-wizard: nothing fits, so nothing was written to {out}") == (lang == "en")
