"""DeepSpeed JSON rules, part 2: precision, ZeRO stage/offload combinations, optimizer and scheduler, checkpoint
and dtype settings (docs/library-behaviour.md, "DeepSpeed itself"). Keys are dotted paths from the root of the
DeepSpeed JSON."""
from __future__ import annotations

from .. import ds_schema as S
from ..context import LOOP_ACCELERATE
from ..vocab import is_true_word
from .base import DOC, DS, ERROR, WARNING, A, ConfigCheck, ds_range, fmt, rule
from .ds import check_offload_vs_stage

C = DS + "runtime/config.py"
E = DS + "runtime/engine.py"
FP16_DTYPES = {"fp16", "float16", "half", "torch.float16"}
BF16_DTYPES = {"bf16", "bfloat16", "torch.bfloat16"}
FP32_DTYPES = {"fp32", "float32", "float", "torch.float32"}

BOTH_PRECISIONS = rule("ds-json-fp16-and-bf16", ERROR, "fp16 and bf16 both enabled",
                       DOC + "ds-precision; " + C + ":511-512", claims=("ds-fp16-bf16-exclusive",))
LOSS_SCALE = rule("ds-json-fp16-loss-scale-invalid", ERROR, "fp16 loss-scale settings DeepSpeed rejects",
                  DOC + "ds-precision; " + DS + "runtime/precision_config.py:120-197",
                  claims=("ds-fp16-loss-scale-checked",))
PARAM_DTYPE = rule("ds-json-param-dtype-conflict", ERROR, "data_types.param_dtype differs from the enabled precision",
                   DOC + "ds-precision; " + E + ":1812-1829", claims=("ds-param-dtype-must-match",),
                 versions=ds_range("ds-json-param-dtype-conflict"))
DTYPE_NAME = rule("ds-json-dtype-invalid", ERROR, "A dtype name DeepSpeed does not know",
                  DOC + "ds-precision; " + C + ":148-170 (DtypeEnum), 185-194, 559-567", claims=("ds-dtype-names",))
MASTER_WEIGHTS = rule("ds-json-master-weights-invalid", ERROR,
                      "fp16/bf16 master-weight options need ZeRO 1-3 (and bf16_optimizer_states needs bf16 masters)",
                      DOC + "ds-precision; " + C + ":702-714",
                      claims=("master-weights-zero-stages", "ds-fp16-master-weights-zero-stages"))
STAGE_OFFLOAD_RATIO = rule("ds-json-partial-offload-needs-stage3", ERROR,
                           "offload_optimizer.ratio < 1 (partial offload) is ZeRO-3 only",
                           DOC + "ds-offload-and-zero-stage; " + DS + "runtime/zero/config.py:395-400",
                           claims=("ds-partial-offload-zero3-only",))
NVME_NO_PATH = rule("ds-json-nvme-path-missing", ERROR, "NVMe offload at ZeRO-3 without nvme_path",
                    DOC + "ds-nvme-offload; " + DS
                    + "runtime/zero/stage3.py:839-841, runtime/zero/partition_parameters.py:1225-1230",
                    claims=("ds-nvme-needs-aio-and-path",))
GRAD_NORM = rule("ds-json-compute-grad-norm-invalid", ERROR,
                 "compute_grad_norm: false needs stage 1/2, no optimizer offload and no gradient clipping",
                 DOC + "ds-zero-options; " + DS
                 + "runtime/zero/config.py:389-393, runtime/zero/stage_1_and_2.py:212-218",
                 claims=("ds-compute-grad-norm-false-limits",),
                 versions=ds_range("ds-json-compute-grad-norm-invalid"))
ALLREDUCE = rule("ds-json-gradient-allreduce-op-invalid", ERROR,
                 "gradient_allreduce_op must be mean/sum; sum is not allowed with ZeRO-3 / DeepCompile / ZenFlow",
                 DOC + "ds-zero-options; " + C + ":233-241, 695-700", claims=("ds-gradient-allreduce-op-values",),
                 versions=ds_range("ds-json-gradient-allreduce-op-invalid"))
