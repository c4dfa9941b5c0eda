"""DeepSpeed JSON rules, part 1: keys and value types (DeepSpeed's own models), "auto" values, batch sizes.

Keys in findings are dotted paths from the root of the DeepSpeed JSON, e.g. ``zero_optimization.stage``.
"""
from __future__ import annotations

from .. import ds_schema as S
from ..context import LOOP_ACCELERATE, LOOP_HF
from ..i18n import said
from ..library.auto import AUTO_FILLED, AUTO_TRAINER_ONLY
from ..library.deepspeed import SUBKEY_DEFAULTS, SUBKEY_RENAMED
from ..library.launcher import CLUSTER_FIELDS, LEGACY_TOP_LEVEL, SAGEMAKER_FIELDS
from ..vocab import is_true_word
from .base import DOC, DS, ERROR, INFO, WARNING, A, ConfigCheck, as_int, ds_range, fmt, rule

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

C = DS + "runtime/config.py"
ACCELERATE_KEYS = (CLUSTER_FIELDS | SAGEMAKER_FIELDS | LEGACY_TOP_LEVEL) - {"fp16"}
"""The top-level keys of an accelerate config (fp16 is also a DeepSpeed block)."""


def accelerate_keys_in(ds: dict) -> list[str]:
    """The top-level keys of a DeepSpeed JSON that are accelerate config keys DeepSpeed does not read
    (``num_processes``, ``num_machines``, ...), in the JSON's order: what :data:`ACCELERATE_KEY` reports, and what
    the importer never carries into a DeepSpeed JSON."""
    top, removed = S.top_level_keys(), S.removed_top_level()
    return [name for name in map(str, ds) if name in ACCELERATE_KEYS and name not in top and name not in removed]


ACC = A + "accelerator.py"

BOOL_SCALARS = frozenset({"dataloader_drop_last", "disable_allgather", "disable_python_gc", "dump_state",
                          "managed_gradient_accumulation", "memory_breakdown", "prescale_gradients",
                          "use_data_before_expert_parallelism", "wall_clock_breakdown", "zero_allow_untested_optimizer",
                          "zero_force_ds_cpu_optimizer"})
NUMBER_SCALARS = ("gradient_clipping", "gradient_predivide_factor", "train_batch_size",
                  "train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "steps_per_print",
                  "vocabulary_size", "sequence_parallel_size", "data_parallel_size")
ZERO_MISSING = rule("ds-json-zero-optimization-missing", ERROR, "The DeepSpeed JSON has no zero_optimization block",
                    DOC + "ds-config-file; " + A + "utils/dataclasses.py:1274-1277",
                    claims=("ds-plugin-needs-zero-optimization",))
REMOVED = rule("ds-json-removed-feature", ERROR, "A feature DeepSpeed removed (0.19.7 and later refuse the config)",
               DOC + "ds-removed-features, " + DOC + "version-notes; " + C + ":79-141",
               keys="the removed block or zero_optimization key",
               claims=("ds-removed-blocks-raise", "ds-removed-zero-keys-raise"),
                 versions=ds_range("ds-json-removed-feature"))
UNKNOWN_TOP = rule("ds-json-unknown-top-level-key", ERROR,
                   "A top-level DeepSpeed JSON key DeepSpeed never reads (silently ignored)",
                   DOC + "ds-json-validation; " + C + ":436-592 (keys read, recorded by scripts/gen_ds_schema.py)",
                   keys="the top-level DeepSpeed key",
                   claims=("ds-unread-keys-ignored",))
ACCELERATE_KEY = rule("ds-json-accelerate-key-unused", WARNING,
                      "An accelerate config key (num_processes, num_machines, ...) in a DeepSpeed JSON: nothing "
                      "reads it there",
                      DOC + "ds-json-validation; " + C + ":436-592 (keys read); " + A
                      + "utils/dataclasses.py:1264-1277 (the plugin keeps the JSON as DeepSpeed's config)",
                      keys="the accelerate key, as written in the JSON",
                      fix="Delete it from the JSON; set it in the accelerate config or on the launch command line.",
                      claims=("ds-json-accelerate-keys-unused", "ds-unread-keys-ignored"))
BF16_OLD = rule("ds-json-bfloat16-shadowed", ERROR,
                "The old 'bfloat16' block is shadowed by the 'bf16' block accelerate always adds",
                DOC + "ds-config-file; " + A + "utils/dataclasses.py:1442-1444; " + DS
                + "runtime/precision_config.py:34-38",
                keys="bfloat16",
                claims=("ds-bfloat16-shadowed-by-bf16",))
NOT_MAPPING = rule("ds-json-not-mapping", ERROR, "A DeepSpeed JSON section that must be an object is not one",
                   DOC + "ds-json-validation; " + A + "utils/deepspeed.py:186-196; " + DS
                   + "runtime/config_utils.py:54-58",
                   keys="the path of the section in the DeepSpeed JSON",
                   claims=("ds-config-models-validate-values",))
UNKNOWN_KEY = rule("ds-json-unknown-key", ERROR, "A key DeepSpeed's pydantic model forbids (extra='forbid')",
                   DOC + "ds-json-validation; " + DS + "runtime/config_utils.py:105-113",
                   keys="the path of the key in the DeepSpeed JSON (e.g. zero_optimization.offload_params)",
                   claims=("ds-sections-forbid-unknown-keys", "ds-alias-and-name-rejected"))
BAD_VALUE = rule("ds-json-invalid-value", ERROR, "A value DeepSpeed's config model rejects (type, enum, range)",
                 DOC + "ds-json-validation; " + DS
                 + "runtime/zero/config.py, runtime/zero/offload_config.py, runtime/precision_config.py",
                 keys="the path of the value in the DeepSpeed JSON (e.g. zero_optimization.offload_param.device)",
                 claims=("ds-config-models-validate-values", "ds-string-stage-not-zero3-for-accelerate"))
COERCED = rule("ds-json-value-coerced", WARNING, "A value DeepSpeed only accepts after converting it",
               DOC + "ds-json-validation; " + DS + "runtime/config_utils.py:105-113 (pydantic lax mode)",
               keys="the path of the value in the DeepSpeed JSON",
               claims=("ds-config-models-validate-values",))
MSAMP_KEY = rule("ds-json-msamp-block", WARNING,
                 "An msamp block: read only by MS-AMP's DeepSpeed integration (accelerate writes one for its MS-AMP "
                 "fp8 backend)",
                 DOC + "ds-json-validation; " + A + "utils/dataclasses.py:1345-1356",
                 keys="msamp", claims=("ds-msamp-block-for-ms-amp",))
COMMENT_KEY = rule("ds-json-comment-key", INFO,
                   "A top-level key that reads as a comment (\"_comment\", \"//\"): DeepSpeed ignores it, as meant",
                   DOC + "ds-json-validation; " + C + ":436-592 (keys read, recorded by scripts/gen_ds_schema.py)",
                   keys="the comment key", claims=("ds-unread-keys-ignored",))
DEPRECATED = rule("ds-json-deprecated-key", WARNING,
                  "A deprecated DeepSpeed key (converted to its replacement, or ignored, with a warning)",
                  DOC + "ds-json-validation; " + DS + "runtime/config_utils.py:60-101",
                  keys="the path of the deprecated key",
                  claims=("ds-deprecated-keys-converted",))
