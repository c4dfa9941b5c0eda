"""The findings' own messages and fixes in the chosen language.

A finding's message is English built where the finding is made (``ctx.emit(RULE, keys, message, fix)``,
``Finding(severity, rule, keys, message, fix, ...)``, an answer rule's ``yield (keys, message, fix)``), mostly by
f-strings that put this config's keys and values into a sentence. The English in the code stays the one source:

- :func:`templates` takes every such call from :mod:`wizard.core.sites` (the one reader of where findings are made,
  which docs/rules.md reads too) and turns each message and fix expression into templates: the literal words kept,
  each computed part (a key, a value, a version, a list) a numbered placeholder ``{0}``, ``{1}``, ...; an
  ``a if c else b`` of literal words and a ``+`` of pieces give one template per variant. They are the
  English texts of the ``messages-*`` parts (:func:`wizard.core.localized.sources`), translated like every other
  text, keyed by the template itself (a changed sentence is a new key; the old translation is then orphaned).
- At run time :func:`translated` matches a finding's English against the language's templates (literal words equal,
  placeholders any text) and puts the computed parts into the translation: keys, values and names stay exactly as
  the English had them. Where two templates match, the one with more literal words wins; a message no template
  matches stays English (then the rule's summary in the language stands under it: ``finding_text``).

Nothing here is imported at start: only a command that prints findings in another language loads it.
"""
from __future__ import annotations

import re
from functools import cache

from ..i18n import ENGLISH, entries, fingerprint
from .matching import scan

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    import ast

PART_OF_MODULE = {
    "core/lint/general.py": "messages-general",
    "core/lint/dsjson.py": "messages-dsjson",
    "core/ds_schema.py": "messages-dsjson",
    "core/lint/fsdp.py": "messages-fsdp",
    "core/lint/dszero.py": "messages-dszero",
    "core/lint/ds.py": "messages-ds",
    "core/lint/keys.py": "messages-keys",
    "core/lint/launch.py": "messages-launch",
    "core/answers/rules.py": "messages-answers",
    "core/convert/groups.py": "messages-convert",
    "core/convert/effect.py": "messages-convert",
    "core/convert/report.py": "messages-switch",
    "core/memory/estimate.py": "messages-memory",
    "core/memory/fit.py": "messages-memory",
    "core/memory/recommend.py": "messages-memory",
    "core/memory/report.py": "messages-memory",
    "core/memory/shapes.py": "messages-memory",
    "tui/shared/session.py": "messages-memory",
    "core/effective/fsdp.py": "messages-memory",
    "core/effective/deepspeed.py": "messages-memory",
    "core/effective/trainer.py": "messages-dsjson",
    "run/checklist.py": "messages-run",
    "run/diagnose.py": "messages-run",
    "run/plan.py": "messages-run",
    "run/leftovers.py": "messages-run",
    "run/rehearse.py": "messages-run",
    "run/consolidate.py": "messages-run",
    "run/checkpoint_io.py": "messages-run",
    "core/answers/multinode.py": "messages-run",
}
"""The part (file under wizard/core/i18n/LANG/) of the messages of each module that emits findings; the others':
``messages-other``."""
OTHER = "messages-other"
ERRORS = "messages-errors"
"""The command line's own errors, whatever module raises them: a usage error's message (``UsageError(message)``),
an unusable input's ``what`` and ``fix`` (``InputError(path, what, fix, problem)``; its path stays as given) and a
version flag's reason (``VersionError(message)``, which a usage error puts after the flag)."""
SWITCH = "messages-switch"
"""The switch report's words: the counterparts table's texts (:mod:`wizard.core.texts.switching`) and the report's
own sentences (``said(...)`` in wizard/core/convert/report.py)."""
RUN = "messages-run"
"""What wizard/run computes (the modules above) and the catalogue's reasons why the rehearsal's bundled model cannot
run a setting (``Setting.rehearsal``)."""
PARTS = (*dict.fromkeys(PART_OF_MODULE.values()), OTHER, ERRORS)
"""Every part the messages are stored in, the order the run-time index reads them."""
VARIANTS = 16
"""At most this many templates of one expression (each ``a if c else b`` doubles them)."""
_PLACE = re.compile(r"\{\{|\}\}|\{(\d+)\}")


# ----------------------------------------------------------------------------------------------------------------
# the English: templates read off the code
# ----------------------------------------------------------------------------------------------------------------
_HOLE = None
"""A computed part of a template (a placeholder), among its literal pieces."""


