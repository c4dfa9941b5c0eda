"""The rules of the wizard's own steps: reading input (answers files, accelerate configs), importing a config and the
``--verify`` round trip (sections ``input``, ``import`` and ``verify`` of the registry, wizard/core/rules.py). With
the config rules (wizard/core/lint/) and the answer rules (``answers.rules``), every finding name the product emits is
registered once, with its severity, and listed in docs/rules.md (tests/unit/test_rule_registry.py checks that nothing
emitted is missing).

The emitters use the constants below; keys and fix are declared here in general terms, since the messages are
built where the finding is made.
"""
from __future__ import annotations

from .findings import DOC, ERROR, INFO, WARNING
from .rules import IMPORT, INPUT, VERIFY, rule

_ANSWERS_SRC = "answers.yaml schema 1; wizard/core/answers/model.py (answers_from_mapping)"
_INPUTS_SRC = ("wizard/core/inputs.py (bounded reading: regular files only, 16 KiB of YAML, 256 KiB of JSON, "
               "64 levels, 100,000 alias values, no control characters)")
_VERIFY_SRC = (DOC + "how-a-config-reaches-the-libraries; wizard/core/verify/roundtrip.py (round trip through "
               "accelerate 1.15 / deepspeed 0.19)")

# ------------------------------------------------------------------ input
ANSWERS_YAML = rule(
    "answers-yaml", ERROR,
    "The answers text cannot be used at all: not YAML, nested too deep, aliases expanding too far, too large",
    _ANSWERS_SRC + "; " + _INPUTS_SRC, section=INPUT, keys="answers",
    fix="The message names the line or the limit; write plain `group: {name: value}` YAML "
        "(`fsdpds-wizard explain` lists every key).")
ANSWERS_NOT_A_MAPPING = rule(
    "answers-not-a-mapping", ERROR, "The answers file is a list, a text or a number, not a mapping",
    _ANSWERS_SRC, section=INPUT, keys="answers",
    fix="Write the answers as a mapping, e.g. `backend: deepspeed` then `launch:` with `num_processes: 8` indented.")
ANSWERS_SCHEMA_VERSION = rule(
    "answers-schema-version", ERROR, "The answers' schema_version is one this wizard does not read",
    _ANSWERS_SRC, section=INPUT, keys="schema_version", fix="Set `schema_version: 1`.")
ANSWERS_UNKNOWN_KEY = rule(
    "answers-unknown-key", ERROR, "A key the answers schema does not have (or a key that is not a string)",
    _ANSWERS_SRC, section=INPUT, keys="the unknown key (answer id as written)",
    fix="Did you mean the key named in the message? Otherwise remove it; the message lists the valid keys there.")
ANSWERS_BAD_VALUE = rule(
    "answers-bad-value", ERROR,
    "A value of the wrong type, not one of the choices, or outside the setting's range",
    _ANSWERS_SRC + "; wizard/core/catalog/settings.py (kind, choices, minimum, maximum)", section=INPUT,
    keys="the answer id",
    fix="Write one of the expected values the message names, or remove the key to use the default.")
ANSWERS_DUPLICATE = rule(
    "answers-duplicate-key", ERROR,
    "A key written twice in the answers with different values (YAML keeps the last, the first is dropped)",
    DOC + "config-loading (yaml.safe_load keeps the last value); " + _ANSWERS_SRC + "; wizard/core/inputs.py "
    "(yaml_duplicates, as check reads a config)", section=INPUT,
    keys="the repeated answer id", fix="Keep one line with the value you want.")
ANSWERS_DUPLICATE_SAME = rule(
    "answers-duplicate-key-same-value", WARNING, "A key written twice in the answers with the same value",
    DOC + "config-loading; " + _ANSWERS_SRC + "; wizard/core/inputs.py (yaml_duplicates)", section=INPUT,
    keys="the repeated answer id",
    fix="Delete one of the two lines.")
