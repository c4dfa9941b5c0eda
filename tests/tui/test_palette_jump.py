"""The palette's "go to setting" at 80x24: the setting it goes to is scrolled into view, so what is typed next edits
a field the user can see."""
from __future__ import annotations

import pytest
from helpers import main_of, press, settle

from wizard.core.catalog import GROUPS, settings_in
from wizard.tui.app import create_app
from wizard.tui.widgets.fields import SettingField


def last_settings() -> list[str]:
    """The last setting of every group whose form is longer than 80x24 shows."""
    return [settings_in(g.id)[-1].id for g in GROUPS if len(settings_in(g.id)) > 5]


@pytest.mark.asyncio
async def test_the_palette_scrolls_the_setting_it_goes_to_into_view():
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        main = main_of(app)
        await settle(pilot)
        hidden = []
        for setting_id in last_settings():
            await press(pilot, "ctrl+p")
            await pilot.press(*setting_id)
            await settle(pilot)
            await press(pilot, "enter")
            await settle(pilot)
            field = next(n for n in app.focused.ancestors_with_self if isinstance(n, SettingField))
            assert field.setting.id == setting_id
            form = field.parent
            if not form.content_region.contains_region(app.focused.region):
                hidden.append((setting_id, form.scroll_y, app.focused.region, form.content_region))
            assert main.is_current
        assert hidden == []
