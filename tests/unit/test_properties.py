"""Property tests: any answers and any config give exit 0 or 2 with findings, never a crash."""
import json

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wizard.cli import main
from wizard.core.catalog import SETTINGS

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**9), st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=12), st.sampled_from(["auto", "none", "cpu", "nvme", "1e8", "FULL_SHARD", "bf16"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                      max_leaves=6)


def valid_value(s):
    if s.kind == "choice":
        return st.sampled_from(list(s.choices) + ([None] if s.nullable else []))
    if s.kind == "bool":
        return st.booleans()
    if s.kind == "int":
        lo = int(s.minimum) if s.minimum is not None else 0
        hi = int(s.maximum) if s.maximum is not None else 64
        base = st.integers(lo, max(lo, hi))
        return st.one_of(base, st.just("auto")) if s.allow_auto else base
    if s.kind == "float":
        return st.floats(0, 10, allow_nan=False)
    if s.kind == "list":
        return st.lists(st.sampled_from(["Block", "LlamaDecoderLayer"]), max_size=2)
    if s.kind == "str":
        return st.sampled_from(["10.0.0.1", "all", "/nvme", "main"])
    return st.just({})


@st.composite
def answers_docs(draw):
    doc = {}
    for s in draw(st.lists(st.sampled_from(SETTINGS), max_size=12, unique_by=lambda s: s.id)):
        value = draw(st.one_of(valid_value(s), valid_value(s), values))
        if len(s.path) == 1:
            doc[s.id] = value
        else:
            doc.setdefault(s.path[0], {})[s.path[1]] = value
    if draw(st.booleans()):
        doc[draw(st.text(min_size=1, max_size=10))] = draw(values)
    return doc


FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FAST
@given(doc=answers_docs())
def test_random_answers_exit_0_or_2(tmp_path_factory, doc, capsys):
    folder = tmp_path_factory.mktemp("p")
    p = folder / "answers.yaml"
    p.write_text(yaml.safe_dump(doc))
    code = main(["--headless", str(p), "--out", str(folder / "out")])
    captured = capsys.readouterr()
    assert code in (0, 2), captured.err
    assert "internal error" not in captured.err
    if code == 2:
        # a finding, a refusal, or the one line of a file that cannot be used (a control character in a value)
        assert "ERROR" in captured.err or "refusing" in captured.err or captured.err.startswith(f"fsdpds-wizard: {p}: ")
        assert not (folder / "out").exists()
    else:
        assert (folder / "out" / "accelerate_config.yaml").exists()


FSDP_KEYS = ["fsdp_version", "fsdp_sharding_strategy", "fsdp_reshard_after_forward", "fsdp_offload_params",
             "fsdp_auto_wrap_policy", "fsdp_min_num_params", "fsdp_state_dict_type", "sharding_strategy",
             "fsdp_use_orig_params", "fsdp_sync_module_states", "fsdp_cpu_ram_efficient_loading", "typo"]
DS_KEYS = ["zero_stage", "offload_optimizer_device", "offload_param_device", "gradient_clipping",
           "gradient_accumulation_steps", "zero3_init_flag", "deepspeed_config_file", "offload_param_nvme_path"]


@st.composite
def config_docs(draw):
    doc = {}
    if draw(st.booleans()):
        doc["distributed_type"] = draw(st.sampled_from(["FSDP", "DEEPSPEED", "MULTI_GPU", "NO", "fsdp", 3]))
    for key in draw(st.lists(st.sampled_from(["num_processes", "num_machines", "mixed_precision", "gpu_ids",
                                              "machine_rank", "dynamo_config", "parallelism_config", "bogus"]),
                             max_size=4, unique=True)):
        doc[key] = draw(values)
    if draw(st.booleans()):
        doc["fsdp_config"] = {k: draw(values) for k in draw(st.lists(st.sampled_from(FSDP_KEYS), max_size=5))}
    if draw(st.booleans()):
        doc["deepspeed_config"] = draw(st.one_of(
            values, st.fixed_dictionaries({k: values for k in draw(st.lists(st.sampled_from(DS_KEYS), max_size=4))})))
    return doc


@FAST
@given(doc=config_docs(), ds=st.one_of(st.none(), values))
def test_random_configs_exit_0_or_2(tmp_path_factory, doc, ds, capsys):
    folder = tmp_path_factory.mktemp("c")
    if ds is not None:
        (folder / "ds.json").write_text(json.dumps(ds))
        if isinstance(doc.get("deepspeed_config"), dict):
            doc["deepspeed_config"]["deepspeed_config_file"] = "ds.json"
    p = folder / "cfg.yaml"
    p.write_text(yaml.safe_dump(doc))
    code = main(["check", str(p), "--format", "json", "--gpus-per-node", "8"])
    captured = capsys.readouterr()
    assert code in (0, 2), captured.err
    report = json.loads(captured.out)
    assert isinstance(report["findings"], list)
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert (code == 2) == bool(errors)
    for f in report["findings"]:
        assert set(f) >= {"severity", "rule", "keys", "message"} and f["keys"]


# ------------------------------------------------------------------------------------------------ hostile files
# Any bytes given as an answers file or an accelerate config: exit 0, or exit 2 with a message; never exit 3.
def _nest(depth, flow):
    if flow:
        return "a: " + "[" * depth + "]" * depth + "\n"
    return "".join("  " * i + f"k{i}:\n" for i in range(depth)) + "  " * depth + "v: 1\n"


def _bomb(levels, width):
    lines = ["a0: &a0 [" + ", ".join(["x"] * width) + "]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


hostile_texts = st.one_of(
    st.builds(_nest, st.integers(1, 3000), st.booleans()),
    st.builds(_bomb, st.integers(1, 9), st.integers(2, 12)),
    st.builds(lambda doc: yaml.safe_dump(doc), st.one_of(values, st.lists(values), scalars)),
    st.builds(lambda doc: json.dumps(doc), values),
    st.builds(lambda head, body: head + body, st.sampled_from(["", "backend: fsdp\n", "distributed_type: FSDP\n",
                                                               "deepspeed:\n  extra:\n    x: ", "- ", "? "]),
              st.text(max_size=60)),
    st.sampled_from(["", "~\n", "--- \n...\n", "[1, 2]\n", "&a [*a]\n", "!!python/object:os.system 1\n",
                     "a: !!binary 'xx'\n", "a: 2001-01-01\n", "{a: 1}: 2\n", "a: *nope\n", "\t- x\n",
                     "a: " + "9" * 5000 + "\n", "# " + "x" * (4 * 1024 * 1024) + "\n"]),
)
hostile_files = st.one_of(hostile_texts.map(lambda t: t.encode("utf-8")), st.binary(max_size=300),
                          st.just(b"\x89PNG\r\n\x1a\n" + bytes(range(256))))


def _assert_clean(code, err):
    assert code in (0, 2), err
    assert "internal error" not in err and "Traceback" not in err
    if code == 2:
        assert err.strip()


@FAST
@given(data=hostile_files, suffix=st.sampled_from([".yaml", ".json"]))
def test_hostile_files_to_check_exit_0_or_2(tmp_path_factory, data, suffix, capsys):
    p = tmp_path_factory.mktemp("h") / f"cfg{suffix}"
    p.write_bytes(data)
    code = main(["check", str(p), "--gpus-per-node", "8"])
    captured = capsys.readouterr()
    _assert_clean(code, captured.err + captured.out)
    assert f"{'FAIL' if code else 'OK'}: {p}:" in captured.out


@FAST
@given(data=hostile_files)
def test_hostile_files_to_headless_exit_0_or_2(tmp_path_factory, data, capsys):
    folder = tmp_path_factory.mktemp("h")
    p = folder / "answers.yaml"
    p.write_bytes(data)
    code = main(["--headless", str(p), "--out", str(folder / "out")])
    captured = capsys.readouterr()
    _assert_clean(code, captured.err)
    assert (folder / "out").exists() == (code == 0)


@FAST
@given(data=hostile_files, flag=st.sampled_from(["answers", "config"]))
def test_hostile_files_to_the_wizard_start_exit_2_or_open(tmp_path_factory, data, flag, capsys):
    """--answers / --config: the wizard opens (its factory builds the app) or exits 2 with a message."""
    from types import SimpleNamespace

    import pytest

    from wizard.tui import app as app_module

    p = tmp_path_factory.mktemp("h") / "start.yaml"
    p.write_bytes(data)
    built = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(app_module.WizardApp, "run", lambda self, *a, **k: built.append(self))
        args = SimpleNamespace(**{"answers": None, "preset": None, "config": None, "out": None, flag: str(p)})
        code = app_module.run_app(args)
    captured = capsys.readouterr()
    _assert_clean(code, captured.err)
    assert (code == 0) == bool(built)
    if code == 2:
        assert captured.err.startswith(f"fsdpds-wizard: {p}")
    else:
        assert built[0].start.answers.target in ("fsdp1", "fsdp2", "deepspeed")
