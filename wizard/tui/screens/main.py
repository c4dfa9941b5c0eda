"""The wizard's main screen: groups on the left, the form of one group, the explanation, the findings.

The screen holds the current :class:`Answers`. Every change from a field becomes a new Answers value,
then :func:`generate` (a few milliseconds) refreshes the findings, the badges and the explanation.
"""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Grid, Vertical
from textual.events import DescendantFocus, Key, Resize
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import ContentSwitcher, OptionList

from ...core.answers import Answers
from ...core.answers.generate import Generated, generate
from ...core.catalog import DEEPSPEED, FSDP1, FSDP2, GROUPS, SETTING_BY_ID, TARGET_LABELS
from ...core.findings import ERROR, INFO, Finding
from ...core.localized import ui
from ..shared import startup_gc
from ..shared.history import History
from ..shared.present import (
    counts_text,
    finding_setting,
    jump_note,
    quick_generate,
    target_label,
    worst_by_setting,
)
from ..shared.session import MemoryContext, Start, default_out
from ..widgets.fields import SettingChanged, SettingField, field_id
from ..widgets.findings import FindingsList
from ..widgets.findings import options as finding_options
from ..widgets.first_frame import WIDE_AT, FirstFrame, FramePlan, ListPlan, first_enabled, plan_options
from ..widgets.group_form import FormPreview, GroupForm, form_id
from ..widgets.memory_bar import MemoryBar, bar_text
from ..widgets.sidebar import REVIEW, GroupList, group_options
from ..widgets.statusbar import StatusBar, status_text

if TYPE_CHECKING:
    from ..shared.history import Words
    from ..shared.judged import Judged
    from ..shared.switch import Switch
    from ..widgets.explanation import ExplanationPane

STYLESHEET = Path(__file__).resolve().parents[1] / "wizard.tcss"
"""The main screen's stylesheet, read when its widgets are first mounted (:meth:`MainScreen._load_stylesheet`)."""

FULL_FOOTER_AT = 104
"""Below this width the key bar leaves out :data:`NARROW_FOOTER_GIVES_WAY`, so that the other keys fit whole (at 80
columns F2 and F3 were cut off)."""
NARROW_FOOTER_GIVES_WAY = ("cycle_target", "out_folder")
"""Keys that are as easy to reach otherwise: the Backend field and the palette switch the target, the palette and
the review's labelled field choose the folder."""

TARGET_CYCLE = {FSDP2: DEEPSPEED, DEEPSPEED: FSDP1, FSDP1: FSDP2}


