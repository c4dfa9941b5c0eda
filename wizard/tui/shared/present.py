"""Pure helpers between the domain and the screens: value <-> text, labels, icons, written keys.

No Textual here, so everything below is testable in milliseconds.
"""
from __future__ import annotations

import shlex
from typing import Any

from ...core.answers import Answers, coerce_value, number_text
from ...core.answers.render import render, zero_stage
from ...core.catalog import AUTO, DEEPSPEED, FSDP1, SETTING_BY_ID, SHARDING, Setting
from ...core.convert.common import rendered_value as rendered_value
from ...core.convert.common import show_value as show_value
from ...core.convert.common import written_for as written_for
from ...core.findings import ERROR, INFO, WARNING, Finding

ICONS = {ERROR: "✖", WARNING: "▲", INFO: "ℹ"}
"""Severity is always shown as an icon *and* a word, never by colour alone."""
WORDS = {ERROR: "ERROR", WARNING: "WARN", INFO: "NOTE"}
"""The English severity words (the findings screen's ``severity_*`` words: :func:`severity_word` in the language)."""
NOT_APPLICABLE_ICON = "⊘"


def severity_word(severity: str) -> str:
    """``ERROR`` / ``WARN`` / ``NOTE`` in the wizard's language, in capitals (``check`` prints its own, English
    ones). Turkish capitals keep the dot of i (İ)."""
    from ...core.i18n import language
    from ...core.localized import screen

    word = screen("findings", f"severity_{severity}")
    return (word.replace("i", "İ") if language() == "tr" else word).upper()


def severity_tag(severity: str) -> str:
    return f"{ICONS[severity]} {severity_word(severity)}"


def target_label(answers: Answers) -> str:
    """``FSDP2 full shard`` / ``FSDP1 SHARD_GRAD_OP`` / ``DeepSpeed ZeRO-3``: the target in a few words, as it runs.

    Read from the effective model of the files the answers write (``runs.*``), so the label names what the library
    does: FSDP2 has no NO_SHARD, and its "none" and "optimizer" intents run without resharding, as SHARD_GRAD_OP does;
    a DeepSpeed stage an extra JSON overrides is the stage that runs."""
    from ...core.answers.of_answers import of_answers

    e = of_answers(answers)
    if answers.target == DEEPSPEED:
        return f"DeepSpeed ZeRO-{e.get('runs.zero_stage', zero_stage(answers))}"
    strategy = e.get("runs.fsdp_strategy")
    if strategy is None:  # the model says nothing about FSDP (not an FSDP config as written): the intent's words
        fsdp1 = SHARDING[answers["sharding.strategy"]][0] or "SHARD_GRAD_OP"
        return f"FSDP1 {fsdp1}" if answers.target == FSDP1 else "FSDP2"
    if answers.target == FSDP1:
        return f"FSDP1 {strategy}"
    from ...core import localized  # FSDP2's words in the language (the memory's candidates share "FSDP2 full shard")
    from ...core.i18n import said

    reshard, hybrid = bool(e.get("runs.fsdp_reshard")), bool(e.get("runs.fsdp_hybrid"))
    if hybrid:
        return localized.said(said("FSDP2 hybrid full shard") if reshard else said("FSDP2 hybrid, no reshard"))
    return localized.said(said("FSDP2 full shard") if reshard else said(f"FSDP2 no reshard (≈{strategy})"))


# ------------------------------------------------------------------ choices

_BACKEND = {"fsdp": "PyTorch FSDP", "deepspeed": "DeepSpeed ZeRO"}
_VERSION = {1: "choice_flat_parameters", 2: ""}
"""The ``ui`` words of each FSDP version ("": :data:`_FSDP2`, names only)."""
_FSDP2 = "FSDP2 (fully_shard)"
_OFFLOAD = {"none": "choice_keep_on_gpu", "cpu": "choice_cpu_ram", "nvme": "choice_nvme"}
"""The ``ui`` words of each offload device."""


