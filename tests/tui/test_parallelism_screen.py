"""The Parallelism group in the wizard: listed among the groups, edited like the others, its mesh drawn."""
from __future__ import annotations

import pytest
from helpers import focused_on, main_of, main_ready, press, settle
from rich.console import Console

from wizard.core.answers import default_answers
from wizard.tui.app import create_app
from wizard.tui.shared.session import Start
from wizard.tui.widgets.explanation import ExplanationPane
from wizard.tui.widgets.sidebar import GroupList

SIZE = (80, 24)


def pane_text(main) -> str:
    pane = main.query_one(ExplanationPane)
    console = Console(width=76, record=True, color_system=None)
    console.print(pane._build(76))
    return console.export_text()


@pytest.mark.asyncio
async def test_the_group_is_listed_and_typing_cp_draws_the_mesh():
    app = create_app(Start(default_answers().replace({"launch.num_processes": 8})))
    async with app.run_test(size=SIZE) as pilot:
        await main_ready(pilot)
        main = main_of(app)
        groups = main.query_one(GroupList)
        assert groups.get_option_index("parallelism") == groups.get_option_index("sharding") + 1
        await main.focus_group("parallelism")
        await settle(pilot)
        assert "Mesh: drawn here when FSDP2's tp_size or cp_size is above 1" in pane_text(main)
        await focused_on(pilot, "parallelism.cp_size")
        await press(pilot, "2")
        assert main.answers["parallelism.cp_size"] == 2
        await main.focus_group("parallelism")
        await settle(pilot)
        text = pane_text(main)
        assert "Mesh: dp_shard 4 x cp 2 = 8 ranks" in text and "cp groups: [0,1] [2,3] [4,5] [6,7]" in text
        # what is written follows: dp_shard is what the processes leave over
        pc = main.generated.rendered.accelerate["parallelism_config"]
        assert pc == {"parallelism_config_cp_comm_strategy": "allgather", "parallelism_config_cp_size": 2,
                      "parallelism_config_dp_shard_size": 4}


@pytest.mark.asyncio
async def test_deepspeed_writes_ulysses_from_the_form():
    app = create_app(Start(default_answers().replace({"backend": "deepspeed"})))
    async with app.run_test(size=SIZE) as pilot:
        await main_ready(pilot)
        main = main_of(app)
        await focused_on(pilot, "parallelism.sp_size")
        await press(pilot, "2")
        assert main.answers["parallelism.sp_size"] == 2
        pc = main.generated.rendered.accelerate["parallelism_config"]
        assert pc["parallelism_config_sp_size"] == 2 and pc["parallelism_config_sp_backend"] == "deepspeed"
        assert "parallelism_config_tp_size" not in pc
