"""The Memory screen (F3): the model and GPUs of the memory bar, the whole estimate, and "suggest".

The fields set the app's :class:`~wizard.tui.shared.session.MemoryContext` as they are typed (the main screen's bar
follows); a field that cannot be used shows its message under it and is left out. The report below is the estimate of
``fsdpds-wizard estimate`` (the same parts and labels), the host memory, DeepSpeed's own estimator next to ours, and
the bytes per parameter of the precision answers for FSDP and DeepSpeed. Suggest (F4) ranks configs of both
backends for this model and these GPUs (``wizard.core.memory.recommend``), on the GPUs per machine and the machines
of their fields (empty: the answers'), each with its GPU and host memory; Enter on one applies it to the answers.
Whether a config fits, and the largest micro batch, are the estimate's :class:`~wizard.core.memory.fit.Fit` in its
words (:func:`~wizard.core.memory.fit.verdict`), with the share of GPU memory kept free: the report, every candidate
and the note above them (which says how the current answers fare, and what Suggest left out and why) read it.
"""
from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.widgets import Button, Input, OptionList, Select, Static
from textual.widgets.option_list import Option

from ...core import localized
from ...core.localized import memory as said_memory
from ...core.localized import said
from ...core.memory.estimate import BREAKDOWN_KEYS, HOST_KEYS, EstimateError
from ...core.memory.fit import micro_batch_line
from ...core.memory.report import at_peak, peak_line
from ...core.memory.shapes import SHAPES
from ..shared.explain import state_bytes_block
from ..shared.present import target_label
from ..shared.session import MEMORY_FIELDS, MemoryContext, memory_fields
from ..widgets.fields import FieldInput
from ..widgets.keybar import KeyBar

GIB = 2 ** 30
OTHER = "other"
"""The shape selector's last entry: the model is what is typed in the field under it."""
TEXT_FIELDS = ("largest_layer", "gpu_memory", "seq", "batch", "host_memory", "gpus_per_node", "machines")


def words(key: str, **values: object) -> str:
    """The memory screen's words (part ``screen-memory``) in the wizard's language."""
    return localized.screen("memory", key, None, **values)


def field_label(name: str) -> str:
    """A field's name (:data:`~wizard.tui.shared.session.MEMORY_FIELDS`) in the wizard's language."""
    return words(f"field.{name}")


def _count(key: str, n: Any) -> str:
    """``8 GPUs`` / ``1 machine``: ``key`` + ``_one`` for 1, ``_many`` otherwise."""
    return words(f"{key}_{'one' if n == 1 else 'many'}", count=n)


def _gib(n: float) -> str:
    return f"{n / GIB:.2f}"


def _model_choice(memory: MemoryContext) -> tuple[Any, str]:
    """(the selector's value, the typed text) for a context: a shipped shape by its name, anything else typed."""
    name = getattr(memory.shape, "name", None)
    if name in SHAPES and memory.model.strip().lower() == name:
        return name, ""
    if memory.model:
        return OTHER, memory.model
    return Select.NULL, ""


