"""Claims the FSDP and key lint rules state (wizard/core/lint/fsdp.py, keys.py); see :mod:`wizard.core.claims`."""
from __future__ import annotations

from .registry import claim

T = "tests/claims/test_rules_fsdp.py::"

SECTION_KEYS_FLAT = claim(
    "launch-section-keys-copied-flat",
    "accelerate launch copies each section's keys onto its own arguments (fsdp_config keys gain an fsdp_ prefix, "
    "dynamo_config dynamo_, fp8_config fp8_; deepspeed_config and parallelism_config keys stay as written) and uses "
    "only names it knows: any other key changes nothing, without a message; of two keys ending with the same name "
    "the later wins; a section key named like a top-level option (num_processes) replaces the top-level value; a "
    "section that is not a mapping is not read at all. The FSDP values are exported as str() of the YAML value, so "
    "a list arrives as the text of the list.",
    doc="launch-copies-section-keys",
    code="accelerate/commands/launch.py:1262-1283; accelerate/utils/launch.py:82-97, 290-333, 397-427",
    demo=T + "test_section_keys_are_copied_flat_onto_the_launch_arguments",
    scope=("fsdp-prefix", "dynamo-prefix", "fp8-prefix", "deepspeed-as-written", "parallelism-as-written",
           "unknown-key-unused", "last-wins", "section-key-replaces-top-level", "not-a-mapping", "str-of-list"))
OTHER_SECTIONS = claim(
    "launch-other-sections-per-distributed-type",
    "parallelism_config reaches the processes only on the FSDP, DeepSpeed and multi-GPU paths, its cp_comm_strategy "
    "only with cp_size above 1 and its sp_ sequence settings only with sp_size above 1; megatron_lm_config and "
    "mpirun_config are read only for MEGATRON_LM and MULTI_CPU, so under FSDP neither reaches the processes.",
    doc="launch-copies-section-keys",
    code="accelerate/utils/launch.py:100-120, 335-360, 397-427, 588-589; accelerate/commands/launch.py:1390-1413",
    demo=T + "test_which_launch_paths_read_the_other_sections",
    scope=("fsdp", "multi-gpu", "deepspeed", "cp-comm-needs-cp-size", "sp-needs-sp-size", "megatron-and-mpirun-unread"))
PLUGIN_NAMES = claim(
    "fsdp-plugin-rejects-unknown-names",
    "The FSDP plugin takes only its own names (or their numbers) for the sharding strategy, backward prefetch and "
    "state dict type and raises for any other value (KeyError for an unknown name); an unknown auto wrap policy "
    "raises ValueError 'Invalid auto wrap policy'.",
    doc="fsdp-key-mapping",
    code="accelerate/utils/dataclasses.py:1844-1853, 1892-1902, 1909-1915, 2047-2056",
    demo=T + "test_the_plugin_refuses_unknown_names",
    scope=("sharding-strategy", "backward-prefetch", "state-dict-type", "numbers", "number-out-of-range",
           "auto-wrap-policy"))
PLUGIN_BOOLS = claim(
    "fsdp-flags-str-to-bool",
    "The FSDP plugin reads its on/off settings with str_to_bool, which takes y, yes, t, true, on, 1 and n, no, f, "
    "false, off, 0 in any case and raises 'invalid truth value' for anything else.",
    doc="fsdp-key-mapping",
    code="accelerate/utils/environment.py:59-71; accelerate/utils/dataclasses.py:1887, 1938-1980",
    demo=T + "test_flags_go_through_str_to_bool",
    scope=("true-words", "false-words", "other-word-raises"))
MIN_SIZE_ONLY = claim(
    "fsdp-min-num-params-size-policy-only",
    "The FSDP plugin reads FSDP_MIN_NUM_PARAMS only under SIZE_BASED_WRAP: with TRANSFORMER_BASED_WRAP or NO_WRAP "
    "the value is never looked at, so it neither wraps anything nor fails, even when int() would refuse it.",
    doc="fsdp-min-num-params",
    code="accelerate/utils/dataclasses.py:1918-1936",
    demo=T + "test_min_num_params_is_read_only_by_the_size_policy",
    scope=("transformer-policy", "no-wrap", "size-policy-reads"))
RAM_FORCES_SYNC = claim(
    "fsdp1-ram-efficient-forces-sync",
    "accelerate launch exports fsdp_cpu_ram_efficient_loading true when the YAML omits it, and its check tests the "
    "YAML values of that key and fsdp_sync_module_states for truth, so a quoted 'false' passes; FSDP1's plugin then "
    "sets sync_module_states back to true, with a warning, because cpu_ram_efficient_loading is on.",
    doc="fsdp-ram-efficient-loading",
    code="accelerate/utils/launch.py:305-307; accelerate/utils/dataclasses.py:1976-1988",
    demo=T + "test_a_quoted_false_passes_the_launcher_and_fsdp1_syncs_anyway",
    scope=("launcher-default-on", "quoted-false-passes", "fsdp1-syncs-anyway", "unquoted-false-refused"))
HYBRID_DIVISIBLE = claim(
    "torch-hybrid-groups-need-multiple",
    "FSDP1's HYBRID_SHARD builds its groups with torch's new_subgroups(visible GPU count), which raises ValueError "
    "when that count exceeds the world size or does not divide it.",
    doc="fsdp1-hybrid-shard",
    code="torch/distributed/fsdp/_init_utils.py:143-167, 201-215; torch/distributed/distributed_c10d.py:6103-6200",
    demo=T + "test_new_subgroups_needs_a_divisor_of_the_world_size",
    scope=("exceeds-world-size", "not-a-divisor", "divisor"))
FP8_MISNAMED = claim(
    "fp8-config-names-unread",
    "accelerate config saves some fp8 answers as amax_history_length, amax_compute_algorithm and optimization_level, "
    "while the recipes read amax_history_len, amax_compute_algo and opt_level: the launcher exports every fp8_config "
    "key as an ACCELERATE_FP8_* variable, and these are never read.",
    doc="mixed-precision",
    code="accelerate/commands/config/cluster.py:837-876; accelerate/utils/launch.py:82-97; "
         "accelerate/utils/dataclasses.py:409-451",
    demo=T + "test_fp8_keys_are_exported_under_any_name_and_only_some_are_read",
    scope=("optimization-level", "amax-history-length", "amax-compute-algorithm"))
