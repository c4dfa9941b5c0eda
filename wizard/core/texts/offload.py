"""The explanations of the group ``offload``: its settings (``TEXTS``) and its overview (``GROUP``)."""
from __future__ import annotations

from .model import GroupText, Text

TEXTS: dict[str, Text] = {
    "offload.optimizer": Text(
        what="Moves optimizer state (fp32 master weights and Adam moments: 12 bytes per parameter with mixed "
             "precision) and the optimizer step off the GPU, to host RAM or, with DeepSpeed, NVMe. Frees the "
             "largest block of GPU memory but adds PCIe traffic and a CPU-side step; expect a clear slowdown.",
        fsdp="No optimizer-only offload. Any offload answer turns on fsdp_offload_params, which moves "
             "parameters, gradients and the optimizer step to CPU together (all or nothing). NVMe is not "
             "available and is treated as CPU.",
        deepspeed="offload_optimizer_device inline, zero_optimization.offload_optimizer.device in a JSON. cpu "
                  "works at ZeRO-1/2/3. accelerate replaces the script's torch optimizer by a DeepSpeed CPU "
                  "optimizer built from its parameter groups (which one, and what it keeps: claim "
                  "ds-offload-replaces-torch-optimizer); an optimizer that is not AdamW, Adagrad or bitsandbytes "
                  "Lion (SGD too) runs as Adam. nvme only takes effect at ZeRO-3; stages 1-2 quietly "
                  "treat it as cpu. Stage 0 cannot offload (CPUAdam would assert), so the wizard writes none there.",
        versions="accelerate config offers offload only from stage 2 and offers nvme at stage 2, where it is "
                 "cpu in practice. Partial offload (ratio < 1) is ZeRO-3 only, via extra JSON. The CPU optimizer "
                 "is JIT-built on first use, which takes about a minute.",
        claims=("ds-offload-replaces-torch-optimizer", "ds-nvme-optimizer-offload-below-zero3-is-cpu",
                "ds-offload-optimizer-stage0-asserts", "ds-accelerate-config-offload-questions",
                "ds-partial-offload-zero3-only", "ds-cpu-optimizer-built-on-first-use"),
    ),
    "offload.params": Text(
        what="Keeps the parameter shards in host RAM (or NVMe with DeepSpeed) and copies each piece to the GPU "
             "only while it is used. Lets models larger than all GPU memory together train, at a large speed "
             "cost; it only makes sense with full sharding.",
        fsdp="The same single switch, fsdp_offload_params: FSDP1 CPUOffload(offload_params=True), FSDP2 "
             "CPUOffloadPolicy(). Parameters, gradients and the optimizer step all move to CPU.",
        deepspeed="offload_param_device inline, zero_optimization.offload_param.device in a JSON. ZeRO-3 only: "
                  "stages 1-2 accept the block and never use it, so the wizard writes none there. Independent "
                  "of optimizer offload.",
        versions="accelerate config asks about parameter offload at stage 2, where it has no effect.",
        claims=("fsdp-offload-single-switch", "ds-offload-blocks-independent", "ds-param-offload-zero3-only",
                "ds-accelerate-config-offload-questions"),
    ),
    "offload.nvme_path": Text(
        what="Folder on a fast local NVMe drive where DeepSpeed (ZeRO-Infinity) swaps offloaded tensors. It "
             "needs room for the offloaded state and DeepSpeed's async_io op, which needs libaio.",
        fsdp="Not applicable: FSDP cannot offload to NVMe.",
        deepspeed="zero_optimization.offload_optimizer.nvme_path and/or offload_param.nvme_path, written only "
                  "to the DeepSpeed JSON. Effective at ZeRO-3 only.",
        versions="accelerate launch never exports the inline offload_*_nvme_path keys, so DeepSpeed receives "
                 "the literal relative path 'none'. The wizard therefore always puts NVMe settings in a "
                 "DeepSpeed JSON. A missing path with device nvme fails late, inside ZeRO-3 set-up.",
        claims=("ds-nvme-needs-aio-and-path", "fsdp-offload-single-switch", "ds-offload-blocks-independent",
                "ds-nvme-optimizer-offload-below-zero3-is-cpu", "ds-param-offload-zero3-only",
                "ds-inline-nvme-path-not-exported"),
    ),
    "offload.pin_memory": Text(
        what="Whether offloaded tensors live in page-locked host memory. Pinning allows fast asynchronous "
             "copies that overlap with compute, but that RAM cannot be swapped out, so the host needs room and "
             "a high enough memlock limit (ulimit -l).",
        fsdp="No switch: FSDP1 pins its offloaded shards by itself, and accelerate builds FSDP2's "
             "CPUOffloadPolicy with its default, which pins.",
        deepspeed="zero_optimization.offload_optimizer.pin_memory / offload_param.pin_memory, JSON only. "
                  "DeepSpeed 0.19 pins by default; writing false switches pinning off.",
        versions="Older guides tell you to set pin_memory: true; in DeepSpeed 0.19 that is already the default, "
                 "and false is the value that changes behaviour.",
        tips="Leave pinning on unless host RAM or the memlock limit is tight.",
        claims=("fsdp-offload-pins", "ds-offload-pin-memory-default", "ds-offload-blocks-independent",
                "ds-inline-unknown-dropped"),
    ),
}

GROUP = GroupText(
        summary="Moving state from GPU to host RAM or disk, trading speed for memory. FSDP has one switch for "
                "everything; DeepSpeed offloads optimizer state and parameters separately, to CPU or NVMe.",
        fsdp="fsdp_offload_params (parameters + gradients + optimizer step to CPU)",
        deepspeed="offload_optimizer_device / zero_optimization.offload_optimizer.*\n"
                  "offload_param_device / zero_optimization.offload_param.* (ZeRO-3)\n"
                  "nvme_path, pin_memory (JSON only)",
        no_counterpart="FSDP offload is all or nothing: 'optimizer only' becomes 'everything'. DeepSpeed NVMe "
                       "offload and the pin_memory switch have no FSDP counterpart. DeepSpeed parameter "
                       "offload needs ZeRO-3.",
        claims=("fsdp-offload-single-switch", "ds-offload-blocks-independent", "ds-param-offload-zero3-only",
                "fsdp-offload-pins", "ds-offload-pin-memory-default"),
    )
