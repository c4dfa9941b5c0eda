"""benchmarks/data/published/rows.json: every published measurement row is complete, its model resolvable and its
answers valid under our rules, and the answers say what the run did (GPUs, nodes, batch, checkpointing, offload).

Not the accuracy of the estimate: benchmarks/published.py prints that.
"""
from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT

from wizard.core.answers import answers_from_mapping
from wizard.core.answers.rules import check_answers
from wizard.core.findings import ERROR
from wizard.core.memory.shapes import ModelError, from_config_json, shape_by_name

DATA = ROOT / "benchmarks" / "data" / "published"
ROWS_FILE = DATA / "rows.json"


def _bench():
    spec = importlib.util.spec_from_file_location("published_bench", ROOT / "benchmarks" / "published.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = _bench()
DOC = json.loads(ROWS_FILE.read_text(encoding="utf-8"))
ROWS = DOC["rows"]


def _model(row: dict[str, Any]):
    spec = row["model"]
    if "shape" in spec:
        return shape_by_name(spec["shape"])
    path = DATA / spec["config"]
    return from_config_json(path, name=Path(spec["config"]).stem)


def problems(row: dict[str, Any]) -> list[str]:
    """Everything wrong with one row (empty when it is usable)."""
    out = [f"missing {k}" for k in BENCH.ROW_KEYS if k not in row]
    if out:
        return out
    src, fig, run, hw = row["source"], row["figure"], row["run"], row["hardware"]
    if not str(src.get("url", "")).startswith("https://"):
        out.append("source.url must be an https address")
    if "path" in src and not (src.get("repo") and len(str(src.get("commit", ""))) == 40):
        out.append("a source in a repository names the repo and the 40-digit commit")
    if not str(row["quote"]).strip():
        out.append("quote is empty")
    if fig.get("kind") not in BENCH.KINDS:
        out.append(f"figure.kind {fig.get('kind')!r} is none of {BENCH.KINDS}")
    elif fig["kind"] == "oom":
        if fig.get("value") is not None:
            out.append("an oom row has no value")
    elif fig["kind"] == "largest_batch":
        if not (isinstance(fig.get("value"), int) and fig["value"] >= 1):
            out.append("largest_batch needs a batch of at least 1")
    elif not (isinstance(fig.get("value"), (int, float)) and fig["value"] > 0 and fig.get("unit") in BENCH.UNITS):
        out.append(f"a memory figure needs a positive value and a unit of {sorted(BENCH.UNITS)}")
    if fig.get("kind") != "oom" and isinstance(fig.get("value"), (int, float)) and \
            f"{fig['value']:g}" not in str(row["quote"]):
        out.append(f"the quote does not show the figure {fig['value']}")
    if not str(fig.get("what", "")).strip():
        out.append("figure.what must say what was measured")
    out += [f"run.{k} missing" for k in BENCH.RUN_KEYS if k not in run]
    if not (isinstance(hw.get("gpu_memory_gib"), (int, float)) and hw["gpu_memory_gib"] > 0 and hw.get("gpu")):
        out.append("hardware needs the GPU and its memory in GiB")
    try:
        _model(row)
    except (ModelError, KeyError) as exc:
        out.append(f"model not resolvable: {exc}")
    answers, findings = answers_from_mapping(row["answers"])
    if answers is None:
        out += [f"answers: {f.message}" for f in findings if f.severity == ERROR]
        return out
    out += [f"answers rule {f.rule}: {f.message}" for f in check_answers(answers) if f.severity == ERROR]
    if out:
        return out
    if answers["launch.num_processes"] != run.get("gpus"):
        out.append(f"launch.num_processes {answers['launch.num_processes']} != run.gpus {run.get('gpus')}")
    if answers["launch.num_machines"] != run.get("nodes"):
        out.append(f"launch.num_machines {answers['launch.num_machines']} != run.nodes {run.get('nodes')}")
    mb = answers["training.micro_batch_size"]
    if mb != "auto" and mb != run.get("batch"):
        out.append(f"training.micro_batch_size {mb} != run.batch {run.get('batch')}")
    ckpt_full = str(run.get("activation_checkpointing", "")).startswith("full")
    if bool(answers["training.activation_checkpointing"]) != ckpt_full:
        out.append("training.activation_checkpointing disagrees with run.activation_checkpointing")
    offloaded = answers["offload.optimizer"] != "none" or answers["offload.params"] != "none"
    if offloaded != (str(run.get("offload")) != "none"):
        out.append("offload answers disagree with run.offload")
    return out


def test_enough_rows_with_unique_ids():
    ids = [r.get("id") for r in ROWS]
    assert len(ids) == len(set(ids)), "row ids repeat"
    measured = [r for r in ROWS if r["figure"]["kind"] != "oom"]
    assert len(measured) >= 12, f"the issue asks for at least 12 published measurements, have {len(measured)}"


@pytest.mark.parametrize("row", ROWS, ids=[r.get("id", "?") for r in ROWS])
def test_row_is_complete_resolvable_and_valid(row):
    assert problems(row) == []


@pytest.mark.parametrize("row", ROWS, ids=[r.get("id", "?") for r in ROWS])
def test_benchmark_compares_each_row(row):
    result = BENCH.compare(row)
    assert result["estimate_bytes"] > 0
    if row["figure"]["kind"] == "oom":
        assert result["ratio"] is None and result["verdict"]
    else:
        assert result["ratio"] > 0 and result["verdict"] in ("within", "OVER", "UNDER")


def _broken(change) -> dict[str, Any]:
    row = copy.deepcopy(next(r for r in ROWS if r["figure"]["kind"] == "max_reserved"))
    change(row)
    return row


@pytest.mark.parametrize(("change", "word"), [
    (lambda r: r.pop("quote"), "missing quote"),
    (lambda r: r["figure"].update(kind="peak"), "figure.kind"),
    (lambda r: r["figure"].update(unit="gigs"), "unit"),
    (lambda r: r.update(model={"shape": "llama-9-1b"}), "model not resolvable"),
    (lambda r: r.update(model={"config": "no-such.json"}), "model not resolvable"),
    (lambda r: r["answers"]["sharding"].update(strategy="zero9"), "answers:"),
    (lambda r: r["answers"]["launch"].update(num_processes=4), "num_processes"),
    (lambda r: r["answers"]["training"].update(activation_checkpointing=True), "activation_checkpointing"),
    (lambda r: r["source"].update(commit="abc"), "40-digit commit"),
    (lambda r: r["figure"].update(value=81.4), "does not show the figure"),
])
def test_validator_rejects_a_broken_row(change, word):
    found = problems(_broken(change))
    assert any(word in p for p in found), found
