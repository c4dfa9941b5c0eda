"""DeepSpeed rules on the accelerate side (docs/library-behaviour.md, "DeepSpeed through accelerate"): the YAML's
deepspeed_config and what DeepSpeedPlugin makes of it, plus the ZeRO stage/offload rules that apply to inline
settings and DeepSpeed JSONs alike."""
from __future__ import annotations

from ..context import LOOP_ACCELERATE, LOOP_HF
from ..i18n import said
from ..library.deepspeed import DS_FILE_CONFLICTING_FIELDS, DS_NVME_PATH_KEYS
from .base import (
    DOC,
    DS,
    ERROR,
    INFO,
    MISSING,
    WARNING,
    A,
    ConfigCheck,
    as_int,
    ds_range,
    fmt,
    kv,
    parse_bool,
    parse_int,
    rule,
)

D = A + "utils/dataclasses.py"
L = A + "utils/launch.py"
ACCELERATE_LAUNCHERS = ("standard", "nossh")  # compared exactly by accelerate (utils/launch.py:448-460)
RUNNER_LAUNCHERS = ("pdsh", "openmpi", "mpich", "impi", "mvapich", "slurm")  # lower-cased (launcher/runner.py:565-580)
MPI_LAUNCHERS = ("openmpi", "mpich", "impi", "mvapich")
"""The runner launchers whose constructor refuses what accelerate passes (claim ds-runner-backends)."""
FILE_MODE_FORBIDDEN = DS_FILE_CONFLICTING_FIELDS  # not allowed next to a JSON file (utils/dataclasses.py:1507-1532)

FILE_AND_INLINE = rule("deepspeed-file-with-inline-keys", ERROR,
                       "deepspeed_config_file together with inline DeepSpeed keys or mixed_precision",
                       DOC + "ds-config-file; " + D + ":1279, 1507-1532; " + A + "commands/launch.py:1393-1397",
                       claims=("ds-json-owns-its-keys", "ds-file-refuses-yaml-mixed-precision"))
STAGE_BAD = rule("deepspeed-zero-stage-invalid", ERROR, "zero_stage must be 0, 1, 2 or 3",
                 DOC + "ds-inline-config; " + D + ":1237-1238; " + DS + "runtime/zero/config.py:81-98",
                 claims=("ds-zero-stage-values",))
STAGE_DEFAULT = rule("deepspeed-zero-stage-default", INFO, "zero_stage omitted: accelerate uses ZeRO-2",
                     DOC + "ds-inline-config; " + D + ":1237-1238", claims=("ds-missing-stage-defaults",))
DEVICE_BAD = rule("deepspeed-offload-device-invalid", ERROR, "offload device must be none, cpu or nvme",
                  DOC + "ds-inline-config; " + L + ":573-576; " + DS + "runtime/zero/offload_config.py:14-18",
                  claims=("ds-offload-device-values",))
NVME_PATH_LOST = rule("deepspeed-inline-nvme-path-ignored", ERROR,
                      "Inline offload_*_nvme_path is never exported by accelerate launch",
                      DOC + "ds-nvme-offload; " + L + ":565-586 (no NVME_PATH export); " + D
                      + ":1246-1252; accelerate#1463", claims=("ds-inline-nvme-path-not-exported",))
NVME_INLINE = rule("deepspeed-inline-nvme-without-path", WARNING,
                   "Inline NVMe offload always uses the relative folder 'none'",
                   DOC + "ds-nvme-offload; " + D + ":1246-1252, 1308-1317",
                   claims=("ds-inline-nvme-path-not-exported",))
GAS_BAD = rule("deepspeed-gradient-accumulation-invalid", ERROR,
               "Inline gradient_accumulation_steps must be a positive integer (not auto)",
               DOC + "ds-gradient-accumulation-and-clipping; " + L + ":569-570; " + A + "accelerator.py:546-548",
               claims=("ds-inline-gradient-accumulation-auto-fails", "ds-inline-gradient-accumulation-whole-positive"))
CLIP_BAD = rule("deepspeed-gradient-clipping-invalid", ERROR, "Inline gradient_clipping must be a number or auto",
                DOC + "ds-gradient-accumulation-and-clipping; " + D + ":1233-1235",
                claims=("ds-inline-gradient-clipping-float",))
