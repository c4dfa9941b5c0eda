"""The command line's own words that both its entry (:mod:`wizard.cli`) and its argparse parser
(:mod:`wizard.cli_parser`) use: the commands and what the start flags do, for the messages that refuse a combination.
Plain data, so that a start that needs no parser (the wizard's screen, a plain ``--headless``) imports no argparse
(issue 26)."""
from __future__ import annotations

COMMANDS = {
    "check": "lint an accelerate config YAML and the DeepSpeed JSON it names, or a DeepSpeed JSON alone",
    "explain": "FSDP and DeepSpeed side by side, setting by setting",
    "presets": "list the bundled presets (answers files to start from)",
    "schema": "print the answers.yaml schema (JSON Schema or a Markdown reference)",
    "estimate": "per-GPU and per-host memory of answers, a preset or a config for a model, broken down",
    "recommend": "rank FSDP and DeepSpeed configs that fit a model on your GPUs, and write the chosen answers",
    "convert": "convert an accelerate config (or a DeepSpeed JSON alone) between FSDP and DeepSpeed",
    "consolidate": "merge a run's checkpoint (FSDP shards, ZeRO partitions) into one safetensors file",
    "help": "show the options of a command: fsdpds-wizard help COMMAND",
}
"""Each command and its line in ``--help``; the module ``wizard.commands.<name>`` runs it (``help``: this one)."""


# What each start flag does, for the messages that refuse a combination.
_START_FLAGS = {
    "--answers": "--answers FILE opens the wizard (with a screen) on an answers file",
    "--preset": "--preset NAME opens the wizard (with a screen) on a preset",
    "--config": "--config FILE opens the wizard (with a screen) on an existing accelerate config, imported "
                "and linted",
}
_HEADLESS_DOES = "--headless ANSWERS_OR_PRESET writes the configs from an answers file or a preset without a screen"
_HEADLESS_INSTEAD = {
    "--answers": "without a screen, give the file to --headless: fsdpds-wizard --headless FILE --out DIR",
    "--preset": "without a screen, give the name to --headless: fsdpds-wizard --headless NAME --out DIR",
    "--config": "without a screen, lint it with: fsdpds-wizard check FILE",
}
_NEEDS_VALUE = {
    "--headless": "--headless needs the answers file or preset name right after it: "
                  "fsdpds-wizard --headless ANSWERS.yaml|PRESET_NAME --out DIR (`fsdpds-wizard presets` lists them)",
    "--out": "--out needs the folder the configs are written to: --out DIR",
    "--answers": "--answers needs an answers file: fsdpds-wizard --answers answers.yaml",
    "--preset": "--preset needs a preset name: fsdpds-wizard --preset NAME (`fsdpds-wizard presets` lists them)",
    "--config": "--config needs an accelerate config file: fsdpds-wizard --config accelerate_config.yaml",
}

EVERY_OPTION = "every option below"
"""The main usage's note on ``--help | --version`` (its last line), translated with the help
(:func:`wizard.core.localized.cli_sources` reads it here)."""
