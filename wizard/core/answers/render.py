"""Answers -> accelerate config YAML dict and (where needed) DeepSpeed JSON dict.

Pure functions. The output is written around the launcher's pitfalls (docs/library-behaviour.md, cited below
by anchor):

* FSDP1 strategies go under ``fsdp_sharding_strategy`` (``accelerate launch`` ignores
  ``fsdp_reshard_after_forward`` for v1, #fsdp1-sharding-strategy); FSDP2 gets a bool
  ``fsdp_reshard_after_forward``.
* NVMe offload, hybrid ZeRO (hpZ) and every DeepSpeed engine knob go through a DeepSpeed JSON, since
  inline NVMe paths never reach DeepSpeed (#ds-nvme-offload) and unknown inline keys are dropped
  (#ds-inline-config).
* Gradient clipping is always explicit: an absent inline key becomes "auto", i.e. 1.0; and since accelerate
  drops a falsy inline value and DeepSpeed's own default is 1.0, "no clipping" (0.0) goes through a JSON.
* No ``mixed_precision`` in the YAML next to a ``deepspeed_config_file`` (#ds-config-file); the JSON carries it.
* Integers stay integers (``fsdp_min_num_params: 100000000``, never ``1e8``, #fsdp-min-num-params).
* With the Hugging Face Trainer as the training loop (``launch.training_loop: trainer``) the DeepSpeed values the
  Trainer fills from TrainingArguments are written "auto" (a number that differs from its argument stops the
  Trainer with a ValueError), and the answers' numbers go to ``training_arguments.json`` instead
  (:func:`training_arguments`). With an own Accelerator loop nothing changes.
"""
from __future__ import annotations

from ..catalog import (
    AUTO,
    DEEPSPEED,
    FIXED_KEYS,
    FP8_GEMMS,
    FSDP1,
    FSDP2,
    JSON,
    SET,
    SETTING_BY_ID,
    SHARDING,
    YAML,
    ZERO3,
    Setting,
    Write,
    fp8_options,
)
from ..catalog.writes import inline_only, needs_json, one_to_one, settings_of_key, spelling
from ..i18n import said
from ..library.auto import TRAINER_DEFAULTS, TRAINER_MATCHED
from ..recordclass import field, record
from .model import Answers

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

ACCELERATE_YAML = "accelerate_config.yaml"
DS_JSON = "ds_config.json"
ANSWERS_YAML = "answers.yaml"
TRAINING_ARGUMENTS_JSON = "training_arguments.json"
TOOL_SNIPPETS = {"llamafactory": "llamafactory_args.yaml", "axolotl": "axolotl_args.yaml"}
"""``launch.trainer_tool`` -> the file of its training-file keys written beside the configs (with the Trainer); the
tools are wizard/core/training_kinds.py KINDS (kept off the start path; tests/unit/test_tool_snippets.py ties them)."""
TRAINER = "trainer"
"""``launch.training_loop`` value: the Hugging Face Trainer (or a library built on it)."""


@record
class Rendered:
    accelerate: dict[str, Any]
    deepspeed: dict[str, Any] | None = None
    provenance: dict[str, str] = field(default_factory=dict)
    """Rendered key path (``fsdp_config.fsdp_offload_params``, ``zero_optimization.stage``) -> answer id."""
    shared: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Keys whose value several answers decide together: path -> every one of them (FSDP's single
    ``fsdp_offload_params`` is written from both offload answers)."""
    training_arguments: dict[str, Any] | None = None
    """With the Trainer as the loop: the TrainingArguments keyword arguments that carry the answers' values
    (:func:`training_arguments`); None for an own Accelerator loop."""


def trainer_loop(a: Answers) -> bool:
    """The Hugging Face Trainer drives training (it fills DeepSpeed "auto" values from its TrainingArguments)."""
    return a["launch.training_loop"] == TRAINER


def processes_per_node(a: Answers) -> int:
    machines = max(1, a["launch.num_machines"])
    return max(1, a["launch.num_processes"] // machines)


def zero_stage(a: Answers) -> int:
    return SHARDING[a["sharding.strategy"]][2]


def is_hybrid(a: Answers) -> bool:
    return SHARDING[a["sharding.strategy"]][3]


def fsdp_offload(a: Answers) -> bool:
    """FSDP offload is all-or-nothing: on when anything is offloaded."""
    return a["offload.params"] != "none" or a["offload.optimizer"] != "none"


def ds_offload_optimizer(a: Answers) -> str:
    device = a["offload.optimizer"]
    stage = zero_stage(a)
    if stage == 0:
        return "none"  # nothing moves params to CPU at stage 0; CPUAdam would assert (#ds-offload-and-zero-stage)
    if device == "nvme" and stage < 3:
        # ZeRO-1/2 turn any device into CPU offload (#ds-offload-and-zero-stage); say so, write what happens
        return "cpu"
    return device


def ds_offload_params(a: Answers) -> str:
    return a["offload.params"] if zero_stage(a) == 3 else "none"  # stage 3 only (#ds-offload-and-zero-stage)


def _written_now(a: Answers, setting: Setting, write: Write) -> bool:
    """Whether the catalogue's rule writes this one-to-one key for these answers (see ``Write.when``)."""
    if write.when == SET:
        return a[setting.id] is not None
    if write.when == ZERO3:
        return a[setting.id] is not None and zero_stage(a) == 3
    return True


