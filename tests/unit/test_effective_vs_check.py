"""The effective model and `check` tell one story: a value written in a config that the libraries ignore, override
or change (the model's why) is named by a `check` finding, for every corpus config the model accepts. The severity
contract says such a value is an error or a warning unless it is harmless; never silence."""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ROOT

from wizard.core.answers.imported import check_findings
from wizard.core.effective import effective
from wizard.core.effective.situation import Situation
from wizard.core.effective.used import CHANGED, IGNORED, OVERRIDDEN
from wizard.core.lint import load_config_files

CORPUS = sorted((ROOT / "tests/data/check_corpus").glob("*/accelerate_config.yaml")) + sorted(
    (ROOT / "tests/data/real_corpus/cases").glob("*.yaml"))


def _leaf(key: str) -> str:
    return key.rsplit(".", 1)[-1]


@pytest.mark.parametrize("chunk", range(4))
def test_every_value_the_model_sets_aside_is_named_by_check(chunk):
    checked = 0
    missing = []
    for path in CORPUS[chunk::4]:
        loaded = load_config_files(Path(path))
        e = effective(loaded.yaml, loaded.ds, Situation())
        if e.failures:  # the run stops: check's errors name the cause (tests/verify: the differential test)
            continue
        named = {_leaf(k) for f in check_findings(loaded, 8) for k in f.keys}
        for key, used in e.values.items():
            if used.why in (IGNORED, CHANGED, OVERRIDDEN) and used.keys:
                checked += 1
                if not any(_leaf(k) in named for k in used.keys):
                    missing.append(f"{path.relative_to(ROOT)}: {key} {used.why} ({', '.join(used.keys)}): {used.note}")
    assert not missing, "\n".join(missing)
    assert chunk != 0 or checked > 0
