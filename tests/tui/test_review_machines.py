"""The review's Machines tab: the per-node commands for a two-node preset, the hostfile tab for DeepSpeed's pdsh
launcher, and nothing of the kind on one machine."""
from __future__ import annotations

import pytest
from helpers import TEMPLATES, open_review

from wizard.core.answers import answers_from_mapping, default_answers, parse_answers_text
from wizard.tui.app import create_app
from wizard.tui.shared.session import Start

SIZE = (160, 50)


@pytest.mark.asyncio
async def test_two_node_preset_shows_the_command_of_each_machine(in_tmp):
    answers, _ = parse_answers_text((TEMPLATES / "fsdp2-two-node.yaml").read_text())
    app = create_app(Start(answers), "out")
    async with app.run_test(size=SIZE) as pilot:
        review = await open_review(app, pilot)
        text = review.machines_text()
        cfg = in_tmp / "out" / "accelerate_config.yaml"
        for rank in (0, 1):
            assert (f"accelerate launch --config_file {cfg} --machine_rank {rank} --main_process_ip 10.0.0.1 "
                    "--main_process_port 29500 train.py") in text
        assert "# SLURM batch script" in text
        assert "#SBATCH --nodes=2" in text and '--machine_rank "$SLURM_NODEID"' in text  # answers.slurm.batch_script
        shown = review.query_one("#machines-text").content  # the Syntax the tab shows
        assert "--machine_rank 1" in shown.code
        assert review.query_one("#files").get_tab("file-machines").label.plain == "Machines"


@pytest.mark.asyncio
async def test_pdsh_shows_one_command_and_the_hostfile_tab(in_tmp):
    answers, findings = answers_from_mapping({
        "backend": "deepspeed", "launch": {"num_processes": 16, "num_machines": 2, "ds_multinode_launcher": "pdsh",
                                           "ds_hostfile": "hostfile"}})
    assert answers is not None, findings
    app = create_app(Start(answers), "out")
    async with app.run_test(size=SIZE) as pilot:
        review = await open_review(app, pilot)
        assert "hostfile" in review.generated.files
        assert review.query("#file-hostfile").first() is not None
        commands = review.machines_text().split("# SLURM batch script")[0]
        assert "--machine_rank" not in commands and "# Run once" in commands


@pytest.mark.asyncio
async def test_one_machine_has_no_machines_tab(in_tmp):
    app = create_app(Start(default_answers()), "out")
    async with app.run_test(size=SIZE) as pilot:
        review = await open_review(app, pilot)
        assert not review.query("#file-machines")
        assert not review.query("#machines-text")
