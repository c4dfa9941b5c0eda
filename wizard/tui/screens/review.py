"""Review: the exact files, a diff against what is on disk, the launch command; then an atomic write."""
from __future__ import annotations

import shlex
from pathlib import Path

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Input, Label, Static, TabbedContent, TabPane

from ...core import localized
from ...core.answers import Answers, multinode
from ...core.answers.generate import Generated, generate, imported_diff, launch_command
from ...core.answers.render import training_arguments_line
from ...core.files import WriteRefused, file_state, plan_conflicts, unified_diff, write_files
from ...core.findings import ERROR
from ...core.i18n import cells, language
from ...core.localized.phrases import shown as in_language  # an OS error's words, where its errno's are translated
from ..shared.judged import Judged, judged_for
from ..shared.present import ICONS, finding_setting, severity_word, target_label
from ..widgets.fields import FieldInput
from ..widgets.keybar import KeyBar

_LEXERS = {".yaml": "yaml", ".json": "json"}
WIDE_AT = 160
"""From this width on, every finding is listed beside the files; below it, in the Findings tab (at 140 columns the
pane beside left the file tabs too little room: the Diff tab was hidden)."""
FULL_FOOTER_AT = 100
"""Below this width the key bar leaves out the folder and the copy keys, so that the others fit whole."""
THEME = "monokai"


def _say(key: str, **values: object) -> str:
    """The screen's words under ``key`` in the wizard's language (:mod:`wizard.core.localized.screens.review`)."""
    return localized.screen("review", key, None, **values)


def _append_label(text: Text, label: str, style: str = "bold") -> None:
    """``label`` (words ending in a colon) in ``style``, then a space; none after a full-width colon (its own width is
    the gap: :func:`wizard.core.localized.labelled`)."""
    text.append(localized.labelled(label, ""), style=style)


def _bare_json_diff(imported: tuple[Path, ...], files: dict[str, str]) -> str:
    """A unified diff from an imported DeepSpeed JSON (no accelerate config) to the ds_config.json to write."""
    import difflib

    from ...core.answers.render import DS_JSON
    from ...core.i18n.lines import line  # the headers' words in the language, the files' names as they are

    if not imported:
        return ""
    try:
        old = imported[0].read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        error = in_language(exc.strerror or str(exc))
        return f"--- {line('diff_imported_unreadable', name=imported[0], error=error)}\n"
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), files.get(DS_JSON, "").splitlines(keepends=True),
                                        fromfile=line("diff_imported", name=imported[0]),
                                        tofile=line("diff_to_write", name=DS_JSON)))


def _fit_width(static: Static, text: str, gutter: int = 0) -> None:
    """Make a file view as wide as its longest line, so long lines scroll sideways instead of being cut."""
    longest = max((cells.width(line) for line in text.splitlines()), default=0)  # CJK: two cells a character
    static.styles.width = longest + gutter + 1


def _diff_renderable(diff: str) -> Syntax:
    return Syntax(diff, "diff", theme=THEME, word_wrap=False, background_color="default")


def _findings_renderable(findings, judged: Judged) -> Group:
    """The findings, after what they were judged for (the library versions, and what a run judges for)."""
    lines = [Text(judged.text(), style="dim")]
    if not findings:
        return Group(*lines, Text("✔ " + _say("no_findings"), style="green"))
    for f in findings:
        line = Text()
        line.append(f"{ICONS[f.severity]} {severity_word(f.severity)} ", style="bold")
        line.append(f"{finding_setting(f) or ', '.join(f.keys)}: ", style="bold")
        line.append(localized.finding_message(f))
        lines.append(line)
        if f.fix:
            lines.append(Text("  " + _say("fix", fix=localized.finding_fix(f)), style="dim"))
    return Group(*lines)


