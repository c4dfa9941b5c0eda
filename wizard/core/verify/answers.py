"""What the real libraries must make of the configs rendered from answers, and the check itself.

Two statements are held against what accelerate and DeepSpeed build (in
:func:`wizard.core.verify.roundtrip.flatten_effective`'s dotted keys): :func:`expected_effective`, the value each
answer must produce (the answers' intent reached the run), and :func:`model_expected`, everything the effective model
(:mod:`wizard.core.effective`) says runs for the written files (so a wrong effective model fails ``--verify``).
:func:`verify_generated` writes the files to a scratch folder, replays them through accelerate and deepspeed
(:mod:`wizard.core.verify`) and compares both.
"""
from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from ..answers import Answers
from ..answers.render import (
    ds_offload_optimizer,
    ds_offload_params,
    fsdp2_mesh_sizes,
    fsdp_offload,
    hybrid_replicas,
    is_hybrid,
    one_to_one_writes,
    processes_per_node,
    uses_ds_json,
    zero_stage,
)
from ..catalog import AUTO, DEEPSPEED, FP8_GEMMS, FSDP1, SHARDING, fp8_options
from ..catalog.writes import effective_key
from ..findings import INFO, Finding
from ..i18n import said
from ..library.fsdp import FSDP_MIXED_PRECISION_DTYPE

NOT_COMPARED = ("deepspeed_plugin.config_file",)
"""A path: the round trip resolves it against the launch folder, the model keeps what was written."""


def expected_effective(a: Answers) -> dict[str, object]:
    """What the answers ask for, in the round trip's keys: the one-to-one keys from the catalogue (each written value,
    read back where ``Write.effective`` says), then what several answers decide together (the answers' intent, which
    the effective model of the written files cannot state: it would agree with a renderer that wrote the wrong
    value)."""
    exp: dict[str, object] = {}
    for _, write, value in one_to_one_writes(a):
        key = effective_key(write)
        if key:
            exp[key] = value
    if a.target == DEEPSPEED:
        exp.update(_expected_deepspeed(a))
    else:
        exp.update(_expected_fsdp(a))
    if a["launch.dynamo_backend"] != "no" and a.target != DEEPSPEED:
        exp["dynamo_backend"] = a["launch.dynamo_backend"].upper()
    exp["mixed_precision"] = a["precision.mixed_precision"]  # accelerate's, also when a DeepSpeed JSON decides it
    exp.update(_expected_fp8(a))
    return exp


def _expected_fp8(a: Answers) -> dict[str, object]:
    """With fp8 and a backend chosen: that backend's recipe, each of its options as answered (read back from the
    recipe accelerate builds from the launch environment, under the recipe's own field names); with the backend left
    to auto-detection, what is installed where the run starts decides (the effective model's part)."""
    from ..effective.fp8 import model_key

    backend = a["precision.fp8_backend"]
    if a["precision.mixed_precision"] != "fp8" or backend == AUTO:
        return {}
    e: dict[str, object] = {"fp8.backend": backend.upper()}
    for s in fp8_options(backend):
        writes = s.writes.get(a.target, ())
        if not writes:
            continue
        key = model_key(writes[0].key.removeprefix("fp8_config."))
        if key == "fp8.override_linear_precision":
            e[key] = [bool(a[f"precision.fp8_override_{gemm}"]) for gemm in FP8_GEMMS]
        else:
            e[key] = a[s.id]
    return e


def _expected_fsdp(a: Answers) -> dict[str, object]:
    v1 = a.target == FSDP1
    e: dict[str, object] = {}
    if v1:
        # torch spells the last member with a leading underscore: ShardingStrategy._HYBRID_SHARD_ZERO2
        name = SHARDING[a["sharding.strategy"]][0] or "SHARD_GRAD_OP"
        e["fsdp.sharding_strategy"] = "_" + name if name == "HYBRID_SHARD_ZERO2" else name
        prefetch = a["prefetch.backward"]
        e["fsdp.backward_prefetch"] = None if prefetch == "none" else f"BACKWARD_{prefetch.upper()}"
        e["fsdp.sync_module_states"] = a["sync.module_states"] or a["loading.ram_efficient"]
    e["fsdp.cpu_offload"] = fsdp_offload(a)
    if a["wrapping.policy"] == "transformer" and a["wrapping.layer_classes"]:
        e["fsdp.transformer_cls_names_to_wrap"] = list(a["wrapping.layer_classes"])
    if a["wrapping.policy"] == "size":
        e["fsdp.min_num_params"] = a["wrapping.min_num_params"]
    e["fsdp.param_dtype"] = FSDP_MIXED_PRECISION_DTYPE.get(a["precision.mixed_precision"])
    if not v1 and (hybrid_replicas(a) > 1 or a["parallelism.tp_size"] > 1 or a["parallelism.cp_size"] > 1):
        sizes = fsdp2_mesh_sizes(a)
        for name in ("dp_replicate", "dp_shard", "tp", "cp"):
            e[f"parallelism.{name}_size"] = sizes[name]
        if sizes["cp"] > 1:
            e["parallelism.cp_comm_strategy"] = a["parallelism.cp_comm_strategy"]
    return e


