"""Read an accelerate config file and the DeepSpeed JSON it names, the way accelerate reads them.

* The accelerate config is read with ``yaml.safe_load`` (``json.load`` for a ``.json`` name), as in
  ``accelerate/commands/config/config_args.py``. So ``1e8`` is a *string* and ``no`` is the boolean False.
* ``deepspeed_config.deepspeed_config_file`` is read with ``json.load`` as in
  ``accelerate/utils/deepspeed.py`` (``HfDeepSpeedConfig``): a path, else JSON text, else base64 JSON.
  accelerate opens it as written (``os.path.exists``), so a relative path is resolved from the working folder of
  ``accelerate launch``, never from the YAML's folder. The linter does the same from the current folder; a path
  that only resolves from the YAML's folder or one above it is still read (to lint it) and warned about, as is an
  absolute path outside the current folder (a config that works from one place only).

Every read goes through ``wizard.core.inputs`` (bounded size and depth, aliases, UTF-8). Problems with the
YAML itself (missing, unreadable, not YAML, not a mapping) raise ``InputError``;
everything else, the DeepSpeed JSON's problems included, becomes a ``Finding`` in ``LoadedConfig.findings``.
"""
from __future__ import annotations

import os
from pathlib import Path

from ..findings import ERROR, WARNING, Finding
from ..inputs import ACCELERATE, DEEPSPEED, InputError, is_json_name, load_mapping_file, parse_json, yaml_duplicates
from ..recordclass import field, record
from .base import DOC, rule

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

DS_FILE_KEY = "deepspeed_config.deepspeed_config_file"
_HF_DEEPSPEED = "accelerate/utils/deepspeed.py:136-156 (HfDeepSpeedConfig)"
_DS_FILE_SOURCE = DOC + "ds-config-file; " + _HF_DEEPSPEED
_DUP_SOURCE = (DOC + "config-loading; yaml.safe_load / json.load keep the last value "
               "(accelerate/commands/config/config_args.py:148-160, accelerate/utils/deepspeed.py:141-143)")

DUPLICATE = rule("duplicate-key", ERROR, "A key written twice with different values (the first is dropped)",
                 _DUP_SOURCE,
                 keys="the repeated key (dotted path in the YAML or the DeepSpeed JSON)",
                 claims=("config-duplicate-keys-last-wins",))
DUPLICATE_SAME = rule("duplicate-key-same-value", WARNING, "A key written twice with the same value", _DUP_SOURCE,
                      keys="the repeated key (dotted path in the YAML or the DeepSpeed JSON)",
                      claims=("config-duplicate-keys-last-wins",))
DS_MISSING = rule("ds-config-file-missing", ERROR, "The DeepSpeed JSON named by the YAML cannot be found",
                  _DS_FILE_SOURCE, claims=("ds-config-file-read-as-written",))
DS_TILDE = rule("ds-config-file-tilde", ERROR, "accelerate does not expand '~' in deepspeed_config_file",
                _DS_FILE_SOURCE, claims=("ds-config-file-read-as-written",))
DS_UNREADABLE = rule("ds-config-file-unreadable", ERROR, "The DeepSpeed JSON cannot be read", _DS_FILE_SOURCE,
                     fix="Check the file's permissions, and that it is the UTF-8 text of the DeepSpeed config.",
                     claims=("ds-config-file-read-as-written",))
DS_NOT_FROM_HERE = rule(
    "ds-config-file-not-from-here", WARNING,
    "The relative DeepSpeed JSON path resolves from the YAML's folder (or one above it) but not from the current "
    "folder, where accelerate opens it", _DS_FILE_SOURCE,
    fix="Launch from the folder the path is relative to, or write it relative to the folder you launch from "
        "(fsdpds-wizard writes it so when --out lies inside the folder it runs in).",
    claims=("ds-config-file-read-as-written",))
DS_ABSOLUTE_ELSEWHERE = rule(
    "ds-config-file-absolute-elsewhere", WARNING,
    "An absolute DeepSpeed JSON path outside the current folder: the config works only where that path exists",
    _DS_FILE_SOURCE,
    fix="For a config that travels with its project, keep the JSON inside it and write the path relative to the "
        "folder you launch from (fsdpds-wizard --headless ... --out DIR with DIR inside that folder).",
    claims=("ds-config-file-read-as-written",))
DS_BAD_JSON = rule("ds-config-file-invalid-json", ERROR, "The DeepSpeed JSON is not a JSON object (strict JSON)",
                   _DS_FILE_SOURCE,
                   fix="Write one JSON object ({\"zero_optimization\": {...}, ...}) in strict JSON: no comments, no "
                       "trailing commas, double quotes.",
                   claims=("ds-config-file-read-as-written",))


