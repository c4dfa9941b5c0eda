"""The wizard's words in the chosen language: every explanation (:mod:`wizard.core.texts`), the catalogue's labels,
counterparts and not-applicable reasons, the dtype notes and the words around them (:mod:`.ui`), each read through
:func:`wizard.core.i18n.translate` so the English stays the one source.

:func:`sources` lists every English text with its part and key (the tests, and ``python -m wizard.core.localized``,
which shows what is missing or stale per language and writes worksheets for translators).
"""
from __future__ import annotations

from functools import cache

from ..catalog import GROUP_BY_ID, GROUPS, SETTING_BY_ID, SETTINGS
from ..i18n import ENGLISH, filled, language, translate
from ..recordclass import replace
from .catalog_texts import counterpart as counterpart
from .catalog_texts import empty as empty
from .catalog_texts import not_applicable as not_applicable
from .ui import KEY_WORDS, SHORT_GROUP_LABELS, UI

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

    from ..texts import GroupText, Text

TEXT_FIELDS = ("what", "fsdp", "deepspeed", "versions", "tips")
GROUP_FIELDS = ("summary", "fsdp", "deepspeed", "no_counterpart")
GROUP_KEY = "GROUP"
"""The key prefix of a group's own texts (setting ids never are upper case)."""


@cache
def sources() -> tuple[tuple[str, str, str], ...]:
    """Every English text the wizard translates, as (part, key, English), in the catalogue's order; the part is the
    file it is stored in: the catalogue group, ``where`` (each target's line of where a setting is written), ``ui``,
    ``keys`` (the key bindings' words, keyed by their English), ``dtype``, or ``messages-*`` (the findings' messages
    and fixes, keyed by their template: :mod:`.messages`)."""
    from ..context import LOOP_LABELS
    from ..i18n.lines import LINES
    from ..texts import GROUP_TEXTS, TEXTS
    from ..texts.dtype_table import NOTES
    from .messages import templates as message_templates
    from .screens import SCREENS
    from .screens import words as screen_words

    out: list[tuple[str, str, str]] = []
    for g in GROUPS:
        out.append((g.id, f"{GROUP_KEY}.label", g.label))
        if g.id in SHORT_GROUP_LABELS:
            out.append((g.id, f"{GROUP_KEY}.short", SHORT_GROUP_LABELS[g.id]))
        gt = GROUP_TEXTS[g.id]
        out += [(g.id, f"{GROUP_KEY}.{f}", getattr(gt, f)) for f in GROUP_FIELDS if getattr(gt, f)]
    for s in SETTINGS:
        part = s.group
        out.append((part, f"{s.id}.label", s.label))
        t = TEXTS[s.id]
        out += [(part, f"{s.id}.{f}", getattr(t, f)) for f in TEXT_FIELDS if getattr(t, f)]
        if s.counterpart:
            out.append((part, f"{s.id}.counterpart", s.counterpart))
        if s.empty:
            out.append((part, f"{s.id}.empty", s.empty))
        out += [(part, f"{s.id}.not_applicable.{target}", why) for target, why in s.not_applicable.items()
                if why]
    for s in SETTINGS:
        out += [("where", f"{s.id}.{target}", line) for target, line in s.where.items()]
    out += [("ui", key, english) for key, english in UI.items()]
    out += [("keys", english, english) for english in KEY_WORDS]
    out += rule_sources()
    out += [("cli", english, english) for english in cli_sources()]
    out += [("dtype", key, english) for key, english in NOTES.items()]
    out += [(part, template, template) for part, template in message_templates()]
    out += [("lines", key, english) for key, english in LINES.items()]
    out += [(f"screen-{name}", key, english) for name in SCREENS for key, english in screen_words(name).items()]
    out += [("lines", f"loop.{loop}", english) for loop, english in LOOP_LABELS.items()]
    return tuple(out)


def rule_sources() -> list[tuple[str, str, str]]:
    """Every registered rule's summary and general fix (docs/rules.md), one part per section (``rules-config``,
    ``rules-answer``, ...)."""
    from ..docs import rules as _every_rule  # noqa: F401 - importing it registers every rule
    from ..rules import RULES

    out = []
    for name, info in sorted(RULES.items()):
        part = f"rules-{info.section}"
        out.append((part, f"{name}.summary", info.summary))
        if info.fix:
            out.append((part, f"{name}.fix", info.fix))
    return out


ARGPARSE_WORDS = ("usage: ", "options", "positional arguments", "show this help message and exit")
"""argparse's own words in a ``--help`` (its messages stay English: the command line reads them)."""


