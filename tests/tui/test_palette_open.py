"""N8: the palette's open commands: "open" finds the config import too (it also takes a DeepSpeed JSON alone), and so
does "json"; its help line says a DeepSpeed JSON alone is taken."""
from __future__ import annotations

import pytest
from helpers import press, settle
from textual.command import CommandList, CommandPalette

from wizard.tui.app import create_app


async def _found(app, pilot, query: str) -> list[str]:
    await press(pilot, "ctrl+p")
    await settle(pilot)
    await pilot.press(*query)
    await pilot.pause(0.5)
    await settle(pilot)
    palette = app.screen
    assert isinstance(palette, CommandPalette)
    options = palette.query_one(CommandList)
    found = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
    await press(pilot, "escape")
    await settle(pilot)
    return found


@pytest.mark.asyncio
async def test_open_and_json_find_the_config_import():
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        opened = await _found(app, pilot, "open")
        assert any("Open answers file" in o for o in opened), opened
        assert any("accelerate config" in o for o in opened), opened
        assert any("accelerate config" in o for o in await _found(app, pilot, "json"))
        (cmd,) = [c for c in app.get_system_commands(app.screen) if "accelerate config" in c.title]
        assert "DeepSpeed JSON alone" in cmd.help
