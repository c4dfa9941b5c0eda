"""Claims about how a config reaches the libraries (see :mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

SECTIONS_UNCHECKED = claim(
    "config-sections-unchecked",
    "accelerate's config loader checks only the top-level keys of the YAML: an unknown or misplaced key inside "
    "fsdp_config or deepspeed_config (a DeepSpeed key under fsdp_config, say) loads without a message.",
    doc="how-a-config-reaches-the-libraries",
    code="accelerate/commands/config/config_args.py:149-160",
    demo="tests/claims/test_config.py::test_the_loader_checks_only_top_level_keys")
