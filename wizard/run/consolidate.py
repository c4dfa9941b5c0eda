"""Consolidate a run's checkpoint into one safetensors file with the libraries' own tools.

:func:`find_checkpoint` takes any folder a user has at hand and finds the checkpoint in it:

* a run record folder (``OUT/runs/<id>/``, local or from a SLURM job): its ``checkpoint.json`` (written by
  the bundled script, :data:`wizard.run.records.CHECKPOINT`) names the latest checkpoint; failing that,
  ``summary.json``'s ``script_end.checkpoint``, then a ``checkpoint/`` folder in it;
* a folder of checkpoints (``step-000020/``, ``step-000040/``, ...): the one with the highest step;
* one checkpoint folder, written by ``Accelerator.save_state`` (described by ``fsdpds_checkpoint.json`` when
  the bundled script saved it, recognised by its files otherwise), or the model folder inside one
  (``pytorch_model_fsdp_0/``, a DeepSpeed tag folder such as ``pytorch_model/`` or ``global_step20/``).

A folder moved after the run is followed: a recorded path that no longer exists is looked up again under the
folder given.

:func:`consolidate` then runs, by format:

=================  =====================================================================================
``fsdp_sharded``   the steps of accelerate's ``merge_fsdp_weights`` (the code behind ``accelerate
                   merge-weights``) on the ``torch.distributed.checkpoint`` folder of SHARDED_STATE_DICT, its
                   ``.metadata`` read by our restricted unpickler instead of ``pickle.load``
``deepspeed_zero`` DeepSpeed's ``convert_zero_checkpoint_to_fp32_state_dict`` (the code of the
                   ``zero_to_fp32.py`` it writes next to the checkpoint): the fp32 master weights rebuilt
                   from the ZeRO partitions of every rank
``fsdp_full``      FULL_STATE_DICT's ``pytorch_model_fsdp.bin`` as it is, loaded with ``weights_only`` and
                   written as safetensors (aliased tensors dropped by accelerate's own cleaning)
``model``          a ``model.safetensors`` already whole (save_state without sharding): copied
=================  =====================================================================================

Every tool runs inside :func:`wizard.run.checkpoint_io.weights_only_loads`: a checkpoint is data, never code (see
that module); a refused or damaged one is a ConsolidateError of one line.

LOCAL_STATE_DICT (one file of flat shards per rank) has no merge tool in accelerate or torch: that is an error
with what to change. The output is ``OUT/model.safetensors``; an existing one is never replaced without
``force``. The heavy libraries are imported inside the functions that need them.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.files import file_mode
from ..core.i18n import said
from .records import CHECKPOINT, SUMMARY, read_checkpoint

MANIFEST = "fsdpds_checkpoint.json"
"""Written by the bundled script into each checkpoint folder (what was saved, how, at which step)."""
OUT_NAME = "model.safetensors"
FSDP_SHARDED_DIR = re.compile(r"pytorch_model_fsdp_(\d+)$")
FSDP_FULL_FILE = "pytorch_model_fsdp.bin"
_STEP_DIR = re.compile(r"(?:step|checkpoint)[-_](\d+)$")

FORMATS = {
    "fsdp_sharded": "FSDP sharded state dict (torch.distributed.checkpoint)",
    "fsdp_full": "FSDP full state dict",
    "fsdp_local": "FSDP local state dict (per-rank flat shards)",
    "deepspeed_zero": "DeepSpeed ZeRO partitions",
    "model": "whole model weights (safetensors)",
}


class ConsolidateError(Exception):
    """Bad input: what is wrong and what to do (the command exits 2)."""


@dataclass
class Checkpoint:
    folder: Path
    """The checkpoint folder (what ``save_state`` wrote)."""
    format: str
    source: Path
    """The file the checkpoint is in: the DCP folder, the DeepSpeed checkpoint folder, the .bin or .safetensors."""
    tag: str | None = None
    """DeepSpeed: the tag folder inside ``source``."""
    manifest: dict = field(default_factory=dict)
    found_via: str = "the folder given"

    @property
    def step(self) -> int | None:
        step = self.manifest.get("step")
        if isinstance(step, int):
            return step
        m = _STEP_DIR.search(self.folder.name)
        return int(m.group(1)) if m else None

    def describe(self) -> str:
        step = self.step
        return said(f"{FORMATS.get(self.format, self.format)} in {self.folder}"
                    + (f" (step {step})" if step is not None else "") + f", found through {self.found_via}")


@dataclass
class Result:
    checkpoint: Checkpoint
    out_file: Path
    tool: str
    command: str
    """The same conversion from a shell, for the record."""
    size_bytes: int
    num_tensors: int
    num_params: int
    dtypes: dict[str, int]
    seconds: float
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        ck = self.checkpoint
        return {"checkpoint": str(ck.folder), "format": ck.format, "step": ck.step, "found_via": ck.found_via,
                "source": str(ck.source), "out": str(self.out_file), "tool": self.tool, "command": self.command,
                "size_bytes": self.size_bytes, "tensors": self.num_tensors, "parameters": self.num_params,
                "dtypes": self.dtypes, "seconds": self.seconds, "notes": self.notes}


# ----------------------------------------------------------------------------- finding the checkpoint
def _read_json(path: Path) -> dict:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def detect(folder: Path, found_via: str = "the folder given") -> Checkpoint | None:
    """The checkpoint in ``folder`` itself, or None when it holds none that is recognised."""
    folder = Path(folder)
    if not folder.is_dir():
        return None
    manifest = _read_json(folder / MANIFEST)
    names = {p.name for p in folder.iterdir()}
    sharded = sorted(n for n in names if FSDP_SHARDED_DIR.match(n) and (folder / n / ".metadata").is_file())
    if sharded:  # model 0 (save_state numbers its models)
        first = "pytorch_model_fsdp_0" if "pytorch_model_fsdp_0" in sharded else sharded[0]
        return Checkpoint(folder, "fsdp_sharded", folder / first, manifest=manifest, found_via=found_via)
    if (folder / ".metadata").is_file() and FSDP_SHARDED_DIR.match(folder.name):  # the DCP folder itself
        return Checkpoint(folder.parent, "fsdp_sharded", folder, manifest=_read_json(folder.parent / MANIFEST),
                          found_via=found_via)
    if FSDP_FULL_FILE in names:
        return Checkpoint(folder, "fsdp_full", folder / FSDP_FULL_FILE, manifest=manifest, found_via=found_via)
    if any(re.match(r"pytorch_model_fsdp(_\d+)?_rank\d+\.bin$", n) for n in names):
        return Checkpoint(folder, "fsdp_local", folder, manifest=manifest, found_via=found_via)
    tag = _deepspeed_tag(folder, manifest)
    if tag is not None:
        return Checkpoint(folder, "deepspeed_zero", folder, tag=tag, manifest=manifest, found_via=found_via)
    if any(n.endswith("model_states.pt") for n in names):  # a DeepSpeed tag folder given directly
        return Checkpoint(folder.parent, "deepspeed_zero", folder.parent, tag=folder.name,
                          manifest=_read_json(folder.parent / MANIFEST), found_via=found_via)
    if OUT_NAME in names:
        return Checkpoint(folder, "model", folder / OUT_NAME, manifest=manifest, found_via=found_via)
    return None


def _deepspeed_tag(folder: Path, manifest: dict) -> str | None:
    candidates = []
    if isinstance(manifest.get("tag"), str):
        candidates.append(manifest["tag"])
    latest = folder / "latest"
    if latest.is_file():
        try:
            candidates.append(latest.read_text(encoding="utf-8").strip())
        except OSError:
            pass
    candidates += sorted(p.name for p in folder.iterdir() if p.is_dir())
    for tag in candidates:
        if tag and any((folder / tag).glob("*model_states.pt")):
            return tag
    return None


def _latest_in(root: Path, found_via: str) -> Checkpoint | None:
    """The highest-step checkpoint among ``root``'s sub-folders (``step-NNNNNN``)."""
    steps = []
    for child in root.iterdir() if root.is_dir() else ():
        m = _STEP_DIR.search(child.name)
        if m and child.is_dir():
            steps.append((int(m.group(1)), child))
    for _, child in sorted(steps, reverse=True):
        found = detect(child, found_via)
        if found is not None:
            return found
    return None