COMM_DTYPE = rule("ds-json-communication-data-type-invalid", ERROR,
                  "communication_data_type must be fp16, bf16 or fp32", DOC + "ds-precision; " + C + ":216-230",
                  keys="communication_data_type or seq_parallel_communication_data_type",
                  claims=("ds-communication-data-type-values",))
GATHER_UNUSED = rule("ds-json-gather-16bit-unused", ERROR,
                     "16-bit weight gathering on save set below ZeRO-3 (without tensor parallelism): never read",
                     DOC + "ds-zero3-flags; " + A
                     + "accelerator.py:4069-4074 (get_state_dict reads it only for ZeRO-3 or autotp); "
                     + DS + "runtime/zero/config.py:257-263", claims=("ds-16bit-gather-zero3-only",))
CPU_OFFLOAD_CLIENT = rule("ds-json-deprecated-cpu-offload-client-optimizer", ERROR,
                          "Deprecated cpu_offload + a client optimizer: accelerate does not swap in a CPU optimizer",
                          DOC + "ds-optimizer-and-scheduler; " + A + "accelerator.py:2377-2383; " + E + ":2339-2346",
                          claims=("ds-deprecated-cpu-offload-client-optimizer",))
OPT_TYPE = rule("ds-json-optimizer-type-unknown", ERROR, "optimizer.type DeepSpeed cannot build",
                DOC + "ds-optimizer-and-scheduler; " + E + ":1985-1986, 2016-2019", claims=("ds-optimizer-type-known",))
OPT_MAX_NORM = rule("ds-json-optimizer-max-grad-norm", ERROR, "optimizer.params.max_grad_norm is rejected",
                    DOC + "ds-optimizer-and-scheduler; " + E + ":2481-2484",
                    claims=("ds-optimizer-max-grad-norm-refused",))
LAMB = rule("ds-json-lamb-static-loss-scale", ERROR, "LAMB needs dynamic loss scaling (fp16.loss_scale 0)",
            DOC + "ds-optimizer-and-scheduler; " + E + ":2021-2023", claims=("ds-lamb-needs-dynamic-loss-scale",))
IN_JSON_AND_SCRIPT = rule("ds-json-optimizer-block-and-script-optimizer", ERROR,
                          "An optimizer (or scheduler) block in the DeepSpeed JSON while the script passes its own "
                          "torch optimizer (or LR scheduler) to prepare(): prepare() raises",
                          DOC + "ds-optimizer-and-scheduler; " + A + "accelerator.py:2240-2287",
                          keys="optimizer or scheduler (DeepSpeed JSON); the script's prepare() call is in the message",
                          fix="Pass accelerate's DummyOptim (DummyScheduler) to prepare(), or delete the block from "
                              "the JSON and keep the script's own optimizer (scheduler).",
                          claims=("ds-optimizer-json-and-script",))
BLOCK_OWN_LOOP = rule("ds-json-optimizer-block-own-loop", WARNING,
                      "An optimizer (or scheduler) block in the DeepSpeed JSON under an own Accelerator loop: works "
                      "when the script passes DummyOptim (DummyScheduler); its own torch optimizer makes prepare() "
                      "raise",
                      DOC + "ds-optimizer-and-scheduler; " + A + "accelerator.py:2240-2287",
                      keys="optimizer or scheduler (DeepSpeed JSON)",
                      fix="Pass accelerate's DummyOptim (DummyScheduler) to prepare(), or delete the block and pass "
                          "the script's own; `check --script train.py` reads which the script passes.",
                      claims=("ds-optimizer-json-and-script",))
SCHED_TYPE = rule("ds-json-scheduler-type-unknown", ERROR, "scheduler.type DeepSpeed does not recognise",
                  DOC + "ds-optimizer-and-scheduler; " + E + ":1923-1936; " + DS + "runtime/lr_schedules.py:24",
                  claims=("ds-scheduler-type-and-params",))
