"""The fp8 backend and its options in the precision group (issue 24 point 4), driven with the keyboard."""
from __future__ import annotations

import pytest
from helpers import field_of, focused_on, main_of, notes_of, press

from wizard.core.answers import default_answers
from wizard.tui.app import create_app
from wizard.tui.shared.session import Start

SIZE = (160, 50)  # the wide layout shows where each value is written


@pytest.mark.asyncio
async def test_choosing_the_fp8_backend_writes_its_options_and_names_the_others():
    app = create_app(Start(default_answers().replace({"precision.mixed_precision": "fp8",
                                                      "loading.ram_efficient": False})))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        rules = {f.rule for f in main.generated.findings}
        assert "fp8-auto-backend-fsdp" in rules and "fp8_config" not in main.generated.rendered.accelerate
        await focused_on(pilot, "precision.fp8_backend")
        await press(pilot, "enter", "down", "down", "enter")  # auto -> ao -> te
        assert main.answers["precision.fp8_backend"] == "te"
        fp8 = main.generated.rendered.accelerate["fp8_config"]
        assert fp8["backend"] == "TE" and fp8["amax_history_len"] == 1024 and "opt_level" not in fp8
        assert "fp8_config.margin: 0" in notes_of(field_of(main, "precision.fp8_margin"))
        assert notes_of(field_of(main, "precision.fp8_pad_inner_dim")) == ""
        await focused_on(pilot, "precision.fp8_margin")
        await press(pilot, "backspace", "3")
        assert main.generated.rendered.accelerate["fp8_config"]["margin"] == 3
        await focused_on(pilot, "precision.fp8_pad_inner_dim")
        await press(pilot, "space")  # a torchao option under Transformer Engine: not written, and said so
        unused = [f for f in main.generated.findings if f.rule == "fp8-options-unused"]
        assert [f.keys for f in unused] == [("precision.fp8_pad_inner_dim", "precision.fp8_backend")]
        assert "pad_inner_dim" not in main.generated.rendered.accelerate["fp8_config"]
