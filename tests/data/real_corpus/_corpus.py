"""Shared by tests/unit/test_real_corpus.py and _compare.py: load the cases, run `check` in-process on one case,
and judge its findings against the stored labels. Imports no training library (the wizard's core stays light)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
HEX40 = re.compile(r"^[0-9a-f]{40}$")


def load_cases():
    return {p.stem: yaml.safe_load(p.read_text()) for p in sorted(CASES.glob("*.yaml"))}


def runs(case):
    """The (loop, check argv tail) pairs a case is checked under."""
    if case["kind"] == "deepspeed_json":
        return [(loop, ["--trainer", loop, "--num-processes", "8"]) for loop in ("hf", "accelerate")]
    return [(case["loop"], ["--trainer", case["loop"], "--gpus-per-node", "8"])]


def write_case(case, root: Path) -> Path:
    """Write the case's file(s) under ``root`` the way the project has them; returns the file to check."""
    if case["kind"] == "deepspeed_json":
        target = root / "ds_config.json"
        target.write_text(json.dumps(case["config"], indent=2))
        return target
    target = root / "accelerate_config.yaml"
    target.write_text(yaml.safe_dump(case["config"], sort_keys=False))
    dsfile = (case["config"].get("deepspeed_config") or {}).get("deepspeed_config_file")
    if dsfile and case.get("ds_config") is not None and not os.path.isabs(dsfile):
        p = root / dsfile
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(case["ds_config"], indent=2))
    return target


def run_check(case, root: Path, extra):
    """`fsdpds-wizard check FILE ... --format json` in-process, from ``root``. Returns (rc, stdout, stderr)."""
    from wizard.cli import main

    target = write_case(case, root)
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(["check", target.name, *extra, "--format", "json"])
            except SystemExit as e:  # argparse and friends
                rc = e.code if isinstance(e.code, int) else 1
    finally:
        os.chdir(cwd)
    return rc, out.getvalue(), err.getvalue()


def contract_problems(rc, stdout):
    """What is wrong with the output as the JSON contract; [] when fine. Returns (problems, findings)."""
    try:
        doc = json.loads(stdout)
    except ValueError as e:
        return [f"stdout is not JSON ({e}): {stdout[:300]!r}"], []
    if not isinstance(doc, dict) or not isinstance(doc.get("findings"), list):
        return [f"no findings list: {stdout[:300]!r}"], []
    probs = []
    for f in doc["findings"]:
        if not (isinstance(f, dict) and f.get("severity") in ("error", "warning", "info")
                and isinstance(f.get("rule"), str) and isinstance(f.get("keys"), list)
                and isinstance(f.get("message"), str)):
            probs.append(f"malformed finding {f!r}"[:300])
    errors = [f for f in doc["findings"] if isinstance(f, dict) and f.get("severity") == "error"]
    if rc != (2 if errors else 0):
        probs.append(f"exit {rc} with {len(errors)} error finding(s) (want {2 if errors else 0})")
    return probs, doc["findings"]


def _names(key, wanted):
    """Does a finding key name the label key ``wanted`` (same key, or its section / one inside it)?"""
    key = str(key)
    for prefix in ("deepspeed_config.", "fsdp_config."):
        if key.startswith(prefix) and not wanted.startswith(prefix):
            key = key[len(prefix):]
    return key == wanted or wanted.startswith(key + ".") or key.startswith(wanted + ".")


ENVIRONMENT_RULES = {"fp8-backend-missing"}
"""Rules that judge the machine ``check`` runs on (an fp8 backend installed here), not the file: the labels assume
the training machine has what the config needs."""


def judge(case, loop, findings):
    """Disagreements between check's findings and the stored label for ``loop`` (a list of sentences).

    A dead value is an error unless its entry says ``severity: warning`` (steps_per_print: logging only); then a
    warning or an error must name it. In an accepted file every error must name a dead value."""
    label = case["labels"][loop]
    dead = case.get("dead_values") or []
    errors = [f for f in findings if f.get("severity") == "error" and f.get("rule") not in ENVIRONMENT_RULES]
    warned = [f for f in findings if f.get("severity") in ("error", "warning")]
    out = []
    if label["accepted"] is None:
        return out  # the JSON the YAML names is not in the case: only the contract is asserted
    if label["accepted"] is False:
        if not errors:
            out.append(f"replay rejects ({label['stage']}: {label['error']}) but check reports no error")
        return out
    dead_errors = [d for d in dead if d.get("severity", "error") == "error"]
    stray = [f for f in errors if not any(_names(k, d["key"]) or _names(d["key"], k) for d in dead_errors
                                          for k in f["keys"])]
    if stray:
        out.append("replay accepts, but check errors on values that are not dead: "
                   + "; ".join(f"{f['rule']} {f['keys']}" for f in stray))
    for d in dead:
        pool = errors if d.get("severity", "error") == "error" else warned
        if not any(_names(k, d["key"]) for f in pool for k in f["keys"]):
            out.append(f"dead value {d['key']} ({d['why'][:80]}) has no {d.get('severity', 'error')} finding")
    for k in label.get("filled") or {}:
        blamed = [f for f in errors if any(_names(fk, k) and str(fk).count(".") >= k.count(".") for fk in f["keys"])]
        if blamed:
            out.append(f"error blames {k}, which the {loop} path fills: "
                       + "; ".join(f"{f['rule']} {f['keys']}" for f in blamed))
    return out
