"""Rich renderables for the explanation pane: a setting, a group or a finding, both backends side by side."""
from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ...core import localized
from ...core.answers import Answers
from ...core.answers.render import Rendered
from ...core.catalog import GROUP_BY_ID, SETTING_BY_ID, TARGET_LABELS, TARGETS
from ...core.findings import Finding
from ...core.i18n import cells
from ...core.localized import ui
from ...core.texts import precision_table
from .present import ICONS, NOT_APPLICABLE_ICON, severity_word, show_value, target_label, written_for

WIDE = 56
"""From this pane width on, FSDP and DeepSpeed are shown in two columns."""


def _heading(text: str) -> Text:
    return Text(text, style="bold underline")


def _flow(text: str, width: int | None) -> str:
    """Chinese text broken into lines of ``width`` cells (Rich breaks lines at spaces only, and a Chinese sentence
    has none between its characters); any other text as it is (Rich wraps it)."""
    if width is None or not cells.has_wide(text):
        return text
    return "\n".join(line for para in text.split("\n") for line in (cells.wrap(para, max(8, width)) or [""]))


def _para(label: str, body: str, style: str = "bold", width: int | None = None) -> Text:
    head = localized.labelled(label, "")  # "Tip: ", "提示："
    t = Text(_flow(head + body, width))
    t.stylize(style, 0, len(head))
    return t


def longest_word(*texts: str) -> int:
    """The cells of the longest run without a space: an identifier such as ``fsdp_activation_checkpointing_offload``
    (a run of CJK characters breaks anywhere, so it counts as one character's width)."""
    return max((2 if cells.has_wide(w) else cells.width(w) for t in texts for w in t.split()),
               default=0)


def _side_by_side(fsdp_title: str, fsdp: str, ds_title: str, ds: str, width: int) -> RenderableType:
    # two columns only when every identifier fits a column whole: never break inside a key name
    if width >= WIDE and longest_word(fsdp, ds) <= (width - 2) // 2 - 1:
        table = Table(box=None, expand=True, show_edge=False, pad_edge=False, padding=(0, 1))
        table.add_column(fsdp_title, header_style="bold cyan", ratio=1, overflow="fold")
        table.add_column(ds_title, header_style="bold magenta", ratio=1, overflow="fold")
        column = (width - 2) // 2
        table.add_row(_flow(fsdp, column), _flow(ds, column))
        return table
    return Group(_para(fsdp_title + ":", fsdp, "bold cyan", width), _para(ds_title + ":", ds, "bold magenta", width))


PRECISION_TABLE_AT = 100
"""Below this pane width the dtype table is one line per backend (its nine columns would cut words)."""


def precision_block(answers: Answers, width: int) -> RenderableType:
    md, mp = answers["precision.model_dtype"], answers["precision.mixed_precision"]
    title = Text(ui("dtype_title", model_dtype=md, mixed_precision=mp), style="bold")
    notes = [Text(_flow(f"• {n}", width)) for n in localized.dtype_notes(md, mp)]
    if width < PRECISION_TABLE_AT:
        lines = []
        for row in precision_table(md, mp):
            line = Text()
            line.append(f"{row.backend}: ", style="bold")
            line.append(f"{ui('dtype_load')} {row.load} · {ui('dtype_params')} {row.flat_params_or_prepared} · "
                        f"{ui('dtype_compute')} {row.training_compute} · autocast {row.autocast} · "
                        f"{ui('dtype_upcast')} {row.upcast} · {ui('dtype_optim')} {row.optimizer_state} · "
                        f"B/param {row.bytes_per_param} · {ui('dtype_checkpoint')} {row.checkpoint}")
            lines.append(line)
        return Group(title, *lines, *notes)
    table = Table(expand=width >= WIDE, show_edge=True, padding=(0, 1), header_style="bold")
    for name in ("", ui("dtype_load"), ui("dtype_params"), ui("dtype_compute"), "autocast", ui("dtype_upcast"),
                 ui("dtype_optim"), "B/param", ui("dtype_checkpoint")):
        table.add_column(name)
    for row in precision_table(md, mp):
        table.add_row(row.backend, row.load, row.flat_params_or_prepared, row.training_compute, row.autocast,
                      row.upcast, row.optimizer_state, row.bytes_per_param, row.checkpoint)
    return Group(title, table, *notes)


