"""DeepSpeed 0.19's own model-state estimators, restated in our code (stdlib only, no deepspeed import).

DeepSpeed ships two functions that estimate the memory its ZeRO stages need for the model states of a model:
``estimate_zero2_model_states_mem_needs`` (``deepspeed/runtime/zero/stage_1_and_2.py:4017``) and
``estimate_zero3_model_states_mem_needs`` (``deepspeed/runtime/zero/stage3.py:4016``), DeepSpeed 0.19.8. They are
restated here with the same arguments and the same results in bytes, the arithmetic done in the same order (the
float products are truncated with ``int`` exactly where DeepSpeed truncates them), so that the estimate can show
DeepSpeed's numbers next to ours without importing deepspeed (and torch). ``tests/verify/
test_memory_deepspeed_estimator.py`` compares them with the installed functions over a grid, to the byte.

What the multipliers mean (DeepSpeed's own comments and docs, paraphrased):

- ZeRO-2 without offload: 2 bytes per parameter of 16-bit parameters on every GPU, and 18 bytes per parameter
  (16-bit and 32-bit gradients, 32-bit master parameters, two 32-bit Adam moments) split across all GPUs.
- ZeRO-2 with the optimizer offloaded: 2 bytes of 16-bit parameters on the GPU; the host holds
  ``max(4 * gpus, 16)`` bytes per parameter times a buffer factor.
- ZeRO-3: 4 bytes per parameter of the largest layer (its 16-bit parameters gathered and 16-bit gradients
  computed) plus the 18 bytes per parameter split across the GPUs (or moved to the host with offload);
  ``zero_init`` (``deepspeed.zero.Init``) decides whether every process first builds the whole model in fp32 on
  the host (4 bytes per parameter per GPU of the node) or only its share.
- ``additional_buffer_factor`` (1.5 by default) is DeepSpeed's allowance for host buffers.

These are model states only: no activations, buckets or CUDA context (the estimate in :mod:`.estimate` adds them).
Before DeepSpeed 0.14.3 (PR #5099, June 2024) the ZeRO-2 line without offload was ``4Ψ + 16Ψ/N``; DeepSpeed's
published docs still print numbers from that older formula.
"""
from __future__ import annotations

DEEPSPEED_VERSION = "0.19.8"
"""The DeepSpeed release whose functions are restated (and checked against in the tests)."""

ADDITIONAL_BUFFER_FACTOR = 1.5
"""DeepSpeed's default ``additional_buffer_factor`` for host memory (same signature default in both functions)."""


def estimate_zero2_model_states_mem_needs(total_params: int, num_gpus_per_node: int = 1, num_nodes: int = 1,
                                          cpu_offload: bool = True,
                                          additional_buffer_factor: float = ADDITIONAL_BUFFER_FACTOR,
                                          ) -> tuple[int, int]:
    """``(cpu_bytes, gpu_bytes)`` as DeepSpeed 0.19.8's function of the same name returns them."""
    total_gpus = num_nodes * num_gpus_per_node
    if cpu_offload:
        gpu_mem = 2 * total_params
        cpu_mem = total_params * max(4 * total_gpus, 16) * additional_buffer_factor
    else:
        gpu_mem = 2 * total_params + int(18 * total_params / total_gpus)
        cpu_mem = total_params * 4 * num_gpus_per_node * additional_buffer_factor
    return int(cpu_mem), int(gpu_mem)


def estimate_zero3_model_states_mem_needs(total_params: int, largest_layer_params: int, num_gpus_per_node: int = 1,
                                          num_nodes: int = 1, cpu_offload: bool = True,
                                          cpu_offload_params: bool = True, zero_init: bool = True,
                                          additional_buffer_factor: float = ADDITIONAL_BUFFER_FACTOR,
                                          ) -> tuple[int, int, int]:
    """``(cpu_bytes, gpu_bytes, largest_layer_bytes)`` as DeepSpeed 0.19.8's function of the same name returns
    them. ``cpu_offload_params`` only counts together with ``cpu_offload`` (as in DeepSpeed)."""
    total_gpus = num_nodes * num_gpus_per_node
    gpus_factor = 1 / num_nodes
    largest_layer_memory = 4 * largest_layer_params
    abf = additional_buffer_factor
    if cpu_offload:
        if cpu_offload_params:
            gpu_mem = largest_layer_memory
            if zero_init:
                cpu_mem = total_params * 18 * gpus_factor * abf
            else:
                cpu_mem = total_params * max(4 * num_gpus_per_node, 18 * gpus_factor) * abf
        else:
            gpu_mem = largest_layer_memory + int(2 * total_params / total_gpus)
            if zero_init:
                cpu_mem = total_params * 16 * gpus_factor * abf
            else:
                cpu_mem = total_params * max(4 * num_gpus_per_node, 16 * gpus_factor) * abf
    else:
        gpu_mem = largest_layer_memory + int(18 * total_params / total_gpus)
        if zero_init:
            cpu_mem = largest_layer_params * 4 * num_gpus_per_node * abf
        else:
            cpu_mem = total_params * 4 * num_gpus_per_node * abf
    return int(cpu_mem), int(gpu_mem), largest_layer_memory


__all__ = ["ADDITIONAL_BUFFER_FACTOR", "DEEPSPEED_VERSION", "estimate_zero2_model_states_mem_needs",
           "estimate_zero3_model_states_mem_needs"]
