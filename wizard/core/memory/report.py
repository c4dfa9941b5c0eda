"""Words and small tables about an estimate, shared by ``fsdpds-wizard estimate`` and the TUI. Pure, stdlib only.

- :data:`LABELS`: the name of every part of :class:`~.estimate.Estimate`'s per-rank and per-host breakdowns;
- :func:`state_bytes_rows`: the model-state bytes per parameter of the current precision answers for FSDP and for
  DeepSpeed ZeRO side by side (the same answers with the backend switched), from
  :func:`~.estimate.state_bytes`, so the guide's point about fp32 master weights reads as numbers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..i18n import said

if TYPE_CHECKING:
    from ..answers import Answers

LABELS = {"parameters": "parameters", "gradients": "gradients", "optimizer_states": "optimizer states",
          "gathered": "gathered units (current + prefetched)", "buckets": "communication buckets",
          "activations": "activations", "logits": "logits and the loss (fp32 softmax, gradients)",
          "optimizer_step": "optimizer step temporaries",
          "overhead": "CUDA context (constant)",
          "offloaded_parameters": "offloaded parameters", "offloaded_gradients": "offloaded gradients",
          "offloaded_optimizer_states": "offloaded optimizer states",
          "offloaded_activations": "offloaded activation checkpoints", "pinned_buffers": "pinned NVMe buffers",
          "model_load": "loading the model"}
"""Every key of ``Estimate.per_rank.breakdown`` and ``Estimate.host_breakdown``, in words (the same English as the
``part.*`` words of :mod:`wizard.core.localized.screens.memory`, which a face in another language shows; a test keeps
them equal)."""

PHASE_LABELS = {"loss": "the loss (start of backward)", "backward": "the end of backward",
                "optimizer_step": "the optimizer step"}
"""Every moment of ``Estimate.per_rank.phases``, in words."""


def at_peak(e) -> dict[str, int]:
    """Bytes of each breakdown part the peak's moment holds (its own size less ``not_at_peak``)."""
    return {k: v - e.per_rank.not_at_peak.get(k, 0) for k, v in e.per_rank.breakdown.items()}


def peak_line(e) -> str:
    """Where the peak falls and what the other moments hold, in one sentence (one ``said`` sentence per moment of the
    peak, the other two moments' GiB in :data:`PHASE_LABELS`' order)."""
    pr = e.per_rank
    gib = {k: f"{v / 2 ** 30:.2f}" for k, v in pr.phases.items()}
    if pr.phase == "loss":
        return said(f"peak at the loss (start of backward); end of backward {gib['backward']}, optimizer step "
                    f"{gib['optimizer_step']} GiB")
    if pr.phase == "backward":
        return said(f"peak at the end of backward; loss {gib['loss']}, optimizer step {gib['optimizer_step']} GiB")
    return said(f"peak at the optimizer step; loss {gib['loss']}, end of backward {gib['backward']} GiB")


@dataclass(frozen=True)
class StateBytesRow:
    """Model-state bytes per parameter (Adam) for one backend, before offload."""

    answers: Answers
    """The answers for this backend (the current ones, or them with the backend switched)."""
    parameters: float
    gradients: float
    optimizer_states: float
    """Bytes per parameter before sharding."""
    per_gpu: float
    """Bytes per parameter one GPU keeps at ``ranks`` processes (each part divided by what it is sharded over)."""
    ranks: int

    @property
    def backend(self) -> str:
        return self.answers.backend

    @property
    def total(self) -> float:
        return self.parameters + self.gradients + self.optimizer_states


def _row(a: Answers) -> StateBytesRow:
    from .estimate import layout_of, state_bytes

    lay = layout_of(a)  # the layout of the config written from the answers, as estimate() takes it
    n = lay.processes
    st = state_bytes(lay)
    per_gpu = st.param / st.param_div + st.grad / st.grad_div + st.optim / st.optim_div
    return StateBytesRow(a, float(st.param), float(st.grad), float(st.optim), per_gpu, n)


def state_bytes_rows(answers: Answers) -> tuple[StateBytesRow, StateBytesRow]:
    """(FSDP, DeepSpeed): the answers as they are for their own backend, and with the backend switched (the same
    precision, sharding intent and process count)."""
    fsdp = answers if answers.backend == "fsdp" else answers.replace({"backend": "fsdp"})
    ds = answers if answers.backend == "deepspeed" else answers.replace({"backend": "deepspeed"})
    return _row(fsdp), _row(ds)


def fmt_bytes(x: float) -> str:
    """A bytes-per-parameter figure: ``4``, ``2.5``, ``0.06``."""
    if x == int(x):
        return str(int(x))
    return f"{x:.2f}".rstrip("0").rstrip(".")


__all__ = ["LABELS", "PHASE_LABELS", "StateBytesRow", "at_peak", "fmt_bytes", "peak_line", "state_bytes_rows"]