def cli_sources() -> list[str]:
    """The English of the command line's help: every literal ``help=``, ``description=``, ``epilog=`` and
    ``title=`` of the command line's modules (wizard/cli.py, cli_parser.py, cli_words.py), its commands' lines
    (``COMMANDS``), and argparse's own words in a help. Read from the source text (the core imports nothing of the
    command line); a help built by an f-string stays English."""
    import ast
    from pathlib import Path

    wizard = Path(__file__).resolve().parents[2]
    found: list[str] = []

    def add(node) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip():
            if node.value not in found:
                found.append(node.value)

    nodes = [node for name in ("cli.py", "cli_parser.py", "cli_words.py")
             for node in ast.walk(ast.parse((wizard / name).read_text(encoding="utf-8")))]
    for node in nodes:
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg in ("help", "description", "epilog", "title"):
                    add(kw.value)
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Attribute) \
                and node.targets[0].attr in ("description", "epilog"):
            add(node.value)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "EVERY_OPTION"
                                                for t in node.targets):
            add(node.value)  # the main usage's note (cli_words.py)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "COMMANDS" for t in targets):
                for value in node.value.values:
                    add(value)
    return [*found, *(w for w in ARGPARSE_WORDS if w not in found)]


def cli_words(english: str, lang: str | None = None) -> str:
    """A piece of the command line's help in the language (:func:`cli_sources`); other text as it is."""
    return translate("cli", english, english, _lang(lang)) if english else english


def rule_summary(name: str, lang: str | None = None) -> str:
    """What the rule ``name`` finds, in general terms, in the language ("" for a rule not registered)."""
    from ..rules import RULES

    info = RULES.get(name)
    if info is None:
        return ""
    return translate(f"rules-{info.section}", f"{name}.summary", info.summary, _lang(lang))


def translated_rule_summary(name: str, lang: str | None = None) -> str:
    """The rule's summary when the language has its own words for it; "" when it would read as the English (English,
    or no translation), so a finding adds no second English line."""
    from ..rules import RULES

    info = RULES.get(name)
    summary = rule_summary(name, lang)
    return summary if info is not None and summary != info.summary else ""


def _lang(lang: str | None) -> str:
    return language() if lang is None else lang


def text(setting_id: str, lang: str | None = None) -> Text:
    """The setting's explanation in the language."""
    from ..texts import TEXTS  # the explanations are loaded when the first is shown (not for the first frame)

    t = TEXTS[setting_id]
    lang = _lang(lang)
    if lang == ENGLISH:
        return t
    part = SETTING_BY_ID[setting_id].group
    fields: dict[str, Any] = {f: translate(part, f"{setting_id}.{f}", getattr(t, f), lang) for f in TEXT_FIELDS}
    return replace(t, **fields)


def group_text(group_id: str, lang: str | None = None) -> GroupText:
    """The group's overview in the language."""
    from ..texts import GROUP_TEXTS

    gt = GROUP_TEXTS[group_id]
    lang = _lang(lang)
    if lang == ENGLISH:
        return gt
    fields: dict[str, Any] = {f: translate(group_id, f"{GROUP_KEY}.{f}", getattr(gt, f), lang) for f in GROUP_FIELDS}
    return replace(gt, **fields)


def group_label(group_id: str, lang: str | None = None) -> str:
    return translate(group_id, f"{GROUP_KEY}.label", GROUP_BY_ID[group_id].label, _lang(lang))


def group_short(group_id: str, lang: str | None = None) -> str:
    """The group's name where room is short (the sidebar): its short form where it has one, else its label."""
    if group_id not in SHORT_GROUP_LABELS:
        return group_label(group_id, lang)
    return translate(group_id, f"{GROUP_KEY}.short", SHORT_GROUP_LABELS[group_id], _lang(lang))


def setting_label(setting_id: str, lang: str | None = None) -> str:
    s = SETTING_BY_ID[setting_id]
    return translate(s.group, f"{setting_id}.label", s.label, _lang(lang))


def where(setting_id: str, target: str, lang: str | None = None) -> str:
    """Where ``target`` keeps the setting, one line (its keys as written, the words around them translated)."""
    return translate("where", f"{setting_id}.{target}", SETTING_BY_ID[setting_id].where[target], _lang(lang))


def key_words(english: str, lang: str | None = None) -> str:
    """A key binding's words (:data:`.ui.KEY_WORDS`) in the language; the English for words not in that list."""
    return translate("keys", english, english, _lang(lang))


def ui(key: str, lang: str | None = None, **values: object) -> str:
    """The words of :data:`.ui.UI` under ``key`` in the language, with ``{name}`` filled from ``values``
    (:func:`wizard.core.i18n.filled`)."""
    return filled("ui", key, UI[key], lang, **values)


def screen(name: str, key: str, lang: str | None = None, **values: object) -> str:
    """The words of the screen ``name`` (:mod:`.screens`) under ``key`` in the language, with ``{name}`` filled from
    ``values`` (:func:`wizard.core.i18n.filled`)."""
    from .screens import words

    return filled(f"screen-{name}", key, words(name)[key], lang, **values)


