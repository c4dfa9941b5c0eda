"""The worst case of reading an input file near the size bound (issue 22, item 16).

Every answers file and config the wizard reads is at most ``wizard.core.inputs.MAX_YAML_BYTES`` long as YAML and
``MAX_JSON_BYTES`` as JSON. This script builds
files of the shapes that cost the YAML and JSON readers the most per byte (a flow list of one-character items, a
block list, a mapping of short keys, nested flow lists, aliases, long text; the same as JSON) at a given size, and
reads each through the real entry points: ``load_answers_file`` (answers) and ``load_config_files`` (``check``'s reader,
which also looks for duplicate keys). It reports the CPU time (the process's own, so other jobs on the machine do
not count) and the peak of Python's allocations (tracemalloc, in a second pass, since it slows the reading down).

Goal: the worst shape within the bounds reads in under a second (a larger file is refused before it is parsed).

    .venv/bin/python benchmarks/input_bound.py [--size BYTES ...] [--repeats 3] [--json PATH]
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from wizard.core import inputs  # noqa: E402
from wizard.core.answers.model import load_answers_file  # noqa: E402
from wizard.core.lint.configfile import load_config_files  # noqa: E402


def _fill(head: str, item: str, sep: str, tail: str, size: int) -> str:
    n = max(1, (size - len(head) - len(tail)) // (len(item) + len(sep)))
    return head + sep.join([item] * n) + tail


def shapes(size: int) -> dict[str, tuple[str, str]]:
    """name -> (file suffix, text of about ``size`` bytes)."""
    keys = "".join(f"k{i}: 1\n" for i in range(size // 8))[:size]
    return {
        "yaml-flow-list": (".yaml", _fill("launch:\n  hosts: [", "a", ",", "]\n", size)),
        "yaml-block-list": (".yaml", _fill("launch:\n  hosts:\n", "  - a", "\n", "\n", size)),
        "yaml-many-keys": (".yaml", "backend: fsdp\n" + keys[: max(0, size - 14)].rsplit("\n", 1)[0] + "\n"),
        "yaml-nested-flow": (".yaml", _fill("launch:\n  hosts: [", "[[[[[[[[a]]]]]]]]", ",", "]\n", size)),
        "yaml-flow-maps": (".yaml", _fill("launch:\n  hosts: [", "{a: b}", ",", "]\n", size)),
        "yaml-aliases": (".yaml", _fill("x: &a [a, a, a, a, a, a, a, a, a, a]\nlaunch:\n  hosts: [", "*a", ",", "]\n",
                                        size)),
        "yaml-long-text": (".yaml", "launch:\n  script: '" + "a" * (size - 30) + "'\n"),
        "json-list": (".json", _fill('{"launch": {"hosts": [', "1", ",", "]}}", size)),
        "json-keys": (".json", "{" + ",".join(f'"k{i}":1' for i in range(size // 10)) + "}"),
    }


READERS = {"answers": lambda p: load_answers_file(p), "config": lambda p: load_config_files(p)}


def _read(reader, path: Path) -> str:
    try:
        reader(path)
        return "read"
    except inputs.InputError as exc:
        return f"refused ({exc.problem})"


def measure(size: int, repeats: int, progress=None) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (suffix, text) in shapes(size).items():
            path = Path(tmp) / f"{name}{suffix}"
            path.write_text(text, encoding="utf-8")
            for rname, reader in READERS.items():
                times, outcome = [], ""
                for _ in range(repeats):
                    t0 = time.process_time()
                    outcome = _read(reader, path)
                    times.append(time.process_time() - t0)
                tracemalloc.start()
                _read(reader, path)
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
                row = {"size": len(text.encode()), "shape": name, "reader": rname, "outcome": outcome,
                             "cpu_s": round(statistics.median(times), 4), "peak_mb": round(peak / 2**20, 1)}
                rows.append(row)
                if progress:
                    progress(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, action="append",
                    help="file size in bytes (default: MAX_YAML_BYTES and MAX_JSON_BYTES)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    sizes = args.size or [inputs.MAX_YAML_BYTES, inputs.MAX_JSON_BYTES]
    print(f"MAX_YAML_BYTES = {inputs.MAX_YAML_BYTES}, MAX_JSON_BYTES = {inputs.MAX_JSON_BYTES}; "
          f"python {platform.python_version()}")
    print(f"{'size':>9} {'shape':<18} {'reader':<8} {'cpu s':>7} {'peak MB':>8}  outcome", flush=True)

    def show(r: dict) -> None:
        print(f"{r['size']:>9} {r['shape']:<18} {r['reader']:<8} {r['cpu_s']:>7.3f} {r['peak_mb']:>8.1f}  "
              f"{r['outcome']}", flush=True)

    rows = []
    for size in sizes:
        rows += measure(size, args.repeats, show)
    worst = max(rows, key=lambda r: r["cpu_s"])
    print(f"worst: {worst['shape']} ({worst['reader']}) {worst['cpu_s']:.3f} s CPU, "
          f"{max(r['peak_mb'] for r in rows):.1f} MB peak")
    if args.json:
        args.json.write_text(json.dumps({"max_yaml_bytes": inputs.MAX_YAML_BYTES,
                                         "max_json_bytes": inputs.MAX_JSON_BYTES, "python": platform.python_version(),
                                         "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