def _slurm_script(answers: Answers, config_path: str) -> str:
    """The SLURM batch script for the Machines tab (what ``--launch --slurm`` submits, docs/slurm.md)."""
    from ...core.answers.slurm import batch_script
    from ...core.exits import UsageError

    try:
        script = batch_script(answers, config_path, script=answers["launch.script"],
                              script_args=list(answers["launch.script_args"]))
    except UsageError as exc:  # a folder sbatch cannot write logs in: say why instead of a script
        return f"# {_say('slurm_none', error=exc)}\n"
    return f"# {_say('slurm_head')}\n" + script


FINDINGS_TAB = "tab-findings"


def _pane_id(name: str) -> str:
    return "file-" + name.replace(".", "-")


class ReviewScreen(Screen[dict | None]):
    """Escape returns to the form; the result says where to jump and which folder was chosen."""

    CSS = """
    #review-title { height: auto; padding: 0 1; background: $panel; }
    #review-errors { display: none; height: auto; max-height: 8; padding: 0 1; border: round $error; }
    #review-errors.-errors { display: block; }
    #out-row { height: auto; padding: 0 1; }
    #out-label { width: auto; height: 3; content-align: left middle; padding-right: 1; text-style: bold; }
    #out { width: 1fr; }
    #review-body { height: 1fr; }
    #files { height: 1fr; width: 1fr; }
    #review-side {
        display: none; width: 2fr; max-width: 70; border: round $primary 50%; border-title-align: left; padding: 0 1;
    }
    ReviewScreen.-wide #review-side { display: block; }
    #files VerticalScroll { height: 1fr; overflow-x: auto; }
    #files VerticalScroll > Static { min-width: 100%; }
    #launch { height: auto; padding: 0 1; border: round $success 60%; }
    #write-status { height: auto; padding: 0 1; }
    """
    """Loaded when the screen is first shown, not at start-up (the first paint parses only the main screen's)."""
    BINDINGS = [
        Binding("escape", "back", "Back", id="back", tooltip="Back to the settings"),
        Binding("ctrl+s", "write", "Write files", id="write",
                tooltip="Write the files (atomic; asks before replacing)"),
        Binding("f5", "rehearse", "Rehearse", id="review-rehearse",
                tooltip="Rehearse on CPU: two processes, the bundled script, the checklist proves the settings"),
        Binding("ctrl+l", "launch", "Launch", id="review-launch",
                tooltip="Launch the written config (offers to write the files first)"),
        Binding("ctrl+o", "out_folder", "Folder", id="review-out-folder",
                tooltip="Output folder…: edit the folder the files are written to"),
        Binding("f6", "copy_command", "Copy command", id="copy", tooltip="Copy the accelerate launch command"),
        Binding("ctrl+n", "fix_error", "Go to error", id="fix", tooltip="Back to the setting of the first error"),
        Binding("f1", "app.help", "Help", id="review-help"),
    ]

    def __init__(self, answers: Answers, out: str, imported: tuple[Path, ...] = (), *, ds_path: str = "auto",
                 bare_ds: bool = False, judged: Judged | None = None) -> None:
        super().__init__(id="review")
        self.judged = judged or judged_for()
        """The library versions the findings are judged for (the settings screen's choice)."""
        self.bare_ds = bare_ds
        """``imported`` is a DeepSpeed JSON alone: it is compared with the ds_config.json to write."""
        self.ds_path = ds_path
        self.answers = answers
        self.out = out
        self.imported = imported
        """The files an import read (accelerate YAML, then its DeepSpeed JSON): the Diff tab compares with them too."""
        self.generated: Generated = generate(answers, Path(out), ds_path=ds_path, versions=self.judged.versions)
        self.status = ""

    # -------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        yield Static(id="review-title")
        yield Static(id="review-errors")
        with Horizontal(id="out-row"):
            yield Label(_say("out_label"), id="out-label")
            yield FieldInput(self.out, id="out", placeholder=_say("out_placeholder"))
        with Horizontal(id="review-body"):
            with TabbedContent(id="files", initial=_pane_id(next(iter(self.generated.files)))):
                # narrow: the findings as a tab (wide: beside the files)
                with TabPane(_say("findings"), id=FINDINGS_TAB):
                    with VerticalScroll():
                        yield Static(id="findings-tab-text")
                for name in self.generated.files:
                    with TabPane(name, id=_pane_id(name)):
                        with VerticalScroll():
                            yield Static(id=f"{_pane_id(name)}-text")
                with TabPane(_say("diff"), id="file-diff"):
                    with VerticalScroll():
                        yield Static(id="diff-text")
                if multinode.is_multinode(self.answers):
                    with TabPane(_say("machines"), id="file-machines"):
                        with VerticalScroll():
                            yield Static(id="machines-text")
            with VerticalScroll(id="review-side", can_focus=False) as side:
                side.border_title = _say("findings")
                yield Static(id="review-findings")
        yield Static(id="launch")
        yield Static(id="write-status")
        # at 80 columns the folder (a labelled field, ctrl+o) and the copy key give way to the others
        yield KeyBar(("out_folder", "copy_command"), FULL_FOOTER_AT, compact=True)

    def on_mount(self) -> None:
        self._drawn_in = language()  # the language of the words on screen (a switch while covered redraws them)
        self.refresh_content()
        self.query_one("#files Tabs").focus()

    def on_screen_resume(self) -> None:
        if getattr(self, "_drawn_in", None) not in (None, language()):  # switched in the help (F1, l) meanwhile
            self.relanguage()

    def relanguage(self) -> None:
        """Redraw the screen's words in the wizard's language (after a switch: ``app.switch_language``)."""
        self._drawn_in = language()
        self.query_one("#out-label", Label).update(_say("out_label"))
        self.query_one("#out", Input).placeholder = _say("out_placeholder")
        self.query_one("#review-side").border_title = _say("findings")
        if multinode.is_multinode(self.answers):
            self.query_one(TabbedContent).get_tab("file-machines").label = _say("machines")
        self.refresh_content()

    def on_resize(self, event) -> None:
        wide = event.size.width >= WIDE_AT
        self.set_class(wide, "-wide")
        tabbed = self.query_one(TabbedContent)
        if wide:
            if tabbed.active == FINDINGS_TAB:
                tabbed.active = _pane_id(next(iter(self.generated.files)))
            tabbed.hide_tab(FINDINGS_TAB)
        else:
            tabbed.show_tab(FINDINGS_TAB)

    # -------------------------------------------------------------- content

    @property
    def out_dir(self) -> Path:
        return Path(self.out).expanduser()

    @property
    def errors(self):
        return [f for f in self.generated.findings if f.severity == ERROR]

    def refresh_content(self) -> None:
        gen, out = self.generated, self.out_dir
        states = {name: file_state(out / name, text) for name, text in gen.files.items()}
        title = Text()
        title.append(_say("title") + " ", style="bold")
        title.append(f"{target_label(self.answers)} ", style="bold cyan")
        n_changed = sum(1 for s in states.values() if s == "changed")
        n_new = sum(1 for s in states.values() if s == "new")
        title.append(_say("title_files", files=len(states), new=n_new, changed=n_changed,
                          same=len(states) - n_new - n_changed))
        self.query_one("#review-title", Static).update(title)
        errors = self.errors
        box = self.query_one("#review-errors", Static)
        box.set_class(bool(errors), "-errors")
        if errors:
            block = _say("errors_block" if len(errors) != 1 else "error_blocks", count=len(errors))
            lines = [Text(f"{ICONS[ERROR]} {block}", style="bold")]
            for f in errors:
                lines.append(Text(f"  {ICONS[ERROR]} {severity_word(ERROR)} {finding_setting(f) or ', '.join(f.keys)}: "
                                  f"{localized.finding_message(f)}"))
            box.update(Group(*lines))
        else:
            box.update("")
        tabbed = self.query_one(TabbedContent)
        for name, text in gen.files.items():
            lexer = _LEXERS.get(Path(name).suffix, "text")
            static = self.query_one(f"#{_pane_id(name)}-text", Static)
            static.update(Syntax(text, lexer, theme=THEME, line_numbers=True, word_wrap=False,
                                 background_color="default"))
            _fit_width(static, text, gutter=len(str(text.count(chr(10)) + 1)) + 3)
            tabbed.get_tab(_pane_id(name)).label = f"{name} · {_say('state_' + states[name])}"
        changed = [n for n, s in states.items() if s == "changed"]
        parts: list = []
        against_import = _bare_json_diff(self.imported, gen.files) if self.bare_ds else imported_diff(
            self.imported, gen.files)
        if self.imported:
            parts.append(Text(_say("against_imports" if len(self.imported) > 1 else "against_import"), style="bold"))
            parts.append(_diff_renderable(against_import) if against_import else Text(_say("imports_identical")))
            parts.append(Text(""))
            parts.append(Text(_say("against_folder", out=self.out), style="bold"))
        if changed:
            parts.append(_diff_renderable("".join(unified_diff(out / n, gen.files[n]) for n in changed)))
        else:
            present = [n for n, s in states.items() if s == "same"]
            parts.append(Text(_say("nothing_same") if present else _say("nothing_yet", out=self.out)))
        diff_static = self.query_one("#diff-text", Static)
        diff_static.update(Group(*parts))
        _fit_width(diff_static, "\n".join(p.plain if isinstance(p, Text) else p.code for p in parts))
        label = _say("diff_count", changed=len(changed))
        if self.imported:
            label = _say("diff_import_changed" if against_import else "diff_import_same", changed=len(changed))
        tabbed.get_tab("file-diff").label = label
        self.query_one("#review-findings", Static).update(_findings_renderable(gen.findings, self.judged))
        self.query_one("#findings-tab-text", Static).update(_findings_renderable(gen.findings, self.judged))
        tabbed.get_tab(FINDINGS_TAB).label = _say("findings_count", count=len(gen.findings))
        if multinode.is_multinode(self.answers):
            machines = self.machines_text()
            machines_static = self.query_one("#machines-text", Static)
            machines_static.update(Syntax(machines, "bash", theme=THEME, word_wrap=False, background_color="default"))
            _fit_width(machines_static, machines)
        command = self.command_line()
        launch = Text()
        if gen.launch_dir is not None:  # a relative deepspeed_config_file: accelerate resolves it from its folder
            _append_label(launch, _say("launch_from", folder=gen.launch_dir))
        else:
            _append_label(launch, _say("launch"))
        launch.append(command)
        if gen.rendered.training_arguments is not None:  # the Trainer: the arguments that carry the answers
            launch.append("\n", style="bold")
            _append_label(launch, _say("trainer"))
            launch.append(training_arguments_line(gen.rendered.training_arguments))
            launch.append(" " + _say("trainer_note"))
        self.query_one("#launch", Static).update(launch)
        self.query_one("#write-status", Static).update(self._status_text(states))

    def machines_text(self) -> str:
        """The Machines tab (several machines only): the command each machine runs, the hostfile written, and the
        SLURM batch script that starts one launcher per node."""
        a, gen = self.answers, self.generated
        config_path = launch_command(self.out_dir, None, None, gen.launch_dir)[3]
        commands = multinode.commands_text(a, config_path, script=a["launch.script"],
                                           script_args=list(a["launch.script_args"]))
        # the commands as written; each "# ..." line before one is a said(...) sentence of multinode, in the language
        commands = "\n".join(f"# {localized.said(row[2:])}" if row.startswith("# ") else row
                             for row in commands.split("\n"))
        if multinode.runner_starts_every_machine(a):
            head = f"# {_say('machines_runner')}\n"
        else:
            head = f"# {_say('machines_each', count=a['launch.num_machines'])}\n"
        parts = [head + commands]
        if multinode.HOSTFILE in gen.files:
            where = gen.rendered.accelerate.get("deepspeed_config", {}).get("deepspeed_hostfile")
            parts.append(f"# {_say('machines_hostfile', hostfile=multinode.HOSTFILE, where=where)}\n")
        parts.append(_slurm_script(a, config_path))
        return "\n".join(parts)

    def command_line(self) -> str:
        a = self.answers
        return shlex.join(launch_command(self.out_dir, a["launch.script"], list(a["launch.script_args"]),
                                         self.generated.launch_dir))

    def _status_text(self, states: dict[str, str]) -> Text:
        if self.status:
            return Text(self.status)
        if self.errors:
            return Text(f"{ICONS[ERROR]} {_say('not_ready')}", style="bold red")
        replaced = [n for n, s in states.items() if s == "changed"]
        if replaced:
            msg = _say("ready_replacing", count=len(states), names=", ".join(replaced))
        else:
            msg = _say("ready", count=len(states))
        return Text(msg, style="bold green")

    @on(Input.Changed, "#out")
    def _out_changed(self, event: Input.Changed) -> None:
        value = event.value.strip()
        if value and value != self.out:
            self.out = value
            self.generated = generate(self.answers, self.out_dir, ds_path=self.ds_path, versions=self.judged.versions)
            self.status = ""
            self.refresh_content()

    # -------------------------------------------------------------- actions

    def action_out_folder(self) -> None:
        self.query_one("#out", Input).focus()

    def action_back(self) -> None:
        self.dismiss({"out": self.out})

    def action_fix_error(self) -> None:
        errors = self.errors
        target = next((finding_setting(f) for f in errors if finding_setting(f)), None)
        if target is None:
            self.notify(_say("no_error") if not errors else _say("error_untied"), timeout=3)
            return
        self.dismiss({"out": self.out, "jump": target})

    def action_rehearse(self) -> None:
        from .flows import rehearse_answers

        rehearse_answers(self.app, self.answers, self.out, self.generated.findings)

    def action_launch(self) -> None:
        from .flows import launch_answers

        def launched() -> None:
            self.status = ""
            self.refresh_content()

        launch_answers(self.app, self.answers, self.out, self.generated, on_written=launched)

    def action_copy_command(self) -> None:
        self.app.copy_to_clipboard(self.command_line())
        self.notify(_say("copied"), timeout=3)

    def action_write(self) -> None:
        if self.errors:
            self.notify(f"{ICONS[ERROR]} {_say('errors_block_write', count=len(self.errors))}", severity="error",
                        timeout=4)
            return
        out = self.out_dir
        if out.exists() and not out.is_dir():
            self._set_status(f"{ICONS[ERROR]} {_say('not_a_folder', out=self.out)}")
            return
        files = {out / name: text for name, text in self.generated.files.items()}
        conflicts = plan_conflicts(files)
        if not conflicts:
            self._write(files, force=False)
            return
        from .confirm import ConfirmScreen

        names = "\n".join(f"  {p.name}" for p in conflicts)
        message = _say("replace_message", out=self.out, names=names)

        def answered(yes: bool | None) -> None:
            if yes:
                self._write(files, force=True)
            else:
                self._set_status(_say("nothing_written"))

        self.app.push_screen(ConfirmScreen(_say("replace_title"), message, yes=_say("replace_yes"),
                                           no=_say("replace_no")), answered)

    def _write(self, files: dict[Path, str], force: bool) -> None:
        try:
            result = write_files(files, force=force)
        except WriteRefused as exc:
            self._set_status(f"{ICONS[ERROR]} {exc}")
            return
        except OSError as exc:
            error = in_language(exc.strerror or str(exc))
            self._set_status(f"{ICONS[ERROR]} {_say('cannot_write', out=self.out, error=error)}")
            return
        said = _say("wrote" if len(result.written) != 1 else "wrote_one", count=len(result.written), out=self.out)
        if result.unchanged:
            said = _say("then", first=said, then=_say("up_to_date", count=len(result.unchanged)))
        if result.backups:
            said = _say("then", first=said, then=_say("kept", names=", ".join(p.name for p in result.backups)))
        self._set_status("✔ " + _say("sentence", text=said))
        self.notify(self.status, timeout=4)

    def _set_status(self, text: str) -> None:
        self.status = text
        self.refresh_content()
