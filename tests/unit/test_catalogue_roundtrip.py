"""The structured catalogue, checked per setting: every setting, every kind of value it accepts, every target.

* render -> import -> render gives the same files, and what the import reads back differs from the answers only
  where the files carry the value in the library's own spelling (a key of the setting is written) or a finding
  names the setting: nothing is dropped without a word (a few context-only settings are listed below, with why);
* everything the renderer writes is declared in the catalogue (so every map derived from it knows the key), and the
  maps derived from the catalogue (key -> setting for findings, library names for answers.yaml) name only keys the
  renderer really writes;
* every declared key is one the libraries read, and every "where" line names the key it is about.
"""
from __future__ import annotations

import pytest

from wizard.core import ds_schema
from wizard.core.answers import coerce_value, default_answers, native_hint
from wizard.core.answers.generate import generate
from wizard.core.answers.importer import import_mapping
from wizard.core.answers.render import TRAINING_ARGUMENT_OF, render
from wizard.core.catalog import (
    AUTO,
    CUSTOM,
    DEEPSPEED,
    FIXED_KEYS,
    FSDP1,
    FSDP2,
    JSON,
    SETTING_BY_ID,
    SETTINGS,
    TARGETS,
    YAML,
    fp8_backend_of,
    fp8_options,
)
from wizard.core.catalog.writes import key_to_setting, keys_of, native_names
from wizard.core.library.deepspeed import DS_INLINE_KEYS
from wizard.core.library.fsdp import FSDP_KEYS
from wizard.core.library.launcher import CLUSTER_FIELDS, DYNAMO_KEYS, FP8_KEYS, PC

BACKENDS = {FSDP1: {"backend": "fsdp", "fsdp_version": 1}, FSDP2: {"backend": "fsdp", "fsdp_version": 2},
            DEEPSPEED: {"backend": "deepspeed"}}
SAMPLE_TEXT = {"launch.main_process_ip": "10.0.0.1", "offload.nvme_path": "/nvme", "launch.gpu_ids": "0,1",
               "launch.ds_hostfile": "/etc/hostfile", "wrapping.ignored_modules": "vision_tower.*"}
MULTI_NODE = {"launch.num_machines": 2, "launch.num_processes": 16}
CONTEXT = {
    # the other answers a value needs before it is written at all (each value is also tried without them)
    "wrapping.min_num_params": {"wrapping.policy": "size"},
    "wrapping.layer_classes": {"wrapping.policy": "transformer"},
    "offload.nvme_path": {"offload.optimizer": "nvme", "offload.params": "nvme"},
    "offload.pin_memory": {"offload.optimizer": "cpu", "offload.params": "cpu"},
    "launch.ds_multinode_launcher": MULTI_NODE,
    "launch.ds_hostfile": {**MULTI_NODE, "launch.ds_multinode_launcher": "pdsh"},
    "launch.ds_inclusion_filter": {**MULTI_NODE, "launch.ds_multinode_launcher": "pdsh"},
    "launch.ds_exclusion_filter": {**MULTI_NODE, "launch.ds_multinode_launcher": "pdsh"},
    "launch.main_process_port": MULTI_NODE,
    "launch.dynamo_mode": {"launch.dynamo_backend": "inductor"},
    "launch.dynamo_fullgraph": {"launch.dynamo_backend": "inductor"},
    "launch.dynamo_dynamic": {"launch.dynamo_backend": "inductor"},
    "launch.dynamo_regional": {"launch.dynamo_backend": "inductor"},
    "sharding.strategy": MULTI_NODE,
    "training.activation_checkpointing_offload": {"training.activation_checkpointing": True},
    "deepspeed.overlap_comm": {"deepspeed.config_file": "yes"},
    "precision.fp8_backend": {"precision.mixed_precision": "fp8"},
    # an fp8 option is written with fp8 and its own backend (torchao with ram-efficient loading off, which it refuses)
    **{s.id: {"precision.mixed_precision": "fp8", "precision.fp8_backend": fp8_backend_of(s.id),
              "loading.ram_efficient": False} for s in fp8_options()},
    "parallelism.cp_comm_strategy": {"parallelism.cp_size": 2},
    "parallelism.sp_seq_length": {"parallelism.sp_size": 2, "parallelism.sp_seq_length_is_variable": False},
    "parallelism.sp_seq_length_is_variable": {"parallelism.sp_size": 2},
    "parallelism.sp_attn_implementation": {"parallelism.sp_size": 2},
}
UNWRITTEN_WITHOUT_FINDING = {
    # setting -> why a stated value may be left out of the files, and so out of an import, without a finding naming it
    "deepspeed.config_file": "'no' only forbids a JSON: where none is needed the files are those of 'auto' (the value "
                             "is honoured, there is just nothing in the files to tell the two apart)",
}