ANSWERS_EMPTY = rule(
    "answers-empty", WARNING, "The answers file is empty (or only comments): every setting takes its default",
    _ANSWERS_SRC, section=INPUT, keys="answers",
    fix="Write the settings you mean, e.g. `backend: deepspeed`; `fsdpds-wizard explain` lists every key.")
CONFIG_UNREADABLE = rule(
    "config-unreadable", ERROR,
    "The accelerate config cannot be used at all: not found, a folder, too large, not UTF-8 text, not YAML, nested "
    "too deep, aliases expanding too far, not a mapping",
    DOC + "config-loading; accelerate/commands/config/config_args.py:148-160 (how accelerate reads it); "
    "wizard/commands/check.py, wizard/core/answers/importer.py; " + _INPUTS_SRC, section=INPUT, keys="config",
    fix="The message says what is wrong with the file; `accelerate config` writes a valid one.")

# ------------------------------------------------------------------ import
IMPORT_NOTE = rule(
    "import", INFO,
    "How the importer translated the file into answers: a value it could not carry (default kept), a value it "
    "read the way accelerate reads it, a DeepSpeed JSON key kept in `deepspeed.extra`",
    DOC + "how-a-config-reaches-the-libraries; wizard/core/answers/importer.py (the file's faults are the config "
    "rules, as `check` reports them)",
    section=IMPORT, keys="the key in the imported file (or the answer id it became)",
    fix="Check the setting named in the wizard and set it again if the import did not carry what you meant.")
IMPORT_UNSUPPORTED = rule(
    "import-unsupported", ERROR,
    "The file cannot be imported into answers: not a mapping, or a distributed_type other than FSDP or DEEPSPEED",
    DOC + "launch-copies-section-keys; wizard/core/answers/importer.py (import_mapping)",
    section=IMPORT, keys="`config` (not a mapping) or `distributed_type`",
    fix="Start from a preset (`fsdpds-wizard presets`) or from scratch; `fsdpds-wizard check` still lints the file.")

# ------------------------------------------------------------------ convert (wizard/core/convert/)
_CONVERT_SRC = "wizard/core/convert/groups.py; docs/convert.md"
CONVERT_DROPPED = rule(
    "convert-dropped", INFO,
    "convert: a setting of the original config that the new target has no place for; it is not written and the "
    "converted answers take the default",
    DOC + "launch-copies-section-keys; wizard/core/catalog/settings.py (where each setting is written per target); "
    + _CONVERT_SRC, section=IMPORT, keys="the answer id",
    fix="The message names the new target's counterpart, if it has one; set that by hand where it matters.",
    claims=("launch-distributed-type-picks-section",))
CONVERT_MEANING = rule(
    "convert-meaning-changed", INFO,
    "convert: a setting carried over that behaves differently on the new target (same answer, different run)",
    DOC + "how-a-config-reaches-the-libraries; wizard/core/texts/switching.py (the switch notes); " + _CONVERT_SRC,
    section=IMPORT, keys="the answer id",
    fix="Read the note; the TUI's switch report shows the same text.",
    claims=("fsdp-offload-single-switch", "ds-module-cast-fp32-master",
            "launch-accumulation-and-clipping-deepspeed-only"))
CONVERT_ZERO1 = rule(
    "convert-zero1-no-fsdp-twin", WARNING,
    "convert: ZeRO-1 (optimizer state sharded only) has no FSDP form; written as SHARD_GRAD_OP / "
    "reshard_after_forward false, which also shards gradients and, between steps, parameters",
    DOC + "ds-zero-stages; " + DOC + "fsdp2-reshard-after-forward; " + _CONVERT_SRC, section=IMPORT,
    keys="sharding.strategy",
    fix="Keep it (less memory, more communication: parameters are all-gathered each step), or stay on DeepSpeed "
        "for ZeRO-1.",
    claims=("ds-zero-stages-partition", "fsdp-reshard-after-forward"))
