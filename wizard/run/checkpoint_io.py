"""Reading checkpoints as untrusted files: data in, never code.

A checkpoint is usually downloaded or copied from someone else, and the formats ``consolidate`` reads are pickles
underneath: a pickle can name any importable function and have it called while loading. This module is the one
place where ``consolidate`` opens them, so that nothing in a checkpoint runs:

* every ``torch.load`` made while :func:`weights_only_loads` is active (ours, DeepSpeed's ``zero_to_fp32``, which
  passes ``weights_only=False`` itself, and torch.distributed.checkpoint's reader of non-tensor items) runs with
  torch's weights-only unpickler: torch's ``TORCH_FORCE_WEIGHTS_ONLY_LOAD`` switch, which overrides an explicit
  ``weights_only=False``. The few DeepSpeed classes a ZeRO checkpoint really holds are allowed by name
  (:data:`DEEPSPEED_GLOBALS`); any other global is refused before it is looked up;
* the DeepSpeed files are first read statically (:func:`check_torch_files`, nothing unpickled) so that a refusal
  names the file and the global it asks for;
* torch.distributed.checkpoint's ``.metadata`` (a plain pickle torch reads with ``pickle.load``) is read by
  :class:`MetadataUnpickler`, which knows only the metadata's own classes, and checked against the files it points
  at (:func:`check_dcp_metadata`) before any tensor is made;
* a safetensors header is checked (length, JSON, offsets inside the file) before anything else is read or copied
  (:func:`read_safetensors_header`).

Everything that is refused raises :class:`UnreadableCheckpoint` with one line: which file, what is wrong. torch is
imported inside the functions only.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import pickle
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..core.i18n import said

SAFETENSORS_HEADER_MAX = 100_000_000
"""The largest safetensors header read (bytes): the safetensors library refuses larger ones itself."""
SAFETENSORS_ITEMSIZE = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "F8_E8M0": 1, "U16": 2, "I16": 2,
                        "F16": 2, "BF16": 2, "U32": 4, "I32": 4, "F32": 4, "U64": 8, "I64": 8, "F64": 8,
                        "C64": 8}
DCP_METADATA_MAX = 64 * 2**20
"""The largest torch.distributed.checkpoint ``.metadata`` read (bytes); a large model's is a few MB."""

DEEPSPEED_GLOBALS = (
    ("deepspeed.runtime.fp16.loss_scaler", "LossScaler"),
    ("deepspeed.runtime.fp16.loss_scaler", "DynamicLossScaler"),
    ("deepspeed.runtime.zero.config", "ZeroStageEnum"),
    ("deepspeed.utils.tensor_fragment", "fragment_address"),
)
"""The classes of DeepSpeed's own a ZeRO checkpoint holds besides tensors and plain containers (module, name):
the loss scaler's state, the ZeRO stage and the fragment addresses of a partition. Plain classes whose state is
set attribute by attribute; none runs code of the checkpoint's choosing."""

_DCP_GLOBALS = {
    "torch.distributed.checkpoint.metadata": {"Metadata", "TensorStorageMetadata", "BytesStorageMetadata",
                                              "ChunkStorageMetadata", "TensorProperties", "MetadataIndex",
                                              "StorageMeta", "_MEM_FORMAT_ENCODING"},
    "torch.distributed.checkpoint.filesystem": {"_StorageInfo"},
    "torch.serialization": {"_get_layout"},
    "torch": {"Size"},
    "pathlib": {"Path", "PosixPath", "PurePosixPath", "WindowsPath", "PureWindowsPath"},
    "collections": {"OrderedDict"},
    "builtins": {"set", "frozenset", "tuple", "list", "dict"},
}
"""What a ``.metadata`` pickle may name (module -> names), besides the torch dtypes (``torch.float32``, ...)."""


class UnreadableCheckpoint(Exception):
    """A checkpoint file refused or unreadable: one line naming the file and what is wrong."""


def one_line(text: object, limit: int = 240) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[:limit - 3] + "..."


# ----------------------------------------------------------------------------- torch.load, weights only
def _deepspeed_classes() -> list[Any]:
    import importlib

    found = []
    for module, name in DEEPSPEED_GLOBALS:
        try:
            found.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):  # another DeepSpeed release: that class is simply not allowed
            continue
    return found


