"""The one place that finds the presets (``*.yaml``) and the bundled training script (``train_gpt.py``).

They live in the repository's top-level ``templates/`` folder; the wheel carries that folder as the
``wizard/templates`` package data (mapped at build time, see ``pyproject.toml``). Looked up in order:

1. ``FSDPDS_TEMPLATES``: a folder given by the user (presets there replace the bundled ones; the
   bundled script is used when that folder has no ``train_gpt.py`` of its own);
2. the installed package's ``wizard/templates`` (a wheel install): read from the filesystem where the package is
   there, through :mod:`importlib.resources` only where it is imported from a zip;
3. the source checkout's ``templates/`` next to the ``wizard`` package (a clone, and the editable /
   compat install the Makefile makes, where ``wizard/templates`` does not exist).

Every function returns real filesystem paths: ``accelerate launch`` needs a file. When the package is
not on a filesystem (imported from a zip), the files are extracted once into a temporary folder that is
removed at exit.

Imports only the standard library (no textual, torch, accelerate or deepspeed).
"""
from __future__ import annotations

import os
from pathlib import Path

ENV = "FSDPDS_TEMPLATES"
SCRIPT = "train_gpt.py"
TRAINER_SCRIPT = "train_trainer.py"
PACKAGE = "wizard"
FOLDER = "templates"

_extracted: Path | None = None


def _override() -> Path | None:
    value = os.environ.get(ENV)
    return Path(value).expanduser() if value else None


def _source_checkout() -> Path:
    return Path(__file__).resolve().parents[2] / FOLDER


def packaged_dir() -> Path | None:
    """``wizard/templates`` of the installed package as a real folder, or None when it has none."""
    package = Path(__file__).parents[1]
    if package.is_dir():  # the package is on the filesystem (almost always): no importlib.resources, no zipfile
        folder = package / FOLDER
        return folder if folder.is_dir() else None
    from importlib.resources import files  # imported from a zip

    resource = files(PACKAGE).joinpath(FOLDER)
    if not resource.is_dir():
        return None
    if isinstance(resource, Path):
        return resource
    return _extract(resource)


def _extract(resource) -> Path:
    """Copy a non-filesystem resource folder (zip import) to a temporary folder, once per process."""
    global _extracted
    if _extracted is None:
        import atexit
        import shutil
        import tempfile

        target = Path(tempfile.mkdtemp(prefix="fsdpds-templates-"))
        atexit.register(shutil.rmtree, target, True)
        for entry in resource.iterdir():
            if entry.is_file():
                (target / entry.name).write_bytes(entry.read_bytes())
        _extracted = target
    return _extracted


def bundled_dir() -> Path:
    """The templates shipped with the wizard (installed package first, then the source checkout)."""
    packaged = packaged_dir()
    if packaged is not None:
        return packaged
    return _source_checkout()


def templates_dir() -> Path:
    """The folder the presets come from: ``FSDPDS_TEMPLATES`` if set, else the bundled templates."""
    return _override() or bundled_dir()


def preset_paths() -> dict[str, Path]:
    """Preset name -> answers file, sorted by name (empty when the folder has none)."""
    folder = templates_dir()
    if not folder.is_dir():
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))}


def preset_hint(name: str, presets: list[str]) -> str:
    """The fix of a name that is neither a file nor a preset (the same words in --headless and the wizard)."""
    import difflib

    if not presets:
        return "check the path; no presets were found (`fsdpds-wizard presets` says where it looks)"
    close = difflib.get_close_matches(name, presets, n=1)
    if close:
        return f"did you mean the preset '{close[0]}'? (`fsdpds-wizard presets` lists them)"
    return "check the path, or give a preset name: " + ", ".join(presets)


def describe(path: Path) -> str:
    """A preset's description: the comment lines at the top of its file, joined into one line ("" without any)."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("# ").strip())
    return " ".join(lines)


def description(name: str, path: Path, lang: str | None = None) -> str:
    """The preset's description (:func:`describe`) in the language: a bundled preset's words, as shipped
    (:mod:`wizard.core.localized.screens.presets`, part ``screen-presets``), translated; any other description (a
    preset of ``FSDPDS_TEMPLATES``, an edited header) as written: its translation is keyed to the shipped English
    (:func:`wizard.core.i18n.translate`), so this reads neither the catalogue nor :mod:`wizard.core.localized`."""
    from .i18n import translate

    return translate("screen-presets", name, describe(path), lang)


def bundled_script() -> Path:
    """The bundled training script: ``FSDPDS_TEMPLATES/train_gpt.py`` if that exists, else the shipped one."""
    override = _override()
    if override is not None and (override / SCRIPT).is_file():
        return override / SCRIPT
    return bundled_dir() / SCRIPT


def bundled_trainer_script() -> Path:
    """The bundled Hugging Face Trainer script (a rehearsal of answers whose loop is the Trainer): always the shipped
    one, next to the shipped ``train_gpt.py`` whose model and data it trains."""
    return bundled_dir() / TRAINER_SCRIPT


def where() -> str:
    """Where the presets were looked for, in words (for "no presets found" messages)."""
    override = _override()
    if override is not None:
        return f"{override} (from {ENV})"
    return str(bundled_dir())


__all__ = ["ENV", "SCRIPT", "TRAINER_SCRIPT", "bundled_dir", "bundled_script", "bundled_trainer_script", "describe",
           "description", "packaged_dir", "preset_hint", "preset_paths", "templates_dir", "where"]
