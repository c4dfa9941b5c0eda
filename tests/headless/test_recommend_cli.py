"""``fsdpds-wizard recommend`` (issue 10): the text and JSON reports, exit codes (0 fits, 1 nothing fits, 2 bad input
or a refused write), ``--write`` (re-loadable answers.yaml with the same estimate; never replacing a different file
without --force), and no heavy import."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import ROOT

from wizard.cli import main
from wizard.core.answers import load_answers_file
from wizard.core.memory.estimate import estimate
from wizard.core.memory.shapes import shape_by_name

L8 = ["--model", "llama-3.1-8b", "--gpus-per-node", "8", "--gpu-memory", "80"]


def _run(capsys, *argv):
    code = main(["recommend", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_text_report(capsys):
    code, out, err = _run(capsys, *L8)
    assert code == 0, err
    assert out.startswith("llama-3.1-8b: 8,030,261,248 parameters; 1 node(s) x 8 GPU(s) of 80 GiB, 10% kept free")
    chosen = [line for line in out.splitlines() if line.endswith("<- chosen")]
    assert len(chosen) == 1 and "DeepSpeed ZeRO-1, bf16" in chosen[0] and chosen[0].split()[0] == "1"
    assert "chosen: DeepSpeed ZeRO-1, bf16 (DeepSpeed ZeRO-1 over 8 ranks)" in out
    assert "Fits in 80.00 GiB with 8.00 GiB (10%) kept free: " in out and "note: " in out


def test_json_contract(capsys):
    code, out, err = _run(capsys, *L8, "--format", "json", "--batch", "2", "--seq", "1024")
    assert code == 0, err
    data = json.loads(out)
    assert data["chosen"] == data["candidates"][0]["label"]
    assert data["settings"] == {"gpus_per_node": 8, "nodes": 1, "gpu_memory_gib": 80.0, "host_memory_gib": None,
                                "headroom": 0.1}
    assert data["written"] is None and data["ranking"][0].startswith("fits")
    for c in data["candidates"]:
        assert {"label", "target", "fits", "headroom_bytes", "max_micro_batch", "host_fits", "shortfall_bytes",
                "reason", "decided", "answers", "estimate"} <= set(c)
        assert isinstance(c["max_micro_batch"], int)
        assert c["estimate"]["batch"] == 2 and c["estimate"]["seq"] == 1024
        assert c["headroom_bytes"] == c["estimate"]["gpu_memory_bytes"] - c["estimate"]["per_rank"]["gpu_bytes"]
    fits = [c["fits"] for c in data["candidates"]]
    assert fits == sorted(fits, reverse=True)


def test_nothing_fits_exit_1(capsys, tmp_path):
    argv = ["--model", "llama-3.1-70b", "--gpus-per-node", "1", "--gpu-memory", "4"]
    code, out, err = _run(capsys, *argv)
    assert code == 1
    assert "nothing fits" in out and "<- chosen" not in out
    code, out, err = _run(capsys, *argv, "--format", "json", "--write", str(tmp_path / "w"))
    assert code == 1 and json.loads(out)["chosen"] is None
    assert "nothing was written" in err and not (tmp_path / "w").exists()


def test_host_memory_in_the_report(capsys):
    code, out, _ = _run(capsys, "--model", "llama-3.1-8b", "--gpus-per-node", "1", "--gpu-memory", "24",
                        "--host-memory", "64", "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["settings"]["host_memory_gib"] == 64.0
    assert any(c["host_fits"] is False and "host" in c["reason"] for c in data["candidates"])


@pytest.mark.parametrize("model, extra", [
    ("llama-3.1-8b", ["--batch", "2", "--seq", "4096"]), ("llama-3.1-70b", []), ("gpt2", ["--nodes", "2"]),
])
def test_write_reloads_with_the_same_estimate(capsys, tmp_path, model, extra):
    argv = ["--model", model, "--gpus-per-node", "8", "--gpu-memory", "80", *extra]
    code, out, err = _run(capsys, *argv, "--format", "json", "--write", str(tmp_path))
    assert code == 0, err
    data = json.loads(out)
    path = tmp_path / "answers.yaml"
    assert data["written"] == str(path)
    answers, findings = load_answers_file(path)
    assert answers is not None, findings
    chosen = data["candidates"][0]
    assert answers.to_nested() == chosen["answers"]
    seq = int(extra[extra.index("--seq") + 1]) if "--seq" in extra else None
    e = estimate(answers, shape=shape_by_name(model), seq=seq, gpu_memory_gib=80)
    assert e.per_rank.gpu_bytes == chosen["estimate"]["per_rank"]["gpu_bytes"]
    # the estimate command on the written file says the same
    est = ["estimate", str(path), "--model", model, "--gpu-memory", "80", "--format", "json"]
    assert main(est + (["--seq", str(seq)] if seq else [])) == 0
    assert json.loads(capsys.readouterr().out)["per_rank"]["gpu_bytes"] == e.per_rank.gpu_bytes
    # and the headless writer accepts it
    assert main(["--headless", str(path), "--out", str(tmp_path / "out")]) == 0, capsys.readouterr().err


def test_write_never_replaces_a_different_file_silently(capsys, tmp_path):
    target = tmp_path / "mine.yaml"
    target.write_text("backend: fsdp\n")
    code, out, err = _run(capsys, *L8, "--write", str(target))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--force" in err and str(target) in err
    assert target.read_text() == "backend: fsdp\n"
    code, out, err = _run(capsys, *L8, "--write", str(target), "--force")
    assert code == 0, err
    assert (tmp_path / "mine.yaml.bak").read_text() == "backend: fsdp\n"
    assert load_answers_file(target)[0]["sharding.strategy"] == "optimizer"
    code, out, err = _run(capsys, *L8, "--write", str(target))  # same content again: left alone
    assert code == 0 and f"unchanged {target}" in out


def test_write_to_a_new_folder(capsys, tmp_path):
    code, out, err = _run(capsys, *L8, "--write", str(tmp_path / "new" / "dir"))
    assert code == 0, err
    assert (tmp_path / "new" / "dir" / "answers.yaml").is_file()
    assert f"fsdpds-wizard --headless {tmp_path / 'new' / 'dir' / 'answers.yaml'} --out DIR" in out


def test_base_preset(capsys):
    code, out, err = _run(capsys, *L8, "--base", "zero3-cpu-offload", "--format", "json")
    assert code == 0, err
    for c in json.loads(out)["candidates"]:
        assert c["answers"]["checkpoint"]["format"] == "full"  # the preset's, kept


def _bases_with_errors(tmp_path):
    both = tmp_path / "both.json"
    both.write_text(json.dumps({"fp16": {"enabled": True}, "bf16": {"enabled": True},
                                "train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 2}}))
    (tmp_path / "ds_bf16.json").write_text(json.dumps({"bf16": {"enabled": True}, "train_micro_batch_size_per_gpu": 2,
                                                       "zero_optimization": {"stage": 2}}))
    mixed = tmp_path / "mixed.yaml"
    mixed.write_text("distributed_type: DEEPSPEED\nmixed_precision: fp16\nnum_processes: 8\n"
                     "deepspeed_config:\n  deepspeed_config_file: ds_bf16.json\n")
    return {"fp16-and-bf16": (both, "ds-json-fp16-and-bf16"), "yaml-precision-beside-json": (mixed, "mixed_precision")}


@pytest.mark.parametrize("case", ["fp16-and-bf16", "yaml-precision-beside-json"])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_base_config_with_check_errors_is_refused_as_convert_refuses_it(capsys, tmp_path, case, fmt):
    """`estimate`, `convert` and `check` refuse such a config; `recommend --base` did not, and wrote answers."""
    base, named = _bases_with_errors(tmp_path)[case]
    target = tmp_path / "out" / "answers.yaml"
    code, out, err = _run(capsys, *L8, "--base", str(base), "--write", str(target), "--format", fmt)
    assert code == 2 and not target.exists()
    assert f"{base} has 1 error(s), as `fsdpds-wizard check {base}` reports them; fix them first" in err
    assert "nothing written" in err and len(err.strip().splitlines()) == 1
    if fmt == "json":
        data = json.loads(out)
        assert data["chosen"] is None and data["written"] is None and data["error"] in err
        assert [f["severity"] for f in data["findings"]] == ["error"] and named in json.dumps(data["findings"])
    else:
        assert out.startswith(f"--base {base}: not used\nERROR [") and named in out
    # the same config as convert refuses it: the same errors, the same wording
    assert main(["convert", str(base), "--to", "fsdp", "--out", str(tmp_path / "conv")]) == 2
    convert_err = capsys.readouterr().err
    assert f"{base} has 1 error(s), as `fsdpds-wizard check {base}` reports them; fix them first" in convert_err


@pytest.mark.parametrize("argv, says", [
    (["--gpus-per-node", "8", "--gpu-memory", "80"], "--model"),
    (["--model", "gpt2", "--gpu-memory", "80"], "--gpus-per-node"),
    (["--model", "gpt2", "--gpus-per-node", "8"], "--gpu-memory"),
    (["--model", "gpt2", "--params", "5", "--gpus-per-node", "8", "--gpu-memory", "80"], "do not go together"),
    (["--model", "gpt2", "--largest-layer", "5", "--gpus-per-node", "8", "--gpu-memory", "80"], "--largest-layer"),
    (["--model", "no-such-model-xyz", "--gpus-per-node", "8", "--gpu-memory", "80"], "--model no-such-model-xyz"),
    (["--model", "gpt2", "--gpus-per-node", "0", "--gpu-memory", "80"], "--gpus-per-node"),
    (["--model", "gpt2", "--gpus-per-node", "eight", "--gpu-memory", "80"], "--gpus-per-node"),
    (["--model", "gpt2", "--gpus-per-node", "8", "--gpu-memory", "0"], "--gpu-memory"),
    (["--model", "gpt2", "--gpus-per-node", "8", "--gpu-memory", "80", "--nodes", "0"], "--nodes"),
    (["--model", "gpt2", "--gpus-per-node", "8", "--gpu-memory", "80", "--host-memory", "0"], "--host-memory"),
    (["--model", "gpt2", "--gpus-per-node", "8", "--gpu-memory", "80", "--headroom", "1.5"], "--headroom"),
    (["--model", "gpt2", "--gpus-per-node", "8", "--gpu-memory", "80", "--batch", "0"], "--batch"),
    (["--params", "0", "--gpus-per-node", "8", "--gpu-memory", "80"], "parameter"),
    (["--params", "7x", "--gpus-per-node", "8", "--gpu-memory", "80"], "--params 7x: not a number"),
    (["--params", "100", "--largest-layer", "-1", "--gpus-per-node", "8", "--gpu-memory", "80"], "--largest-layer"),
    (["--model", "gpt2", "--gpus-per-node", "8", "--gpu-memory", "80", "--base", "no-such-preset"],
     "no-such-preset"),
    (["--model", "gpt2", "--gpus-per-node", "8", "--gpu-memory", "80", "--format", "xml"], "--format"),
])
def test_bad_input_exit_2_one_line(capsys, argv, says):
    code, out, err = _run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and says in err


@pytest.mark.parametrize("command", ["recommend", "estimate"])
def test_counts_as_people_write_them(capsys, command):
    """--params and --largest-layer take 70e9, 70B, 1.1B as well as whole numbers, with the same result."""
    def run(params, largest):
        argv = ([command, "--gpus-per-node", "8", "--gpu-memory", "80"] if command == "recommend"
                else [command, "zero3-cpu-offload"])
        assert main([*argv, "--params", params, "--largest-layer", largest, "--format", "json"]) in (0, 1)
        data = json.loads(capsys.readouterr().out)
        model = data["model"] if command == "estimate" else data["candidates"][0]["estimate"]["model"]
        return data, model
    written, model = run("70000000000", "1100000000")
    assert model["params"] == 70_000_000_000 and model["largest_layer_params"] == 1_100_000_000
    assert run("70e9", "1.1B")[0] == written and run("70B", "1100M")[0] == written


def test_recommend_imports_no_heavy_library():
    probe = ("import sys, io, contextlib\nfrom wizard.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    code = main(['recommend', '--model', 'llama-3.1-8b', '--gpus-per-node', '8', '--gpu-memory', '80', "
             "'--format', 'json'])\n"
             "print(code, [m for m in ('torch', 'accelerate', 'deepspeed', 'transformers', 'textual') "
             "if m in sys.modules])")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", "[]"]