CONVERT_ZERO0 = rule(
    "convert-no-shard-no-fsdp2-twin", WARNING,
    "convert: unsharded data parallelism (ZeRO-0, NO_SHARD) has no FSDP2 form; written as reshard_after_forward "
    "false, which still shards between steps",
    DOC + "fsdp2-reshard-after-forward; " + _CONVERT_SRC, section=IMPORT, keys="sharding.strategy",
    fix="Convert to FSDP1 (--fsdp-version 1, NO_SHARD) or keep DeepSpeed ZeRO-0.",
    claims=("fsdp-reshard-after-forward", "fsdp2-ignores-v1-keys"))
CONVERT_HYBRID_ZERO2 = rule(
    "convert-hybrid-zero2-no-ds-twin", WARNING,
    "convert: HYBRID_SHARD_ZERO2 has no DeepSpeed form; written as plain ZeRO-2 over every GPU of every machine",
    DOC + "ds-zero-stages; " + _CONVERT_SRC, section=IMPORT, keys="sharding.strategy, launch.num_machines",
    fix="Keep ZeRO-2, or choose hybrid_full (ZeRO-3 with hpZ) in the answers.",
    claims=("ds-zero-stages-partition", "ds-hpz-secondary-partition"))
CONVERT_HYBRID = rule(
    "convert-hybrid-hpz", INFO,
    "convert: FSDP HYBRID_SHARD and DeepSpeed ZeRO++ hpZ (zero_hpz_partition_size) are counterparts with different "
    "memory: what carries and what does not",
    DOC + "fsdp1-hybrid-shard; " + DOC + "parallelism-config; " + DOC + "ds-zero-stages; " + _CONVERT_SRC,
    section=IMPORT, keys="sharding.strategy, launch.num_machines, launch.num_processes",
    fix="Check the per-GPU memory with `fsdpds-wizard estimate` on the converted answers.",
    claims=("ds-hpz-secondary-partition", "fsdp1-hybrid-groups-by-visible-devices",
            "fsdp2-hybrid-from-parallelism-config"))
CONVERT_HYBRID_ONE_MACHINE = rule(
    "convert-hybrid-single-machine", INFO,
    "convert: hybrid sharding on one machine is plain sharding; the converted config writes the plain form",
    DOC + "fsdp1-hybrid-shard; " + _CONVERT_SRC, section=IMPORT, keys="sharding.strategy, launch.num_machines",
    fix="Set launch.num_machines in the answers if the run spans several machines.",
    claims=("fsdp1-hybrid-groups-by-visible-devices", "ds-hpz-secondary-partition"))
CONVERT_OFFLOAD_ALL = rule(
    "convert-offload-all-or-nothing", WARNING,
    "convert: DeepSpeed offloaded the optimizer and the parameters separately; FSDP's single switch offloads "
    "parameters, gradients and the optimizer step together",
    DOC + "fsdp-cpu-offload; " + DOC + "ds-offload-and-zero-stage; " + _CONVERT_SRC, section=IMPORT,
    keys="offload.optimizer, offload.params",
    fix="Keep it (less GPU memory, slower steps), or offload nothing on FSDP if the GPU memory allows.",
    claims=("fsdp-offload-single-switch", "ds-offload-blocks-independent"))
CONVERT_OFFLOAD_STAGE = rule(
    "convert-offload-not-carried", WARNING,
    "convert: part of FSDP's offload has no DeepSpeed form at the ZeRO stage of the conversion (parameter offload "
    "needs ZeRO-3; ZeRO-0 cannot offload): not written",
    DOC + "ds-offload-and-zero-stage; " + _CONVERT_SRC, section=IMPORT,
    keys="offload.optimizer, offload.params, sharding.strategy",
    fix="Convert a FULL_SHARD config for ZeRO-3 offload, or set sharding.strategy full in the converted answers.",
    claims=("ds-param-offload-zero3-only", "ds-offload-optimizer-stage0-asserts", "fsdp-offload-single-switch"))
