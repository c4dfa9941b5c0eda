"""The header names the sharding as it runs (the effective model's runs.*), not as the intent is called."""
from __future__ import annotations

import pytest
from helpers import main_of

from wizard.core.answers import default_answers
from wizard.core.answers.of_answers import of_answers
from wizard.core.catalog import SHARDING
from wizard.tui.app import create_app
from wizard.tui.shared.present import target_label
from wizard.tui.shared.session import Start
from wizard.tui.widgets.statusbar import StatusBar


@pytest.mark.asyncio
async def test_fsdp2_without_sharding_is_called_what_it_runs_as():
    """FSDP2 has no NO_SHARD: sharding.strategy none writes reshard_after_forward false, which runs as
    SHARD_GRAD_OP does."""
    answers = default_answers().replace({"sharding.strategy": "none"})
    assert of_answers(answers)["runs.fsdp_strategy"] == "SHARD_GRAD_OP"
    app = create_app(Start(answers))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        header = str(main_of(app).query_one(StatusBar).render())
        assert "FSDP2 no reshard (≈SHARD_GRAD_OP)" in header
        assert "NO_SHARD" not in header.replace("SHARD_GRAD_OP", "")


@pytest.mark.parametrize("strategy", sorted(SHARDING))
@pytest.mark.parametrize("target", [{}, {"fsdp_version": 1}, {"backend": "deepspeed"}])
def test_every_label_names_the_layout_the_effective_model_runs(strategy, target):
    answers = default_answers().replace(target).replace({"sharding.strategy": strategy, "launch.num_machines": 2})
    e = of_answers(answers)
    label = target_label(answers)
    if answers.target == "deepspeed":
        assert label == f"DeepSpeed ZeRO-{e['runs.zero_stage']}"
    elif answers.target == "fsdp1":
        assert label == f"FSDP1 {e['runs.fsdp_strategy']}"
    else:
        assert ("hybrid" in label) == e["runs.fsdp_hybrid"]
        assert ("full shard" in label) == e["runs.fsdp_reshard"]
        if not e["runs.fsdp_hybrid"]:
            assert label.endswith("full shard" if e["runs.fsdp_reshard"] else "(≈SHARD_GRAD_OP)")
