"""The fast paths import no torch, accelerate, deepspeed or textual (checked in a fresh interpreter).

Each core module on its own: tests/unit/test_import_contracts.py."""
import json
import subprocess
import sys

from helpers import ROOT

HEAVY = ("torch", "accelerate", "deepspeed", "textual")

PROBE = r"""
import json, runpy, sys, io, contextlib
sys.argv = ["fsdpds-wizard"] + ARGS
out = io.StringIO()
code = None
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
    from wizard.cli import main
    code = main(ARGS)
print(json.dumps({"code": code, "loaded": [m for m in HEAVY if m in sys.modules], "out": out.getvalue()[-2000:]}))
"""


def run_probe(args):
    src = PROBE.replace("ARGS", json.dumps(args)).replace("HEAVY", json.dumps(HEAVY))
    proc = subprocess.run([sys.executable, "-c", src], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_headless_generation_is_light(tmp_path):
    result = run_probe(["--headless", str(ROOT / "templates" / "zero3-nvme-offload.yaml"), "--out", str(tmp_path)])
    assert result["code"] == 0, result["out"]
    assert result["loaded"] == []
    assert (tmp_path / "ds_config.json").exists()


def test_check_is_light(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n  fsdp_version: 2\n")
    result = run_probe(["check", str(cfg), "--gpus-per-node", "2"])
    assert result["code"] in (0, 2), result["out"]
    assert result["loaded"] == []


def test_explain_is_light():
    result = run_probe(["explain", "offload"])
    assert result["code"] == 0, result["out"]
    assert result["loaded"] == []


def test_presets_and_the_run_requirements_check_are_light():
    src = ("import sys, json, wizard.core.presets as p, wizard.run.requirements as r\n"
           "p.preset_paths(); p.bundled_script(); r.missing()\n"
           f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    proc = subprocess.run([sys.executable, "-c", src], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


def test_presets_command_is_light():
    result = run_probe(["presets"])
    assert result["code"] == 0, result["out"]
    assert "zero3-cpu-offload" in result["out"]
    assert result["loaded"] == []


def test_recommend_is_light():
    result = run_probe(["recommend", "--model", "llama-3.1-70b", "--gpus-per-node", "8", "--gpu-memory", "80",
                        "--nodes", "2", "--host-memory", "1024"])
    assert result["code"] in (0, 1), result["out"]
    assert result["loaded"] == []
