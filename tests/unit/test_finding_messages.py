"""The findings' own messages and fixes in Turkish and Traditional Chinese (issue 27): templates read off the code
that makes findings, matched at run time, this config's keys and values kept exactly as the English has them."""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path

import pytest

from wizard.core import i18n, localized
from wizard.core.findings import ERROR, Finding
from wizard.core.localized.messages import Template, every_template, templates, translated, worth_translating

CORPUS = Path(__file__).resolve().parents[1] / "data" / "check_corpus"
OTHERS = [lang for lang in i18n.LANGUAGES if lang != i18n.ENGLISH]
PLACE = re.compile(r"\{\{|\}\}|\{(\d+)\}")


def _sample(template: str) -> str:
    """The template as a message: each placeholder a distinct key-and-value, braces as printed."""
    return PLACE.sub(lambda m: f"`key_{m.group(1)}: {m.group(1)}`" if m.group(1) else m.group(0)[0], template)


def _spans(text: str) -> list[str]:
    return re.findall(r"`[^`]+`", text)



def test_an_fstring_message_becomes_a_template_with_numbered_placeholders():
    part_of = {template: part for part, template in templates()}
    assert part_of["`fsdp_version` is not written, so `accelerate launch` runs FSDP1 (its default is 1, although "
                   "`accelerate config` suggests 2)."] == "messages-fsdp"
    assert part_of["FSDP2 never reads {0}; the effective `fsdp_reshard_after_forward: {1}` happens to mean the same "
                   "thing."] == "messages-fsdp"
    # a word chosen by `a if c else b` inside an f-string: one template per variant
    wins = [t for t in part_of if t.startswith("Under FSDP1 {0} is ignored by `accelerate launch`: the launcher")]
    assert any("(default FULL_SHARD), which wins" in t for t in wins)
    assert any("(fsdp_sharding_strategy), which wins" in t for t in wins)
    # a variable assigned only literal words in its function: one template per value, not a placeholder
    assert any(t.startswith("Under FSDP1 (no fsdp_version, so FSDP1) {0} is ignored") for t in part_of)
    # an answer rule's `yield (keys, message, fix)`
    assert any(part == "messages-answers" and "machines but no main_process_ip" in t for t, part in part_of.items())
    # nothing to translate in "{0}: {1}", but it is known (a message made from it is not "missed")
    assert not worth_translating("{0}: {1}")
    assert "{0}: {1}" in {t for _, t in every_template()} - set(part_of)


def test_every_template_is_told_apart_from_the_others():
    """A message made from a template is matched back to that very template (the heaviest match wins)."""
    index = sorted((Template(t, t) for _, t in templates()), key=lambda t: -t.weight)
    wrong = []
    for template in index:
        message = _sample(template.english)
        found = next(t for t in index if t.match(message) is not None)
        if found.english != template.english:
            wrong.append(f"{template.english!r} is read as {found.english!r}")
    assert not wrong, "\n".join(wrong[:10])


def test_a_translation_gets_the_values_in_its_own_order():
    t = Template("`{0}` is read by accelerate {1} only; {{braces}} stay",
                 "accelerate {1}, `{0}` anahtarını okur; {{braces}}")
    values = t.match("`fsdp_version` is read by accelerate 1.6.0 only; {braces} stay")
    assert values == {"p0": "fsdp_version", "p1": "1.6.0"}
    assert t.fill(values) == "accelerate 1.6.0, `fsdp_version` anahtarını okur; {braces}"
    assert t.match("`fsdp_version` is read by accelerate 1.6.0 only") is None  # literal words must all be there


@pytest.mark.parametrize("lang", OTHERS)
def test_a_message_no_template_matches_stays_english(lang):
    f = Finding(ERROR, "fsdp-version-invalid", ("fsdp_config.fsdp_version",), "A sentence no code writes.",
                "Nor this one.")
    assert translated(f.message, lang) is None
    assert localized.finding_message(f, lang) == f.message
    assert localized.finding_fix(f, lang) == f.fix
    assert localized.finding_message(f, "en") == f.message


def _check_corpus_findings() -> list[dict]:
    from wizard.cli import main

    found = []
    for case in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        out = io.StringIO()
        cwd = os.getcwd()
        os.chdir(case)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                main(["check", "accelerate_config.yaml", "--format", "json"])
        finally:
            os.chdir(cwd)
        found += json.loads(out.getvalue())["findings"]
    return found


@pytest.fixture(scope="module")
def corpus_findings() -> list[dict]:
    return _check_corpus_findings()


def test_every_message_of_the_check_corpus_comes_from_a_known_template(corpus_findings):
    index = [Template(t, t) for _, t in every_template()]
    texts = {f[what] for f in corpus_findings for what in ("message", "fix") if f[what]}
    assert len(texts) > 150
    missed = sorted(s for s in texts if not any(t.match(s) is not None for t in index))
    assert not missed, "made by code the template reader does not see:\n" + "\n".join(missed[:10])


@pytest.mark.parametrize("lang", OTHERS)
def test_every_message_of_the_check_corpus_is_translated_with_its_keys_and_values(lang, corpus_findings):
    worth = [Template(t, t) for _, t in templates()]
    untranslated, lost = [], []
    for f in corpus_findings:
        for what in ("message", "fix"):
            english = f[what]
            if not english or not any(t.match(english) is not None for t in worth):
                continue  # "{0}: {1}", or a fix that is only a computed part: nothing to translate
            said = translated(english, lang)
            if said is None or said == english:
                untranslated.append(f"{f['rule']}.{what}: {english}")
                continue
            lost += [f"{f['rule']}.{what}: {span} lost in {said!r}" for span in _spans(english) if span not in said]
    assert not untranslated, f"{len(untranslated)} not translated, e.g.:\n" + "\n".join(untranslated[:10])
    assert not lost, "\n".join(lost[:10])