def values_of(setting) -> list:
    """Every kind of value the setting accepts: each choice, both bools, the bounds and a middle value, null, auto."""
    kind = setting.kind
    if kind == "choice":
        out = list(setting.choices)
    elif kind == "bool":
        out = [True, False]
    elif kind == "int":
        lo, hi = int(setting.minimum), int(setting.maximum)
        out = [lo, min(hi, max(lo, 3)), hi]
    elif kind == "float":
        out = [float(setting.minimum), 0.5, float(setting.maximum)]
    elif kind == "str":
        out = [SAMPLE_TEXT.get(setting.id, "x_value")]
    elif kind == "list":
        out = [[], ["Block"], ["Block", "Other"]]
    elif kind == "dict":
        out = [{}, {"wall_clock_breakdown": False}, {"zero_optimization": {"round_robin_gradients": True}}]
    else:
        raise AssertionError(kind)
    if setting.nullable:
        out.append(None)
    if setting.allow_auto:
        out.append(AUTO)
    for value in out:
        assert coerce_value(setting, value) == (value, None), (setting.id, value)
    return out


def answer_sets(setting, target):
    for ctx in ({}, CONTEXT[setting.id]) if setting.id in CONTEXT else ({},):
        for value in values_of(setting):
            yield {**ctx, setting.id: value}, default_answers().replace({**BACKENDS[target], **ctx, setting.id: value})


CASES = [(s, t) for s in SETTINGS if s.group != "backend" for t in TARGETS] + [
    (SETTING_BY_ID["backend"], t) for t in TARGETS] + [(SETTING_BY_ID["fsdp_version"], t) for t in TARGETS]


def _declared(path: str, sid: str) -> bool:
    return path in FIXED_KEYS or sid == "deepspeed.extra" or path in {k for _, k in keys_of(sid)}


@pytest.mark.parametrize("setting,target", CASES, ids=[f"{s.id}-{t}" for s, t in CASES])
def test_render_import_render_is_identical_and_nothing_is_dropped_silently(setting, target):
    for stated, answers in answer_sets(setting, target):
        gen = generate(answers, None)
        rendered = gen.rendered
        for path, sid in rendered.provenance.items():
            assert _declared(path, sid), f"{stated}: {path} is written for {sid} but not declared in the catalogue"
        imported, notes = import_mapping(rendered.accelerate, rendered.deepspeed)
        assert imported is not None, (stated, [f.render() for f in notes])
        again = render(imported)
        assert (again.accelerate, again.deepspeed) == (rendered.accelerate, rendered.deepspeed), stated
        if answers.target == DEEPSPEED:  # deepspeed.extra is carried leaf by leaf (a leaf may be a catalogue knob)
            for path, value in leaves(answers["deepspeed.extra"]):
                assert leaf_at(rendered.deepspeed, path) == value, (stated, path)
        named = {key for f in [*gen.findings, *notes] for key in f.keys}
        for s in SETTINGS:
            if not s.writes.get(answers.target) or answers[s.id] == imported[s.id] or s.id in named:
                continue
            carried = any(found(rendered, key) for _, key in keys_of(s.id)) or (
                # under the Trainer the value goes to training_arguments.json (the JSON says "auto")
                TRAINING_ARGUMENT_OF.get(s.id) in (rendered.training_arguments or {}))
            assert carried or s.id in UNWRITTEN_WITHOUT_FINDING, (
                f"{stated}: {s.id} = {answers[s.id]!r} is neither written nor named by a finding "
                f"(imported back as {imported[s.id]!r})")


def leaves(d: dict, prefix: str = ""):
    for key, value in d.items():
        if isinstance(value, dict) and value:
            yield from leaves(value, f"{prefix}{key}.")
        else:
            yield prefix + key, value


def leaf_at(d, path: str):
    for part in path.split("."):
        d = d.get(part) if isinstance(d, dict) else None
    return d


def found(rendered, path: str) -> bool:
    for data in (rendered.accelerate, rendered.deepspeed):
        node = data
        for part in path.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            return True
    return False


