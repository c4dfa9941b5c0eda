"""wizard.core.presets finds the presets and the bundled script: override, installed package, source checkout, zip."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from helpers import ROOT, TEMPLATES

from wizard.core import presets

PRESET_NAMES = sorted(p.stem for p in TEMPLATES.glob("*.yaml"))
PACKAGE_FILES = ("wizard/__init__.py", "wizard/core/__init__.py", "wizard/core/presets.py")

PROBE = r"""
import json, os, sys
sys.path[:0] = [{where!r}]
from wizard.core import presets
d = presets.templates_dir()
s = presets.bundled_script()
print(json.dumps({{"module": presets.__file__, "dir": str(d), "packaged": str(presets.packaged_dir()),
                  "presets": sorted(presets.preset_paths()), "script": str(s), "script_is_file": s.is_file(),
                  "script_bytes": s.read_bytes().decode() if s.is_file() else None, "where": presets.where()}}))
"""


def probe(where: Path, env_extra: dict | None = None) -> dict:
    """Import wizard.core.presets from ``where`` alone (-S: no site-packages, so not the repository's copy)."""
    env = {"PATH": "/usr/bin:/bin"}
    env.update(env_extra or {})
    proc = subprocess.run([sys.executable, "-S", "-c", PROBE.format(where=str(where))], cwd=where.parent,
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def package_copy(dest: Path) -> Path:
    """The files wizard.core.presets needs (it imports only the standard library): itself and its packages."""
    (dest / "wizard" / "core").mkdir(parents=True)
    for name in PACKAGE_FILES:
        shutil.copy(ROOT / name, dest / name)
    return dest


def test_source_checkout_uses_the_top_level_templates_folder(tmp_path):
    src = package_copy(tmp_path / "clone")
    shutil.copytree(TEMPLATES, src / "templates")
    got = probe(src)
    assert got["module"] == str(src / "wizard" / "core" / "presets.py")
    assert got["packaged"] == "None"  # no wizard/templates in a checkout
    assert got["dir"] == str(src / "templates")
    assert got["presets"] == PRESET_NAMES and len(PRESET_NAMES) == 10
    assert got["script"] == str(src / "templates" / "train_gpt.py") and got["script_is_file"]


def test_installed_package_data_wins_over_a_stray_templates_folder(tmp_path):
    site = package_copy(tmp_path / "site-packages")
    shutil.copytree(TEMPLATES, site / "wizard" / "templates")
    (site / "templates").mkdir()  # where a checkout would have it: must not be used when the package has its own
    (site / "templates" / "decoy.yaml").write_text("schema_version: 1\n")
    got = probe(site)
    assert got["packaged"] == got["dir"] == str(site / "wizard" / "templates")
    assert got["presets"] == PRESET_NAMES
    assert got["script"] == str(site / "wizard" / "templates" / "train_gpt.py") and got["script_is_file"]


def test_zip_import_extracts_real_files_and_removes_them_at_exit(tmp_path):
    archive = tmp_path / "wizard.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for name in PACKAGE_FILES:
            z.write(ROOT / name, name)
        for p in TEMPLATES.iterdir():
            z.write(p, f"wizard/templates/{p.name}")
    got = probe(archive)
    assert got["module"].startswith(str(archive))
    assert got["presets"] == PRESET_NAMES
    assert got["script_is_file"], "accelerate launch needs a real file"
    assert got["script_bytes"] == (TEMPLATES / "train_gpt.py").read_text()
    assert Path(got["dir"]).name.startswith("fsdpds-templates-")
    assert not Path(got["dir"]).exists(), "the extracted copy is removed when the process ends"


def test_override_replaces_the_presets_and_keeps_the_bundled_script(tmp_path, monkeypatch):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "team-zero3.yaml").write_text("# our ZeRO-3\nschema_version: 1\nbackend: deepspeed\n")
    monkeypatch.setenv("FSDPDS_TEMPLATES", str(mine))
    assert presets.templates_dir() == mine
    assert list(presets.preset_paths()) == ["team-zero3"]
    assert presets.bundled_script() == presets.bundled_dir() / "train_gpt.py"
    assert presets.bundled_script().is_file()
    assert "FSDPDS_TEMPLATES" in presets.where()
    (mine / "train_gpt.py").write_text("print('ours')\n")
    assert presets.bundled_script() == mine / "train_gpt.py"


def test_override_to_a_missing_folder_lists_nothing_and_says_where(tmp_path, monkeypatch):
    from wizard.cli import main

    monkeypatch.setenv("FSDPDS_TEMPLATES", str(tmp_path / "nowhere"))
    assert presets.preset_paths() == {}
    assert main(["presets"]) == 2


def test_the_repository_checkout_finds_its_own_templates(monkeypatch):
    monkeypatch.delenv("FSDPDS_TEMPLATES", raising=False)
    import wizard

    here = Path(wizard.__file__).resolve().parent
    if (here / "templates").is_dir():  # tests run against an installed wheel
        assert presets.templates_dir() == here / "templates"
    else:
        assert presets.packaged_dir() is None
        assert presets.templates_dir() == TEMPLATES
    assert sorted(presets.preset_paths()) == PRESET_NAMES
    assert presets.bundled_script().read_bytes() == (TEMPLATES / "train_gpt.py").read_bytes()


def test_packaged_dir_finds_what_importlib_resources_finds_without_it():
    """On a filesystem the package's templates folder is looked up directly (importlib.resources and zipfile cost
    --headless ~4 ms at start, issue 26); it is the folder importlib.resources names."""
    from importlib.resources import files

    from wizard.core import presets

    resource = files(presets.PACKAGE).joinpath(presets.FOLDER)
    assert presets.packaged_dir() == (Path(str(resource)) if resource.is_dir() else None)