def _product(seqs: list[list[tuple]]) -> list[tuple]:
    from itertools import islice, product

    return [tuple(p for part in combo for p in part) for combo in islice(product(*seqs), VARIANTS)]


def _variants(node: ast.AST, fn: ast.AST | None, depth: int = 0, module: ast.Module | None = None) -> list[tuple]:
    """The templates of a string expression: tuples of literal strings and holes (``_HOLE``). With ``module``, a
    name the function does not assign is looked up at the module's top level (the errors' shared sentences)."""
    import ast

    from ..sites import assigned, module_value

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [(node.value,)]
    if isinstance(node, ast.JoinedStr):
        seqs: list[list[tuple]] = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                seqs.append([(str(v.value),)])
                continue
            inner = v.value if isinstance(v, ast.FormattedValue) else v
            if isinstance(v, ast.FormattedValue) and isinstance(inner, (ast.IfExp, ast.Name)) \
                    and v.format_spec is None and v.conversion == -1:
                both = _variants(inner, fn, depth, module)
                if len(both) <= 4 and all(_HOLE not in t for t in both):  # words chosen by a condition: variants
                    seqs.append(both)
                    continue
            seqs.append([(_HOLE,)])
        return _product(seqs)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _product([_variants(node.left, fn, depth, module), _variants(node.right, fn, depth, module)])
    if isinstance(node, ast.IfExp):
        return (_variants(node.body, fn, depth, module) + _variants(node.orelse, fn, depth, module))[:VARIANTS]
    if isinstance(node, ast.Name) and fn is not None and depth < 3:
        found: list[tuple] = []
        for value in assigned(fn, node.id):
            found += _variants(value, fn, depth + 1, module)
        if found:
            return found[:VARIANTS]
    if isinstance(node, ast.Name) and module is not None and depth < 3:
        shared = module_value(module, node.id)
        if shared is not None:
            return _variants(shared, None, depth + 1, module)[:VARIANTS]
    return [(_HOLE,)]


def template_of(pieces: tuple) -> str:
    """A template as stored: literal braces doubled, holes numbered ``{0}``, ``{1}``, ... left to right."""
    out, n = [], 0
    for p in pieces:
        if p is _HOLE:
            out.append("{" + str(n) + "}")
            n += 1
        else:
            out.append(p.replace("{", "{{").replace("}", "}}"))
    return "".join(out)


ONE_WORD = frozenset({
    "{0} {1} = {2} (default {3})",
    # fixes whose one verb is all their own words, the rest computed: "Write {0}." (what DeepSpeed expects of a
    # value of the wrong type: ``Write an integer.``) and "Delete `{0}.{1}`." (the deprecated spelling of a key
    # written twice); the verb is what the user is told to do. "Write `{0}`." (a dynamo key's full name) is not
    # listed: "Write {0}." matches it too (its placeholder takes the key with its backticks), and two templates
    # that read the same message could not be told apart
    "Write {0}.", "Delete `{0}.{1}`.",
    # no word of its own: a setting, its value and a sentence of the switch report (convert-meaning-changed, in
    # wizard/core/convert/conversion.py); its translation is the same frame, so that the report's sentence inside is
    # translated (a message whose parts are none stays the English it was)
    "{0} = {1}: {2}",
    # a dimension's groups of the device mesh (wizard/core/mesh.py groups_sentence), one item of the list in
    # parallelism-mesh-layout's message: the dimension's name and the groups are computed
    "{0} groups: {1}",
})
"""Templates of one word of their own translated all the same: a row of the HF Trainer's note (a DeepSpeed JSON's
concrete values: ``optimizer.params.lr 3e-05 = learning_rate (default 5e-05)``), whose key, value, argument and
default are all computed; the row is matched on its own where the note lists its rows (``_listed``); and the fixes
that are one verb around a key or a value (``Write {0}.``). A more specific template (more literal words) of the
same text still wins (:func:`best`). And the frame ``{0} = {1}: {2}``, which has no word of its own, for the sentence
it holds."""


def worth_translating(template: str) -> bool:
    """A template with at least two words of its own (``{0}: {1}`` has nothing to translate), or one of
    :data:`ONE_WORD`."""
    return template in ONE_WORD or len(re.findall(r"[A-Za-z]{2,}", _PLACE.sub(" ", template))) >= 2


