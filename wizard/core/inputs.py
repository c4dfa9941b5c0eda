"""Reading YAML and JSON input within bounds, and the one voice for input that cannot be used at all.

Every file the wizard reads (an answers.yaml, an accelerate config, the DeepSpeed JSON it names, JSON text or
base64 JSON inline in the YAML, the TUI's ``--answers``/``--config`` and open dialogs) goes through here:

* a regular file (a FIFO, a device or a socket is refused before anything is read from it);
* at most :data:`MAX_YAML_BYTES` bytes of YAML or :data:`MAX_JSON_BYTES` of JSON (:data:`MAX_BYTES` is the larger),
  UTF-8 text (the first bad byte is named) without NUL bytes; the bounds keep the slowest shape of each under a
  second (benchmarks/input_bound.py);
* at most :data:`MAX_DEPTH` levels of nesting, checked while composing (YAML: the composer's own recursion
  is counted and stopped before Python's recursion limit; JSON: a scan of the brackets outside strings
  before ``json.loads``), with the line of the first level too deep;
* YAML aliases may not expand to more than :data:`MAX_ALIAS_VALUES` values ("billion laughs");
* no control characters in a text value or key (a ``"\\0"`` escape in YAML, ``"\\u0000"`` in JSON), tab and
  newline aside: the error names the key.

A file that cannot be used raises :class:`InputError` (``path``, ``what``, ``fix``); ``str()`` of it is the one
line every entry point prints: ``PATH: WHAT; FIX``. ``check`` shows it as a finding (message ``PATH: WHAT``,
fix ``FIX``). Nothing here imports yaml until it is needed.
"""
from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:  # annotations only: keeps the CLI's start-up light
    from collections.abc import Callable
    from typing import Any, Literal, overload
else:  # typing.overload at run time only lets the last definition stand (ruff then sees redefinitions: F811)
    def overload(function):
        return function

MAX_YAML_BYTES = 16 * 1024
"""YAML is read by PyYAML's pure-Python SafeLoader (the one accelerate uses): the slowest shapes (nested flow lists)
cost up to 40 microseconds a byte on a busy machine, so 16 KiB keeps the worst case near half a second (24 KiB
took 0.9 s CPU on a busy 2-core machine); a real config or answers file is 1-5 KB."""
MAX_JSON_BYTES = 256 * 1024
"""JSON goes through the C reader, but the depth scan and the duplicate-key hook are Python: 1 MiB of `[1,1,...]`
took 1.1 s and 84 MB, 256 KiB a quarter of that; a DeepSpeed JSON is a few KB."""
MAX_BYTES = max(MAX_YAML_BYTES, MAX_JSON_BYTES)
MAX_DEPTH = 64
MAX_ALIAS_VALUES = 100_000

ANSWERS = "answers"
ACCELERATE = "accelerate"
DEEPSPEED = "deepspeed"
TRAINING_ARGS = "training-arguments"

_PRESET_HINT = ("`fsdpds-wizard presets` lists the presets and `fsdpds-wizard --headless PRESET_NAME --out DIR` "
                "writes one as answers.yaml to start from")
_NOT_A_MAPPING_FIX = {
    ANSWERS: "an answers file maps keys to values (backend: fsdp, launch: ...); " + _PRESET_HINT,
    ACCELERATE: "an accelerate config maps keys to values (distributed_type: FSDP, fsdp_config: ...); "
                "`accelerate config` writes one, and so does `fsdpds-wizard --headless PRESET_NAME --out DIR`",
    DEEPSPEED: 'a DeepSpeed config is a JSON object: {"zero_optimization": {...}, ...}',
    TRAINING_ARGS: "TrainingArguments are given as a mapping of their fields (per_device_train_batch_size: 2, "
                   "bf16: true, ...), in YAML or JSON",
}
_NOT_FOUND_FIX = {
    ANSWERS: "check the path, or give a preset name (`fsdpds-wizard presets` lists them)",
    ACCELERATE: "check the path; `accelerate config` writes one "
                "(by default ~/.cache/huggingface/accelerate/default_config.yaml)",
    DEEPSPEED: "check the path of the DeepSpeed JSON",
    TRAINING_ARGS: "check the path of the TrainingArguments file (YAML or JSON)",
}
_FILE_WORD = {ANSWERS: "answers YAML", ACCELERATE: "accelerate config YAML", DEEPSPEED: "DeepSpeed JSON",
              TRAINING_ARGS: "TrainingArguments file"}
_SELF_CHECK = "a config is at most a few levels deep and a few kilobytes long — is this the right file?"