SCHED_PARAM = rule("ds-json-scheduler-param-unknown", ERROR, "A scheduler parameter the scheduler does not take",
                   DOC + "ds-optimizer-and-scheduler; " + E
                   + ":1934-1935 (constructor keywords, recorded by scripts/gen_ds_schema.py)",
                   claims=("ds-scheduler-type-and-params",))
CHECKPOINT = rule("ds-json-checkpoint-invalid", ERROR, "checkpoint.tag_validation / parallel_write value invalid",
                  DOC + "ds-zero-options; " + C + ":387-408", claims=("ds-checkpoint-options-checked",))
GRAD_NORM_AUTO = rule("ds-json-compute-grad-norm-auto-clipping", WARNING,
                      "compute_grad_norm: false with \"auto\" clipping: works only where the filler writes 0 "
                      "(the HF Trainer with max_grad_norm=0; an own loop fills 1.0)",
                      DOC + "ds-zero-options; " + DS + "runtime/zero/stage_1_and_2.py:212-218; " + A
                      + "accelerator.py:2222-2225; transformers/integrations/deepspeed.py:151",
                      keys="zero_optimization.compute_grad_norm, gradient_clipping",
                      claims=("ds-compute-grad-norm-false-limits", "trainer-ds-values-must-match-arguments"))
WARMUP_STEPS = rule("ds-json-warmup-steps-invalid", ERROR,
                    "WarmupLR / WarmupDecayLR warmup_num_steps that is not a positive integer (the scheduler raises)",
                    DOC + "ds-optimizer-and-scheduler; " + DS + "runtime/lr_schedules.py:729-744, 819-826",
                    keys="scheduler.params.warmup_num_steps",
                    claims=("ds-warmup-steps-positive-int",),
                    versions=ds_range("ds-scheduler-warmup-num-steps-positive"))
KEEP_FP32 = rule("ds-json-keep-in-fp32-modules-invalid", ERROR,
                 "data_types.keep_in_fp32_modules must be \"auto\" or a list of strings",
                 DOC + "ds-precision; " + C + ":566-570", claims=("ds-keep-in-fp32-modules-list",),
                 versions=ds_range("ds-json-keep-in-fp32-modules-invalid"))


def _enabled(section) -> bool | None:
    """pydantic's reading of `enabled` (True/False), None for "auto" or unknown."""
    if not isinstance(section, dict):
        return False
    v = section.get("enabled", False)
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        if v == "auto":
            return None
        return is_true_word(v)
    if isinstance(v, (int, float)):
        return v == 1
    return None


def _sec(ds: dict, name: str) -> dict:
    v = ds.get(name)
    return v if isinstance(v, dict) else {}


