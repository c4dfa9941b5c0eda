"""wizard.core.texts: coverage of the catalogue, screen-size limits, the dtype table, own wording."""
from __future__ import annotations

import ast
import itertools
import re
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from wizard.core import catalog, texts
from wizard.core.recordclass import fields as record_fields
from wizard.core.texts import GROUP_TEXTS, TEXTS, GroupText, PrecisionRow, Text, precision_notes, precision_table

MAX_FIELD = 900
SEEDS = Path("/work/shared/reference/seeds")
RUN = 12


def _all_fields():
    for key, t in TEXTS.items():
        for f in record_fields(Text):
            if f.name != "claims":
                yield f"TEXTS[{key}].{f.name}", getattr(t, f.name)
    for key, g in GROUP_TEXTS.items():
        for f in record_fields(GroupText):
            if f.name != "claims":
                yield f"GROUP_TEXTS[{key}].{f.name}", getattr(g, f.name)
    for md, mp in itertools.product(texts.MODEL_DTYPES, texts.MIXED_PRECISIONS):
        for i, note in enumerate(precision_notes(md, mp)):
            yield f"precision_notes({md},{mp})[{i}]", note


# ---------------------------------------------------------------------- coverage


def test_every_setting_has_a_text():
    ids = {s.id for s in catalog.SETTINGS}
    assert ids - set(TEXTS) == set(), "settings without a text"
    assert set(TEXTS) - ids == set(), "texts for settings the catalogue does not have"


@pytest.mark.parametrize("sid", [s.id for s in catalog.SETTINGS])
def test_text_fields_are_filled(sid):
    t = TEXTS[sid]
    assert isinstance(t, Text)
    for name in ("what", "fsdp", "deepspeed"):
        value = getattr(t, name)
        assert isinstance(value, str) and value.strip(), f"{sid}.{name} is empty"
    assert isinstance(t.versions, str) and isinstance(t.tips, str)


def test_every_group_has_a_group_text():
    ids = {g.id for g in catalog.GROUPS}
    assert ids - set(GROUP_TEXTS) == set()
    assert set(GROUP_TEXTS) - ids == set()
    for gid, g in GROUP_TEXTS.items():
        assert isinstance(g, GroupText)
        for f in record_fields(GroupText):
            if f.name != "claims":
                assert getattr(g, f.name).strip(), f"{gid}.{f.name} is empty"


def test_no_field_is_too_long_for_the_screen():
    too_long = [(where, len(v)) for where, v in _all_fields() if len(v) > MAX_FIELD]
    assert too_long == []


def test_dtype_lists_match_the_catalogue():
    assert set(texts.MODEL_DTYPES) == set(catalog.SETTING_BY_ID["precision.model_dtype"].choices)
    assert set(texts.MIXED_PRECISIONS) == set(catalog.SETTING_BY_ID["precision.mixed_precision"].choices)


# ---------------------------------------------------------------------- content checks (pitfalls named)


def test_known_pitfalls_are_explained():
    t = TEXTS
    # FSDP1 strategy key (accelerate launch ignores fsdp_reshard_after_forward for v1)
    assert "fsdp_sharding_strategy" in t["sharding.strategy"].versions
    assert "fsdp_reshard_after_forward" in t["sharding.strategy"].versions
    # inline NVMe paths are never exported
    assert "JSON" in t["offload.nvme_path"].versions
    # no clipping = 0.0, missing = 1.0
    assert "0.0" in t["training.gradient_clipping"].versions and "1.0" in t["training.gradient_clipping"].versions
    # integer min_num_params
    assert "1e8" in t["wrapping.min_num_params"].versions
    # FSDP2 removals
    assert "FSDP2" in t["prefetch.backward"].fsdp and "FSDP2" in t["summoning.use_orig_params"].fsdp
    assert "FSDP2" in t["sync.module_states"].fsdp
    assert "LOCAL_STATE_DICT" in t["checkpoint.format"].versions
    assert "fsdp_version: 2" in t["training.activation_checkpointing_offload"].fsdp
    assert "ZeRO-3" in t["loading.ram_efficient"].deepspeed


def test_group_no_counterparts_name_the_gaps():
    g = GROUP_TEXTS
    assert "ZeRO-1" in g["sharding"].no_counterpart and "HYBRID_SHARD_ZERO2" in g["sharding"].no_counterpart
    assert "all or nothing" in g["offload"].no_counterpart and "NVMe" in g["offload"].no_counterpart
    assert "FSDP2" in g["prefetch"].no_counterpart


# ---------------------------------------------------------------------- precision table