def _recorded(run_dir: Path, recorded: str, via: str) -> Checkpoint | None:
    path = Path(recorded)
    found = detect(path, via) if path.is_dir() else None
    if found is None:  # the run folder was moved or copied: the same checkpoint under the folder given
        parts = path.parts
        if "checkpoint" in parts:
            moved = run_dir.joinpath(*parts[len(parts) - parts[::-1].index("checkpoint") - 1:])
            found = detect(moved, via + " (the run folder has moved)")
    return found


def find_checkpoint(target: str | Path) -> Checkpoint:
    """The checkpoint of a run record folder, a checkpoint folder or a folder of checkpoints."""
    folder = Path(target).expanduser()
    if not folder.exists():
        raise ConsolidateError(said(f"{folder}: no such folder; give a run record folder (OUT/runs/<id>) or a "
                               "checkpoint folder"))
    if not folder.is_dir():
        raise ConsolidateError(said(f"{folder}: not a folder; give the run record folder (OUT/runs/<id>) or the "
                               "checkpoint folder that holds this file"))
    record = read_checkpoint(folder)
    if record:
        found = _recorded(folder, str(record.get("latest") or record.get("path") or ""),
                          f"the run record ({CHECKPOINT})")
        if found is not None:
            return found
    end = (_read_json(folder / SUMMARY).get("script_end") or {})
    if isinstance(end, dict) and end.get("checkpoint"):
        found = _recorded(folder, str(end["checkpoint"]), f"the run record ({SUMMARY})")
        if found is not None:
            return found
    found = detect(folder) or _latest_in(folder, "the latest step folder") or \
        _latest_in(folder / "checkpoint", "the run's checkpoint/ folder")
    if found is not None:
        return found
    if (folder / SUMMARY).is_file():
        raise ConsolidateError(said(f"{folder}: this run saved no checkpoint (the bundled script saves one at the end "
                               "unless --no-save; your own script must call accelerator.save_state(DIR)); give "
                               "the checkpoint folder instead"))
    raise ConsolidateError(said(f"{folder}: no checkpoint found; give a run record folder (OUT/runs/<id>) whose run "
                           "saved one, or a folder written by accelerator.save_state (FSDP pytorch_model_fsdp_0/ "
                           "or pytorch_model_fsdp.bin, DeepSpeed pytorch_model/ with its 'latest' file)"))