CLIP_ZERO = rule("deepspeed-gradient-clipping-zero-ignored", ERROR,
                 "Inline gradient_clipping 0 is dropped and DeepSpeed (0.19.3 and later) then clips at 1.0",
                 DOC + "ds-gradient-accumulation-and-clipping; " + D + ":1321-1322; " + DS
                 + "runtime/constants.py:203 (default 1.0, spec said 0)",
                 claims=("ds-gradient-clipping-on-unless-json-zero",),
                 versions=ds_range("deepspeed-gradient-clipping-zero-ignored"))
CLIP_MISSING = rule("deepspeed-no-gradient-clipping", WARNING,
                    "Inline DeepSpeed without gradient_clipping still clips (at 1.0 unless the Trainer says otherwise)",
                    DOC + "ds-gradient-accumulation-and-clipping; " + D + ":1233-1235, 1321-1322; " + A
                    + "accelerator.py:2223-2226; " + DS + "runtime/constants.py:203",
                    claims=("ds-gradient-clipping-on-unless-json-zero", "ds-accelerate-config-clipping-question"))
INIT_BAD = rule("deepspeed-zero3-init-flag-invalid", ERROR, "zero3_init_flag is not a boolean",
                DOC + "ds-zero3-flags; " + D + ":1327-1336; accelerate/utils/environment.py:59-71",
                claims=("ds-zero3-init-flag-truth-words",))
INIT_LOST = rule("deepspeed-zero3-init-flag-ignored", ERROR, "zero3_init_flag: true with a stage other than 3",
                 DOC + "ds-zero3-flags; " + D + ":1337-1339; accelerate/commands/config/cluster.py:309-313",
                 claims=("ds-zero3-init-flag-off-below-zero3", "ds-zero3-check-wants-the-number-3"))
INIT_OFF_IGNORED = rule("deepspeed-zero3-init-flag-false-ignored", ERROR,
                        "zero3_init_flag: false at ZeRO-3 does not stop zero.Init",
                        DOC + "ds-zero3-flags; " + D + ":1459-1488, 1554-1562; " + A + "state.py:978-990; "
                        "transformers/modeling_utils.py:1435-1450",
                        keys="deepspeed_config.zero3_init_flag and the stage (deepspeed_config.zero_stage or "
                        "zero_optimization.stage)",
                        fix="delete zero3_init_flag (ZeRO-3 turns it on), or load the model before creating the "
                        "Accelerator/TrainingArguments, or use stage 2",
                        claims=("ds-zero3-init-flag-does-not-stop-zero-init", "ds-zero3-init-needs-config-before-load"))
JSON_NO_GAS = rule("deepspeed-json-no-gradient-accumulation", WARNING,
                   "A DeepSpeed JSON without gradient_accumulation_steps: accelerate uses 1, whatever the script "
                   "passes",
                   DOC + "ds-gradient-accumulation-and-clipping; " + D + ":1274-1275; " + A
                   + "accelerator.py:2207-2221",
                   keys="gradient_accumulation_steps (DeepSpeed JSON)",
                   fix="write \"gradient_accumulation_steps\": \"auto\" (takes the script's value) or a number",
                   claims=("ds-json-without-gradient-accumulation-is-1",))
OFFLOAD_OPT_ADAM = rule("deepspeed-offload-optimizer-becomes-adam", INFO,
                        "Optimizer offload: a torch optimizer other than AdamW/Adam, Adagrad or bitsandbytes Lion "
                        "becomes CPU Adam",
                        DOC + "ds-optimizer-and-scheduler; " + A + "accelerator.py:2374-2384; " + A
                        + "utils/deepspeed.py:29-97; transformers/integrations/deepspeed.py:559-611 (the Trainer "
                        "passes its own torch optimizer unless the JSON has an optimizer block)",
                        keys="the optimizer offload device (deepspeed_config.offload_optimizer_device or "
                        "zero_optimization.offload_optimizer.device)",
                        fix="use AdamW/Adam (or Adagrad) in the script or TrainingArguments.optim, or an optimizer "
                        "block in the JSON",
                        claims=("ds-offload-replaces-torch-optimizer", "trainer-builds-the-ds-optimizer-itself"))