class MainScreen(Screen):
    BINDINGS = [
        Binding("f1", "app.help", "Help", id="help", tooltip="Every key binding"),
        Binding("ctrl+r", "review", "Review", id="review", tooltip="Review the files, then write them"),
        Binding("f5", "rehearse", "Rehearse", id="rehearse",
                tooltip="Rehearse on CPU: two processes, the bundled script, the checklist proves the settings"),
        Binding("ctrl+l", "launch", "Launch", id="launch",
                tooltip="Launch the written config (offers to write the files first)"),
        Binding("ctrl+g", "focus_groups", "Groups", id="groups", tooltip="Move to the list of groups", show=False),
        Binding("ctrl+f", "focus_findings", "Findings", id="findings", tooltip="Move to the findings list", show=False),
        Binding("ctrl+n", "next_problem", "Issues", id="next-problem",
                tooltip="Jump to the setting of the next error or warning"),
        Binding("ctrl+t", "cycle_target", "Target", id="target",
                tooltip="Switch FSDP2 → DeepSpeed → FSDP1 → FSDP2, keeping the intent"),
        Binding("ctrl+o", "out_folder", "Folder", id="out-folder",
                tooltip="Output folder…: choose where the files are written"),
        Binding("f2", "zoom_explanation", "Zoom", id="zoom",
                tooltip="Show the explanation full screen (F2 or Escape again to go back)"),
        Binding("f3", "memory", "Memory", id="memory",
                tooltip="Memory: the model and GPUs for the memory bar, the whole estimate, suggest a config"),
        Binding("ctrl+z", "undo", "Undo", id="undo", show=False,
                tooltip="Undo the last change of the answers: a field, a suggestion applied, a switch of target, "
                        "a load"),
        Binding("ctrl+y,ctrl+shift+z", "redo", "Redo", id="redo", show=False, tooltip="Redo what ctrl+z undid"),
    ]

    def __init__(self, start: Start, out: str | None, ds_path: str = "auto") -> None:
        super().__init__(id="main")
        self.ds_path = ds_path
        """``auto`` or ``absolute``: how the YAML names the DeepSpeed JSON (``--ds-config-path``)."""
        self.answers: Answers = start.answers
        """The current answers (the only copy)."""
        self.start = start
        self.out_fixed = out is not None
        """True when the folder came from --out or was edited: it no longer follows the target."""
        self.out = out if out is not None else default_out(start.answers)
        self.generated: Generated = quick_generate(self.answers, Path(self.out), ds_path=self.ds_path)
        """The first screen is painted from the answer rules alone; the full check (YAML text, config
        linter) follows right after the first paint, see :meth:`_full_check`."""
        self._problem_index = -1
        self.history: History[tuple[Answers, Start]] = History()
        """ctrl+z / ctrl+y: the answers (and the start file they came with) before each change."""
        self._check_done = asyncio.Event()
        """Set once the full check has run after the first paint (:attr:`ready`)."""
        self._stand_ins: list[str] = []
        """The ids of the first frame's stand-ins (:meth:`compose`) not yet replaced by the real widgets."""
        self._replacing: asyncio.Event | None = None
        """Set once the stand-ins are replaced (:meth:`_replace_stand_ins`)."""
        self._typed: list[Key] = []
        """The keys typed while the first frame's widget was up (:meth:`on_key`)."""
        self.widgets_ready = asyncio.Event()
        """Set once the real widgets are all in place (right after the first paint)."""

    # -------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        """The first screen, from the quick check, with the fewest widgets that show it (issue 26): one widget
        (:class:`FirstFrame`) paints the whole first frame where it can (the narrow layout, a first form of choices
        that fits); elsewhere the real widgets are there, with the explanation pane as its empty frame (its text is
        built after the first paint in any case). Right after the first paint :meth:`_replace_stand_ins` puts the
        real widgets in place."""
        first = GROUPS[0].id
        width, height = self.app.size
        wide = width >= WIDE_AT
        self.set_class(wide, "-wide")
        self.set_class(any(f.severity == ERROR for f in self.listed_findings), "-errors")  # more room for findings
        if FormPreview.fits(first):
            plan = self._frame_plan(first)
            if FirstFrame.paints(plan, width, height):
                self._stand_ins = ["frame"]
                yield FirstFrame(plan, id="first-frame")
                return
        self._stand_ins = ["explanation"]
        self._load_stylesheet()
        yield from self._widgets(self._forms(first), _frame("explanation", ui("explanation")))

    def _load_stylesheet(self) -> None:
        """The main screen's stylesheet (wizard.tcss: its grid, panes and wide layout), read when its widgets are first
        mounted: the first frame, painted by one widget, needs none of it."""
        stylesheet = self.app.stylesheet
        if (str(STYLESHEET), "") not in stylesheet.source:
            stylesheet.read(STYLESHEET)

    def _widgets(self, forms: Widget, explanation: Widget) -> list[Widget]:
        """The main screen's widgets, with ``forms`` and ``explanation`` in their places."""
        a, gen = self.answers, self.generated
        side = Vertical(GroupList(gen.findings, a.target), MemoryBar(id="memory-bar"), id="side")
        findings = FindingsList(gen.findings, self.start.findings, self.start.source or ui("start_file"))
        return [StatusBar(target_label(a), self.out, self.listed_findings, self.start.source, id="status"),
                Grid(side, forms, explanation, findings, id="body"),
                Container(id="keys")]

    def _frame_plan(self, first: str) -> FramePlan:
        """What :class:`FirstFrame` paints: the texts of the real widgets, from the functions that build theirs."""
        a, gen = self.answers, self.generated
        listed = self.listed_findings
        preview = FormPreview(first, a, gen.rendered, worst_by_setting(gen.findings))
        loaded_label = self.start.source or ui("start_file")
        findings = plan_options(finding_options(gen.findings, self.start.findings, loaded_label))
        return FramePlan(
            status=lambda w: status_text(target_label(a), self.out, listed, self.start.source, width=max(20, w)),
            groups=ListPlan(plan_options(group_options(gen.findings, a.target)), 0, ui("groups")),
            memory=lambda w: bar_text(None, None, w),
            memory_title=ui("memory_per_rank"),
            form=lambda width, muted, control, wide: preview.lines(width, muted, control, wide=wide),
            explanation_title=ui("explanation"),
            findings=ListPlan(findings, first_enabled(findings), ui("findings"), counts_text(listed)),
            errors=self.has_class("-errors"))

    def _forms(self, group_id: str) -> ContentSwitcher:
        a, gen = self.answers, self.generated
        form = GroupForm(group_id, a, gen.rendered, worst_by_setting(gen.findings), wide=self.has_class("-wide"))
        return ContentSwitcher(form, id="forms", initial=form.id)

    async def _replace_stand_ins(self) -> None:
        """The real widgets in place of the first frame's stand-ins, in one frame: all of them in place of the
        :class:`FirstFrame` (the first group's form, the list of groups focused, the keys typed meanwhile sent to
        them), or the explanation pane in place of its frame; the form is the highlighted group's, the explanation
        follows focus. Whoever needs the real widgets first (right after the first paint, or a key typed before it)
        replaces them; the others wait for that."""
        if not self._stand_ins:
            self.widgets_ready.set()
            return
        if self._replacing is not None:
            await self._replacing.wait()
            return
        self._replacing = asyncio.Event()
        gen = self.generated
        from ..widgets.explanation import ExplanationPane  # not on the first frame (its stand-in is)

        if self._stand_ins == ["frame"]:
            frame = self.query_one(FirstFrame)
            self._load_stylesheet()
            with self.app.batch_update():
                await self.mount_all(self._widgets(self._forms(GROUPS[0].id), ExplanationPane()), before=frame)
                await frame.remove()
            self._apply_width(self.app.size.width)
            groups = self.query_one(GroupList)
            groups.highlighted = 0
            self._stand_ins = []
            self.set_focus(groups)  # now, not later (Widget.focus): the keys typed meanwhile go to it
            typed, self._typed = self._typed, []
        else:
            group = self.query_one(GroupList).group_id
            body = self.query_one("#body", Grid)
            with self.app.batch_update():
                # in its stand-in's place: the grid places its children by their order
                stand_in = self.query_one("#explanation")
                index = body.children.index(stand_in)
                await stand_in.remove()
                await body.mount(ExplanationPane(), before=index)
            self._stand_ins = []
            typed = []
        self._replacing.set()
        self.widgets_ready.set()
        if self.generated is not gen:  # the answers changed meanwhile
            self.refresh_all()
        group = self.query_one(GroupList).group_id
        if group and group != REVIEW:
            await self.show_group(group)
        focused = self.focused
        if focused is not None:
            self.on_descendant_focus(DescendantFocus(focused))
        for key in typed:
            self.app.post_message(key)

    def on_key(self, event: Key) -> None:
        """While :class:`FirstFrame` is up, every key typed (whether it came before the frame had the focus or to it)
        is kept for the real widgets, bindings included: they get it, in order, once they are there."""
        if self._stand_ins == ["frame"]:
            event.stop()
            event.prevent_default()
            # sent on as the app's (as the terminal's are): a key the screen sent would not bubble past it to the
            # app, which checks the bindings
            self._typed.append(Key(event.key, event.character).set_sender(self.app))

    def on_mount(self) -> None:
        self._apply_width(self.app.size.width)
        if self._stand_ins == ["frame"]:
            self.set_focus(self.query_one(FirstFrame))  # now: it keeps the keys typed before the real widgets
        else:
            groups = self.query_one(GroupList)
            groups.highlighted = 0
            groups.focus()
        self.call_after_refresh(self._after_first_paint)

    async def _after_first_paint(self) -> None:
        """The footer's keys and the full check come right after the first frame.

        Textual's Footer draws its keys only after the screen reports its bindings, a frame after the
        first paint in any case, so mounting it now leaves the first frame as it was (the slot holds its
        row) and takes its widgets off the critical path of the first paint."""
        from ..widgets.keybar import KeyBar

        await self._replace_stand_ins()
        await self.query_one("#keys", Container).mount(KeyBar(NARROW_FOOTER_GIVES_WAY, FULL_FOOTER_AT, compact=True))
        self.refresh_bindings()  # the Footer subscribed after the first report: ask for a new one
        # the full check once the real widgets have had their first layout (an option list given new options before
        # its first layout never shows its scrollbar)
        self.call_after_refresh(self._first_full_check)

    def _first_full_check(self) -> None:
        self._full_check()
        startup_gc.resume()

    @property
    def ready(self) -> bool:
        """True once the full check has run after the first paint (tests and scripts wait for it)."""
        return self._check_done.is_set()

    @ready.setter
    def ready(self, value: bool) -> None:
        if value:
            self._check_done.set()
        else:
            self._check_done.clear()

    async def wait_ready(self) -> None:
        """Until the full check has run after the first paint: the screen complete, as a user sees it."""
        await self._check_done.wait()

    def _full_check(self) -> None:
        self.generated = generate(self.answers, Path(self.out), ds_path=self.ds_path, versions=self.versions)
        self.refresh_all()
        self.ready = True

    @property
    def judged(self) -> Judged | None:
        """The library versions the answers are judged for (the app's: the --LIB-version flags, the palette)."""
        return getattr(self.app, "judged", None)

    @property
    def versions(self) -> dict[str, str | None] | None:
        """What ``generate(versions=)`` takes for :attr:`judged` (None: the verified versions)."""
        judged = self.judged
        return judged.versions if judged is not None else None

    def rejudge(self) -> None:
        """The versions judged for changed (the palette): check the answers again, live."""
        self.generated = generate(self.answers, Path(self.out), ds_path=self.ds_path, versions=self.versions)
        self.refresh_all()

    def on_resize(self, event: Resize) -> None:
        self._apply_width(event.size.width)

    def _apply_width(self, width: int) -> None:
        wide = width >= WIDE_AT
        if wide != self.has_class("-wide"):
            self.set_class(wide, "-wide")
            for form in self.query(GroupForm):
                form.set_wide(wide)

    # -------------------------------------------------------------- the answers

    def set_answers(self, answers: Answers, *, from_field: bool = False, report: bool = True,
                    switched: Switch | None = None, what: Words | None = None, field: str | None = None,
                    record: bool = True, changed_by: str | None = None) -> None:
        """Show ``answers``. ``switched``: they come from a switch of target (:meth:`set_target`), whose report is
        shown. Other answers on another target (a candidate of the Memory screen) show what changed, classified the
        same way, the answers ``changed_by`` (None: "the suggestion", in the language) changed itself under a
        heading of their own; they keep, as a switch does, the answers their ZeRO stage has no place for
        (ram-efficient loading below ZeRO-3: not written, restored by a switch back). ``record``: ctrl+z can take
        the change back (``what`` says what it was, ``field``: the edit of one field, whose further edits join the
        same step)."""
        before, gen_before = self.answers, self.generated
        if switched is None and report and before.target != answers.target:
            from ..shared.switch import keep_unplaced

            answers = keep_unplaced(before, answers)
        if record and answers != before:
            self.history.record((before, self.start), what or (lambda: _change_words(before, answers)), field)
        self.answers = answers
        if not self.out_fixed:
            self.out = default_out(answers)
        self.generated = generate(answers, Path(self.out), ds_path=self.ds_path, versions=self.versions)
        if not from_field:
            for form in self.query(GroupForm):
                form.show_values(answers)
        self.refresh_all()
        rep = switched.report if switched is not None else None
        if rep is None and report and before.target != answers.target:
            from ..shared.switch import switch_report

            rep = switch_report(before, answers, gen_before.rendered, self.generated.rendered,
                                gen_before.findings, self.generated.findings,
                                changed_by=ui("the_suggestion") if changed_by is None else changed_by)
        if rep is not None:
            from .switch_report import SwitchReportScreen

            self.app.push_screen(SwitchReportScreen(rep))

    def set_out(self, out: str) -> None:
        if out != self.out:
            self.out, self.out_fixed = out, True
            self.generated = generate(self.answers, Path(self.out), ds_path=self.ds_path,
                                      versions=self.versions)
            self.refresh_all()

    def set_target(self, target: str) -> None:
        """Switch target (ctrl+t, the palette, the Backend group's fields) through the core's switch, the one
        ``fsdpds-wizard convert`` makes: the answers become the converted ones, plus the answers the new target has
        no place for (kept, not written, so that switching back restores them), and the switch report is shown."""
        if target == self.answers.target:
            return
        from ..shared.switch import switch

        files = self.start.source_files(self.answers)  # imported and unchanged: quote the files, as convert does
        switched = switch(self.answers, target, source_ds=files[1] if files else None, source_files=files)
        self.set_answers(switched.kept, switched=switched, what=lambda: ui("step_switch", target=TARGET_LABELS[target]))

    def load(self, start: Start) -> None:
        self.history.record((self.answers, self.start),
                            lambda: ui("step_load", source=start.source or ui("the_defaults")))
        self.start = start
        self.set_answers(start.answers, report=False, record=False)
        self.notify(ui("notice_loaded", source=start.source or ui("the_defaults")), timeout=3)

    # -------------------------------------------------------------- undo, redo, unwritten changes

    def action_undo(self) -> None:
        step = self.history.undo((self.answers, self.start))
        if step is None:
            self.notify(ui("notice_nothing_to_undo"), timeout=3)
            return
        self._restore(*step.state)
        self.notify(ui("notice_undone", what=step.words), timeout=4)

    def action_redo(self) -> None:
        step = self.history.redo((self.answers, self.start))
        if step is None:
            self.notify(ui("notice_nothing_to_redo"), timeout=3)
            return
        self._restore(*step.state)
        self.notify(ui("notice_redone", what=step.words), timeout=4)

    def _restore(self, answers: Answers, start: Start) -> None:
        self.start = start
        self.set_answers(answers, report=False, record=False)

    def unwritten(self) -> list[tuple[str, str]]:
        """(name, state) of the files in the output folder that are not as the answers would write them (``new``,
        ``changed``: :func:`wizard.core.files.file_state`), when the answers changed since the start; [] when
        nothing would be lost by quitting."""
        if self.answers == self.start.answers:
            return []
        from ...core.files import file_state

        files = self.generated.files or generate(self.answers, Path(self.out), ds_path=self.ds_path,
                                                 versions=self.versions).files
        out = Path(self.out).expanduser()
        states = {name: file_state(out / name, text) for name, text in files.items()}
        return [(name, state) for name, state in states.items() if state != "same"]

    @on(SettingChanged)
    def _setting_changed(self, event: SettingChanged) -> None:
        if event.setting_id == "deepspeed.extra":
            self._extra_changed(event.value)
            return
        if self.answers[event.setting_id] != event.value:
            changed = self.answers.replace({event.setting_id: event.value})
            if changed.target != self.answers.target:  # the backend or the FSDP version: a switch
                self.set_target(changed.target)
            else:
                self.set_answers(changed, from_field=True, what=lambda: ui("step_edit", setting=event.setting_id),
                                 field=event.setting_id)

    def _extra_changed(self, extra: dict) -> None:
        """An edited Extra DeepSpeed JSON: a key that has its own setting goes there, as on import
        (``overlap_comm`` -> deepspeed.overlap_comm); the rest stays in deepspeed.extra. One undo step."""
        from ...core.answers.importer import split_extra
        from ...core.answers.render import zero_stage

        moved, rest = split_extra(extra, zero_stage(self.answers))
        changed = self.answers.replace({**moved, "deepspeed.extra": rest})
        if changed != self.answers:
            self.set_answers(changed, from_field=not moved, what=lambda: ui("step_edit", setting="deepspeed.extra"),
                             field=None if moved else "deepspeed.extra")
        if moved:
            self.notify(ui("notice_moved", keys=", ".join(moved)), timeout=5)

    # -------------------------------------------------------------- refresh

    @property
    def findings(self) -> list[Finding]:
        return self.generated.findings

    @property
    def listed_findings(self) -> list[Finding]:
        """Everything the findings list shows (the answers' findings and the start file's): the header counts these."""
        return self.generated.findings + self.start.findings

    def refresh_all(self) -> None:
        a, gen = self.answers, self.generated
        self.query_one(StatusBar).show(target_label(a), self.out, self.listed_findings, self.start.source)
        self.query_one(GroupList).show_badges(gen.findings, a.target)
        self.query_one(FindingsList).show(gen.findings, self.start.findings, self.start.source or ui("start_file"))
        self.set_class(any(f.severity == ERROR for f in self.listed_findings), "-errors")  # more room for findings
        problems = worst_by_setting(gen.findings)
        for form in self.query(GroupForm):
            form.show_state(a, gen.rendered, problems)
        self._refresh_explanation()
        self.refresh_memory()

    @property
    def memory(self) -> MemoryContext:
        """The model and GPUs of the memory bar (the app's, set by --model/--gpu-memory and the Memory screen)."""
        return getattr(self.app, "memory", None) or MemoryContext()

    def refresh_memory(self) -> None:
        self.query_one(MemoryBar).show(self.answers, self.memory)

    def relanguage(self) -> None:
        """After the language changed (the palette, F1's ``l``): the sidebar, the titles, the status line, the
        findings, the forms' notes, the memory bar and the explanation in it."""
        self.query_one(GroupList).relabel(self.generated.findings, self.answers.target)
        for form in self.query(GroupForm):
            form.relabel(self.answers.target)
        self.query_one("#explanation").border_title = ui("explanation")
        self.query_one(FindingsList).border_title = ui("findings")
        self.query_one(MemoryBar).border_title = ui("memory_per_rank")
        self.refresh_all()

    def _pane(self) -> ExplanationPane:
        from ..widgets.explanation import ExplanationPane

        return self.query_one("#explanation", ExplanationPane)

    def _refresh_explanation(self) -> None:
        if "explanation" in self._stand_ins:
            return
        pane = self._pane()
        if pane.subject is None:
            return
        kind, key = pane.subject
        if kind == "setting":
            self.explain_setting(key)
        elif kind == "group":
            self.explain_group(key)
        else:
            pane.refresh_content()

    def explain_setting(self, setting_id: str) -> None:
        if "explanation" in self._stand_ins:  # explained when the pane replaces its stand-in
            return
        finding = worst_by_setting(self.generated.findings).get(setting_id)
        a, rendered = self.answers, self.generated.rendered
        self._pane().explain(
            ("setting", setting_id), lambda w: _explain().explain_setting(setting_id, a, rendered, finding, w))

    def explain_group(self, group_id: str) -> None:
        if "explanation" in self._stand_ins:
            return
        a = self.answers
        self._pane().explain(("group", group_id), lambda w: _explain().explain_group(group_id, a, w))

    def explain_finding(self, finding: Finding) -> None:
        if "explanation" in self._stand_ins:
            return
        self._pane().explain(("finding", finding.rule),
                                                lambda w: _explain().explain_finding(finding, w))

    # -------------------------------------------------------------- groups and focus

    async def show_group(self, group_id: str) -> GroupForm:
        await self._replace_stand_ins()
        switcher = self.query_one("#forms", ContentSwitcher)
        forms = self.query(f"#{form_id(group_id)}")
        if forms:
            form = forms.first(GroupForm)
        else:
            form = GroupForm(group_id, self.answers, self.generated.rendered, worst_by_setting(self.generated.findings),
                             wide=self.has_class("-wide"))
            await switcher.mount(form)
        switcher.current = form.id
        return form

    @on(OptionList.OptionHighlighted, "#groups")
    async def _group_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        group_id = event.option.id
        if self._stand_ins:  # the first frame's form is the first group's; the real one follows the highlight
            return
        if group_id and group_id != REVIEW:
            await self.show_group(group_id)
            if self.focused is event.option_list:
                self.explain_group(group_id)

    @on(OptionList.OptionSelected, "#groups")
    async def _group_selected(self, event: OptionList.OptionSelected) -> None:
        group_id = event.option.id
        if group_id == REVIEW:
            self.action_review()
            return
        if group_id:
            form = await self.show_group(group_id)
            control = form.first_control()
            if control is not None:
                control.focus()

    @on(OptionList.OptionHighlighted, "#findings")
    def _finding_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        finding = self.query_one(FindingsList).finding_at(event.option_index)
        if finding is not None and self.focused is event.option_list:
            self.explain_finding(finding)

    @on(FindingsList.Jump)
    async def _finding_jump(self, event: FindingsList.Jump) -> None:
        await self.jump_to_finding(event.finding)

    async def jump_to_finding(self, finding: Finding) -> None:
        setting_id = finding_setting(finding)
        if setting_id is None:
            self.notify(ui("notice_no_setting", rule=finding.rule, keys=", ".join(finding.keys)), timeout=4)
            return
        await self.jump_to(setting_id)
        note = jump_note(finding)
        if note:
            self.notify(note, timeout=5)

    async def jump_to(self, setting_id: str) -> None:
        await self._replace_stand_ins()
        group = SETTING_BY_ID[setting_id].group
        groups = self.query_one(GroupList)
        with groups.prevent(OptionList.OptionHighlighted):
            groups.select_group(group)
        form = await self.show_group(group)
        field = form.query_one(f"#{field_id(setting_id)}", SettingField)
        field.control.focus(scroll_visible=False)
        # once the (maybe just mounted) form has its layout, bring the whole field into view
        self.call_after_refresh(form.bring_into_view, field)

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        widget = event.widget
        for node in widget.ancestors_with_self:
            if isinstance(node, SettingField):
                self.explain_setting(node.setting.id)
                return
        if isinstance(widget, GroupList) and widget.group_id and widget.group_id != REVIEW:
            self.explain_group(widget.group_id)
        elif isinstance(widget, FindingsList) and widget.current is not None:
            self.explain_finding(widget.current)

    # -------------------------------------------------------------- actions

    async def focus_group(self, group_id: str) -> None:
        groups = self.query_one(GroupList)
        groups.select_group(group_id)
        await self.show_group(group_id)
        groups.focus()

    async def action_zoom_explanation(self) -> None:
        await self._replace_stand_ins()
        if self.maximized is not None:
            self.minimize()
            return
        pane = self._pane()
        pane.focus()
        self.maximize(pane)

    def action_focus_groups(self) -> None:
        self.query_one(GroupList).focus()

    async def action_focus_findings(self) -> None:
        await self._replace_stand_ins()
        findings = self.query_one(FindingsList)
        findings.focus()
        if findings.highlighted is None:
            findings.highlight_first()

    @property
    def problems(self) -> list[Finding]:
        """The errors and warnings ctrl+n visits: every one the findings list shows (the answers' and the start
        file's), in its order, so that ctrl+n reaches each problem the header counts."""
        return [f for f in self.query_one(FindingsList).findings if f.severity != INFO]

    async def action_next_problem(self) -> None:
        await self._replace_stand_ins()
        problems = self.problems
        if not problems:
            self.notify(ui("notice_no_problems"), timeout=3)
            return
        self._problem_index = (self._problem_index + 1) % len(problems)
        finding = problems[self._problem_index]
        findings = self.query_one(FindingsList)
        findings.highlight_finding(finding)
        if finding_setting(finding) is None:  # nothing of the form writes its key: the finding itself, explained
            findings.focus()
            self.explain_finding(finding)
            self.notify(ui("notice_problem_no_setting", index=self._problem_index + 1, count=len(problems),
                           rule=finding.rule, keys=", ".join(finding.keys) or ui("the_whole_config")), timeout=5)
            return
        await self.jump_to_finding(finding)

    def action_out_folder(self) -> None:
        from .out_folder import OutFolderScreen

        def chosen(folder: str | None) -> None:
            if folder:
                self.set_out(folder)
                self.notify(ui("notice_files_go_to", folder=folder), timeout=3)

        self.app.push_screen(OutFolderScreen(self.out), chosen)

    def action_memory(self) -> None:
        from .memory import MemoryScreen

        self.app.push_screen(MemoryScreen())

    def action_cycle_target(self) -> None:
        self.set_target(TARGET_CYCLE[self.answers.target])

    def action_review(self) -> None:
        from .review import ReviewScreen

        review = ReviewScreen(self.answers, self.out, self.start.files, ds_path=self.ds_path,
                              bare_ds=self.start.bare_ds, judged=self.judged)
        self.app.push_screen(review, self._review_closed)

    async def _review_closed(self, result: dict | None) -> None:
        if not result:
            return
        if result.get("out"):
            self.set_out(result["out"])
        if result.get("jump"):
            await self.jump_to(result["jump"])

    def _checked(self) -> None:
        """Before a rehearsal or a launch: the full check (with the files to write), when a key came before it."""
        if not self.ready:
            self._full_check()

    def action_rehearse(self) -> None:
        from .flows import rehearse_answers

        self._checked()
        rehearse_answers(self.app, self.answers, self.out, self.findings)

    def action_launch(self) -> None:
        from .flows import launch_answers

        self._checked()
        launch_answers(self.app, self.answers, self.out, self.generated)

    @property
    def has_errors(self) -> bool:
        return any(f.severity == ERROR for f in self.findings)


class _Frame(Widget):
    """A pane's empty frame: its border and titles (the first frame's stand-in, :meth:`MainScreen.compose`)."""

    def render(self) -> str:
        return ""


def _frame(id_: str, title: str, subtitle: str = "") -> Widget:
    frame = _Frame(id=id_)
    frame.border_title = title
    frame.border_subtitle = subtitle
    return frame


def _explain():
    """The explanation pane's content (:mod:`wizard.tui.shared.explain`), imported when the pane is first filled, after
    the first paint (it brings the dtype table and the cell widths, issue 26)."""
    from ..shared import explain

    return explain


def _change_words(before: Answers, after: Answers) -> str:
    """A change of several answers in a few words: the settings it changed (a suggestion applied, a load)."""
    changed = [sid for sid in after.values if before.values.get(sid) != after[sid]]
    if not changed:
        return ui("step_change")
    if len(changed) > 3:
        return ui("step_change_of_more", settings=", ".join(changed[:3]), more=len(changed) - 3)
    return ui("step_change_of", settings=", ".join(changed))