DEPRECATED_BOTH = rule("ds-json-deprecated-and-new-key", ERROR,
                       "A deprecated key together with the key that replaces it (DeepSpeed asserts)",
                       DOC + "ds-json-validation; " + DS + "runtime/config_utils.py:82-95",
                       claims=("ds-deprecated-keys-converted",))
DICT_UNKNOWN = rule("ds-json-ignored-subkey", ERROR,
                    "A sub-key DeepSpeed does not read in a hand-parsed section, whose value differs from what "
                    "applies instead (ignored)",
                    DOC + "ds-json-validation; " + C + ":436-592 (keys read, recorded by scripts/gen_ds_schema.py)",
                    keys="the unread sub-key (e.g. aio.thread_count)",
                    claims=("ds-unread-keys-ignored",))
DICT_UNKNOWN_SAME = rule("ds-json-ignored-subkey-harmless", WARNING,
                         "A sub-key DeepSpeed does not read, whose value equals what applies anyway (e.g. the old "
                         "aio.thread_count: 1 = the default intra_op_parallelism)",
                         DOC + "ds-json-validation; " + C + ":436-592; " + DS
                         + "runtime/swap_tensor/aio_config.py:21-40, constants.py:20-30",
                         keys="the unread sub-key (e.g. aio.thread_count)",
                         claims=("ds-unread-keys-ignored",))
SCALAR_TYPE = rule("ds-json-scalar-type", ERROR, "A top-level DeepSpeed value of the wrong type",
                   DOC + "ds-json-validation; " + C + ":245-300, 590-652",
                   keys="the top-level DeepSpeed key",
                   claims=("ds-top-level-scalars-unchecked",))
AUTO_UNFILLED = rule("ds-json-auto-not-filled", ERROR, "An \"auto\" value accelerate does not fill (raises)",
                     DOC + "ds-auto-values; " + A + "utils/dataclasses.py:1357-1372; " + ACC + ":2178-2340",
                     keys="the path of the \"auto\" value in the DeepSpeed JSON",
                     claims=("ds-auto-outside-the-list-raises",))
AUTO_TRAINER = rule("ds-json-auto-trainer-only", WARNING,
                    "An \"auto\" value only the HF Trainer fills; in an own Accelerator loop prepare() raises",
                    DOC + "ds-auto-values; " + A
                    + "utils/dataclasses.py:1357-1372; transformers/integrations/deepspeed.py",
                    keys="the path of the \"auto\" value (optimizer.params.betas / optimizer.params.eps)",
                    claims=("ds-auto-outside-the-list-raises", "trainer-fills-more-auto"))
AUTO_TRAINER_OWN = rule("ds-json-auto-trainer-only-own-loop", ERROR,
                        "An \"auto\" value only the HF Trainer fills, in a config for an own Accelerator loop "
                        "(prepare() raises)",
                        DOC + "ds-auto-values; " + A + "utils/dataclasses.py:1357-1372; " + ACC + ":2179-2355",
                        keys="the path of the \"auto\" value (optimizer.params.betas / optimizer.params.eps)",
                        claims=("ds-auto-outside-the-list-raises", "trainer-fills-more-auto"))
LR_CONFLICT_TRAINER = rule("ds-json-trainer-lr-conflict", ERROR,
                           "Two different concrete learning rates in optimizer.params.lr and "
                           "scheduler.params.warmup_max_lr: the HF Trainer matches both against learning_rate and "
                           "raises",
                           DOC + "ds-auto-values; transformers/integrations/deepspeed.py:158-164, 256-263",
                           keys="optimizer.params.lr, scheduler.params.warmup_max_lr",
                           claims=("trainer-lr-and-warmup-max-lr-match-learning-rate",))
LR_CONFLICT_UNKNOWN = rule("ds-json-lr-conflict-unknown-loop", WARNING,
                           "Two different concrete learning rates in optimizer.params.lr and "
                           "scheduler.params.warmup_max_lr: the HF Trainer raises; an own loop runs with the "
                           "scheduler's",
                           DOC + "ds-auto-values; transformers/integrations/deepspeed.py:158-164, 256-263",
                           keys="optimizer.params.lr, scheduler.params.warmup_max_lr",
                           claims=("trainer-lr-and-warmup-max-lr-match-learning-rate",))
TRAINER_MATCH = rule("ds-json-trainer-values-must-match", INFO,
                     "Concrete values the HF Trainer compares with TrainingArguments (a difference raises)",
                     DOC + "training-loop; transformers/integrations/deepspeed.py:136-165, 237-263",
                     keys="the concrete DeepSpeed values the Trainer matches",
                     claims=("trainer-ds-values-must-match-arguments",
                             "trainer-lr-and-warmup-max-lr-match-learning-rate"))
TRAINER_ARG_MISMATCH = rule("ds-json-trainer-argument-mismatch", ERROR,
                            "A concrete DeepSpeed value that differs from the TrainingArguments the HF Trainer "
                            "matches it against (--training-args): the Trainer raises before training",
                            DOC + "training-loop; transformers/integrations/deepspeed.py:108-134 (fill_match), "
                            "136-192 (trainer_config_process), 194-267 (trainer_config_finalize)",
                            keys="the DeepSpeed key and the TrainingArguments it must equal (e.g. gradient_clipping, "
                                 "max_grad_norm)",
                            fix="Write \"auto\" in the JSON (the Trainer fills the argument), or make the two "
                                "values equal.",
                            claims=("trainer-ds-values-must-match-arguments",
                                    "trainer-lr-and-warmup-max-lr-match-learning-rate",
                                    "trainer-precision-and-schedule-match-arguments"))
TRAINER_ARG_FILLED = rule("ds-json-trainer-auto-filled", INFO,
                          "What the HF Trainer writes into each \"auto\" from the TrainingArguments given "
                          "(--training-args; defaults for the arguments not given)",
                          DOC + "ds-auto-values; transformers/integrations/deepspeed.py:108-134, 136-267",
                          keys="the \"auto\" DeepSpeed keys the Trainer fills",
                          fix="Nothing to do if these are the values meant; otherwise change the arguments.",
                          claims=("trainer-ds-values-must-match-arguments", "trainer-fills-more-auto"))
TRAINER_ARG_UNKNOWN = rule("ds-json-trainer-value-unknown", INFO,
                           "A DeepSpeed value the HF Trainer fills or compares from something no file shows (the "
                           "number of processes, the number of training steps)",
                           DOC + "training-loop; transformers/integrations/deepspeed.py:139-160, 250-263",
                           keys="the DeepSpeed key (train_batch_size, scheduler.params.total_num_steps, "
                                "scheduler.params.warmup_num_steps)",
                           fix="Pass --num-processes N (the batch) or max_steps in the arguments (the schedule) for "
                               "a verdict, or write \"auto\".",
                           claims=("trainer-ds-values-must-match-arguments",
                                   "trainer-precision-and-schedule-match-arguments"))