CONVERT_NVME = rule(
    "convert-nvme-no-fsdp-twin", WARNING,
    "convert: FSDP cannot offload to NVMe; NVMe offload becomes CPU offload, held in host RAM",
    DOC + "fsdp-cpu-offload; " + DOC + "ds-nvme-offload; " + _CONVERT_SRC, section=IMPORT,
    keys="offload.optimizer, offload.params, offload.nvme_path",
    fix="Make sure the host has RAM for the offloaded state (`fsdpds-wizard estimate` gives it), or stay on "
        "DeepSpeed for NVMe.",
    claims=("fsdp-offload-single-switch", "ds-offload-blocks-independent"))
CONVERT_CPU_OPTIMIZER = rule(
    "convert-cpu-optimizer", INFO,
    "convert: with optimizer offload DeepSpeed steps in its own CPU optimizer, which replaces the script's "
    "torch optimizer (DeepSpeedCPUAdam for all but Adagrad and bitsandbytes Lion); FSDP's offload runs the "
    "script's torch optimizer step on the CPU",
    DOC + "ds-optimizer-and-scheduler; " + DOC + "fsdp-cpu-offload; " + _CONVERT_SRC, section=IMPORT,
    keys="offload.optimizer",
    fix="Expect a different optimizer (DeepSpeed: Adam-family CPU ops built on first use; FSDP: your own).",
    claims=("ds-offload-replaces-torch-optimizer", "ds-cpu-optimizer-built-on-first-use",
            "fsdp-offload-single-switch"))
CONVERT_PREFETCH = rule(
    "convert-prefetch", INFO,
    "convert: prefetch knobs do not translate: FSDP1's backward/forward prefetch, FSDP2's none, DeepSpeed ZeRO-3's "
    "stage3_prefetch_bucket_size, stage3_max_live_parameters, stage3_max_reuse_distance and persistence thresholds",
    DOC + "fsdp-prefetch; " + DOC + "ds-stage3-prefetch-limits; " + _CONVERT_SRC, section=IMPORT,
    keys="the prefetch answers that were set",
    fix="Tune the new target's own knobs after a first run, if at all; the defaults prefetch.",
    claims=("fsdp1-prefetch-modes", "fsdp2-prefetch-control-code-only", "ds-zero3-prefetch-after-trace",
            "ds-max-live-parameters-caps-prefetch"))
CONVERT_PRECISION = rule(
    "convert-precision-upcast", INFO,
    "convert: the same mixed precision keeps different dtypes: FSDP upcasts the trainable parameters to fp32 and "
    "casts per forward/backward, DeepSpeed casts the model to 16 bits and keeps fp32 master weights",
    DOC + "ds-precision; " + DOC + "mixed-precision; " + _CONVERT_SRC, section=IMPORT,
    keys="precision.mixed_precision, sharding.strategy",
    fix="Compare the bytes per parameter with `fsdpds-wizard estimate` for both configs.",
    claims=("fsdp2-upcast-per-parameter", "fsdp1-upcast-per-unit", "ds-module-cast-fp32-master",
            "fsdp-no-mixed-precision-keeps-load-dtype", "fsdp-saved-weights-fp32"))
CONVERT_BF16_MASTER = rule(
    "convert-bf16-master-no-fsdp-twin", WARNING,
    "convert: DeepSpeed's bf16 master weights (bf16_master_weights_and_grads, bf16_optimizer_states) have no FSDP "
    "counterpart; with mixed precision FSDP keeps fp32 trainable weights and Adam state",
    DOC + "ds-bf16-master-weights; " + _CONVERT_SRC, section=IMPORT,
    keys="precision.ds_bf16_master_weights, precision.mixed_precision",
    fix="For bf16 weights, gradients and Adam state on FSDP, load the model in bf16 and set mixed_precision no.",
    claims=("ds-bf16-master-weights-option", "master-weights-fsdp-load-dtype"))