def test_the_unwritten_list_is_still_needed():
    """An entry that no case needs any more goes (the list only ever documents real gaps)."""
    needed = set()
    for setting, target in CASES:
        for _, answers in answer_sets(setting, target):
            gen = generate(answers, None)
            imported, notes = import_mapping(gen.rendered.accelerate, gen.rendered.deepspeed)
            named = {key for f in [*gen.findings, *notes] for key in f.keys}
            for sid in UNWRITTEN_WITHOUT_FINDING:
                s = SETTING_BY_ID[sid]
                if (s.writes.get(answers.target) and answers[sid] != imported[sid] and sid not in named
                        and not any(found(gen.rendered, key) for _, key in keys_of(sid))):
                    needed.add(sid)
    assert needed == set(UNWRITTEN_WITHOUT_FINDING)


def _every_rendered_key() -> dict[str, str]:
    out: dict[str, str] = {}
    for setting, target in CASES:
        for _, answers in answer_sets(setting, target):
            r = render(answers)
            for path, sid in r.provenance.items():
                out.setdefault(path, sid)
    return out


def test_the_key_to_answer_map_of_findings_holds_only_real_keys():
    """generate's fallback (a finding's key -> the answer behind it) used to scrape the prose of the catalogue and held
    `zero_optimization.offload_`, `from_pretrained` and `deepspeed_config.zero_optimization.stage`: every key it knows
    is now one the renderer writes, and every key the renderer writes (but deepspeed.extra's) is in it; the setting
    it names is the one the renderer names for the key (for FSDP's one offload switch, with nothing offloaded)."""
    written = _every_rendered_key()
    derived = key_to_setting()
    assert set(derived) - set(written) == set(), "keys the renderer never writes"
    assert {p for p, sid in written.items() if sid != "deepspeed.extra"} - set(derived) == set()
    for junk in ("zero_optimization.offload_", "from_pretrained", "deepspeed_config.zero_optimization.stage",
                 "accelerator.clip_grad_norm_", "batch_size", "torch_dtype"):
        assert junk not in derived
    for path, sid in derived.items():
        assert written[path] == sid, (path, sid, written[path])


def test_native_names_are_library_keys_the_wizard_writes():
    written = {path.rsplit(".", 1)[-1] for path in _every_rendered_key()}
    for name, hint in native_names().items():
        assert name in written or "fsdp_" + name in written, name
        assert hint.split(" ", 1)[0] in SETTING_BY_ID, hint
    assert native_hint("zero_stage").startswith("sharding.strategy (full = 3, grads_optimizer = 2")
    assert native_hint("offload_params") == "offload.optimizer and offload.params"  # FSDP: both or nothing
    assert native_hint("state_dict_type") == ("checkpoint.format (full = FULL_STATE_DICT, "
                                              "sharded = SHARDED_STATE_DICT, "
                                              "local = LOCAL_STATE_DICT)")


ALL_WRITES = [(s, t, w) for s in SETTINGS for t, ws in s.writes.items() for w in ws]


@pytest.mark.parametrize("setting,target,write", ALL_WRITES, ids=[f"{s.id}-{t}-{w.key}" for s, t, w in ALL_WRITES])
def test_every_declared_key_is_one_the_libraries_read(setting, target, write):
    assert target in TARGETS and target not in setting.not_applicable, (setting.id, target)
    section, _, name = write.key.rpartition(".")
    if write.file == JSON:
        assert target == DEEPSPEED
        top = write.key.split(".", 1)[0]
        assert top in ds_schema.top_level_keys(), write.key
        if section == "zero_optimization":
            assert name in ds_schema.model_keys("zero_optimization"), write.key
    else:
        assert write.file == YAML
        if section == "fsdp_config":
            assert name in FSDP_KEYS and target != DEEPSPEED
        elif section == "deepspeed_config":
            assert name in DS_INLINE_KEYS and target == DEEPSPEED
        elif section == "dynamo_config":
            assert name in DYNAMO_KEYS
        elif section == "parallelism_config":
            assert name.startswith(PC)
        elif section == "fp8_config":  # the launcher prepends fp8_ where it is missing
            assert "fp8_" + name.removeprefix("fp8_") in FP8_KEYS, write.key
        else:
            assert section == "" and name in CLUSTER_FIELDS, write.key
    if write.values is not None and setting.kind == "choice":
        assert set(write.values) == set(setting.choices), (setting.id, write.key)
    if write.when == CUSTOM:
        assert not write.effective, "a key render.py writes by hand is compared by hand"


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.id)
def test_where_lines_name_their_keys(setting):
    for target, line in setting.where.items():
        writes = setting.writes.get(target, ())
        if writes:  # the line is about the keys it is written to (prose beside the data, not instead of it)
            assert any(w.key.rsplit(".", 1)[-1] in line for w in writes), (setting.id, target, line)
        assert "{keys}" not in line