class InputError(Exception):
    """A file that cannot be used at all: not found, not text, too big or too deep, not YAML/JSON, not a mapping.

    ``problem`` is a stable code (``not-found``, ``folder``, ``not-a-file``, ``unreadable``, ``too-large``,
    ``not-utf8``, ``binary``, ``not-text``, ``control-character``, ``not-yaml``, ``not-json``, ``too-deep``,
    ``aliases``, ``not-a-mapping``, ``empty``).
    """

    def __init__(self, path: str | Path, what: str, fix: str, problem: str, line: int | None = None):
        self.path, self.what, self.fix, self.problem, self.line = str(path), what, fix, problem, line
        super().__init__(f"{self.path}: {what}; {fix}")

    @property
    def message(self) -> str:
        """``PATH: WHAT`` (the finding's message in ``check``)."""
        return f"{self.path}: {self.what}"

    def finding(self, rule: str, key: str, source: str = ""):
        from .findings import ERROR, Finding

        return Finding(ERROR, rule, (key,), self.message, self.fix, source)


# ----------------------------------------------------------------------------------------------------------------
# the messages
# ----------------------------------------------------------------------------------------------------------------
def not_found(path: str | Path, kind: str, fix: str | None = None) -> InputError:
    return InputError(path, "not found", fix or _NOT_FOUND_FIX[kind], "not-found")


TOP_LEVEL = {
    "true_or_false": "a true/false value ({value})",
    "number": "a number ({value})",
    "text": "a text value ({value})",
}
"""What a parsed top level that is no mapping is (:func:`describe`), in the words the error shows, the value in
parentheses as written: stated here once and translated in the part ``screen-values`` (keys ``top_level.*``; ``a
list`` is the same words as DeepSpeed's ``a_list`` there, ``null`` is a value and stays)."""


def describe(data: Any) -> str:
    """What a parsed top level is, in words: ``a list``, ``a text value ('hello')``, ``a number (3)``."""
    if isinstance(data, list):
        return "a list"
    if data is None:
        return "null"
    if isinstance(data, bool):
        return TOP_LEVEL["true_or_false"].format(value=str(data).lower())
    if isinstance(data, (int, float)):
        return TOP_LEVEL["number"].format(value=repr(data))
    if isinstance(data, str):
        shown = data if len(data) <= 30 else data[:27] + "..."
        return TOP_LEVEL["text"].format(value=repr(shown))
    return f"a {type(data).__name__}"


def not_a_mapping(path: str | Path, data: Any, kind: str) -> InputError:
    return InputError(path, f"the top level is {describe(data)}, not a mapping of keys", _NOT_A_MAPPING_FIX[kind],
                      "not-a-mapping")


def empty(path: str | Path, kind: str) -> InputError:
    return InputError(path, "the file is empty (no keys)", _NOT_A_MAPPING_FIX[kind], "empty")


def _too_deep(path, line: int | None) -> InputError:
    where = f" (line {line})" if line else ""
    return InputError(path, f"nested more than {MAX_DEPTH} levels deep{where}", _SELF_CHECK, "too-deep", line)