ERROR_CALLS = {"UsageError": (0,), "InputError": (1, 2), "VersionError": (0,), "not_found": (2,), "StartError": (0,)}
"""The errors the command line prints (:data:`ERRORS`) and the positions of their words: ``UsageError(message)``,
``InputError(path, what, fix, problem)`` (also as keywords ``what=``, ``fix=``), ``VersionError(message)``, the
fix given to ``inputs.not_found(path, kind, fix)``, and the wizard's ``StartError(message)`` (a start file it cannot
use: ``--answers``, ``--config``)."""


def _error_calls(fn: ast.AST):
    """The message expressions of every error of :data:`ERROR_CALLS` raised in the function ``fn``."""
    import ast

    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name not in ERROR_CALLS:
            continue
        for i in ERROR_CALLS[name]:
            if i < len(node.args):
                yield node.args[i]
        for kw in node.keywords:
            if kw.arg in ("message", "what", "fix"):
                yield kw.value


def _tables(expr: ast.AST, fn: ast.AST, module: ast.Module) -> list[ast.AST]:
    """The sentences of the module's tables an error's expression picks from (``_NOT_FOUND_FIX[kind]``, or a name
    the function loops over a table's items with): each is translated on its own, and put into the error's
    translation where the error shows it (or is the error's whole message)."""
    import ast

    from ..sites import module_value

    names: list[str] = []
    for node in ast.walk(expr):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            names.append(node.value.id)
    if isinstance(expr, ast.Name):  # for flag, text in _NEEDS_VALUE.items(): ... UsageError(text)
        for loop in ast.walk(fn):
            if isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call) \
                    and isinstance(loop.iter.func, ast.Attribute) and loop.iter.func.attr in ("items", "values") \
                    and isinstance(loop.iter.func.value, ast.Name) \
                    and any(isinstance(t, ast.Name) and t.id == expr.id for t in ast.walk(loop.target)):
                names.append(loop.iter.func.value.id)
    out: list[ast.AST] = []
    for name in names:
        table = module_value(module, name)
        if isinstance(table, ast.Dict):
            out += [v for v in table.values if v is not None]
    return out


def _returned(expr: ast.AST, fn: ast.AST, functions) -> list[tuple]:
    """The templates of what a function of the wizard returns where an error's whole text (or its fix) is that
    function's result: ``UsageError(_unknown_command(message))``, ``message = problem(...); UsageError(message)``,
    ``not_found(name, ANSWERS, preset_hint(...))``."""
    import ast

    from ..sites import assigned

    calls = [expr] if isinstance(expr, ast.Call) else \
        [v for v in assigned(fn, expr.id) if isinstance(v, ast.Call)] if isinstance(expr, ast.Name) else []
    out: list[tuple] = []
    for call in calls:
        f = call.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        for callee, module in functions(name) if name else ():
            for node in ast.walk(callee):
                if isinstance(node, ast.Return) and node.value is not None:
                    out += _variants(node.value, callee, module=module)
    return out


def _error_templates(root, seen: set[str]) -> list[tuple[str, str]]:
    """The templates of the command line's errors (:data:`ERRORS`), each not already a finding's."""
    import ast

    from ..sites import functions as functions_in
    from ..sites import parse_file

    sources = {path: path.read_text(encoding="utf-8") for path in sorted(root.rglob("*.py"))}
    parsed: dict = {}

    def tree(path):
        if path not in parsed:
            parsed[path] = parse_file(path)  # knowing its file: a table it imports is read where it is written
        return parsed[path]

    def functions(name: str) -> list:
        """The wizard's functions called ``name`` (whose result an error may be), with their modules."""
        return [(fn, tree(path)) for path, source in sources.items() if f"def {name}(" in source
                for fn in ast.walk(tree(path)) if isinstance(fn, ast.FunctionDef) and fn.name == name]

    out: list[tuple[str, str]] = []
    for path, source in sources.items():
        if not any(f"{name}(" in source for name in ERROR_CALLS):
            continue
        module = tree(path)
        for fn in functions_in(module):
            for expr in _error_calls(fn):
                variants = _variants(expr, fn, module=module) + _returned(expr, fn, functions)
                for table_value in _tables(expr, fn, module):
                    variants += [v for v in _variants(table_value, None, module=module)
                                 if sum(len(p) for p in v if p is not _HOLE) > 24]  # translated where shown
                for pieces in variants:
                    template = template_of(pieces)
                    if template not in seen and re.search(r"[A-Za-z]{2,}", _PLACE.sub(" ", re.sub(r"--[\w-]+", " ",
                                                                                         template))):
                        seen.add(template)  # a flag's name is no word to translate: "--training-args {0}" is none
                        out.append((ERRORS, template))
    return out