SAVE16_BAD = rule("deepspeed-zero3-save-16bit-invalid", ERROR, "zero3_save_16bit_model is read as false",
                  DOC + "ds-zero3-flags; " + D + ":1254-1257", claims=("ds-zero3-save-16bit-exact-true",))
SAVE16_UNUSED = rule("deepspeed-zero3-save-16bit-unused", ERROR,
                     "zero3_save_16bit_model: true below ZeRO-3: never read, the setting does not take effect",
                     DOC + "ds-zero3-flags; " + D + ":1317-1318; " + A
                     + "accelerator.py:4071-4074 (get_state_dict reads it only at ZeRO-3); "
                     + DS + "runtime/zero/config.py:257-263", claims=("ds-16bit-gather-zero3-only",))
MOE_BAD = rule("deepspeed-moe-classes-invalid", ERROR, "MoE layer class names that can never match a module",
               DOC + "ds-inline-config; " + D + ":1533-1552", claims=("ds-moe-leaf-modules",))
LAUNCHER_BAD = rule("deepspeed-multinode-launcher-invalid", ERROR, "Unknown DeepSpeed multi-node launcher",
                    DOC + "ds-multinode-launcher; " + L + ":448-460; " + DS + "launcher/runner.py:565-580",
                    claims=("ds-multinode-launcher-names",))
MPI_REFUSES = rule("deepspeed-mpi-launcher-refuses-accelerate", ERROR,
                   "An MPI launcher (openmpi, mpich, impi, mvapich) on several machines: DeepSpeed's runner refuses "
                   "the GPU count or host filter accelerate always passes",
                   DOC + "ds-multinode-launcher; " + L + ":453-476; " + DS
                   + "launcher/multinode_runner.py:147-154,208-215,280-287,469-475",
                   keys="deepspeed_config.deepspeed_multinode_launcher, num_machines",
                   fix="Use the standard launcher (torchrun on each machine), pdsh, or slurm.",
                   claims=("ds-runner-backends",))
NO_HOSTFILE = rule("deepspeed-multinode-no-hostfile", ERROR,
                   "Multi-node DeepSpeed launcher without a hostfile trains on one machine only",
                   DOC + "ds-multinode-launcher; " + L + ":446-476; " + DS + "launcher/runner.py:212-216",
                   claims=("ds-hostfile-missing-local-only", "ds-launcher-default-pdsh",
                           "ds-multinode-runner-or-torchrun"))
OFFLOAD_PARAM_STAGE = rule("deepspeed-offload-param-below-stage3", ERROR,
                           "Parameter offload is only used by ZeRO-3 (silently ignored below)",
                           DOC + "ds-offload-and-zero-stage; " + DS
                           + "runtime/zero/offload_config.py:21-22, runtime/engine.py:2655-2700",
                           keys="the param offload device (deepspeed_config.offload_param_device or "
                           "zero_optimization.offload_param.device) and the stage (deepspeed_config.zero_stage or "
                           "zero_optimization.stage)", claims=("ds-param-offload-zero3-only",))
NVME_STAGE = rule("deepspeed-nvme-below-stage3", ERROR, "NVMe optimizer offload at ZeRO-1/2 becomes CPU offload",
                  DOC + "ds-offload-and-zero-stage; " + DS + "runtime/zero/stage_1_and_2.py:220-224, stage3.py:822-836",
                  keys="the optimizer offload device (deepspeed_config.offload_optimizer_device or "
                  "zero_optimization.offload_optimizer.device) and the stage (deepspeed_config.zero_stage or "
                  "zero_optimization.stage)", claims=("ds-nvme-optimizer-offload-below-zero3-is-cpu",))
OFFLOAD_STAGE0 = rule("deepspeed-offload-optimizer-stage0", ERROR,
                      "Optimizer offload at ZeRO-0: the CPU optimizer asserts on GPU parameters",
                      DOC + "ds-offload-and-zero-stage; " + A + "accelerator.py:2377-2383; " + DS
                      + "ops/adam/cpu_adam.py:148",
                      keys="the optimizer offload device (deepspeed_config.offload_optimizer_device or "
                      "zero_optimization.offload_optimizer.device) and the stage (deepspeed_config.zero_stage or "
                      "zero_optimization.stage)", claims=("ds-offload-optimizer-stage0-asserts",))