def state_bytes_block(answers: Answers, width: int, params: int | None = None) -> RenderableType:
    """Model-state bytes per parameter of the current precision answers, FSDP and DeepSpeed side by side (from
    ``wizard.core.memory.report.state_bytes_rows``), with the GiB per GPU when the parameter count is known."""
    from ...core.memory.report import fmt_bytes, state_bytes_rows

    rows = state_bytes_rows(answers)
    n = rows[0].ranks
    title = Text(ui("state_bytes_title_one" if n == 1 else "state_bytes_title", count=n), style="bold")
    table = Table(box=None, show_edge=False, pad_edge=False, padding=(0, 1), header_style="bold")
    table.add_column("", no_wrap=True)
    for name in (ui("state_param"), ui("state_grad"), ui("state_optim"), "/GPU"):
        table.add_column(name, justify="right", no_wrap=True)
    if params:
        table.add_column("GiB/GPU", justify="right", no_wrap=True)
    for row in rows:
        mark = "▶" if row.backend == answers.backend else " "
        cells = [f"{mark}{target_label(row.answers)}", fmt_bytes(row.parameters), fmt_bytes(row.gradients),
                 fmt_bytes(row.optimizer_states), fmt_bytes(round(row.per_gpu, 2))]
        if params:
            cells.append(f"{row.per_gpu * params / 2 ** 30:.1f}")
        table.add_row(*cells, style="cyan" if row.backend == "fsdp" else "magenta")
    fsdp, ds = rows
    why = ui("state_why_fsdp_less" if fsdp.total < ds.total else "state_why_fsdp_more" if fsdp.total > ds.total
             else "state_why_same")
    return Group(title, table, Text(ui("state_per_gpu", why=why), style="dim"))


def _where_table(setting_id: str, target: str, width: int = WIDE) -> RenderableType:
    s = SETTING_BY_ID[setting_id]
    rows = []
    for t in TARGETS:
        mark = "▶" if t == target else " "
        if s.applies_to(t):
            where = localized.where(setting_id, t)
        else:
            where = f"{NOT_APPLICABLE_ICON} " + (localized.not_applicable(setting_id, t) or ui("no_such_setting"))
        rows.append((f"{mark}{TARGET_LABELS[t]}", where))
    label_width = max(cells.width(label) for label, _ in rows) + 1
    if longest_word(*(w for _, w in rows)) > width - label_width:
        # a key name would not fit beside the labels: each target on its own line, the place indented below
        lines = []
        for label, where in rows:
            line = Text()
            line.append(label, style="bold")
            line.append("\n" + "\n".join("  " + part for part in _flow(where, width - 2).split("\n")))
            lines.append(line)
        return Group(*lines)
    table = Table.grid(padding=(0, 1))
    table.add_column(style="bold")
    table.add_column(overflow="fold")
    for label, where in rows:
        table.add_row(label, _flow(where, width - label_width - 1))
    return table