@contextlib.contextmanager
def weights_only_loads(*, deepspeed: bool = False) -> Iterator[None]:
    """Every ``torch.load`` inside runs torch's weights-only unpickler, whatever its caller passed; with
    ``deepspeed``, DeepSpeed's checkpoint classes (:data:`DEEPSPEED_GLOBALS`) are allowed (deepspeed is imported
    only then)."""
    import torch.serialization

    saved = {name: os.environ.get(name) for name in ("TORCH_FORCE_WEIGHTS_ONLY_LOAD",
                                                     "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")}
    os.environ["TORCH_FORCE_WEIGHTS_ONLY_LOAD"] = "1"
    os.environ.pop("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", None)  # both set is an error in torch; ours wins here
    try:
        with torch.serialization.safe_globals(_deepspeed_classes() if deepspeed else []):
            yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def check_torch_files(files: list[Path]) -> None:
    """Refuse any ``torch.save`` file among ``files`` whose pickle names a global the weights-only loader would not
    allow (read statically: nothing is unpickled). Call inside :func:`weights_only_loads`."""
    import torch.serialization

    for path in files:
        try:
            with open(path, "rb") as f:
                if f.read(4) != b"PK\x03\x04":  # torch.save's legacy format: the weights-only loader reads it
                    continue
            unsafe = torch.serialization.get_unsafe_globals_in_checkpoint(str(path))
        except Exception as exc:  # not a zip written by torch.save, a damaged archive, a pickle that does not parse
            raise UnreadableCheckpoint(said(f"{path}: not a readable torch.save file ({type(exc).__name__}: "
                                       f"{one_line(exc, 160)})")) from exc
        if unsafe:
            raise UnreadableCheckpoint(refusal(path, unsafe))


def refusal(path: Path | str, names: list[str]) -> str:
    """Why a checkpoint is refused: the globals it would call (the first four), or, when the loader named none
    (``names`` empty or all ""), "a function or class" (the sentence's own words, translated with it)."""
    named = sorted({n for n in names if n})
    if not named:
        return said(f"{path}: refused: loading this file would call a function or class, which a checkpoint does "
                    "not need; consolidate reads checkpoints as data only and never runs code from them (if you "
                    "wrote this checkpoint yourself with custom classes in it, convert it in your own code, where "
                    "you decide what to trust)")
    shown = ", ".join(named[:4]) + (", ..." if len(named) > 4 else "")
    return said(f"{path}: refused: loading this file would call {shown}, which a checkpoint does not need; "
                "consolidate reads checkpoints as data only and never runs code from them (if you wrote this "
                "checkpoint yourself with custom classes in it, convert it in your own code, where you decide what "
                "to trust)")


_UNSUPPORTED_GLOBAL = re.compile(r"(?:GLOBAL|global)\s+([\w.]+)")


def explain_unpickling_error(exc: BaseException) -> str | None:
    """The global a weights-only refusal names (torch's long message), "" when it names none (:func:`refusal` then
    says "a function or class"), or None when ``exc`` is not one."""
    text = str(exc)
    if "Weights only load failed" not in text and "Unsupported global" not in text:
        return None
    m = _UNSUPPORTED_GLOBAL.search(text)
    return m.group(1) if m else ""


# ----------------------------------------------------------------------------- torch.distributed.checkpoint
class MetadataUnpickler(pickle.Unpickler):
    """Reads a ``.metadata`` pickle knowing only the metadata's own classes and the torch dtypes: any other
    global is refused before it is imported, so nothing the file names can run."""

    def find_class(self, module: str, name: str) -> Any:
        import torch

        if module == "torch" and isinstance(vars(torch).get(name), torch.dtype):  # vars: no lazy imports
            return vars(torch)[name]
        if name in _DCP_GLOBALS.get(module, ()):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"global {module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("persistent id")