def one_to_one_writes(a: Answers) -> list[tuple[Setting, Write, Any]]:
    """(setting, write, value as the library spells it) for every one-to-one key these answers write: the YAML keys,
    then, when a DeepSpeed JSON is written, its keys (inline twins of JSON keys only without a JSON)."""
    target = a.target
    json_mode = uses_ds_json(a)
    out = []
    for s, w in one_to_one(target):
        if not _written_now(a, s, w):
            continue
        if (w.file == JSON and not json_mode) or (json_mode and inline_only(w, target)):
            continue
        out.append((s, w, spelling(w, a[s.id])))
    return out


def ds_json_reasons(a: Answers) -> list[str]:
    """Why this DeepSpeed config needs a JSON file (empty: inline keys suffice)."""
    reasons = []  # each reason its own sentence (said): translated where a finding lists them
    if a["deepspeed.config_file"] == "yes":
        reasons.append(said("deepspeed.config_file is 'yes'"))
    if trainer_loop(a) and a["launch.trainer_tool"] in TOOL_SNIPPETS:
        reasons.append(said(f"launch.trainer_tool {a['launch.trainer_tool']} (its training file names a DeepSpeed "
                            "JSON)"))
    if "nvme" in (ds_offload_optimizer(a), ds_offload_params(a)):
        reasons.append(said("NVMe offload (inline NVMe paths never reach DeepSpeed)"))
    if (ds_offload_optimizer(a) != "none" or ds_offload_params(a) != "none") and not a["offload.pin_memory"]:
        reasons.append(said("offload.pin_memory false (DeepSpeed pins by default)"))
    if is_hybrid(a) and a["launch.num_machines"] > 1 and zero_stage(a) == 3:
        reasons.append(said("hybrid sharding (zero_hpz_partition_size)"))
    for s, w in one_to_one(DEEPSPEED):  # JSON keys with no inline twin (accelerate drops unknown inline keys)
        if needs_json(s, w, DEEPSPEED) and _written_now(a, s, w) and s.id not in reasons:
            reasons.append(s.id)
    clip = a["training.gradient_clipping"]
    # with the Trainer, clipping and the micro-batch reach DeepSpeed through TrainingArguments ("auto" inline too)
    if clip != AUTO and float(clip) == 0.0 and not trainer_loop(a):
        # inline, accelerate drops a falsy clipping value and DeepSpeed's own default (1.0) applies
        reasons.append(said("training.gradient_clipping 0 (no clipping is only possible in a DeepSpeed JSON)"))
    if isinstance(a["training.micro_batch_size"], int) and not trainer_loop(a):
        reasons.append("training.micro_batch_size")
    if a["deepspeed.extra"]:
        reasons.append("deepspeed.extra")
    return reasons


def uses_ds_json(a: Answers) -> bool:
    return a.target == DEEPSPEED and a["deepspeed.config_file"] != "no" and bool(ds_json_reasons(a))


def _put_path(root: dict, path: str, value: Any) -> None:
    """Set a dotted path, creating the sections on the way."""
    *sections, key = path.split(".")
    node = root
    for name in sections:
        node = node.setdefault(name, {})
    node[key] = value