# ----------------------------------------------------------------------------- consolidating
def _say(progress: Callable[[str], None] | None, text: str) -> None:
    if progress is not None:
        progress(text)


def _merge_fsdp(ck: Checkpoint, tmp: Path) -> tuple[str, str]:
    from accelerate.utils import save

    from .checkpoint_io import load_dcp

    # what accelerate's merge_fsdp_weights does (load the DCP folder in this one process, keep the model's own
    # dict, write it with accelerate's save), with the .metadata read as data (torch's reader would pickle.load it)
    state = load_dcp(ck.source)
    if len(state) == 1:
        state = next(iter(state.values()))
    save(state, str(tmp / OUT_NAME), safe_serialization=True)
    return ("accelerate's merge_fsdp_weights steps (torch.distributed.checkpoint load + accelerate.utils.save), "
            "the metadata read as data only", f"accelerate merge-weights {ck.source} OUT")


def _zero_to_fp32(ck: Checkpoint, tmp: Path) -> tuple[str, str]:
    from deepspeed.utils.zero_to_fp32 import convert_zero_checkpoint_to_fp32_state_dict

    from .checkpoint_io import check_torch_files

    # zero_to_fp32 calls torch.load(weights_only=False): consolidate() forces the weights-only loader around it;
    # this static read first names a file that asks for anything more
    check_torch_files(sorted((ck.source / (ck.tag or "")).glob("*.pt")))
    # max_shard_size=None: one file, whatever the size
    convert_zero_checkpoint_to_fp32_state_dict(str(ck.source), str(tmp), max_shard_size=None,
                                               safe_serialization=True, tag=ck.tag)
    # the installed DeepSpeed's copy, never the zero_to_fp32.py inside the checkpoint (the sender's script)
    shell = f"python -m deepspeed.utils.zero_to_fp32 {ck.source} OUT --tag {ck.tag} --safe_serialization"
    return ("deepspeed.utils.zero_to_fp32.convert_zero_checkpoint_to_fp32_state_dict", shell)