def _num(value) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def check_precision(ctx: ConfigCheck, ds: dict) -> None:
    fp16, bf16 = _sec(ds, "fp16"), _sec(ds, "bf16")
    f_on, b_on = _enabled(ds.get("fp16")), _enabled(ds.get("bf16"))
    if f_on and b_on:
        ctx.emit(BOTH_PRECISIONS, ("fp16.enabled", "bf16.enabled"), "fp16 and bf16 are both enabled; DeepSpeed "
                 "refuses ('cannot be simultaneously enabled').", "Enable only one (bf16 on Ampere or newer GPUs).")
    if fp16:
        ls = fp16.get("loss_scale", 0)
        ls_n = _num(ls)
        if (isinstance(ls, bool) or (ls != "auto" and (ls_n is None or ls_n < 0))) \
                and S.check_applies("ds-json-fp16-loss-scale-invalid/loss_scale"):
            ctx.emit(LOSS_SCALE, "fp16.loss_scale", f"`fp16.loss_scale: {fmt(ls)}` must be a number >= 0 (0 means "
                     "dynamic loss scaling); DeepSpeed rejects it.", "Write 0 (dynamic) or a positive number.")
        for k in ("loss_scale_window", "min_loss_scale"):
            if not S.check_applies(f"ds-json-fp16-loss-scale-invalid/{k}"):
                continue
            v = fp16.get(k)
            v_n = _num(v)
            if isinstance(v, bool):
                ctx.emit(LOSS_SCALE, f"fp16.{k}", f"`fp16.{k}: {fmt(v)}` must be an integer, not a boolean.",
                         "Write a positive integer.")
            elif f_on and ls_n == 0 and v is not None and v != "auto" and v_n is not None and v_n <= 0:
                ctx.emit(LOSS_SCALE, f"fp16.{k}", f"`fp16.{k}: {fmt(v)}` must be above 0 with dynamic loss scaling "
                         "(loss_scale 0); DeepSpeed rejects it.", "Write a positive integer (defaults: window "
                         "1000, min 1).")
    dt = _sec(ds, "data_types")
    names = set(S.enum("dtype_names"))
    for k in ("param_dtype", "grad_accum_dtype", "buffer_dtype"):
        v = dt.get(k)
        if k == "buffer_dtype" and f_on is False and b_on is False:
            continue  # only read when fp16/bf16 casts the module (runtime/engine.py:2080-2088)
        if v is not None and v not in names:
            ctx.emit(DTYPE_NAME, f"data_types.{k}", f"`data_types.{k}: {fmt(v)}` is not a dtype DeepSpeed knows; "
                     "the engine raises when it starts" + (" with fp16 or bf16 enabled" if k == "buffer_dtype"
                                                           else "") + ".", "Use fp32, fp16 or bf16.")
    pd = dt.get("param_dtype")
    if pd in names and f_on is not None and b_on is not None:
        want = "fp16" if f_on else "bf16" if b_on else "fp32"
        have = "fp16" if pd in FP16_DTYPES else "bf16" if pd in BF16_DTYPES else "fp32" if pd in FP32_DTYPES else None
        if have is not None and have != want:
            ctx.emit(PARAM_DTYPE, ("data_types.param_dtype",) + (("fp16.enabled",) if f_on else ("bf16.enabled",)
                                                                 if b_on else ()),
                     f"`data_types.param_dtype: {fmt(pd)}` does not match the enabled precision ({want}); the engine "
                     "asserts at start-up.", "Make param_dtype match the fp16/bf16 block, or delete it.")
    ac = _sec(ds, "torch_autocast")
    if ac.get("dtype") is not None and ac.get("dtype") not in names \
            and S.check_applies("ds-json-dtype-invalid/torch_autocast.dtype"):
        ctx.emit(DTYPE_NAME, "torch_autocast.dtype", f"`torch_autocast.dtype: {fmt(ac['dtype'])}` is not a dtype "
                 "DeepSpeed knows; it raises.", "Use bf16 or fp16.")
    kf = dt.get("keep_in_fp32_modules", "auto")
    if kf != "auto" and not (isinstance(kf, list) and all(isinstance(x, str) for x in kf)):
        ctx.emit(KEEP_FP32, "data_types.keep_in_fp32_modules", f"`data_types.keep_in_fp32_modules: {fmt(kf)}` must "
                 "be \"auto\" or a list of name patterns; DeepSpeed raises.", "Write a list of strings.")
    stage = ctx.stage
    for sec, opt in (("fp16", "fp16_master_weights_and_grads"), ("bf16", "bf16_master_weights_and_grads"),
                     ("bf16", "bf16_optimizer_states")):
        v = _sec(ds, sec).get(opt)
        if not S.check_applies(f"ds-json-master-weights-invalid/{opt}"):
            continue  # a release that does not check it (or know the key: the schema says so)
        if v is True and stage is not None and stage == 0:  # keys: the option and the stage
            ctx.emit(MASTER_WEIGHTS, (f"{sec}.{opt}", "zero_optimization.stage"), f"`{sec}.{opt}: true` needs ZeRO "
                     "stage 1, 2 or 3; DeepSpeed asserts at stage 0.", "Raise the ZeRO stage or drop the option.")
    if bf16.get("bf16_optimizer_states") is True and bf16.get("bf16_master_weights_and_grads") is not True \
            and S.check_applies("ds-json-master-weights-invalid/bf16_optimizer_states"):
        ctx.emit(MASTER_WEIGHTS, ("bf16.bf16_optimizer_states",), "`bf16.bf16_optimizer_states: true` requires "
                 "`bf16.bf16_master_weights_and_grads: true`; DeepSpeed asserts.",
                 "Also set bf16_master_weights_and_grads to true, or drop bf16_optimizer_states.")


