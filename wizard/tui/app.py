"""Wiring: the App, its command palette entries, and the factory used by the CLI and the tests."""
from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from ..core.catalog import DEEPSPEED, FSDP1, FSDP2, GROUPS, TARGET_LABELS
from .screens.main import MainScreen
from .shared.judged import GIVEN, Judged, judged_for, judged_from_context
from .shared.session import MemoryContext, Start, StartError, from_scratch, memory_from_args, start_from_args

if TYPE_CHECKING:
    from textual.pilot import Pilot

QUIT_DIALOG = "confirm-quit"
"""The id of the dialog ctrl+q opens with unwritten answers (ctrl+q there quits)."""


def unwritten_line(name: str, state: str) -> str:
    """One line of the quit question's list: a file ``MainScreen.unwritten`` names and its state (``new``,
    ``changed``, ...: :func:`wizard.core.files.file_state`) in the language, in the words of the review screen and
    the launch flow's line (``flow.file_state``); a state the review screen has no word for as it is."""
    from ..core import localized
    from ..core.localized.screens import words

    key = f"state_{state}"
    shown = localized.screen("review", key, None) if key in words("review") else state
    return localized.screen("run", "flow.file_state", None, file=name, state=shown)


def break_between_wide_characters() -> None:
    """Let Rich break a line between two Chinese characters, as it breaks English between words (once per process).

    Rich wraps at spaces; Chinese has none inside a sentence, so a run like 上預演：兩個行程、隨附的腳本 was one
    "word": moved whole to the next line (leaving the line before half empty), and folded only when longer than a
    line. Each wide character (with the marks that may not start or end a line kept beside it:
    :func:`wizard.core.i18n.cells._pieces`, the same rule as the commands' own wrapping) becomes a word of its own;
    text without wide characters is read by Rich's own ``words`` unchanged. Rich's ``divide_line`` reads the
    module's ``words``, so replacing that one function changes how every pane wraps (the first frame's too)."""
    import rich._wrap as rich_wrap

    from ..core.i18n.cells import _pieces, has_wide

    own = rich_wrap.words
    if getattr(own, "breaks_wide", False):
        return

    def words(text: str):
        for start, end, word in own(text):
            bare = word.rstrip()
            if not has_wide(bare):
                yield start, end, word
                continue
            pieces = _pieces(bare)
            at = start
            for i, piece in enumerate(pieces):
                last = i == len(pieces) - 1
                yield at, end if last else at + len(piece), word[at - start:] if last else piece
                at += len(piece)

    words.breaks_wide = True  # type: ignore[attr-defined]
    rich_wrap.words = words


def settings_provider():
    """The palette's "find a setting" provider, imported when the palette first opens (not at start-up)."""
    from .commands import SettingsProvider

    return SettingsProvider