def derive_file_stage(ctx: ConfigCheck) -> None:
    """The ZeRO stage a DeepSpeed JSON gives (None when it cannot be told)."""
    zo = ctx.ds.get("zero_optimization") if isinstance(ctx.ds, dict) else None
    if not isinstance(zo, dict):
        ctx.stage = None
        return
    raw = zo.get("stage", MISSING)
    if raw is MISSING:
        ctx.stage = 0
    elif raw == "auto":
        ctx.stage = 2  # filled from DeepSpeedPlugin.zero_stage, whose default is 2
    elif isinstance(raw, bool):
        ctx.stage = int(raw)
    else:
        n = as_int(raw)
        if n is None and isinstance(raw, str) and raw.strip().isdigit():
            n = int(raw)
        ctx.stage = n if n in (0, 1, 2, 3) else None


def derive(ctx: ConfigCheck) -> None:
    dc = ctx.section("deepspeed_config")
    value = dc.get("deepspeed_config_file")
    ctx.ds_file_mode = value is not None and not (isinstance(value, str) and value == "none")
    if ctx.ds_file_mode:
        derive_file_stage(ctx)
    else:
        raw = dc.get("zero_stage")
        n = 2 if raw is None else parse_int(raw)
        ctx.stage = n if n in (0, 1, 2, 3) else None


def accel_is_zero3(ctx: ConfigCheck) -> bool:
    """accelerate's own ZeRO-3 test compares the written stage with the int 3 (utils/deepspeed.py:246-247)."""
    if not ctx.ds_file_mode:
        return ctx.stage == 3
    zo = ctx.ds.get("zero_optimization") if isinstance(ctx.ds, dict) else None
    raw = zo.get("stage") if isinstance(zo, dict) else None
    return not isinstance(raw, (str, bool)) and raw == 3


def check(ctx: ConfigCheck) -> None:
    dc = ctx.section("deepspeed_config")
    if ctx.ds_file_mode:
        _check_file_mode(ctx, dc)
    else:
        _check_inline(ctx, dc)
    _check_common(ctx, dc)


def _check_file_mode(ctx: ConfigCheck, dc: dict) -> None:
    check_json_accumulation(ctx)
    _check_file_and_inline(ctx, dc)


def check_json_accumulation(ctx: ConfigCheck) -> None:
    if isinstance(ctx.ds, dict) and "gradient_accumulation_steps" not in ctx.ds:
        ctx.emit(JSON_NO_GAS, "gradient_accumulation_steps",
                 "The DeepSpeed JSON has no `gradient_accumulation_steps`, so accelerate sets it to 1. A script that "
                 "passes `Accelerator(gradient_accumulation_steps=N)` (or the Trainer's TrainingArguments) gets 1 "
                 "instead of N, with only a 'mismatch' warning at prepare(); a script that passes nothing gets 1, "
                 "as meant.",
                 "Write `\"gradient_accumulation_steps\": \"auto\"` to take the script's value, or the number.")


def _check_file_and_inline(ctx: ConfigCheck, dc: dict) -> None:
    bad = [k for k in dc if str(k).lower() in FILE_MODE_FORBIDDEN]
    keys = [f"deepspeed_config.{k}" for k in bad]
    if "mixed_precision" in ctx.y and ctx.y["mixed_precision"] is not None:
        keys.append("mixed_precision")
    if keys:
        # the file is part of the fault (it names it), but the keys to delete are the others
        ctx.emit(FILE_AND_INLINE, tuple(keys) + ("deepspeed_config.deepspeed_config_file",),
                 "With `deepspeed_config.deepspeed_config_file`, the DeepSpeed plugin refuses a config that also "
                 "sets " + ", ".join(f"`{k}`" for k in keys) + " (even `mixed_precision: 'no'`); it raises "
                 "'When using `deepspeed_config_file`, the following accelerate config variables will be ignored'.",
                 "Delete these keys from the YAML and set the same things in the DeepSpeed JSON "
                 "(precision: fp16/bf16 blocks; ZeRO: zero_optimization; batch: gradient_accumulation_steps).")


