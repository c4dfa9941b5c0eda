"""Issue 27: the quit question (ctrl+q with unwritten answers) names each file's state ("new", "changed") in the
chosen language, in the review screen's words; the file names stay as written, and English reads as before."""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import focused_on, main_of, main_ready, press

from wizard.core import i18n, localized
from wizard.core.answers import default_answers
from wizard.tui.app import QUIT_DIALOG, create_app
from wizard.tui.screens.confirm import ConfirmScreen
from wizard.tui.shared.session import Start

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    i18n.reset()


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "tr", "zh-TW"])
async def test_the_quit_questions_file_states_in_the_language(in_tmp, lang):
    i18n.set_language(lang)
    app = create_app(Start(default_answers()))
    async with app.run_test(size=SIZE) as pilot:
        await main_ready(pilot)
        main = main_of(app)
        await focused_on(pilot, "training.gradient_accumulation_steps")
        await press(pilot, "ctrl+shift+a", "backspace", "4")
        out = Path(main.out).expanduser()
        out.mkdir(parents=True, exist_ok=True)
        (out / "accelerate_config.yaml").write_text("compute_environment: LOCAL_MACHINE\n", encoding="utf-8")
        await press(pilot, "ctrl+q")
        assert isinstance(app.screen, ConfirmScreen) and app.screen.id == QUIT_DIALOG
        message = str(app.screen.message)
        new, changed = (localized.screen("review", f"state_{s}", lang) for s in ("new", "changed"))
        assert localized.screen("run", "flow.file_state", lang, file="accelerate_config.yaml", state=changed) \
            in message
        assert localized.screen("run", "flow.file_state", lang, file="answers.yaml", state=new) in message
        if lang == "en":
            assert "  accelerate_config.yaml (changed)\n" in message and "  answers.yaml (new)" in message
        else:
            assert new != "new" and changed != "changed"
            assert "(new)" not in message and "(changed)" not in message
        await press(pilot, "n")
        assert app.screen is main and app.is_running
