"""Labelled ground-truth corpus for `fsdpds-wizard check` (tests/data/check_corpus).

Each case folder holds ``accelerate_config.yaml`` (plus any DeepSpeed JSON it names, relative to the YAML's
folder) and ``expected.yaml``:

    exit: 0 | 2              # 2 iff at least one finding has severity "error"
    gpus_per_node: N         # optional, passed as --gpus-per-node
    error_keys: [...]        # each must appear in the `keys` of at least one error finding
    why: ...                 # library-rules id + deciding source line; labels were checked with _groundtruth.py

A key in ``error_keys`` is matched by a finding key that is equal to it or nested under it (``compile`` is
matched by ``compile.disable``), never by a parent (``bf16`` does not satisfy ``bf16.loss_scale``).

The command runs from the corpus folder (not the case folder), so relative DeepSpeed JSON paths must be
resolved against the YAML's folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import ROOT

CORPUS = ROOT / "tests" / "data" / "check_corpus"
VENV_PY = ROOT / ".venv" / "bin" / "python"
PYTHON = str(VENV_PY) if VENV_PY.exists() else sys.executable
# Override to point the test at another implementation, e.g. a stub: "python /tmp/stub.py"
CHECK_CMD = os.environ.get("CHECK_CORPUS_CMD")
SEVERITIES = {"error", "warning", "info"}


def _cases():
    return sorted(p for p in CORPUS.iterdir() if p.is_dir() and (p / "expected.yaml").exists())


CASES = _cases()


def _run_check(case: Path, gpus):
    base = CHECK_CMD.split() if CHECK_CMD else [PYTHON, "-m", "wizard"]
    cmd = base + ["check", str(case / "accelerate_config.yaml"), "--format", "json"]
    if gpus is not None:
        cmd += ["--gpus-per-node", str(gpus)]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(cmd, cwd=CORPUS, env=env, capture_output=True, text=True, timeout=300)


def _key_matches(wanted: str, got: str) -> bool:
    return got == wanted or got.startswith(wanted + ".")


def test_corpus_shape():
    assert len(CASES) >= 70
    exits = [yaml.safe_load((c / "expected.yaml").read_text())["exit"] for c in CASES]
    assert set(exits) <= {0, 2}
    share_valid = exits.count(0) / len(exits)
    assert 0.35 <= share_valid <= 0.55, share_valid
    for c in CASES:
        exp = yaml.safe_load((c / "expected.yaml").read_text())
        assert set(exp) <= {"exit", "gpus_per_node", "error_keys", "why"}, c.name
        assert exp.get("why"), c.name
        assert isinstance(exp.get("error_keys", []), list), c.name
        if exp["exit"] == 0:
            assert not exp.get("error_keys"), c.name
        raw = yaml.safe_load((c / "accelerate_config.yaml").read_text())
        ds_file = ((raw or {}).get("deepspeed_config") or {}).get("deepspeed_config_file")
        if ds_file and not c.name.endswith("ds_file_missing"):
            assert (c / ds_file).is_file(), f"{c.name}: {ds_file} not next to the YAML"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_check_corpus_case(case: Path):
    exp = yaml.safe_load((case / "expected.yaml").read_text())
    proc = _run_check(case, exp.get("gpus_per_node"))
    ctx = f"\n--- why: {exp['why']}\n--- stdout:\n{proc.stdout[-4000:]}\n--- stderr:\n{proc.stderr[-4000:]}"

    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        pytest.fail(f"stdout is not JSON ({e}); rc={proc.returncode}{ctx}")
    assert isinstance(doc, dict) and isinstance(doc.get("findings"), list), f"bad shape{ctx}"
    for f in doc["findings"]:
        assert isinstance(f, dict), f"finding is not an object: {f!r}{ctx}"
        assert f.get("severity") in SEVERITIES, f"bad severity in {f!r}{ctx}"
        assert isinstance(f.get("rule"), str) and f["rule"], f"bad rule in {f!r}{ctx}"
        assert isinstance(f.get("keys"), list) and all(isinstance(k, str) for k in f["keys"]), f"bad keys {f!r}{ctx}"
        assert isinstance(f.get("message"), str) and f["message"], f"bad message in {f!r}{ctx}"

    errors = [f for f in doc["findings"] if f["severity"] == "error"]
    assert proc.returncode == exp["exit"], f"exit {proc.returncode} != expected {exp['exit']}{ctx}"
    assert proc.returncode == (2 if errors else 0), f"exit code disagrees with the error findings{ctx}"
    if exp["exit"] == 0:
        assert not errors, f"unexpected error findings {errors}{ctx}"
    error_keys = [k for f in errors for k in f["keys"]]
    for wanted in exp.get("error_keys") or []:
        assert any(_key_matches(wanted, k) for k in error_keys), (
            f"no error finding names {wanted!r}; error keys: {error_keys}{ctx}"
        )