def _full_state_dict(ck: Checkpoint, tmp: Path) -> tuple[str, str]:
    import torch
    from accelerate.utils.other import clean_state_dict_for_safetensors
    from safetensors.torch import save_file

    from .checkpoint_io import check_torch_files

    check_torch_files([ck.source])
    state = torch.load(ck.source, map_location="cpu", weights_only=True)
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ConsolidateError(said(f"{ck.source}: not a state dict of tensors; was it written by save_state with "
                               "FULL_STATE_DICT?"))
    state = clean_state_dict_for_safetensors(dict(state))
    save_file({k: v.contiguous() for k, v in state.items()}, str(tmp / OUT_NAME), metadata={"format": "pt"})
    return ("torch.load(weights_only=True) + safetensors.torch.save_file (the full state dict as it is)",
            said(f"no merge needed: {ck.source.name} is already the whole state dict (torch.load it)"))


def _copy(ck: Checkpoint, tmp: Path) -> tuple[str, str]:
    from .checkpoint_io import read_safetensors_header

    read_safetensors_header(ck.source)  # before anything is copied
    shutil.copyfile(ck.source, tmp / OUT_NAME)
    return ("copied (already one safetensors file)", f"cp {ck.source} OUT/{OUT_NAME}")


_RUNS = {"fsdp_sharded": "accelerate's merge_fsdp_weights", "deepspeed_zero": "DeepSpeed's zero_to_fp32",
         "fsdp_full": "torch.load + safetensors save_file", "model": "a copy"}
_TOOLS = {"fsdp_sharded": _merge_fsdp, "deepspeed_zero": _zero_to_fp32, "fsdp_full": _full_state_dict,
          "model": _copy}


def inspect_safetensors(path: Path) -> tuple[int, int, dict[str, int]]:
    """(tensors, elements, {dtype: tensors}) read from the file's header (no tensor is loaded); the header is
    checked first (:func:`wizard.run.checkpoint_io.read_safetensors_header`): ConsolidateError when it does not
    fit the file."""
    from .checkpoint_io import UnreadableCheckpoint, read_safetensors_header

    try:
        header = read_safetensors_header(path)
    except UnreadableCheckpoint as exc:
        raise ConsolidateError(str(exc)) from None
    tensors = params = 0
    dtypes: dict[str, int] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        tensors += 1
        count = 1
        for dim in info["shape"]:
            count *= int(dim)
        params += count
        dtypes[info["dtype"]] = dtypes.get(info["dtype"], 0) + 1
    return tensors, params, dtypes


def _run_tool(tool: Callable[[Checkpoint, Path], tuple[str, str]], ck: Checkpoint, tmp: Path) -> tuple[str, str]:
    """``tool`` with every torch.load forced to weights only; whatever the checkpoint makes the libraries fail
    with becomes a ConsolidateError of one line (bad input, exit 2), never a traceback."""
    from .checkpoint_io import UnreadableCheckpoint, explain_unpickling_error, one_line, refusal, weights_only_loads

    # a safetensors copy unpickles nothing: no torch import for it
    guard = (contextlib.nullcontext() if ck.format == "model"
             else weights_only_loads(deepspeed=ck.format == "deepspeed_zero"))
    try:
        with contextlib.redirect_stdout(sys.stderr), guard:  # the tools' chatter is progress
            return tool(ck, tmp)
    except ConsolidateError:
        raise
    except UnreadableCheckpoint as exc:
        raise ConsolidateError(str(exc)) from None
    except Exception as exc:  # the libraries on a damaged or crafted checkpoint: ValueError, KeyError, ...
        name = explain_unpickling_error(exc)
        if name is not None:
            raise ConsolidateError(refusal(ck.folder, [name])) from None
        raise ConsolidateError(said(f"{ck.folder}: cannot read this {FORMATS.get(ck.format, ck.format)} checkpoint "
                               f"({type(exc).__name__}: {one_line(exc, 200)}); it is incomplete, damaged or not "
                               "one written by accelerator.save_state")) from None


