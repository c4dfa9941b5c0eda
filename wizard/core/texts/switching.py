"""The counterparts table: what each setting's answer becomes when the target changes (backend or FSDP version).

One declaration per setting, target pair and (where it matters) value, classified as

- **the same intent** (:data:`SAME`): the new target does the same thing, written its own way;
- **another meaning** (:data:`OTHER`): the answer carries over, the run behaves differently (the text says how);
- **no counterpart** (:data:`NONE`): the new target has nothing for it; it is not written.

The switch report (:func:`wizard.core.convert.switch_report`, shown by the TUI after ctrl+t and by ``fsdpds-wizard
convert``) classifies each of its lines from here and from nowhere else. A line is looked up with the setting id, the
target switched from and to, the value as the source ran it and the value the converted answers hold
(:func:`classify`); entries are matched in the order declared, the first decides the class, and every matching entry
of that class adds its text. A setting the new target has no place for at all and that has no entry here has no
counterpart, for the reason the catalogue gives (``Setting.not_applicable``).

Pure data (target ids as strings: no import of the catalogue, which imports the texts)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SAME = "same intent"
OTHER = "another meaning"
NONE = "no counterpart"
KINDS = (SAME, OTHER, NONE)


@dataclass(frozen=True)
class Counterpart:
    """One classification: ``setting_id`` with a value in ``values`` (None: any), switched from a target in
    ``before`` to one in ``after``, whose converted value is in ``becomes`` (None: any)."""

    setting_id: str
    kind: str
    values: tuple | None
    before: tuple[str, ...]
    """Targets switched from."""
    after: tuple[str, ...]
    """Targets switched to."""
    text: str
    """The one-line reason (for another meaning: what the run now does differently)."""
    claims: tuple[str, ...] = ()
    """The claims (:mod:`wizard.core.claims`) the text states."""
    becomes: tuple | None = None

    def matches(self, value: Any, before: str, after: str, becomes: Any) -> bool:
        return (before in self.before and after in self.after and _within(value, self.values)
                and _within(becomes, self.becomes))


def _within(value: Any, values: tuple | None) -> bool:
    return values is None or any(v == value and type(v) is type(value) for v in values)


MeaningChange = Counterpart
"""The former name of an entry (the switch notes were only the "another meaning" entries)."""

F1, F2, DS = "fsdp1", "fsdp2", "deepspeed"
_FSDP = (F1, F2)
_DS = (DS,)
_ALL = (F1, F2, DS)


def _other(setting_id: str, values: tuple | None, before: tuple[str, ...], after: tuple[str, ...], text: str,
           claims: tuple[str, ...] = (), becomes: tuple | None = None) -> Counterpart:
    return Counterpart(setting_id, OTHER, values, before, after, text, claims, becomes)


def _same(setting_id: str, values: tuple | None, before: tuple[str, ...], after: tuple[str, ...], text: str,
          claims: tuple[str, ...] = (), becomes: tuple | None = None) -> Counterpart:
    return Counterpart(setting_id, SAME, values, before, after, text, claims, becomes)


def _none(setting_id: str, values: tuple | None, before: tuple[str, ...], after: tuple[str, ...], text: str,
          claims: tuple[str, ...] = ()) -> Counterpart:
    return Counterpart(setting_id, NONE, values, before, after, text, claims)


def _same_everywhere(ids: tuple[str, ...], between: tuple[str, ...], text: str) -> tuple[Counterpart, ...]:
    return tuple(_same(sid, None, between, between, text) for sid in ids)


_LAUNCH = ("launch.num_processes", "launch.num_machines", "launch.machine_rank", "launch.main_process_ip",
           "launch.main_process_port", "launch.rdzv_backend", "launch.same_network", "launch.gpu_ids",
           "launch.main_training_function")
_LAUNCH_ANSWERS = ("launch.hosts", "launch.script", "launch.script_args", "launch.training_loop", "launch.trainer_tool",
                   "training.micro_batch_size", "precision.model_dtype")
_DYNAMO = ("launch.dynamo_backend", "launch.dynamo_mode", "launch.dynamo_fullgraph", "launch.dynamo_dynamic",
           "launch.dynamo_regional")
_FP8 = ("precision.fp8_backend", "precision.fp8_format", "precision.fp8_margin", "precision.fp8_interval",
        "precision.fp8_amax_history_len", "precision.fp8_amax_compute_algo", "precision.fp8_override_fprop",
        "precision.fp8_override_dgrad", "precision.fp8_override_wgrad", "precision.fp8_use_autocast_during_eval",
        "precision.fp8_opt_level", "precision.fp8_enable_fsdp_float8_all_gather", "precision.fp8_pad_inner_dim")
_WRAPPING = ("wrapping.policy", "wrapping.layer_classes", "wrapping.min_num_params")
_DS_ONLY = ("launch.ds_multinode_launcher", "launch.ds_hostfile", "launch.ds_inclusion_filter",
            "launch.ds_exclusion_filter", "offload.nvme_path", "offload.pin_memory", "prefetch.ds_bucket_size",
            "prefetch.ds_param_persistence_threshold", "prefetch.ds_model_persistence_threshold",
            "prefetch.ds_max_live_parameters", "prefetch.ds_max_reuse_distance", "wrapping.ds_moe_layer_classes",
            "precision.ds_communication_data_type", "precision.ds_bf16_master_weights", "deepspeed.config_file",
            "deepspeed.overlap_comm", "deepspeed.contiguous_gradients", "deepspeed.reduce_bucket_size",
            "deepspeed.allgather_bucket_size", "deepspeed.sub_group_size", "deepspeed.extra")
_KEPT = "an answer kept for this target (the one switched from has no such setting); written as answered"
KEPT = _KEPT
"""The text of a setting the source target has no place for and the new one has (the default class: same)."""
SAME_FSDP_KEYS = "the same key on both FSDP versions"
"""The text of a setting written to the same keys by both FSDP versions (the default class: same)."""

_HYBRID = ("hybrid_full", "hybrid_grads_optimizer")
_HPZ_VS_HSDP = ("hpZ partitions gradients and optimizer state over every GPU and keeps only a second copy of the "
                "parameter shards within each machine; hybrid sharding shards parameters, gradients and optimizer "
                "state within each machine and replicates all of it across machines (more memory per GPU, "
                "gradients all-reduced across machines).")

_ENTRIES: tuple[Counterpart, ...] = (
    # ---------------------------------------------------------------- launch: the launcher's own keys
    *_same_everywhere(_LAUNCH, _ALL, "accelerate launch reads it the same way for every backend"),
    *_same_everywhere(_LAUNCH_ANSWERS, _ALL, "the script and the launch read it the same way for every backend"),
    _other("precision.fp8_backend", ("msamp",), _DS, _FSDP, "MS-AMP does not run with FSDP: the converted run "
           "stops at start until ao or te is chosen", claims=("fp8-backend-limits",)),
    *_same_everywhere(tuple(sid for sid in _FP8 if sid != "precision.fp8_opt_level"), _ALL,
                      "accelerate launch exports the same fp8_config for every backend"),
    _same("precision.fp8_opt_level", None, _ALL, _DS, "accelerate launch exports the same fp8_config for every "
          "backend"),
    *_same_everywhere(_DYNAMO, _FSDP, "both FSDP versions get the same dynamo_config from accelerate launch"),
    _same("launch.dynamo_backend", ("no",), _FSDP, _DS, "not compiled from the config on either"),
    *(_none(sid, None, _FSDP, _DS, "accelerate launch passes no dynamo_config to DeepSpeed runs: the converted run "
            "is not compiled unless the script calls torch.compile", claims=("dynamo-not-exported-under-deepspeed",))
      for sid in _DYNAMO),
    *(_same(sid, None, _DS, _FSDP, "DeepSpeed runs were not compiled from the config; the FSDP config compiles "
            "only if the answer says so") for sid in _DYNAMO),
    # ---------------------------------------------------------------- sharding
    _same("sharding.strategy", _HYBRID, _ALL, _ALL,
          "on one machine a hybrid strategy is the plain one (there is nothing to replicate across)",
          claims=("fsdp1-hybrid-groups-by-visible-devices",), becomes=("full", "grads_optimizer")),
    _other("sharding.strategy", ("none",), _FSDP, (F2,),
           "NO_SHARD has no FSDP2 form: FSDP2 has no NO_SHARD, and the closest mode still shards between steps.",
           claims=("fsdp-reshard-after-forward", "fsdp2-ignores-v1-keys")),
    _other("sharding.strategy", ("none",), (F2,), (F1, DS),
           "FSDP2 has no NO_SHARD: it ran as fsdp_reshard_after_forward: false, sharding gradients and optimizer "
           "state; the new config keeps everything whole on every GPU.",
           claims=("fsdp-reshard-after-forward",)),
    _other("sharding.strategy", ("optimizer",), _FSDP, _ALL,
           "FSDP has no ZeRO-1: it ran the closest mode (SHARD_GRAD_OP / fsdp_reshard_after_forward: false), "
           "which shards gradients and the parameters' storage too.",
           claims=("ds-zero-stages-partition", "fsdp-reshard-after-forward")),
    _same("sharding.strategy", None, _FSDP, _FSDP,
          "the same sharding: FSDP1's fsdp_sharding_strategy, FSDP2's fsdp_reshard_after_forward (and "
          "parallelism_config for hybrid)", claims=("fsdp-reshard-after-forward",)),
    _other("sharding.strategy", ("hybrid_full",), _FSDP, _DS,
           "hybrid sharding becomes ZeRO-3 with ZeRO++ hpZ: " + _HPZ_VS_HSDP,
           claims=("ds-hpz-secondary-partition", "fsdp2-hybrid-from-parallelism-config")),
    _other("sharding.strategy", ("hybrid_grads_optimizer",), _FSDP, _DS,
           "DeepSpeed has no hybrid ZeRO-2 (hpZ is a ZeRO-3 option): plain ZeRO-2 over all GPUs, with the gradient "
           "reduce-scatter across machines.",
           claims=("ds-zero-stages-partition", "ds-hpz-secondary-partition")),
    _other("sharding.strategy", ("hybrid_full",), _DS, _FSDP,
           "ZeRO-3 with ZeRO++ hpZ becomes hybrid sharding: " + _HPZ_VS_HSDP,
           claims=("ds-hpz-secondary-partition", "fsdp2-hybrid-from-parallelism-config")),
    _other("sharding.strategy", ("hybrid_grads_optimizer",), _DS, _FSDP,
           "DeepSpeed ran plain ZeRO-2 over all GPUs (it has no hybrid ZeRO-2); hybrid sharding shards within each "
           "machine and replicates across machines.",
           claims=("ds-zero-stages-partition", "fsdp2-hybrid-from-parallelism-config")),
    _same("sharding.strategy", ("full",), _ALL, _ALL,
          "parameters, gradients and optimizer state sharded: FULL_SHARD, fsdp_reshard_after_forward: true, ZeRO-3",
          claims=("ds-zero-stages-partition", "fsdp-reshard-after-forward")),
    _same("sharding.strategy", ("grads_optimizer",), _ALL, _ALL,
          "gradients and optimizer state sharded, parameters kept from the forward to the backward: SHARD_GRAD_OP, "
          "fsdp_reshard_after_forward: false, ZeRO-2",
          claims=("ds-zero-stages-partition", "fsdp-reshard-after-forward")),
    _same("sharding.strategy", ("none",), (F1, DS), (F1, DS),
          "nothing sharded: NO_SHARD, ZeRO-0", claims=("ds-zero-stages-partition",)),
    # ---------------------------------------------------------------- the switch notes (another meaning)
    _other(
        "offload.optimizer", ("cpu", "nvme"), _DS, _FSDP,
        "DeepSpeed moved only the optimizer state and step off the GPU and ran the step in a DeepSpeed CPU "
        "optimizer (accelerate swaps the script's torch optimizer for it); FSDP's single fsdp_offload_params also "
        "moves the parameters and gradients to the CPU and runs your own torch optimizer's step there.",
        claims=("ds-offload-replaces-torch-optimizer", "ds-offload-blocks-independent",
                "fsdp-offload-single-switch")),
    _other(
        "offload.optimizer", ("nvme",), _DS, _FSDP,
        "NVMe becomes CPU RAM: FSDP cannot offload to NVMe, so the host needs room for all of it.",
        claims=("fsdp-offload-single-switch",)),
    _other(
        "offload.params", ("cpu", "nvme"), _DS, _FSDP,
        "DeepSpeed offloaded the parameters separately from the optimizer (ZeRO-3 only); on FSDP the same switch "
        "offloads parameters, gradients and the optimizer step together.",
        claims=("ds-offload-blocks-independent", "ds-param-offload-zero3-only", "fsdp-offload-single-switch")),
    _other(
        "offload.optimizer", ("cpu", "nvme"), _FSDP, _DS,
        "FSDP's switch moved parameters, gradients and the optimizer step to the CPU; DeepSpeed offloads the "
        "optimizer on its own, and accelerate replaces the script's torch optimizer with a DeepSpeed "
        "CPU optimizer (DeepSpeedCPUAdam for all but Adagrad and bitsandbytes Lion, SGD included; built on first "
        "use).",
        claims=("fsdp-offload-single-switch", "ds-offload-blocks-independent", "ds-offload-replaces-torch-optimizer",
                "ds-cpu-optimizer-built-on-first-use")),
    _other(
        "offload.params", ("cpu", "nvme"), _FSDP, _DS,
        "On DeepSpeed parameter offload is separate from optimizer offload and only works at ZeRO-3.",
        claims=("ds-offload-blocks-independent", "ds-param-offload-zero3-only", "fsdp-offload-single-switch")),
    _other(
        "sharding.strategy", ("optimizer",), _DS, _FSDP,
        "ZeRO-1 (optimizer state only) has no FSDP form: it is written as FSDP's no-reshard mode, which shards "
        "the gradients and the parameters' storage too.",
        claims=("ds-zero-stages-partition", "fsdp-reshard-after-forward")),
    _other(
        "sharding.strategy", ("none",), _DS, ("fsdp2",),
        "ZeRO-0 has no FSDP2 form: FSDP2 has no NO_SHARD, and the closest mode still shards between steps.",
        claims=("fsdp-reshard-after-forward", "fsdp2-ignores-v1-keys")),
    _other(
        "loading.ram_efficient", (True,), _DS, _FSDP,
        "DeepSpeed's zero3_init_flag created the parameters already partitioned (ZeRO-3 only); FSDP's "
        "cpu_ram_efficient_loading broadcasts rank 0's weights while sharding, and every rank still reads the "
        "checkpoint (memory-mapped) in from_pretrained.",
        claims=("ds-zero3-init-flag-off-below-zero3", "ds-zero3-init-needs-config-before-load",
                "fsdp1-sync-module-states-broadcasts", "fsdp2-no-broadcast-unless-ram-efficient",
                "transformers-fsdp-loading-every-rank-reads")),
    _other(
        "loading.ram_efficient", (True,), _FSDP, _DS,
        "FSDP broadcast rank 0's weights while sharding; DeepSpeed's zero3_init_flag creates the parameters "
        "partitioned instead, and only at ZeRO-3 (below it nothing is written).",
        claims=("ds-zero3-init-flag-off-below-zero3", "ds-zero3-init-needs-config-before-load",
                "fsdp1-sync-module-states-broadcasts", "fsdp2-no-broadcast-unless-ram-efficient",
                "transformers-fsdp-loading-every-rank-reads")),
    _other(
        "checkpoint.format", ("full",), _DS, _FSDP,
        "DeepSpeed's full save gathers 16-bit weights (zero3_save_16bit_model); FSDP's FULL_STATE_DICT gathers "
        "the parameters in their own dtype, with mixed precision the upcast (trainable) ones in fp32, twice their "
        "16-bit size.",
        claims=("ds-zero3-state-dict-needs-16bit-gather", "fsdp-saved-weights-fp32", "fsdp-get-state-dict-full")),
    _other(
        "checkpoint.format", ("full",), _FSDP, _DS,
        "FSDP's FULL_STATE_DICT saved the parameters' own dtype; DeepSpeed's full save writes 16-bit weights "
        "(zero3_save_16bit_model, ZeRO-3 only).",
        claims=("ds-zero3-state-dict-needs-16bit-gather", "fsdp-saved-weights-fp32", "fsdp-get-state-dict-full")),
    _other(
        "precision.mixed_precision", ("bf16", "fp16", "fp8"), _DS, _FSDP,
        "DeepSpeed cast the model itself to 16 bits and kept fp32 master weights (partitioned from ZeRO-1 on); "
        "FSDP upcasts the trainable parameters to fp32 (FSDP1: whole units) and casts them for each forward and "
        "backward.",
        claims=("fsdp1-upcast-per-unit", "fsdp2-upcast-per-parameter", "fsdp-policy-from-mixed-precision",
                "ds-module-cast-fp32-master")),
    _other(
        "precision.mixed_precision", ("bf16", "fp16", "fp8"), _FSDP, _DS,
        "FSDP kept fp32 trainable parameters and cast them per forward and backward; DeepSpeed casts the model "
        "itself to 16 bits and keeps fp32 master weights (partitioned from ZeRO-1 on; unless bf16 master weights "
        "are chosen).",
        claims=("fsdp1-upcast-per-unit", "fsdp2-upcast-per-parameter", "fsdp-policy-from-mixed-precision",
                "ds-module-cast-fp32-master", "ds-bf16-master-weights-option")),
    _other(
        "training.gradient_accumulation_steps", None, _DS, _FSDP,
        "DeepSpeed took gradient accumulation from the config; FSDP takes it from "
        "Accelerator(gradient_accumulation_steps=...) in your script (or TrainingArguments), so the config no longer "
        "sets it.",
        claims=("launch-accumulation-and-clipping-deepspeed-only", "fsdp-accumulate-keeps-unsharded-grads",
                "trainer-counts-accumulation-and-clips")),
    _other(
        "training.gradient_clipping", None, _DS, _FSDP,
        "The DeepSpeed engine clipped from the config; FSDP clips only where the loop calls "
        "accelerator.clip_grad_norm_() (the HF Trainer does, with max_grad_norm).",
        claims=("launch-accumulation-and-clipping-deepspeed-only", "ds-clip-grad-norm-only-reports",
                "fsdp-clip-grad-norm-over-shards", "trainer-counts-accumulation-and-clips")),
    # ---------------------------------------------------------------- offload
    _other("offload.optimizer", ("none",), _DS, _FSDP,
           "DeepSpeed kept the optimizer on the GPU; FSDP's single switch, on for the parameters, also runs the "
           "optimizer step on the CPU.", claims=("fsdp-offload-single-switch",), becomes=("cpu",)),
    _other("offload.params", ("none",), _DS, _FSDP,
           "DeepSpeed kept the parameters on the GPU; FSDP's single switch, on for the optimizer, also moves the "
           "parameters and gradients to the CPU.", claims=("fsdp-offload-single-switch",), becomes=("cpu",)),
    *(_same(sid, ("none",), _ALL, _ALL, "nothing offloaded") for sid in ("offload.optimizer", "offload.params")),
    *_same_everywhere(("offload.optimizer", "offload.params"), _FSDP,
                      "the same single switch, fsdp_offload_params, on both FSDP versions"),
    # ---------------------------------------------------------------- loading
    _other("loading.ram_efficient", (False,), _FSDP, _DS,
           "every rank loaded the whole model; at ZeRO-3 from_pretrained creates it partitioned (zero.Init) "
           "whatever zero3_init_flag says.",
           claims=("ds-zero3-init-flag-does-not-stop-zero-init",), becomes=(True,)),
    _same("loading.ram_efficient", (False,), _ALL, _ALL, "every rank loads the whole model"),
    _same("loading.ram_efficient", (True,), _FSDP, _FSDP, "fsdp_cpu_ram_efficient_loading on both FSDP versions",
          claims=("fsdp1-sync-module-states-broadcasts", "fsdp2-no-broadcast-unless-ram-efficient")),
    # ---------------------------------------------------------------- checkpoint
    _other("checkpoint.format", ("local",), (F1,), (F2, DS),
           "only FSDP1 has LOCAL_STATE_DICT; the new config saves sharded checkpoints.",
           claims=("fsdp-state-dict-type-defaults",)),
    _same("checkpoint.format", ("local",), (F2,), _ALL,
          "FSDP2 has no LOCAL_STATE_DICT: it saved sharded checkpoints", claims=("fsdp-state-dict-type-defaults",)),
    _other("checkpoint.format", ("local",), _DS, (F1,),
           "DeepSpeed has no local form and saved sharded per-rank checkpoints; FSDP1's LOCAL_STATE_DICT saves each "
           "rank's flat shards, loadable only with the same layout.", claims=("fsdp-state-dict-type-defaults",)),
    _same("checkpoint.format", ("local",), _DS, (F2,), "neither has a local form: sharded checkpoints on both",
          claims=("fsdp-state-dict-type-defaults",)),
    _same("checkpoint.format", None, _FSDP, _FSDP, "the same fsdp_state_dict_type on both FSDP versions",
          claims=("fsdp-state-dict-type-defaults",)),
    _same("checkpoint.format", ("sharded",), _ALL, _ALL, "checkpoints sharded per rank"),
    # ---------------------------------------------------------------- prefetch (FSDP1's modes)
    _same("prefetch.backward", ("pre",), (F2, DS), (F1,),
          "FSDP2 and ZeRO-3 prefetch the next unit for the backward by themselves; BACKWARD_PRE is FSDP1's form of it",
          claims=("fsdp2-prefetch-control-code-only", "ds-zero3-prefetch-after-trace", "fsdp1-prefetch-modes")),
    _other("prefetch.backward", ("post", "none"), (F2, DS), (F1,),
           "FSDP2 and ZeRO-3 prefetched the next unit for the backward by themselves; FSDP1 prefetches later "
           "(BACKWARD_POST) or not at all (NO_PREFETCH), as answered.",
           claims=("fsdp2-prefetch-control-code-only", "ds-zero3-prefetch-after-trace", "fsdp1-prefetch-modes")),
    _same("prefetch.forward", (False,), (F2, DS), (F1,), "no explicit forward prefetch on either",
          claims=("fsdp2-prefetch-control-code-only",)),
    _other("prefetch.forward", (True,), (F2, DS), (F1,),
           "FSDP1 now issues the next forward all-gather early (fsdp_forward_prefetch), which FSDP2 does only when "
           "the code asks (set_modules_to_forward_prefetch).",
           claims=("fsdp2-prefetch-control-code-only", "fsdp1-prefetch-modes")),
    # ---------------------------------------------------------------- wrapping, FSDP1's own keys, DeepSpeed's own
    *_same_everywhere(_WRAPPING, _FSDP, "the same auto-wrap keys on both FSDP versions"),
    *(_same(sid, None, _DS, _FSDP, _KEPT) for sid in _WRAPPING),
    *(_same(sid, None, (F2, DS), (F1,), _KEPT) for sid in ("summoning.use_orig_params", "sync.module_states")),
    *(_same(sid, None, _FSDP, _DS, _KEPT) for sid in _DS_ONLY),
    # ---------------------------------------------------------------- training values
    *_same_everywhere(("training.gradient_accumulation_steps", "training.gradient_clipping"), _FSDP,
                      "taken from the script (Accelerator arguments or TrainingArguments) on both FSDP versions"),
    *(_same(sid, None, _FSDP, _DS, "the DeepSpeed config now holds it (FSDP took it from the script)",
            claims=("launch-accumulation-and-clipping-deepspeed-only",))
      for sid in ("training.gradient_accumulation_steps", "training.gradient_clipping")),
    *_same_everywhere(("training.activation_checkpointing",), _FSDP,
                      "fsdp_activation_checkpointing on both FSDP versions"),
    _same("training.activation_checkpointing", None, _DS, _FSDP, _KEPT),
    _same("training.activation_checkpointing_offload", None, (F1, DS), (F2,), _KEPT),
    # ---------------------------------------------------------------- precision
    _same("precision.mixed_precision", None, _FSDP, _FSDP, "the same mixed_precision key on both FSDP versions",
          claims=("fsdp-policy-from-mixed-precision",)),
    _same("precision.mixed_precision", ("no",), _ALL, _ALL, "no mixed precision on either"),
)


COUNTERPARTS: dict[str, tuple[Counterpart, ...]] = {}
for _c in _ENTRIES:
    COUNTERPARTS[_c.setting_id] = (*COUNTERPARTS.get(_c.setting_id, ()), _c)
del _c

MEANING_CHANGES: tuple[Counterpart, ...] = tuple(c for c in _ENTRIES if c.kind == OTHER)
"""The "another meaning" entries (the switch notes; the claims index names each)."""


def classify(setting_id: str, value: Any, before: str, after: str, becomes: Any) -> tuple[Counterpart, ...]:
    """The entries that classify a report line: ``setting_id`` = ``value`` as the target ``before`` ran it, switched
    to ``after``, where the converted answers hold ``becomes``. The first matching entry decides the class; every
    matching entry of that class is returned (each adds its text). Empty: no entry."""
    found = [c for c in COUNTERPARTS.get(setting_id, ()) if c.matches(value, before, after, becomes)]
    return tuple(c for c in found if c.kind == found[0].kind) if found else ()


def meaning_changes(setting_id: str, value: Any, before: str, after: str, becomes: Any = None) -> list[str]:
    """What an answer means differently after a switch from target ``before`` to ``after`` (its "another meaning"
    texts; ``becomes``: the converted value, the same as ``value`` when not given)."""
    found = classify(setting_id, value, before, after, value if becomes is None else becomes)
    return [c.text for c in found if c.kind == OTHER]