class WizardApp(App[int]):
    """Settings screen by default; review, help and dialogs are pushed on top."""

    COMMANDS = App.COMMANDS | {settings_provider}
    TITLE = "fsdpds-wizard"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", id="quit", tooltip="Quit (asks first when changed answers are not written; "
                "ctrl+q again quits)", show=False, priority=True),
        Binding("f1", "help", "Help", id="app-help", tooltip="This list of keys", show=False),
        # Textual's own command palette binding (the same key, action and words), declared here so that its words are
        # ours to translate: the key bar shows them in the wizard's language. A system binding: F1 lists none
        Binding(App.COMMAND_PALETTE_BINDING, "command_palette", "palette", show=False, priority=True,
                tooltip="Open the command palette", system=True),
    ]

    def __init__(self, start: Start | None = None, out: str | None = None, ds_path: str = "auto",
                 memory: MemoryContext | None = None, slurm: dict[str, str | None] | None = None,
                 judged: Judged | None = None) -> None:
        super().__init__()
        break_between_wide_characters()
        self.judged = judged or judged_for()
        """The library versions the answers are judged for (the verified ones, the --LIB-version flags', or the
        installed ones: the palette switches until exit; wizard/tui/shared/judged.py)."""
        self.slurm = slurm
        """None for local runs; with ``--slurm``, ``{"partition": ..., "time": ...}``: ctrl+l and F5 submit the run
        as a SLURM batch job (wizard/run/slurm.py), like ``--headless ... --launch --slurm``."""
        self.memory = memory or MemoryContext()
        """The model and GPUs of the memory bar (--model, --gpu-memory, --seq; the Memory screen changes it)."""
        self.start = start or from_scratch()
        self.out = out
        self.ds_path = ds_path
        """How the accelerate YAML names the DeepSpeed JSON: ``auto`` (relative to the folder the wizard started
        from when the output folder lies inside it) or ``absolute`` (``--ds-config-path``)."""

    def get_default_screen(self) -> Screen:
        return MainScreen(self.start, self.out, self.ds_path)

    @property
    def main(self) -> MainScreen:
        return next(s for s in self.screen_stack if isinstance(s, MainScreen))

    PILOT_WAITS_FOR_WIDGETS = True
    """Whether :meth:`run_test` hands its pilot over once the main screen is complete (its real widgets in place, which
    come after a first frame painted by one widget, see :meth:`MainScreen.compose`, and the full check run): a test
    then drives the screen a user sees. A test of the keys typed before that sets it False."""

    @asynccontextmanager
    async def run_test(self, *args, **kwargs) -> AsyncIterator[Pilot]:
        async with super().run_test(*args, **kwargs) as pilot:
            main = next((s for s in self.screen_stack if isinstance(s, MainScreen)), None)
            if main is not None and self.PILOT_WAITS_FOR_WIDGETS:
                await main.wait_ready()
            yield pilot

    # -------------------------------------------------------------- actions

    def action_command_palette(self) -> None:
        """Textual's command palette, its search line's placeholder in the wizard's language."""
        from textual.command import CommandPalette

        from ..core.localized import ui

        if self.use_command_palette and not CommandPalette.is_open(self):  # type: ignore[arg-type]
            self.push_screen(CommandPalette(id="--command-palette", placeholder=ui("palette_placeholder")))

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def _open(self, kind: str) -> None:
        from .screens.open_file import OpenFileScreen
        from .shared.session import from_accelerate_config, from_answers_file

        given = self.judged.given if self.judged.mode == GIVEN else None  # check's: the flags, else installed
        loader = from_answers_file if kind == "answers" else (lambda path: from_accelerate_config(path, given))
        from ..core.localized import ui

        title = ui("open_answers_title" if kind == "answers" else "open_config_title")
        hint = ui("open_answers_hint" if kind == "answers" else "open_config_hint")

        def chosen(start: Start | None) -> None:
            if start is not None:
                self.main.load(start)

        self.push_screen(OpenFileScreen(title, hint, loader), chosen)

    def _load(self, make) -> None:
        try:
            start = make()
        except StartError as exc:
            from .screens.open_file import start_error_text

            self.notify(start_error_text(exc), severity="error", timeout=8)
            return
        self.main.load(start)

    def switch_language(self, lang: str) -> None:
        """The palette's "Language: ..." and F1's ``l``: the explanations in ``lang`` from now on, until the wizard
        exits (or the next switch); what is on screen is redrawn in it."""
        from ..core.i18n import NAMES, set_language
        from ..core.localized import ui

        set_language(lang)
        self.main.relanguage()
        for screen in self.screen_stack:
            screen.refresh_bindings()  # the key bars redraw their words
            if screen is not self.main and hasattr(screen, "relanguage"):
                screen.relanguage()  # the run and memory screens redraw their own words
        self.notify(ui("language_now", name=NAMES[lang]), timeout=4)

    def judge_for(self, mode: str) -> None:
        """The palette's "Judge for ...": judge the answers for other library versions from now on, live."""
        from .shared.judged import switched_note

        self.judged = self.judged.switched(mode)
        self.main.rejudge()
        self.notify(switched_note(self.judged), timeout=8)

    async def action_quit(self) -> None:
        """Quit; a live run is stopped first (no process is left behind). With changed answers that are not written,
        asks first; ctrl+q in that dialog quits."""
        from .screens.confirm import ConfirmScreen

        asking = isinstance(self.screen, ConfirmScreen) and self.screen.id == QUIT_DIALOG
        unwritten = [] if asking else self.main.unwritten()
        if unwritten:
            main = self.main
            from ..core.localized import ui

            message = ui("quit_message", out=main.out,
                         names="\n".join(unwritten_line(name, state) for name, state in unwritten))

            async def answered(yes: bool | None) -> None:
                if yes:
                    await self._stop_and_exit()

            self.push_screen(ConfirmScreen(ui("quit_title"), message, yes=ui("quit_yes"), no=ui("quit_no"),
                                           id=QUIT_DIALOG), answered)
            return
        await self._stop_and_exit()

    async def _stop_and_exit(self) -> None:
        for screen in list(self.screen_stack):
            stop = getattr(screen, "stop_before_exit", None)
            if stop is not None:
                await stop()
        self.exit()

    # -------------------------------------------------------------- command palette

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        from ..core import localized
        from ..core.i18n import LANGUAGES, NAMES, language
        from ..core.localized import ui
        from .shared.judged import palette_entry, translated_command

        yield from map(translated_command, super().get_system_commands(screen))  # Textual's, in the language
        # the other screens by what they can do (importing them here would load them with the palette)
        if hasattr(screen, "action_stop") and hasattr(screen, "action_search"):  # the run screen
            yield SystemCommand(ui("palette_stop"), ui("palette_stop_help"), screen.action_stop)
            yield SystemCommand(ui("palette_search"), ui("palette_search_help"), screen.action_search)
        if not isinstance(screen, MainScreen):
            if not (hasattr(screen, "action_launch") and hasattr(screen, "action_rehearse")):
                return
            if hasattr(screen, "action_out_folder"):  # the review screen
                yield SystemCommand(ui("palette_out"), ui("palette_out_help"), screen.action_out_folder)
            yield SystemCommand(ui("palette_rehearse"), ui("palette_rehearse_help"), screen.action_rehearse)
            yield SystemCommand(ui("palette_launch"), ui("palette_launch_help"), screen.action_launch)
            return
        main = screen
        yield SystemCommand(ui("palette_review"), ui("palette_review_help"), main.action_review)
        yield SystemCommand(ui("palette_rehearse"), ui("palette_rehearse_help"), main.action_rehearse)
        yield SystemCommand(ui("palette_launch"), ui("palette_launch_help"), main.action_launch)
        for target in (FSDP2, DEEPSPEED, FSDP1):
            if target != main.answers.target:
                yield SystemCommand(ui("palette_switch", target=TARGET_LABELS[target]), ui("palette_switch_help"),
                                    lambda t=target: main.set_target(t))
        yield SystemCommand(ui("palette_out"), ui("palette_out_help_now", out=main.out), main.action_out_folder)
        yield SystemCommand(ui("palette_memory"), ui("palette_memory_help"), main.action_memory)
        for mode in self.judged.offers():
            yield SystemCommand(*palette_entry(mode, self.judged.mode), lambda m=mode: self.judge_for(m))
        yield SystemCommand(ui("palette_next_problem"), ui("palette_next_problem_help"), main.action_next_problem)
        yield SystemCommand(ui("palette_help"), ui("palette_help_help"), self.action_help)
        for lang in LANGUAGES:
            if lang != language():
                yield SystemCommand(f"Language (Dil, 語言): {NAMES[lang]}", ui("language_switch", name=NAMES[lang]),
                                    lambda code=lang: self.switch_language(code))
        for g in GROUPS:
            yield SystemCommand(ui("palette_group", group=localized.group_label(g.id)), ui("palette_group_help"),
                                lambda gid=g.id: main.focus_group(gid))
        from .shared.session import from_preset, preset_names

        for name in preset_names():
            yield SystemCommand(ui("palette_preset", name=name), ui("palette_preset_help"),
                                lambda n=name: self._load(lambda: from_preset(n)))
        yield SystemCommand(ui("palette_scratch"), ui("palette_scratch_help"), lambda: self._load(from_scratch))
        yield SystemCommand(ui("palette_open_answers"), ui("palette_open_answers_help"), lambda: self._open("answers"))
        yield SystemCommand(ui("palette_open_config"), ui("palette_open_config_help"), lambda: self._open("config"))


