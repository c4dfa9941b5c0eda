"""Issue 27: the quit question (ctrl+q with unwritten answers) names each file's state ("new", "changed") in the
chosen language, in the review screen's words; the file names stay as written, and English reads as before."""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import focused_on, press, wizard_in

from wizard.core import localized
from wizard.tui.app import QUIT_DIALOG
from wizard.tui.screens.confirm import ConfirmScreen

SIZE = (80, 24)



@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["en", "tr", "zh-TW"])
async def test_the_quit_questions_file_states_in_the_language(in_tmp, lang):
    async with wizard_in(lang, size=SIZE) as (app, pilot, main):
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