def consolidate(ck: Checkpoint, out_dir: str | Path, *, force: bool = False,
                progress: Callable[[str], None] | None = None) -> Result:
    """Write ``out_dir/model.safetensors`` from ``ck`` with the tool of its format. The checkpoint is read as
    data only (:mod:`wizard.run.checkpoint_io`): nothing in it runs, and a refused or damaged one raises
    ConsolidateError before the output is replaced."""
    out_dir = Path(out_dir).expanduser()
    out_file = out_dir / OUT_NAME
    if ck.format == "fsdp_local":
        raise ConsolidateError(said(f"{ck.folder}: per-rank shard files (LOCAL_STATE_DICT, or a sharded state dict "
                                    "saved without torch.distributed.checkpoint) have no merge tool in accelerate or "
                                    "torch; save with fsdp_state_dict_type SHARDED_STATE_DICT (answers: "
                                    "checkpoint.format: sharded) or FULL_STATE_DICT (full)"))
    tool = _TOOLS.get(ck.format)
    if tool is None:
        raise ConsolidateError(said(f"{ck.folder}: unknown checkpoint format {ck.format!r}"))
    if out_file.exists() and not force:
        raise ConsolidateError(said(f"{out_file} exists; add --force to replace it, or choose another folder with "
                                    "--out"))
    if out_dir.exists() and not out_dir.is_dir():
        raise ConsolidateError(said(f"{out_dir}: exists and is not a folder; choose another folder with --out"))
    if ck.format == "model":  # the header is checked before the output folder is even made
        inspect_safetensors(ck.source)
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    _say(progress, said(f"consolidating {ck.describe()}"))
    tmp = Path(tempfile.mkdtemp(prefix=".consolidate-", dir=out_dir))
    try:
        _say(progress, said(f"running {_RUNS[ck.format]} (CPU-bound: large models take minutes)"))
        name, shell = _run_tool(tool, ck, tmp)
        written = tmp / OUT_NAME
        if not written.is_file():
            made = sorted(p.name for p in tmp.iterdir())
            raise ConsolidateError(said(f"{name} wrote {made}, not {OUT_NAME}; the checkpoint in {ck.folder} may be "
                                        "incomplete") if made else
                                   said(f"{name} wrote nothing, not {OUT_NAME}; the checkpoint in {ck.folder} may be "
                                        "incomplete"))
        tensors, params, dtypes = inspect_safetensors(written)  # before it replaces anything
        # safetensors writes its files 0600: the output follows the umask like every other file the wizard
        # writes (or keeps the mode of the file it replaces)
        os.chmod(written, file_mode(out_file))
        os.replace(written, out_file)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    notes = []
    if ck.manifest.get("model_16bit"):
        notes.append(said(f"DeepSpeed also saved the gathered 16-bit weights in "
                          f"{ck.folder / ck.manifest['model_16bit']}; "
                          "this file holds the fp32 master weights from the ZeRO partitions"))
    result = Result(ck, out_file, name, shell, out_file.stat().st_size, tensors, params, dtypes,
                    round(time.monotonic() - t0, 3), notes)
    _say(progress, said(f"wrote {out_file} in {result.seconds:.1f}s"))
    return result


def offer(run_dir: str | Path, lang: str | None = None) -> str | None:
    """After a run: where its checkpoint is and the command that consolidates it (None when it saved none); in the
    language (the wizard's unless ``lang``: the run screen's words, part ``screen-run``), paths as written."""
    from ..core.localized import screen

    record = read_checkpoint(Path(run_dir))
    if not record or not record.get("latest"):
        return None
    kind = str(record.get("format"))
    fmt = screen("run", f"format.{kind}", lang) if kind in FORMATS else kind
    step = record.get("step")
    if step is None:
        return screen("run", "offer", lang, latest=record["latest"], format=fmt, run_dir=run_dir)
    return screen("run", "offer_step", lang, latest=record["latest"], format=fmt, step=step, run_dir=run_dir)


__all__ = ["FORMATS", "MANIFEST", "OUT_NAME", "Checkpoint", "ConsolidateError", "Result", "consolidate", "detect",
           "find_checkpoint", "inspect_safetensors", "offer"]