def choice_label(setting: Setting, value: Any) -> str:
    """What a choice looks like in a Select: the answer value plus its native names, the words around them in the
    language (``ui`` ``choice_*``)."""
    sid = setting.id
    if sid == "sharding.strategy":
        fsdp1, _, stage, hybrid = SHARDING[value]
        native = f"{fsdp1 or ui('choice_no_fsdp_twin')} · ZeRO-{stage}" + ("+hpZ" if hybrid and stage == 3 else "")
        return f"{value} — {native}"
    if sid == "backend":
        return f"{value} — {_BACKEND[value]}"
    if sid == "fsdp_version":
        return f"{value} — {ui(_VERSION[value]) if _VERSION[value] else _FSDP2}"
    if sid in ("offload.optimizer", "offload.params"):
        return f"{value} — {ui(_OFFLOAD[value])}"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def choice_options(setting: Setting) -> list[tuple[str, Any]]:
    if setting.kind == "bool":  # only nullable bools are shown as a choice
        return [("true", True), ("false", False)]
    return [(choice_label(setting, c), c) for c in setting.choices]


def uses_select(setting: Setting) -> bool:
    return setting.kind == "choice" or (setting.kind == "bool" and setting.nullable)


# ------------------------------------------------------------------ text fields


COMMAND_LINE_SETTINGS = frozenset({"launch.script_args"})
"""List settings edited as a command line (shell quoting), not as names separated by commas."""


def is_command_line(setting: Setting) -> bool:
    return setting.id in COMMAND_LINE_SETTINGS


def value_to_text(setting: Setting, value: Any) -> str:
    if value is None:
        return ""
    if is_command_line(setting):
        return shlex.join(str(v) for v in value)
    if setting.kind == "list":
        return ", ".join(value)
    if setting.kind == "dict":
        import json  # a JSON field's text: not on the first frame's forms (issue 26)

        return json.dumps(value, sort_keys=True) if value else ""
    return str(value)


def text_to_value(setting: Setting, text: str) -> tuple[Any, str | None]:
    """Parse what was typed. Returns (value, None) or (None, message for the user)."""
    raw = text.strip()
    if not raw:
        if setting.nullable:
            return None, None
        if setting.kind == "list":
            return [], None
        if setting.kind == "dict":
            return {}, None
        return None, ui("field_required", what=_describe(setting))
    candidate: Any = raw
    if is_command_line(setting):
        try:
            candidate = shlex.split(raw)
        except ValueError as exc:
            return None, ui("field_quote_hint", problem=_shlex_problem(str(exc)))
    elif setting.allow_auto and raw.lower() == AUTO:
        candidate = AUTO
    elif setting.kind == "int":
        try:
            candidate = int(raw.replace("_", ""))
        except ValueError:
            return None, ui("field_not_whole_number", what=_describe(setting))
    elif setting.kind == "float":
        try:
            candidate = float(raw)
        except ValueError:
            return None, ui("field_not_number", what=_describe(setting))
    elif setting.kind == "dict":
        from ...core.inputs import InputError, parse_json  # bounded: depth, huge numbers, bad strings

        try:
            candidate = parse_json(raw, setting.id)
        except InputError as exc:
            from ...core.localized import said

            example = '{"steps_per_print": 100}'
            if exc.problem == "too-deep":
                return None, ui("field_json_too_deep", what=said(exc.what), example=example)
            return None, ui("field_json_problem", what=said(exc.what), fix=said(exc.fix), example=example)
    value, problem = coerce_value(setting, candidate)
    if problem is not None:
        return None, _after_the_value(problem.message)
    return value, None


def ui(key: str, /, **values: object) -> str:
    """The form's words under ``key`` in the wizard's language (:func:`wizard.core.localized.ui`)."""
    from ...core.localized import ui as words

    return words(key, None, **values)


_SHLEX = {"No closing quotation": "shlex_no_closing_quotation", "No escaped character": "shlex_no_escaped_character"}
"""shlex's own errors (``ValueError``) -> their ``ui`` words; another stays as shlex words it."""


def _shlex_problem(english: str) -> str:
    return ui(_SHLEX[english]) if english in _SHLEX else english


def _after_the_value(message: str) -> str:
    """What a value of the setting must be, from ``coerce_value``'s message ("'key' is 0 (int); too small: expected
    ...": the part after the value), in the language: the message's translation (:func:`wizard.core.localized.said`)
    cut after its first "; " (or the full-width "；"); the whole translation when it has neither."""
    from ...core.i18n import ENGLISH, language
    from ...core.localized import said

    if language() == ENGLISH:
        return message.split("; ", 1)[-1]
    shown = said(message)
    for mark in ("; ", "；"):
        if mark in shown:
            return shown.split(mark, 1)[1].strip()
    return shown


