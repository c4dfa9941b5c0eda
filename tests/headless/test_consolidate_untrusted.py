"""``consolidate`` on crafted and damaged checkpoints: nothing in a checkpoint runs, and every refusal is exit 2 with
one line (issue 22, item 1).

Each attack builds a checkpoint whose pickle would, if unpickled with the full pickle machinery, create a marker
file (``builtins.open``, ``os.mkdir``, ``builtins.exec``, ``os.system``): the test asserts the marker is never
created and the command exits 2 with one ``fsdpds-wizard:`` line that names the file. The places: DeepSpeed's
model-states and optimizer-states files (read by DeepSpeed's ``zero_to_fp32`` with ``weights_only=False``), the
``.metadata`` of a torch.distributed.checkpoint folder (torch reads it with ``pickle.load``), a non-tensor item
inside the DCP data files (torch's planner ``torch.load``-s it with ``weights_only=False``), and FSDP's full state
dict. Damaged ones (truncated files, a DCP item pointing outside its folder or larger than its files, a
safetensors header length of 2^62) must also end in exit 2 and one line, with nothing written.

The CLI runs in this process (``wizard.cli.main``): torch is imported once, and a payload that did run would still
leave its marker where the test looks.
"""
from __future__ import annotations

import builtins
import os
import pickle
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

pytestmark = pytest.mark.real  # torch, deepspeed and accelerate for real (not in the fast tier)


class Payload:
    """Unpickled by a full unpickler, this calls ``how`` on the marker path; pickling it runs nothing."""

    def __init__(self, how: str, marker: Path):
        self.how, self.marker = how, str(marker)

    def __reduce__(self):
        if self.how == "open":
            return (builtins.open, (self.marker, "w"))
        if self.how == "mkdir":
            return (os.mkdir, (self.marker,))
        if self.how == "exec":
            return (builtins.exec, (f"open({self.marker!r}, 'w').close()",))
        return (os.system, (f"touch '{self.marker}'",))


PAYLOADS = ("open", "mkdir", "exec", "system")


def run_cli(capsys, *args) -> tuple[int, list[str], str]:
    """(exit code, our own stderr lines, all of stderr) of ``fsdpds-wizard consolidate ARGS`` in this process."""
    from wizard.cli import main

    code = main(["consolidate", *map(str, args)])
    err = capsys.readouterr().err
    ours = [line for line in err.splitlines() if line.startswith("fsdpds-wizard:")]
    return code, ours, err


def assert_refused(capsys, target: Path, out: Path, marker: Path, *words: str) -> str:
    code, ours, err = run_cli(capsys, target, "--out", out)
    assert not marker.exists(), "the checkpoint's payload ran"
    assert code == 2, err
    assert len(ours) == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    for word in words:
        assert word in ours[0], ours[0]
    assert not (out / "model.safetensors").exists()
    return ours[0]


# ----------------------------------------------------------------------------- DeepSpeed ZeRO
def deepspeed_folder(root: Path, model_states: object, optim_states: object) -> Path:
    """A checkpoint folder as accelerate's save_state lays out DeepSpeed's (``latest`` + the tag folder)."""
    import torch

    folder = root / "step-000003"
    tag = folder / "pytorch_model"
    tag.mkdir(parents=True)
    (folder / "latest").write_text("pytorch_model")
    torch.save(model_states, tag / "mp_rank_00_model_states.pt")
    torch.save(optim_states, tag / "zero_pp_rank_0_mp_rank_00_optim_states.pt")
    return folder


def plain_model_states() -> dict:
    import torch

    return {"module": {"w": torch.zeros(2)}, "buffer_names": [], "param_shapes": [{"w": torch.Size([2])}],
            "shared_params": {}, "ds_version": "0.19.8"}


@pytest.mark.parametrize("how", PAYLOADS)
def test_deepspeed_model_states_payload_never_runs(tmp_path, capsys, how):
    marker = tmp_path / "PWNED"
    folder = deepspeed_folder(tmp_path, {**plain_model_states(), "module": Payload(how, marker)}, {})
    line = assert_refused(capsys, folder, tmp_path / "out", marker, "mp_rank_00_model_states.pt", "refused",
                          "never runs code")
    assert {"open": "open", "mkdir": "mkdir", "exec": "builtins.exec", "system": "system"}[how] in line


@pytest.mark.parametrize("how", PAYLOADS)
def test_deepspeed_optimizer_states_payload_never_runs(tmp_path, capsys, how):
    marker = tmp_path / "PWNED"
    folder = deepspeed_folder(tmp_path, plain_model_states(),
                              {"optimizer_state_dict": {"zero_stage": 2, "loss_scaler": Payload(how, marker)}})
    assert_refused(capsys, folder, tmp_path / "out", marker, "optim_states.pt", "refused")


