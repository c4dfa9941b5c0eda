"""Claims about how a config reaches the libraries (see :mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

SECTIONS_UNCHECKED = claim(
    "config-sections-unchecked",
    "accelerate's config loader checks only the top-level keys of the YAML: an unknown or misplaced key inside "
    "fsdp_config or deepspeed_config (a DeepSpeed key under fsdp_config, say) loads without a message.",
    doc="how-a-config-reaches-the-libraries",
    code="accelerate/commands/config/config_args.py:149-160",
    demo="tests/claims/test_config.py::test_the_loader_checks_only_top_level_keys",
    scope=("fsdp-config-unknown-key", "fsdp-config-deepspeed-key", "deepspeed-config-unknown-key",
           "deepspeed-config-fsdp-key", "top-level-refused"))

DYNAMO_MODE_UNCHECKED = claim(
    "dynamo-mode-from-yaml-unchecked",
    "A dynamo_mode from the YAML reaches torch.compile unchecked: only the --dynamo_mode flag is limited to "
    "accelerate's short list, so any mode torch accepts (max-autotune-no-cudagraphs, lite) works from a config.",
    doc="dynamo-config",
    code="accelerate/commands/launch.py:223-228,1269-1277; accelerate/utils/dataclasses.py:1098-1099; "
    "torch/_inductor/__init__.py:338-372",
    demo="tests/claims/test_config.py::test_a_yaml_dynamo_mode_is_passed_through_unchecked",
    scope=("flag-limited", "max-autotune-no-cudagraphs", "lite"))
SAGEMAKER_LAUNCH_BROKEN = claim(
    "sagemaker-config-launch-fails",
    "From accelerate 1.10, `accelerate launch --config_file` reads the config's parallelism_config before it picks "
    "a launcher, and the SageMaker config class has no such field: every AMAZON_SAGEMAKER config stops with an "
    "AttributeError before the SageMaker launcher is reached.",
    doc="config-loading",
    code="accelerate/commands/launch.py:1219-1248, 1410; accelerate/commands/config/config_args.py:198, 234-255",
    demo="tests/claims/test_config.py::test_a_sagemaker_config_cannot_be_launched",
    scope=("amazon-sagemaker-config",))
CPU_AFFINITY_FLAG = claim(
    "yaml-cpu-affinity-never-applied",
    "accelerate launch copies a top-level config value onto its arguments only where the argument is still None; "
    "--enable_cpu_affinity is a flag whose default is False, so `enable_cpu_affinity: true` in the config never "
    "reaches it, and the ACCELERATE_CPU_AFFINITY the processes read is never set (only the command-line flag "
    "sets it).",
    doc="config-loading",
    code="accelerate/commands/launch.py:210-214, 1278-1283; accelerate/utils/launch.py:196-197, 394-395",
    demo="tests/claims/test_config.py::test_enable_cpu_affinity_in_the_config_is_never_applied",
    scope=("config-true-ignored", "flag-sets-env"))