@cache
def templates() -> tuple[tuple[str, str], ...]:
    """Every message and fix template of the code that makes findings, as (part, template), each once, in the
    order of the code (modules by path); those with words to translate (:func:`worth_translating`)."""
    return tuple((part, template) for part, template in every_template() if worth_translating(template))


@cache
def every_template() -> tuple[tuple[str, str], ...]:
    """:func:`templates` and those with nothing to translate (``{0}: {1}``), as (part, template): each message and
    fix of every site where a finding is made or a sentence is ``said`` (:mod:`wizard.core.sites`), the switch
    table's texts, and the command line's errors."""
    from .. import sites

    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for site in sites.everywhere():
        part = PART_OF_MODULE.get(site.path, OTHER)
        for expr in (site.message, site.fix):
            if expr is None:
                continue
            for pieces in _variants(expr, site.function):
                template = template_of(pieces)
                if template not in seen:
                    seen.add(template)
                    out.append((part, template))
    from ..texts.switching import COUNTERPARTS, KEPT, SAME_FSDP_KEYS

    for text in (*(c.text for entries_ in COUNTERPARTS.values() for c in entries_), KEPT, SAME_FSDP_KEYS):
        template = template_of((text,))
        if template not in seen:
            seen.add(template)
            out.append((SWITCH, template))
    from ..catalog import SETTINGS

    for s in SETTINGS:  # why the bundled model cannot run a setting: a rehearsal's reason (wizard/run/rehearse.py)
        template = template_of((s.rehearsal,))
        if s.rehearsal and template not in seen:
            seen.add(template)
            out.append((RUN, template))
    out += _error_templates(sites.ROOT, seen)
    return tuple(out)


# ----------------------------------------------------------------------------------------------------------------
# the language: matching a finding's English and filling in the translation
# ----------------------------------------------------------------------------------------------------------------
class Template:
    """One stored translation of a template: what it matches and how it fills in.

    Matching is a left-to-right scan, not a regular expression: each literal run after a placeholder is found at its
    leftmost place (what a lazy ``(.*?)`` would take), the first and last runs must open and close the message. For
    this shape of pattern the leftmost choice never rules out a match, so the scan finds one exactly when the pattern
    would, in time linear in the message (a pattern of several lazy groups can backtrack for a very long time on a
    crafted message: a key name in a config is the user's text)."""

    __slots__ = ("english", "text", "literals", "names", "anchor", "weight")

    def __init__(self, english: str, text: str) -> None:
        self.english, self.text = english, text
        literals, names, run, pos = [], [], [], 0
        for m in _PLACE.finditer(english):
            run.append(english[pos:m.start()])
            if m.group(1) is None:
                run.append(m.group(0)[0])  # {{ -> {, }} -> }
            else:
                literals.append("".join(run))
                names.append("p" + m.group(1))
                run = []
            pos = m.end()
        run.append(english[pos:])
        literals.append("".join(run))
        self.literals: list[str] = literals
        """The literal runs: one more than the placeholders (the first and last may be empty)."""
        self.names: list[str] = names
        self.anchor = max(literals, key=len)
        """The longest literal run: a message without it cannot match (a cheap test first)."""
        self.weight = sum(len(x) for x in literals)

    def match(self, message: str) -> dict[str, str] | None:
        """The computed parts of ``message`` if it was made from this template (name -> text), else None."""
        if self.anchor not in message:
            return None
        return scan(self.literals, self.names, message)

    def fill(self, values: dict[str, str]) -> str:
        def put(m: re.Match) -> str:
            if m.group(1) is None:
                return m.group(0)[0]  # {{ -> {, }} -> }
            return values.get(f"p{m.group(1)}", m.group(0))

        return _PLACE.sub(put, self.text)


@cache
def index(lang: str) -> tuple[Template, ...]:
    """The language's current translations of templates (made from the English as it is), heaviest first."""
    found = []
    for part in PARTS:
        for english, entry in entries(lang, part).items():
            if entry.get("fp") == fingerprint(english) and entry.get("text"):
                found.append(Template(english, entry["text"]))
    return tuple(sorted(found, key=lambda t: -t.weight))


