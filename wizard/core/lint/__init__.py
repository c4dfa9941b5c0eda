"""The config linter behind ``fsdpds-wizard check``: read an accelerate config and the DeepSpeed JSON it names the
way accelerate reads them (``configfile``), then run the rules over them (``linter.lint``).

The rule modules, each registering the rules it emits (listed in docs/rules.md):

* ``base``: one check of a config (``ConfigCheck``: the files, what accelerate derives from them, the findings so
  far) and how accelerate turns a YAML value into what its plugins parse;
* ``keys``: unknown, misplaced and ignored keys in every section;
* ``general``: launcher, precision, processes, dynamo, FP8, parallelism;
* ``fsdp``: ``fsdp_config`` (FSDP1 and FSDP2);
* ``ds``: ``deepspeed_config`` (accelerate's DeepSpeed plugin);
* ``dsjson`` / ``dszero``: the DeepSpeed JSON (keys, values, ``auto``, batch sizes; ZeRO, precision, optimizer);
* ``configfile``: the loader's own findings (duplicate keys, a DeepSpeed JSON that cannot be found or read).

Importing this package loads every rule (no torch, accelerate or deepspeed).
"""
from .configfile import DS_FILE_KEY, LoadedConfig, load_config_files
from .linter import fp8_backend_importable, lint, lint_ds_json

__all__ = ["lint", "lint_ds_json", "fp8_backend_importable", "load_config_files", "LoadedConfig", "DS_FILE_KEY"]
