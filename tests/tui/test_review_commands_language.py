"""The review's Machines tab in Turkish and Traditional Chinese (issue 27): the comment line before each machine's
command in the language, the commands as written; in English as before."""
from __future__ import annotations

import pytest
from helpers import TEMPLATES, open_review

from wizard.core import i18n
from wizard.core.answers import parse_answers_text
from wizard.tui.app import create_app
from wizard.tui.shared.session import Start

MAIN = {"en": "# on machine 0 (main):", "tr": "# makine 0 (ana) üzerinde:", "zh-TW": "# 在機器 0（主機器）上："}
SECOND = {"en": "# on machine 1:", "tr": "# makine 1 üzerinde:", "zh-TW": "# 在機器 1 上："}


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "tr", "zh-TW"])
async def test_the_machines_comments_in_the_language_and_the_commands_as_written(in_tmp, lang):
    answers, _ = parse_answers_text((TEMPLATES / "fsdp2-two-node.yaml").read_text())
    i18n.set_language(lang)
    try:
        app = create_app(Start(answers), "out")
        async with app.run_test(size=(160, 50)) as pilot:
            review = await open_review(app, pilot)
            text = review.machines_text()
    finally:
        i18n.reset()
    rows = text.splitlines()
    assert MAIN[lang] in rows and SECOND[lang] in rows
    cfg = in_tmp / "out" / "accelerate_config.yaml"
    for rank in (0, 1):
        command = (f"accelerate launch --config_file {cfg} --machine_rank {rank} --main_process_ip 10.0.0.1 "
                   "--main_process_port 29500 train.py")
        assert command in rows  # the command as written, on its own line
    if lang != "en":
        assert "# on machine" not in text
