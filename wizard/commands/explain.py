"""``fsdpds-wizard explain [GROUP | SETTING | KEY | WORD]``: FSDP and DeepSpeed side by side, from the catalogue; a
config key (``zero3_init_flag``) or a word (``dynamo``) explains the settings it names, as the TUI's palette finds
them."""
from __future__ import annotations

import shutil

from ..core import localized
from ..core.catalog import DEEPSPEED, FSDP1, FSDP2, GROUP_BY_ID, GROUPS, SETTING_BY_ID, TARGET_LABELS, settings_in
from ..core.exits import EXIT_OK, UsageError
from ..core.i18n import cells, said


def two_columns(left: str, right: str, width: int, titles: tuple[str, str] = ("", "")) -> list[str]:
    """Two texts side by side in ``width`` terminal cells (a CJK character takes two), each wrapped in its column."""
    col = max(20, (width - 3) // 2)
    lw: list[str] = []
    rw: list[str] = []
    for text, out in ((left, lw), (right, rw)):
        for para in text.splitlines() or [""]:
            out.extend(cells.wrap(para, col) or [""])
    lines = []
    if any(titles):
        lines.append(f"{cells.ljust(titles[0], col)} | {titles[1]}")
        lines.append("-" * col + "-+-" + "-" * col)
    for i in range(max(len(lw), len(rw))):
        a = lw[i] if i < len(lw) else ""
        b = rw[i] if i < len(rw) else ""
        lines.append(f"{cells.ljust(a, col)} | {b}".rstrip())
    return lines


def _where(setting, target: str) -> str:
    if setting.applies_to(target):
        return localized.where(setting.id, target)
    return localized.labelled(localized.ui("not_applicable"),
                              localized.not_applicable(setting.id, target) or localized.ui("not_used"))


def render_group(group_id: str, width: int, only: str | None = None) -> list[str]:
    """The group's overview and every setting in it; with ``only``, the group's title and that one setting. In the
    current language (:mod:`wizard.core.i18n`); keys, values and names as the libraries spell them."""
    lines = ["=" * width, f"{localized.group_label(group_id)}  ({group_id})", "=" * width]
    if only is not None:
        return lines + _setting(SETTING_BY_ID[only], localized.text(only), width)[1:] + _evidence(only, width)
    lines += _overview(localized.group_text(group_id), width)
    if group_id == "parallelism":
        lines += _mesh_example(width)
    for s in settings_in(group_id):
        lines += _setting(s, localized.text(s.id), width)
    return lines


MESH_EXAMPLE = {"dp_shard": 2, "cp": 2, "tp": 2}
"""The mesh ``explain parallelism`` draws: FSDP2 on 8 processes of one machine, dp_shard 2 x cp 2 x tp 2."""


def _mesh_example(width: int) -> list[str]:
    """Which ranks form each group, drawn for an example (``check`` and ``--headless`` draw the config's own)."""
    picture = localized.mesh_picture(MESH_EXAMPLE)
    return ["", *cells.wrap(localized.ui("mesh_example"), width), *("  " + line for line in picture)]


def _evidence(setting_id: str, width: int) -> list[str]:
    """The claims the setting's texts state, each with its kind of evidence (docs/claims.md has the rest)."""
    from ..core.claims import CLAIMS
    from ..core.texts import TEXTS

    ids = dict.fromkeys([*TEXTS[setting_id].claims, *SETTING_BY_ID[setting_id].claims])
    if not ids:
        return []
    parts = [f"{cid} ({localized.evidence(CLAIMS[cid].evidence)})" for cid in ids if cid in CLAIMS]
    return cells.wrap(localized.labelled(localized.ui("evidence"), "; ".join(parts)), width, initial_indent="  ",
                      subsequent_indent="  ")


def _overview(gt, width: int) -> list[str]:
    lines = cells.wrap(gt.summary, width)
    lines.append("")
    lines += two_columns(gt.fsdp, gt.deepspeed, width, ("FSDP", "DeepSpeed"))
    if gt.no_counterpart:
        lines.append("")
        lines += cells.wrap(localized.labelled(localized.ui("no_counterpart"), gt.no_counterpart), width)
    return lines


def _setting(s, t, width: int) -> list[str]:
    lines = [""]
    choices = "  " + localized.labelled(localized.ui("choices"), ", ".join(map(str, s.choices))) if s.choices else ""
    head = f"{localized.setting_label(s.id)}  [{s.id}]  {localized.labelled(localized.ui('default'), repr(s.default))}"
    head += choices
    lines += [head] if cells.width(head) <= width else cells.wrap(head, width, subsequent_indent="    ")
    lines += cells.wrap(t.what, width, initial_indent="  ", subsequent_indent="  ")
    fsdp_where = f"FSDP1: {_where(s, FSDP1)}\nFSDP2: {_where(s, FSDP2)}\n{t.fsdp}"
    ds_where = f"{TARGET_LABELS[DEEPSPEED]}: {_where(s, DEEPSPEED)}\n{t.deepspeed}"
    lines += ["  " + line for line in two_columns(fsdp_where, ds_where, width - 2)]
    if t.versions:
        lines += cells.wrap(localized.labelled(localized.ui("versions"), t.versions), width, initial_indent="  ",
                            subsequent_indent="  ")
    if t.tips:
        lines += cells.wrap(localized.labelled(localized.ui("tip"), t.tips), width, initial_indent="  ",
                            subsequent_indent="  ")
    return lines


MAX_MENTIONED = 6
"""``explain WORD`` explains every setting that mentions the word up to this many; more, and it lists them."""


def _by_key_or_word(name: str, width: int) -> list[str]:
    """``explain`` of a name that is neither a group nor a setting: a config key as accelerate or DeepSpeed spell it
    (in full or its last part: ``zero3_init_flag``), or words (no dot) of settings' ids, titles and keys as the TUI's
    palette finds them (``dynamo``); the settings it names, each said first. UsageError with a did-you-mean when
    it names none."""
    from ..core.catalog.key_lookup import near_names, settings_for_name, settings_mentioning

    found = settings_for_name(name)
    if found:
        heads = [_written_by(name, keys, sid) for sid, keys in found.items()]
    else:
        mentioned = [] if "." in name else settings_mentioning(name)  # a dotted name is an id or a key: a typo
        if not mentioned or len(mentioned) > MAX_MENTIONED:
            raise UsageError(_unknown(name, mentioned, near_names(name)))
        found = dict.fromkeys(mentioned, ())
        heads = [said(f"{name}: no group, setting or config key has this name; the settings that mention it: "
                      f"{', '.join(mentioned)}")]
    lines = [line for head in heads for line in cells.wrap(localized.said(head), width)]
    for sid in found:
        lines += render_group(SETTING_BY_ID[sid].group, width, only=sid)
        lines.append("")
    return lines


def _written_by(name: str, keys: tuple[str, ...], sid: str) -> str:
    """``zero3_init_flag is written by the setting loading.ram_efficient (Sharded loading)``: a sentence (each
    shape its own template), the setting's label in the language."""
    label = localized.setting_label(sid)
    if keys == (name,):
        return said(f"{name} is written by the setting {sid} ({label})")
    if len(keys) == 1:
        return said(f"{name} ({keys[0]}) is written by the setting {sid} ({label})")
    return said(f"{name} ({', '.join(keys[:-1])} and {keys[-1]}) is written by the setting {sid} ({label})")


_HOW = ("(a setting is group.name, as `fsdpds-wizard explain GROUP` lists them; a config key as accelerate or "
        "DeepSpeed writes it, e.g. zero3_init_flag)")
"""How a name ``explain`` knows is written: the end of the error for a name it does not know."""


def _unknown(name: str, mentioned: list[str], near: list[tuple[str, tuple[str, ...]]]) -> str:
    """The error for a name ``explain`` does not know; its words are literal variants (one, two or three guesses),
    so that the error is translated whole, the names as written."""
    groups = ", ".join(GROUP_BY_ID)
    if mentioned:
        return (f"'{name}' is in {len(mentioned)} settings: {', '.join(mentioned)}; explain one of them, or give "
                f"more words in quotes (groups: {groups})")
    head = f"'{name}' is neither a group, a setting nor a config key; "
    guesses = [_guess(n, sids) for n, sids in near]
    if not guesses:
        return head + f"groups: {groups} " + _HOW
    if len(guesses) == 1:
        return head + f"did you mean {guesses[0]}? groups: {groups} " + _HOW
    if len(guesses) == 2:
        return head + f"did you mean {guesses[0]} or {guesses[1]}? groups: {groups} " + _HOW
    rest = " or ".join(guesses[2:])
    return head + f"did you mean {guesses[0]} or {guesses[1]} or {rest}? groups: {groups} " + _HOW


def _guess(name: str, sids: tuple[str, ...]) -> str:
    """A did-you-mean name, with the settings that write it when it is a config key (a ``said(...)`` sentence: in
    another language the words around the names are translated)."""
    if sids == (name,):
        return f"'{name}'"
    if len(sids) == 1:
        return said(f"'{name}' (a key of {sids[0]})")
    if len(sids) == 2:
        return said(f"'{name}' (a key of {sids[0]} and {sids[1]})")
    more = " and ".join(sids[2:])
    return said(f"'{name}' (a key of {sids[0]} and {sids[1]} and {more})")


def run(args) -> int:
    width = args.width or min(120, shutil.get_terminal_size((100, 24)).columns)
    if width < 50:
        raise UsageError("--width must be at least 50")
    name = args.group
    if name in SETTING_BY_ID and SETTING_BY_ID[name].group in GROUP_BY_ID:
        out = render_group(SETTING_BY_ID[name].group, width, only=name)
        print("\n".join(out).rstrip())
        return EXIT_OK
    if name is not None and name not in GROUP_BY_ID:
        print("\n".join(_by_key_or_word(name, width)).rstrip())
        return EXIT_OK
    groups = [name] if name else [g.id for g in GROUPS]
    out = []
    for g in groups:
        out += render_group(g, width)
        out.append("")
    print("\n".join(out).rstrip())
    return EXIT_OK
