"""The wizard starts without cyclic garbage collection and turns it back on after its first screen."""
from __future__ import annotations

import gc

import pytest

from wizard.cli import main
from wizard.tui.app import create_app
from wizard.tui.screens.main import MainScreen
from wizard.tui.shared import startup_gc


@pytest.fixture(autouse=True)
def collector_on():
    """Whatever a test does, the test process gets its collector back."""
    was = gc.isenabled()
    yield
    startup_gc.resume()
    if was:
        gc.enable()


def test_pause_and_resume_turn_the_collector_off_and_on():
    assert gc.isenabled()
    startup_gc.pause()
    assert not gc.isenabled() and startup_gc.paused()
    startup_gc.pause()  # a second pause changes nothing
    startup_gc.resume()
    assert gc.isenabled() and not startup_gc.paused()
    startup_gc.resume()  # a second resume changes nothing
    assert gc.isenabled()


def test_a_collector_turned_off_elsewhere_stays_off():
    gc.disable()
    startup_gc.pause()
    assert not startup_gc.paused()
    startup_gc.resume()
    assert not gc.isenabled(), "resume() turned on a collector that someone else had turned off"


@pytest.mark.asyncio
async def test_the_collector_is_back_once_the_first_screen_and_the_full_check_are_done():
    startup_gc.pause()
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        main_screen = next(s for s in app.screen_stack if isinstance(s, MainScreen))
        for _ in range(50):
            if main_screen.ready:
                break
            await pilot.pause(0.05)
        assert main_screen.ready
        assert gc.isenabled(), "the collector stayed off after the first screen"


def test_an_entry_that_ends_before_the_first_screen_turns_it_back_on(tmp_path, capsys):
    missing = tmp_path / "nope.yaml"
    assert main(["--answers", str(missing)]) == 2
    assert "nope.yaml" in capsys.readouterr().err
    assert gc.isenabled()