def _sorted(d: dict[str, Any], *sections: str) -> dict[str, Any]:
    """``d`` in key order, and so each of its ``sections`` that is there (the sections the renderer builds)."""
    for name in sections:
        if isinstance(d.get(name), dict):
            d[name] = dict(sorted(d[name].items()))
    return dict(sorted(d.items()))


def render(a: Answers, ds_config_ref: str = DS_JSON) -> Rendered:
    """Render answers; ``ds_config_ref`` is the path written into ``deepspeed_config_file``.

    The one-to-one keys come from the catalogue (:func:`one_to_one_writes`); the code below writes the rest: keys
    several answers decide together, or one answer writes to several keys."""
    out = Rendered(accelerate={})
    y = out.accelerate
    prov = out.provenance

    def put(d: dict, key: str, value: Any, answer_id: str, prefix: str = "") -> None:
        d[key] = value
        prov[prefix + key] = answer_id

    target = a.target
    for key, (value, sid) in FIXED_KEYS.items():
        put(y, key, value, sid)
    json_mode = uses_ds_json(a)
    for s, w, value in one_to_one_writes(a):
        if w.file == YAML:
            _put_path(y, w.key, value)
            prov[w.key] = s.id
    if a["launch.num_machines"] > 1 or a["launch.main_process_ip"] is not None:
        if a["launch.main_process_ip"] is not None:
            put(y, "main_process_ip", a["launch.main_process_ip"], "launch.main_process_ip")
        put(y, "main_process_port", a["launch.main_process_port"] or 29500, "launch.main_process_port")
    elif a["launch.main_process_port"] is not None:
        put(y, "main_process_port", a["launch.main_process_port"], "launch.main_process_port")
    if a["launch.dynamo_backend"] != "no" and target != DEEPSPEED:
        # accelerate launch never exports dynamo_config for DeepSpeed runs (see rule ds-compile-not-passed)
        dyn: dict[str, Any] = {}
        p = "dynamo_config."
        put(dyn, "dynamo_backend", a["launch.dynamo_backend"].upper(), "launch.dynamo_backend", p)
        put(dyn, "dynamo_mode", a["launch.dynamo_mode"], "launch.dynamo_mode", p)
        put(dyn, "dynamo_use_dynamic", a["launch.dynamo_dynamic"], "launch.dynamo_dynamic", p)
        put(dyn, "dynamo_use_fullgraph", a["launch.dynamo_fullgraph"], "launch.dynamo_fullgraph", p)
        put(dyn, "dynamo_use_regional_compilation", a["launch.dynamo_regional"], "launch.dynamo_regional", p)
        y["dynamo_config"] = dyn

    fp8 = fp8_config(a)
    if fp8:
        section: dict[str, Any] = {}
        for key, (value, sids) in fp8.items():
            put(section, key, value, sids[0], "fp8_config.")
            if len(sids) > 1:
                out.shared["fp8_config." + key] = sids
        y["fp8_config"] = section
    if target in (FSDP1, FSDP2):
        _render_fsdp(a, out, put)
    else:
        _render_deepspeed(a, out, put, ds_config_ref, json_mode)
    if trainer_loop(a):
        out.training_arguments = training_arguments(a)
    out.accelerate = _sorted(y, "fsdp_config", "deepspeed_config", "parallelism_config", "dynamo_config",
                             "fp8_config")
    return out


def fp8_config(a: Answers) -> dict[str, tuple[Any, tuple[str, ...]]]:
    """The fp8_config these answers write: key -> (value, the settings it comes from). Only with mixed_precision fp8
    (the launcher exports the section only then) and a backend chosen: the backend and every option its recipe
    reads, under the names the recipe reads (``override_linear_precision`` as the list of three the launcher
    splits). With the backend left to auto-detection nothing is written: the recipe's defaults apply."""
    backend = a["precision.fp8_backend"]
    if a["precision.mixed_precision"] != "fp8" or backend == AUTO:
        return {}
    out: dict[str, tuple[Any, tuple[str, ...]]] = {}
    for s in (SETTING_BY_ID["precision.fp8_backend"], *fp8_options(backend)):
        writes = s.writes.get(a.target, ())
        if not writes:
            continue
        key = writes[0].key.removeprefix("fp8_config.")
        if key == "override_linear_precision":
            sids = tuple(f"precision.fp8_override_{gemm}" for gemm in FP8_GEMMS)
            out[key] = ([bool(a[sid]) for sid in sids], sids)
        else:
            out[key] = (spelling(writes[0], a[s.id]), (s.id,))
    return out