def _device(section) -> str:
    if not isinstance(section, dict):
        return "none"
    d = section.get("device", "none")
    return d if d in ("cpu", "nvme") else "none"  # "auto" is filled with none; bad values are reported elsewhere


def check_zero(ctx: ConfigCheck, ds: dict) -> None:
    zo = _sec(ds, "zero_optimization")
    stage = ctx.stage
    oo, op = zo.get("offload_optimizer"), zo.get("offload_param")
    devices = {"offload_optimizer": ("zero_optimization.offload_optimizer.device", _device(oo)),
               "offload_param": ("zero_optimization.offload_param.device", _device(op))}
    check_offload_vs_stage(ctx, devices)
    if stage == 3:
        for name, sec in (("offload_optimizer", oo), ("offload_param", op)):
            if isinstance(sec, dict) and _device(sec) == "nvme" and sec.get("nvme_path") is None:
                ctx.emit(NVME_NO_PATH, f"zero_optimization.{name}.nvme_path",
                         f"`zero_optimization.{name}` offloads to nvme without `nvme_path`; ZeRO-3 fails when it sets "
                         "up the swap files.", "Add `\"nvme_path\": \"/local_nvme\"` (a fast local disk).")
    if isinstance(oo, dict):
        ratio = _num(oo.get("ratio", 1.0))
        if ratio is not None and ratio < 1 and stage is not None and stage != 3:
            ctx.emit(STAGE_OFFLOAD_RATIO, ("zero_optimization.offload_optimizer.ratio", "zero_optimization.stage"),
                     f"`offload_optimizer.ratio: {fmt(oo.get('ratio'))}` (partial offload) is only supported by "
                     f"ZeRO-3; at stage {stage} DeepSpeed asserts.", "Use ratio 1.0, or stage 3.")
    if zo.get("compute_grad_norm") is False:
        clip = ds.get("gradient_clipping", 1.0)
        clip_n = 1.0 if clip == "auto" else _num(clip)
        if clip == "auto" and ctx.loop != LOOP_ACCELERATE and (stage in (1, 2) and _device(oo) == "none"):
            if ctx.loop is None:
                ctx.emit(GRAD_NORM_AUTO, ("zero_optimization.compute_grad_norm", "gradient_clipping"),
                         "`zero_optimization.compute_grad_norm: false` needs gradient clipping off, and "
                         "`gradient_clipping` is \"auto\": an own Accelerator loop fills 1.0, so DeepSpeed raises; "
                         "the HF Trainer fills max_grad_norm, which works only with max_grad_norm=0.",
                         "Write \"gradient_clipping\": 0.0 (under the Trainer also pass max_grad_norm=0).")
            else:
                ctx.emit(GRAD_NORM_AUTO, ("zero_optimization.compute_grad_norm", "gradient_clipping"),
                         "`zero_optimization.compute_grad_norm: false` needs gradient clipping off; the HF Trainer "
                         "fills the \"auto\" `gradient_clipping` with max_grad_norm (default 1.0), so it works only "
                         "with TrainingArguments(max_grad_norm=0).",
                         "Pass max_grad_norm=0 to TrainingArguments (or write \"gradient_clipping\": 0.0 and the "
                         "same max_grad_norm).")
            clip_n = None
        problems, other = [], ""
        if stage is not None and stage not in (1, 2):
            problems.append(f"the stage is {stage} (only 1 or 2 allowed)")
            other = "zero_optimization.stage"
        elif _device(oo) != "none":
            problems.append("the optimizer is offloaded")
            other = "zero_optimization.offload_optimizer.device"
        elif clip_n is not None and clip_n > 0:
            problems.append(f"gradient clipping is {clip_n:g}" + (" (DeepSpeed's default)" if "gradient_clipping"
                                                                   not in ds else ""))
            other = "gradient_clipping"
        if problems:
            ctx.emit(GRAD_NORM, ("zero_optimization.compute_grad_norm", other),
                     "`zero_optimization.compute_grad_norm: false` cannot work here: " + problems[0]
                     + "; DeepSpeed raises.",
                     "Delete compute_grad_norm, or use stage 1/2 without optimizer offload and with "
                     "\"gradient_clipping\": 0.0.")
    gather = zo.get("stage3_gather_16bit_weights_on_model_save", zo.get("gather_16bit_weights_on_model_save"))
    tp = _sec(ds, "tensor_parallel").get("autotp_size", 0)
    autotp = isinstance(tp, (int, float)) and not isinstance(tp, bool) and tp > 1
    if gather is True and stage is not None and stage != 3 and not autotp:
        gkey = ("zero_optimization.stage3_gather_16bit_weights_on_model_save"
                if "stage3_gather_16bit_weights_on_model_save" in zo else
                "zero_optimization.gather_16bit_weights_on_model_save")
        ctx.emit(GATHER_UNUSED, (gkey, "zero_optimization.stage"),
                 f"`{gkey}: true` is only read at ZeRO-3 (or with tensor parallelism), but the stage here is {stage}: "
                 "the setting does not take effect.", "Delete it, or use stage 3.")
    if zo.get("cpu_offload") is True and "offload_optimizer" not in zo and "optimizer" not in ds \
            and ds.get("zero_force_ds_cpu_optimizer", True) is not False and stage is not None and stage > 0:
        ctx.emit(CPU_OFFLOAD_CLIENT, "zero_optimization.cpu_offload",
                 "`zero_optimization.cpu_offload: true` (deprecated) turns on optimizer offload inside DeepSpeed, but "
                 "accelerate only swaps a torch optimizer for DeepSpeed's CPU optimizer when it sees "
                 "`offload_optimizer.device`; with no optimizer block in the JSON the engine then refuses the client "
                 "optimizer.", "Write `\"offload_optimizer\": {\"device\": \"cpu\"}` instead of cpu_offload.")
    op_name = ds.get("gradient_allreduce_op")
    if op_name is not None:
        low = op_name.lower() if isinstance(op_name, str) else op_name
        if low not in S.enum("gradient_allreduce_op"):
            ctx.emit(ALLREDUCE, "gradient_allreduce_op", f"`gradient_allreduce_op: {fmt(op_name)}` must be mean or "
                     "sum; DeepSpeed raises.", "Use mean (default) or sum.")
        elif low == "sum":
            conflict = ("ZeRO-3" if stage == 3 else "DeepCompile" if _sec(ds, "compile").get("deepcompile") is True
                        else "ZenFlow" if zo.get("zenflow") is not None else None)
            if conflict:
                other = {"ZeRO-3": "zero_optimization.stage", "DeepCompile": "compile.deepcompile",
                         "ZenFlow": "zero_optimization.zenflow"}[conflict]
                ctx.emit(ALLREDUCE, ("gradient_allreduce_op", other),
                         f"`gradient_allreduce_op: sum` is not supported with {conflict}; DeepSpeed raises.",
                         "Use mean.")
    for k in ("communication_data_type", "seq_parallel_communication_data_type"):
        v = ds.get(k)
        if v is not None and (not isinstance(v, str) or v.lower() not in ("fp16", "bf16", "fp32")):
            ctx.emit(COMM_DTYPE, k, f"`{k}: {fmt(v)}` must be fp16, bf16 or fp32; DeepSpeed raises.",
                     "Use fp32 (safest), bf16 or fp16.")
    ck = _sec(ds, "checkpoint")
    tv = ck.get("tag_validation")
    if tv is not None and (not isinstance(tv, str) or tv.upper() not in S.enum("checkpoint_tag_validation")):
        ctx.emit(CHECKPOINT, "checkpoint.tag_validation", f"`checkpoint.tag_validation: {fmt(tv)}` must be Warn, "
                 "Ignore or Fail; DeepSpeed raises.", "Use Warn, Ignore or Fail.")
    pw = ck.get("parallel_write")
    if isinstance(pw, dict) and "pipeline_stage" in pw and pw["pipeline_stage"] not in (True, False):
        ctx.emit(CHECKPOINT, "checkpoint.parallel_write.pipeline_stage", "`checkpoint.parallel_write.pipeline_stage` "
                 f"is {fmt(pw['pipeline_stage'])}; DeepSpeed only accepts true or false.", "Write true or false.")