CONVERT_DS_EXTRA = rule(
    "convert-ds-extra-dropped", INFO,
    "convert: DeepSpeed JSON keys without a wizard setting (kept in deepspeed.extra) have no FSDP place: each is "
    "listed and dropped",
    DOC + "fsdp-key-mapping; " + _CONVERT_SRC, section=IMPORT, keys="deepspeed.extra (the keys are in the message)",
    fix="Check the list for anything your run depends on; FSDP has no config file of its own.",
    claims=("fsdp-config-yaml-only",))
CONVERT_DS_OPTIMIZER = rule(
    "convert-ds-optimizer-block", WARNING,
    "convert: the DeepSpeed JSON builds the optimizer (or scheduler) from its own block; under FSDP nothing does, "
    "so the training loop must create it",
    DOC + "ds-optimizer-and-scheduler; " + _CONVERT_SRC, section=IMPORT, keys="deepspeed.extra, launch.training_loop",
    fix="Own loop: create a torch optimizer (and scheduler) instead of DummyOptim/DummyScheduler; the HF Trainer "
        "creates them from TrainingArguments.",
    claims=("ds-optimizer-json-and-script", "trainer-builds-the-ds-optimizer-itself"))
CONVERT_ZERO3_ONLY = rule(
    "convert-zero3-only", INFO,
    "convert: a setting DeepSpeed reads only at ZeRO-3 (zero3_init_flag, the 16-bit full save) when the "
    "conversion gives ZeRO-0/1/2: the converted answers take what really happens",
    DOC + "ds-zero3-flags; " + DOC + "ds-checkpoint-layout; " + _CONVERT_SRC, section=IMPORT,
    keys="loading.ram_efficient or checkpoint.format, sharding.strategy",
    fix="Convert a FULL_SHARD config for ZeRO-3, or accept every rank loading the whole model.",
    claims=("ds-zero3-init-flag-off-below-zero3", "ds-zero12-checkpoint-weights-whole"))
CONVERT_AC = rule(
    "convert-activation-checkpointing-dropped", WARNING,
    "convert: FSDP's activation checkpointing has no DeepSpeed config key; without a call in the script the "
    "converted run keeps every activation",
    DOC + "fsdp-activation-checkpointing; " + _CONVERT_SRC, section=IMPORT,
    keys="training.activation_checkpointing (and its offload)",
    fix="Call model.gradient_checkpointing_enable() in the script (the HF Trainer: gradient_checkpointing=True).",
    claims=("ds-activation-checkpointing-section-api-only",))
CONVERT_COMPILE = rule(
    "convert-compile-dropped", WARNING,
    "convert: torch.compile from the config (dynamo_config) has no DeepSpeed form: accelerate launch does not pass "
    "it to DeepSpeed runs, so the converted run is not compiled unless the script compiles",
    DOC + "dynamo-config; " + _CONVERT_SRC, section=IMPORT, keys="launch.dynamo_backend (and the other dynamo answers)",
    fix="Call torch.compile (or deepspeed's engine.compile()) in the script if the run should be compiled.",
    claims=("dynamo-not-exported-under-deepspeed",))
CONVERT_NOT_IN_EFFECT = rule(
    "convert-not-in-effect", INFO,
    "convert: a value the original config states but its own backend did not apply (parameter offload below "
    "ZeRO-3, zero3_init_flag below ZeRO-3, torch.compile under DeepSpeed, ...): converted as what really ran",
    DOC + "ds-offload-and-zero-stage; " + DOC + "ds-zero3-flags; " + _CONVERT_SRC, section=IMPORT,
    keys="the answer ids of the values not in effect",
    fix="`fsdpds-wizard check` on the original config explains each one; set the value again on the new target "
        "if you want it there.",
    claims=("ds-param-offload-zero3-only", "ds-zero3-init-flag-off-below-zero3",
            "ds-zero3-init-flag-does-not-stop-zero-init", "ds-nvme-optimizer-offload-below-zero3-is-cpu",
            "ds-offload-optimizer-stage0-asserts", "dynamo-not-exported-under-deepspeed",
            "fsdp-min-num-params-size-policy-only"))

