"""The estimate's peak against a real training step on CPU: torch's MemTracker follows every tensor a transformers
Llama (bf16, torch AdamW) creates over forward, backward and the optimizer step, two steps in a row, with one and
with two micro-batches per step. The peak must come out where the estimate puts it (the loss, not the sum of every
part), and the gap between the two runs must be the gradients that accumulation keeps."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from wizard.core.answers import default_answers  # noqa: E402
from wizard.core.memory.estimate import CUDA_CONTEXT_BYTES, estimate  # noqa: E402
from wizard.core.memory.shapes import ModelShape  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _act_census as act  # noqa: E402  (benchmarks/memory.py measures the same with a larger model)

H, INNER, LAYERS, HEADS, KV, VOCAB, SEQ, BATCH = 256, 704, 2, 4, 2, 8192, 256, 2


def _measure(accumulation: int) -> tuple[int, int]:
    model = act.llama(LAYERS, h=H, inner=INNER, heads=HEADS, kv=KV, vocab=VOCAB)
    ids = torch.randint(VOCAB, (BATCH, SEQ), generator=torch.Generator().manual_seed(0))
    return act.step_peak(model, ids, accumulation), sum(p.numel() for p in model.parameters())


def _estimate(accumulation: int):
    a = default_answers().replace({"backend": "fsdp", "fsdp_version": 1, "launch.num_processes": 1,
                                   "sharding.strategy": "none", "precision.mixed_precision": "no",
                                   "precision.model_dtype": "bf16",
                                   "training.gradient_accumulation_steps": accumulation})
    shape = ModelShape(name="llama-tiny", family="llama", vocab_size=VOCAB, hidden_size=H, num_layers=LAYERS,
                       num_heads=HEADS, num_kv_heads=KV, intermediate_size=INNER)
    return estimate(a, shape=shape, batch=BATCH, seq=SEQ)


@pytest.fixture(scope="module")
def runs():
    return {ga: _measure(ga) for ga in (1, 2)}


@pytest.mark.parametrize("accumulation", [1, 2])
def test_the_peak_is_the_highest_moment_within_15_percent(runs, accumulation):
    measured, params = runs[accumulation]
    e = _estimate(accumulation)
    assert e.params == params
    predicted = e.per_rank.gpu_bytes - CUDA_CONTEXT_BYTES  # the tracker sees tensors, no CUDA context
    assert predicted == pytest.approx(measured, rel=0.15), (predicted / 2 ** 20, measured / 2 ** 20)
    assert e.per_rank.phase == "loss"
    every_part = sum(e.per_rank.breakdown.values()) - e.per_rank.breakdown["optimizer_step"] - CUDA_CONTEXT_BYTES
    if accumulation == 1:  # adding every part as if at one moment overstates the step by its gradients
        assert every_part > measured * 1.10


def test_accumulation_adds_exactly_the_gradients_at_the_loss(runs):
    gap = runs[2][0] - runs[1][0]
    grads = _estimate(1).per_rank.breakdown["gradients"]
    assert gap == pytest.approx(grads, rel=0.02)
    assert _estimate(2).per_rank.gpu_bytes - _estimate(1).per_rank.gpu_bytes == grads