def _clip_missing(ctx: ConfigCheck) -> None:
    ctx.emit(CLIP_MISSING, "deepspeed_config.gradient_clipping",
             "No `gradient_clipping` in the inline DeepSpeed settings: it becomes \"auto\", which accelerate "
             "fills with 1.0 in an own loop and the HF Trainer with its max_grad_norm, so gradients are clipped "
             "at that norm (answering 'no' to clipping in `accelerate config` leads here). Inline 0 cannot turn "
             "it off either: DeepSpeed (0.19.3 and later) defaults to 1.0.",
             "Write `gradient_clipping: 1.0` to make it explicit; to disable clipping use a DeepSpeed JSON "
             "with \"gradient_clipping\": 0.0.")


def _check_inline(ctx: ConfigCheck, dc: dict) -> None:
    _inline_trainer_matches(ctx, dc)
    if dc.get("zero_stage") is None:
        if "zero_stage" not in dc:
            ctx.emit(STAGE_DEFAULT, "deepspeed_config.zero_stage", "No `zero_stage`: accelerate uses ZeRO stage 2.",
                     "Write `zero_stage` explicitly (0-3).")
    elif ctx.stage is None:
        ctx.emit(STAGE_BAD, "deepspeed_config.zero_stage", f"{kv('deepspeed_config.zero_stage', dc['zero_stage'])} "
                 "is not a ZeRO stage; accelerate or DeepSpeed rejects it.", "Use 0, 1, 2 or 3.")
    for dev in ("offload_optimizer_device", "offload_param_device"):
        value = dc.get(dev)
        if value is not None and str(value).lower() not in ("none", "cpu", "nvme"):
            ctx.emit(DEVICE_BAD, f"deepspeed_config.{dev}", f"{kv('deepspeed_config.' + dev, value)} is not an "
                     "offload device; DeepSpeed rejects the config.", "Use none, cpu or nvme.")
    for path_key in DS_NVME_PATH_KEYS:
        if path_key in dc:
            dev_key = path_key.replace("_nvme_path", "_device")
            ctx.emit(NVME_PATH_LOST, f"deepspeed_config.{path_key}",
                     f"{kv('deepspeed_config.' + path_key, dc[path_key])} never reaches DeepSpeed: `accelerate "
                     "launch` does not export it, so the plugin uses the string 'none' (a relative folder) "
                     f"{'as the NVMe path' if str(dc.get(dev_key)).lower() == 'nvme' else 'if NVMe is used'}.",
                     "Put NVMe offload (device and nvme_path) in a DeepSpeed JSON and point "
                     "`deepspeed_config_file` at it.")
    for dev, path_key in (("offload_optimizer_device", "offload_optimizer_nvme_path"),
                          ("offload_param_device", "offload_param_nvme_path")):
        if str(dc.get(dev)).lower() == "nvme" and path_key not in dc:
            ctx.emit(NVME_INLINE, f"deepspeed_config.{dev}", f"`deepspeed_config.{dev}: nvme` inline: accelerate "
                     "always gives DeepSpeed the path 'none', so the swap files go to a folder named 'none' under "
                     "the launch directory.", "Use a DeepSpeed JSON with `offload_...: {device: nvme, nvme_path: "
                     "/your/nvme}`.")
    gas = dc.get("gradient_accumulation_steps")
    gas_int = parse_int(gas)
    if gas is not None and (gas_int is None or gas_int < 1):
        if str(gas) == "auto":
            why = ("\"auto\" is only understood inside a DeepSpeed JSON; here the launcher exports it and "
                   "Accelerator() does int('auto'), so start-up fails")
        elif gas_int is None:
            why = "Accelerator() converts it with int(), which fails at start-up"
        else:
            why = "DeepSpeed refuses fewer than 1 step when prepare() builds the engine"
        ctx.emit(GAS_BAD, "deepspeed_config.gradient_accumulation_steps",
                 f"{kv('deepspeed_config.gradient_accumulation_steps', gas)}: {why}.",
                 "Write a positive integer such as 1.")
    if dc.get("gradient_clipping") is None:
        if ctx.loop == LOOP_HF:
            pass  # the Trainer fills the "auto" clipping with its max_grad_norm: clipping follows TrainingArguments
        else:
            _clip_missing(ctx)
    else:
        clip = dc["gradient_clipping"]
        text = str(clip).lower()
        try:
            number = None if text == "auto" else float(text)
        except ValueError:
            ctx.emit(CLIP_BAD, "deepspeed_config.gradient_clipping", f"{kv('deepspeed_config.gradient_clipping', clip)}"
                     " is not a number; the plugin's float() fails.", "Write a number such as 1.0.")
        else:
            if number == 0:
                ctx.emit(CLIP_ZERO, "deepspeed_config.gradient_clipping",
                         f"{kv('deepspeed_config.gradient_clipping', clip)} does not disable clipping: accelerate "
                         "only writes a truthy value into the DeepSpeed config, and DeepSpeed's own default (0.19.3 "
                         "and later) is 1.0, so gradients are clipped at 1.0.",
                         "To disable clipping use a DeepSpeed JSON with \"gradient_clipping\": 0.0.")
    save = dc.get("zero3_save_16bit_model")
    if save is not None:
        text = str(save).lower()
        if text != "true" and text not in ("false", "no", "n", "off", "0", "f"):
            ctx.emit(SAVE16_BAD, "deepspeed_config.zero3_save_16bit_model",
                     f"{kv('deepspeed_config.zero3_save_16bit_model', save)}: accelerate only treats the exact text "
                     "'true' as on, so this is read as false.", "Write true or false (unquoted).")
        elif text == "true" and ctx.stage is not None and ctx.stage != 3:
            ctx.emit(SAVE16_UNUSED, ("deepspeed_config.zero3_save_16bit_model", "deepspeed_config.zero_stage"),
                     f"`zero3_save_16bit_model: true` is only read at ZeRO-3, but the stage here is {ctx.stage}"
                     + ("" if "zero_stage" in dc else " (zero_stage omitted, so 2)") + ": the setting does not "
                     "take effect (below ZeRO-3 the whole weights are saved with or without it).",
                     "Delete it, or use `zero_stage: 3`.")