def check_blocks_and_script(ctx: ConfigCheck, ds: dict) -> None:
    """An own Accelerator loop: prepare() refuses an object of the script's own next to the JSON block that builds
    the same thing (the check is on the block's presence, whatever it holds)."""
    if ctx.loop != LOOP_ACCELERATE:
        return  # the Trainer passes DummyOptim/DummyScheduler itself when the JSON has the blocks
    for block in ("optimizer", "scheduler"):
        if block not in ds:
            continue
        seen = ctx.context.prepared.get(block)
        kind = getattr(seen, "kind", None)
        evidence = getattr(seen, "evidence", "")
        # the two blocks' sentences written out (a/an, "torch optimizer" / "LR scheduler"), so that every word is
        # literal in the templates the translations are keyed to (wizard/core/localized/messages.py)
        opt = block == "optimizer"
        if kind == "own":
            ctx.emit(IN_JSON_AND_SCRIPT, block,
                     (f"The DeepSpeed JSON has an `optimizer` block and the script builds its own torch optimizer "
                      f"({evidence}): Accelerator.prepare() raises \"You cannot specify an optimizer in the config "
                      "file and in the code at the same time\"." if opt else
                      f"The DeepSpeed JSON has a `scheduler` block and the script builds its own LR scheduler "
                      f"({evidence}): Accelerator.prepare() raises \"You cannot specify a scheduler in the config "
                      "file and in the code at the same time\"."),
                     "Pass `accelerate.utils.DummyOptim` to prepare() (DeepSpeed then builds the optimizer from the "
                     "block), or delete the `optimizer` block and keep the script's own." if opt else
                     "Pass `accelerate.utils.DummyScheduler` to prepare() (DeepSpeed then builds the scheduler from "
                     "the block), or delete the `scheduler` block and keep the script's own.")
        elif kind is None:
            ctx.emit(BLOCK_OWN_LOOP, block,
                     "The DeepSpeed JSON has an `optimizer` block and an own Accelerator loop runs it: that works when "
                     "the script passes `accelerate.utils.DummyOptim` (or no optimizer) to prepare(); its own torch "
                     "optimizer makes prepare() raise (\"...in the config file and in the code at the same time\")."
                     if opt else
                     "The DeepSpeed JSON has a `scheduler` block and an own Accelerator loop runs it: that works when "
                     "the script passes `accelerate.utils.DummyScheduler` (or no scheduler) to prepare(); its own LR "
                     "scheduler makes prepare() raise (\"...in the config file and in the code at the same time\").",
                     "Pass DummyOptim to prepare(), or delete the `optimizer` block and pass the script's own "
                     "(`check --script train.py` reads which one the script passes)." if opt else
                     "Pass DummyScheduler to prepare(), or delete the `scheduler` block and pass the script's own "
                     "(`check --script train.py` reads which one the script passes).")


