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
_LOADING_SRC = "wizard/core/loading.py (bounded reading: 4 MiB, 64 levels, 100,000 alias values)"
_VERIFY_SRC = (DOC + "how-a-config-reaches-the-libraries; wizard/core/verify/roundtrip.py (round trip through "
               "accelerate 1.15 / deepspeed 0.19)")

# ------------------------------------------------------------------ input
ANSWERS_YAML = rule(
    "answers-yaml", ERROR,
    "The answers text cannot be used at all: not YAML, nested too deep, aliases expanding too far, too large",
    _ANSWERS_SRC + "; " + _LOADING_SRC, section=INPUT, keys="answers",
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
ANSWERS_EMPTY = rule(
    "answers-empty", WARNING, "The answers file is empty (or only comments): every setting takes its default",
    _ANSWERS_SRC, section=INPUT, keys="answers",
    fix="Write the settings you mean, e.g. `backend: deepspeed`; `fsdpds-wizard explain` lists every key.")
CONFIG_UNREADABLE = rule(
    "config-unreadable", ERROR,
    "The accelerate config cannot be used at all: not found, a folder, too large, not UTF-8 text, not YAML, nested "
    "too deep, aliases expanding too far, not a mapping",
    DOC + "config-loading; accelerate/commands/config/config_args.py:148-160 (how accelerate reads it); "
    "wizard/commands/check.py, wizard/core/answers/importer.py; " + _LOADING_SRC, section=INPUT, keys="config",
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
VERIFY_MISMATCH = rule(
    "verify-mismatch", ERROR, "A value the libraries really use differs from the value the config states",
    _VERIFY_SRC + " (compare)", section=VERIFY, keys="the effective key (plugin field or DeepSpeed JSON path)",
    fix="The value is read differently by the installed versions: set it the way the message shows, or report it "
        "as a wizard bug if the wizard wrote it.")


# ------------------------------------------------------------------ the context a check judges for
_CONTEXT_SRC = "wizard/core/context.py (training loop and library versions); wizard/versions.py (VERIFIED_AGAINST)"
CONTEXT_VERSIONS = rule(
    "context-versions-not-verified", INFO,
    "The library versions judged for differ from those the wizard's knowledge was verified against",
    _CONTEXT_SRC, section=INPUT, keys="the libraries whose version differs",
    fix="Rules with a version range follow it; for the rest, `check --verify` replays the config through the "
        "installed libraries.")
CONTEXT_LOOP_UNKNOWN = rule(
    "context-loop-unknown", INFO,
    "The training loop is unknown: findings that depend on it are warnings that say what happens in each case",
    _CONTEXT_SRC, section=INPUT, keys="none",
    fix="Pass --trainer hf (the Hugging Face Trainer, TRL, LLaMA-Factory, axolotl) or --trainer accelerate (an own "
        "Accelerator loop), or --script train.py to read it from the script.")
CONTEXT_NUM_PROCESSES_UNUSED = rule(
    "context-num-processes-not-used", INFO,
    "--num-processes was given for an accelerate config, which gives num_processes itself",
    _CONTEXT_SRC, section=INPUT, keys="num_processes",
    fix="Drop --num-processes (it is for a DeepSpeed JSON checked alone), or change num_processes in the config.")
VERIFY_TRAINER_ARGUMENTS = rule(
    "verify-trainer-arguments", INFO,
    "The TrainingArguments a DeepSpeed JSON alone was replayed with under the Hugging Face Trainer",
    _VERIFY_SRC + "; wizard/commands/check.py (the arguments that agree with the JSON's concrete values)",
    section=VERIFY, keys="none",
    fix="Pass the same values to TrainingArguments (a concrete JSON value that differs makes the Trainer raise).")
