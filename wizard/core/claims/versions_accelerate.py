"""Claims about older accelerate releases that the version-bound rules state (wizard/core/lint/fsdp.py, keys.py).

The installed accelerate (1.15) cannot show them, so each cites the old release's code and the replay that shows it
(scripts/replay_accelerate_versions.py, output in docs/versions-accelerate.md); see :mod:`wizard.core.claims`.
"""
from __future__ import annotations

from .registry import claim

_REPLAY = "scripts/replay_accelerate_versions.py"

FSDP_VERSION_SINCE = claim(
    "accelerate-fsdp-version-since-1-6",
    "accelerate launch reads fsdp_version (and fsdp_reshard_after_forward) only from release 1.6.0: 1.0 to 1.5 "
    "have no such launch argument and export no FSDP_VERSION, their plugin has no fsdp_version field, and so "
    "fsdp_version: 2 there is copied and never read, and the run is FSDP1 with the FSDP1 reading of every key.",
    doc="version-notes",
    code="accelerate/utils/launch.py:280-300 (1.5.2: no FSDP_VERSION, and accelerate/commands/launch.py has no "
         "--fsdp_version); accelerate/utils/launch.py:285 and accelerate/commands/launch.py:523 (1.6.0)",
    why_not_demo="needs accelerate 1.5 or older installed; shown by " + _REPLAY + " (cases fsdp_version_2, "
                 "v2_reshard_false)",
    scope=("before-1-6-fsdp_version", "before-1-6-fsdp_reshard_after_forward", "from-1-6"))
SD_SHARDED_ONLY_1_6 = claim(
    "accelerate-1-6-fsdp2-sharded-state-dict-only",
    "accelerate 1.6.0, the first release with FSDP2, accepts only SHARDED_STATE_DICT with fsdp_version 2: "
    "FULL_STATE_DICT makes FullyShardedDataParallelPlugin raise there; 1.7.0 and later accept FULL_STATE_DICT "
    "and reject only LOCAL_STATE_DICT.",
    doc="version-notes",
    code="accelerate/utils/dataclasses.py:1879-1884 (1.6.0)",
    why_not_demo="needs accelerate 1.6.0 installed; shown by " + _REPLAY + " (case v2_full_sd)",
    scope=("1-6-full-raises", "from-1-7-full-accepted", "from-1-7-local-rejected"))
KEYS_PER_RELEASE = claim(
    "accelerate-keys-arrive-per-release",
    "Keys that a later accelerate release reads are copied and never read by earlier ones: fsdp_ignored_modules "
    "from 1.10.0, fsdp_activation_checkpointing_offload from 1.15.0, dynamo_use_regional_compilation from 1.7.0, "
    "dynamo_config keys without the dynamo_ prefix from 1.14.0, the parallelism_config section from 1.10.0 (older "
    "releases fail to load the file), its cp_backend and sp_ keys from 1.12.0, and fp8_enable_fsdp_float8_all_gather "
    "and fp8_pad_inner_dim from 1.13.0.",
    doc="version-notes",
    code="accelerate/utils/launch.py:331-332 (1.10.1, fsdp_ignored_modules); accelerate/utils/launch.py:331 "
         "(1.15.0, FSDP_ACTIVATION_CHECKPOINTING_OFFLOAD); accelerate/commands/launch.py:1268-1269 (1.14.0, the "
         "dynamo_ prefix); accelerate/commands/config/config_args.py (1.10.1, the parallelism_config field)",
    why_not_demo="needs the older accelerate releases installed; shown by " + _REPLAY + " (its key inventory and "
                 "the cases ignored_modules, ac_offload, regional_compilation, dynamo_no_prefix, parallelism_sp)",
    scope=("fsdp_ignored_modules", "fsdp_activation_checkpointing_offload", "dynamo_use_regional_compilation",
           "dynamo-keys-without-prefix", "parallelism_config", "cp_backend-and-sp-keys",
           "fp8_enable_fsdp_float8_all_gather", "fp8_pad_inner_dim"))
PREFETCH_INT = claim(
    "trainer-prefetch-bucket-int-since-4-45",
    "transformers' Trainer fills an \"auto\" ZeRO-3 stage3_prefetch_bucket_size with 0.9 x h x h: up to 4.44 as "
    "a float (15099494.4 for h = 4096), which DeepSpeed's integer field refuses when it has a fractional part; "
    "from 4.45 rounded to an int.",
    doc="library-versions",
    code="transformers/integrations/deepspeed.py:234-238 (5.24, int(0.9 * hidden_size * hidden_size); 4.44.2 "
         "fills 0.9 * hidden_size * hidden_size unrounded)",
    why_not_demo="needs transformers 4.44 installed; shown by " + _REPLAY + " --transformers (case all_auto)",
    scope=("up-to-4-44-float", "from-4-45-int"))
WARMUP_AT_LEAST_ONE = claim(
    "trainer-warmup-at-least-one-since-5-18",
    "transformers' Trainer fills an \"auto\" scheduler warmup_num_steps with the warm-up steps of its arguments; "
    "before 5.18 that is 0 when no warm-up is set, from 5.18 at least 1.",
    doc="library-versions",
    code="transformers/integrations/deepspeed.py:255-258 (5.24: max(1, args.get_warmup_steps(...)); 5.17: "
         "args.get_warmup_steps(...))",
    why_not_demo="needs transformers 5.17 installed; shown by " + _REPLAY + " --transformers (case warmup_zero)",
    scope=("before-5-18-zero", "from-5-18-at-least-one"))