def report_renderable(e, memory: MemoryContext, answers, width: int = 80) -> RenderableType:
    """The estimate in full: per GPU, per host, DeepSpeed's own numbers, bytes per parameter, notes."""
    parts: list[RenderableType] = []
    name = e.shape or words("model")
    parts.append(Text(words("report_heading", model=name, params=f"{e.params:,}", largest=f"{e.largest_layer_params:,}",
                            layout=said(e.layout), batch=e.batch, seq=e.seq), style="bold"))
    gpu = Table(box=None, show_edge=False, pad_edge=False, padding=(0, 1), header_style="bold")
    gpu.add_column(words("col_per_gpu"), no_wrap=True)
    gpu.add_column("GiB", justify="right", no_wrap=True)
    gpu.add_column(words("col_at_peak"), justify="right", no_wrap=True)
    held = at_peak(e)
    for k in BREAKDOWN_KEYS:
        gpu.add_row(f"  {said_memory.part(k)}", _gib(e.per_rank.breakdown[k]), _gib(held[k]))
    gpu.add_row("  " + words("row_peak"), "", _gib(e.per_rank.gpu_bytes), style="bold")
    parts.append(gpu)
    parts.append(Text(said(peak_line(e))))
    if e.fit is not None:
        line = Text(said_memory.verdict(e.fit), style="green" if e.fit.fits else "bold red")
        batch_line = said(micro_batch_line(e.fit) or "")
        parts.append(Text("\n").join([line, Text(batch_line)]) if batch_line else line)
    else:
        parts.append(Text(words("no_gpu_memory", field=field_label("gpu_memory")), style="dim"))
    host = Table(box=None, show_edge=False, pad_edge=False, padding=(0, 1), header_style="bold")
    host.add_column(words("col_per_host", ranks=e.ranks_per_host), no_wrap=True)
    host.add_column("GiB", justify="right", no_wrap=True)
    for k in HOST_KEYS:
        if e.host_breakdown[k]:
            host.add_row(f"  {said_memory.part(k)}", _gib(e.host_breakdown[k]))
    host.add_row("  " + words("row_total"), _gib(e.host_bytes), style="bold")
    parts.append(host)
    ds = e.deepspeed_estimator
    side = Table(box=None, show_edge=False, pad_edge=False, padding=(0, 1), header_style="bold")
    side.add_column(words("col_side"), no_wrap=True)
    side.add_column(words("col_ours_all"), justify="right")
    side.add_column(words("col_ours_states"), justify="right")
    side.add_column(f"DeepSpeed {ds['deepspeed_version']}" if ds else words("col_ds_estimator"), justify="right")
    states = sum(e.per_rank.breakdown[k] for k in ("parameters", "gradients", "optimizer_states"))
    host_states = sum(e.host_breakdown[k] for k in ("offloaded_parameters", "offloaded_gradients",
                                                    "offloaded_optimizer_states"))
    side.add_row(words("row_gpu_per_rank"), _gib(e.per_rank.gpu_bytes), _gib(states),
                 _gib(ds["gpu_bytes"]) if ds else "-")
    side.add_row(words("row_cpu_per_host"), _gib(e.host_bytes), _gib(host_states),
                 _gib(ds["cpu_bytes"]) if ds else "-")
    parts.append(side)
    if ds:
        parts.append(Text(words("ds_function", function=ds['function']), style="dim"))
    else:
        parts.append(Text(words("ds_only"), style="dim"))
    parts.append(state_bytes_block(answers, width, e.params))
    for note in e.notes:
        parts.append(Text(words("note", note=said_memory.note(note)), style="dim"))
    out: list[RenderableType] = []
    for p in parts:
        if out and isinstance(p, Table):
            out.append(Text(""))
        out.append(p)
    return Group(*out)


def candidate_prompt(c) -> Text:
    t = Text()
    t.append("✔ " if c.fits else "✖ ", style="green" if c.fits else "red")
    t.append(said_memory.candidate_label(c), style="bold")
    t.append("  " + words("candidate", gpu=f"{c.estimate.per_rank.gpu_bytes / GIB:.1f}",
                          host=f"{c.estimate.host_bytes / GIB:.1f}") + "\n")
    t.append(f"  {said_memory.reason(c)}", style="dim")
    return t


def suggest_note(rec, current: tuple[str, Any] | None, cluster: tuple[int, int] | None = None,
                 answers: Any = None) -> Text:
    """Above the candidates: the GPUs they are ranked for (``cluster``: GPUs per machine, machines), how the current
    answers fare (the same verdict as the bar and the report), which one is best, and every config Suggest left out,
    with the reason."""
    t = Text()
    if cluster is not None:
        n, m = cluster
        if answers is not None and (int(answers["launch.num_processes"]), int(answers["launch.num_machines"])) != (
                n * m, m):
            t.append(words("ranked_differ", gpus=_count("gpus", n), machines=_count("machines", m),
                           processes=answers["launch.num_processes"],
                           answer_machines=_count("machines", answers["launch.num_machines"]), total=n * m, m=m))
        else:
            t.append(words("ranked", gpus=_count("gpus", n), machines=_count("machines", m)))
        t.append("\n")
    if current is not None:
        layout, fit = current
        t.append(words("your_answers", layout=said(layout), verdict=said_memory.verdict(fit)) + "\n",
                 style="green" if fit.fits else "bold red")
    left_out = {f"left out {label}: {why}" for label, why in rec.left_out}  # said once, below
    notes = [said_memory.note(n, rec) for n in rec.notes if n not in left_out]
    if rec.chosen is not None:
        t.append(words("best", label=said_memory.candidate_label(rec.chosen)), style="bold green")
    elif not rec.candidates:
        t.append(words("no_config_why", notes="; ".join(notes)) if notes else words("no_config"), style="bold red")
    else:
        t.append(words("nothing_fits_why", notes="; ".join(notes)) if notes else words("nothing_fits"),
                 style="bold red")
    for label, why in said_memory.left_out(rec):
        t.append("\n" + words("left_out", label=label, why=why), style="dim")
    return t


