"""The real-world corpus (tests/data/real_corpus, docs/corpus.md): `check` on configs that public projects ship,
judged against labels replayed through transformers / accelerate / deepspeed (tests/data/real_corpus/_label.py).

Runs `fsdpds-wizard check` in-process; imports no training library itself."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[1] / "data" / "real_corpus"
sys.path.insert(0, str(CORPUS))
import _corpus as rc  # noqa: E402

CASES = rc.load_cases()
RUNS = [pytest.param(name, loop, extra, id=f"{name}-{loop}") for name, case in CASES.items()
        for loop, extra in rc.runs(case)]


@pytest.mark.parametrize(("name", "loop", "extra"), RUNS)
def test_real_corpus_case(name, loop, extra, tmp_path):
    case = CASES[name]
    code, out, err = rc.run_check(case, tmp_path, extra)
    problems, findings = rc.contract_problems(code, out)
    assert not problems, f"{name} ({loop}): output is not the JSON contract: {problems}; stderr: {err[-500:]}"
    disagreements = rc.judge(case, loop, findings)
    assert not disagreements, f"{name} ({loop}): " + " / ".join(disagreements)


def test_corpus_shape():
    kinds = [c["kind"] for c in CASES.values()]
    assert len(CASES) >= 150
    assert kinds.count("deepspeed_json") >= 100
    assert kinds.count("accelerate_config") >= 40
    assert len({c["source"]["repo"] for c in CASES.values()}) >= 25
    for name, c in CASES.items():
        src = c["source"]
        assert src.get("repo") and "/" in src["repo"], name
        assert src.get("path"), name
        assert rc.HEX40.match(str(src.get("commit", ""))), name
        assert src.get("licence"), name
        assert c["loop"] in ("hf", "accelerate"), name
        assert c["loop_evidence"], name
        assert isinstance(c["config"], dict), name
        assert c.get("labels"), f"{name}: not labelled (run _label.py --write)"
    for loop in ("hf", "accelerate"):
        verdicts = {c["labels"][loop]["accepted"] for c in CASES.values() if loop in c["labels"]}
        assert {True, False} <= verdicts, loop


def test_judge_catches_a_wrong_verdict():
    """The comparison can fail: an accepted file with an error finding, a rejected one without, a blamed fill."""
    case = {"labels": {"hf": {"accepted": True, "stage": None, "error": None, "filled": {"gradient_clipping": 1.0}}},
            "dead_values": []}
    err = [{"severity": "error", "rule": "x", "keys": ["gradient_clipping"], "message": "m"}]
    assert rc.judge(case, "hf", err)
    assert not rc.judge(case, "hf", [])
    case["labels"]["hf"] = {"accepted": False, "stage": "s", "error": "e", "filled": {}}
    assert rc.judge(case, "hf", [])
    assert not rc.judge(case, "hf", err)
    case["labels"]["hf"] = {"accepted": True, "stage": None, "error": None, "filled": {}}
    case["dead_values"] = [{"key": "steps_per_print", "why": "w"}]
    assert rc.judge(case, "hf", [{"severity": "warning", "rule": "x", "keys": ["steps_per_print"], "message": "m"}])
    assert not rc.judge(case, "hf", [{"severity": "error", "rule": "x", "keys": ["steps_per_print"], "message": "m"}])
    assert rc.contract_problems(0, "not json")[0]
    assert rc.contract_problems(0, '{"findings": [{"severity": "error", "rule": "r", "keys": [], "message": ""}]}')[0]