def check_optimizer_and_scheduler(ctx: ConfigCheck, ds: dict) -> None:
    check_blocks_and_script(ctx, ds)
    opt = ds.get("optimizer")
    if isinstance(opt, dict):
        t = opt.get("type")
        if t is not None:
            ok = isinstance(t, str) and (t.lower() in S.enum("deepspeed_optimizers") or t in S.enum("torch_optimizers"))
            if not ok:
                best = S.did_you_mean(str(t), S.enum("deepspeed_optimizers") + S.enum("torch_optimizers"))
                ctx.emit(OPT_TYPE, "optimizer.type", f"`optimizer.type: {fmt(t)}` is neither a DeepSpeed optimizer "
                         "nor a torch.optim class, so DeepSpeed cannot build it." + (f" Did you mean `{best}`?"
                                                                                     if best else ""),
                         "Use e.g. AdamW, or drop the optimizer block and create the optimizer in code.")
            elif t.lower() == "lamb":
                ls = _sec(ds, "fp16").get("loss_scale", 0)
                if _num(ls) not in (None, 0.0):
                    ctx.emit(LAMB, ("optimizer.type", "fp16.loss_scale"), "The LAMB optimizer requires dynamic loss "
                             f"scaling, but `fp16.loss_scale` is {fmt(ls)}; the engine asserts.",
                             "Set fp16.loss_scale to 0, or use another optimizer.")
        params = opt.get("params")
        if isinstance(params, dict) and "max_grad_norm" in params:
            ctx.emit(OPT_MAX_NORM, "optimizer.params.max_grad_norm",
                     "DeepSpeed refuses `max_grad_norm` as an optimizer parameter when it builds the optimizer.",
                     "Delete it and set the top-level \"gradient_clipping\" instead.")
    sch = ds.get("scheduler")
    if isinstance(sch, dict) and sch.get("type") is not None:
        t = sch["type"]
        ds_scheds, torch_scheds = S.enum("deepspeed_schedulers"), S.enum("torch_schedulers")
        if not isinstance(t, str) or t not in ds_scheds + torch_scheds:
            best = S.did_you_mean(str(t), ds_scheds + torch_scheds)
            ctx.emit(SCHED_TYPE, "scheduler.type", f"`scheduler.type: {fmt(t)}` is not a scheduler DeepSpeed "
                     "recognises (names are case-sensitive)." + (f" Did you mean `{best}`?" if best else ""),
                     "Use WarmupLR, WarmupDecayLR, WarmupCosineLR, OneCycle or LRRangeTest.")
        elif t in ds_scheds and isinstance(sch.get("params"), dict):
            w = sch["params"].get("warmup_num_steps")
            if t in ("WarmupLR", "WarmupDecayLR") and w is not None and w != "auto" \
                    and (not isinstance(w, int) or isinstance(w, bool) or w <= 0):
                ctx.emit(WARMUP_STEPS, "scheduler.params.warmup_num_steps", f"`scheduler.params.warmup_num_steps: "
                         f"{fmt(w)}`: {t} takes only a positive whole number of steps and raises when DeepSpeed builds "
                         "it (older releases turned it into 2).", "Write a whole number of steps >= 1 (no warm-up: 1).")
            allowed = S.enum("scheduler_params")[t]
            for p in sch["params"]:
                if str(p) not in allowed:
                    best = S.did_you_mean(str(p), allowed)
                    ctx.emit(SCHED_PARAM, f"scheduler.params.{p}", f"{t} takes no parameter `{p}`; building the "
                             "scheduler fails with an unexpected-keyword error." + (f" Did you mean `{best}`?"
                                                                                     if best else ""),
                             f"Use only: {', '.join(allowed)}.")
