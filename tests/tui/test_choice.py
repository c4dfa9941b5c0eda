"""The one-widget drop-down (Choice) that replaced Textual's Select in the forms, and the deferred footer."""
from __future__ import annotations

import pytest
from helpers import focused_on, main_of, press

from wizard.core.answers import default_answers
from wizard.tui.app import create_app
from wizard.tui.shared.session import Start
from wizard.tui.widgets.choice_menu import ChoiceMenu
from wizard.tui.widgets.fields import Choice, Toggle

SIZE = (80, 24)


@pytest.mark.asyncio
async def test_enter_opens_the_list_on_the_current_value_and_enter_picks():
    app = create_app(Start(default_answers()))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        choice = (await focused_on(pilot, "offload.optimizer")).control
        assert app.focused is choice and choice.value == "none"
        await press(pilot, "enter")
        assert isinstance(app.screen, ChoiceMenu)
        menu = app.screen.query_one("#choices")
        assert menu.highlighted == 0  # the current value
        region = menu.region
        assert region.y == choice.region.bottom or region.bottom == choice.region.y  # next to the field
        await press(pilot, "down", "enter")
        assert app.screen is main and app.focused is choice
        assert choice.value == "cpu" and main.answers["offload.optimizer"] == "cpu"
        assert "cpu" in str(choice.render())


@pytest.mark.asyncio
async def test_space_and_enter_flip_a_true_false_field():
    """Its action is "flip": Textual's own ``action_toggle`` (an attribute name to toggle) stays untouched."""
    app = create_app(Start(default_answers()))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        toggle = (await focused_on(pilot, "training.activation_checkpointing")).control
        assert isinstance(toggle, Toggle) and app.focused is toggle and toggle.value is False
        await press(pilot, "space")
        assert toggle.value is True and main.answers["training.activation_checkpointing"] is True
        await press(pilot, "enter")
        assert toggle.value is False and main.answers["training.activation_checkpointing"] is False


@pytest.mark.asyncio
async def test_escape_and_a_click_outside_keep_the_value():
    app = create_app(Start(default_answers()))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        await focused_on(pilot, "offload.optimizer")
        await press(pilot, "space", "down", "escape")
        assert app.screen is main and main.answers["offload.optimizer"] == "none"
        await press(pilot, "enter")
        await pilot.click(offset=(79, 0))  # the top-right corner, away from the list
        await pilot.pause()
        assert app.screen is main and main.answers["offload.optimizer"] == "none"


@pytest.mark.asyncio
async def test_a_nullable_choice_offers_the_library_default_and_values_set_elsewhere_show():
    app = create_app(Start(default_answers()))
    async with app.run_test(size=SIZE) as pilot:
        main = main_of(app)
        choice = (await focused_on(pilot, "deepspeed.overlap_comm")).control
        assert isinstance(choice, Choice)
        assert choice.options[0] == ("(library default)", None)
        assert choice.value is None and choice.has_class("-blank")
        await press(pilot, "enter", "down", "enter")
        picked = choice.value
        assert picked is not None and main.answers["deepspeed.overlap_comm"] == picked
        main.set_answers(main.answers.replace({"deepspeed.overlap_comm": None}))
        await pilot.pause()
        assert choice.value is None and "(library default)" in str(choice.render())
        with pytest.raises(ValueError):
            choice.set_value("not-a-choice")


@pytest.mark.asyncio
async def test_the_footer_shows_its_keys_once_the_screen_is_ready():
    """The footer is mounted just after the first frame: it must still show the screen's keys."""
    app = create_app(Start(default_answers()))
    async with app.run_test(size=(160, 50)) as pilot:
        main = main_of(app)
        while not main.ready:
            await pilot.pause(0.05)
        await pilot.pause(0.1)
        from textual.widgets import Footer

        keys = [str(k.description) for k in main.query_one(Footer).query("FooterKey")]
        assert "Review" in keys and "Rehearse" in keys