# ------------------------------------------------------------------ verify
VERIFY_LOAD = rule(
    "verify-load", ERROR, "accelerate's own config loader rejects the file (load_config_from_file)",
    _VERIFY_SRC + "; accelerate/commands/config/config_args.py",
    section=VERIFY, keys="the key accelerate names (or the file)",
    fix="Fix the value accelerate names in the message (`fsdpds-wizard check` explains most of them).")
VERIFY_LAUNCH = rule(
    "verify-launch", ERROR, "`accelerate launch` would refuse the config (argument parsing, validation, "
    "the environment it exports)",
    _VERIFY_SRC + "; accelerate/commands/launch.py", section=VERIFY, keys="the key the launcher names",
    fix="Fix the value the launcher names in the message.")
VERIFY_PLUGIN = rule(
    "verify-plugin", ERROR, "Accelerator() would fail building its plugins (DeepSpeedPlugin, "
    "FullyShardedDataParallelPlugin, ParallelismConfig, dynamo) from the exported environment",
    _VERIFY_SRC + "; accelerate/accelerator.py, accelerate/utils/dataclasses.py",
    section=VERIFY, keys="the key the plugin reads",
    fix="Fix the value the plugin names in the message.")
VERIFY_DS_CONFIG = rule(
    "verify-deepspeed-config", ERROR, "DeepSpeed's own DeepSpeedConfig rejects the final JSON (after "
    "accelerate fills the 'auto' values)",
    _VERIFY_SRC + "; deepspeed/runtime/config.py", section=VERIFY, keys="the DeepSpeed JSON path DeepSpeed names",
    fix="Fix the value DeepSpeed names in the message.")
VERIFY_LIBRARY_WARNING = rule(
    "verify-library-warning", WARNING, "accelerate or DeepSpeed warns while reading the config (a Python "
    "warning or a WARNING log record)",
    _VERIFY_SRC, section=VERIFY, keys="the key the warning is about (or the file)",
    fix="Read the library's warning in the message; change the value it names if the warning applies.")
VERIFY_FP8_RECIPE = rule(
    "verify-fp8-recipe-only", INFO, "fp8 was read back from the recipe accelerate builds, not from a real fp8 "
    "start-up: the fp8 package is not installed here (or no backend is written and none is installed)",
    _VERIFY_SRC + "; accelerate/utils/launch.py (setup_fp8_env), accelerate/accelerator.py (the recipe handlers), "
    "accelerate/utils/dataclasses.py (TERecipeKwargs, MSAMPRecipeKwargs, AORecipeKwargs)",
    section=VERIFY, keys="fp8_config.backend (or mixed_precision)",
    fix="Nothing to change in the config; run --verify where the fp8 package is installed to replay the "
        "Accelerator's fp8 start-up itself (and, with no backend written, to see which recipe it picks there).")
VERIFY_MISMATCH = rule(
    "verify-mismatch", ERROR, "A value the libraries really use differs from the value the config states",
    _VERIFY_SRC + " (compare)", section=VERIFY, keys="the effective key (plugin field or DeepSpeed JSON path)",
    fix="The value is read differently by the installed versions: set it the way the message shows, or report it "
        "as a wizard bug if the wizard wrote it.")


# ------------------------------------------------------------------ the context a check judges for
_CONTEXT_SRC = (DOC + "library-versions; " + DOC + "training-loop; wizard/core/context.py (training loop and library "
                "versions); wizard/core/versions.py (VERIFIED_AGAINST)")
