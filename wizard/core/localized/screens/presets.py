"""The bundled presets' descriptions (the comment header of each ``templates/*.yaml``, as
``wizard.core.presets.describe`` reads it), keyed by preset name: ``fsdpds-wizard presets`` shows them in the
language (:func:`wizard.core.presets.description`). A description that is not this English (a preset of the user's
own ``FSDPDS_TEMPLATES``, or an edited one) is shown as written; tests/headless/test_headless_lines_languages.py
holds these to the bundled files."""
from __future__ import annotations

WORDS: dict[str, str] = {
    "deepspeed-ulysses": (
        "DeepSpeed ZeRO-3 with Ulysses sequence parallelism (ALST) for long sequences, one machine with 8 "
        "GPUs: sp 4 x dp_shard 2 (derived). sp must fit the model's heads: check CONFIG --model NAME tests "
        "it. Needs deepspeed>=0.18.2."),
    "fsdp-cpu-offload": (
        "FSDP2 full shard with CPU offload: FSDP offloads parameters, gradients and the optimizer step "
        "together."),
    "fsdp1-shard-grad-op-compile": (
        "FSDP1 SHARD_GRAD_OP (ZeRO-2 equivalent) with torch.compile: needs use_orig_params."),
    "fsdp2-full-shard-bf16": (
        "FSDP2, everything sharded (the FULL_SHARD / ZeRO-3 equivalent), bf16 mixed precision, one machine "
        "with 8 GPUs."),
    "fsdp2-tp": (
        "FSDP2 with tensor parallelism on one machine with 8 GPUs: tp 2 x dp_shard 4 (derived). Needs "
        "transformers 4.52 to 5.0 with accelerate 1.15: with 5.1 or later the wizard reports parallelism-"
        "fsdp2-tp-transformers, writes nothing (--transformers-version 5.0.0, or a launch where 5.0 is "
        "installed, writes it)."),
    "fsdp2-two-node": (
        "FSDP2 on two machines with 8 GPUs each: hybrid sharding (HSDP), sharded inside a machine, replicated"
        " across. Run the same command on both machines with launch.machine_rank 0 and 1."),
    "zero2": (
        "DeepSpeed ZeRO-2: optimizer state and gradients partitioned, parameters replicated."),
    "zero3-cpu-offload": (
        "DeepSpeed ZeRO-3 with the optimizer state and the parameters offloaded to CPU."),
    "zero3-nvme-offload": (
        "DeepSpeed ZeRO-3 with NVMe offload (ZeRO-Infinity). The NVMe folder goes through a DeepSpeed JSON, "
        "because accelerate launch never passes inline NVMe paths on to DeepSpeed."),
    "zero3-two-node": (
        "DeepSpeed ZeRO-3 on two machines with 8 GPUs each, started with the 'standard' (torchrun-style) "
        "launcher: run the same command on both machines with launch.machine_rank 0 and 1."),
}
"""Each bundled preset's description, by its name (the file name without ``.yaml``)."""