def _inline_trainer_matches(ctx: ConfigCheck, dc: dict) -> None:
    """Under the Trainer the inline accumulation and clipping reach its DeepSpeed config as concrete values."""
    from .dsjson import TRAINER_MATCH

    if ctx.loop == LOOP_ACCELERATE:
        return
    rows, keys = [], []
    gas = parse_int(dc.get("gradient_accumulation_steps"))
    if gas is not None and gas >= 1:
        keys.append("deepspeed_config.gradient_accumulation_steps")
        rows.append(said(f"gradient_accumulation_steps {gas} = gradient_accumulation_steps"  # each row a sentence
                         + (" (its default)" if gas == 1 else " (default 1)")))
    try:
        clip = float(str(dc.get("gradient_clipping")))
    except ValueError:
        clip = None
    if clip:  # 0 and missing are not written into the DeepSpeed config: "auto" there
        keys.append("deepspeed_config.gradient_clipping")
        rows.append(said(f"gradient_clipping {clip:g} = max_grad_norm" + (" (its default)" if clip == 1.0 else
                                                                           " (default 1.0)")))
    if rows:
        lead = ("Under the Hugging Face Trainer" if ctx.loop == LOOP_HF
                else "If this runs under the Hugging Face Trainer")
        ctx.emit(TRAINER_MATCH, tuple(keys), f"{lead}, these inline values reach its DeepSpeed config as written and "
                 "must equal TrainingArguments, or the Trainer raises 'mismatch TrainingArguments values' before "
                 "training: " + "; ".join(rows) + ".", "Pass the same values to TrainingArguments.")