_KINDS = {"int": "value_whole_number", "float": "value_number", "str": "value_text", "list": "value_names",
          "dict": "value_json"}
"""Each kind of text field's words (``ui``)."""
_JOINED = {"zh-TW": "，", "tr": ", "}
"""How the pieces of :func:`_describe` are joined, by language (English: a space)."""


def _describe(setting: Setting) -> str:
    if is_command_line(setting):
        return ui("value_command_line")
    kind = ui(_KINDS[setting.kind]) if setting.kind in _KINDS else setting.kind
    parts = [kind]
    if setting.minimum is not None and setting.maximum is not None:
        parts.append(ui("value_range", low=number_text(setting.minimum), high=number_text(setting.maximum)))
    elif setting.minimum is not None:
        parts.append(f">= {number_text(setting.minimum)}")
    elif setting.maximum is not None:
        parts.append(f"<= {number_text(setting.maximum)}")
    if setting.allow_auto:
        parts.append(ui("value_or_auto"))
    if setting.nullable:
        empty = _empty(setting)
        parts.append(ui("value_or_empty", empty=empty) if empty else ui("value_or_empty_default"))
    from ...core.i18n import language

    return _JOINED.get(language(), " ").join(parts)


def _empty(setting: Setting) -> str:
    """What an empty value means, in the language ("" where the library's default applies)."""
    from ...core.localized import empty

    return empty(setting.id) if setting.empty else ""


def placeholder(setting: Setting) -> str:
    """What an empty text field shows (in the language): what leaving it empty means, or what it takes."""
    if setting.nullable:
        empty = _empty(setting)
        return ui("value_empty_means", empty=empty) if empty else ui("library_default")
    return _describe(setting)


# ------------------------------------------------------------------ findings


def finding_target(finding: Finding) -> tuple[str, str] | None:
    """(setting id, the key of the finding it came from) for the first key that maps to a setting.

    A key is an answer id or a config key (``fsdp_config.fsdp_min_num_params``), mapped back to the
    setting that writes it."""
    from ...core.catalog.key_lookup import setting_for_key

    for key in finding.keys:
        sid = setting_for_key(key)
        if sid is not None:
            return sid, key
    return None


def finding_setting(finding: Finding) -> str | None:
    """The setting a finding blames first (the place to jump to), if any."""
    found = finding_target(finding)
    return found[0] if found else None


def jump_note(finding: Finding) -> str:
    """What a jump to the finding's setting says when the finding names several keys ('' for one)."""
    found = finding_target(finding)
    if found is None or len(finding.keys) < 2:
        return ""
    sid, key = found
    others = ", ".join(k for k in finding.keys if k != key)
    if key != sid:
        return ui("jump_note_for", setting=sid, name=key, others=others)
    return ui("jump_note", setting=sid, others=others)


def worst_by_setting(findings: list[Finding]) -> dict[str, Finding]:
    rank = {ERROR: 0, WARNING: 1, INFO: 2}
    out: dict[str, Finding] = {}
    for f in findings:
        for key in f.keys:
            if key in SETTING_BY_ID and (key not in out or rank[f.severity] < rank[out[key].severity]):
                out[key] = f
    return out


def counts(findings: list[Finding]) -> dict[str, int]:
    return {s: sum(1 for f in findings if f.severity == s) for s in (ERROR, WARNING, INFO)}


def counts_text(findings: list[Finding]) -> str:
    """``✖ 0 errors  ▲ 1 warning  ℹ 2 notes`` in the language (the findings pane's subtitle)."""
    from ...core.localized import screen

    c = counts(findings)
    return "  ".join(f"{ICONS[sev]} " + screen("findings", f"{word}_{'one' if c[sev] == 1 else 'many'}", n=c[sev])
                     for sev, word in ((ERROR, "errors"), (WARNING, "warnings"), (INFO, "notes")))


def quick_generate(answers: Answers, out_dir, ds_path: str = "auto"):
    """What the first paint needs, without the YAML text or the config linter (imported later).

    Same shape as :func:`wizard.core.answers.generate.generate`; ``files`` stays empty."""
    from ...core.answers.generate import Generated, ds_config_ref
    from ...core.answers.rules import check_answers
    from ...core.findings import sort_findings

    rendered = render(answers, ds_config_ref(out_dir, mode=ds_path))
    return Generated(answers, rendered, sort_findings(check_answers(answers)), {})
