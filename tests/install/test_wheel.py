"""The wheel, installed the way users install tools: fresh virtual environments, no editable path, an empty folder.

* The wheel is built (``pip wheel --no-deps``) from a copy of the files the build uses, so the repository
  gets no build/ or egg-info and an unlisted package or template shows up as missing.
* ``base``: a fresh venv with ``pip install WHEEL`` (textual, pyyaml, psutil only). Writing, checking,
  explaining and the schema work; ``--verify`` and ``--launch`` exit 2 and say to install ``fsdpds-wizard[run]``.
* ``run``: a fresh venv with ``pip install "WHEEL[run]" torch==2.13.0`` (torch pinned to the CPU build this
  project installs first; the rest resolves the extra's ranges), then one real CPU rehearsal of ZeRO-2 with
  2 processes and the bundled script, from the installed package.

Every command runs from an empty temporary folder with a minimal environment (no PYTHONPATH, no
FSDPDS_TEMPLATES), and each venv proves that ``wizard`` is imported from inside it. DeepSpeed's
JIT-compiled ops are shared through ``TORCH_EXTENSIONS_DIR`` (default: ~/.cache/fsdpds-wizard/torch_extensions).
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from helpers import PRESET_FILES, ROOT

pytestmark = pytest.mark.install

PRESETS = [p.stem for p in PRESET_FILES]
HINT = 'pip install "fsdpds-wizard[run]"'
BUILD_FILES = ("pyproject.toml", "README.md", "wizard", "templates")
TIMINGS: dict[str, float] = {}


def _timed(name: str, fn, *args, **kwargs):
    t0 = time.monotonic()
    try:
        return fn(*args, **kwargs)
    finally:
        TIMINGS[name] = round(time.monotonic() - t0, 1)
        print(f"[install timing] {name}: {TIMINGS[name]}s", file=sys.stderr)


def _check(cmd: list[str], timeout: float, **kwargs) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)
    assert proc.returncode == 0, f"{cmd} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def _user_env(venv: Path, home: Path) -> dict[str, str]:
    keep = ("HOME", "LANG", "LC_ALL", "TMPDIR", "PIP_CACHE_DIR", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL",
            "PIP_FIND_LINKS", "PIP_CERT", "PIP_DEFAULT_TIMEOUT", "PIP_CONSTRAINT", "SSL_CERT_FILE",
            "REQUESTS_CA_BUNDLE", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env["PATH"] = f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin"
    env["VIRTUAL_ENV"] = str(venv)
    env["TORCH_EXTENSIONS_DIR"] = os.environ.get("TORCH_EXTENSIONS_DIR") or str(
        Path.home() / ".cache" / "fsdpds-wizard" / "torch_extensions")
    env.setdefault("HOME", str(home))
    return env


def _has_build_backend() -> bool:
    """setuptools >= 77 (pyproject's build-system.requires) in this Python."""
    try:
        major = int(importlib.metadata.version("setuptools").split(".")[0])
    except importlib.metadata.PackageNotFoundError:
        return False
    return major >= 77


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for name in BUILD_FILES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(path, src / name)
    dist = tmp_path_factory.mktemp("dist")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(src), "-w", str(dist)]
    if _has_build_backend():  # no isolated build environment to download
        cmd.insert(5, "--no-build-isolation")
    _timed("build the wheel", _check, cmd, timeout=300)
    wheels = list(dist.glob("fsdpds_wizard-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def _venv(tmp_path_factory, name: str, wheel: Path, spec: str, *extra: str) -> Path:
    venv = tmp_path_factory.mktemp(name) / "venv"
    _timed(f"{name}: create the venv", _check, [sys.executable, "-m", "venv", str(venv)], timeout=120)
    env = _user_env(venv, venv.parent)
    _timed(f"{name}: pip install {spec.replace(str(wheel), 'WHEEL')} {' '.join(extra)}".rstrip(), _check,
           [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", spec, *extra],
           timeout=600, env=env, cwd=venv.parent)
    return venv


@pytest.fixture(scope="module")
def base(tmp_path_factory, wheel) -> Path:
    return _venv(tmp_path_factory, "base", wheel, str(wheel))


@pytest.fixture(scope="module")
def run_venv(tmp_path_factory, wheel) -> Path:
    return _venv(tmp_path_factory, "run", wheel, f"{wheel}[run]", "torch==2.13.0")


def wizard_in(venv: Path, cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([str(venv / "bin" / "fsdpds-wizard"), *args], cwd=cwd, env=_user_env(venv, cwd),
                          capture_output=True, text=True, timeout=timeout)


def _empty(tmp_path: Path) -> Path:
    work = tmp_path / "empty"
    work.mkdir()
    return work


def _installed_from(venv: Path, cwd: Path) -> dict:
    src = ("import json, sys, wizard, wizard.core.presets as p; print(json.dumps({'file': wizard.__file__, "
           "'path': sys.path, 'templates': str(p.templates_dir()), 'script': str(p.bundled_script())}))")
    proc = _check([str(venv / "bin" / "python"), "-c", src], timeout=60, cwd=cwd, env=_user_env(venv, cwd))
    return json.loads(proc.stdout)


# ----------------------------------------------------------------------------- the wheel itself
def test_wheel_holds_every_package_the_presets_and_the_bundled_script(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    source_modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "wizard").rglob("*.py")}
    assert source_modules - names == set(), "modules missing from the wheel (list the package in pyproject.toml)"
    for preset in PRESETS:
        assert f"wizard/templates/{preset}.yaml" in names
    assert "wizard/templates/train_gpt.py" in names
    schemas = {f"wizard/data/ds_schema/{p.name}" for p in (ROOT / "wizard" / "data" / "ds_schema").glob("*.json")}
    assert "wizard/data/ds_schema/0.19.8.json" in schemas and schemas | {"wizard/tui/wizard.tcss"} <= names
    assert not any(n.startswith(("tests/", "templates/", "benchmarks/")) for n in names)
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    requires = [ln for ln in zipfile.ZipFile(wheel).read(meta).decode().splitlines() if ln.startswith("Requires-Dist")]

    def names_for(marker: str | None) -> list[str]:
        return sorted(re.match(r"[A-Za-z0-9_.-]+", ln.split(": ", 1)[1]).group(0) for ln in requires
                      if (marker is None and "extra ==" not in ln) or (marker is not None and marker in ln))

    assert names_for(None) == ["psutil", "pyyaml", "textual"], requires
    assert "Requires-Dist: textual==8.2.8" in requires
    assert names_for('extra == "run"') == ["accelerate", "deepspeed", "torch", "transformers"], requires


# ----------------------------------------------------------------------------- base install
def test_base_install_is_the_wheel_not_the_source_tree(base, tmp_path):
    got = _installed_from(base, _empty(tmp_path))
    assert Path(got["file"]).is_relative_to(base), got["file"]
    assert not any(Path(p).resolve() == ROOT for p in got["path"] if p), got["path"]
    assert Path(got["templates"]) == Path(got["file"]).parent / "templates"
    assert Path(got["script"]).is_file() and Path(got["script"]).is_relative_to(base)
    for lib in ("torch", "accelerate", "deepspeed", "transformers"):
        assert not list((base / "lib").glob(f"python*/site-packages/{lib}")), f"{lib} is not a base dependency"


def test_base_install_writes_checks_explains(base, tmp_path):
    work = _empty(tmp_path)
    proc = wizard_in(base, work, "presets")
    assert proc.returncode == 0, proc.stderr
    listed = [ln.split()[0] for ln in proc.stdout.splitlines() if ln and not ln.startswith(("use one", " "))]
    assert listed == PRESETS and len(listed) == 10

    proc = wizard_in(base, work, "--headless", "zero3-nvme-offload", "--out", "out/")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (work / "out").iterdir()) == ["accelerate_config.yaml", "answers.yaml",
                                                                 "ds_config.json"]
    proc = wizard_in(base, work, "check", "out/accelerate_config.yaml", "--gpus-per-node", "8")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK: out/accelerate_config.yaml: 0 error(s)" in proc.stdout

    proc = wizard_in(base, work, "explain", "offload", "--width", "100")
    assert proc.returncode == 0 and "DeepSpeed" in proc.stdout and "FSDP" in proc.stdout, proc.stderr
    proc = wizard_in(base, work, "schema")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["title"].startswith("fsdpds-wizard answers")


def test_base_install_speaks_the_guides_languages(base, tmp_path):
    """Issue 27 from the installed wheel: the translations ship with it; ``--lang`` and the locale choose them."""
    work = _empty(tmp_path)
    said = {}
    for lang in ("tr", "zh-TW"):
        proc = wizard_in(base, work, "explain", "offload", "--lang", lang, "--width", "100")
        assert proc.returncode == 0, proc.stderr
        assert "fsdp_offload_params" in proc.stdout and "offload_optimizer_device" in proc.stdout
        said[lang] = proc.stdout
    assert "Parametreleri" in said["tr"] or "parametre" in said["tr"]
    assert "卸載" in said["zh-TW"]
    env = {**_user_env(base, work), "LANG": "tr_TR.UTF-8"}
    env.pop("LC_ALL", None)
    env.pop("LC_MESSAGES", None)
    proc = subprocess.run([str(base / "bin" / "fsdpds-wizard"), "explain", "offload", "--width", "100"], cwd=work,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout == said["tr"], proc.stderr


def test_base_install_estimates_recommends_and_converts(base, tmp_path):
    """The memory model, the recommendation and the conversion need neither torch nor accelerate: they run from
    the base install (the wheel carries wizard.core.memory and its shapes)."""
    work = _empty(tmp_path)
    proc = wizard_in(base, work, "estimate", "zero3-nvme-offload", "--model", "llama-3.1-8b", "--gpu-memory", "80",
                     "--format", "json")
    assert proc.returncode == 0, proc.stderr
    e = json.loads(proc.stdout)
    assert e["model"]["params"] == 8_030_261_248 and e["fits"] is True and e["deepspeed_estimator"]
    proc = wizard_in(base, work, "recommend", "--model", "llama-3.1-8b", "--gpus-per-node", "8", "--gpu-memory", "80",
                     "--write", "rec/")
    assert proc.returncode == 0, proc.stderr
    assert "<- chosen" in proc.stdout and (work / "rec" / "answers.yaml").is_file()
    assert wizard_in(base, work, "--headless", "zero3-cpu-offload", "--out", "ds/").returncode == 0
    proc = wizard_in(base, work, "convert", "ds/accelerate_config.yaml", "--to", "fsdp", "--out", "fsdp/")
    assert proc.returncode == 0, proc.stderr
    assert "fsdp_offload_params: true" in (work / "fsdp" / "accelerate_config.yaml").read_text()


def test_base_install_version_reads_metadata_and_names_what_is_missing(base, tmp_path):
    proc = wizard_in(base, _empty(tmp_path), "--version")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "fsdpds-wizard 0.1.0", proc.stdout  # the wheel's metadata (no pyproject beside it)
    for lib in ("accelerate", "deepspeed", "torch", "transformers"):
        assert any(ln.startswith(lib) and ln.endswith("not installed") for ln in lines), proc.stdout


def test_base_install_says_what_to_install_for_verify_and_launch(base, tmp_path):
    work = _empty(tmp_path)
    for args, out in ((("--verify",), "o2"), (("--launch",), "o2l"), (("--launch", "--rehearse"), "o2r")):
        proc = wizard_in(base, work, "--headless", "zero2", "--out", out, *args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "fsdpds-wizard[run]" in proc.stderr and HINT in proc.stderr, proc.stderr
        assert "needs torch, accelerate, deepspeed, transformers" in proc.stderr
        assert "Traceback" not in proc.stderr and not (work / out).exists()
    (work / "c.yaml").write_text("distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n  fsdp_version: 2\n")
    proc = wizard_in(base, work, "check", "c.yaml", "--verify")
    assert proc.returncode == 2 and "check --verify needs torch, accelerate, deepspeed" in proc.stderr, proc.stderr


# ----------------------------------------------------------------------------- with the run extra
def test_run_extra_rehearses_zero2_on_cpu_from_the_installed_wheel(run_venv, tmp_path):
    work = _empty(tmp_path)
    got = _installed_from(run_venv, work)
    assert Path(got["file"]).is_relative_to(run_venv), got["file"]
    proc = _timed("run: --launch --rehearse zero2", wizard_in, run_venv, work, "--headless", "zero2", "--out", "o3",
                  "--launch", "--rehearse", "--", "--steps", "6", timeout=420)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "run completed (exit 0)" in proc.stderr, proc.stderr
    runs = [p for p in (work / "o3" / "runs").iterdir() if p.is_dir()]
    assert len(runs) == 1
    summary = json.loads((runs[0] / "summary.json").read_text())
    assert summary["status"] == "completed" and summary["rehearsal"] is True, summary
    assert Path(summary["script"]) == Path(got["script"]) and Path(summary["script"]).is_relative_to(run_venv)
    setup = summary["effective_setup"]
    assert (setup["distributed_type"], setup["zero_stage"], setup["world_size"]) == ("DEEPSPEED", 2, 2), setup
    metrics = [json.loads(ln) for ln in (runs[0] / "metrics.jsonl").read_text().splitlines() if ln.strip()]
    assert [m["step"] for m in metrics if "step" in m] == list(range(6))