def _check_common(ctx: ConfigCheck, dc: dict) -> None:
    flag = dc.get("zero3_init_flag")
    if flag is not None:
        b = parse_bool(str(flag).lower())
        if b is None:
            ctx.emit(INIT_BAD, "deepspeed_config.zero3_init_flag", f"{kv('deepspeed_config.zero3_init_flag', flag)} is "
                     "not a boolean; the plugin raises 'invalid truth value'.", "Write true or false.")
        elif b and (ctx.stage is not None or not ctx.ds_file_mode) and not accel_is_zero3(ctx):
            where = ("the DeepSpeed JSON's zero_optimization.stage" if ctx.ds_file_mode else "zero_stage")
            shown = ctx.stage if ctx.stage is not None else "invalid"
            keys = ["deepspeed_config.zero3_init_flag"]
            if ctx.ds_file_mode:
                keys.append("zero_optimization.stage")
            elif "zero_stage" in dc:
                keys.append("deepspeed_config.zero_stage")
            ctx.emit(INIT_LOST, tuple(keys), f"`zero3_init_flag: true` only works with ZeRO-3, but {where} gives "
                     f"{shown}" + (" (written as a string, which accelerate does not treat as 3)"
                                   if ctx.stage == 3 else "") + "; the plugin warns and turns it off, so the "
                     "model is loaded whole on every process.", "Use stage 3, or set `zero3_init_flag: false`.")
        elif b is False and accel_is_zero3(ctx):
            keys = ["deepspeed_config.zero3_init_flag",
                    "zero_optimization.stage" if ctx.ds_file_mode else "deepspeed_config.zero_stage"]
            ctx.emit(INIT_OFF_IGNORED, tuple(keys),
                     "`zero3_init_flag: false` does not stop zero.Init at ZeRO-3: accelerate registers the DeepSpeed "
                     "config with Transformers whatever the flag, and from_pretrained decides from that alone. A "
                     "Transformers model loaded after the Accelerator (or TrainingArguments) exists is created "
                     "partitioned anyway; one loaded before, or built without Transformers, is created whole with or "
                     "without the flag. The flag only turns accelerate's GatheredParameters helper into a no-op.",
                     "Delete `zero3_init_flag` (ZeRO-3 turns it on). To load whole, load the model before creating "
                     "the Accelerator/TrainingArguments, or use stage 2.")
    moe = dc.get("deepspeed_moe_layer_cls_names")
    if moe is not None:
        names = str(moe).split(",")
        bad = [n for n in names if not n.isidentifier()]
        if bad:
            ctx.emit(MOE_BAD, "deepspeed_config.deepspeed_moe_layer_cls_names",
                     f"{kv('deepspeed_config.deepspeed_moe_layer_cls_names', moe)} gives class names "
                     f"{', '.join(repr(b) for b in bad)} that no module can have; prepare() raises.",
                     "Write one string of comma-separated class names without spaces.")
    launcher = dc.get("deepspeed_multinode_launcher")
    if launcher is not None and str(launcher) not in ACCELERATE_LAUNCHERS \
            and str(launcher).lower() not in RUNNER_LAUNCHERS and ctx.nmach > 1:
        ctx.emit(LAUNCHER_BAD, "deepspeed_config.deepspeed_multinode_launcher",
                 f"{kv('deepspeed_config.deepspeed_multinode_launcher', launcher)} is not a launcher accelerate "
                 "handles (standard, nossh) or DeepSpeed's runner knows; the runner raises 'Unknown launcher' when "
                 "it starts the nodes.",
                 "Use one of: " + ", ".join(ACCELERATE_LAUNCHERS + RUNNER_LAUNCHERS) + ".")
    if launcher is not None and str(launcher).lower() in MPI_LAUNCHERS and ctx.nmach > 1:
        ctx.emit(MPI_REFUSES, ("deepspeed_config.deepspeed_multinode_launcher", "num_machines"),
                 f"{kv('deepspeed_config.deepspeed_multinode_launcher', launcher)} on {ctx.nmach} machines: accelerate "
                 "launch always hands DeepSpeed's runner --num_gpus (or the host filter as --include/--exclude), and "
                 f"the {str(launcher).lower()} runner refuses each of them with a ValueError before any machine "
                 "starts.",
                 "Use `deepspeed_multinode_launcher: standard` (torchrun started on each machine), pdsh, or "
                 "slurm.")
    if ctx.nmach > 1 and str(launcher if launcher is not None else "pdsh") != "standard" \
            and dc.get("deepspeed_hostfile") is None:
        ctx.emit(NO_HOSTFILE, ("deepspeed_config.deepspeed_hostfile", "deepspeed_config.deepspeed_multinode_launcher",
                               "num_machines"),
                 f"{ctx.nmach} machines with the {launcher or 'pdsh'} launcher but no `deepspeed_hostfile`: "
                 "accelerate passes '--hostfile None' and the DeepSpeed runner falls back to the local machine only.",
                 "Write `deepspeed_hostfile: /path/to/hostfile`, or use `deepspeed_multinode_launcher: standard`.")
    if not ctx.ds_file_mode:
        devices = {"offload_optimizer": ("deepspeed_config.offload_optimizer_device",
                                         str(dc.get("offload_optimizer_device")).lower()
                                         if dc.get("offload_optimizer_device") is not None else "none"),
                   "offload_param": ("deepspeed_config.offload_param_device",
                                     str(dc.get("offload_param_device")).lower()
                                     if dc.get("offload_param_device") is not None else "none")}
        check_offload_vs_stage(ctx, devices)