@pytest.mark.parametrize("md,mp", list(itertools.product(texts.MODEL_DTYPES, texts.MIXED_PRECISIONS)))
def test_precision_table_covers_every_combination(md, mp):
    rows = precision_table(md, mp)
    assert [r.backend for r in rows] == ["FSDP1", "FSDP2", "DeepSpeed"]
    for r in rows:
        assert isinstance(r, PrecisionRow)
        assert r.load == md
        for f in fields(PrecisionRow):
            assert getattr(r, f.name), f"{md}/{mp} {r.backend}.{f.name} empty"
    fsdp1, fsdp2, ds = rows
    # DeepSpeed's ZeRO optimizers keep fp32 master weights and state by default; the module itself is cast
    assert ds.optimizer_state == "fp32" and ds.autocast == "no" and ds.upcast == "fp32 master"
    module = md if mp == "no" else {"fp16": "fp16", "bf16": "bf16", "fp8": "bf16"}[mp]
    assert ds.flat_params_or_prepared == ("fp32" if module == "fp32" else f"{module} module + fp32 master")
    assert ds.bytes_per_param == {"fp32": "20", "bf16": "16 (bf16 masters: 10)", "fp16": "16"}[module]
    for fsdp in (fsdp1, fsdp2):
        if mp == "no":
            assert (fsdp.flat_params_or_prepared, fsdp.training_compute, fsdp.optimizer_state,
                    fsdp.checkpoint) == (md,) * 4
            assert (fsdp.autocast, fsdp.upcast) == ("no", "none")
            assert fsdp.bytes_per_param == {"fp32": "16", "bf16": "8", "fp16": "8"}[md]
            assert ds.training_compute == md
        else:
            assert fsdp.optimizer_state == "fp32"
            # only what accelerate upcasts is fp32; frozen weights outside it keep the load dtype (issue 23 item 5)
            frozen = {"FSDP1": f"fp32 (all-frozen units: {md})", "FSDP2": f"fp32 (frozen: {md})"}[fsdp.backend]
            assert fsdp.flat_params_or_prepared == fsdp.checkpoint == ("fp32" if md == "fp32" else frozen)
            assert fsdp.training_compute == ds.training_compute and fsdp.bytes_per_param == "16"
            assert mp[:2] in fsdp.training_compute  # fp16 / bf16 / fp8 named
    if mp != "no":  # FSDP1: autocast, whole units upcast; FSDP2: no autocast, trainable parameters only
        assert fsdp1.autocast == "yes" and fsdp2.autocast == "no"
        assert (fsdp1.upcast, fsdp2.upcast) == (("whole unit", "trainable only") if md != "fp32" else ("none",) * 2)
    assert precision_notes(md, mp), "every combination has at least one note"


@pytest.mark.parametrize("md,mp", list(itertools.product(texts.MODEL_DTYPES, texts.MIXED_PRECISIONS)))
def test_precision_table_agrees_with_its_notes(md, mp):
    """A note saying DeepSpeed converts the model to a dtype means the table's params column names it."""
    import re

    ds = _row("DeepSpeed", md, mp)
    for note in precision_notes(md, mp):
        for dtype in re.findall(r"DeepSpeed (?:converts the model itself to|casts the model to) (\w+)", note):
            assert ds.flat_params_or_prepared.startswith(dtype), (note, ds)


def _row(backend, md, mp):
    return next(r for r in precision_table(md, mp) if r.backend == backend)


def _core(r):
    return (r.flat_params_or_prepared, r.training_compute, r.optimizer_state)


def test_precision_table_matches_the_guide_rows():
    for v in ("FSDP1", "FSDP2"):
        assert _core(_row(v, "bf16", "no")) == ("bf16", "bf16", "bf16")
        params, compute, state = _core(_row(v, "bf16", "bf16"))
        assert params.startswith("fp32 (") and "bf16" in params and (compute, state) == ("bf16", "fp32")
    # the guide says fp32: that is the master partition; the module itself runs in bf16 (engine casts it)
    assert _core(_row("DeepSpeed", "bf16", "bf16")) == ("bf16 module + fp32 master", "bf16", "fp32")


def test_precision_notes_name_the_low_precision_optimizer_mode():
    notes = " ".join(precision_notes("bf16", "no"))
    assert "Adam state in bf16" in notes and "fp32 master" in notes
    assert any("loss scaling" in n for n in precision_notes("fp16", "no"))
    assert any("Upcasted low precision parameters" in n for n in precision_notes("bf16", "bf16"))
    assert not any("Upcasted" in n for n in precision_notes("fp32", "bf16"))
    assert any("MS-AMP" in n for n in precision_notes("bf16", "fp8"))


def test_precision_rejects_unknown_values():
    with pytest.raises(ValueError):
        precision_table("fp64", "no")
    with pytest.raises(ValueError):
        precision_notes("bf16", "int8")


# ---------------------------------------------------------------------- own words


def _words(s: str) -> list[str]:
    return [w for w in re.sub(r"[^\w\-\.]+", " ", s.lower()).split() if w.strip(".-")]


@pytest.mark.skipif(not SEEDS.is_dir(), reason="seed files not present")
def test_no_twelve_word_run_is_copied_from_the_seeds():
    seed_grams: set[tuple[str, ...]] = set()
    seed_files = sorted(SEEDS.glob("*.txt"))
    assert seed_files
    for path in seed_files:
        w = _words(path.read_text(encoding="utf-8"))
        seed_grams.update(tuple(w[i:i + RUN]) for i in range(len(w) - RUN + 1))
    copied = []
    for where, value in _all_fields():
        w = _words(value)
        copied += [(where, " ".join(w[i:i + RUN])) for i in range(len(w) - RUN + 1)
                   if tuple(w[i:i + RUN]) in seed_grams]
    assert copied == []


def test_texts_module_imports_only_the_stdlib():
    tree = ast.parse(Path(texts.__file__).read_text(encoding="utf-8"))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            roots.add(node.module.split(".")[0])
    assert roots <= set(sys.stdlib_module_names) | {"__future__"}, roots
