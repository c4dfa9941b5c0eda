"""Memory estimate (issue 10): per-rank GPU and per-host CPU bytes for an exact config and model, without torch.

- :mod:`.shapes`: the model's architecture numbers (:class:`ModelShape`), shipped shapes, a transformers
  ``config.json`` reader, parameter counting (and an exact build on the meta device for other architectures).
- :mod:`.estimate`: the breakdown per rank (parameters, gradients, optimizer states, gathered units, buckets,
  activations, overhead) for FSDP1/FSDP2/DeepSpeed answers.
- :mod:`.deepspeed_estimator`: DeepSpeed 0.19's own estimator functions, restated (equal to them to the byte).

Stdlib only at import time.
"""