@pytest.mark.parametrize("lang", OTHERS)
def test_check_prints_the_message_and_fix_in_the_language(lang, capsys):
    from wizard.cli import main

    case = CORPUS / "08_fsdp2_converted_with_obsolete_v1_keys"
    cwd = os.getcwd()
    os.chdir(case)
    try:
        main(["check", "accelerate_config.yaml", "--format", "json"])
        findings = [Finding(**{**f, "keys": tuple(f["keys"])}) for f in json.loads(capsys.readouterr().out)["findings"]]
        main(["check", "accelerate_config.yaml", "--lang", lang])
    finally:
        os.chdir(cwd)
    out = capsys.readouterr()
    printed = out.out + out.err
    assert findings
    for f in findings:
        said = localized.finding_message(f, lang)
        assert said != f.message, f"{f.rule}: printed in English"
        assert said in printed and f.message not in printed
        assert f"[{f.rule}] {', '.join(f.keys)}: " in printed  # rule name and keys as written
        if f.fix and localized.finding_fix(f, lang) != f.fix:
            assert localized.finding_fix(f, lang) in printed
    # a translated message needs no second line with the rule's summary
    assert localized.ui("rule_says", lang) not in printed


@pytest.mark.parametrize("lang", OTHERS)
def test_the_wizards_finding_pane_shows_the_message_in_the_language(lang):
    from rich.console import Console

    from wizard.tui.shared.explain import explain_finding

    template = next(t for p, t in templates() if p == "messages-fsdp" and t.startswith("FSDP2 never reads {0}"))
    message = _sample(template)
    f = Finding(ERROR, "fsdp2-sharding-strategy-ignored", ("fsdp_config.fsdp_sharding_strategy",), message)
    i18n.set_language(lang)
    console = Console(width=200, record=True)
    console.print(explain_finding(f, width=200))
    shown = console.export_text()
    assert translated(message, lang) in shown.replace("\n", " ") or translated(message, lang) in shown
    assert message not in shown
    for span in _spans(message):
        assert span in shown


@pytest.mark.parametrize("lang", OTHERS)
def test_a_message_another_step_wrapped_is_translated_inside_too(lang):
    """The wizard adds "(generated key: ...)" to a config rule's finding about a key it wrote: both the wrapper and
    the wrapped message are translated."""
    inner = ("`fsdp_version` is not written, so `accelerate launch` runs FSDP1 (its default is 1, although "
             "`accelerate config` suggests 2).")
    wrapped = f"{inner} (generated key: fsdp_config.fsdp_version)"
    said = translated(wrapped, lang)
    assert said is not None and translated(inner, lang) in said
    assert "fsdp_config.fsdp_version" in said and inner not in said


@pytest.mark.parametrize("lang", OTHERS)
def test_the_findings_pane_counts_in_the_language(lang):
    from wizard.core.findings import INFO, WARNING
    from wizard.tui.shared.present import counts_text

    findings = [Finding(WARNING, "r", (), "m"), Finding(INFO, "r", (), "m"), Finding(INFO, "r", (), "m")]
    english = counts_text(findings)
    assert english == "✖ 0 errors  ▲ 1 warning  ℹ 2 notes"
    i18n.set_language(lang)
    shown = counts_text(findings)
    assert shown == "  ".join([f"✖ {localized.screen('findings', 'errors_many', lang, n=0)}",
                               f"▲ {localized.screen('findings', 'warnings_one', lang, n=1)}",
                               f"ℹ {localized.screen('findings', 'notes_many', lang, n=2)}"])
    assert "warning" not in shown


def _lazy_pattern(english: str) -> re.Pattern:
    """What the scan stands for: each placeholder a lazy group, the whole message matched."""
    pieces, pos = [], 0
    for m in PLACE.finditer(english):
        pieces.append(re.escape(english[pos:m.start()] + ("" if m.group(1) else m.group(0)[0])))
        if m.group(1):
            pieces.append(f"(?P<p{m.group(1)}>.*?)")
        pos = m.end()
    pieces.append(re.escape(english[pos:]))
    return re.compile("".join(pieces), re.DOTALL)


def test_the_scan_finds_what_a_lazy_pattern_finds():
    """Matching scans left to right instead of backtracking (a crafted key name cannot stall it): on random
    templates and messages built of the same few characters it agrees with the regular expression, split included."""
    import random

    rng = random.Random(27)
    alphabet = ["a", "b", ": ", "`"]
    for _ in range(3000):
        parts = [rng.choice(["", *alphabet]) + rng.choice(alphabet) for _ in range(rng.randint(1, 4))]
        english = "".join(p + ("{" + str(i) + "}" if i < len(parts) - 1 else "") for i, p in enumerate(parts))
        if rng.random() < 0.5:  # made from the template, values full of its own separators
            message = PLACE.sub(lambda m: "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4)))
                                if m.group(1) else m.group(0)[0], english)
        else:
            message = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        expected = _lazy_pattern(english).fullmatch(message)
        assert Template(english, english).match(message) == (expected.groupdict() if expected else None), \
            (english, message)