def create_app(start: Start | None = None, out: str | None = None, ds_path: str = "auto",
               memory: MemoryContext | None = None, slurm: dict[str, str | None] | None = None,
               judged: Judged | None = None) -> WizardApp:
    """The one factory for the CLI and the tests."""
    return WizardApp(start, out, ds_path, memory, slurm, judged)


def run_app(args, versions=None) -> int:
    """``fsdpds-wizard`` without --headless: open the wizard (2 when the start file cannot be used). ``versions``:
    the ``Context`` of the --LIB-version flags (``commands/common.judged_context``), None without them."""
    app = app_from_args(args, versions)
    if isinstance(app, int):
        return app
    app.run()
    return app.return_code or 0


def app_from_args(args, versions=None) -> WizardApp | int:
    """The wizard as the command line asks for it (:func:`run_app`, which runs it; the tests, which drive it), or
    the exit code 2 after saying why the start file, --out or --slurm cannot be used."""
    from ..core.findings import Finding

    try:
        judged = judged_from_context(versions)
        start = start_from_args(args, judged.given)
        memory = memory_from_args(args)
    except StartError as exc:  # said in the wizard's language, as the commands say their errors
        from ..core import localized
        from ..core.localized.errors import error_words

        print(f"fsdpds-wizard: {error_words(exc)}", file=sys.stderr)
        for f in exc.findings:
            print(localized.finding_text(f, Finding.render(f)), file=sys.stderr)
        return 2
    out = getattr(args, "out", None)
    if out is not None and Path(out).expanduser().exists() and not Path(out).expanduser().is_dir():
        from ..core import localized
        from ..core.i18n import said

        print(f"fsdpds-wizard: {localized.said(said(f'--out {out} exists and is not a folder'))}", file=sys.stderr)
        return 2
    slurm = None
    if getattr(args, "slurm", False):
        from ..core.exits import UsageError
        from ..run.slurm import require_slurm

        try:
            require_slurm()
        except UsageError as exc:
            print(f"fsdpds-wizard: {exc}", file=sys.stderr)
            return 2
        slurm = {"partition": getattr(args, "partition", None), "time": getattr(args, "time", None)}
    return create_app(start, out, getattr(args, "ds_config_path", None) or "auto", memory, slurm, judged)