"""The accelerate config file cannot be used at all: the one input error (``path``, ``what``, ``fix``) of
``wizard.core.inputs``; ``str()`` is the line for the user."""


@record
class LoadedConfig:
    yaml_path: Path
    yaml: dict
    ds_path: Path | None = None
    """The DeepSpeed JSON that was read (None: inline DeepSpeed settings, JSON text in the YAML, or not found)."""
    ds: dict | None = None
    findings: list[Finding] = field(default_factory=list)
    hostfile_path: Path | None = None
    """The DeepSpeed hostfile the YAML names (``deepspeed_config.deepspeed_hostfile``), when found as the runner
    opens it: as written, from the current folder (where ``accelerate launch`` runs)."""
    hostfile: list[str] | None = None
    """Its lines (None: not named, not found here, or unreadable)."""
    bare_ds: bool = False
    """The file is a DeepSpeed JSON on its own (no accelerate config): ``yaml`` is then the smallest accelerate
    config that names it (``distributed_type: DEEPSPEED`` + ``deepspeed_config_file``), ``ds``/``ds_path`` the
    file."""

    @property
    def ds_named(self) -> bool:
        """The YAML names a DeepSpeed config (file mode), whether or not it could be read."""
        return _named_ds_value(self.yaml) is not None

    @property
    def ds_path_known(self) -> bool:
        """False when the YAML names a DeepSpeed config that could not be read (its content is unknown)."""
        return not self.ds_named or self.ds is not None


def _named_ds_value(cfg: Any) -> Any:
    dc = cfg.get("deepspeed_config") if isinstance(cfg, dict) else None
    if not isinstance(dc, dict) or "deepspeed_config_file" not in dc:
        return None
    value = dc["deepspeed_config_file"]
    if value is None or (isinstance(value, str) and value == "none"):
        return None  # accelerate treats both as "no file": inline settings
    return value


# ----------------------------------------------------------------------------------------------------------------
# duplicate keys (both loaders silently keep the last value)
# ----------------------------------------------------------------------------------------------------------------
class _PairsDict(dict):
    """json object that remembers repeated keys."""

    dups: list

    def __init__(self, pairs):
        super().__init__()
        self.dups = []
        for k, v in pairs:
            if k in self:
                self.dups.append((k, self[k] == v))
            self[k] = v


def _plain_json(obj: Any, prefix: str, dups: list[tuple[str, bool]]) -> Any:
    if isinstance(obj, _PairsDict):
        for k, same in obj.dups:
            dups.append((f"{prefix}{k}", same))
        return {k: _plain_json(v, f"{prefix}{k}.", dups) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_plain_json(v, prefix, dups) for v in obj]
    return obj


def _dup_findings(dups: list[tuple[str, bool]], where: str) -> list[Finding]:
    out = []
    for key, same in dups:
        if same:
            out.append(Finding(WARNING, DUPLICATE_SAME, (key,),
                               f"`{key}` is written twice in {where} with the same value.",
                               "Delete one of the two lines.", _DUP_SOURCE))
        else:
            out.append(Finding(ERROR, DUPLICATE, (key,),
                               f"`{key}` is written twice in {where} with different values; only the last one "
                               "is used, the first is silently dropped.",
                               "Keep one line with the value you want.", _DUP_SOURCE))
    return out


# ----------------------------------------------------------------------------------------------------------------
# the accelerate config
# ----------------------------------------------------------------------------------------------------------------
def _read_accelerate_config(path: Path) -> tuple[dict, list[tuple[str, bool]]]:
    dups: list[tuple[str, bool]] = []
    data = load_mapping_file(path, ACCELERATE, json_hook=_PairsDict,
                             on_node=lambda node: dups.extend(yaml_duplicates(node)))
    if is_json_name(path):  # accelerate picks the parser from the file name
        data = _plain_json(data, "", dups)
    return data, dups


# ----------------------------------------------------------------------------------------------------------------
# the DeepSpeed JSON
# ----------------------------------------------------------------------------------------------------------------
def _ds_error(name: str, message: str, fix: str, source: str = _DS_FILE_SOURCE) -> Finding:
    return Finding(ERROR, name, (DS_FILE_KEY,), message, fix, source)


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # e.g. a name too long for the file system: JSON text, not a path (as os.path.exists)
        return False