# ----------------------------------------------------------------------------------------------------------------
# bytes -> text
# ----------------------------------------------------------------------------------------------------------------
def _size_text(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MiB" if limit % (1024 * 1024) == 0 else f"{limit // 1024} KiB"


_KINDS_OF_FILE = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
                  (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def open_regular(path: str | Path, what: str) -> int:
    """An open descriptor on ``path`` when it is a regular file (symlinks followed); else :class:`InputError`
    (``folder`` or ``not-a-file``) before a byte is read. Opened without blocking, so a FIFO with no writer
    cannot hang the open; ``what`` names the file in the fix ("answers YAML", "training script").
    OSError (not found, no permission) passes through."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(path, "a folder, not a file", f"give the path of the {what} itself", "folder")
        if not stat.S_ISREG(mode):
            kind = next((word for test, word in _KINDS_OF_FILE if test(mode)), "not a regular file")
            raise InputError(path, f"{kind}, not a regular file (it is not read)",
                             f"save the {what} as a file and give its path", "not-a-file")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bounded(path: str | Path, limit: int, what: str) -> bytes:
    """At most ``limit + 1`` bytes of the regular file ``path`` (the caller refuses more than ``limit``)."""
    fd = open_regular(path, what)
    with os.fdopen(fd, "rb") as fh:
        return fh.read(limit + 1)


def read_text(path: str | Path, kind: str, not_found_fix: str | None = None, *, as_json: bool | None = None) -> str:
    """The file's text: a regular file, at most MAX_YAML_BYTES (MAX_JSON_BYTES for JSON: the DeepSpeed JSON or a
    ``.json`` name unless ``as_json`` says), UTF-8 (a leading BOM is dropped), no NUL bytes."""
    if as_json is None:
        as_json = kind == DEEPSPEED or is_json_name(path)
    limit = MAX_JSON_BYTES if as_json else MAX_YAML_BYTES
    try:
        data = read_bounded(path, limit, _FILE_WORD[kind])
    except FileNotFoundError:
        raise not_found(path, kind, not_found_fix) from None
    except IsADirectoryError:  # pragma: no cover - open_regular answers first
        raise InputError(path, "a folder, not a file", f"give the path of the {_FILE_WORD[kind]} itself",
                         "folder") from None
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise InputError(path, f"cannot be read ({reason})",
                         "check that the file exists and that you may read it", "unreadable") from None
    return decode(data, path, limit)


def too_large(path: str | Path, limit: int) -> InputError:
    return InputError(path, f"larger than {_size_text(limit)}", _SELF_CHECK, "too-large")


def decode(data: bytes, path: str | Path, limit: int = MAX_BYTES) -> str:
    if len(data) > limit:
        raise too_large(path, limit)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text (byte {exc.start} is 0x{data[exc.start]:02x})",
                         "is this a binary file? Give the text file, saved as UTF-8", "not-utf8") from None
    nul = text.find("\x00")
    if nul >= 0:
        raise InputError(path, f"not text (byte {len(text[:nul].encode('utf-8'))} is 0x00)",
                         "is this a binary file? Give the text file, saved as UTF-8", "binary")
    return text.removeprefix("\ufeff")


# ----------------------------------------------------------------------------------------------------------------
# YAML
# ----------------------------------------------------------------------------------------------------------------
class _Refused(Exception):
    def __init__(self, problem: str, line: int | None):
        self.problem, self.line = problem, line


_LOADER: type | None = None


def _loader_class() -> type:
    """``yaml.SafeLoader`` (what accelerate uses) with a depth count and an alias budget in its composer."""
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml

    class BoundedLoader(yaml.SafeLoader):
        def __init__(self, stream):
            super().__init__(stream)
            self._depth = 0
            self._sizes: dict[int, int] = {}  # id(node) -> values it stands for, aliases expanded
            self._aliased = 0
            self._open: list = []  # anchors of the collections being composed (an alias to one is a cycle)

        def compose_node(self, parent, index):
            event = self.peek_event()
            line = event.start_mark.line + 1 if event.start_mark is not None else None
            if isinstance(event, yaml.AliasEvent):
                if event.anchor in self._open:
                    raise _Refused("recursive", line)
                node = super().compose_node(parent, index)
                self._aliased += self._sizes.get(id(node), 1)
                if self._aliased > MAX_ALIAS_VALUES:
                    raise _Refused("aliases", line)
                return node
            collection = isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent))
            if collection:
                self._depth += 1
                if self._depth > MAX_DEPTH:
                    raise _Refused("too-deep", line)
                self._open.append(event.anchor)
            try:
                node = super().compose_node(parent, index)
            finally:
                if collection:
                    self._depth -= 1
                    self._open.pop()
            if isinstance(node, yaml.MappingNode):
                size = 1 + sum(self._sizes.get(id(k), 1) + self._sizes.get(id(v), 1) for k, v in node.value)
            elif isinstance(node, yaml.SequenceNode):
                size = 1 + sum(self._sizes.get(id(v), 1) for v in node.value)
            else:
                size = 1
            self._sizes[id(node)] = size
            return node

    _LOADER = BoundedLoader
    return _LOADER


def _yaml_problem(exc) -> tuple[str, int | None]:
    mark = getattr(exc, "problem_mark", None)
    line = mark.line + 1 if mark is not None else None
    where = f" (line {line}, column {mark.column + 1})" if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    if problem == "second occurrence" and context:  # the composer's duplicate anchor
        problem = context.split(";")[0]
    return f"not valid YAML{where}: {problem}", line


_SURROGATE = "[\ud800-\udfff]"
_CONTROL = "[\x00-\x08\x0b-\x1f\x7f-\x9f]"
"""Control characters (C0, DEL, C1) but tab and newline: none belongs in a config value, and a NUL or a carriage
return reaching a hostfile, a command line or a batch script changes what it says."""


def _key_path(parts: tuple) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int) and not isinstance(part, bool):
            out += f"[{part}]"
        else:
            text = str(part)
            if not text.isprintable() or re.search(_SURROGATE, text):
                text = ascii(text)  # a key holding the bad character is shown escaped, so the message can be printed
            out += ("." if out else "") + text
    return out or "(top level)"


def _check_strings(data: Any, path: str | Path) -> None:
    """Refuse strings that cannot be written out again (a lone UTF-16 surrogate from a ``\\ud800`` escape) and
    control characters (from a ``"\\0"`` or ``"\\u0000"`` escape), naming the key.

    Iterative (no recursion); each shared (aliased) object is visited once."""
    stack: list[tuple[Any, tuple]] = [(data, ())]
    seen: set[int] = set()
    while stack:
        obj, where = stack.pop()
        if isinstance(obj, str):
            if obj.isascii() and obj.isprintable():  # the common case: neither pattern can match
                continue
            m = re.search(_SURROGATE, obj)  # compiled on first use (re's cache), not at start (issue 26)
            if m:
                raise InputError(path, f"the text of {_key_path(where)} holds half of a UTF-16 pair (an escape like "
                                 f"\\u{ord(m.group()):04x}), which is not a character",
                                 "write the character itself (the file is UTF-8) or its full pair of escapes "
                                 "in JSON", "not-text")
            m = re.search(_CONTROL, obj)
            if m:
                raise InputError(path, f"the text of {_key_path(where)} holds the control character "
                                 f"0x{ord(m.group()):02x} (from an escape such as \"\\0\"), which no setting "
                                 "takes", f"remove it from {_key_path(where)}", "control-character")
        elif isinstance(obj, (dict, list, tuple, set)):
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if isinstance(obj, dict):
                for k, v in obj.items():
                    stack.append((k, (*where, f"key {ascii(k)}" if isinstance(k, str) else k)))
                    stack.append((v, (*where, k)))
            else:
                stack.extend((v, (*where, i)) for i, v in enumerate(obj))


def _value_problem(exc: ValueError) -> str:
    """What a parser's ValueError means (a ``said(...)`` sentence: translated inside the error's own, where shown)."""
    from .i18n import said

    text = str(exc)
    if "integer string conversion" in text:
        import sys

        return said(f"a number has more than {sys.get_int_max_str_digits()} digits")
    return said(f"a value cannot be read ({text})")


# ----------------------------------------------------------------------------------------------------------------
# duplicate keys (both YAML and JSON readers silently keep the last value)
# ----------------------------------------------------------------------------------------------------------------
def yaml_duplicates(node) -> list[tuple[str, bool]]:
    """(dotted key, same value?) for every repeated key in a composed YAML mapping (depth and aliases bounded
    by the loader)."""
    import yaml

    out: list[tuple[str, bool]] = []

    def walk(n, prefix):
        if isinstance(n, yaml.MappingNode):
            seen: dict[str, Any] = {}
            for k, v in n.value:
                if not isinstance(k, yaml.ScalarNode):  # a complex key: no dotted name for it or below it
                    walk(v, prefix)
                    continue
                name = str(k.value)
                path = f"{prefix}{name}"
                if name in seen:
                    prev = seen[name]
                    same = (isinstance(prev, yaml.ScalarNode) and isinstance(v, yaml.ScalarNode)
                            and prev.value == v.value and prev.tag == v.tag)
                    out.append((path, same))
                seen[name] = v
                walk(v, f"{path}." if path else prefix)
        elif isinstance(n, yaml.SequenceNode):
            for item in n.value:
                walk(item, prefix)

    walk(node, "")
    return out


def parse_yaml(text: str, path: str | Path, on_node: Callable[[Any], None] | None = None) -> Any:
    """``yaml.safe_load`` within the bounds. ``on_node`` sees the composed node before it is constructed
    (construction flattens merge keys in place), e.g. to find duplicate keys."""
    import yaml

    if len(text) > MAX_YAML_BYTES and len(text.encode("utf-8")) > MAX_YAML_BYTES:
        raise too_large(path, MAX_YAML_BYTES)
    loader = None
    try:
        loader = _loader_class()(text)  # the reader refuses control characters here already
        node = loader.get_single_node()
        if node is not None and on_node is not None:
            on_node(node)
        data = loader.construct_document(node) if node is not None else None
    except _Refused as exc:
        if exc.problem == "too-deep":
            raise _too_deep(path, exc.line) from None
        where = f" (line {exc.line})" if exc.line else ""
        if exc.problem == "recursive":
            raise InputError(path, f"a YAML alias (*name) refers to the value that contains it{where}, so the "
                             "value would never end", "write the values out instead of the alias", "aliases",
                             exc.line) from None
        raise InputError(path, f"YAML aliases (*name) expand to more than {MAX_ALIAS_VALUES:,} values{where}",
                         "write the values out instead of repeating anchors (&name / *name); "
                         "a config needs a few dozen values", "aliases", exc.line) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        code = ord(exc.character) if isinstance(exc.character, str) else int(exc.character)
        raise InputError(path, f"not text (line {line}: character 0x{code:02x} is a control character, "
                         "which YAML does not allow)", "is this a binary file? Give the text file, saved as UTF-8",
                         "binary", line) from None
    except yaml.YAMLError as exc:
        what, where_line = _yaml_problem(exc)
        raise InputError(path, what, "fix the YAML syntax (indentation, colons, quotes)", "not-yaml",
                         where_line) from None
    except ValueError as exc:  # e.g. an integer longer than Python's 4300-digit limit
        raise InputError(path, f"not valid YAML: {_value_problem(exc)}", "fix or remove that value",
                         "not-yaml") from None
    finally:
        if loader is not None:
            loader.dispose()
    _check_strings(data, path)
    return data


# ----------------------------------------------------------------------------------------------------------------
# JSON
# ----------------------------------------------------------------------------------------------------------------
_JSON_TOKENS = r'"(?:[^"\\]|\\.)*"|[\[\]{}]'


def check_json_depth(text: str, path: str | Path) -> None:
    """Refuse JSON nested deeper than MAX_DEPTH, without recursion (brackets inside strings do not count)."""
    depth = 0
    for m in re.finditer(_JSON_TOKENS, text, re.S):
        ch = m.group()
        if ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise _too_deep(path, text.count("\n", 0, m.start()) + 1)
        elif ch in "]}":
            depth -= 1


def parse_json(text: str, path: str | Path, object_pairs_hook: Callable | None = None) -> Any:
    if len(text) > MAX_JSON_BYTES and len(text.encode("utf-8")) > MAX_JSON_BYTES:
        raise too_large(path, MAX_JSON_BYTES)
    check_json_depth(text, path)
    try:
        data = json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}",
                         "fix the JSON syntax (double quotes, no comments, no trailing commas)", "not-json",
                         exc.lineno) from None
    except ValueError as exc:  # e.g. an integer longer than Python's 4300-digit limit
        raise InputError(path, f"not valid JSON: {_value_problem(exc)}", "fix or remove that value",
                         "not-json") from None
    _check_strings(data, path)
    return data


# ----------------------------------------------------------------------------------------------------------------
# files
# ----------------------------------------------------------------------------------------------------------------
def is_json_name(path: str | Path) -> bool:
    """accelerate picks the parser from the file name: ``.json`` is JSON, anything else YAML."""
    return Path(path).suffix == ".json"


def mapping_from_text(text: str, path: str | Path, kind: str, *, as_json: bool,
                      json_hook: Callable | None = None, on_node: Callable[[Any], None] | None = None,
                      allow_empty: bool = False) -> dict | None:
    """Parse a YAML or JSON mapping within the bounds. None only for an empty file with ``allow_empty``."""
    if as_json:
        if not text.strip():
            data = None
        else:
            data = parse_json(text, path, json_hook)
            if data is None:
                raise not_a_mapping(path, data, kind)
    else:
        data = parse_yaml(text, path, on_node)
    if data is None:
        if allow_empty:
            return None
        raise empty(path, kind)
    if not isinstance(data, dict):
        raise not_a_mapping(path, data, kind)
    return data


@overload
def load_mapping_file(path: str | Path, kind: str, *, json_hook: Callable | None = None,
                      on_node: Callable[[Any], None] | None = None, allow_empty: Literal[False] = False,
                      not_found_fix: str | None = None) -> dict: ...
@overload
def load_mapping_file(path: str | Path, kind: str, *, json_hook: Callable | None = None,  # noqa: F811
                      on_node: Callable[[Any], None] | None = None, allow_empty: bool,
                      not_found_fix: str | None = None) -> dict | None: ...
def load_mapping_file(path: str | Path, kind: str, *, json_hook: Callable | None = None,  # noqa: F811
                      on_node: Callable[[Any], None] | None = None, allow_empty: bool = False,
                      not_found_fix: str | None = None) -> dict | None:
    """Read a YAML (JSON for a ``.json`` name, and always for the DeepSpeed JSON) mapping within the bounds."""
    as_json = kind == DEEPSPEED or is_json_name(path)
    text = read_text(path, kind, not_found_fix, as_json=as_json)
    return mapping_from_text(text, path, kind, as_json=as_json,
                             json_hook=json_hook, on_node=on_node, allow_empty=allow_empty)
