"""Without the run libraries, --verify / --launch / --rehearse / check --verify / F5 / ctrl+l say what to install.

Real environments, no mocks: the child Python runs with ``-S`` (no site-packages) on a copy of this
environment's site-packages made of symlinks, minus the libraries being hidden. So those libraries are
really not importable there, and everything else is the same.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest
from helpers import ROOT

from wizard.run import requirements

HINT = 'pip install "fsdpds-wizard[run]"'


def environment_without(tmp_path: Path, hidden: tuple[str, ...]) -> dict:
    """An environment for ``python -S`` that sees this venv's packages except ``hidden`` (and the repo's wizard)."""
    site = Path(sysconfig.get_paths()["purelib"])
    farm = tmp_path / ("site-without-" + "-".join(sorted(hidden)))
    shutil.rmtree(farm, ignore_errors=True)
    farm.mkdir()
    for entry in site.iterdir():
        top = entry.name.split("-")[0].split(".")[0].lower()
        if top in hidden or entry.suffix == ".pth":
            continue
        (farm / entry.name).symlink_to(entry)
    return {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{ROOT}:{farm}", "HOME": str(tmp_path),
            "TERM": "xterm-256color"}


def run_wizard(tmp_path: Path, hidden: tuple[str, ...], *args: str) -> subprocess.CompletedProcess:
    env = environment_without(tmp_path, hidden)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-S", "-m", "wizard", *args], cwd=work, env=env, capture_output=True,
                          text=True, timeout=120)


def test_the_hidden_libraries_really_are_gone(tmp_path):
    env = environment_without(tmp_path, ("torch", "deepspeed"))
    src = ("import importlib.util, json; print(json.dumps([importlib.util.find_spec(n) is not None for n in "
           "('torch', 'deepspeed', 'accelerate', 'yaml', 'textual', 'wizard')]))")
    proc = subprocess.run([sys.executable, "-S", "-c", src], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [False, False, True, True, True, True]


def test_what_each_action_needs():
    assert requirements.needed() == ("torch", "accelerate", "deepspeed", "transformers")
    assert requirements.needed("fsdp2") == ("torch", "accelerate")
    assert requirements.needed("fsdp1", verify=True) == ("torch", "accelerate", "deepspeed")
    assert requirements.needed("deepspeed") == ("torch", "accelerate", "deepspeed", "transformers")
    assert requirements.config_target({"distributed_type": "DEEPSPEED"}) == "deepspeed"
    assert requirements.config_target({"distributed_type": "FSDP"}) == "fsdp"
    assert requirements.config_target({}) is None and requirements.config_target(["x"]) is None
    assert requirements.problem("--launch") is None  # the test environment has all four


ALL = ("torch", "accelerate", "deepspeed", "transformers")


def test_headless_verify_without_the_run_libraries(tmp_path):
    proc = run_wizard(tmp_path, ALL, "--headless", "zero2", "--out", "o2", "--verify")
    assert proc.returncode == 2, proc.stderr
    assert "--verify needs torch, accelerate, deepspeed, transformers" in proc.stderr
    assert HINT in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "work" / "o2").exists(), "nothing is written"


def test_headless_launch_and_rehearse_name_only_what_is_missing(tmp_path):
    proc = run_wizard(tmp_path, ("deepspeed", "transformers"), "--headless", "zero2", "--out", "o",
                      "--launch", "--rehearse")
    assert proc.returncode == 2, proc.stderr
    assert "--launch --rehearse needs deepspeed, transformers, which are not installed" in proc.stderr
    assert HINT in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "work" / "o").exists()
    proc = run_wizard(tmp_path, ("torch",), "--headless", "fsdp2-full-shard-bf16", "--out", "o", "--launch")
    assert proc.returncode == 2, proc.stderr
    assert "--launch needs torch, which is not installed" in proc.stderr and HINT in proc.stderr


def test_check_verify_without_the_run_libraries_and_check_without_verify_still_works(tmp_path):
    cfg = tmp_path / "work" / "c.yaml"
    cfg.parent.mkdir()
    cfg.write_text("distributed_type: DEEPSPEED\nnum_processes: 2\ndeepspeed_config:\n  zero_stage: 2\n")
    proc = run_wizard(tmp_path, ("accelerate", "transformers"), "check", str(cfg), "--verify")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "check --verify needs accelerate, transformers, which are not installed" in proc.stderr
    assert HINT in proc.stderr
    proc = run_wizard(tmp_path, ALL, "check", str(cfg), "--gpus-per-node", "2")
    assert "OK:" in proc.stdout or "FAIL:" in proc.stdout, proc.stderr
    assert "needs" not in proc.stderr


def test_writing_configs_needs_none_of_them(tmp_path):
    proc = run_wizard(tmp_path, ALL, "--headless", "zero3-cpu-offload", "--out", "out")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "work" / "out" / "accelerate_config.yaml").is_file()


TUI_PROBE = textwrap.dedent("""
    import asyncio, json
    from wizard.tui.app import create_app
    from wizard.tui.shared.session import from_preset
    from wizard.tui.screens.main import MainScreen

    async def main():
        app = create_app(from_preset("zero2"), out="cfg")
        seen = {}
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await pilot.pause(0.2)
            for key in ("f5", "ctrl+l"):
                await pilot.press(key)
                await pilot.pause(0.2)
                toasts = [str(t.render()).replace("\\n", " ") for t in app.screen.query("Toast")]
                seen[key] = {"screen": type(app.screen).__name__, "shown": " ".join(toasts),
                             "notes": [(n.message, n.severity) for n in app._notifications]}
        print(json.dumps(seen))

    asyncio.run(main())
""")


def test_tui_rehearse_and_launch_say_what_to_install(tmp_path):
    env = environment_without(tmp_path, ALL)
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run([sys.executable, "-S", "-c", TUI_PROBE], cwd=work, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["f5"]["screen"] == "MainScreen"
    assert ("✖ A CPU rehearsal (F5) needs torch, accelerate, deepspeed, transformers, which are not installed in "
            f"this Python environment; install the run libraries with: {HINT}", "error") in \
        [tuple(n) for n in seen["f5"]["notes"]]
    assert HINT in seen["f5"]["shown"], "shown as written (not eaten as markup)"
    assert seen["ctrl+l"]["screen"] == "MainScreen", "no question about writing files first"
    assert any(msg.startswith("✖ A launch (ctrl+l) needs torch, accelerate, deepspeed, transformers")
               and HINT in msg for msg, _ in seen["ctrl+l"]["notes"])
    assert not (work / "cfg").exists() and not (work / "cfg" / "runs").exists()


@pytest.mark.verify
def test_fsdp_verify_runs_without_transformers(tmp_path):
    proc = run_wizard(tmp_path, ("transformers",), "--headless", "fsdp2-full-shard-bf16", "--out", "o", "--verify")
    assert proc.returncode == 0, proc.stderr
    assert "verified: accelerate and deepspeed read every value as answered." in proc.stderr