@cache
def best(english: str, lang: str) -> Template | None:
    """The template a finding's English was made from, in the language: the heaviest that matches it with every
    computed part's brackets balanced; else the heaviest that matches it at all. A sentence that holds another
    (``left out {0}: {1}`` around ``our rules find an error ({0}: {1})`` around ``{0} (generated key: {1})``) can
    be matched by the inner sentence's frame too, lighter or heavier; the frame it was built with leaves no part
    with a bracket opened and not closed."""
    first = None
    for template in index(lang):
        values = template.match(english)
        if values is None:
            continue
        if all(_balanced(v) for v in values.values()):
            return template
        first = first or template
    return first


@cache
def _read_whole(english: str, lang: str) -> bool:
    """Whether a template reads ``english`` whole as one sentence: every computed part's brackets balanced, and a
    computed part with "; " inside only where that part is itself such a sentence (a finding's message inside
    ``{0} (generated key: {1})``) or a list of such sentences (the mesh's groups, one sentence per dimension). Rows
    joined by "; " whose rows are no sentences (the HF Trainer's note: ``lr = 5e-05 (learning_rate)``) are not one:
    a template's placeholder would take several rows (``{0} = {1} of the training steps, ...``: ``{1}`` from the
    first row to the last)."""
    template = best(english, lang)
    values = template.match(english) if template is not None else None
    if values is None or not all(_balanced(v) for v in values.values()):
        return False
    return all("; " not in v or _read_whole(v, lang) or _sentences(v, lang) for v in values.values())


def sentence_or_rows(english: str, lang: str) -> str | None:
    """``english`` in the language (:func:`translated`), read whole when it is one sentence and row by row when it is
    sentences joined by "; " (what a file's several problems say: ``a: 'x' must be true or false; b: 0 must be 1 or
    more``), none of whose frames would otherwise take the rows around it; None when nothing matches."""
    if lang == ENGLISH or not english:
        return None
    if "; " in english and not _read_whole(english, lang) and _sentences(english, lang):
        return "; ".join(translated(row, lang) or row for row in english.split("; "))
    return translated(english, lang)


def _sentences(value: str, lang: str) -> bool:
    """Whether ``value`` is sentences joined by "; ", each read whole (:func:`_read_whole`)."""
    items = [item for item in value.split("; ") if " " in item]
    return len(items) > 1 and all(_read_whole(item, lang) for item in items)


_BRACKETS = (("(", ")"), ("[", "]"), ("{", "}"))


def _balanced(text: str) -> bool:
    """Whether each bracket of ``text`` is closed after it is opened (a computed part cut from a sentence at the
    wrong place is not)."""
    for opening, closing in _BRACKETS:
        depth = 0
        for c in text:
            if c == opening:
                depth += 1
            elif c == closing:
                depth -= 1
                if depth < 0:
                    return False
        if depth:
            return False
    return True


_DEPTH = 4
"""How deep sentences inside sentences are translated: ``left out {0}: {1}`` holds ``our rules find an error ({0}:
{1})``, which holds a finding's message with ``(generated key: {1})`` after it, which holds its own computed parts."""


def translated(english: str, lang: str, depth: int = 0) -> str | None:
    """``english`` (a finding's message or fix) in the language, its computed parts as they were; None when no
    translated template matches it (or the language is English). A computed part that is itself a sentence of a
    template (a message another step wrapped: ``"{0} (generated key: {1})"``) is translated too, and so is one that
    is a computed English phrase of :mod:`.phrases` (a checkpoint format's name, an OS error's words)."""
    if lang == ENGLISH or not english:
        return None
    template = best(english, lang)
    if template is None:
        return None
    values = template.match(english)
    if values is None:
        return None
    if depth < _DEPTH:
        from .phrases import phrase

        for name, value in values.items():
            inner = known(value, lang)  # the catalogue's reason why a setting has no place, its counterpart
            if inner is None and " " in value and len(value) > 24:
                rows = "; " in value  # one sentence with "; " inside, or rows: see _read_whole
                inner = (translated(value, lang, depth + 1) if _read_whole(value, lang) else None) \
                    or (_listed(value, lang, depth + 1, "; ", complete=True) if rows else None) \
                    or (_listed(value, lang, depth + 1, "; ") if rows else None) \
                    or translated(value, lang, depth + 1) or _listed(value, lang, depth + 1)
            if inner is None:  # a computed English phrase (a checkpoint format's name, an OS error's words, ...)
                inner = phrase(value, lang)
            if inner is not None:
                values[name] = inner
    return template.fill(values)