TRAINER_PREFETCH_FLOAT = rule("trainer-prefetch-bucket-float", WARNING,
                              "ZeRO-3 stage3_prefetch_bucket_size \"auto\" under a Trainer before transformers 4.45: "
                              "filled with the float 0.9 x h x h, which DeepSpeed refuses unless it is whole",
                              DOC + "library-versions; transformers/integrations/deepspeed.py (4.44: 0.9 * h * h; "
                              "4.45: int(...)); deepspeed/runtime/zero/config.py (prefetch_bucket_size: int)",
                              keys="zero_optimization.stage3_prefetch_bucket_size",
                              claims=("trainer-prefetch-bucket-int-since-4-45",),
                              versions={"transformers": "<4.45.0", "deepspeed": ">=0.15.0"})
TRAINER_WARMUP_ZERO = rule("trainer-warmup-steps-zero", WARNING,
                           "scheduler warmup_num_steps \"auto\" under a Trainer before transformers 5.18: filled with "
                           "the warm-up steps, 0 by default, which DeepSpeed 0.19.3 and later refuse",
                           DOC + "library-versions; transformers/integrations/deepspeed.py (5.17: get_warmup_steps; "
                           "5.18: max(1, ...)); deepspeed/runtime/lr_schedules.py:729-734",
                           keys="scheduler.params.warmup_num_steps",
                           claims=("trainer-warmup-at-least-one-since-5-18", "ds-warmup-steps-positive-int"),
                           versions={"transformers": "<5.18.0", "deepspeed": ">=0.19.3"})
BATCH_AUTO_TOTAL_OWN = rule("ds-json-auto-batch-without-micro-own-loop", ERROR,
                            "train_batch_size \"auto\" without a micro batch, in a config for an own Accelerator "
                            "loop: prepare() raises",
                            DOC + "ds-batch-size; " + ACC + ":2179-2237; " + A + "utils/dataclasses.py:1357-1372",
                            keys="train_batch_size, train_micro_batch_size_per_gpu",
                            claims=("ds-auto-train-batch-needs-micro",))
AUTO_STAGE = rule("ds-json-auto-stage", WARNING, "zero_optimization.stage \"auto\" becomes ZeRO-2",
                  DOC + "ds-config-file; " + A + "utils/dataclasses.py:1237-1238, 1280-1296",
                  keys="zero_optimization.stage",
                  claims=("ds-json-auto-plugin-defaults", "ds-json-owns-its-keys"))
AUTO_DEVICE = rule("ds-json-auto-offload-device", WARNING, "offload device \"auto\" becomes none",
                   DOC + "ds-config-file; " + A + "utils/dataclasses.py:1240-1244, 1280-1296",
                   keys="zero_optimization.offload_optimizer.device or zero_optimization.offload_param.device",
                   claims=("ds-json-auto-plugin-defaults",))
AUTO_NVME = rule("ds-json-auto-nvme-path", WARNING, "nvme_path \"auto\" becomes the relative folder 'none'",
                 DOC + "ds-nvme-offload; " + A + "utils/dataclasses.py:1246-1252, 1280-1296",
                 keys="zero_optimization.offload_optimizer.nvme_path or zero_optimization.offload_param.nvme_path",
                 claims=("ds-json-auto-plugin-defaults",))
AUTO_PRECISION = rule("ds-json-auto-precision", INFO,
                      "fp16/bf16 \"auto\" follows --mixed_precision (none in the YAML: fp32)",
                      DOC + "mixed-precision; " + A + "utils/dataclasses.py:1415-1450, state.py:924-928",
                      keys="fp16.enabled and/or bf16.enabled",
                      claims=("ds-mixed-precision-to-json", "ds-file-refuses-yaml-mixed-precision",
                              "trainer-fills-more-auto"))
BATCH_MISSING = rule("ds-json-batch-missing", ERROR, "Neither train_batch_size nor the micro batch size is given",
                     DOC + "ds-batch-size; " + A + "utils/dataclasses.py:1382-1387; " + C + ":646-650",
                     claims=("ds-batch-sizes-positive-and-given",))
BATCH_AUTO_TOTAL = rule("ds-json-auto-batch-without-micro", WARNING,
                        "train_batch_size \"auto\" without a micro batch: only the HF Trainer can fill it",
                        DOC + "ds-batch-size; " + ACC + ":2179-2237; " + A + "utils/dataclasses.py:1357-1372; "
                        "transformers/integrations/deepspeed.py:142-161; " + C + ":608-640",
                        keys="train_batch_size, train_micro_batch_size_per_gpu",
                        claims=("ds-auto-train-batch-needs-micro",))
BATCH_INVALID = rule("ds-json-batch-invalid", ERROR, "A batch size that is not a positive integer",
                     DOC + "ds-batch-size; " + C + ":596-606",
                     keys="train_batch_size, train_micro_batch_size_per_gpu or gradient_accumulation_steps",
                     claims=("ds-batch-sizes-positive-and-given", "ds-top-level-scalars-unchecked",
                             "ds-null-accumulation-fails-in-prepare"))
BATCH_MISMATCH = rule("ds-json-batch-mismatch", ERROR,
                      "train_batch_size != micro batch x gradient accumulation x world size",
                      DOC + "ds-batch-size; " + C + ":590-652",
                      claims=("ds-batch-size-uses-world-size",))
BATCH_FIXED_AUTO = rule("ds-json-fixed-batch-auto-micro", WARNING,
                        "Fixed train_batch_size with \"auto\" micro batch: accelerate never adjusts the fixed one",
                        DOC + "ds-batch-size; " + A + "utils/dataclasses.py:1357-1380; " + ACC + ":2178-2240; " + C
                        + ":596-606",
                        claims=("ds-micro-batch-auto-from-dataloader", "ds-batch-size-uses-world-size",
                                "trainer-ds-values-must-match-arguments"))
BATCH_FIXED_AUTO_GAS = rule("ds-json-fixed-batch-auto-accumulation", WARNING,
                            "Fixed train_batch_size and micro batch with \"auto\" accumulation: only one number of "
                            "accumulation steps starts",
                            DOC + "ds-batch-size; " + ACC + ":2207-2222; " + C + ":596-640; "
                            "transformers/integrations/deepspeed.py:142-150",
                            keys="train_batch_size, train_micro_batch_size_per_gpu, gradient_accumulation_steps",
                            claims=("ds-batch-size-uses-world-size", "trainer-ds-values-must-match-arguments"))
BOOL_STRING = rule("ds-json-bool-as-string", WARNING, "A top-level DeepSpeed flag written as a true-looking string",
                   DOC + "ds-json-validation; " + C + ":245-300",
                   keys="the top-level DeepSpeed flag",
                   claims=("ds-top-level-scalars-unchecked",))
STEPS_PRINT = rule("ds-json-steps-per-print-overridden", WARNING, "accelerate overrides steps_per_print",
                   DOC + "ds-steps-per-print; " + A + "utils/dataclasses.py:1326",
                   claims=("ds-steps-per-print-infinity",))


_NO_DEFAULT = object()


def _applied_instead(section: str, name: str, sub: list, values: dict):
    """(sub-key DeepSpeed reads in place of an unread one, the value it applies) or (None, _NO_DEFAULT)."""
    target = SUBKEY_RENAMED.get(f"{section}.{name}") or S.did_you_mean(name, sub)
    if target is None:
        return None, _NO_DEFAULT
    if target in values:
        return target, values[target]
    return target, SUBKEY_DEFAULTS.get(section, {}).get(target, _NO_DEFAULT)


