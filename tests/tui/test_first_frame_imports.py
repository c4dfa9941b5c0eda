"""The TUI's start path stays light, without timing anything (issue 26): the modules of the wizard imported by the
time the first screen is painted are listed here, and the list only shrinks.

`fsdpds-wizard` (no arguments) runs in a fresh interpreter as the installed entry point runs it
(``wizard.cli.main``, the TUI entry, the app), headless at 80x24; when the main screen's first frame goes to the
terminal (``App._display``), the wizard's modules in ``sys.modules`` are what the first frame cost to import. A
module new there fails the test: import it where it is first needed (after the first paint: the explanation pane's
builder, the converters, the full check's linter), or add it to FIRST_FRAME on purpose and say why in the commit. A
module listed that is no longer imported fails too: take it out, so that it cannot come back unnoticed.
``PYTHONPATH=. python tests/tui/test_first_frame_imports.py`` prints the list as it is now.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FIRST_FRAME = {
    # issue 26: the command line's shared words (the entry reads no-argument starts without the parser, argparse)
    "wizard.cli_words",
    "wizard", "wizard.cli", "wizard.commands", "wizard.commands.tui_entry", "wizard.core", "wizard.core.answers",
    "wizard.core.answers.generate", "wizard.core.answers.model", "wizard.core.answers.multinode",
    "wizard.core.answers.of_answers", "wizard.core.answers.render", "wizard.core.answers.rules", "wizard.core.bounds",
    "wizard.core.catalog", "wizard.core.catalog.model", "wizard.core.catalog.settings", "wizard.core.catalog.writes",
    "wizard.core.context", "wizard.core.convert", "wizard.core.convert.common", "wizard.core.effective",
    "wizard.core.effective.builder", "wizard.core.effective.deepspeed", "wizard.core.effective.fsdp",
    "wizard.core.effective.layout", "wizard.core.effective.model", "wizard.core.effective.situation",
    "wizard.core.effective.used", "wizard.core.exits", "wizard.core.findings", "wizard.core.hosts", "wizard.core.i18n",
    "wizard.core.library", "wizard.core.library.auto", "wizard.core.library.deepspeed", "wizard.core.library.fsdp",
    "wizard.core.library.launcher", "wizard.core.localized", "wizard.core.localized.ui", "wizard.core.recordclass",
    # issue 27: the catalogue's sentences other sentences carry (a setting's "not used" line), one lookup for the
    # package and the findings' translator
    "wizard.core.localized.catalog_texts",
    # issue 27: the findings pane's counts (the first frame's last words) in the language
    "wizard.core.localized.screens", "wizard.core.localized.screens.findings",
    # issue 27: the memory bar's words and the judged line's in the language (dicts), and the bar fitted by cells
    "wizard.core.localized.screens.memory", "wizard.core.localized.screens.judged", "wizard.core.i18n.cells",
    "wizard.core.rules", "wizard.core.vocab",
    "wizard.core.wizard_rules", "wizard.tui", "wizard.tui.app", "wizard.tui.screens", "wizard.tui.screens.main",
    "wizard.tui.shared", "wizard.tui.shared.history", "wizard.tui.shared.judged",
    "wizard.tui.shared.present", "wizard.tui.shared.session", "wizard.tui.shared.startup_gc", "wizard.tui.widgets",
    "wizard.tui.widgets.fields", "wizard.tui.widgets.findings",
    # issue 26: the widget that paints the whole first frame (its texts come from the widget modules listed here)
    "wizard.tui.widgets.first_frame",
    "wizard.tui.widgets.group_form", "wizard.tui.widgets.memory_bar",
    "wizard.tui.widgets.sidebar", "wizard.tui.widgets.statusbar",
}
"""The wizard's modules imported when the first frame is painted: the ceiling of the TUI's start path."""

_PROBE = r"""
import json, sys
from textual.app import App
from wizard.tui.app import WizardApp
from wizard.tui.screens.main import MainScreen

seen = {}
display = WizardApp._display


def first_frame(self, screen, renderable):
    if renderable is not None and isinstance(screen, MainScreen) and "modules" not in seen:
        seen["modules"] = sorted(m for m in sys.modules if m == "wizard" or m.startswith("wizard."))
        self.call_later(self.exit)
    display(self, screen, renderable)


WizardApp._display = first_frame
WizardApp.run = lambda self, **kw: App.run(self, headless=True, size=(80, 24))
sys.argv = ["fsdpds-wizard"]
from wizard.cli import main
code = main([])
with open(REPORT, "w") as f:
    json.dump({"code": code, "modules": seen.get("modules")}, f)
"""


def first_frame_modules() -> set[str]:
    """The wizard's modules imported by the time the TUI's first frame is painted, from a fresh interpreter."""
    with tempfile.TemporaryDirectory(prefix="first_frame_") as tmp:
        report = Path(tmp) / "modules.json"
        proc = subprocess.run([sys.executable, "-c", _PROBE.replace("REPORT", repr(str(report)))], cwd=tmp,
                              env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120)
        if proc.returncode != 0 or not report.exists():
            raise RuntimeError(f"the probe failed ({proc.returncode}): {proc.stderr[-2000:]}")
        result = json.loads(report.read_text())
    assert result["code"] == 0, f"fsdpds-wizard exited {result['code']}"
    assert result["modules"] is not None, "the main screen's first frame was not painted"
    return set(result["modules"])


def _env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.update(LC_ALL="C.UTF-8", LC_MESSAGES="", LANG="C.UTF-8")  # English, whatever the machine's locale
    return env


def test_first_frame_imports_only_what_is_listed():
    now = first_frame_modules()
    problems = []
    if now - FIRST_FRAME:
        problems.append(f"new on the TUI's start path: {sorted(now - FIRST_FRAME)}; import it where it is first needed "
                        "(after the first paint), or add it to FIRST_FRAME in tests/tui/test_first_frame_imports.py "
                        "on purpose and say why in the commit")
    if FIRST_FRAME - now:
        problems.append(f"no longer imported by the first frame: {sorted(FIRST_FRAME - now)}; take it out of "
                        "FIRST_FRAME in tests/tui/test_first_frame_imports.py: the list only shrinks")
    assert not problems, "\n".join(problems)


if __name__ == "__main__":
    print(sorted(first_frame_modules()))