def read_dcp_metadata(folder: Path) -> Any:
    """The ``Metadata`` of the torch.distributed.checkpoint folder, read safely and checked against its files."""
    from torch.distributed.checkpoint.metadata import Metadata

    path = Path(folder) / ".metadata"
    try:
        size = path.stat().st_size
        if size > DCP_METADATA_MAX:
            raise UnreadableCheckpoint(said(f"{path}: {size} bytes, more than the {DCP_METADATA_MAX} a checkpoint's "
                                       "metadata takes; refused"))
        with open(path, "rb") as f:
            data = f.read(DCP_METADATA_MAX + 1)
    except OSError as exc:
        raise UnreadableCheckpoint(said(f"{path}: cannot read it ({one_line(exc.strerror or exc, 120)})")) from exc
    try:
        metadata = MetadataUnpickler(io.BytesIO(data)).load()
    except pickle.UnpicklingError as exc:
        if str(exc).startswith("global "):
            raise UnreadableCheckpoint(refusal(path, [str(exc)[len("global "):]])) from exc
        raise UnreadableCheckpoint(said(f"{path}: not a torch.distributed.checkpoint metadata file "
                                   f"({one_line(exc, 120)})")) from exc
    except Exception as exc:  # truncated or damaged pickle data: EOFError, ValueError, TypeError, ...
        detail = f"{type(exc).__name__}: {one_line(exc, 120)}"  # (one template with the case above)
        raise UnreadableCheckpoint(said(f"{path}: not a torch.distributed.checkpoint metadata file "
                                        f"({detail})")) from exc
    if not isinstance(metadata, Metadata):
        raise UnreadableCheckpoint(said(f"{path}: holds a {type(metadata).__name__}, not torch.distributed.checkpoint "
                                   "metadata"))
    check_dcp_metadata(Path(folder), metadata)
    return metadata


def check_dcp_metadata(folder: Path, metadata: Any) -> None:
    """Every storage item is a slice of a file inside ``folder``, and the tensors it describes fit in those files
    (so that no crafted size makes torch allocate more memory than the checkpoint holds)."""
    import torch
    from torch.distributed.checkpoint.filesystem import _StorageInfo
    from torch.distributed.checkpoint.metadata import BytesStorageMetadata, TensorStorageMetadata

    path = folder / ".metadata"
    storage = metadata.storage_data
    if not isinstance(storage, dict) or not isinstance(metadata.state_dict_metadata, dict):
        raise UnreadableCheckpoint(said(f"{path}: its storage table is missing"))
    sizes: dict[str, int] = {}
    for info in storage.values():
        if not isinstance(info, _StorageInfo):
            raise UnreadableCheckpoint(said(f"{path}: a storage entry is a {type(info).__name__}"))
        name = info.relative_path
        if not isinstance(name, str) or name in ("", ".", "..") or "/" in name or "\\" in name or "\0" in name:
            raise UnreadableCheckpoint(said(f"{path}: names the data file {name!r}, outside its folder; refused"))
        if name not in sizes:
            data = folder / name
            if data.is_symlink() or not data.is_file():
                raise UnreadableCheckpoint(said(f"{path}: names {name}, which is not a regular file in {folder}"))
            sizes[name] = data.stat().st_size
        offset, length = info.offset, info.length
        if not (isinstance(offset, int) and isinstance(length, int) and 0 <= offset and 0 <= length
                and offset + length <= sizes[name]):
            raise UnreadableCheckpoint(said(f"{path}: an item at offset {offset}, length {length} does not lie inside "
                                       f"{name} ({sizes[name]} bytes)"))
    held = sum(sizes.values())
    needed = 0
    for key, meta in metadata.state_dict_metadata.items():
        if isinstance(meta, BytesStorageMetadata):
            continue
        if not isinstance(meta, TensorStorageMetadata) or not isinstance(meta.properties.dtype, torch.dtype):
            raise UnreadableCheckpoint(said(f"{path}: the entry {one_line(key, 80)!r} is not a tensor or bytes item"))
        count = 1
        for dim in meta.size:
            if not isinstance(dim, int) or dim < 0:
                raise UnreadableCheckpoint(said(f"{path}: the tensor {one_line(key, 80)!r} has the size "
                                                f"{list(meta.size)}"))
            count *= dim
        needed += count * meta.properties.dtype.itemsize
        if needed > held:
            raise UnreadableCheckpoint(said(f"{path}: its tensors take more bytes than its data files hold ({held}); "
                                       "the checkpoint is incomplete or crafted"))