def labelled(label: str, rest: str) -> str:
    """``label`` (a word ending in a colon) and ``rest`` on one line: a space after an ASCII colon, none after a
    full-width one (``預設：'none'``: the colon's own width is the gap)."""
    return label + ("" if label.endswith("：") else " ") + rest


def dtype_note(key: str, lang: str | None = None, **values: object) -> str:
    """One of the dtype table's notes (:data:`wizard.core.texts.dtype_table.NOTES`) in the language, filled in."""
    from ..texts.dtype_table import NOTES

    return translate("dtype", key, NOTES[key], _lang(lang)).format(**values)


def dtype_notes(model_dtype: str, mixed_precision: str, lang: str | None = None) -> list[str]:
    """The notes under the dtype table for a load dtype and mixed precision, in the language."""
    from ..texts.dtype_table import precision_notes

    lang = _lang(lang)
    return precision_notes(model_dtype, mixed_precision, say=lambda key, values: dtype_note(key, lang, **values))


def rule_fix(name: str, fix: str, lang: str | None = None) -> str:
    """``fix`` in the language when it is the rule's general fix (docs/rules.md), else as it is (see
    :func:`finding_fix` for a fix that names this config's values)."""
    from ..rules import RULES

    info = RULES.get(name)
    if info is None or not fix or fix != info.fix:
        return fix
    return translate(f"rules-{info.section}", f"{name}.fix", fix, _lang(lang))


def mesh_picture(sizes: dict[str, int], per_machine: int = 0, limit: int = 16, lang: str | None = None) -> list[str]:
    """The device mesh's picture (:func:`wizard.core.mesh.mesh_picture`) in the language: the machines' row labelled in
    its word (``ui`` ``mesh_machine``); the heading, the note on ranks left out and the groups' lines (the same
    sentences as in the finding parallelism-mesh-layout) translated."""
    from ..mesh import mesh_picture as picture

    lang = _lang(lang)
    return picture(sizes, per_machine, limit, machine=ui("mesh_machine", lang), say=lambda line: said(line, lang))


def evidence(kind: str, lang: str | None = None) -> str:
    """A claim's kind of evidence (``demonstrated``, ``read from code``: :data:`wizard.core.claims.model.DEMONSTRATED`,
    ...) in the language (``ui`` ``evidence_*``, keyed by the value); a kind without words there as it is."""
    key = "evidence_" + kind.replace(" ", "_")
    return ui(key, lang) if UI.get(key) == kind else kind


def said(english: str, lang: str | None = None) -> str:
    """A sentence the code built (a finding's message or fix, a line of the switch report: ``i18n.said``) in the
    language: its template's translation (:mod:`.messages`) with the computed parts (keys, values, names) as the
    English has them; the English where no translated template matches. A file that is not valid YAML: PyYAML's own
    words too (:func:`.parsers.yaml_problem`); one that is not valid JSON, the json module's; a sentence after a
    file's name (:func:`.messages.after_a_name`: ``PATH: not UTF-8 text ...``); a setting's whole counterpart line (a
    fix that is the catalogue's counterpart), by that setting's translation (:func:`.messages.known_sentence`).
    """
    lang = _lang(lang)
    if lang == ENGLISH or not english:
        return english
    if "not valid YAML (line " in english:
        from .parsers import yaml_problem

        found = yaml_problem(english, lang)
        if found is not None:
            return found
    from .messages import known_sentence, sentence_or_rows

    said_so = sentence_or_rows(english, lang)
    if said_so is None and ": " in english:
        from .messages import after_a_name

        said_so = after_a_name(english, lang)
    return said_so or known_sentence(english, lang) or english


def finding_message(finding, lang: str | None = None) -> str:
    """The finding's message in the language (:func:`said`)."""
    return said(finding.message, lang)


def finding_fix(finding, lang: str | None = None) -> str:
    """The finding's fix in the language: the rule's general fix, or the fix's template, translated; else the
    English."""
    lang = _lang(lang)
    if lang == ENGLISH or not finding.fix:
        return finding.fix
    general = rule_fix(finding.rule, finding.fix, lang)
    return general if general != finding.fix else said(finding.fix, lang)


def finding_text(finding, english: str, lang: str | None = None) -> str:
    """A finding as ``finding.render()`` (``english``) prints it, in the language: its message and fix translated
    (:func:`finding_message`, :func:`finding_fix`); where the message stays English, the rule's summary in the
    language stands under its first line. ``english`` itself in English."""
    lang = _lang(lang)
    if lang == ENGLISH:
        return english
    message = finding_message(finding, lang)
    text = finding.render(message, labelled(ui("fix", lang), finding_fix(finding, lang)))
    summary = translated_rule_summary(finding.rule, lang) if message == finding.message else ""
    if not summary:
        return text
    head, _, rest = text.partition("\n")  # the rule in the language under the English message
    return "\n".join([head, "    " + labelled(ui("rule_says", lang), summary), *([rest] if rest else [])])