def _render_fsdp(a: Answers, out: Rendered, put) -> None:
    """The fsdp_config keys that are not one-to-one: hybrid sizes, the single offload switch, the wrap details."""
    f: dict[str, Any] = out.accelerate.setdefault("fsdp_config", {})
    p = "fsdp_config."
    if a.target == FSDP2 and (hybrid_replicas(a) > 1 or a["parallelism.tp_size"] > 1 or a["parallelism.cp_size"] > 1):
        _render_fsdp2_parallelism(a, out, put)
    # both offload answers write FSDP's one switch: blamed on the one that turned it on, else on the table's first
    both = settings_of_key()[p + "fsdp_offload_params"]
    put(f, "fsdp_offload_params", fsdp_offload(a), next((sid for sid in both if a[sid] != "none"), both[0]), p)
    out.shared[p + "fsdp_offload_params"] = both
    policy = a["wrapping.policy"]
    if policy == "transformer" and a["wrapping.layer_classes"]:
        put(f, "fsdp_transformer_layer_cls_to_wrap", ",".join(a["wrapping.layer_classes"]), "wrapping.layer_classes", p)
    if policy == "size":
        put(f, "fsdp_min_num_params", int(a["wrapping.min_num_params"]), "wrapping.min_num_params", p)


def hybrid_replicas(a: Answers) -> int:
    """FSDP2's dp_replicate_size: with hybrid sharding, ``parallelism.dp_replicate_size`` when given, else the
    machines; 1 without hybrid sharding (answer rule parallelism-details-unused says so of a size given then)."""
    if not is_hybrid(a):
        return 1
    given = a["parallelism.dp_replicate_size"]
    if given:
        return int(given)
    return a["launch.num_machines"] if a["launch.num_machines"] > 1 else 1


