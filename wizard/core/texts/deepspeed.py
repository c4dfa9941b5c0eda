"""The explanations of the group ``deepspeed``: its settings (``TEXTS``) and its overview (``GROUP``)."""
from __future__ import annotations

from .model import GroupText, Text

TEXTS: dict[str, Text] = {
    "deepspeed.config_file": Text(
        what="Whether the wizard writes a separate DeepSpeed JSON and points deepspeed_config_file at it. "
             "Inline YAML keys cover only the stage, offload devices, accumulation, clipping, the ZeRO-3 16-bit "
             "save and zero.Init. auto: write the JSON only when a chosen setting needs it. yes: always. no: "
             "never, and the wizard lists the settings that cannot be carried.",
        fsdp="Not applicable: FSDP lives entirely in fsdp_config.",
        deepspeed="deepspeed_config.deepspeed_config_file. Mixed precision, batch sizes, accumulation and "
                  "clipping then move into the JSON.",
        versions="Next to a config file, the YAML may not carry gradient_accumulation_steps, gradient_clipping, "
                 "zero_stage, offload devices or NVMe paths, zero3_save_16bit_model or mixed_precision: "
                 "accelerate raises. zero3_init_flag, MoE classes and the multi-node launcher keys stay "
                 "allowed. Unknown inline keys, e.g. train_micro_batch_size_per_gpu, are dropped silently.",
        claims=("ds-json-owns-its-keys", "ds-inline-unknown-dropped"),
    ),
    "deepspeed.overlap_comm": Text(
        what="Overlaps gradient reduction with backward compute. Faster backward, but keeps extra bucket "
             "buffers; with ZeRO-2 and 5e8-element buckets that can reach several GB. Left empty, DeepSpeed "
             "turns it on at ZeRO-3 and off at stages 0-2.",
        fsdp="No knob: FSDP always runs its reduce-scatters on a separate stream during backward.",
        deepspeed="zero_optimization.overlap_comm in the DeepSpeed JSON.",
        tips="On, with smaller buckets if memory is tight.",
        claims=("ds-overlap-comm-default", "fsdp-overlaps-on-its-own-streams"),
    ),
    "deepspeed.contiguous_gradients": Text(
        what="Copies each gradient into one pre-allocated buffer as it is produced. Avoids memory "
             "fragmentation in backward and speeds up the reduction. DeepSpeed's default is on.",
        fsdp="No knob. FSDP1 already keeps each unit's gradients in one flat buffer; FSDP2 has no such option.",
        deepspeed="zero_optimization.contiguous_gradients in the DeepSpeed JSON; matters at ZeRO-2 and ZeRO-3.",
        claims=("ds-contiguous-gradients-default", "fsdp1-flat-gradients"),
    ),
    "deepspeed.reduce_bucket_size": Text(
        what="Gradient elements collected before one reduce (or reduce-scatter) is launched. Big buckets mean "
             "fewer, more efficient collectives and more memory for the buffers. DeepSpeed's default is "
             "500,000,000; 'auto' lets accelerate use hidden_size squared.",
        fsdp="No knob: FSDP reduces one wrapped unit at a time, so the wrapping policy sets the size.",
        deepspeed="zero_optimization.reduce_bucket_size in the DeepSpeed JSON (ZeRO-1 to 3).",
        versions="'auto' needs model.config hidden size at prepare().",
        claims=("ds-bucket-defaults", "ds-auto-buckets-from-hidden-size", "fsdp-collectives-per-unit"),
    ),
    "deepspeed.allgather_bucket_size": Text(
        what="Parameter elements gathered per all-gather when ZeRO-1/2 hand the updated shards back to every "
             "rank. Larger buckets mean fewer collectives and bigger temporary buffers; with overlap_comm the "
             "buffer cost roughly doubles. DeepSpeed's default is 500,000,000.",
        fsdp="No knob: FSDP all-gathers one wrapped unit at a time, so the wrapping policy sets the size.",
        deepspeed="zero_optimization.allgather_bucket_size in the DeepSpeed JSON (ZeRO-1 and 2).",
        versions="Not read by ZeRO-3, which uses stage3_prefetch_bucket_size for its gathers.",
        claims=("ds-bucket-defaults", "ds-allgather-bucket-zero12-only", "fsdp-collectives-per-unit"),
    ),
    "deepspeed.sub_group_size": Text(
        what="ZeRO-3 runs the optimizer step over groups of at most this many elements. Smaller groups lower "
             "the memory peak of the step and of the CPU/NVMe buffers under offload, at some speed cost. "
             "Default 1,000,000,000; mostly relevant with ZeRO-Infinity offload.",
        fsdp="No knob: the torch optimizer steps over each rank's shards.",
        deepspeed="zero_optimization.sub_group_size in the DeepSpeed JSON; written only at ZeRO-3.",
        claims=("ds-bucket-defaults", "ds-sub-group-size-zero3"),
    ),
    "deepspeed.extra": Text(
        what="Any further DeepSpeed JSON you need: optimizer or scheduler blocks, other zero_optimization "
             "options (offload ratio, aio tuning), the flops profiler. Merged last into the generated JSON, so "
             "it overrides the wizard's values; the wizard validates the result.",
        fsdp="Not applicable.",
        deepspeed="Merged into the DeepSpeed JSON (so it forces JSON mode).",
        versions="DeepSpeed 0.19 rejects unknown keys inside zero_optimization and raises for removed blocks "
                 "(amp, sparse_attention, elasticity, ...). An optimizer or scheduler block conflicts with one "
                 "created in your script: use accelerate's DummyOptim/DummyScheduler then. In an own "
                 "Accelerator loop accelerate fills only a fixed list of 'auto' values; any other 'auto' raises "
                 "(the HF Trainer fills more).",
        claims=("ds-sections-forbid-unknown-keys", "ds-removed-blocks-raise", "ds-optimizer-json-and-script",
                "ds-auto-outside-the-list-raises", "trainer-fills-more-auto"),
    ),
}

GROUP = GroupText(
        summary="DeepSpeed engine options that accelerate cannot express inline. They live in a DeepSpeed JSON "
                "that the wizard writes and references from deepspeed_config_file.",
        fsdp="none: every FSDP option fits in fsdp_config",
        deepspeed="deepspeed_config_file\nzero_optimization.overlap_comm, contiguous_gradients\n"
                  "zero_optimization.reduce_bucket_size, sub_group_size\nextra blocks (merged)",
        no_counterpart="None of these has an FSDP key: FSDP overlaps communication by itself and sizes its "
                       "collectives by wrapped unit.",
        claims=("fsdp-overlaps-on-its-own-streams", "fsdp-collectives-per-unit"),
    )