def _same_value(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    return a == b


def walk_autos(obj, prefix=""):
    """Dotted paths of every "auto" leaf in nested objects (accelerate does not look inside lists)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            path = f"{prefix}{k}"
            if isinstance(v, dict):
                yield from walk_autos(v, path + ".")
            elif isinstance(v, str) and v == "auto":
                yield path


def _emit_issue(ctx: ConfigCheck, issue: S.Issue, removed_zero: frozenset) -> None:
    last = issue.path.rsplit(".", 1)[-1]
    if issue.kind == S.UNKNOWN_KEY:
        if issue.path.startswith("zero_optimization.") and issue.path.count(".") == 1 and last in removed_zero:
            return  # reported as a removed feature
        note = S.version_note(issue.path)
        ctx.emit(UNKNOWN_KEY, issue.path, f"`{issue.path}` is not a key DeepSpeed accepts here"
                 + (f" ({note})" if note else "") + "; building the config fails with 'Extra inputs are not "
                 "permitted'." + (f" Did you mean `{issue.suggestion}`?" if issue.suggestion else ""),
                 "Fix the key name or delete it.")
    elif issue.kind == S.ALIAS_AND_NAME:
        ctx.emit(UNKNOWN_KEY, issue.path, f"`{issue.path}` repeats a setting already written under its other name "
                 f"({issue.expected}); DeepSpeed rejects the second spelling.", "Keep one of the two spellings.")
    elif issue.kind in (S.BAD_VALUE, S.NOT_MAPPING):
        rid = NOT_MAPPING if issue.kind == S.NOT_MAPPING else BAD_VALUE
        ctx.emit(rid, issue.path, f"`{issue.path}: {fmt(issue.value)}` is not accepted by DeepSpeed (expects "
                 f"{issue.expected}); building the config fails.", f"Write {issue.expected}.")
    elif issue.kind == S.COERCED:
        if issue.path == "zero_optimization.stage" and isinstance(issue.value, str):
            ctx.emit(BAD_VALUE, issue.path, f"`zero_optimization.stage: {fmt(issue.value)}` is a string: DeepSpeed "
                     "converts it, but accelerate compares the stage with the number 3 (ZeRO-3 detection, "
                     "zero.Init, 16-bit saving), so ZeRO-3 handling is silently skipped.",
                     f"Write the number: \"stage\": {issue.value.strip()}.",
                     source=A + "utils/deepspeed.py:246-247, utils/dataclasses.py:1337")
            return
        ctx.emit(COERCED, issue.path, f"`{issue.path}: {fmt(issue.value)}` is converted by DeepSpeed to "
                 f"{issue.expected}; it works, but write the proper type.", f"Write {issue.expected}.")
    elif issue.kind == S.DEPRECATED:
        if not issue.expected or " " in issue.expected:  # no single replacement: DeepSpeed sets nothing from it
            ctx.emit(DEPRECATED, issue.path, f"`{issue.path}` is deprecated and has no replacement: DeepSpeed warns "
                     "and it changes nothing" + (f" (use {issue.expected})." if issue.expected else "."),
                     "Delete it" + (f"; set it in {issue.expected} instead." if issue.expected else "."))
            return
        ctx.emit(DEPRECATED, issue.path, f"`{issue.path}` is deprecated; DeepSpeed converts it to "
                 f"`{issue.expected}` and warns.", f"Use `{issue.expected}` instead.")


def check_keys_and_values(ctx: ConfigCheck, ds: dict) -> None:
    top = S.top_level_keys()
    removed_top, removed_zero = S.removed_top_level(), S.removed_zero_keys()
    sections, opaque = S.section_names(), S.opaque_sections()
    accelerate = set(accelerate_keys_in(ds))
    for key, value in ds.items():
        name = str(key)
        if name in removed_top:
            # what to do instead, literal variants: each fix its own sentence, translated (issue 27)
            hint = ("use the fp16 / bf16 blocks (or torch_autocast)" if name == "amp" else
                    "use data_efficiency.data_sampling.curriculum_learning" if name == "curriculum_learning" else
                    "set train_batch_size / train_micro_batch_size_per_gpu / gradient_accumulation_steps"
                    if name == "elasticity" else "delete the block")
            ctx.emit(REMOVED, name, f"`{name}` belongs to a feature DeepSpeed removed ("
                     + (S.version_note(name) or f"DeepSpeed {S.target_version()}") + "); DeepSpeed refuses a config "
                     "that still has it (see " + str(S.load()["removed"]["issue"]) + ").", f"Delete `{name}` ({hint}).")
            continue
        if name == "bfloat16":
            ctx.emit(BF16_OLD, name, "`bfloat16` is the old name of the `bf16` block. accelerate always adds a `bf16` "
                     "block before DeepSpeed reads the config, and DeepSpeed only looks at `bfloat16` when `bf16` is "
                     "absent, so these settings are ignored.", "Rename the block to `bf16`.")
            continue
        if name == "msamp" and name not in top:
            ctx.emit(MSAMP_KEY, name, "`msamp` is MS-AMP's block: accelerate writes it itself for the MS-AMP fp8 "
                     "backend, and only MS-AMP's DeepSpeed integration reads it; with DeepSpeed alone it does "
                     "nothing.", "Keep it only if the run uses MS-AMP (accelerate's fp8 backend MSAMP); otherwise "
                     "delete it.")
            continue
        if name not in top and _is_comment_key(name):
            ctx.emit(COMMENT_KEY, name, f"`{name}` reads as a comment (JSON has none); DeepSpeed never reads it, "
                     "which is what a comment is for.", "Nothing to do.")
            continue
        if name in accelerate:
            ctx.emit(ACCELERATE_KEY, name, f"`{name}: {fmt(value)}` is an accelerate config key; in a DeepSpeed JSON "
                     "nothing reads it (not DeepSpeed, not accelerate's DeepSpeed plugin, not the Hugging Face "
                     "Trainer), so it has no effect: "
                     + ("the number of processes and machines comes from the launcher (the accelerate config or "
                        "accelerate launch's flags, torchrun, the deepspeed runner)."
                        if name in ("num_processes", "num_machines") else "the launcher's own settings decide it."),
                     "Delete it from the JSON; set it in the accelerate config or on the launch command line.")
            continue
        if name not in top:
            best = S.did_you_mean(name, top)
            ctx.emit(UNKNOWN_TOP, name, f"`{name}` is not a DeepSpeed setting; DeepSpeed never reads it, so it is "
                     "silently ignored." + (f" Did you mean `{best}`?" if best else ""),
                     "Fix the key name or delete it.")
            continue
        if name in sections:
            if name == "zero_optimization" and isinstance(value, dict):
                for zk in value:
                    if str(zk) in removed_zero:
                        note = S.version_note(f"zero_optimization.{zk}") or f"DeepSpeed {S.target_version()}"
                        ctx.emit(REMOVED, f"zero_optimization.{zk}", f"`zero_optimization.{zk}` belongs to a "
                                 f"feature DeepSpeed removed ({note}); DeepSpeed refuses the config.",
                                 f"Delete `zero_optimization.{zk}`.")
            for issue in S.validate_section(name, value, name):
                _emit_issue(ctx, issue, removed_zero)
            _check_deprecated_pairs(ctx, name, value)
            continue
        sub = S.dict_section_keys(name)
        if sub is not None:
            if not isinstance(value, dict):
                ctx.emit(NOT_MAPPING, name, f"`{name}: {fmt(value)}` must be a JSON object.", f"Write `{name}` as "
                         "an object, or delete it.")
                continue
            for sk, sv in value.items():
                path = f"{name}.{sk}"
                if path in sections:
                    for issue in S.validate_section(path, sv, path):
                        _emit_issue(ctx, issue, removed_zero)
                elif str(sk) not in sub:
                    target, applied = _applied_instead(name, str(sk), sub, value)
                    if applied is not _NO_DEFAULT and _same_value(sv, applied):
                        ctx.emit(DICT_UNKNOWN_SAME, path, f"DeepSpeed does not read `{path}`; it has no effect, and "
                                 f"`{name}.{target}` is {fmt(applied)} anyway, the same value.",
                                 "Remove it" + (f" (or write it as `{target}`)." if target else "."))
                    else:
                        now = ("" if target is None or applied is _NO_DEFAULT else
                               f"; `{name}.{target}` is {fmt(applied)}" + ("" if target in value else " (default)"))
                        ctx.emit(DICT_UNKNOWN, path, f"DeepSpeed does not read `{path}` (it reads "
                                 + ", ".join(sub) + f"), so {fmt(sv)} is ignored" + now + "."
                                 + (f" Did you mean `{target}`?" if target else ""),
                                 f"Write it as `{target}`." if target else "Fix the key name or delete it.")
            continue
        if name in opaque:
            if not isinstance(value, dict) and value is not None:
                ctx.emit(NOT_MAPPING, name, f"`{name}: {fmt(value)}` must be a JSON object.",
                         f"Write `{name}` as an object, or delete it.")
            continue
        _check_scalar(ctx, name, value)
    if "steps_per_print" in ds:
        ctx.emit(STEPS_PRINT, "steps_per_print", f"`steps_per_print: {fmt(ds['steps_per_print'])}` is replaced by "
                 "accelerate (it sets infinity to silence DeepSpeed's own logging); only logging is affected.",
                 "Delete it and log from the training loop.")


def _is_comment_key(name: str) -> bool:
    """``_comment``, ``__note``, ``//``, ``comment``, ``#``: names people use for comments in JSON."""
    low = name.lower().strip()
    return low.startswith(("_", "//", "#")) or low in ("comment", "comments", "note", "notes", "description")


def _check_deprecated_pairs(ctx: ConfigCheck, section: str, value) -> None:
    if not isinstance(value, dict):
        return
    root = S.load()["sections"][section]
    deprecated = root.get("x-deprecated", {})
    accepted = S.model_keys(section)
    for old, new in deprecated.items():
        if old not in value or not new or " " in new:
            continue
        field = accepted.get(new, new)
        spelled = [k for k, f in accepted.items() if f == field and k in value]
        if spelled:
            ctx.emit(DEPRECATED_BOTH, (f"{section}.{old}", f"{section}.{spelled[0]}"),
                     f"`{section}.{old}` is the deprecated form of `{section}.{spelled[0]}`, and both are written; "
                     "DeepSpeed asserts that only one is given.", f"Delete `{section}.{old}`.")


def _check_scalar(ctx: ConfigCheck, name: str, value) -> None:
    if value is None or (isinstance(value, str) and value == "auto"):
        return
    if name in BOOL_SCALARS and not isinstance(value, (bool, int)):
        looks_true = is_true_word(value)
        if looks_true and name != "wall_clock_breakdown":
            ctx.emit(BOOL_STRING, name, f"`{name}: {fmt(value)}` is a string; DeepSpeed tests it as a plain Python "
                     "value, which happens to mean true here.", "Write true (no quotes).")
        else:
            ctx.emit(SCALAR_TYPE, name, f"`{name}: {fmt(value)}` must be true or false; DeepSpeed uses it as a plain "
                     "Python value, so this string counts as true (or breaks the arithmetic DeepSpeed does with it).",
                     "Write true or false, without quotes.")
    elif name in NUMBER_SCALARS and (isinstance(value, (str, bool, list, dict))):
        ctx.emit(SCALAR_TYPE, name, f"`{name}: {fmt(value)}` must be a number; DeepSpeed compares and multiplies "
                 "it as is, so a string or boolean fails or misbehaves.", "Write a number (or \"auto\" where "
                 "accelerate fills it).")


def check_autos(ctx: ConfigCheck, ds: dict) -> None:
    zo = ds.get("zero_optimization")
    if not isinstance(zo, dict):
        zo = {}
    for path in walk_autos(ds):
        if path == "steps_per_print":
            continue  # accelerate replaces it before anything reads it (STEPS_PRINT says so)
        if path in AUTO_TRAINER_ONLY:
            if ctx.loop == LOOP_HF:
                continue  # the Trainer fills it from its adam_* arguments
            if ctx.loop == LOOP_ACCELERATE:
                ctx.emit(AUTO_TRAINER_OWN, path, f"`{path}: \"auto\"` is only filled by the Hugging Face Trainer (from "
                         "its adam_* arguments); in an own Accelerator loop accelerate never fills it, so prepare() "
                         "raises 'not found in kwargs'.",
                         "Write the value (e.g. betas [0.9, 0.999], eps 1e-8), or train through the Trainer.")
            else:
                ctx.emit(AUTO_TRAINER, path, f"`{path}: \"auto\"` works only under the Hugging Face Trainer (it fills "
                         "it from its adam_* arguments); in an own Accelerator loop prepare() raises 'not found in "
                         "kwargs'. Tell the wizard the loop (--trainer hf|accelerate) for a verdict.",
                         "Under the Trainer nothing to do; for an own loop write the value (e.g. betas [0.9, 0.999], "
                         "eps 1e-8).")
        elif path not in AUTO_FILLED:
            ctx.emit(AUTO_UNFILLED, path, f"`{path}: \"auto\"` is not one of the values accelerate or the HF Trainer "
                     "know how to fill; prepare() raises 'not found in kwargs'.", "Write a concrete value.")
        elif path == "zero_optimization.stage":
            where = ("nothing can set it next to a JSON" if ctx.bare or ctx.loop == LOOP_HF
                     else "the YAML cannot set zero_stage next to a JSON")
            ctx.emit(AUTO_STAGE, path, "`zero_optimization.stage: \"auto\"` is filled with accelerate's default "
                     f"ZeRO stage 2 ({where}).", "Write the stage (0-3).")
        elif path.endswith(".device"):
            ctx.emit(AUTO_DEVICE, path, f"`{path}: \"auto\"` is filled with \"none\": nothing is offloaded.",
                     "Write none, cpu or nvme.")
        elif path.endswith(".nvme_path"):
            sec = zo.get(path.split(".")[1]) or {}
            if isinstance(sec, dict) and sec.get("device") == "nvme":
                ctx.emit(AUTO_NVME, path, f"`{path}: \"auto\"` is filled with the text 'none', so NVMe swap files go "
                         "to a folder named 'none' under the launch directory.", "Write the NVMe mount path.")
        elif path in ("fp16.enabled", "bf16.enabled") and ctx.loop != LOOP_HF and ctx.y.get("mixed_precision") is None:
            if ctx.bare:
                msg = (f"`{path}: \"auto\"` follows the mixed precision chosen at launch: under the HF Trainer its "
                       "bf16/fp16 arguments, in an own loop `accelerate launch --mixed_precision` or "
                       "`Accelerator(mixed_precision=...)`; with none of them the run is fp32.")
            else:
                msg = (f"`{path}: \"auto\"` follows the mixed precision given at launch; the YAML sets none (it may "
                       "not, next to a JSON), so without `--mixed_precision` or Trainer flags the run is fp32.")
            ctx.emit(AUTO_PRECISION, path, msg, "Pass --mixed_precision bf16 at launch (or the Trainer's bf16=True), "
                     "or write true/false in the JSON.")
    _check_learning_rates(ctx, ds)
    if ctx.loop == LOOP_HF and ctx.context.trainer_arguments is not None:
        check_trainer_arguments(ctx, ds)
    elif ctx.loop != LOOP_ACCELERATE:
        _trainer_matches(ctx, ds)
        _trainer_version_fills(ctx, ds, zo)


def _trainer_version_fills(ctx: ConfigCheck, ds: dict, zo: dict) -> None:
    """Fills of older transformers releases that DeepSpeed refuses (the rules' version ranges decide)."""
    who = "The Hugging Face Trainer" if ctx.loop == LOOP_HF else "If this runs under the Hugging Face Trainer, it"
    tf = ctx.versions.get("transformers")
    if ctx.stage == 3 and zo.get("stage3_prefetch_bucket_size") == "auto":
        ctx.emit(TRAINER_PREFETCH_FLOAT, "zero_optimization.stage3_prefetch_bucket_size",
                 f"{who} of transformers " + (tf if tf else "this release") + " fills `stage3_prefetch_bucket_size: "
                 "\"auto\"` with 0.9 x h x h as a "
                 "float (from 4.45 it is rounded): for a hidden size h that is not a multiple of 10 (4096, 2048, "
                 "8192, ...) it has a fractional part and DeepSpeed refuses the config.",
                 "Write a whole number (e.g. 0.9 x h x h rounded), or use transformers 4.45 or later.")
    sch = ds.get("scheduler")
    sp = sch.get("params") if isinstance(sch, dict) else None
    if isinstance(sch, dict) and isinstance(sp, dict) and sp.get("warmup_num_steps") == "auto" \
            and sch.get("type") in ("WarmupLR", "WarmupDecayLR"):
        ctx.emit(TRAINER_WARMUP_ZERO, "scheduler.params.warmup_num_steps",
                 f"{who} of transformers " + (tf if tf else "this release") + " fills `warmup_num_steps: \"auto\"` "
                 "with TrainingArguments' warm-up "
                 "steps, 0 unless warmup_steps is set (from 5.18 at least 1), and DeepSpeed 0.19.3 and later refuse "
                 "0: the run stops when the scheduler is built.",
                 "Pass warmup_steps >= 1 to TrainingArguments, or write a whole number >= 1 here.")


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _check_learning_rates(ctx: ConfigCheck, ds: dict) -> None:
    """The Trainer matches optimizer.params.lr and scheduler.params.warmup_max_lr against one learning_rate."""
    opt, sch = ds.get("optimizer"), ds.get("scheduler")
    op = opt.get("params") if isinstance(opt, dict) else None
    sp = sch.get("params") if isinstance(sch, dict) else None
    if not isinstance(op, dict) or not isinstance(sp, dict):
        return
    lr, top = op.get("lr"), sp.get("warmup_max_lr")
    if lr is None or top is None or lr == "auto" or top == "auto" or lr == top:
        return
    keys = ("optimizer.params.lr", "scheduler.params.warmup_max_lr")
    if ctx.loop == LOOP_HF:
        ctx.emit(LR_CONFLICT_TRAINER, keys, f"`optimizer.params.lr: {fmt(lr)}` and `scheduler.params.warmup_max_lr: "
                 f"{fmt(top)}` differ, but the Hugging Face Trainer compares both with the one learning_rate "
                 "argument, so one of them always mismatches and the Trainer raises before training.",
                 "Write \"auto\" for both (they take learning_rate), or the same number.")
    elif ctx.loop is None:
        ctx.emit(LR_CONFLICT_UNKNOWN, keys, f"`optimizer.params.lr: {fmt(lr)}` and `scheduler.params.warmup_max_lr: "
                 f"{fmt(top)}` differ: under the Hugging Face Trainer one of them always mismatches learning_rate and "
                 "the Trainer raises; in an own loop the scheduler sets the rate (warming up to "
                 f"{fmt(top)}), so the optimizer's lr only applies before the first step.",
                 "Write \"auto\" for both, or the same number.")


# DeepSpeed key -> the TrainingArguments it must equal under the Trainer (transformers/integrations/deepspeed.py
# trainer_config_process / trainer_config_finalize), and that argument's default
_TRAINER_MATCHED = (
    ("train_micro_batch_size_per_gpu", "per_device_train_batch_size", 8),
    ("gradient_accumulation_steps", "gradient_accumulation_steps", 1),
    ("train_batch_size", "world size x per_device_train_batch_size x gradient_accumulation_steps", None),
    ("gradient_clipping", "max_grad_norm", 1.0),
    ("optimizer.params.lr", "learning_rate", 5e-05),
    ("optimizer.params.betas", "[adam_beta1, adam_beta2]", [0.9, 0.999]),
    ("optimizer.params.eps", "adam_epsilon", 1e-08),
    ("optimizer.params.weight_decay", "weight_decay", 0.0),
    ("scheduler.params.warmup_max_lr", "learning_rate", 5e-05),
    ("scheduler.params.total_num_steps", "the number of training steps (max_steps or epochs)", None),
    ("scheduler.params.warmup_num_steps", "warmup_steps (or warmup_ratio x steps)", None),
    ("fp16.enabled", "fp16", False),
    ("bf16.enabled", "bf16", False),
)


def _get_path(ds: dict, path: str):
    node: Any = ds
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _matched_row(path: str, value, arg: str, default) -> str:
    """One row of the note: ``gradient_clipping 1.0 = max_grad_norm (its default)``; each row its own sentence
    (``said``), translated item by item where the note lists them."""
    shown = fmt(value)
    if path == "train_batch_size":
        return said(f"{path} {shown} = world size x per_device_train_batch_size x gradient_accumulation_steps")
    if path == "scheduler.params.total_num_steps":
        return said(f"{path} {shown} = the number of training steps (max_steps or epochs)")
    if path == "scheduler.params.warmup_num_steps":
        return said(f"{path} {shown} = warmup_steps (or warmup_ratio x steps)")
    tail = "" if default is None else (" (its default)" if value == default else f" (default {fmt(default)})")
    return said(f"{path} {shown} = {arg}" + tail)


def _trainer_matches(ctx: ConfigCheck, ds: dict) -> None:
    """One note listing the concrete values the Trainer will compare with TrainingArguments."""
    rows, keys = [], []
    for path, arg, default in _TRAINER_MATCHED:
        v = _get_path(ds, path)
        if v is None or v == "auto" or isinstance(v, dict):
            continue
        keys.append(path)
        rows.append(_matched_row(path, v, arg, default))
    if not rows:
        return
    lead = ("Under the Hugging Face Trainer" if ctx.loop == LOOP_HF else
            "If this runs under the Hugging Face Trainer")
    ctx.emit(TRAINER_MATCH, tuple(keys), f"{lead}, these concrete values must equal TrainingArguments, or the "
             "Trainer raises 'mismatch TrainingArguments values' before training: " + "; ".join(rows) + ".",
             "Pass the same values to TrainingArguments, or write \"auto\" so the Trainer fills them.")


def _shown(value) -> str:
    return fmt(value) if not isinstance(value, float) else repr(value)


def _filled_row(m, args: dict) -> str:
    """``train_micro_batch_size_per_gpu = 2 (per_device_train_batch_size)``; for a value that needs what no file
    shows, how it is made (its own sentence: ``said``, translated item by item where the note lists them)."""
    if m.value is not None:
        return f"{m.path} = " + _shown(m.value) + (f" ({' / '.join(m.arguments)})" if m.arguments else "")
    if m.path == "train_batch_size":
        return said(f"{m.path} = the number of processes x {args['per_device_train_batch_size']} x "
                    f"{args['gradient_accumulation_steps']}")
    if m.path == "scheduler.params.warmup_num_steps":
        return said(f"{m.path} = {args['warmup_steps']} of the training steps, at least 1 (warmup_steps)")
    return said(f"{m.path} = the number of training steps (from the epochs and the dataset: max_steps not given)")


def check_trainer_arguments(ctx: ConfigCheck, ds: dict) -> None:
    """The HF Trainer's fill and match of this JSON against the TrainingArguments given (``--training-args``):
    each difference an error naming the JSON key and the argument, the "auto" values it fills in one note, and what
    needs the number of processes or of training steps said as unknown.

    The words around the computed parts are literal in the messages (variants of ``a if c else b`` and ``+``) or
    sentences of their own (``said``), so that the other languages translate them (issue 27)."""
    from ..effective.trainer import FILLED, MISMATCH, UNKNOWN, trainer_arguments, trainer_matches

    given = dict(ctx.context.trainer_arguments or {})
    args = trainer_arguments(given)
    source = ctx.context.trainer_arguments_source
    where = f" in {source}" if source else " in the TrainingArguments"
    filled, unknown = [], []
    for m in trainer_matches(ds, given, world_size=ctx.nproc):
        *rest, last = m.arguments or ("",)  # a value filled from no argument (the world size) names none
        argnames = last if not rest else " and ".join(rest) + " and " + last  # the words literal in the templates
        if m.verdict == MISMATCH:
            together = ""
            if m.path == "train_batch_size":
                unit = args["per_device_train_batch_size"] * args["gradient_accumulation_steps"]
                what = (said(f"{ctx.nproc} processes x per_device_train_batch_size "
                             f"{args['per_device_train_batch_size']} x gradient_accumulation_steps "
                             f"{args['gradient_accumulation_steps']} = {_shown(m.value)}") if m.value is not None else
                        said(f"the number of processes x per_device_train_batch_size "
                             f"{args['per_device_train_batch_size']} x gradient_accumulation_steps "
                             f"{args['gradient_accumulation_steps']} = a multiple of {unit}, which "
                             f"{_shown(m.written)} is not, for any number of processes"))
                keys: tuple[str, ...] = (m.path, *m.arguments) + (("num_processes",) if m.value is not None else ())
            else:
                shown = {n: args[n] for n in m.arguments}
                what = ", ".join(f"{n} {_shown(v)}" for n, v in shown.items())
                if len(m.arguments) > 1 and m.path.endswith(".enabled"):
                    together = f" (either of them: {_shown(m.value)})"
                elif len(m.arguments) > 1:
                    together = f" (together {_shown(m.value)})"
                keys = (m.path, *m.arguments)
            given_or_default = "" if any(n in given for n in m.arguments) or m.path == "train_batch_size" \
                else " (its default: not given)"
            ctx.emit(TRAINER_ARG_MISMATCH, keys,
                     f"`{m.path}: {_shown(m.written)}` in the DeepSpeed JSON differs from {what}" + together + where
                     + f"{given_or_default}: the Hugging Face Trainer compares the two and raises 'Please correct the "
                     "following DeepSpeed config values that mismatch TrainingArguments values' before training.",
                     f"Write \"auto\" for `{m.path}` in the JSON (the Trainer fills it from " + argnames + "), or set "
                     + argnames + " to match.")
        elif m.verdict == FILLED:
            filled.append(m)
        elif m.verdict == UNKNOWN:
            unknown.append(m)
    if filled:
        rows = "; ".join(_filled_row(m, args) for m in filled)
        ctx.emit(TRAINER_ARG_FILLED, tuple(m.path for m in filled),
                 (f"The Hugging Face Trainer fills these \"auto\" values from {source}: " if source else
                  "The Hugging Face Trainer fills these \"auto\" values from the TrainingArguments: ") + f"{rows}.",
                 "Nothing to do if these are the values meant; otherwise change the arguments.")
    for m in unknown:
        ctx.emit(TRAINER_ARG_UNKNOWN, m.path,
                 f"The Hugging Face Trainer fills a value that depends on {m.needs}: not checked here."
                 if m.written == "auto" else
                 f"The Hugging Face Trainer compares `{m.path}: {_shown(m.written)}` with a value that depends on "
                 f"{m.needs}: not checked here.",
                 "Pass --num-processes N for the batch, or max_steps in the arguments for the schedule."
                 if m.path == "train_batch_size" else "Give max_steps in the arguments for a verdict, or write "
                 "\"auto\".")


def _positive_int(value) -> int | None:
    n = as_int(value)
    return n if n is not None and n > 0 else None


def check_batch(ctx: ConfigCheck, ds: dict) -> None:
    keys = ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps")
    # the JSON values as written (None when absent): `present` says which are given, `ok` that those are valid
    vals: dict[str, Any] = {k: ds.get(k) for k in keys}
    present = {k: k in ds and ds[k] is not None for k in keys}
    ok = True
    for k in keys:
        v = vals[k]
        if present[k] and v != "auto" and _positive_int(v) is None:
            ok = False
            ctx.emit(BATCH_INVALID, k, f"`{k}: {fmt(v)}` must be a whole number above 0 (or \"auto\").",
                     f"Write `{k}` as a positive integer, or \"auto\".")
    if "gradient_accumulation_steps" in ds and ds["gradient_accumulation_steps"] is None \
            and "train_micro_batch_size_per_gpu" in ds and ds["train_micro_batch_size_per_gpu"] is not None:
        ok = False
        ctx.emit(BATCH_INVALID, "gradient_accumulation_steps", "`gradient_accumulation_steps: null` is kept as "
                 "written (accelerate only fills a missing key with 1), and prepare() multiplies it into "
                 "train_batch_size: it fails with a TypeError.", "Write a number of steps, or \"auto\", or delete "
                 "the key (then 1).")
    tb, mb, gas = vals["train_batch_size"], vals["train_micro_batch_size_per_gpu"], vals["gradient_accumulation_steps"]
    if not present["train_micro_batch_size_per_gpu"] and tb == "auto":
        keys2 = ("train_batch_size", "train_micro_batch_size_per_gpu")
        fix = "Add `\"train_micro_batch_size_per_gpu\": \"auto\"` (filled from the dataloader) or a number."
        if ctx.loop == LOOP_ACCELERATE:
            ctx.emit(BATCH_AUTO_TOTAL_OWN, keys2, "`train_batch_size` is \"auto\" and `train_micro_batch_size_per_gpu` "
                     "is missing: in an own Accelerator loop accelerate fills the total only from the micro batch, so "
                     "prepare() raises 'not found in kwargs'.", fix)
        elif ctx.loop is None:
            ctx.emit(BATCH_AUTO_TOTAL, keys2, "`train_batch_size` is \"auto\" and `train_micro_batch_size_per_gpu` is "
                     "missing: the HF Trainer fills the total from its arguments (DeepSpeed derives the micro batch), "
                     "but in an own Accelerator loop accelerate fills it only from the micro batch, so prepare() "
                     "raises 'not found in kwargs'.", fix)
        return
    if not present["train_micro_batch_size_per_gpu"] and not present["train_batch_size"]:
        ctx.emit(BATCH_MISSING, "train_micro_batch_size_per_gpu",
                 "The DeepSpeed JSON gives no batch size: neither `train_micro_batch_size_per_gpu` nor "
                 "`train_batch_size` is there; DeepSpeed asserts.",
                 "Add `\"train_micro_batch_size_per_gpu\": \"auto\"` (filled from the dataloader) or a number.")
        return
    if not ok or not present["train_batch_size"] or tb == "auto":
        return
    gas_auto = present["gradient_accumulation_steps"] and gas == "auto"
    if mb == "auto":
        g0 = 1 if not present["gradient_accumulation_steps"] else (None if gas_auto else as_int(gas))
        world0 = None if _skip_world_check(ctx, ds) else ctx.nproc
        div = (g0 or 1) * world0 if world0 else None
        if div and int(tb) % div:
            blame = tuple(k for k in keys if present[k]) + ("num_processes",)
            ctx.emit(BATCH_MISMATCH, blame,  # the words around the numbers literal variants: translated (issue 27)
                     f"train_batch_size {tb} cannot be split into {world0} processes"
                     + (f" x {g0} accumulation steps" if g0 else "") + " of whole micro batches, so whatever fills "
                     "the \"auto\" values, the check total = micro x accumulation x processes fails.",
                     "Choose a train_batch_size that is a multiple of processes x accumulation steps, or \"auto\".")
            return
        if g0 and world0:  # each phrase its own sentence (``said``): translated inside the message (issue 27)
            need = said(f"a batch size of {int(tb) // (g0 * world0)} ({tb} / ({g0} accumulation x {world0} processes))")
        elif world0:
            need = said(f"micro batch x accumulation steps = {int(tb) // world0} ({tb} / {world0} processes)")
        else:
            need = said("the batch size that makes micro x accumulation x processes equal it")
        ctx.emit(BATCH_FIXED_AUTO, ("train_batch_size", "train_micro_batch_size_per_gpu"),
                 f"`train_batch_size: {tb}` is fixed while `train_micro_batch_size_per_gpu` is \"auto\": accelerate "
                 "fills the micro batch from the dataloader (the HF Trainer from per_device_train_batch_size) and "
                 f"never changes the fixed total, so the run starts only with {need}; any other fails the check "
                 "total = micro x accumulation x processes.",
                 "Set both to \"auto\", or both to numbers that agree.")
        return
    world = ctx.nproc
    if world is None or _skip_world_check(ctx, ds):
        return
    tb = int(tb)
    if gas_auto:  # filled from the Accelerator's / the Trainer's accumulation: any whole number of steps can fit
        unit = (int(mb) if present["train_micro_batch_size_per_gpu"] else 1) * world
        blame = tuple(k for k in keys if present[k]) + ("num_processes",)
        if tb % unit:
            ctx.emit(BATCH_MISMATCH, blame, f"train_batch_size {tb} is not a multiple of micro batch x processes = "
                     f"{unit}, so no number of accumulation steps makes micro x accumulation x processes equal it; "
                     "DeepSpeed asserts 'Check batch related parameters'.",
                     "Make train_batch_size a multiple of micro batch x processes, or set it to \"auto\".")
        elif present["train_micro_batch_size_per_gpu"]:
            steps = tb // unit
            ctx.emit(BATCH_FIXED_AUTO_GAS, ("train_batch_size", "train_micro_batch_size_per_gpu",
                                            "gradient_accumulation_steps"),
                     f"`train_batch_size: {tb}` and `train_micro_batch_size_per_gpu: {int(mb)}` are fixed while "
                     "`gradient_accumulation_steps` is \"auto\": the run starts only with exactly "
                     f"{steps} accumulation step(s) ({tb} / ({int(mb)} x {world} processes)), passed as "
                     f"TrainingArguments(gradient_accumulation_steps={steps}) under the HF Trainer or "
                     f"Accelerator(gradient_accumulation_steps={steps}) in an own loop; any other fails DeepSpeed's "
                     "batch check.", "Set train_batch_size to \"auto\", or write the accumulation steps.")
        return
    g = 1 if not present["gradient_accumulation_steps"] else int(gas)
    if present["train_micro_batch_size_per_gpu"]:
        expect = int(mb) * g * world
        if tb != expect:
            blame = tuple(k for k in keys if present[k]) + ("num_processes",)
            ctx.emit(BATCH_MISMATCH, blame, f"train_batch_size {tb} != micro batch {int(mb)} x gradient accumulation "
                     f"{g}{' (accelerate default)' if not present['gradient_accumulation_steps'] else ''} x {world} "
                     f"processes = {expect}; DeepSpeed asserts 'Check batch related parameters'.",
                     "Make the three numbers agree, or set train_batch_size to \"auto\".")
    elif tb % (g * world) or tb // (g * world) == 0:
        blame = tuple(k for k in keys if present[k]) + ("num_processes",)
        ctx.emit(BATCH_MISMATCH, blame, f"train_batch_size {tb} cannot be split into {world} processes x {g} "
                 "accumulation steps of whole micro batches; DeepSpeed asserts.",
                 "Choose a train_batch_size that is a multiple of processes x accumulation steps.")


def _skip_world_check(ctx: ConfigCheck, ds: dict) -> bool:
    """DeepSpeed divides by the data-parallel size, which tensor/sequence parallelism change."""
    tp = ds.get("tensor_parallel")
    if not isinstance(tp, dict):
        tp = {}
    if (as_int(tp.get("autotp_size", 0)) or 0) > 1 or ds.get("sequence_parallel_size") not in (None, 1):
        return True
    pc = ctx.section("parallelism_config")
    return any((as_int(v) or 1) > 1 for k, v in pc.items() if str(k).endswith(("tp_size", "sp_size", "cp_size")))


def check_zero_present(ctx: ConfigCheck, ds: dict) -> bool:
    if "zero_optimization" not in ds:
        ctx.emit(ZERO_MISSING, "zero_optimization", "The DeepSpeed JSON has no `zero_optimization` block; "
                 "accelerate's DeepSpeed plugin refuses it ('Please specify the ZeRO optimization config').",
                 "Add `\"zero_optimization\": {\"stage\": 2}` (or the stage you want).")
        return False
    return True