def load_dcp(folder: Path) -> dict:
    """The state dict of a torch.distributed.checkpoint folder, in this one process (as ``accelerate
    merge-weights`` loads it), the metadata read by :func:`read_dcp_metadata`. Call inside
    :func:`weights_only_loads` (the non-tensor items are ``torch.load``-ed)."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.api import CheckpointException
    from torch.distributed.checkpoint.format_utils import _EmptyStateDictLoadPlanner
    from torch.distributed.checkpoint.metadata import StorageMeta
    from torch.distributed.checkpoint.state_dict_loader import _load_state_dict

    metadata = read_dcp_metadata(folder)

    class Reader(dcp.FileSystemReader):
        def read_metadata(self, *args: Any, **kwargs: Any) -> Any:  # never torch's pickle.load
            if kwargs.get("rank") is not None:
                raise UnreadableCheckpoint(said(f"{folder}: per-rank metadata files are not read"))
            if getattr(metadata, "storage_meta", None) is None:
                metadata.storage_meta = StorageMeta()
            metadata.storage_meta.load_id = self.load_id
            return metadata

    state: dict = {}
    try:
        _load_state_dict(state, storage_reader=Reader(str(folder)), planner=_EmptyStateDictLoadPlanner(),
                         no_dist=True)
    except CheckpointException as exc:  # a BaseException: it carries the real failure of each rank
        raise UnreadableCheckpoint(dcp_failure(folder, exc)) from None
    return state


def dcp_failure(folder: Path, exc: BaseException) -> str:
    """One line for a CheckpointException: the first failure it wraps."""
    failures = getattr(exc, "failures", None) or {}
    inner: Any = next(iter(failures.values()), exc) if isinstance(failures, dict) else exc
    inner = getattr(inner, "exc", inner)
    if isinstance(inner, UnreadableCheckpoint):
        return str(inner)
    name = explain_unpickling_error(inner)
    if name is not None:
        return refusal(folder, [name])
    return said(f"{folder}: cannot read the checkpoint ({type(inner).__name__}: {one_line(inner, 160)})")


# ----------------------------------------------------------------------------- safetensors
def read_safetensors_header(path: Path) -> dict[str, Any]:
    """The header of a safetensors file, checked before anything else is read: its length is read first and
    refused above :data:`SAFETENSORS_HEADER_MAX` or past the end of the file, then every tensor's dtype, shape
    and byte range must fit the data that follows."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            total = os.fstat(f.fileno()).st_size
            head = f.read(8)
            if len(head) < 8:
                raise UnreadableCheckpoint(said(f"{path}: {total} bytes, too short for a safetensors file"))
            n = int.from_bytes(head, "little")
            if n > SAFETENSORS_HEADER_MAX or n > total - 8:
                raise UnreadableCheckpoint(said(f"{path}: its header claims {n} bytes (the file has {total}, "
                                                f"safetensors allows {SAFETENSORS_HEADER_MAX}); not a safetensors "
                                                "file, or damaged"))
            raw = f.read(n)
    except OSError as exc:
        raise UnreadableCheckpoint(said(f"{path}: cannot read it ({one_line(exc.strerror or exc, 120)})")) from exc
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise UnreadableCheckpoint(said(f"{path}: its header is not JSON ({type(exc).__name__}); not a safetensors "
                                   "file, or damaged")) from exc
    if not isinstance(header, dict):
        raise UnreadableCheckpoint(said(f"{path}: its header is not a JSON object; not a safetensors file"))
    data = total - 8 - n
    for name, info in header.items():
        if name == "__metadata__":
            continue
        ok = (isinstance(info, dict) and info.get("dtype") in SAFETENSORS_ITEMSIZE
              and isinstance(info.get("shape"), list)
              and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in info["shape"])
              and isinstance(info.get("data_offsets"), list) and len(info["data_offsets"]) == 2
              and all(isinstance(o, int) and not isinstance(o, bool) for o in info["data_offsets"]))
        if ok:
            begin, end = info["data_offsets"]
            count = 1
            for dim in info["shape"]:
                count *= dim
            ok = 0 <= begin <= end <= data and end - begin == count * SAFETENSORS_ITEMSIZE[info["dtype"]]
        if not ok:
            raise UnreadableCheckpoint(said(f"{path}: the tensor {one_line(name, 80)!r} has a dtype, shape or byte "
                                       "range that does not fit the file; damaged or crafted"))
    return header


__all__ = ["DEEPSPEED_GLOBALS", "SAFETENSORS_HEADER_MAX", "MetadataUnpickler", "UnreadableCheckpoint",
           "check_dcp_metadata", "check_torch_files", "dcp_failure", "explain_unpickling_error", "load_dcp",
           "one_line", "read_dcp_metadata", "read_safetensors_header", "refusal", "weights_only_loads"]
