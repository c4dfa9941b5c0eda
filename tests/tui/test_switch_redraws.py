"""Issue 27: a language switch at run time redraws what is on the main screen in the new language (the status
line, the findings list, the memory bar), not only the sidebar and the explanation."""
from __future__ import annotations

import pytest
from helpers import main_of

from wizard.core import i18n
from wizard.core.answers import default_answers
from wizard.tui.app import create_app
from wizard.tui.shared.session import Start
from wizard.tui.widgets.findings import FindingsList
from wizard.tui.widgets.memory_bar import MemoryBar
from wizard.tui.widgets.statusbar import StatusBar


def _shown(app) -> dict[str, str]:
    main = main_of(app)
    findings = main.query_one(FindingsList)
    return {"status": str(main.query_one(StatusBar).render()),
            "findings": "\n".join(str(findings.get_option_at_index(i).prompt) for i in range(findings.option_count)),
            "memory": str(main.query_one(MemoryBar).render())}


@pytest.mark.asyncio
async def test_a_switch_redraws_the_status_line_the_findings_and_the_memory_bar():
    i18n.set_language("en")
    app = create_app(Start(default_answers()))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        english = _shown(app)
        assert "folder: " in english["status"] and "full shard" in english["status"]
        assert "NOTE" in english["findings"]
        app.switch_language("zh-TW")
        await pilot.pause()
        chinese = _shown(app)
        assert "資料夾：" in chinese["status"] and "完全分片" in chinese["status"] and "folder" not in chinese["status"]
        assert "備註" in chinese["findings"] and "NOTE" not in chinese["findings"]
        assert chinese["memory"] != english["memory"]
        app.switch_language("en")
        await pilot.pause()
        assert _shown(app) == english  # and back, as it was