def imported_errors(start) -> str:
    """For a start imported from a config with errors (as ``check`` reports them): a line that says so, since the
    suggestions start from answers that hold only one reading of them (``recommend --base`` refuses such a config);
    else ""."""
    errors = [f for f in start.findings if f.severity == "error" and f.rule != "import"] if start.files else []
    if not errors:
        return ""
    keys = ", ".join(dict.fromkeys(k for f in errors for k in f.keys[:1]))
    return words("imported_errors", file=start.files[0].name, count=len(errors), keys=keys)


def changed_settings(before, after) -> list[str]:
    """The setting ids whose values differ, in catalogue order."""
    return [sid for sid in after.values if before.values.get(sid) != after[sid]]


APPLY_KEY = ("enter", "Suggestions: apply the highlighted config to the answers (a change of backend shows the "
                      "switch report)")
"""Enter in the list of suggestions (the list's own key, not a binding): for the help screen."""


class MemoryScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "back", "Back", id="memory-back", tooltip="Back to the settings (the bar keeps this model)"),
        Binding("f4", "suggest", "Suggest", id="memory-suggest",
                tooltip="Suggest: rank configs of both backends for this model, on the GPUs per machine and "
                        "the machines of the fields (empty: the answers')"),
    ]
    DEFAULT_CSS = """
    MemoryScreen #mem-head { height: 1; background: $panel; padding: 0 1; text-style: bold; }
    MemoryScreen #mem-scroll { height: 1fr; padding: 0 1; }
    MemoryScreen #mem-form { height: auto; }
    MemoryScreen .mem-row { height: 1; }
    MemoryScreen .mem-label { width: 28; padding: 0 1 0 0; color: $text-muted; }
    MemoryScreen .mem-row > Input, MemoryScreen .mem-row > Select { width: 1fr; }
    MemoryScreen .mem-row > Input > .input--placeholder { color: $text-disabled; text-style: italic; }
    MemoryScreen .mem-error { height: auto; color: $text-error; display: none; }
    MemoryScreen .mem-error.-shown { display: block; }
    MemoryScreen #mem-buttons { height: auto; margin: 1 0 0 0; }
    MemoryScreen #mem-buttons Button { margin: 0 1 0 0; }
    MemoryScreen #mem-suggest-note { height: auto; }
    MemoryScreen #mem-candidates { height: auto; max-height: 12; display: none; }
    MemoryScreen #mem-candidates.-shown { display: block; }
    MemoryScreen #mem-report { height: auto; margin: 1 0 0 0; }
    """

    def __init__(self) -> None:
        super().__init__(id="memory")
        self.candidates: list[Any] = []
        self.recommendation: Any = None
        self.errors: dict[str, str] = {}

    # -------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        memory: MemoryContext = self.app.memory  # type: ignore[attr-defined]
        answers = self.app.main.answers  # type: ignore[attr-defined]
        choice, typed = _model_choice(memory)
        n, m = int(answers["launch.num_processes"]), int(answers["launch.num_machines"])
        yield Static(words("head_one" if m == 1 else "head_many", target=target_label(answers), processes=n,
                           machines=m), id="mem-head")
        with VerticalScroll(id="mem-scroll"):
            with Vertical(id="mem-form"):
                with Horizontal(classes="mem-row"):
                    yield Static(words("label_shape"), classes="mem-label")
                    options = [(name, name) for name in SHAPES] + [(words("shape_other"), OTHER)]
                    yield Select(options, value=choice, prompt=words("shape_prompt"), id="mem-shape", compact=True)
                with Horizontal(classes="mem-row"):
                    yield Static("  " + words("label_typed"), classes="mem-label")
                    yield FieldInput(typed, id="mem-model", compact=True, placeholder=words("model_placeholder"))
                yield Static("", id="mem-model-error", classes="mem-error")
                mb = answers["training.micro_batch_size"]
                gpus, machines = MemoryContext().cluster(answers)
                # placeholders in parentheses, saying what empty means, so that none reads as a value typed
                fields = {"largest_layer": (memory.largest_layer_params, words("hint_largest_layer")),
                          "gpu_memory": (memory.gpu_memory_gib, words("hint_gpu_memory")),
                          "seq": (memory.seq, words("hint_seq")),
                          "batch": (memory.batch, words("hint_answers", value=1 if mb == 'auto' else mb)),
                          "host_memory": (memory.host_memory_gib, words("hint_host_memory")),
                          "gpus_per_node": (memory.gpus_per_node, words("hint_answers", value=gpus)),
                          "machines": (memory.machines, words("hint_answers", value=machines))}
                for name, (value, hint) in fields.items():
                    with Horizontal(classes="mem-row"):
                        yield Static(field_label(name), classes="mem-label")
                        text = "" if value is None else (f"{value:g}" if isinstance(value, float) else str(value))
                        yield FieldInput(text, id=f"mem-{name}", compact=True, placeholder=hint)
                    yield Static("", id=f"mem-{name}-error", classes="mem-error")
            with Horizontal(id="mem-buttons"):
                yield Button(words("button_suggest"), id="mem-suggest", variant="primary", compact=True)
                yield Button(words("button_back"), id="mem-back", compact=True)
            yield Static("", id="mem-suggest-note")
            yield OptionList(id="mem-candidates")
            yield Static("", id="mem-report")
        yield KeyBar(compact=True)

    def on_mount(self) -> None:
        self.query_one("#mem-shape", Select).focus()
        self.refresh_report()

    def relanguage(self) -> None:
        """After the language changed: the screen composed again in it (the fields keep their values: the app's
        memory context holds them; a field's unusable text and a list of suggestions are dropped, F4 makes it
        again)."""
        self.call_later(self._relanguage)

    async def _relanguage(self) -> None:
        self.candidates, self.recommendation = [], None
        await self.recompose()
        self.query_one("#mem-shape", Select).focus()
        self.refresh_report()

    # -------------------------------------------------------------- the fields

    def field_values(self) -> dict[str, str]:
        choice = self.query_one("#mem-shape", Select).value
        typed = self.query_one("#mem-model", Input).value
        if choice == OTHER or (choice is Select.NULL and typed.strip()):
            model = typed
        elif choice is Select.NULL:
            model = ""
        else:
            model = str(choice)
        values = {name: self.query_one(f"#mem-{name}", Input).value for name in TEXT_FIELDS}
        return {"model": model, **values}

    def error_of(self, name: str) -> str:
        """The message shown under a field ('' when it is fine)."""
        return self.errors.get(name, "")

    @on(Input.Changed)
    @on(Select.Changed)
    def _changed(self) -> None:
        memory, self.errors = memory_fields(self.field_values())
        for name in MEMORY_FIELDS:
            box = self.query_one(f"#mem-{name}-error", Static)
            box.update(self.errors.get(name, ""))
            box.set_class(name in self.errors, "-shown")
        self.app.memory = memory  # type: ignore[attr-defined]
        self.app.main.refresh_memory()  # type: ignore[attr-defined]
        self.refresh_report()

    def refresh_report(self) -> None:
        memory: MemoryContext = self.app.memory  # type: ignore[attr-defined]
        answers = self.app.main.answers  # type: ignore[attr-defined]
        report = self.query_one("#mem-report", Static)
        width = max(40, (self.query_one("#mem-scroll").content_size.width or self.app.size.width) - 2)
        if not memory.has_model:
            report.update(Group(Text(words("pick_a_model"), style="dim"), Text(""), state_bytes_block(answers, width)))
            return
        try:
            e = memory.estimate(answers)
        except EstimateError as exc:
            report.update(Text(words("cannot_estimate", error=said(str(exc))), style="bold red"))
            return
        report.update(report_renderable(e, memory, answers, width))

    # -------------------------------------------------------------- suggest

    @staticmethod
    def _current_fit(memory: MemoryContext, answers) -> tuple[str, Any] | None:
        """(the layout, its Fit) of the answers as they are; None when they cannot be estimated."""
        try:
            e = memory.estimate(answers)
        except EstimateError:
            return None
        return (e.layout, e.fit) if e.fit is not None else None

    def _note(self, text: str, style: str = "") -> None:
        self.query_one("#mem-suggest-note", Static).update(Text(text, style=style))

    def action_suggest(self) -> None:
        memory: MemoryContext = self.app.memory  # type: ignore[attr-defined]
        answers = self.app.main.answers  # type: ignore[attr-defined]
        if not memory.has_model:
            self._note(words("needs_model", field=field_label("model")), "bold red")
            return
        if memory.gpu_memory_gib is None:
            self._note(words("needs_gpu_memory", field=field_label("gpu_memory")), "bold red")
            return
        try:
            from ...core.memory.recommend import recommend
        except ModuleNotFoundError:
            self._note(words("no_recommend"), "bold red")
            return
        n, m = memory.cluster(answers)  # the fields', else the answers'
        try:
            rec = recommend(shape=memory.shape, params=None if memory.shape is not None else memory.params,
                            gpus_per_node=n, gpu_memory_gib=memory.gpu_memory_gib, nodes=m,
                            host_memory_gib=memory.host_memory_gib, batch=memory.batch, seq=memory.seq, base=answers,
                            versions=self.app.main.versions)  # type: ignore[attr-defined]
        except EstimateError as exc:
            self._note(words("cannot_suggest", error=said(str(exc))), "bold red")
            return
        self.recommendation = rec
        self.candidates = list(rec.candidates)
        options = self.query_one("#mem-candidates", OptionList)
        options.clear_options()
        options.add_options([Option(candidate_prompt(c), id=f"c{i}") for i, c in enumerate(self.candidates)])
        options.set_class(bool(self.candidates), "-shown")
        note = suggest_note(rec, self._current_fit(memory, answers), (n, m), answers)
        errors = imported_errors(self.app.main.start)  # type: ignore[attr-defined]
        if errors:
            note.append(f"\n{errors}", style="bold red")
        self.query_one("#mem-suggest-note", Static).update(note)
        if rec.chosen is not None:
            options.highlighted = self.candidates.index(rec.chosen)
        elif self.candidates:
            options.highlighted = 0
        if self.candidates:
            options.focus()

    @on(OptionList.OptionHighlighted, "#mem-candidates")
    def _candidate_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """The list sits below the form in the screen's scroll and keeps its own highlight in its own view only: the
        screen's scroll follows, so the candidate Enter applies is the one on screen (at 80x24 too)."""
        self.call_after_refresh(self._show_highlighted)

    def _show_highlighted(self) -> None:
        options = self.query_one("#mem-candidates", OptionList)
        if options.highlighted is None:
            return
        rows = [i for i, (index, _) in enumerate(options._lines) if index == options.highlighted]
        if not rows:
            return
        scroll = self.query_one("#mem-scroll", VerticalScroll)
        # the candidate's rows, in the screen scroll's own coordinates
        top = options.content_region.y - scroll.content_region.y + int(scroll.scroll_y) + rows[0] - int(
            options.scroll_y)
        region = Region(0, top, 1, len(rows))
        scroll.scroll_to_region(region, animate=False, immediate=True)

    @on(OptionList.OptionSelected, "#mem-candidates")
    def _candidate_selected(self, event: OptionList.OptionSelected) -> None:
        self.apply(self.candidates[event.option_index])

    def apply(self, candidate) -> None:
        """Back to the settings with the candidate's answers (a change of target shows the switch report)."""
        main = self.app.main  # type: ignore[attr-defined]
        before = main.answers
        changed = changed_settings(before, candidate.answers)
        self.dismiss()
        main.set_answers(candidate.answers)
        extra = ""  # tensor, context or sequence parallel sizes are answers (the Parallelism group): listed as changed
        if changed:
            shown = ", ".join(f"{sid} {before[sid]} → {candidate.answers[sid]}" for sid in changed[:6])
            name = said_memory.candidate_label(candidate)
            applied = (words("applied_more", label=name, changes=shown, count=len(changed) - 6)
                       if len(changed) > 6 else words("applied", label=name, changes=shown))
            main.notify(f"{applied}{extra}", timeout=8)
        else:
            main.notify(words("already", label=said_memory.candidate_label(candidate)) + extra, timeout=5)

    # -------------------------------------------------------------- buttons

    @on(Button.Pressed, "#mem-suggest")
    def _suggest_pressed(self) -> None:
        self.action_suggest()

    @on(Button.Pressed, "#mem-back")
    def _back_pressed(self) -> None:
        self.action_back()

    def action_back(self) -> None:
        self.dismiss()