def test_zero_to_fp32s_own_torch_load_is_forced_to_weights_only(tmp_path):
    """The second layer, for a file swapped after the static check: DeepSpeed's torch.load(weights_only=False)
    inside weights_only_loads() refuses the payload; the environment is as it was afterwards."""
    import torch
    from deepspeed.utils import zero_to_fp32

    from wizard.run.checkpoint_io import weights_only_loads

    marker = tmp_path / "PWNED"
    torch.save({"optimizer_state_dict": {"x": Payload("open", marker)}}, tmp_path / "a_optim_states.pt")
    before = {k: os.environ.get(k) for k in ("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")}
    with weights_only_loads(deepspeed=True), pytest.raises(pickle.UnpicklingError, match="io.open"):
        zero_to_fp32.parse_optim_states([str(tmp_path / "a_optim_states.pt")], str(tmp_path))
    assert not marker.exists()
    assert {k: os.environ.get(k) for k in before} == before


@pytest.mark.parametrize("damage", ["truncated", "empty_dict", "not_a_zip"])
def test_damaged_deepspeed_checkpoint_exits_2_with_one_line(tmp_path, capsys, damage):
    folder = deepspeed_folder(tmp_path, plain_model_states(), {"optimizer_state_dict": {"zero_stage": 2}})
    model = folder / "pytorch_model" / "mp_rank_00_model_states.pt"
    if damage == "truncated":
        model.write_bytes(model.read_bytes()[: model.stat().st_size // 2])
    elif damage == "empty_dict":
        import torch

        torch.save({}, model)
    else:
        model.write_bytes(b"\x80\x04not a checkpoint at all")
    code, ours, err = run_cli(capsys, folder, "--out", tmp_path / "out")
    assert code == 2 and len(ours) == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    assert str(folder) in ours[0]


# ----------------------------------------------------------------------------- torch.distributed.checkpoint
def dcp_folder(root: Path, extra: dict | None = None) -> Path:
    """A save_state folder with an FSDP sharded state dict (``pytorch_model_fsdp_0/``) written by torch itself."""
    import warnings

    import torch
    import torch.distributed.checkpoint as dcp

    folder = root / "step-000003"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "torch.distributed is disabled ... single process": meant
        dcp.save({"model": {"w": torch.arange(12.0).reshape(3, 4), **(extra or {})}},
                 checkpoint_id=str(folder / "pytorch_model_fsdp_0"), no_dist=True)
    return folder


def rewrite_metadata(folder: Path, change) -> None:
    path = folder / "pytorch_model_fsdp_0" / ".metadata"
    metadata = pickle.loads(path.read_bytes())  # our own file, written by torch above
    change(metadata)
    path.write_bytes(pickle.dumps(metadata))


@pytest.mark.parametrize("how", PAYLOADS)
def test_dcp_metadata_payload_never_runs(tmp_path, capsys, how):
    marker = tmp_path / "PWNED"
    folder = dcp_folder(tmp_path)
    (folder / "pytorch_model_fsdp_0" / ".metadata").write_bytes(pickle.dumps(Payload(how, marker)))
    assert_refused(capsys, folder, tmp_path / "out", marker, ".metadata", "refused")


def test_dcp_metadata_payload_inside_a_real_metadata_never_runs(tmp_path, capsys):
    marker = tmp_path / "PWNED"
    folder = dcp_folder(tmp_path)
    rewrite_metadata(folder, lambda md: setattr(md, "planner_data", Payload("open", marker)))
    assert_refused(capsys, folder, tmp_path / "out", marker, ".metadata", "open")


@pytest.mark.parametrize("how", PAYLOADS)
def test_dcp_non_tensor_item_payload_never_runs(tmp_path, capsys, how):
    """torch's load planner torch.load-s a non-tensor item with weights_only=False."""
    marker = tmp_path / "PWNED"
    folder = dcp_folder(tmp_path, {"extra": Payload(how, marker)})
    assert_refused(capsys, folder, tmp_path / "out", marker, "refused")


def test_dcp_item_outside_its_folder_is_refused(tmp_path, capsys):
    secret = tmp_path / "secret.bin"
    secret.write_bytes(b"s" * 100_000)
    folder = dcp_folder(tmp_path)

    def point_outside(md):
        for info in md.storage_data.values():
            info.relative_path = "../../secret.bin"

    rewrite_metadata(folder, point_outside)
    assert_refused(capsys, folder, tmp_path / "out", tmp_path / "PWNED", "outside its folder")


@pytest.mark.parametrize("field", ["size", "offset"])
def test_dcp_sizes_larger_than_the_files_are_refused_before_allocating(tmp_path, capsys, field):
    import torch

    folder = dcp_folder(tmp_path)

    def inflate(md):
        if field == "size":
            md.state_dict_metadata["model.w"].size = torch.Size([2**31, 2**20])
        else:
            for info in md.storage_data.values():
                info.offset = 2**40

    rewrite_metadata(folder, inflate)
    assert_refused(capsys, folder, tmp_path / "out", tmp_path / "PWNED", ".metadata")


@pytest.mark.parametrize("damage", ["metadata_truncated", "data_truncated", "metadata_empty"])
def test_damaged_dcp_checkpoint_exits_2_with_one_line(tmp_path, capsys, damage):
    """torch wraps a failed read in CheckpointException, a BaseException: it must still be one line, exit 2."""
    folder = dcp_folder(tmp_path)
    model = folder / "pytorch_model_fsdp_0"
    if damage == "metadata_truncated":
        (model / ".metadata").write_bytes((model / ".metadata").read_bytes()[:100])
    elif damage == "metadata_empty":
        (model / ".metadata").write_bytes(b"")
    else:
        data = next(model.glob("*.distcp"))
        data.write_bytes(b"\0" * data.stat().st_size)  # same size, not a torch.save any more
    code, ours, err = run_cli(capsys, folder, "--out", tmp_path / "out")
    assert code == 2 and len(ours) == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    assert not (tmp_path / "out" / "model.safetensors").exists()


def test_a_real_dcp_folder_still_consolidates(tmp_path, capsys):
    from safetensors.torch import load_file

    folder = dcp_folder(tmp_path)
    code, _, err = run_cli(capsys, folder, "--out", tmp_path / "out")
    assert code == 0, err
    got = load_file(str(tmp_path / "out" / "model.safetensors"))
    assert got["w"].tolist() == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]


# ----------------------------------------------------------------------------- FSDP full state dict
@pytest.mark.parametrize("how", PAYLOADS)
def test_full_state_dict_payload_never_runs(tmp_path, capsys, how):
    import torch

    marker = tmp_path / "PWNED"
    folder = tmp_path / "step-000003"
    folder.mkdir()
    torch.save({"w": torch.zeros(2), "x": Payload(how, marker)}, folder / "pytorch_model_fsdp.bin")
    assert_refused(capsys, folder, tmp_path / "out", marker, "pytorch_model_fsdp.bin", "refused")


# ----------------------------------------------------------------------------- safetensors
def safetensors_file(path: Path, header_len: int | None = None, header: bytes | None = None) -> None:
    body = header if header is not None else b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
    n = len(body) if header_len is None else header_len
    path.write_bytes(struct.pack("<Q", n) + body + b"\0" * 8)


@pytest.mark.parametrize("case", ["length_2_62", "length_past_end", "not_json", "offsets_past_end",
                                  "shape_does_not_match"])
def test_crafted_safetensors_is_refused_before_anything_is_copied(tmp_path, capsys, case):
    folder = tmp_path / "step-000003"
    folder.mkdir()
    src = folder / "model.safetensors"
    if case == "length_2_62":
        safetensors_file(src, header_len=2**62)
    elif case == "length_past_end":
        safetensors_file(src, header_len=10_000)
    elif case == "not_json":
        safetensors_file(src, header=b"{not json" + b" " * 20)
    elif case == "offsets_past_end":
        safetensors_file(src, header=b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,4096]}}')
    else:
        safetensors_file(src, header=b'{"w":{"dtype":"F32","shape":[9],"data_offsets":[0,8]}}')
    out = tmp_path / "out"
    assert_refused(capsys, folder, out, tmp_path / "PWNED", "model.safetensors")
    assert not out.exists(), "the output folder was made (or the file copied) before the header was checked"


def test_a_good_safetensors_is_still_copied(tmp_path, capsys):
    folder = tmp_path / "step-000003"
    folder.mkdir()
    safetensors_file(folder / "model.safetensors")
    code, _, err = run_cli(capsys, folder, "--out", tmp_path / "out")
    assert code == 0, err
    assert (tmp_path / "out" / "model.safetensors").read_bytes() == (folder / "model.safetensors").read_bytes()


# ----------------------------------------------------------------------------- the command as a user runs it
def test_the_command_refuses_a_crafted_checkpoint_in_its_own_process(tmp_path):
    """The whole command in a child process: the payload in DeepSpeed's model states does not run, exit 2, the
    refusal is the only line the wizard prints."""
    marker = tmp_path / "PWNED"
    folder = deepspeed_folder(tmp_path, {**plain_model_states(), "module": Payload("system", marker)}, {})
    proc = subprocess.run([sys.executable, "-m", "wizard", "consolidate", str(folder), "--out", str(tmp_path / "o")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert not marker.exists()
    assert proc.returncode == 2, proc.stderr
    ours = [line for line in proc.stderr.splitlines() if line.startswith("fsdpds-wizard:")]
    assert len(ours) == 1 and "refused" in ours[0] and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout == ""