def _expected_deepspeed(a: Answers) -> dict[str, object]:
    """Mostly the values DeepSpeed's own DeepSpeedConfig derived (``deepspeed_validated.*``), so an absent
    key and its default compare as DeepSpeed sees them (clipping 0.0 = off)."""
    stage = zero_stage(a)
    v = "deepspeed_validated."
    z = "deepspeed.zero_optimization."
    # written true at ZeRO-3 whatever loading.ram_efficient says (rule ds-zero3-init-cannot-be-off)
    e: dict[str, object] = {"deepspeed_plugin.zero3_init_flag": stage == 3}
    for block, short, device in (("offload_optimizer", "offload_optimizer", ds_offload_optimizer(a)),
                                 ("offload_param", "offload_param", ds_offload_params(a))):
        if device != "none":
            e[f"{v}{short}_device"] = device
            if device == "nvme":
                e[f"{v}{short}_nvme_path"] = a["offload.nvme_path"]
            if uses_ds_json(a):
                e[f"{z}{block}.pin_memory"] = a["offload.pin_memory"]
    clip = a["training.gradient_clipping"]
    e[f"{v}gradient_clipping"] = 1.0 if clip == AUTO else float(clip)
    gas = a["training.gradient_accumulation_steps"]
    e[f"{v}gradient_accumulation_steps"] = 1 if gas == AUTO else gas
    mp = a["precision.mixed_precision"]
    e[f"{v}bf16_enabled"] = mp in ("bf16", "fp8")
    e[f"{v}fp16_enabled"] = mp == "fp16"
    if is_hybrid(a) and stage == 3 and a["launch.num_machines"] > 1:
        e[f"{z}zero_hpz_partition_size"] = processes_per_node(a)
    micro = a["training.micro_batch_size"]
    if isinstance(micro, int):
        e[f"{v}train_micro_batch_size_per_gpu"] = micro
    return e


def model_expected(a: Answers, rendered, *, micro_batch: int, fp8_installed: tuple[str, ...] | None = None
                   ) -> dict[str, object]:
    """What the effective model says the libraries build for ``rendered`` (the files written from ``a``), in the
    round trip's situation (the DataLoader's ``micro_batch``, no model config, the Trainer's arguments, the fp8
    packages installed where the round trip ran)."""
    from ..answers.of_answers import situation_of
    from ..effective import effective
    from ..recordclass import replace

    situation = situation_of(a)
    # the model judges the files as written: under the Trainer, the arguments rendered into training_arguments.json
    args = rendered.training_arguments if situation.trainer else None
    situation = replace(situation, micro_batch=micro_batch, hidden_size=None, trainer_arguments=args,
                        fp8_installed=fp8_installed)
    e = effective(rendered.accelerate, rendered.deepspeed, situation)
    return {k: v for k, v in e.library_view().items() if k not in NOT_COMPARED}


def verify_generated(gen, *, keep: Path | None = None, progress: Callable[[str], None] | None = None
                     ) -> list[Finding]:
    """Replay generated configs through the real libraries; findings (errors first) for what differs, and the notes
    (INFO) on what could not be replayed here (the fp8 start-up without its package), which fail nothing.
    ``progress``: called with a few words as each stage starts (see :func:`.replay.effective_config`)."""
    from ..answers.generate import generate
    from ..answers.render import ACCELERATE_YAML
    from ..files import write_files
    from ..findings import sort_findings
    from .roundtrip import compare, effective_config, flatten_effective

    with tempfile.TemporaryDirectory(prefix="fsdpds_verify_") as tmp:
        folder = Path(keep or tmp)
        scratch = generate(gen.answers, folder, ds_path="absolute")  # replayed from any folder
        write_files({folder / name: text for name, text in scratch.files.items()}, force=True)
        micro = gen.answers["training.micro_batch_size"]
        # the Trainer: the arguments the answers put in training_arguments.json (None: an own Accelerator loop)
        batch = micro if isinstance(micro, int) else 1
        eff = effective_config(folder / ACCELERATE_YAML, micro_batch_size=batch,
                               trainer_arguments=scratch.rendered.training_arguments, progress=progress)
        if progress is not None:
            progress(said("comparing every value with the answers"))
        flat = flatten_effective(eff)
        findings = list(eff.findings) + compare(expected_effective(gen.answers), flat)
        if eff.ok:  # the model of a config the libraries refuse has nothing to be held against
            seen = {f.keys for f in findings if f.severity != INFO}
            model = model_expected(gen.answers, scratch.rendered, micro_batch=batch, fp8_installed=eff.fp8_installed)
            findings += [f for f in compare(model, flat) if f.keys not in seen]
    return sort_findings(findings)
