"""Read an accelerate config file and the DeepSpeed JSON it names, the way accelerate reads them.

* The accelerate config is read with ``yaml.safe_load`` (``json.load`` for a ``.json`` name), as in
  ``accelerate/commands/config/config_args.py``. So ``1e8`` is a *string* and ``no`` is the boolean False.
* ``deepspeed_config.deepspeed_config_file`` is read with ``json.load`` as in
  ``accelerate/utils/deepspeed.py`` (``HfDeepSpeedConfig``): a path, else JSON text, else base64 JSON.
  A relative path is looked up next to the YAML first, then in the current directory.

Problems with the YAML itself (missing, unreadable, not YAML, not a mapping) raise ``ConfigFileError``;
everything else becomes a ``Finding`` in ``LoadedConfig.findings``.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .config_rules_base import rule
from .findings import ERROR, WARNING, Finding

DS_FILE_KEY = "deepspeed_config.deepspeed_config_file"
_HF_DEEPSPEED = "accelerate/utils/deepspeed.py:136-156 (HfDeepSpeedConfig)"
_DUP_SOURCE = "yaml.safe_load / json.load keep the last value (accelerate config_args.py:148-160, utils/deepspeed.py:139)"

DUPLICATE = rule("duplicate-key", ERROR, "A key written twice with different values (the first is dropped)",
                 _DUP_SOURCE,
                 keys="the repeated key (dotted path in the YAML or the DeepSpeed JSON)")
DUPLICATE_SAME = rule("duplicate-key-same-value", WARNING, "A key written twice with the same value", _DUP_SOURCE,
                      keys="the repeated key (dotted path in the YAML or the DeepSpeed JSON)")
DS_MISSING = rule("ds-config-file-missing", ERROR, "The DeepSpeed JSON named by the YAML cannot be found",
                  "D2; " + _HF_DEEPSPEED)
DS_TILDE = rule("ds-config-file-tilde", ERROR, "accelerate does not expand '~' in deepspeed_config_file",
                "D2; " + _HF_DEEPSPEED)
DS_UNREADABLE = rule("ds-config-file-unreadable", ERROR, "The DeepSpeed JSON cannot be read", _HF_DEEPSPEED)
DS_BAD_JSON = rule("ds-config-file-invalid-json", ERROR, "The DeepSpeed JSON is not a JSON object (strict JSON)",
                   "D2; " + _HF_DEEPSPEED)


class ConfigFileError(Exception):
    """The accelerate config file cannot be read at all (message is one line, for the user)."""


@dataclass
class LoadedConfig:
    yaml_path: Path
    yaml: dict
    ds_path: Path | None = None
    """The DeepSpeed JSON that was read (None: inline DeepSpeed settings, JSON text in the YAML, or not found)."""
    ds: dict | None = None
    findings: list[Finding] = field(default_factory=list)

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
def _yaml_duplicates(text: str) -> list[tuple[str, bool]]:
    """(dotted key, same value?) for every repeated key in a YAML mapping."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return []
    out: list[tuple[str, bool]] = []

    def walk(n, prefix):
        if isinstance(n, yaml.MappingNode):
            seen: dict[str, Any] = {}
            for k, v in n.value:
                name = str(k.value) if isinstance(k, yaml.ScalarNode) else None
                path = f"{prefix}{name}" if name is not None else None
                if name is not None and name in seen:
                    prev = seen[name]
                    same = (isinstance(prev, yaml.ScalarNode) and isinstance(v, yaml.ScalarNode)
                            and prev.value == v.value and prev.tag == v.tag)
                    out.append((path, same))
                if name is not None:
                    seen[name] = v
                walk(v, f"{path}." if path else prefix)
        elif isinstance(n, yaml.SequenceNode):
            for item in n.value:
                walk(item, prefix)

    walk(node, "")
    return out


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