def check_offload_vs_stage(ctx: ConfigCheck, devices: dict) -> None:
    """devices: {"offload_optimizer"|"offload_param": (key to blame, effective device)}."""
    stage = ctx.stage
    if stage is None:
        return
    opt_key, opt = devices.get("offload_optimizer", ("", "none"))
    ds = ctx.ds if ctx.ds_file_mode and isinstance(ctx.ds, dict) else {}
    if (opt in ("cpu", "nvme") and stage > 0 and "optimizer" not in ds
            and ds.get("zero_force_ds_cpu_optimizer", True) is not False):
        swap = ("built from its parameter groups (claim ds-offload-replaces-torch-optimizer): AdamW stays AdamW, "
                "Adagrad and bitsandbytes Lion get CPU versions, and any other optimizer (SGD, RMSprop, ...) "
                "becomes DeepSpeedCPUAdam, i.e. Adam.")
        if ctx.loop == LOOP_HF:
            ctx.emit(OFFLOAD_OPT_ADAM, opt_key,
                     f"With optimizer offload ({fmt(opt)}) the Trainer creates its torch optimizer from "
                     "TrainingArguments.optim and accelerate replaces it by a DeepSpeed CPU optimizer, " + swap,
                     "Keep optim an AdamW variant (the default) or adagrad, or put an optimizer block in the "
                     "DeepSpeed JSON.")
        else:
            ctx.emit(OFFLOAD_OPT_ADAM, opt_key,
                     f"With optimizer offload ({fmt(opt)}) accelerate replaces the script's torch optimizer by a "
                     "DeepSpeed CPU optimizer, " + swap,
                     "If your script uses another optimizer, expect Adam; use AdamW (or Adagrad), or put an "
                     "optimizer block in the DeepSpeed JSON.")
    stage_key = "zero_optimization.stage" if ctx.ds_file_mode else "deepspeed_config.zero_stage"
    opt_key, opt = devices.get("offload_optimizer", ("", "none"))
    par_key, par = devices.get("offload_param", ("", "none"))
    if par in ("cpu", "nvme") and stage < 3:
        ctx.emit(OFFLOAD_PARAM_STAGE, (par_key, stage_key),
                 f"Parameter offload ({fmt(par)}) is only used by ZeRO-3; at stage "
                 f"{stage} DeepSpeed accepts it and never uses it.", "Use stage 3, or set the param offload device "
                 "to none.")
    if opt == "nvme" and stage in (1, 2):
        ctx.emit(NVME_STAGE, (opt_key, stage_key),
                 f"NVMe optimizer offload needs ZeRO-3; at stage {stage} DeepSpeed silently "
                 "offloads to CPU memory instead.", "Use stage 3 for NVMe (ZeRO-Infinity), or offload to cpu.")
    if opt in ("cpu", "nvme") and stage == 0:
        ctx.emit(OFFLOAD_STAGE0, (opt_key, stage_key),
                 f"Optimizer offload ({fmt(opt)}) at ZeRO stage 0: nothing moves the "
                 "parameters to CPU, so the CPU Adam optimizer that accelerate substitutes fails its device check.",
                 "Use stage 1 or higher with optimizer offload, or set the device to none.")
