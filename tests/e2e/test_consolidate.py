"""Checkpoints from real two-process CPU runs, consolidated by ``fsdpds-wizard consolidate``.

Each case launches the bundled script through the wizard (``--launch --rehearse``, 3 steps, fp32): DeepSpeed
ZeRO-2 and ZeRO-3 over gloo, FSDP2 with a sharded state dict and FSDP1 with a full state dict through the
rehearsal's CPU FSDP layer. The script saves its checkpoint with accelerate's ``save_state`` into the run record
folder and, with ``--save-reference``, the trained weights gathered in full by the libraries (DeepSpeed's
GatheredParameters, accelerate's get_state_dict). ``consolidate`` must then write one safetensors file whose
tensors are *equal* (``torch.equal``) to those weights: every run is fp32, so the merge tools (accelerate's
merge_fsdp_weights, DeepSpeed's zero_to_fp32, the full state dict as it is) copy the same numbers and no
tolerance is needed.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

import pytest
from e2e_support import RUN_TIMEOUT, LaunchedRun, wizard_argv, write_answers
from helpers import ROOT

pytestmark = pytest.mark.e2e

STEPS = 3
FP32 = {"precision": {"mixed_precision": "no"}}
CASES = {
    "zero2": {"backend": "deepspeed", "sharding": {"strategy": "grads_optimizer"}, **FP32},
    "zero3_gather16": {"backend": "deepspeed", "sharding": {"strategy": "full"}, "checkpoint": {"format": "full"},
                       **FP32},
    "fsdp2_sharded": {"backend": "fsdp", "fsdp_version": 2, "sharding": {"strategy": "full"},
                      "checkpoint": {"format": "sharded"}, **FP32},
    "fsdp1_full": {"backend": "fsdp", "fsdp_version": 1, "sharding": {"strategy": "full"},
                   "checkpoint": {"format": "full"}, **FP32},
}
BF16 = {"zero3_bf16": {"backend": "deepspeed", "sharding": {"strategy": "full"},
                       "precision": {"mixed_precision": "bf16"}}}
FORMAT = {"zero2": "deepspeed_zero", "zero3_gather16": "deepspeed_zero", "fsdp2_sharded": "fsdp_sharded",
          "fsdp1_full": "fsdp_full"}
TOOL = {"deepspeed_zero": "zero_to_fp32", "fsdp_sharded": "merge_fsdp_weights", "fsdp_full": "torch.load"}


@pytest.fixture(scope="module")
def trained(tmp_path_factory, request):
    """``trained(case)`` -> (LaunchedRun, reference weights file), each case run once per module."""
    cache: dict[str, tuple[LaunchedRun, object]] = {}
    folder = tmp_path_factory.mktemp("ckpt_runs")

    def get(case: str):
        if case not in cache:
            if {**CASES, **BF16}[case]["backend"] == "deepspeed":
                request.getfixturevalue("deepspeed_ops")
            answers = write_answers(folder, case, {**CASES, **BF16}[case])
            out = folder / f"out_{case}"
            ref = folder / f"{case}_reference.safetensors"
            extra = ["--save-every", "2"] if case == "zero2" else []
            t0 = time.monotonic()
            proc = subprocess.run(wizard_argv(answers, out, "--steps", str(STEPS), "--save-reference", str(ref),
                                              *extra), cwd=ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT)
            cache[case] = (LaunchedRun(proc, out, time.monotonic() - t0), ref)
        return cache[case]

    return get


def consolidate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wizard", "consolidate", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def load(path):
    from safetensors.torch import load_file

    return load_file(str(path))


def assert_same_weights(got: dict, want: dict) -> None:
    import torch

    assert sorted(got) == sorted(want)
    assert len(want) == 29  # the bundled model's tensors: 2 embeddings, 2 blocks of 12, ln_f (2), head
    for name, tensor in want.items():
        assert got[name].dtype == tensor.dtype == torch.float32, name
        assert torch.equal(got[name], tensor), name


@pytest.mark.parametrize("case", list(CASES))
def test_checkpoint_of_a_real_run_consolidates_to_the_trained_weights(trained, case, tmp_path):
    run, ref = trained(case)
    assert run.proc.returncode == 0, run.explain()
    # the run record says where the checkpoint is, and what the script saved
    record = json.loads((run.run_dir / "checkpoint.json").read_text())
    assert record["format"] == FORMAT[case] and record["step"] == STEPS and record["world_size"] == 2
    assert record["latest"] == str(run.run_dir / "checkpoint" / f"step-{STEPS:06d}")
    assert run.summary["script_end"]["checkpoint"] == record["latest"]
    # the headless monitor offers the command after the run
    assert f"one safetensors file from it: fsdpds-wizard consolidate {run.run_dir}" in run.proc.stderr
    ckpt = run.run_dir / "checkpoint" / f"step-{STEPS:06d}"
    if case.startswith("zero"):
        assert record["zero_stage"] == (2 if case == "zero2" else 3)
        assert (ckpt / "pytorch_model").is_dir() and (ckpt / "latest").read_text().strip() == "pytorch_model"
    if case == "fsdp2_sharded":
        assert record["state_dict_type"] == "SHARDED_STATE_DICT"
        assert (ckpt / "pytorch_model_fsdp_0" / ".metadata").is_file()
    if case == "fsdp1_full":
        assert record["state_dict_type"] == "FULL_STATE_DICT" and (ckpt / "pytorch_model_fsdp.bin").is_file()

    t0 = time.monotonic()
    proc = consolidate(run.run_dir, "--format", "json")
    took = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout)  # the tools' own prints go to stderr: stdout is the JSON alone
    out = run.run_dir / "consolidated" / "model.safetensors"
    assert result["out"] == str(out) and result["format"] == FORMAT[case] and result["step"] == STEPS
    assert TOOL[FORMAT[case]] in result["tool"]
    assert result["parameters"] == 110336 and result["tensors"] == 29 and result["dtypes"] == {"F32": 29}
    assert result["size_bytes"] == out.stat().st_size > 110336 * 4
    assert "consolidate: running" in proc.stderr
    assert_same_weights(load(out), load(ref))
    assert took < 60


def test_zero3_16bit_gather_is_saved_beside_the_partitions(trained):
    run, ref = trained("zero3_gather16")
    assert run.proc.returncode == 0, run.explain()
    record = json.loads((run.run_dir / "checkpoint.json").read_text())
    assert record["gather_16bit"] is True and record["model_16bit"] == "model_16bit"
    # accelerate's save_model wrote the weights DeepSpeed gathered (fp32 here: the run's parameter dtype)
    gathered = load(run.run_dir / "checkpoint" / f"step-{STEPS:06d}" / "model_16bit" / "model.safetensors")
    assert_same_weights(gathered, load(ref))


def test_bf16_zero3_gives_the_fp32_masters_of_the_trained_bf16_weights(trained):
    """bf16 DeepSpeed trains bf16 parameters from fp32 master weights; zero_to_fp32 rebuilds the masters, so the
    consolidated file is fp32 and rounds (to nearest, as DeepSpeed copies masters into the parameters) to exactly
    the trained bf16 weights: torch.equal after .to(bfloat16), no other tolerance."""
    import torch

    run, ref = trained("zero3_bf16")
    assert run.proc.returncode == 0, run.explain()
    assert run.summary["effective_setup"]["param_dtype"] == "bfloat16"
    proc = consolidate(run.run_dir, "--format", "json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout)["dtypes"] == {"F32": 29}
    got, want = load(run.run_dir / "consolidated" / "model.safetensors"), load(ref)
    assert sorted(got) == sorted(want) and len(want) == 29
    for name, tensor in want.items():
        assert tensor.dtype == torch.bfloat16 and got[name].dtype == torch.float32
        assert torch.equal(got[name].to(torch.bfloat16), tensor), name
    assert any(not torch.equal(got[k], want[k].float()) for k in want)  # the masters carry more bits


def test_save_every_keeps_each_checkpoint_and_consolidate_takes_the_latest(trained, tmp_path):
    run, _ = trained("zero2")
    assert run.proc.returncode == 0, run.explain()
    steps = sorted(p.name for p in (run.run_dir / "checkpoint").iterdir())
    assert steps == ["step-000002", "step-000003"]
    lines = [json.loads(ln) for ln in (run.run_dir / "log.txt").read_text().splitlines()
             if ln.startswith('{"fsdpds": 1, "kind": "checkpoint"')]
    assert [r["step"] for r in lines] == [2, 3]
    # a checkpoint folder given directly: the earlier one
    proc = consolidate(run.run_dir / "checkpoint" / "step-000002", "--out", tmp_path / "s2", "--format", "json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["step"] == 2
    # the folder of checkpoints: the latest
    proc = consolidate(run.run_dir / "checkpoint", "--out", tmp_path / "s3", "--format", "json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["step"] == 3
    import torch

    early, late = load(tmp_path / "s2" / "model.safetensors"), load(tmp_path / "s3" / "model.safetensors")
    assert not all(torch.equal(early[k], late[k]) for k in late)  # a step of training apart


def test_never_overwrites_silently_and_follows_a_moved_run_folder(trained, tmp_path):
    run, ref = trained("zero2")
    assert run.proc.returncode == 0, run.explain()
    out = tmp_path / "out"
    assert consolidate(run.run_dir, "--out", out).returncode == 0
    (out / "model.safetensors").write_bytes(b"keep me")
    proc = consolidate(run.run_dir, "--out", out)
    assert proc.returncode == 2 and "--force" in proc.stderr
    assert (out / "model.safetensors").read_bytes() == b"keep me"
    proc = consolidate(run.run_dir, "--out", out, "--force")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "110,336 parameters in 29 tensors" in proc.stdout and "zero_to_fp32" in proc.stdout
    assert not [p for p in out.iterdir() if p.name != "model.safetensors"]  # no temporary left
    # the run folder copied elsewhere: the recorded absolute path is gone, the copy is found
    moved = tmp_path / "moved_run"
    shutil.copytree(run.run_dir, moved, ignore=shutil.ignore_patterns("consolidated"))
    shutil.move(str(run.run_dir / "checkpoint"), str(tmp_path / "away"))
    try:
        proc = consolidate(moved, "--format", "json")
    finally:
        shutil.move(str(tmp_path / "away"), str(run.run_dir / "checkpoint"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["checkpoint"].startswith(str(moved)) and "moved" in result["found_via"]
    assert_same_weights(load(moved / "consolidated" / "model.safetensors"), load(ref))


def test_bad_input_exits_2_with_what_to_do(tmp_path):
    proc = consolidate(tmp_path / "nope")
    assert proc.returncode == 2 and "no such folder" in proc.stderr and "OUT/runs/<id>" in proc.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = consolidate(empty)
    assert proc.returncode == 2 and "no checkpoint found" in proc.stderr and "save_state" in proc.stderr
    run = tmp_path / "run"
    run.mkdir()
    (run / "summary.json").write_text('{"status": "completed", "script_end": {"status": "completed"}}')
    proc = consolidate(run)
    assert proc.returncode == 2 and "saved no checkpoint" in proc.stderr and "--no-save" in proc.stderr
    local = tmp_path / "local"
    local.mkdir()
    for rank in (0, 1):
        (local / f"pytorch_model_fsdp_rank{rank}.bin").write_bytes(b"")
    proc = consolidate(local)
    assert proc.returncode == 2 and "LOCAL_STATE_DICT" in proc.stderr and "SHARDED_STATE_DICT" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_command_imports_no_heavy_library_until_it_runs():
    code = ("import sys, wizard.cli, wizard.commands.consolidate, wizard.run.consolidate\n"
            "heavy = [m for m in ('torch', 'accelerate', 'deepspeed', 'safetensors') if m in sys.modules]\n"
            "assert not heavy, heavy\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_without_the_run_libraries_it_says_what_to_install(trained, tmp_path):
    run, _ = trained("zero2")
    assert run.proc.returncode == 0, run.explain()
    code = ("import importlib.util as u, sys\nreal = u.find_spec\n"
            "u.find_spec = lambda name, *a: None if name == 'deepspeed' else real(name, *a)\n"
            "from wizard.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    proc = subprocess.run([sys.executable, "-c", code, "consolidate", str(run.run_dir), "--out", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "consolidate needs deepspeed" in proc.stderr and 'pip install "fsdpds-wizard[run]"' in proc.stderr
    assert not (tmp_path / "model.safetensors").exists()