def after_a_name(text: str, lang: str) -> str | None:
    """``text`` that is a name and a sentence, ``NAME: SENTENCE`` (``check``'s finding of a file it cannot use:
    ``PATH: not UTF-8 text (byte 0 is 0x89)``, ``PATH: not valid JSON (line 1, column 2): ...``), in the language:
    the sentence after the first ": " from which a template reads the rest (its part ``messages-errors``; the
    json module's words and the wizard's own inside it), the name before it as it is; None when none does."""
    if lang == ENGLISH:
        return None
    start = text.find(": ")
    while start > 0:
        tail = translated(text[start + 2:], lang)
        if tail is not None:
            return text[:start + 2] + tail
        start = text.find(": ", start + 2)
    return None


_BACKEND_PART = re.compile(r"(?:; ?|\uff1b)(?=(?:DeepSpeed|FSDP[12]?) ?[:\uff1a])")
"""Where the catalogue's counterpart line passes to another backend's part, in the English ("; DeepSpeed: ") and in
a translation ("；FSDP：")."""
_BACKEND_NAME = re.compile(r"(DeepSpeed|FSDP[12]?) ?[:\uff1a] ?")


@cache
def _known(lang: str) -> dict[str, str]:
    """English -> the language, for the catalogue's texts a sentence of ``convert`` puts in whole (translated by the
    setting's id, not by a template: one fact, one place): why a setting has no place on a target
    (``not_applicable``) and its counterpart line, whole and each backend's part of it ("DeepSpeed: transparent."),
    without the final period (the sentence writes its own). A text of one word (`none`: a value too) and one whose
    translation is the English are left out."""
    from ..catalog import SETTINGS
    from .catalog_texts import counterpart, not_applicable

    out: dict[str, str] = {}

    def put(english: str, text: str) -> None:
        if " " in english and text and text != english:  # a word alone may be a value too ("none")
            out.setdefault(english, text)

    for s in SETTINGS:
        for target, why in s.not_applicable.items():
            put(why, not_applicable(s.id, target, lang))
        if not s.counterpart:
            continue
        text = counterpart(s.id, lang)
        put(s.counterpart.rstrip("."), text.rstrip(".\u3002"))
        english_parts, parts = _BACKEND_PART.split(s.counterpart), _BACKEND_PART.split(text)
        if len(parts) != len(english_parts):
            continue
        for e, t in zip(english_parts, parts, strict=True):
            name, sep, rest = e.partition(": ")
            found = _BACKEND_NAME.match(t)
            if sep and found and found.group(1) == name:
                put(rest.rstrip("."), t[found.end():].rstrip(".\u3002"))
    return out


def known(english: str, lang: str) -> str | None:
    """``english`` in the language when it is one of the catalogue's texts of :func:`_known` (None for any other text,
    and for English)."""
    if lang == ENGLISH:
        return None
    return _known(lang).get(english)


def known_sentence(english: str, lang: str) -> str | None:
    """One of the catalogue's texts of :func:`known` given as a whole sentence, with its final period (answers'
    not-applicable fix is a setting's counterpart line): its translation with the language's own full stop; None for
    any other text."""
    if not english.endswith("."):
        return None
    words = known(english[:-1], lang)
    if words is None:
        return None
    from ..i18n.cells import has_wide

    return words + ("。" if has_wide(words) else ".")


def _listed(value: str, lang: str, depth: int, sep: str = ", ", complete: bool = False) -> str | None:
    """A computed part that is a list joined by ``", "`` (a rule's reasons, each its own ``said(...)`` sentence:
    ``", ".join(ds_json_reasons(a))``) or by ``"; "`` (rows of a note, each its own ``said(...)`` sentence: the HF
    Trainer's comparisons, tried before the whole, whose first or last placeholder would take the rows around one)
    with each item that is a template's sentence translated; None when none is (``complete``: when any item with words
    is not, or is read only with a bracket left open: a sentence with "; " inside is then read whole,
    :func:`translated`). An item of a ``"; "`` list that is
    no sentence may be a ``", "`` list."""
    items = value.split(sep)
    if len(items) < 2:
        return None
    out = [((translated(item, lang, depth) if not complete or _read_whole(item, lang) else None)
            or (_listed(item, lang, depth) if sep == "; " else None) or item)
           if " " in item else item for item in items]
    if complete and any(o == i and " " in i for o, i in zip(out, items, strict=True)):
        return None
    return sep.join(out) if out != items else None


def forget() -> None:
    """Drop what was read (after the translations on disk changed: the tools and tests)."""
    index.cache_clear()
    best.cache_clear()
    _read_whole.cache_clear()
    _known.cache_clear()
    templates.cache_clear()
    every_template.cache_clear()