def _resolve_ds_path(value: str, yaml_dir: Path, cwd: Path) -> tuple[Path | None, Path | None]:
    """The file accelerate opens from ``cwd`` (``os.path.exists(value)``, relative to the working folder). For a
    relative path not found from there: the file it names from the YAML's folder or the nearest folder above it
    (a config written to be launched from there, such as the wizard's ``out/ds_config.json``). Returns (the file or
    None, the other folder it was found from, or None when found from ``cwd`` / absolute)."""
    p = Path(value)
    if p.is_absolute():
        return (p, None) if _is_file(p) else (None, None)
    if _is_file(cwd / p):
        return cwd / p, None
    for folder in (yaml_dir, *yaml_dir.parents):
        if _is_file(folder / p):
            return folder / p, folder
    return None, None


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True


def _where_findings(value: str, found: Path, launch_from: Path | None, cwd: Path) -> list[Finding]:
    """A config that works from one place only: warn (accelerate reads the JSON from its working folder)."""
    source = _DS_FILE_SOURCE
    if launch_from is not None:
        return [Finding(WARNING, DS_NOT_FROM_HERE, (DS_FILE_KEY,),
                        f"`deepspeed_config_file: {value}` is not found from the current folder {cwd}, where "
                        "accelerate opens it (from the folder `accelerate launch` runs in): launched from here it "
                        "fails with 'Expected a string path to an existing deepspeed config'. It resolves from "
                        f"{launch_from} ({found}, read from there for this check).",
                        f"Launch from {launch_from}, or write the path relative to the folder you launch from.",
                        source)]
    if Path(value).is_absolute() and not _inside(found, cwd):
        return [Finding(WARNING, DS_ABSOLUTE_ELSEWHERE, (DS_FILE_KEY,),
                        f"`deepspeed_config_file: {value}` is an absolute path outside the current folder {cwd}: "
                        "the config works only on machines where that path exists, not from a clone or a copy "
                        "of the project elsewhere.",
                        "For a config that travels with its project, keep the JSON inside it and write the path "
                        "relative to the folder you launch from (fsdpds-wizard --headless ... --out DIR with DIR "
                        "inside that folder does this).", source)]
    return []


_INLINE_JSON = "deepspeed_config.deepspeed_config_file (JSON text in the YAML)"
_INLINE_B64 = "deepspeed_config.deepspeed_config_file (base64 JSON in the YAML)"


def _decode_inline(value: str) -> Any:
    """accelerate also accepts JSON text or base64-encoded JSON in place of a path.

    Returns the decoded value, or None when the value is neither (then it is a path that was not found).
    Raises ``InputError`` for JSON beyond the depth bound.
    """
    import base64
    import binascii

    try:
        return parse_json(value, _INLINE_JSON)
    except InputError as exc:
        if exc.problem == "too-deep" and value.lstrip()[:1] in ("{", "["):
            raise
    # not JSON text: perhaps base64 JSON
    try:
        text = base64.urlsafe_b64decode(value).decode("utf-8")
    except (ValueError, binascii.Error, UnicodeDecodeError, TypeError):
        return None  # neither JSON nor base64: a path (reported as not found)
    try:
        return parse_json(text, _INLINE_B64)
    except InputError as exc:
        if exc.problem == "too-deep":
            raise
        return None  # base64 of something that is not JSON: a path (reported as not found)


def _load_ds(value: Any, yaml_dir: Path, loaded: LoadedConfig) -> None:
    text_value = str(value)
    if text_value == "":
        loaded.findings.append(_ds_error(
            DS_MISSING, "`deepspeed_config.deepspeed_config_file` is empty; accelerate then fails "
            "to read a DeepSpeed config.", "Give the path of the DeepSpeed JSON, or delete the key to use the "
            "inline settings.", _DS_FILE_SOURCE))
        return
    if text_value.startswith("~"):
        loaded.findings.append(_ds_error(
            DS_TILDE, f"`deepspeed_config.deepspeed_config_file: {text_value}` starts with '~', "
            "which accelerate does not expand (it checks the path as written), so the file is not found.",
            "Write the full path (or a path relative to the folder you launch from).", _DS_FILE_SOURCE))
        text_value = os.path.expanduser(text_value)
    cwd = Path.cwd()
    found, launch_from = _resolve_ds_path(text_value, yaml_dir, cwd)
    if found is None:
        try:
            inline = _decode_inline(text_value)
        except InputError as exc:
            loaded.findings.append(_ds_error(DS_BAD_JSON, exc.message + ".", exc.fix))
            return
        if isinstance(inline, dict):
            loaded.ds = inline
            return
        loaded.findings.append(_ds_error(
            DS_MISSING, f"The DeepSpeed config `{text_value}` named by "
            "`deepspeed_config.deepspeed_config_file` was not found (looked from the current folder, where "
            "accelerate opens it, and from the YAML's folder and those above it); accelerate raises "
            "'Expected a string path to an existing deepspeed config'.",
            "Fix the path. A relative path is resolved from the folder `accelerate launch` runs in.",
            _DS_FILE_SOURCE))
        return
    loaded.ds_path = found
    if not str(value).startswith("~"):  # a '~' path is already an error: accelerate never finds it
        loaded.findings.extend(_where_findings(text_value, found, launch_from, cwd))
    dups: list[tuple[str, bool]] = []
    try:
        data = _plain_json(load_mapping_file(found, DEEPSPEED, json_hook=_PairsDict), "", dups)
    except InputError as exc:
        if exc.problem == "not-json":
            loaded.findings.append(_ds_error(
                DS_BAD_JSON, f"{exc.message}. accelerate reads it with json.load, so comments and trailing commas "
                "are not allowed even though DeepSpeed itself would accept them.", exc.fix, _DS_FILE_SOURCE))
        elif exc.problem in ("not-a-mapping", "empty", "too-deep"):
            loaded.findings.append(_ds_error(DS_BAD_JSON, exc.message + ".", exc.fix))
        else:  # too large, not UTF-8, binary, cannot be read
            loaded.findings.append(_ds_error(DS_UNREADABLE, exc.message + ".", exc.fix))
        return
    loaded.ds = data
    loaded.findings.extend(_dup_findings(dups, str(found)))


