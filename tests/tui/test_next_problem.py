"""ctrl+n visits every error and warning the header counts: the answers' and those of an imported file as loaded."""
from __future__ import annotations

import json

import pytest
from helpers import ROOT, main_of, press

from wizard.tui.app import create_app
from wizard.tui.shared.present import finding_setting
from wizard.tui.shared.session import from_accelerate_config
from wizard.tui.widgets.fields import SettingField
from wizard.tui.widgets.findings import FindingsList
from wizard.tui.widgets.statusbar import StatusBar

SIZE = (80, 24)
CORPUS = ROOT / "tests" / "data" / "check_corpus"


def broken_deepspeed(folder) -> dict[str, object]:
    """A DeepSpeed JSON with five faults (fp16 and bf16 both on, a removed block, a misspelt key, a batch that does
    not add up, parameter offload at stage 2) and the accelerate YAML that names it."""
    ds = {"train_micro_batch_size_per_gpu": 2, "train_batch_size": 100, "gradient_accumulation_steps": 3,
          "fp16": {"enabled": True}, "bf16": {"enabled": True}, "amp": {"enabled": True},
          "zero_optimization": {"stage": 2, "offload_params": {"device": "cpu"}, "offload_param": {"device": "cpu"}}}
    (folder / "ds.json").write_text(json.dumps(ds))
    (folder / "acc.yaml").write_text("distributed_type: DEEPSPEED\nnum_machines: 1\nnum_processes: 8\n"
                                     f"deepspeed_config:\n  deepspeed_config_file: {folder / 'ds.json'}\n")
    return {"yaml": folder / "acc.yaml", "json": folder / "ds.json"}


def focused_setting(app) -> str | None:
    node = app.focused
    field = next((n for n in node.ancestors_with_self if isinstance(n, SettingField)), None) if node else None
    return field.setting.id if field else None


@pytest.mark.asyncio
@pytest.mark.parametrize("source", ["64_ds_file_plus_inline_zero_stage", "26_fsdp_min_num_params_1e8", "yaml", "json"])
async def test_ctrl_n_visits_every_problem_the_header_counts(source, tmp_path):
    path = CORPUS / source / "accelerate_config.yaml" if "_" in source else broken_deepspeed(tmp_path)[source]
    start = from_accelerate_config(path)
    app = create_app(start)
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await pilot.pause()
        listed = main.query_one(FindingsList)
        problems = [f for f in listed.findings if f.severity != "info"]
        errors = sum(f.severity == "error" for f in problems)
        warnings = len(problems) - errors
        header = str(main.query_one(StatusBar).render())
        assert f"✖ {errors} ▲ {warnings} " in header
        assert errors >= 1
        visited = []
        for _ in range(len(problems) + 1):
            app._notifications.clear()
            await press(pilot, "ctrl+n")
            await pilot.pause(0.05)
            assert not any("No errors or warnings" in n.message for n in app._notifications)
            current = listed.current
            visited.append(current)
            setting = finding_setting(current)
            if setting is not None:  # its setting, focused
                assert focused_setting(app) == setting, current
            else:  # the finding, shown in the list and explained
                assert app.focused is listed
                assert any(current.rule in n.message for n in app._notifications)
        assert [id(f) for f in visited] == [id(f) for f in problems + problems[:1]]  # each once, then round again