CONTEXT_VERSIONS = rule(
    "context-versions-not-verified", INFO,
    "The library versions judged for differ from those the wizard's knowledge was verified against",
    _CONTEXT_SRC, section=INPUT, keys="the libraries whose version differs",
    fix="Rules with a version range follow it; for the rest, `check --verify` replays the config through the "
        "installed libraries.")
CONTEXT_LOOP_UNKNOWN = rule(
    "context-loop-unknown", INFO,
    "The training loop is unknown: findings that depend on it are warnings that say what happens in each case",
    _CONTEXT_SRC, section=INPUT, keys="--trainer (the flag that would tell it)",
    fix="Pass --trainer hf (the Hugging Face Trainer, TRL, LLaMA-Factory, axolotl) or --trainer accelerate (an own "
        "Accelerator loop), or --script train.py to read it from the script.")
CONTEXT_NUM_PROCESSES_UNUSED = rule(
    "context-num-processes-not-used", INFO,
    "--num-processes was given for an accelerate config, which gives num_processes itself",
    _CONTEXT_SRC, section=INPUT, keys="num_processes",
    fix="Drop --num-processes (it is for a DeepSpeed JSON checked alone), or change num_processes in the config.")
_TRAINING_FILE_SRC = (DOC + "training-loop; wizard/core/effective/training_file.py (each tool's mapping, cited "
                      "there: LLaMA-Factory "
                      "src/llamafactory/hparams/parser.py, axolotl src/axolotl/core/builders/base.py, "
                      "src/axolotl/utils/config/__init__.py:236-240); docs/corpus.md (Trainer pairs)")
TRAINING_FILE_READ = rule(
    "training-file-read", INFO,
    "A LLaMA-Factory or axolotl training file, read as the HF Trainer's arguments (how it was recognised, what was "
    "mapped onto TrainingArguments, what was assumed)",
    _TRAINING_FILE_SRC, section=INPUT, keys="the training file's keys mapped onto TrainingArguments",
    fix="Pass --kind llamafactory|axolotl if it was recognised as the wrong tool.")
TRAINING_FILE_DS_NOT_FOUND = rule(
    "training-file-deepspeed-not-found", ERROR,
    "The DeepSpeed JSON a training file names is not found from the folder the run starts in (the tool opens it "
    "from there)",
    _TRAINING_FILE_SRC, section=INPUT, keys="deepspeed",
    fix="Run check from the folder you launch training from, or write the path from there (or an absolute one).")
TRAINING_FILE_FSDP = rule(
    "training-file-fsdp-not-checked", INFO,
    "A training file that sets FSDP instead of a DeepSpeed JSON: the Trainer matches nothing of it against "
    "TrainingArguments, and its fsdp_config keys are not checked here",
    _TRAINING_FILE_SRC, section=INPUT, keys="fsdp, fsdp_config",
    fix="Check the FSDP settings as an accelerate config (`fsdpds-wizard check accelerate_config.yaml`), or write "
        "one with the wizard.")
TRAINING_FILE_NO_BACKEND = rule(
    "training-file-no-deepspeed", INFO,
    "A training file that names neither a DeepSpeed JSON nor FSDP settings: nothing for the Trainer to match",
    _TRAINING_FILE_SRC, section=INPUT, keys="deepspeed",
    fix="Add `deepspeed: path/to/ds_config.json` if the run is meant to use DeepSpeed.")
VERIFY_TRAINER_ARGUMENTS = rule(
    "verify-trainer-arguments", INFO,
    "The TrainingArguments a DeepSpeed JSON alone was replayed with under the Hugging Face Trainer",
    _VERIFY_SRC + "; wizard/commands/check.py (the arguments that agree with the JSON's concrete values)",
    section=VERIFY, keys="TrainingArguments",
    fix="Pass the same values to TrainingArguments (a concrete JSON value that differs makes the Trainer raise).")