def _loads_json(text: str) -> tuple[Any, list[tuple[str, bool]]]:
    dups: list[tuple[str, bool]] = []
    data = json.loads(text, object_pairs_hook=_PairsDict)
    return _plain_json(data, "", dups), dups


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
    if not path.exists():
        raise ConfigFileError(f"{path}: no such file")
    if path.is_dir():
        raise ConfigFileError(f"{path} is a folder, not a config file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigFileError(f"{path}: cannot be read ({e.__class__.__name__}: {e})") from None
    if path.suffix == ".json":  # accelerate picks the parser from the file name
        try:
            data, dups = _loads_json(text)
        except ValueError as e:
            raise ConfigFileError(f"{path}: not valid JSON ({e})") from None
    else:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            problem = getattr(e, "problem", None) or str(e).splitlines()[0]
            raise ConfigFileError(f"{path}: not valid YAML{where}: {problem}") from None
        dups = _yaml_duplicates(text)
    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        raise ConfigFileError(f"{path}: an accelerate config must be a mapping of keys to values, this file is {kind}")
    return data, dups


# ----------------------------------------------------------------------------------------------------------------
# the DeepSpeed JSON
# ----------------------------------------------------------------------------------------------------------------
def _ds_error(name: str, message: str, fix: str, source: str = _HF_DEEPSPEED) -> Finding:
    return Finding(ERROR, name, (DS_FILE_KEY,), message, fix, source)


def _resolve_ds_path(value: str, yaml_dir: Path) -> Path | None:
    p = Path(value)
    candidates = [p] if p.is_absolute() else [yaml_dir / p, Path.cwd() / p]
    for c in candidates:
        if c.is_file():
            return c
    return None


def _decode_inline(value: str) -> Any:
    """accelerate also accepts JSON text or base64-encoded JSON in place of a path."""
    import base64
    import binascii

    try:
        return json.loads(value)
    except ValueError:
        pass
    try:
        return json.loads(base64.urlsafe_b64decode(value).decode("utf-8"))
    except (ValueError, binascii.Error, UnicodeDecodeError, TypeError):
        return None


def _load_ds(value: Any, yaml_dir: Path, loaded: LoadedConfig) -> None:
    text_value = str(value)
    if text_value == "":
        loaded.findings.append(_ds_error(
            DS_MISSING, "`deepspeed_config.deepspeed_config_file` is empty; accelerate then fails "
            "to read a DeepSpeed config.", "Give the path of the DeepSpeed JSON, or delete the key to use the "
            "inline settings.", "D2; " + _HF_DEEPSPEED))
        return
    if text_value.startswith("~"):
        loaded.findings.append(_ds_error(
            DS_TILDE, f"`deepspeed_config.deepspeed_config_file: {text_value}` starts with '~', "
            "which accelerate does not expand (it checks the path as written), so the file is not found.",
            "Write the full path (or a path relative to the folder you launch from).", "D2; " + _HF_DEEPSPEED))
        text_value = os.path.expanduser(text_value)
    found = _resolve_ds_path(text_value, yaml_dir)
    if found is None:
        inline = _decode_inline(text_value)
        if isinstance(inline, dict):
            loaded.ds = inline
            return
        loaded.findings.append(_ds_error(
            DS_MISSING, f"The DeepSpeed config `{text_value}` named by "
            "`deepspeed_config.deepspeed_config_file` was not found (looked next to the YAML and in the current "
            "folder); accelerate raises 'Expected a string path to an existing deepspeed config'.",
            "Fix the path. A relative path is resolved from the folder `accelerate launch` runs in.",
            "D2; " + _HF_DEEPSPEED))
        return
    loaded.ds_path = found
    try:
        text = found.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        loaded.findings.append(_ds_error(DS_UNREADABLE, f"{found} cannot be read: {e}",
                                         "Check the file's permissions and encoding."))
        return
    try:
        data, dups = _loads_json(text)
    except ValueError as e:
        loaded.findings.append(_ds_error(
            DS_BAD_JSON, f"{found} is not valid JSON ({e}). accelerate reads it with "
            "json.load, so comments and trailing commas are not allowed even though DeepSpeed itself would "
            "accept them.", "Fix the JSON syntax (no comments, no trailing commas, double quotes).",
            "D2; " + _HF_DEEPSPEED))
        return
    if not isinstance(data, dict):
        loaded.findings.append(_ds_error(
            DS_BAD_JSON, f"{found} holds a JSON {type(data).__name__}, not an object.",
            "The DeepSpeed config must be a JSON object: {\"zero_optimization\": {...}, ...}."))
        return
    loaded.ds = data
    loaded.findings.extend(_dup_findings(dups, str(found)))


def load_config_files(yaml_path: str | Path) -> LoadedConfig:
    """Read the accelerate config and the DeepSpeed JSON it names. Raises only ``ConfigFileError``."""
    path = Path(yaml_path)
    data, dups = _read_accelerate_config(path)
    loaded = LoadedConfig(yaml_path=path, yaml=data)
    loaded.findings.extend(_dup_findings(dups, str(path)))
    value = _named_ds_value(data)
    if value is not None:
        _load_ds(value, path.resolve().parent, loaded)
    return loaded