def explain_setting(setting_id: str, answers: Answers, rendered: Rendered, finding: Finding | None,
                    width: int) -> RenderableType:
    s = SETTING_BY_ID[setting_id]
    t = localized.text(setting_id)
    target = answers.target
    parts: list[RenderableType] = [Text(f"{localized.setting_label(s.id)}  ({s.id})", style="bold")]
    if not s.applies_to(target):
        parts.append(Text(f"{NOT_APPLICABLE_ICON} " + localized.labelled(
            ui("not_used_by", target=TARGET_LABELS[target]),
            localized.not_applicable(s.id, target) or ui("no_such_setting")), style="bold yellow"))
    if finding is not None:
        parts.append(Text(f"{ICONS[finding.severity]} {severity_word(finding.severity)}: "
                          f"{localized.finding_message(finding)}"))
    parts.append(Text(_flow(t.what, width)))
    if s.group == "precision":
        parts.append(precision_block(answers, width))
        parts.append(state_bytes_block(answers, width))
    parts.append(_side_by_side("FSDP", t.fsdp, "DeepSpeed", t.deepspeed, width))
    parts.append(_para(ui("counterpart"), localized.counterpart(s.id), width=width))
    written = written_for(rendered, setting_id)
    if written:
        lines = ", ".join(f"{path}: {show_value(v)}" + (" (ds_config.json)" if f == "json" else "")
                          for f, path, v in written)
        parts.append(_para(ui("written_now", target=TARGET_LABELS[target]), lines, "bold green", width))
    elif s.applies_to(target):
        parts.append(_para(ui("written_now", target=TARGET_LABELS[target]), ui("written_nothing"), "bold green",
                           width))
    parts.append(_heading(ui("where_each")))
    parts.append(_where_table(setting_id, target, width))
    if t.versions:
        parts.append(_para(ui("versions_pitfalls"), t.versions, width=width))
    if t.tips:
        parts.append(_para(ui("tip"), t.tips, width=width))
    return Group(*_spaced(parts, width))


def explain_group(group_id: str, answers: Answers, width: int) -> RenderableType:
    g = GROUP_BY_ID[group_id]
    gt = localized.group_text(group_id)
    parts: list[RenderableType] = [Text(localized.group_label(group_id), style="bold"),
                                   Text(_flow(gt.summary, width))]
    if group_id == "parallelism":  # right under the summary: what these answers' ranks do
        parts.append(mesh_block(answers, width))
    parts += [_side_by_side("FSDP", gt.fsdp, "DeepSpeed", gt.deepspeed, width),
              _para(ui("no_counterpart"), gt.no_counterpart, width=width)]
    if group_id == "precision":
        parts.append(precision_block(answers, width))
        parts.append(state_bytes_block(answers, width))
    if g.guide:
        parts.append(Text(ui("guide_group"), style="dim"))
    parts.append(Text(ui("group_hint"), style="dim"))
    return Group(*_spaced(parts, width))


def mesh_block(answers: Answers, width: int) -> RenderableType:
    """The device mesh the answers' FSDP2 config builds (which ranks form each group), or what would draw one."""
    from ...core.answers.render import render
    from ...core.effective.layout import config_sizes

    found = config_sizes(render(answers).accelerate)
    if found is None:
        return Text(ui("mesh_none"), style="dim")
    sizes, per_machine = found
    lines = localized.mesh_picture(sizes, per_machine, limit=max(4, (width - 16) // 3))
    return Text("\n".join(lines), no_wrap=True, overflow="ellipsis")


def explain_finding(f: Finding, width: int = WIDE) -> RenderableType:
    parts: list[RenderableType] = [Text(f"{ICONS[f.severity]} {severity_word(f.severity)}  [{f.rule}]", style="bold")]
    message = localized.finding_message(f)
    summary = localized.translated_rule_summary(f.rule) if message == f.message else ""
    if summary:  # the message stayed English: the rule in the chosen language
        parts.append(_para(ui("rule_says"), summary, "bold italic", width))
    parts.append(Text(message))
    if f.fix:
        parts.append(_para(ui("fix"), localized.finding_fix(f), width=width))
    if f.keys:
        parts.append(_para(ui("blames"), ", ".join(f.keys)))
    if f.source:
        parts.append(_para(ui("source"), f.source, "dim bold"))
    parts.append(Text(ui("jump_hint"), style="dim"))
    return Group(*_spaced(parts, width))


def _spaced(parts: list[RenderableType], width: int) -> list[RenderableType]:
    """A blank line between parts when there is room; none in the small pane of an 80x24 terminal."""
    out: list[RenderableType] = []
    for p in parts:
        if out and width >= WIDE:
            out.append(Text(""))
        out.append(p)
    return out