def is_bare_deepspeed(data: dict) -> bool:
    """Whether a parsed JSON file is a DeepSpeed config rather than an accelerate config. It is one when it has a
    ``zero_optimization`` block and no ``distributed_type`` (what the file is, whatever accelerate keys it also
    carries: some projects ship DeepSpeed JSONs with num_processes / num_machines, which the JSON rules report as
    unused), or when it has none of the keys an accelerate config has (a top-level ``fp16`` counts as accelerate's
    only when it is a flag, not a block). A YAML file is always an accelerate config (DeepSpeed configs are JSON)."""
    from ..library.launcher import CLUSTER_FIELDS, LEGACY_TOP_LEVEL, SAGEMAKER_FIELDS

    if data and "distributed_type" not in data and isinstance(data.get("zero_optimization"), dict):
        return True
    accelerate_keys = (CLUSTER_FIELDS | SAGEMAKER_FIELDS | LEGACY_TOP_LEVEL) - {"fp16"}
    if not data or any(str(k) in accelerate_keys for k in data):  # an empty file: an (incomplete) accelerate config
        return False
    return not ("fp16" in data and not isinstance(data["fp16"], dict))


def load_config_files(yaml_path: str | Path) -> LoadedConfig:
    """Read the accelerate config and the DeepSpeed JSON it names, or a DeepSpeed JSON alone
    (``LoadedConfig.bare_ds``). Raises only ``InputError``."""
    path = Path(yaml_path)
    data, dups = _read_accelerate_config(path)
    if is_json_name(path) and is_bare_deepspeed(data):
        synth = {"distributed_type": "DEEPSPEED", "deepspeed_config": {"deepspeed_config_file": str(path)}}
        loaded = LoadedConfig(yaml_path=path, yaml=synth, ds_path=path, ds=data, bare_ds=True)
        loaded.findings.extend(_dup_findings(dups, str(path)))
        return loaded
    loaded = LoadedConfig(yaml_path=path, yaml=data)
    loaded.findings.extend(_dup_findings(dups, str(path)))
    value = _named_ds_value(data)
    if value is not None:
        _load_ds(value, path.resolve().parent, loaded)
    _load_hostfile(loaded)
    return loaded


HOSTFILE_MAX_BYTES = 1 << 20
"""A hostfile is a line per machine; more than this is not one (it is not read)."""


def _load_hostfile(loaded: LoadedConfig) -> None:
    """Read the DeepSpeed hostfile a DeepSpeed config names, when it exists here (it lives on the launch host, so
    not finding it is no error: the rules then say it was not checked)."""
    dc = loaded.yaml.get("deepspeed_config") if isinstance(loaded.yaml, dict) else None
    value = dc.get("deepspeed_hostfile") if isinstance(dc, dict) else None
    if not isinstance(value, str) or not value.strip():
        return
    candidate = Path(value) if Path(value).is_absolute() else Path.cwd() / value  # os.path.isfile(value), runner.py
    if not _is_file(candidate):
        return
    try:
        if candidate.stat().st_size > HOSTFILE_MAX_BYTES:
            return
        loaded.hostfile = candidate.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return
    loaded.hostfile_path = candidate
