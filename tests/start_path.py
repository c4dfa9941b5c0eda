"""The modules each hot command imports: the lists tests/unit/test_start_path.py holds the start path to.

`check CONFIG`, `--headless PRESET --out DIR` and `explain GROUP` are what users put in scripts, CI and pre-commit
hooks (issue 26: each within 2x of a bare `python -c "import yaml"`). Each runs in a fresh interpreter, through
`wizard.cli.main` as the installed entry point calls it; what it imported beyond what the interpreter had at start
is listed here: every module of the wizard, and the top-level names of the standard library and of third-party
packages.

These lists only shrink. A module that is new on a start path fails the test: import it inside the function that
needs it, or, when the command really needs it at start, add it here on purpose (and say why in the commit). A
module listed here that the command no longer imports fails too: take it out, so that it cannot come back
unnoticed. `PYTHONPATH=. python tests/start_path.py` prints what each command imports now, in this file's form.

The standard library's names depend on the Python release (3.12 and 3.13 split and merge modules), so they are
checked on the release they were recorded with (STDLIB_PYTHON) only; the wizard's and third-party names on every
release. `check` counts this machine's GPUs: from /proc/driver/nvidia where the driver is loaded, else by asking
nvidia-smi, which a machine that has it but no /proc/driver/nvidia answers with `subprocess` on the path; and the
installed library versions from their .dist-info folders, where an .egg-info install brings importlib.metadata.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKED_CONFIG = ROOT / "tests" / "golden" / "zero3-cpu-offload" / "accelerate_config.yaml"
STDLIB_PYTHON = (3, 11)

COMMANDS = {
    "check": ["check", str(CHECKED_CONFIG)],
    "headless": ["--headless", "zero3-cpu-offload", "--out", "{out}"],
    "explain": ["explain", "offload"],
}
"""The command lines measured; ``{out}`` is a fresh folder."""

EXPECTED = {
    "check": {
        "wizard": {
            # issue 27: the findings name their rule in the locale's language (wizard.core.i18n: stdlib os only)
            "wizard.core.i18n",
            # issue 27: the command's own lines (summary, "wrote ...") in that language (a dict and a lookup)
            "wizard.core.i18n.lines",
            # issue 26: the parser in its own module (a plain --headless and the wizard's screen start without it), the
            # words the entry and the parser share in theirs
            "wizard.cli_parser", "wizard.cli_words",
            "wizard", "wizard.cli", "wizard.commands", "wizard.commands.check", "wizard.commands.common",
            "wizard.core", "wizard.core.context", "wizard.core.ds_schema", "wizard.core.exits",
            "wizard.core.findings", "wizard.core.gpus", "wizard.core.hosts", "wizard.core.inputs",
            "wizard.core.library", "wizard.core.library.accelerate_versions", "wizard.core.library.auto",
            "wizard.core.library.deepspeed", "wizard.core.library.fsdp", "wizard.core.library.launcher",
            "wizard.core.library.transformers_tp", "wizard.core.lint", "wizard.core.lint.base",
            "wizard.core.lint.checked", "wizard.core.lint.configfile", "wizard.core.lint.ds",
            "wizard.core.lint.dsjson", "wizard.core.lint.dszero", "wizard.core.lint.fsdp", "wizard.core.lint.general",
            "wizard.core.lint.keys", "wizard.core.lint.launch", "wizard.core.lint.linter", "wizard.core.presets",
            "wizard.core.recordclass", "wizard.core.rules", "wizard.core.training_kinds", "wizard.core.versions",
            "wizard.core.vocab", "wizard.core.wizard_rules",
        },
        "stdlib": {
            "__future__", "_collections", "_contextvars", "_datetime", "_functools", "_json", "_locale", "_operator",
            "_sre", "_struct", "argparse", "base64", "binascii", "collections", "contextlib", "contextvars",
            "copyreg", "datetime", "enum", "errno", "fnmatch", "functools", "gc", "gettext", "importlib", "ipaddress",
            "itertools", "json", "keyword", "locale", "math", "ntpath", "operator", "pathlib", "re", "reprlib",
            "struct", "types", "urllib", "warnings",
        },
        "third_party": {
            "yaml",
        },
    },
    "headless": {
        "wizard": {
            # issue 27: the findings name their rule in the locale's language (wizard.core.i18n: stdlib os only)
            "wizard.core.i18n",
            # issue 27: the command's own lines (summary, "wrote ...") in that language (a dict and a lookup)
            "wizard.core.i18n.lines",
            # issue 26: the words the entry and the parser share (the parser itself is not imported here)
            "wizard.cli_words",
            "wizard", "wizard.cli", "wizard.commands", "wizard.commands.common", "wizard.commands.headless",
            "wizard.core", "wizard.core.answers", "wizard.core.answers.generate", "wizard.core.answers.model",
            "wizard.core.answers.multinode", "wizard.core.answers.of_answers", "wizard.core.answers.render",
            "wizard.core.answers.rules", "wizard.core.bounds", "wizard.core.catalog",
            "wizard.core.catalog.key_lookup", "wizard.core.catalog.model", "wizard.core.catalog.settings",
            "wizard.core.catalog.writes", "wizard.core.context", "wizard.core.ds_schema", "wizard.core.effective",
            "wizard.core.effective.builder", "wizard.core.effective.deepspeed", "wizard.core.effective.fsdp",
            "wizard.core.effective.layout", "wizard.core.effective.model", "wizard.core.effective.situation",
            "wizard.core.effective.used", "wizard.core.exits", "wizard.core.files", "wizard.core.findings",
            "wizard.core.hosts", "wizard.core.inputs", "wizard.core.library",
            "wizard.core.library.accelerate_versions", "wizard.core.library.auto", "wizard.core.library.deepspeed",
            "wizard.core.library.fsdp", "wizard.core.library.launcher", "wizard.core.library.transformers_tp",
            "wizard.core.lint", "wizard.core.lint.base", "wizard.core.lint.configfile", "wizard.core.lint.ds",
            "wizard.core.lint.dsjson", "wizard.core.lint.dszero", "wizard.core.lint.fsdp", "wizard.core.lint.general",
            "wizard.core.lint.keys", "wizard.core.lint.launch", "wizard.core.lint.linter", "wizard.core.presets",
            "wizard.core.recordclass", "wizard.core.rules", "wizard.core.versions", "wizard.core.vocab",
            "wizard.core.wizard_rules", "wizard.core.yaml_dump",
        },
        "stdlib": {
            "__future__", "_collections", "_contextvars", "_datetime", "_functools", "_json", "_operator", "_sre",
            # issue 26: no argparse (nor its gettext): a plain --headless X --out DIR is read without the parser
            "_struct", "_weakrefset", "base64", "binascii", "collections", "contextlib", "contextvars",
            "copy", "copyreg", "datetime", "enum", "errno", "fcntl", "fnmatch", "functools", "gc",
            "ipaddress", "itertools", "json", "keyword", "math", "ntpath", "operator", "pathlib", "re", "reprlib",
            "shlex", "struct", "types", "urllib", "warnings", "weakref",
        },
        "third_party": {
            "yaml",
        },
    },
    "explain": {
        "wizard": {
            # issue 26: the parser in its own module, the words the entry and the parser share in theirs
            "wizard.cli_parser", "wizard.cli_words",
            "wizard", "wizard.cli", "wizard.commands", "wizard.commands.explain", "wizard.core", "wizard.core.bounds",
            "wizard.core.catalog", "wizard.core.catalog.model", "wizard.core.catalog.settings", "wizard.core.exits",
            # issue 27: explain speaks the chosen language (the translations are read only for another language)
            "wizard.core.i18n", "wizard.core.i18n.cells", "wizard.core.localized", "wizard.core.localized.ui",
            # issue 27: the catalogue's sentences other sentences carry, one lookup for the package and the findings'
            # translator (which puts them in place inside a convert finding)
            "wizard.core.localized.catalog_texts",
            "wizard.core.recordclass", "wizard.core.texts", "wizard.core.texts.backend",
            "wizard.core.texts.checkpoint", "wizard.core.texts.deepspeed", "wizard.core.texts.launch",
            "wizard.core.texts.loading", "wizard.core.texts.model", "wizard.core.texts.offload",
            "wizard.core.texts.parallelism", "wizard.core.texts.precision", "wizard.core.texts.prefetch",
            "wizard.core.texts.sharding", "wizard.core.texts.summoning", "wizard.core.texts.sync",
            "wizard.core.texts.training", "wizard.core.texts.wrapping", "wizard.core.vocab",
        },
        "stdlib": {
            # the texts are records, the dtype table and the meaning changes imported when asked for (issue 26):
            # no dataclasses, inspect or typing
            "__future__", "_bz2", "_collections", "_compression", "_functools", "_locale", "_lzma", "_operator",
            "_sre", "argparse", "bz2", "collections", "copyreg", "enum", "errno", "fnmatch", "functools", "gc",
            "gettext", "importlib", "itertools", "keyword", "locale", "lzma", "math", "operator", "re", "reprlib",
            "shutil", "textwrap", "types", "warnings", "zlib",
        },
        "third_party": set(),
    },
}

"""What each command imported when it was last listed (``imported``'s sets), the ceiling of its start path."""


_PROBE = r"""
import sys
before = set(sys.modules)
from wizard.cli import main
code = main(ARGS)
after = set(sys.modules)
import json
with open(sys.argv[1], "w") as f:
    json.dump({"code": code, "new": sorted(after - before)}, f)
"""


def imported(command: str) -> dict[str, object]:
    """Run one command of COMMANDS in a fresh interpreter: its exit code and the modules it imported, as
    ``{"code": int, "wizard": set, "stdlib": set, "third_party": set}`` (the last two: top-level names)."""
    with tempfile.TemporaryDirectory(prefix="start_path_") as tmp:
        args = [a.replace("{out}", str(Path(tmp) / "out")) for a in COMMANDS[command]]
        report = Path(tmp) / "modules.json"
        proc = subprocess.run([sys.executable, "-c", _PROBE.replace("ARGS", repr(args)), str(report)], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120)
        if proc.returncode != 0 or not report.exists():
            raise RuntimeError(f"{command}: the probe failed ({proc.returncode}): {proc.stderr[-2000:]}")
        result = json.loads(report.read_text())
    new = result["new"]
    wizard = {m for m in new if m == "wizard" or m.startswith("wizard.")}
    tops = {m.split(".")[0] for m in new if m not in wizard and not _cython(m)}
    stdlib = {t for t in tops if t in sys.stdlib_module_names}
    return {"code": result["code"], "wizard": wizard, "stdlib": stdlib, "third_party": tops - stdlib}


def _cython(name: str) -> bool:
    """The modules a Cython extension (PyYAML's ``yaml._yaml``) registers for itself, named after the Cython
    release that built it: part of that extension, not imports of their own."""
    return name == "cython_runtime" or name.startswith("_cython_")


def _show(name: str, values: set[str]) -> str:
    if not values:
        return f'        "{name}": set(),'
    lines, line = [], "           "
    for v in sorted(values):
        item = f' "{v}",'
        if len(line) + len(item) > 118:
            lines.append(line)
            line = "           "
        line += item
    lines.append(line)
    return f'        "{name}": {{\n' + "\n".join(lines) + "\n        },"


def show(found: dict[str, dict[str, object]]) -> str:
    """``EXPECTED`` as this file writes it, from :func:`imported` of each command."""
    out = ["EXPECTED = {"]
    for cmd, got in found.items():
        out.append(f'    "{cmd}": {{')
        out += [_show(kind, got[kind]) for kind in KINDS]
        out.append("    },")
    return "\n".join(out + ["}"])


KINDS = ("wizard", "stdlib", "third_party")

if __name__ == "__main__":
    print(show({cmd: imported(cmd) for cmd in COMMANDS}))
