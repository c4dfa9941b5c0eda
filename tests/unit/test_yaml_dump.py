"""wizard.core.yaml_dump.safe_dump writes yaml.safe_dump's bytes (issue 26: libyaml's emitter where it writes the
same, PyYAML's own elsewhere): on every preset's answers.yaml and accelerate config, and on random data of the shapes
the C emitter is given, in both option sets the wizard uses."""
import random
import string

import pytest
import yaml

from wizard.core import yaml_dump
from wizard.core.answers import load_answers_file
from wizard.core.answers.generate import generate
from wizard.core.answers.model import dump_answers
from wizard.core.presets import preset_paths

OPTIONS = ({"sort_keys": False, "default_flow_style": False},  # answers.yaml
           {"sort_keys": True, "default_flow_style": False, "allow_unicode": True})  # the configs


def _random_data(rnd: random.Random, depth: int = 0):
    pools = (string.printable[:95], "ab c-_./:#'\"!&*?|>%@`{}[],=+~ yes no null true 0x1 1e3 ", "0123456789.e-+_x")

    def text(longest: int) -> str:
        pool = rnd.choice(pools)
        return "".join(rnd.choice(pool) for _ in range(rnd.randint(0, longest)))

    r = rnd.random()
    if r < 0.45 or depth >= 3:
        return text(rnd.choice([5, 30, 90, 300]))
    if r < 0.6:
        return rnd.choice([True, False, None, 0, -3, 10 ** rnd.randint(0, 30), 1.5, 1e-9, 2.0, float("inf")])
    if r < 0.8:
        return [_random_data(rnd, depth + 1) for _ in range(rnd.randint(0, 4))]
    return {text(rnd.choice([20, yaml_dump.MAX_KEY])) or "k": _random_data(rnd, depth + 1)
            for _ in range(rnd.randint(0, 4))}


@pytest.mark.parametrize("options", OPTIONS)
def test_the_same_bytes_as_yaml_safe_dump_on_random_data_the_c_emitter_writes(options):
    rnd = random.Random(26)
    checked = 0
    for _ in range(1500):
        data = {str(i): _random_data(rnd) for i in range(rnd.randint(1, 5))}
        assert yaml_dump._c_emitter_writes_the_same(data)
        assert yaml_dump.safe_dump(data, **options) == yaml.safe_dump(data, **options), data
        checked += 1
    shared = ["a", "b"]
    data = {"x": shared, "y": {"z": shared}, "long": "word " * 100}  # an alias, a folded line
    assert yaml_dump.safe_dump(data, **options) == yaml.safe_dump(data, **options)


@pytest.mark.parametrize("text", ["caf\u00e9", "tab\there", "two\nlines", "nul\x00", "\ufeffbom", "\u2028", "x" * 200])
def test_what_libyaml_writes_its_own_way_goes_through_pyyaml(text, monkeypatch):
    """Text outside printable ASCII (libyaml quotes and folds it differently) and keys past MAX_KEY (a "? " key in
    PyYAML) are written by yaml.safe_dump itself."""
    data = {"k": [text]} if len(text) < 200 else {text: 1}
    assert not yaml_dump._c_emitter_writes_the_same(data)
    monkeypatch.delattr(yaml, "CSafeDumper")  # were the C emitter used, this would fail
    for options in OPTIONS:
        assert yaml_dump.safe_dump(data, **options) == yaml.safe_dump(data, **options)


def test_every_preset_is_written_as_yaml_safe_dump_writes_it(tmp_path):
    for name, path in preset_paths().items():
        answers, _ = load_answers_file(path)
        assert answers is not None, name
        nested = answers.to_nested()
        assert yaml_dump._c_emitter_writes_the_same(nested), name  # the presets take the fast path
        gen = generate(answers, tmp_path / name)
        assert gen.files["accelerate_config.yaml"].endswith(yaml.safe_dump(
            gen.rendered.accelerate, **OPTIONS[1])), name
        text = dump_answers(answers)
        for group, values in nested.items():
            if isinstance(values, dict):
                assert yaml.safe_dump({group: values}, **OPTIONS[0]) in text, (name, group)