def fsdp2_mesh_sizes(a: Answers) -> dict[str, int]:
    """FSDP2's parallelism sizes for these answers: dp_replicate from hybrid sharding (the machines), tp and cp as
    answered, dp_shard what is left of the processes (processes / (dp_replicate x tp x cp), at least 1; when that
    does not divide, answer rule parallelism-sizes-do-not-divide says so and the written total is off)."""
    replicate, tp, cp = hybrid_replicas(a), a["parallelism.tp_size"], a["parallelism.cp_size"]
    shard = max(1, a["launch.num_processes"] // (replicate * tp * cp))
    return {"dp_replicate": replicate, "dp_shard": shard, "cp": cp, "tp": tp}


def _render_fsdp2_parallelism(a: Answers, out: Rendered, put) -> None:
    """parallelism_config for FSDP2: hybrid sharding's dp_replicate x dp_shard, tensor and context parallelism."""
    pc: dict[str, Any] = {}
    q = "parallelism_config."
    p = "parallelism_config_"
    sizes = fsdp2_mesh_sizes(a)
    dims = ("parallelism.tp_size", "parallelism.cp_size")
    if sizes["dp_replicate"] > 1:
        put(pc, p + "dp_replicate_size", sizes["dp_replicate"], "sharding.strategy", q)
        replicas = "parallelism.dp_replicate_size" if a["parallelism.dp_replicate_size"] else "launch.num_machines"
        out.shared[q + p + "dp_replicate_size"] = ("sharding.strategy", replicas)
    put(pc, p + "dp_shard_size", sizes["dp_shard"], "sharding.strategy", q)
    replicate_from = (("parallelism.dp_replicate_size",) if sizes["dp_replicate"] > 1
                      and a["parallelism.dp_replicate_size"] else ())
    out.shared[q + p + "dp_shard_size"] = ("sharding.strategy", "launch.num_processes", "launch.num_machines",
                                           *replicate_from, *(d for d in dims if a[d] > 1))
    if sizes["tp"] > 1:
        put(pc, p + "tp_size", sizes["tp"], "parallelism.tp_size", q)
    if sizes["cp"] > 1:
        put(pc, p + "cp_size", sizes["cp"], "parallelism.cp_size", q)
        # the launcher exports the strategy only with cp_size above 1 (accelerate/utils/launch.py:420-421)
        put(pc, p + "cp_comm_strategy", a["parallelism.cp_comm_strategy"], "parallelism.cp_comm_strategy", q)
    out.accelerate["parallelism_config"] = dict(sorted(pc.items()))


def _render_ds_sequence_parallel(a: Answers, out: Rendered, put) -> None:
    """parallelism_config for DeepSpeed's Ulysses sequence parallelism (sp_size above 1): the sp size and details, and
    dp_shard_size = processes / sp so that the batch size accelerate computes is DeepSpeed's. The launcher copies a YAML
    value onto its arguments as it is and exports str() of it, so a YAML bool false reaches accelerate as "False"
    (read as not variable); only the command-line flag, type=bool, would turn the text "False" into True."""
    pc: dict[str, Any] = {}
    q = "parallelism_config."
    p = "parallelism_config_"
    sp = a["parallelism.sp_size"]
    put(pc, p + "sp_size", sp, "parallelism.sp_size", q)
    put(pc, p + "sp_backend", "deepspeed", "parallelism.sp_size", q)
    # accelerate sizes DeepSpeed's train_batch_size by dp_replicate x dp_shard, DeepSpeed checks it against
    # processes / sp (claim ds-ulysses-batch-needs-dp-sizes): the processes left over go to dp_shard
    rest = max(1, a["launch.num_processes"] // sp)
    if rest > 1:
        put(pc, p + "dp_shard_size", rest, "parallelism.sp_size", q)
        out.shared[q + p + "dp_shard_size"] = ("parallelism.sp_size", "launch.num_processes")
    put(pc, p + "sp_seq_length_is_variable", bool(a["parallelism.sp_seq_length_is_variable"]),
        "parallelism.sp_seq_length_is_variable", q)
    # a length is read only for a fixed length (accelerate/utils/dataclasses.py:2280-2287); answer rule
    # parallelism-details-unused names one given beside a variable length
    if a["parallelism.sp_seq_length"] is not None and not a["parallelism.sp_seq_length_is_variable"]:
        put(pc, p + "sp_seq_length", int(a["parallelism.sp_seq_length"]), "parallelism.sp_seq_length", q)
    put(pc, p + "sp_attn_implementation", a["parallelism.sp_attn_implementation"],
        "parallelism.sp_attn_implementation", q)
    out.accelerate["parallelism_config"] = dict(sorted(pc.items()))


def _render_deepspeed(a: Answers, out: Rendered, put, ds_config_ref: str, json_mode: bool) -> None:
    """The deepspeed_config keys that are not one-to-one, and the DeepSpeed JSON when one is needed."""
    d: dict[str, Any] = out.accelerate.setdefault("deepspeed_config", {})
    p = "deepspeed_config."
    stage = zero_stage(a)
    gas = a["training.gradient_accumulation_steps"]
    clip = a["training.gradient_clipping"]
    if json_mode:
        put(d, "deepspeed_config_file", ds_config_ref, "deepspeed.config_file", p)
        out.deepspeed = _ds_json(a, out.provenance)
    else:
        # under the Trainer both stay "auto" (absent inline), filled from TrainingArguments; a number would have
        # to equal its argument
        if gas != AUTO and not trainer_loop(a):
            put(d, "gradient_accumulation_steps", gas, "training.gradient_accumulation_steps", p)
        if clip != AUTO and not trainer_loop(a):
            put(d, "gradient_clipping", float(clip), "training.gradient_clipping", p)
        put(d, "offload_optimizer_device", ds_offload_optimizer(a), "offload.optimizer", p)
        put(d, "offload_param_device", ds_offload_params(a), "offload.params", p)
    if a["parallelism.sp_size"] > 1:
        _render_ds_sequence_parallel(a, out, put)
    # at ZeRO-3 false would not stop zero.Init (rule ds-zero3-init-cannot-be-off): true, what happens anyway
    put(d, "zero3_init_flag", stage == 3, "loading.ram_efficient", p)
    if a["wrapping.ds_moe_layer_classes"]:
        put(d, "deepspeed_moe_layer_cls_names", ",".join(a["wrapping.ds_moe_layer_classes"]),
            "wrapping.ds_moe_layer_classes", p)
    if a["launch.num_machines"] > 1:
        launcher = a["launch.ds_multinode_launcher"]
        put(d, "deepspeed_multinode_launcher", launcher, "launch.ds_multinode_launcher", p)
        if launcher != "standard":
            if a["launch.ds_hostfile"] is not None:
                put(d, "deepspeed_hostfile", a["launch.ds_hostfile"], "launch.ds_hostfile", p)
            if a["launch.ds_inclusion_filter"] is not None:
                put(d, "deepspeed_inclusion_filter", a["launch.ds_inclusion_filter"], "launch.ds_inclusion_filter", p)
            if a["launch.ds_exclusion_filter"] is not None:
                put(d, "deepspeed_exclusion_filter", a["launch.ds_exclusion_filter"], "launch.ds_exclusion_filter", p)


def _ds_json(a: Answers, prov: dict[str, str]) -> dict[str, Any]:
    stage = zero_stage(a)
    mp = a["precision.mixed_precision"]
    j: dict[str, Any] = {}

    def put(d: dict, key: str, value: Any, answer_id: str, prefix: str = "") -> None:
        d[key] = value
        prov[prefix + key] = answer_id

    for s, w, value in one_to_one_writes(a):
        if w.file == JSON:
            _put_path(j, w.key, value)
            prov[w.key] = s.id
    trainer = trainer_loop(a)
    put(j, "train_batch_size", AUTO, "training.micro_batch_size")
    put(j, "train_micro_batch_size_per_gpu", AUTO if trainer else a["training.micro_batch_size"],
        "training.micro_batch_size")
    put(j, "gradient_accumulation_steps", AUTO if trainer else a["training.gradient_accumulation_steps"],
        "training.gradient_accumulation_steps")
    clip = a["training.gradient_clipping"]
    put(j, "gradient_clipping", AUTO if trainer or clip == AUTO else float(clip), "training.gradient_clipping")
    bf16: bool | str = AUTO if trainer else mp in ("bf16", "fp8")
    fp16: bool | str = AUTO if trainer else True
    j["bf16"] = dict(sorted({**j.get("bf16", {}), "enabled": bf16}.items()))  # beside the master-weight keys
    prov["bf16.enabled"] = "precision.mixed_precision"
    j["fp16"] = {"enabled": fp16, "auto_cast": True} if mp == "fp16" else {"enabled": AUTO if trainer else False}
    prov["fp16.enabled"] = "precision.mixed_precision"
    z: dict[str, Any] = j.setdefault("zero_optimization", {})
    zp = "zero_optimization."
    for key, device, sid in (("offload_optimizer", ds_offload_optimizer(a), "offload.optimizer"),
                             ("offload_param", ds_offload_params(a), "offload.params")):
        if device == "none":
            continue
        block: dict[str, Any] = {}
        bp = f"{zp}{key}."
        put(block, "device", device, sid, bp)
        if device == "nvme":
            put(block, "nvme_path", a["offload.nvme_path"], "offload.nvme_path", bp)
        put(block, "pin_memory", a["offload.pin_memory"], "offload.pin_memory", bp)
        z[key] = block
    if is_hybrid(a) and a["launch.num_machines"] > 1 and stage == 3:
        put(z, "zero_hpz_partition_size", processes_per_node(a), "sharding.strategy", zp)
    j["zero_optimization"] = dict(sorted(z.items()))
    extra = a["deepspeed.extra"]
    if extra:
        _merge(j, extra, prov, "")
    return dict(sorted(j.items()))


def _merge(base: dict, extra: dict, prov: dict[str, str], prefix: str) -> None:
    for key, value in extra.items():
        path = prefix + key
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value, prov, path + ".")
            base[key] = dict(sorted(base[key].items()))
        else:
            base[key] = value
            prov[path] = "deepspeed.extra"


TRAINING_ARGUMENT_OF = {"training.micro_batch_size": "per_device_train_batch_size",
                        "training.gradient_accumulation_steps": "gradient_accumulation_steps",
                        "training.gradient_clipping": "max_grad_norm"}
"""Answer -> the TrainingArguments field that carries it under the Trainer (precision: ``bf16`` / ``fp16``)."""
DS_KEY_OF_TRAINING = {sid: next(key for key, names, _ in TRAINER_MATCHED if names == (arg,))
                      for sid, arg in TRAINING_ARGUMENT_OF.items()}
"""Answer -> the top-level DeepSpeed key the Trainer matches with its argument (read from library/auto.py
TRAINER_MATCHED: train_micro_batch_size_per_gpu, gradient_accumulation_steps, gradient_clipping)."""

_TRAINER_ARGUMENT_ORDER = tuple(TRAINER_DEFAULTS)  # the library table's order: batch, clipping, precision, optimizer


def training_arguments(a: Answers) -> dict[str, Any]:
    """The TrainingArguments that carry these answers under the Hugging Face Trainer, in a stable order.

    The Trainer passes them to accelerate (accumulation counted by itself, clipping with max_grad_norm, the
    precision) and, under DeepSpeed, fills the JSON's "auto" values from them. An answer left "auto" is not listed
    (the argument's own default applies). fp8 has no argument (the accelerate config's mixed_precision carries it).
    Numbers of an optimizer or scheduler block in ``deepspeed.extra`` are listed too: the Trainer requires the
    arguments to equal them."""
    out: dict[str, Any] = {}
    micro, gas, clip = (a["training.micro_batch_size"], a["training.gradient_accumulation_steps"],
                        a["training.gradient_clipping"])
    if isinstance(micro, int):
        out[TRAINING_ARGUMENT_OF["training.micro_batch_size"]] = micro
    if isinstance(gas, int):
        out[TRAINING_ARGUMENT_OF["training.gradient_accumulation_steps"]] = gas
    if clip != AUTO:
        out[TRAINING_ARGUMENT_OF["training.gradient_clipping"]] = float(clip)
    mp = a["precision.mixed_precision"]
    if mp in ("bf16", "fp16"):
        out[mp] = True
    if a.target == DEEPSPEED:
        out.update(_extra_arguments(a["deepspeed.extra"] or {}))
    return {k: out[k] for k in _TRAINER_ARGUMENT_ORDER if k in out}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _extra_arguments(extra: dict[str, Any]) -> dict[str, Any]:
    """TrainingArguments that must equal concrete numbers of ``deepspeed.extra`` (the micro batch, accumulation and
    clipping it writes over the answers' "auto", the optimizer's and scheduler's parameters), so that the pair the
    wizard writes is the one the Trainer accepts (transformers/integrations/deepspeed.py ``trainer_config_process``/
    ``trainer_config_finalize``; answer rule ds-extra-overrides-training says when it overrides an answer)."""
    out: dict[str, Any] = {}
    for sid, key in DS_KEY_OF_TRAINING.items():
        value = extra.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[TRAINING_ARGUMENT_OF[sid]] = float(value) if key == "gradient_clipping" else value
    opt = extra.get("optimizer", {}).get("params", {}) if isinstance(extra.get("optimizer"), dict) else {}
    sched = extra.get("scheduler", {}).get("params", {}) if isinstance(extra.get("scheduler"), dict) else {}
    opt = opt if isinstance(opt, dict) else {}
    sched = sched if isinstance(sched, dict) else {}
    for value in (sched.get("warmup_max_lr"), opt.get("lr")):  # the optimizer's wins when both are given
        if _number(value):
            out["learning_rate"] = value
    betas = opt.get("betas")
    if isinstance(betas, (list, tuple)) and len(betas) == 2 and all(_number(b) for b in betas):
        out["adam_beta1"], out["adam_beta2"] = betas
    for key, name in (("eps", "adam_epsilon"), ("weight_decay", "weight_decay")):
        if _number(opt.get(key)):
            out[name] = opt[key]
    if _number(sched.get("warmup_num_steps")) and int(sched["warmup_num_steps"]) == sched["warmup_num_steps"]:
        out["warmup_steps"] = int(sched["warmup_num_steps"])
    if _number(sched.get("total_num_steps")) and int(sched["total_num_steps"]) == sched["total_num_steps"]:
        out["max_steps"] = int(sched["total_num_steps"])
    return out


def training_arguments_line(arguments: dict[str, Any]) -> str:
    """``TrainingArguments(per_device_train_batch_size=4, gradient_accumulation_steps=8, bf16=True)``."""
    return "TrainingArguments(" + ", ".join(f"{k}={v!r}" for k, v in arguments.items()) + ")"
