"""wizard.core.memory.report: the shared labels and the FSDP / DeepSpeed bytes per parameter of the precision answers;
wizard.tui.shared.session's memory fields (what the Memory screen and --model/--gpu-memory/--seq accept)."""
from __future__ import annotations

import pytest

from wizard.core.answers import default_answers
from wizard.core.bounds import count_value
from wizard.core.memory.estimate import BREAKDOWN_KEYS, HOST_KEYS, estimate, state_bytes
from wizard.core.memory.report import LABELS, fmt_bytes, state_bytes_rows
from wizard.core.memory.shapes import shape_by_name
from wizard.tui.shared.session import MEMORY_FIELDS, memory_fields


def test_labels_cover_every_part_and_the_cli_uses_them():
    assert set(LABELS) == set(BREAKDOWN_KEYS) | set(HOST_KEYS)
    from wizard.commands import estimate as command

    e = estimate(default_answers(), shape=shape_by_name("gpt2"), gpu_memory_gib=80)
    text = command.text_report(e)
    for key in BREAKDOWN_KEYS:
        assert LABELS[key] in text


@pytest.mark.parametrize(("changes", "fsdp", "ds"), [
    # bf16 weights, no mixed precision, 2 processes: FSDP keeps bf16 states (4 B/param per GPU), DeepSpeed fp32
    # master weights and Adam states (8): the guide's upcast, in numbers
    ({"precision.mixed_precision": "no", "precision.model_dtype": "bf16"}, (2, 2, 4, 4), (2, 2, 12, 8)),
    # mixed precision: accelerate upcasts FSDP's shards to fp32
    ({"precision.mixed_precision": "bf16"}, (4, 4, 8, 8), (2, 2, 12, 8)),
    # DeepSpeed's bf16 master weights and optimizer states
    ({"precision.mixed_precision": "bf16", "precision.ds_bf16_master_weights": "bf16_with_states",
      "launch.num_processes": 4}, (4, 4, 8, 4), (2, 2, 6, 2.5)),
    # ZeRO-1 intent on 4 processes: only DeepSpeed's optimizer states are sharded
    ({"precision.mixed_precision": "bf16", "sharding.strategy": "optimizer", "launch.num_processes": 4},
     (4, 4, 8, 4), (2, 2, 12, 7)),
])
@pytest.mark.parametrize("backend", ["fsdp", "deepspeed"])
def test_rows_for_both_backends(backend, changes, fsdp, ds):
    a = default_answers().replace({**changes, "backend": backend})
    rows = state_bytes_rows(a)
    assert [r.backend for r in rows] == ["fsdp", "deepspeed"]
    for row, want in zip(rows, (fsdp, ds), strict=True):
        assert (row.parameters, row.gradients, row.optimizer_states, row.per_gpu) == want
        n = int(a["launch.num_processes"])
        st = state_bytes(row.answers, n, n)
        assert row.per_gpu == st.param / st.param_div + st.grad / st.grad_div + st.optim / st.optim_div
    assert rows[0 if backend == "fsdp" else 1].answers is a  # the current answers themselves


def test_per_gpu_matches_the_estimate_states():
    a = default_answers().replace({"backend": "deepspeed", "launch.num_processes": 8})
    e = estimate(a, params=10 ** 9)
    states = sum(e.per_rank.breakdown[k] for k in ("parameters", "gradients", "optimizer_states"))
    assert abs(state_bytes_rows(a)[1].per_gpu * 10 ** 9 - states) <= 3


def test_fmt_bytes():
    assert [fmt_bytes(x) for x in (4.0, 2.5, 0.0625, 12)] == ["4", "2.5", "0.06", "12"]


@pytest.mark.parametrize(("text", "count"), [("8000000000", 8 * 10 ** 9), ("8_000_000_000", 8 * 10 ** 9),
                                              ("8e9", 8 * 10 ** 9), ("8B", 8 * 10 ** 9), ("1.5b", 15 * 10 ** 8),
                                              ("350M", 350 * 10 ** 6), ("gpt2", None), ("", None)])
def test_parse_count(text, count):
    assert count_value(text) == count


def test_memory_fields_messages_name_the_field(tmp_path):
    ctx, errors = memory_fields({"model": "gpt2", "gpu_memory": "eighty", "seq": "2.5", "batch": "0",
                                 "host_memory": "-4"})
    assert ctx.shape.name == "gpt2" and ctx.gpu_memory_gib is None and ctx.seq is None
    assert set(errors) == {"gpu_memory", "seq", "batch", "host_memory"}
    for name, message in errors.items():
        assert message.startswith(MEMORY_FIELDS[name] + ": ")
    ctx, errors = memory_fields({"model": str(tmp_path / "config.json")})
    assert ctx.has_model is False and errors["model"].startswith("Model: ")
    ctx, errors = memory_fields({"model": "0"})
    assert errors["model"].startswith("Model: ")
    cfg = tmp_path / "c.json"
    cfg.write_text('{"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 4, "vocab_size": 100, '
                   '"n_positions": 32}')
    ctx, errors = memory_fields({"model": str(cfg), "gpu_memory": "16", "seq": "32"})
    assert errors == {} and ctx.shape is not None and ctx.gpu_memory_gib == 16.0 and ctx.seq == 32
    assert ctx.estimate(default_answers()).seq == 32
