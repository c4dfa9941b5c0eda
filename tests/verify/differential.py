"""The differential check of the effective model (wizard/core/effective) against the real libraries: the same
config through :func:`wizard.core.effective.effective` and through accelerate + DeepSpeed
(:func:`wizard.core.verify.roundtrip.effective_config`), key by key.

Every key the model states in the round trip's vocabulary must equal what the libraries built; a config the
libraries refuse must be one the model says fails, and the other way round. Used by tests/verify/
test_effective_differential.py and benchmarks-free: run it as a script for a summary over every corpus.
"""
from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wizard.core.effective import Situation, effective
from wizard.core.findings import ERROR

ROOT = Path(__file__).resolve().parents[2]
NOT_COMPARED = ("deepspeed_plugin.config_file",)
"""A path, resolved by the round trip against the launch folder; the model keeps what was written."""


@dataclass
class Case:
    name: str
    accelerate: dict | None
    deepspeed: dict | None
    folder: Path | None = None
    """Where the files are (None: written to a scratch folder)."""
    situation: Situation = field(default_factory=lambda: Situation(hidden_size=4096))
    micro_batch: int = 1
    trainer_arguments: Mapping[str, Any] | None = None


@dataclass
class Outcome:
    case: str
    differences: list[tuple[str, Any, Any]]
    """(key, model, libraries) for every stated key that differs."""
    library_failed: bool
    model_failed: bool
    library_errors: list[str]
    model_failures: list[str]

    @property
    def agrees(self) -> bool:
        return self.library_failed == self.model_failed and (self.library_failed or not self.differences)


def compare(case: Case) -> Outcome:
    from wizard.core.verify.roundtrip import effective_config, flatten_effective, values_equal

    model = effective(case.accelerate, case.deepspeed, case.situation)
    with tempfile.TemporaryDirectory(prefix="fsdpds_diff_") as tmp:
        folder = case.folder or Path(tmp)
        yaml_path = folder / "accelerate_config.yaml"
        if case.folder is None:
            acc = dict(case.accelerate or {})
            if case.deepspeed is not None:
                (folder / "ds_config.json").write_text(json.dumps(case.deepspeed))
                dc = dict(acc.get("deepspeed_config") or {})
                dc["deepspeed_config_file"] = str(folder / "ds_config.json")
                acc["deepspeed_config"] = dc
            yaml_path.write_text(yaml.safe_dump(acc))
        lib = effective_config(yaml_path, micro_batch_size=case.micro_batch, launch_dir=folder,
                               hidden_size=case.situation.hidden_size,
                               trainer_arguments=case.trainer_arguments)
    errors = [f"{f.rule}: {f.message}" for f in lib.findings if f.severity == ERROR]
    flat = flatten_effective(lib)
    diffs = []
    if not errors and model.ok:
        for key, value in model.library_view().items():
            if key in NOT_COMPARED:
                continue
            got = flat.get(key, "<absent>")
            if not values_equal(value, got) and not (value is None and got == "<absent>"):
                diffs.append((key, value, got))
    return Outcome(case.name, diffs, bool(errors), not model.ok, errors,
                   [f"{f.by}: {f.message}" for f in model.failures])


def edge_cases() -> list[Case]:
    """Configs that lean on the libraries' defaults alone (what no preset or corpus file leaves out)."""
    base = {"compute_environment": "LOCAL_MACHINE", "num_processes": 2, "num_machines": 1}
    return [
        Case("deepspeed-inline-nothing", {**base, "distributed_type": "DEEPSPEED", "deepspeed_config": {}}, None),
        Case("fsdp-nothing", {**base, "distributed_type": "FSDP", "fsdp_config": {}}, None),
        Case("fsdp2-nothing", {**base, "distributed_type": "FSDP", "fsdp_config": {"fsdp_version": 2}}, None),
        Case("deepspeed-json-nothing", {**base, "distributed_type": "DEEPSPEED", "deepspeed_config": {
            "deepspeed_config_file": "ds_config.json"}}, {"zero_optimization": {},
                                                    "train_micro_batch_size_per_gpu": "auto"}),
    ]


def check_corpus_cases() -> Iterator[Case]:
    """tests/data/check_corpus: each folder's accelerate_config.yaml and the JSON it names (an own loop)."""
    for folder in sorted((ROOT / "tests" / "data" / "check_corpus").iterdir()):
        path = folder / "accelerate_config.yaml"
        if not path.is_file():
            continue
        acc = yaml.safe_load(path.read_text())
        if not isinstance(acc, dict):
            continue
        ds = None
        ref = (acc.get("deepspeed_config") or {}).get("deepspeed_config_file") if isinstance(
            acc.get("deepspeed_config"), dict) else None
        if isinstance(ref, str) and (folder / ref).is_file():
            ds = json.loads((folder / ref).read_text())
        yield Case(folder.name, acc, ds, folder=folder)


def real_corpus_cases(step: int = 1) -> Iterator[Case]:
    """tests/data/real_corpus: accelerate YAMLs (with their JSON when the repository has it), and DeepSpeed JSONs
    under a plain accelerate DeepSpeed YAML; every ``step``-th case, in each project's own loop."""
    cases = sorted((ROOT / "tests" / "data" / "real_corpus" / "cases").glob("*.yaml"))
    for path in cases[::step]:
        case = yaml.safe_load(path.read_text())
        if case["kind"] == "deepspeed_json":
            acc = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "DEEPSPEED", "num_processes": 8,
                   "num_machines": 1, "deepspeed_config": {"deepspeed_config_file": "ds_config.json"}}
            yield Case(path.stem, acc, case["config"])
        elif isinstance(case["config"], dict):
            dc = case["config"].get("deepspeed_config")
            ref = dc.get("deepspeed_config_file") if isinstance(dc, dict) else None
            if ref and case.get("ds_config") is None:
                continue  # the JSON lives outside the repository: nothing to replay
            yield Case(path.stem, case["config"], case.get("ds_config") if ref else None)


def main() -> None:
    import sys

    step = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    total = agree = 0
    for case in [*edge_cases(), *check_corpus_cases(), *real_corpus_cases(step)]:
        out = compare(case)
        total += 1
        agree += out.agrees
        if not out.agrees:
            print(f"{case.name}: library failed={out.library_failed} model failed={out.model_failed}")
            for d in out.differences[:8]:
                print("    ", d)
            for e in (out.library_errors + out.model_failures)[:3]:
                print("     !", e[:160])
    print(f"{agree} of {total} agree")


if __name__ == "__main__":
    main()
