"""YAML text the wizard writes: ``yaml.safe_dump``'s bytes, made by libyaml's emitter where it makes the same ones.

PyYAML's emitter is pure Python (about 20 microseconds a value: 5 ms for an answers.yaml, the largest part of
`--headless` after its imports, issue 26); its C twin ``CSafeDumper`` (libyaml, which PyYAML ships) is several
times faster, and the representer before it, which decides how each value is spelled, is the same Python code in
both. The two emitters lay out the same events the same way, except where libyaml folds or escapes differently:
double-quoted text (a character outside printable ASCII: control characters, non-ASCII letters, line breaks, which
force quoting and escapes) and the limit past which a key becomes a ``? `` complex key (PyYAML counts its quoted
length). So the C emitter writes only data whose every text is printable ASCII, each key at most
:data:`MAX_KEY` characters; anything else, or a PyYAML built without libyaml, goes through ``yaml.safe_dump``.
tests/unit/test_yaml_dump.py holds the two to the same bytes on the presets and on random data of that shape.
"""
from __future__ import annotations

MAX_KEY = 100
"""Keys up to this length are simple keys in both emitters (PyYAML turns one into a ``? `` key past 128 characters
counted its own way)."""

_SCALARS = (bool, int, float, type(None))


def _c_emitter_writes_the_same(data: object) -> bool:
    """Whether every text in ``data`` (keys and values, at any depth) is printable ASCII and every key short, and it
    holds nothing but mappings, lists, texts, numbers, booleans and None."""
    stack, seen = [data], set()
    while stack:
        obj = stack.pop()
        if isinstance(obj, str):
            if not (obj.isascii() and obj.isprintable()):
                return False
            continue
        if isinstance(obj, (dict, list)):
            if id(obj) in seen:  # shared (the emitters write an alias) or a cycle
                continue
            seen.add(id(obj))
        if isinstance(obj, dict):
            for key, value in obj.items():
                if not isinstance(key, str) or len(key) > MAX_KEY or not (key.isascii() and key.isprintable()):
                    return False
                stack.append(value)
        elif isinstance(obj, list):
            stack.extend(obj)
        elif not isinstance(obj, _SCALARS):
            return False
    return True


def safe_dump(data: object, **options: object) -> str:
    """``yaml.safe_dump(data, **options)``, the same text (see the module's note)."""
    import yaml

    dumper = getattr(yaml, "CSafeDumper", None)
    if dumper is not None and _c_emitter_writes_the_same(data):
        return yaml.dump(data, Dumper=dumper, **options)  # type: ignore[call-overload]
    return yaml.safe_dump(data, **options)  # type: ignore[call-overload]
