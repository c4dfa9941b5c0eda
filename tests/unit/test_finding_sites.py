"""wizard.core.sites: the one reader of where findings are made, which docs/rules.md (keys, fixes) and the findings'
message templates (translations) both read."""
import ast
import textwrap
from pathlib import Path

from wizard.core import sites
from wizard.core.docs.rules import CONFIG_MODULES  # imports every module that registers rules
from wizard.core.localized.messages import OTHER, PART_OF_MODULE, _variants, every_template, template_of
from wizard.core.rules import ANSWER, CONFIG, RULES

SOURCE = textwrap.dedent('''
    A = rule("rule-a", ERROR, "a")
    B = rule("rule-b", WARNING, "b")

    def lint(ctx, out):
        ctx.emit(A, ("x.y",), f"x.y is {v}", "set x.y")
        out.emit(B, ("z",), fix="drop z", message="z is set")
        self.emit("setup", rank=0)
        Finding(ERROR, B, ("w",), "w is bad", "fix w", "source")
        _ds_error(A, "the JSON is bad", "fix the JSON")
        ctx.emit(UNKNOWN, (), "not registered here")
        said(f"a sentence with {x}")

    @answer_rule("answer-rule", ERROR, "summary", "source")
    def an_answer_rule(a):
        yield ["k"], "k is wrong", "set k"
        yield ["k"], "not a finding"

    def outer(ctx):
        def inner():
            ctx.emit(A, (), "nested", None)
        return inner
''')


def _sites():
    return list(sites.sites_of(ast.parse(SOURCE), "core/lint/example.py"))


def _literal(node):
    return ast.literal_eval(node) if node is not None else None


def test_each_kind_of_call_is_a_site_with_its_parts():
    found = [(s.rule, s.function.name, _literal(s.message) if isinstance(s.message, ast.Constant) else
              ast.unparse(s.message), _literal(s.fix)) for s in _sites()]
    assert found == [
        ("rule-a", "lint", "f'x.y is {v}'", "set x.y"),
        ("rule-b", "lint", "z is set", "drop z"),  # keywords
        ("rule-b", "lint", "w is bad", "fix w"),
        ("rule-a", "lint", "the JSON is bad", "fix the JSON"),
        (None, "lint", "not registered here", None),  # a constant not registered in the module: no rule
        (None, "lint", "f'a sentence with {x}'", None),  # said: a message alone
        ("answer-rule", "an_answer_rule", "k is wrong", "set k"),  # only (keys, message, fix) yields
        ("rule-a", "outer", "nested", None),  # a nested function's call: a site of each function around it
        ("rule-a", "inner", "nested", None),
    ]


def test_keys_are_as_written_and_a_ds_error_blames_the_json():
    keys = [ast.unparse(s.keys) if s.keys is not None else None for s in _sites()]
    assert keys == ["('x.y',)", "('z',)", "('w',)", "DS_FILE_KEY", "()", None, "['k']", "()", "()"]
    assert {s.path for s in _sites()} == {"core/lint/example.py"}


def test_every_config_and_answer_rule_without_declared_keys_is_made_somewhere_the_reader_sees():
    named = {s.rule for s in sites.everywhere() if s.rule}
    unseen = [name for name, info in RULES.items() if info.section in (CONFIG, ANSWER) and not info.keys
              and name not in named]
    assert unseen == []
    assert named <= set(RULES)


def test_docs_and_translations_read_the_same_sites():
    """Each message of a site that names its rule (what docs/rules.md reads) is a template of its module's part (what
    the translations read)."""
    templates = set(every_template())
    config_paths = {Path(m.__file__).resolve().relative_to(sites.ROOT).as_posix() for m in CONFIG_MODULES}
    checked = 0
    for site in sites.everywhere():
        if site.rule is None:
            continue
        assert site.message is not None, (site.path, site.rule)
        part = PART_OF_MODULE.get(site.path, OTHER)
        first = template_of(_variants(site.message, site.function)[0])
        assert (part, first) in templates, (site.path, site.rule, first)
        checked += site.path in config_paths
    assert checked > 100
